#!/usr/bin/env bash
# Installs what is missing on a Debian machine, builds halo, and runs its main job on a
# bundled example. `--deps-only` stops after installing (CI uses it).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ libboost-dev librapidcheck-dev catch2 libfmt-dev libcli11-dev
          nlohmann-json3-dev libhalide14-0-dev libsimde-dev python3-venv
          libstb-dev libxtensor-dev   # input buffers: image files and NumPy .npy files
          libmpfr-dev   # the float tests' independent reference for IEEE arithmetic (tests/test_floats.cpp)
          chromium   # the headless check of `halo explain` reports (tests/test_explain_browser.cpp)
          emscripten chromium-driver  # the WebAssembly playground and its browser test (docs/playground.md)
          clang-14 libclang-rt-14-dev zip unzip)  # libFuzzer builds of halo's fuzz targets (.ci/fuzz)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi

# --- Halide wheels from PyPI (the Halide version matrix; docs/halide.md, "Versions") -------
# Each pinned version goes into its own directory under the project-local .venv/halide/
# (two versions of the `halide` wheel cannot share one environment); CMake finds them there
# (cmake/HalideVersions.cmake). Only the wheel's C++ library, headers and CMake package are
# used, so its Python dependencies are not installed. PyPI serves no Halide 20 wheel.
# Without PyPI, halo tests Debian's Halide 14 alone, and says so.
HALIDE_WHEELS=(19.0.0 21.0.0)
install_halide_wheels() {
  if [ ! -x .venv/bin/pip ] && ! python3 -m venv .venv; then
    echo "warning: cannot create .venv: no Halide wheels; halo tests Debian's Halide 14 alone"
    return 0
  fi
  local v dir
  for v in "${HALIDE_WHEELS[@]}"; do
    dir=.venv/halide/$v
    [ -f "$dir/halide/lib64/libHalide.so" ] && continue
    echo "installing halide==$v from PyPI into $dir"
    if ! .venv/bin/pip install -q --disable-pip-version-check --no-deps --target "$dir" "halide==$v"; then
      rm -rf "$dir"
      echo "warning: halide==$v could not be installed from PyPI: halo tests the Halide versions it has"
    fi
  done
}
install_halide_wheels
# --- end of the Halide wheels ---------------------------------------------------------------

# Installs pinned packages (PIN...) into the project's .venv/ unless PACKAGE is there at
# VERSION already; without PyPI, WHAT is skipped, and the set-up says so.
venv_install() {  # venv_install PACKAGE VERSION WHAT PIN...
  local package=$1 version=$2 what=$3
  shift 3
  [ -x .venv/bin/python ] || python3 -m venv .venv || { echo "setup: cannot create .venv; $what skipped"; return 0; }
  if .venv/bin/python -c "import importlib.metadata as m, sys; sys.exit(m.version('$package') != '$version')" 2>/dev/null; then
    return 0
  fi
  echo "installing into .venv: $*"
  .venv/bin/pip install -q --disable-pip-version-check "$@" \
    || echo "setup: pip could not install $package; $what will be skipped"
}

# --- Exo (exo-lang from PyPI) for `halo exo` and `halo fuzz --target exo` -----------------
# Installs a pinned exo-lang and its pinned dependencies into the project's .venv/ (the
# virtual environment the Halide wheels share). A machine without PyPI still builds: the
# Exo commands then say what is missing and their tests skip.
setup_exo() {
  local exo_pins=(exo-lang==1.0.0 asdl==0.1.5 asdl-adt==0.1.0 attrs==26.1.0 build==1.6.1 packaging==26.3
                  platformdirs==4.14.7 pyproject_hooks==1.3.3 PySMT==0.9.6 yapf==0.43.0 z3-solver==5.4.1.0)
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    local sudo_cmd=()
    [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq python3-venv || true
  fi
  venv_install exo-lang 1.0.0 "\`halo exo\` and its tests" "${exo_pins[@]}"
}
setup_exo
# --- end of Exo ----------------------------------------------------------------------------

# --- Selenium from PyPI, for the playground's browser test (tests/playground/) ------------
# Pinned with its dependencies; it drives Debian's chromedriver. Without it the test says so
# and is skipped (CI, which sets HALO_REQUIRE_BROWSER, fails instead).
setup_selenium() {
  local pins=(selenium==4.45.0 certifi==2026.10.19.post1 h11==0.16.0 idna==3.20 outcome==1.3.0.post0
              PySocks==1.7.1 sniffio==1.3.1 sortedcontainers==2.4.0 trio==0.35.0 trio-websocket==0.12.2
              typing_extensions==4.16.0 urllib3==2.8.0 websocket-client==1.9.2 wsproto==1.3.2 attrs==26.1.0)
  venv_install selenium 4.45.0 "the playground's browser test" "${pins[@]}"
}
setup_selenium
# --- end of Selenium -----------------------------------------------------------------------

# --- Apache TVM wheels from PyPI (`--target tvm`; docs/tvm.md) ------------------------------
# Each pinned version, with its pinned dependencies, goes into its own directory under
# .venv/tvm/ (two versions of apache-tvm cannot share one environment); halo's TVM worker
# runs with PYTHONPATH set to one of them. The wheel carries its own LLVM. Without PyPI,
# everything builds and `--target tvm` says what is missing; its tests skip.
TVM_WHEELS=(0.26.0 0.27.0.post1)
TVM_PINS=(apache-tvm-ffi==0.1.15.post2 ml_dtypes==0.6.0 numpy==2.4.6 typing_extensions==4.16.0)
install_tvm_wheels() {
  [ -x .venv/bin/pip ] || python3 -m venv .venv || { echo "warning: cannot create .venv: no TVM"; return 0; }
  for v in "${TVM_WHEELS[@]}"; do
    dir=.venv/tvm/$v
    [ -f "$dir/tvm/__init__.py" ] && continue
    echo "installing apache-tvm==$v from PyPI into $dir"
    .venv/bin/pip install -q --disable-pip-version-check --target "$dir" "apache-tvm==$v" "${TVM_PINS[@]}" \
      || { rm -rf "$dir"; echo "warning: apache-tvm==$v could not be installed from PyPI: halo tests the TVM versions it has"; }
  done
}
install_tvm_wheels
# --- end of the TVM wheels -----------------------------------------------------------------
[ "${1:-}" = "--deps-only" ] && exit 0

# What running halo needs, and nothing more (the test command builds the tests): halo
# first, shown at work on the bundled blur as soon as it links, then the Halide workers
# that `--target halide` runs.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
echo "building halo (build/halo)"
cmake --build build --target halo
echo
echo "\$ build/halo eval examples/blur.halo"
build/halo eval examples/blur.halo
echo
echo "\$ build/halo oracle examples/blur.halo"
build/halo oracle examples/blur.halo
echo
echo "building the Halide workers (halo oracle --target halide; docs/halide.md)"
cmake --build build --target halo_runtime
echo
echo "\$ build/halo oracle examples/blur.halo --target halide@all"
build/halo oracle examples/blur.halo --target halide@all

#!/usr/bin/env bash
# Installs what is missing on a Debian machine, builds halo, and runs its main job on a
# bundled example. `--deps-only` stops after installing (CI uses it).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ libboost-dev librapidcheck-dev catch2 libfmt-dev libcli11-dev
          nlohmann-json3-dev libhalide14-0-dev libsimde-dev
          chromium)  # chromium: the headless check of `halo explain` reports (tests/test_explain_browser.cpp)
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
[ "${1:-}" = "--deps-only" ] && exit 0

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
echo
echo "\$ build/halo eval examples/blur.halo"
build/halo eval examples/blur.halo

#!/usr/bin/env bash
# Builds the playground (docs/playground.md): halo compiled to WebAssembly by Debian's
# Emscripten, and the static page that runs it, into OUT (default build/playground). The
# page opens from disk (file://) or from any folder a web server serves: everything it
# loads is a script beside it, with the module and the examples inside.
#
# Usage: scripts/build-playground.sh [OUT]     (exit 1 with a message when emcc is missing)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-build/playground}"
wasm_build="${HALO_WASM_BUILD:-build/wasm}"

if ! command -v emcmake >/dev/null || ! command -v em++ >/dev/null; then
  echo "build-playground: Emscripten is not installed (apt-get install emscripten, as scripts/setup.sh does)" >&2
  exit 1
fi
# Debian's Emscripten runs its JavaScript tools with the machine's node, which must find
# Debian's node modules (acorn) where the package put them.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"
# A compiler cache set for the native build does not know em++: the browser build goes without.
unset CMAKE_CXX_COMPILER_LAUNCHER CMAKE_C_COMPILER_LAUNCHER

emcmake cmake -S . -B "$wasm_build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$wasm_build"

mkdir -p "$out"
python3 playground/assemble.py --module "$wasm_build/halo_playground.js" --web playground/web --root . --examples examples tests/invalid --out "$out"
echo "playground: $out/index.html (open it in a browser, from disk or any web server)"

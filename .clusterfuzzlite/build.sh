#!/bin/bash -eu
# The build script ClusterFuzzLite and OSS-Fuzz run inside the Dockerfile's image: build
# every halo fuzz target with the engine's compiler and flags ($CC, $CXX, $CFLAGS,
# $CXXFLAGS: sanitizers and coverage; $LIB_FUZZING_ENGINE: the engine's main), and put
# the binaries, their seed corpora (NAME_seed_corpus.zip) and dictionaries (NAME.dict)
# in $OUT. Run locally as the engines do: see docs/fuzzing.md ("On a fuzzing cluster").
SRC_DIR="${SRC:-$(cd "$(dirname "$0")/.." && pwd)}"
[ -f "$SRC_DIR/CMakeLists.txt" ] || SRC_DIR="$SRC_DIR/halo"
BUILD="${WORK:-/tmp}/halo-fuzz-build"

# Build type None: the engine's $CFLAGS alone choose optimization (OSS-Fuzz passes -O1);
# Release would append -O3 -DNDEBUG, slower to build and without halo's assertions.
cmake -S "$SRC_DIR" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DHALO_LIBFUZZER=ON -DHALO_FUZZ_ENGINE_LINK="$LIB_FUZZING_ENGINE" -DHALO_BUILD_TESTS=OFF
targets="halo_fuzz_target halo_fuzz_halo halo_fuzz_tgt halo_fuzz_fill halo_fuzz_manifest halo_fuzz_answer"
# The Halide target exists where CMake found a Halide (not in the engines' image); it runs
# Halide in its worker, which stays where the build put it.
if ninja -C "$BUILD" -t query halo_fuzz_halide >/dev/null 2>&1; then
  targets="$targets halo_fuzz_halide"
else
  echo "build.sh: no Halide found: halo_fuzz_halide is not built"
fi
cmake --build "$BUILD" --target $targets

corpus() {  # NAME DIR-or-FILE...: a flat zip of the seed inputs
  local name=$1; shift
  local tmp; tmp=$(mktemp -d)
  for src in "$@"; do
    if [ -d "$src" ]; then find "$src" -maxdepth 1 -type f -exec cp {} "$tmp"/ \; ; else cp "$src" "$tmp"/; fi
  done
  (cd "$tmp" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
  rm -rf "$tmp"
}
for t in $targets; do cp "$BUILD/$t" "$OUT/"; done
corpus halo_fuzz_halo "$SRC_DIR/examples" "$SRC_DIR/examples/impact" "$SRC_DIR/tests/invalid"
corpus halo_fuzz_tgt "$SRC_DIR/tests/tgt" "$SRC_DIR/tests/lowered"
corpus halo_fuzz_fill "$SRC_DIR/fuzz/corpus/fill" "$SRC_DIR/examples/thesis_2_2.fill.json"
corpus halo_fuzz_manifest "$SRC_DIR/fuzz/corpus/manifest" "$SRC_DIR/examples/kernels"
corpus halo_fuzz_answer "$SRC_DIR/fuzz/corpus/answer"
corpus halo_fuzz_target "$SRC_DIR/fuzz/corpus/cases"
if [[ " $targets " == *" halo_fuzz_halide "* ]]; then corpus halo_fuzz_halide "$SRC_DIR/fuzz/corpus/cases"; fi
cp "$SRC_DIR/fuzz/dict/halo.dict" "$OUT/halo_fuzz_halo.dict"
cp "$SRC_DIR/fuzz/dict/halo.dict" "$OUT/halo_fuzz_tgt.dict"
for t in fill manifest answer; do cp "$SRC_DIR/fuzz/dict/json.dict" "$OUT/halo_fuzz_$t.dict"; done

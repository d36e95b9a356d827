#!/bin/sh
# Build and run each native reproducer against Halide 14 (Debian), 19 and 21 (PyPI
# wheels), one compile at a time, and print one line per (bug, version):
#   NAME VERSION EXIT   (EXIT: 0 correct, 1 the bug shows, 2 another Halide error,
#                        3 the version lacks an API the reproducer needs,
#                        >128 killed by a signal, "build" the reproducer did not compile,
#                        "timeout" no result within $TIMEOUT seconds)
# Usage: bench/recall/measure.sh [NAME ...]   (default: every bugs/*.cpp)
# HALO_ROOT: a halo checkout with .venv/halide (default /work/main).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${HALO_ROOT:-/work/main}
out=${OUT:-/tmp/recall-measure}
TIMEOUT=${TIMEOUT:-120}
mkdir -p "$out"
if [ $# -eq 0 ]; then set -- $(cd "$here/bugs" && ls *.cpp | sed 's/\.cpp$//'); fi
for name in "$@"; do
  src="$here/bugs/$name.cpp"
  for v in 14 19 21; do
    exe="$out/$name-$v"
    if [ "$v" = 14 ]; then
      flags="-I/usr/include/halide14 -lHalide14"
    else
      R="$root/.venv/halide/$v.0.0/halide"
      flags="-I$R/include $R/lib64/libHalide.so -Wl,-rpath,$R/lib64"
    fi
    if ! g++ -std=c++17 -O1 "$src" $flags -lpthread -ldl -o "$exe" >"$exe.build.log" 2>&1; then
      echo "$name $v build"; continue
    fi
    timeout -s KILL "$TIMEOUT" "$exe" >"$exe.log" 2>&1; rc=$?
    [ $rc = 137 ] && rc=timeout
    echo "$name $v $rc"
  done
done

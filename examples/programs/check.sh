#!/usr/bin/env bash
# One program of this folder checked as written (README.md): the program runs, computing its
# output with Halide and leaving its serialized pipeline, buffers and realization flags;
# then halo imports that pipeline, its reference semantics must compute exactly the
# program's output (`halo eval --expect`), and `halo oracle --target halide@all` must hold
# on every installed Halide. A program whose source says `// halo-refuses: TEXT` is one
# halo cannot express yet: the import must refuse it with TEXT (exit 2), so that the day it
# is supported this test says so and the count in README.md is updated.
# usage: check.sh HALO PROGRAM SOURCE.cpp WORK_DIR
set -uo pipefail
halo=$1 program=$2 source=$3 work=$4
name=$(basename "$source" .cpp)
rm -rf "$work/$name" && mkdir -p "$work/$name" || exit 1
"$program" "$work/$name" || { echo "FAIL: the program itself failed"; exit 1; }
pipe="$work/$name/$name.hlpipe"
mapfile -t args < "$work/$name/$name.args"
refuses=$(sed -n 's|^// halo-refuses: ||p' "$source")
if [ -n "$refuses" ]; then
  out=$("$halo" import "$pipe" "${args[@]}" 2>&1); status=$?
  echo "$out"
  if [ $status -eq 2 ] && grep -qF -- "$refuses" <<<"$out"; then
    echo "refused as recorded: $refuses"; exit 0
  fi
  echo "FAIL: expected exit 2 naming '$refuses', got exit $status"; exit 1
fi
"$halo" import "$pipe" "${args[@]}" || { echo "FAIL: halo import"; exit 1; }
"$halo" eval "$pipe" "${args[@]}" --expect "$work/$name/$name.out.npy" >/dev/null ||
  { echo "FAIL: halo's reference differs from what the program computed"; exit 1; }
"$halo" oracle "$pipe" "${args[@]}" --target halide@all; status=$?
[ $status -eq 0 ] || { echo "FAIL: halo oracle exited $status"; exit 1; }
echo "checked as written"

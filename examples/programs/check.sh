#!/bin/sh
# One program of examples/programs/ through halo (ctest label `programs`):
#   check.sh PROGRAM SOURCE.cpp HALO SCRATCH_DIR
# runs PROGRAM into SCRATCH_DIR (halo_check.h writes NAME.hlpipe, the .npy files and
# NAME.args there), then
#  * if SOURCE.cpp's first lines say `// halo-refuses: TEXT`: `halo import` must exit 2 with
#    TEXT in its message (the day halo reads the construct, this fails and the README's
#    count is updated);
#  * if they say `// halo-fails: TEXT` (a known bug of halo's, README.md): `halo eval` or
#    `halo oracle` below must fail with TEXT in its output (fixed, this fails: update the
#    README);
#  * else `halo eval NAME.hlpipe ARGS --expect NAME.out.npy` must exit 0 (halo's reference
#    equals what the C++ program computed) and `halo oracle NAME.hlpipe ARGS --target
#    halide@all` must give `holds` for every installed Halide that ran the case (exit 0;
#    exit 5, when some version could not run it, passes if at least one version ran and
#    passed and none found anything).
set -u
program=$1 source=$2 halo=$3 scratch=$4
name=$(basename "$source" .cpp)
fail() { echo "check.sh: $name: $*" >&2; exit 1; }

rm -rf "$scratch" && mkdir -p "$scratch" || fail "cannot make $scratch"
"$program" "$scratch" || fail "the program itself failed (exit $?)"
hlpipe="$scratch/$name.hlpipe"
[ -f "$hlpipe" ] && [ -f "$scratch/$name.args" ] || fail "the program wrote no $name.hlpipe or $name.args"
# Word splitting of the flags is wanted: one flag and its value per line, no spaces in paths.
args=$(cat "$scratch/$name.args")

refusal=$(head -n 3 "$source" | sed -n 's|^// halo-refuses: ||p')
known_failure=$(head -n 3 "$source" | sed -n 's|^// halo-fails: ||p')
# The check's failure: expected when the source names it (then the test passes).
check_failed() {
  if [ -n "$known_failure" ] && grep -qF -- "$known_failure" "$scratch/eval.out" "$scratch/oracle.out" 2>/dev/null; then
    echo "$name: fails as the source says (a known bug): $known_failure"
    exit 0
  fi
  fail "$@"
}
if [ -n "$refusal" ]; then
  # shellcheck disable=SC2086
  "$halo" import "$hlpipe" $args > "$scratch/import.out" 2> "$scratch/import.err"
  status=$?
  cat "$scratch/import.err" >&2
  [ "$status" -eq 2 ] || fail "halo import exited $status, not 2: the program is expected to be refused ($refusal)"
  grep -qF -- "$refusal" "$scratch/import.err" || fail "halo import's message does not say '$refusal'"
  echo "$name: refused as expected: $refusal"
  exit 0
fi

# shellcheck disable=SC2086
"$halo" eval "$hlpipe" $args --expect "$scratch/$name.out.npy" > "$scratch/eval.out" 2>&1
status=$?
[ "$status" -eq 0 ] || cat "$scratch/eval.out" >&2
case $status in
  0) ;;
  1) check_failed "halo eval --expect: halo's reference differs from the C++ program's output (above)" ;;
  *) check_failed "halo eval --expect could not evaluate it (above)" ;;
esac
# shellcheck disable=SC2086
"$halo" oracle "$hlpipe" $args --target halide@all > "$scratch/oracle.out" 2>&1
status=$?
cat "$scratch/oracle.out"
case $status in
  0) ;;
  5) grep -q '^[0-9][0-9.]* *pass ' "$scratch/oracle.out" || check_failed "halo oracle: no installed Halide ran the case (exit 5)" ;;
  *) check_failed "halo oracle --target halide@all exited $status" ;;
esac
[ -z "$known_failure" ] || fail "checked as written, though the source says it fails ($known_failure): update it and README.md"
echo "$name: checked as written"

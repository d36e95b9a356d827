#!/bin/sh
# A deliberately unsound bounds engine (docs/fuzzing.md): it asks β0 for its answer
# (`halo beta0-engine`, the reference engine behind the same protocol), then makes the
# first allocation length one point shorter. Whenever that allocation was tight, the
# completed program reads or writes outside it (Theorem 2.1), and
#   HALO=build/halo build/halo comply --engine examples/engines/shrink_bound.sh
# finds such a case and writes it, minimized, with --out DIR.
#
# It needs only /bin/sh, awk (POSIX) and halo: set HALO to the halo binary when halo is not
# on PATH. `halo beta0-engine` prints one hole per line, sorted, so the first line naming
# ?mem<...>.len is the first dimension of the first func.
HALO=${HALO:-halo}
"$HALO" beta0-engine | awk '
  !done && /"\?mem<[^"]*>\.len": "/ {
    i = index($0, "\": \"")
    head = substr($0, 1, i + 3)
    rest = substr($0, i + 4)
    j = index(rest, "\"")
    $0 = head "(" substr(rest, 1, j - 1) ") - 1" substr(rest, j)
    done = 1
  }
  { print }'

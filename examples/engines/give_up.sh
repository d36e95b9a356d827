#!/bin/sh
# A deliberately weak bounds engine (docs/fuzzing.md): it never tries and always gives up,
# so halo completes the program with `assert 0`. That is safe — a failed assertion is
# allowed by Theorems 2.1 and 2.2 — but not compliant: Def. 2.5 requires an engine to
# compute P(z) wherever β0's completion does, and
#   halo comply --engine examples/engines/give_up.sh
# finds a case where it does not and writes it, minimized, with --out DIR.
cat > /dev/null
echo '{"fail": "this engine always gives up (a deliberately weak example)"}'

#!/bin/sh
# A bounds engine with the bug of thesis §2.9, "Impure identity functions": it assumes the
# output's allocation bounds equal its compute bounds. For examples/thesis_2_2_round4.halo
# it answers as β0 does, except that f is allocated on R(z) = (x_min, x_len) although the
# rounded loop writes (0, 8). docs/guide/impact-output-window.md shows halo catching it.
cat > /dev/null
cat <<'JSON'
{"holes": {
  "?mem<f, x>.min": "x_min", "?mem<f, x>.len": "x_len",
  "?cpu<f, *, 0, x>.min": "x_min", "?cpu<f, *, 0, x>.len": "x_len",
  "?mem<g, x>.min": "x_min", "?mem<g, x>.len": "(x_len + 3) / 4 * 4 + 1",
  "?cpu<g, *, 0, x>.min": "x_min", "?cpu<g, *, 0, x>.len": "(x_len + 3) / 4 * 4 + 1"
}}
JSON

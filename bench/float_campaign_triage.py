#!/usr/bin/env python3
# Classifies the findings of a float campaign (docs/findings/README.md, "An hour of float
# pipelines against the newest Halide") by root cause, from each finding's verdict, its
# signature with the versions it reproduces on, and its minimized program:
#   python3 bench/float_campaign_triage.py DIR     (DIR: the campaign's --out)
# The classes name the filed findings (docs/findings/) they belong to; the rest is listed
# as not reduced.
import json, glob, os, re, sys, collections
d = sys.argv[1]
classes = collections.defaultdict(list)
for f in sorted(glob.glob(os.path.join(d, '*.json'))):
    if f.endswith('summary.json') or 'triage' in f: continue
    try: j = json.load(open(f))
    except Exception: continue
    v = j.get('verdict', '')
    halo = open(f[:-5] + '.halo').read() if os.path.exists(f[:-5] + '.halo') else ''
    sig = j.get('signature', '') or ''
    prog = halo
    pred = any(t in prog for t in ('predicate_stores', 'predicate_loads', ', predicate)'))
    if 'runtime_assertion' in v and ('Output buffer' in v or 'Bounds given' in v):
        c = 'A: bounds query smaller than the loops write (known: halide14-nested-round-splits-output-too-small family)'
    elif ('memory_violation' in v or 'SIGABRT' in v) and pred:
        c = 'C: predicate tails overrun/overread (known: halide/Halide#9322 family)'
    elif 'wrong_output' in v and '%' in prog and '@21' in sig and '@14' not in sig and '@19' not in sig:
        c = 'F: float % under strict_float in 21 (new, filed: halide21-float-mod-not-strict-wrong-output)'
    elif 'wrong_output' in v and '(-0.0f)' in prog:
        c = 'G: -0.0f and 0.0f merged (new, filed: halide-signed-zero-constants-merged-wrong-output)'
    elif 'internal_error' in v and 'prefetch' in prog:
        c = 'H: prefetch of an unused func (known, filed: halide-prefetch-unused-func-internal-error)'
    elif 'wrong_output:memcheck_run' in v:
        c = 'K: traced run only (known: halide-traced-vectorized-compute-at-wrong-output family)'
    elif 'bound_storage' in prog and ('wrong_output' in v or 'memory_violation' in v):
        c = 'L: bound_storage smaller than the region (known, filed: halide-bound-storage-unchecked-overrun)'
    elif 'ring_buffer' in prog:
        c = 'I: ring buffer (19, 21), not reduced; same directives as the filed ring-buffer findings'
    else:
        c = 'J: not reduced: ' + v[:60]
    classes[c].append(os.path.basename(f)[:-5] + ' ' + sig[-20:])
for c in sorted(classes):
    print(f'{len(classes[c]):4d}  {c}')
    for x in classes[c][:3]: print('        e.g.', x)

#!/usr/bin/env python3
"""Every finding of a `halo fuzz --target tvm` campaign in a class: a TVM bug filed in
docs/findings/ (its reproducer beside it), a limit, or "unclassified" (to be looked at).

    python3 bench/tvm_campaign_triage.py CAMPAIGN_OUT_DIR [--show unclassified]

A class is decided by the finding's signature (TVM's message) and, for wrong outputs, by
the schedule of its minimized program. The rules are written from the minimized cases of
the campaign reported in docs/findings/README.md ("An hour of TVM"); a class's filed case
is docs/findings/<class>.halo.
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess


def vectorized_loops(prog):
    return set(re.findall(r"traverse\((<[^>]*>), vectorized\)", prog))


def computed_in_vectorized_loop(prog):
    """A producer computed at (or stored inside) a loop that is vectorized."""
    vec = vectorized_loops(prog)
    at = set(re.findall(r"compute_at\(\w+, (<[^>]*>)\)", prog))
    return bool(vec & at)


# (class, test on (signature, program)), first match wins.
RULES = [
    ("tvm-cast-negative-to-unsigned-internal-error",
     lambda s, p: "cannot make uint from negative value" in s),
    ("tvm-vectorized-producer-internal-error",
     lambda s, p: "VectorizeLoop before LiftStorageAlloc" in s),
    ("tvm-vectorized-producer-wrong-output",
     lambda s, p: s.startswith("tvm-wrong_output") and computed_in_vectorized_loop(p)),
    ("tvm-nested-parallel-internal-error",
     lambda s, p: "Nested parallel loop is not supported" in s),
    ("tvm-variable-used-before-definition",
     lambda s, p: "has been used before definition" in s),
    ("tvm-loop-partition-segfault",
     lambda s, p: s.startswith("tvm-crash:schedule") and "tvm_loop_partition" in p),
    ("tvm-shift-amount-check-after-folding",
     lambda s, p: "Shift amount must be non-negative" in s),
    ("tvm-unsigned-operand-check",
     lambda s, p: "kDLUInt" in s),
    ("tvm-storage-align-unused-buffer-index-error",
     lambda s, p: "IndexError: Index # out of bounds #" in s and "align_storage" in p),
    ("tvm-compute-at-loop-variable-left-undefined",
     lambda s, p: "are used, but are not passed in as API arguments" in s),
    ("tvm-clamped-float-to-uint8-literal-value-error",
     lambda s, p: "exceeds maximum of uint" in s),
    ("tvm-float-simplifier-reassociation (a difference of semantics)",
     lambda s, p: s.startswith("tvm-wrong_output") and re.search(r"\) : f(32|64) =", p) is not None),
    ("tvm-floordiv-of-negated-floormod-wrong-output",
     lambda s, p: s.startswith("tvm-wrong_output") and "%" in p and re.search(r"\* -\d+ / \d+", p) is not None),
    ("limit: TVM took longer than the case's time limit",
     lambda s, p: s.startswith("tvm-hang")),
]


def classify(signature, program):
    for name, test in RULES:
        if test(signature, program):
            return name
    return "unclassified"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--show", default="", help="print the minimized programs of this class")
    ap.add_argument("--halo", default="build/halo",
                    help="re-run each finding of the float class with --float-mode relaxed: those that then "
                         "pass differ in rounding only")
    args = ap.parse_args()
    groups = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(args.dir, "*.json"))):
        with open(path) as f:
            rec = json.load(f)
        if not isinstance(rec, dict) or "program" not in rec:
            continue  # the campaign's own records (its triage, its progress), not a finding
        sig = rec.get("case_signature") or rec.get("signature") or rec.get("verdict", "")
        groups[classify(sig, rec.get("program", ""))].append((path, rec))
    float_class = next((k for k in groups if k.startswith("tvm-float-simplifier")), None)
    if float_class and os.path.exists(args.halo):
        relaxed = 0
        for path, _ in groups[float_class]:
            halo_file = path[:-len(".json")] + ".halo"
            out = subprocess.run([args.halo, "oracle", halo_file, "--target", "tvm", "--float-mode", "relaxed", "--json"],
                                 capture_output=True, text=True)
            try:
                relaxed += json.loads(out.stdout).get("outcome") == "pass"
            except ValueError:
                pass
        print(f"float class: {relaxed} of {len(groups[float_class])} pass with --float-mode relaxed (rounding only)")
    total = sum(len(v) for v in groups.values())
    print(f"{total} findings in {len(groups)} classes")
    for name, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        smallest = min(items, key=lambda it: len(it[1].get("program", "")))
        hist = smallest[1].get("history") or "not re-run"
        print(f"{len(items):5}  {name}\n       smallest: {os.path.basename(smallest[0])} ({hist})")
        if args.show and args.show in name:
            for path, rec in sorted(items, key=lambda it: len(it[1].get("program", "")))[:5]:
                print(f"--- {os.path.basename(path)}: {rec.get('detail', '')[:200]}\n{rec.get('program', '')}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Every finding of a `halo fuzz --target exo` campaign in a class: an Exo bug filed in
docs/findings/exo/ (its standalone reproducer there), a bug of halo's that is fixed, or
"unclassified" (to be looked at).

    python3 bench/exo_campaign_triage.py DIR [DIR ...] [--python PY ...] [--show CLASS] [--json]

A class is decided by the finding's record (kind, detail, the literal schedule Exo applied,
and `unscheduled`: how the same program fares without its schedule) and the script's
procedure. The rules are written from the minimized cases of the campaign reported in
docs/kernels.md ("Measurements and findings"); a class's filed reproducer is
docs/findings/exo/<class>.py.

With `--python PY` (repeatable: exo-lang 1.0.0's interpreter, a checkout of Exo's current
source), the smallest case of each class has its standalone reproducer run by PY: exit 1
means that Exo still has the bug, exit 0 that it no longer has it.
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess


def located(record, key):
    """A file the record names, found beside the record when the campaign ran elsewhere."""
    path = record.get(key, "")
    if path and not os.path.exists(path):
        beside = os.path.join(os.path.dirname(record["_file"]), os.path.basename(path))
        if os.path.exists(beside):
            return beside
    return path


def procedure_text(record):
    """The unscheduled procedure of the finding's script (empty when the file is gone)."""
    path = located(record, "script")
    if not os.path.exists(path):
        return record.get("script_text", "")
    text = open(path).read()
    start = text.find("@proc")
    end = text.find("\nimport sys", start)
    return text[start:end if end > 0 else None]


def primitives(record):
    """The primitives of the schedule Exo applied, as the record's literal calls name them."""
    names = set()
    for call in record.get("steps", []):
        for line in call.splitlines():
            m = re.match(r"^(?:p(?:, \w+)? = )?(\w+)\(", line)
            if m:
                names.add(m.group(1))
    return names


def codegen(record):
    """The unscheduled program fails the same way: Exo's C printer, not a rewrite."""
    return record.get("unscheduled") == record["kind"] or (record["family"] == "program" and not record.get("steps"))


def internal(record, primitive, exception, where=""):
    d = record["detail"]
    return record["kind"] == "internal-error" and d.startswith(primitive + " |") and f"| {exception} at {where}" in d


def compile_error(record, needle):
    return record["kind"] == "compile-error" and needle in record["detail"]


# (class, what it is, predicate(record, procedure text)); the first that matches wins.
RULES = [
    ("exo1-float-index-after-nested-divide", "exo",
     lambda r, p: compile_error(r, "array subscript is not an integer")),
    ("exo1-window-write-declared-const", "exo",
     lambda r, p: compile_error(r, "assignment of read-only location")),
    # a scalar given to DRAM_STATIC or DRAM_STACK is declared as an array and used as a scalar
    ("exo1-scalar-in-static-or-stack-memory", "exo",
     lambda r, p: compile_error(r, "storage size of") or compile_error(r, "assignment to expression with array type")
     or (compile_error(r, "makes integer from pointer") and "set_memory" in primitives(r))),
    ("exo1-nested-extern-helper-missing", "exo", lambda r, p: compile_error(r, "undefined reference to `_")),
    ("exo1-instruction-comment-ends-c-comment", "exo",
     lambda r, p: compile_error(r, "before ‘/’ token") or compile_error(r, "before '/' token")),
    ("exo1-reuse-buffer-type-assert", "exo", lambda r, p: internal(r, "reuse_buffer", "AssertionError")),
    ("exo1-write-config-real-literal-crash", "exo",
     lambda r, p: internal(r, "write_config", "AssertionError", "exo/rewrite/new_analysis_core.py")),
    ("exo1-lift-reduce-constant-attribute-error", "exo",
     lambda r, p: internal(r, "lift_reduce_constant", "AttributeError")),
    ("exo1-stage-mem-internal-assert", "exo", lambda r, p: internal(r, "stage_mem", "AssertionError")),
    ("exo1-autolift-alloc-internal-assert", "exo", lambda r, p: internal(r, "autolift_alloc", "AssertionError")),
    ("exo1-eliminate-dead-code-z3-exception", "exo", lambda r, p: internal(r, "eliminate_dead_code", "Z3Exception")),
    ("exo1-double-negation-decrement", "exo",
     lambda r, p: (r["kind"] == "wrong-value" and codegen(r) and "(-(-" in p.replace(" ", ""))
     or compile_error(r, "decrement operand")),
    ("exo1-right-operand-parentheses", "exo", lambda r, p: r["kind"] in ("wrong-value", "memory") and codegen(r)),
    ("exo1-stage-mem-partial-window-copies-back", "exo",
     lambda r, p: r["kind"] == "wrong-value" and "stage_mem" in primitives(r)),
    ("exo1-divide-with-recompute-drops-iterations", "exo",
     lambda r, p: r["kind"] == "wrong-value" and "divide_with_recompute" in primitives(r)),
    ("exo1-split-write-reads-what-it-wrote", "exo",
     lambda r, p: r["kind"] == "wrong-value" and "split_write" in primitives(r)),
    ("exo1-fuse-ignores-lower-bounds", "exo", lambda r, p: r["kind"] == "wrong-value" and "fuse" in primitives(r)),
    ("halo-generator-w-without-its-stage", "halo (fixed)",
     lambda r, p: r["kind"] == "harness-error" and "never writes" in r["detail"]),
    # the value range of a stage that reads what it writes was taken once, not to its fixed point
    ("halo-generator-range-of-aliasing-stage", "halo (fixed)",
     lambda r, p: r["kind"] == "harness-error" and ("does not fit" in r["detail"] or "below 2^24" in r["detail"])),
    # an early version of fuzz/exo_steps.py took these documented refusals for crashes
    ("halo-refusal-taken-for-internal-error", "halo (fixed)",
     lambda r, p: r["kind"] == "internal-error" and re.search(
         r"\| (ParseFragmentError|UnificationError) at |\| AssertionError at exo/API_scheduling\.py", r["detail"])),
]


def classify(record):
    p = procedure_text(record)
    for name, what, rule in RULES:
        if rule(record, p):
            return name, what
    return "unclassified", "?"


def size(record):
    """How big the minimized case is: its script's length, then its schedule's."""
    path = located(record, "script")
    return (os.path.getsize(path) if os.path.exists(path) else 1 << 30, len(record.get("steps", [])))


def run_reproducer(python, path):
    try:
        r = subprocess.run([python, path], capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "timed out"
    return {0: "fixed (exit 0)", 1: "still has it (exit 1)"}.get(r.returncode, f"exit {r.returncode}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--python", action="append", default=[], help="run each class's reproducer with this interpreter")
    ap.add_argument("--show", help="list the findings of this class")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    classes = collections.defaultdict(list)
    total = 0
    for d in a.dirs:
        for f in sorted(glob.glob(os.path.join(d, "exo-*.json"))):
            record = json.load(open(f))
            record["_file"] = f
            total += 1
            classes[classify(record)].append(record)
    docs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "findings", "exo")
    rows = []
    for (name, what), records in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        smallest = min(records, key=size)
        row = {"class": name, "what": what, "findings": len(records), "smallest": located(smallest, "script"),
               "filed": os.path.exists(os.path.join(docs, name + ".py"))}
        repro = located(smallest, "reproducer")
        for py in a.python:
            row[py] = run_reproducer(py, repro) if repro and os.path.exists(repro) else "no reproducer"
        rows.append(row)
    if a.json:
        print(json.dumps({"findings": total, "classes": rows}, indent=1))
    else:
        print(f"{total} findings in {len(rows)} classes")
        for r in rows:
            extra = "".join(f"; {py}: {r[py]}" for py in a.python)
            print(f"{r['findings']:5}  {r['class']}  [{r['what']}{', filed' if r['filed'] else ''}]  {r['smallest']}{extra}")
    if a.show:
        for (name, _), records in classes.items():
            if name == a.show:
                for r in records:
                    print(r.get("script", ""), r["kind"], r["detail"][:200].replace("\n", " "))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Cases per CPU-second of `halo fuzz --target halide@V`, two configurations side by side.

Why: issue 32 asks for campaigns at the compiler's speed, measured against the campaign as
it was, with the same checks (the memory check stays on). A campaign's CPU is mostly its
Halide workers' and the children they fork per case: this script takes the CPU time of
the campaign's whole process tree from the kernel's accounting of reaped children
(getrusage(RUSAGE_CHILDREN), each process waits for its own) and divides the cases the
campaign ran by it.

The configurations alternate (A, B, A, B, ...) over the seeds, so that a machine whose
load changes during the run weighs on both alike.

  bench/campaign_throughput.py --halo build/halo --time 120 --seeds 1 2 3
  bench/campaign_throughput.py --before "--jobs 1 --windows 1 --halide-timeout 60 --weight async_folded=100 --minimize-per-signature 0" --after "--jobs 1"
A case is a program on one output window, judged whole (the plain run, the traced run's
memory check, the reference); "after" runs each program on Halide's default of windows
(fuzz --windows), which share one compile per program.

Standard library only.
"""
import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time



def campaign(halo, version, seed, seconds, extra):
    """One campaign; its CPU seconds are those of halo and every process under it (the
    Halide workers and the children they fork per case), from the kernel's accounting of
    reaped children (getrusage(RUSAGE_CHILDREN) before and after): sampling /proc missed
    the per-case children that live less than a sampling period, most of the work."""
    cmd = [halo, "fuzz", "--target", f"halide@{version}", "--seed", str(seed), "--time", str(seconds), "--json"]
    cmd += shlex.split(extra)
    # The kernel's accounting of reaped children does not reach across the PID namespace
    # halo runs each Halide worker in (a 20-case campaign read 0.04 CPU s with it, 3.2 s
    # without): the campaigns run without it (HALO_PID_NAMESPACE=0, docs/cli.md), which
    # changes how a worker is contained, not what a case checks.
    env = dict(os.environ, HALO_PID_NAMESPACE="0")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    # The summary goes to a file: a pipe nobody reads while the campaign runs could fill.
    with tempfile.TemporaryFile(mode="w+") as out_file:
        p = subprocess.Popen(cmd, stdout=out_file, stderr=subprocess.DEVNULL, text=True, env=env)
        p.wait()
        out_file.seek(0)
        out = out_file.read()
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary = json.loads(out) if out.strip() else {}
    return {"seed": seed, "cases": summary.get("cases", 0), "programs": summary.get("programs", 0),
            "findings": summary.get("findings", 0),
            "cpu_seconds": round(cpu, 2), "wall_seconds": round(wall, 2),
            "cases_per_cpu_second": round(summary.get("cases", 0) / cpu, 3) if cpu > 0 else 0.0,
            "time_split": summary.get("time_split", {}),
            "outcomes": summary.get("coverage", {}).get("outcomes", {})}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--halo", default="build/halo")
    ap.add_argument("--halide", default="21", help="the Halide major version")
    ap.add_argument("--time", type=float, default=120, help="seconds per campaign")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--before",
                    default="--jobs 1 --windows 1 --halide-timeout 60 --weight async_folded=100 --minimize-per-signature 0",
                    help="the campaign as it was (issue 32): one process, one window per program, a 60 s Halide "
                         "timeout, async folded")
    ap.add_argument("--after", default="--jobs 1", help="the campaign now, on one core for a per-CPU comparison")
    ap.add_argument("--json", help="write the rows here")
    a = ap.parse_args()
    rows = []
    for seed in a.seeds:
        for label, extra in (("before", a.before), ("after", a.after)):
            r = campaign(a.halo, a.halide, seed, a.time, extra)
            r["config"] = label
            rows.append(r)
            print(f"{label:6} seed {seed}: {r['cases']} cases ({r['programs']} programs), {r['cpu_seconds']} CPU s, "
                  f"{r['cases_per_cpu_second']} cases/CPU-s, {r['findings']} finding(s)", file=sys.stderr)
    totals = {}
    for label in ("before", "after"):
        cases = sum(r["cases"] for r in rows if r["config"] == label)
        programs = sum(r["programs"] for r in rows if r["config"] == label)
        cpu = sum(r["cpu_seconds"] for r in rows if r["config"] == label)
        totals[label] = {"cases": cases, "programs": programs, "cpu_seconds": round(cpu, 2),
                         "cases_per_cpu_second": round(cases / cpu, 3) if cpu else 0.0}
    ratio = totals["after"]["cases_per_cpu_second"] / totals["before"]["cases_per_cpu_second"] \
        if totals["before"]["cases_per_cpu_second"] else float("nan")
    print("| config | flags | cases | programs | CPU s | cases per CPU-second |")
    print("|---|---|---|---|---|---|")
    for label, flags in (("before", a.before), ("after", a.after)):
        t = totals[label]
        print(f"| {label} | `{flags}` | {t['cases']} | {t['programs']} | {t['cpu_seconds']} | "
              f"{t['cases_per_cpu_second']} |")
    print(f"\nratio after/before: {ratio:.2f} (seeds {' '.join(map(str, a.seeds))}, {a.time:g} s each, Halide {a.halide})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "totals": totals, "ratio": ratio}, f, indent=2)


if __name__ == "__main__":
    main()

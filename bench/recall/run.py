#!/usr/bin/env python3
"""Recall benchmark: how many known Halide bugs does `halo fuzz --target halide@21` hit?

Runs K fuzzing campaigns (seeds 1..K by default, never chosen for a bug), then applies the
matching rule of every bug in bugs.json to every finding record of every campaign, and
reports per bug in how many seeds it was hit and how long the campaign took to reach it.

    bench/recall/run.py [--halo build/halo] [-K 5 | --seeds 1,2,3] [--time 600] [--out DIR]
    bench/recall/run.py --rescan DIR          # apply the rules again to a finished run
    bench/recall/run.py --check-forms         # each rule against its own bug's .halo form

Time to a hit. A finding record carries no timing, so this script measures it: while a
campaign runs, it polls the campaign's progress file (DIR/.halo-campaign-*.progress, which
halo rewrites after every case with the next case to run, per job when the campaign runs
as several processes) every 0.2 s and notes, for each case, when it started, in wall-clock seconds since the campaign started and in CPU seconds
used so far by the campaign's process tree (halo, its Halide worker and their reaped
children, read from /proc). The time to a hit is the time at which the first matching case
*started*: it excludes that case's own run and its shrinking. A case started between two
polls gets the time of the poll that saw it (up to 0.2 s late).

One process per campaign: when the halo binary has `fuzz --jobs` (a campaign split over N
processes, by default one per core), run.py passes `--jobs 1` unless --extra names --jobs,
so that the cases run in order and the CPU time is that of one campaign.

Standard library only (Python 3.8+). Exit status 0, or 2 on bad usage.
"""

import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CLK_TCK = os.sysconf("SC_CLK_TCK")


# ----------------------------------------------------------------------------------------
# CPU time of a process tree, from /proc
# ----------------------------------------------------------------------------------------

def _proc_stats():
    """{pid: (ppid, utime+stime, cutime+cstime)} of every process, in clock ticks."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                s = f.read()
        except OSError:
            continue
        # comm may contain spaces and parentheses: split after the last ')'.
        rest = s[s.rfind(")") + 2:].split()
        try:
            ppid = int(rest[1])
            ut, st, cut, cst = (int(rest[i]) for i in (11, 12, 13, 14))
        except (IndexError, ValueError):
            continue
        out[int(d)] = (ppid, ut + st, cut + cst)
    return out


def tree_cpu_seconds(root):
    """CPU seconds used by `root` and its descendants, living or reaped."""
    stats = _proc_stats()
    children = {}
    for pid, (ppid, _, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    total, stack, seen = 0, [root], set()
    while stack:
        pid = stack.pop()
        if pid in seen or pid not in stats:
            continue
        seen.add(pid)
        _, own, reaped = stats[pid]
        total += own + reaped
        stack.extend(children.get(pid, []))
    return total / CLK_TCK


# ----------------------------------------------------------------------------------------
# Running one campaign
# ----------------------------------------------------------------------------------------

def supports_jobs(halo):
    """Whether this halo's `fuzz` has --jobs (a campaign as several processes, default every
    core): the benchmark then asks for one process, so that cases run in order."""
    try:
        p = subprocess.run([halo, "fuzz", "--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--jobs" in p.stdout + p.stderr


def run_campaign(halo, seed, seconds, out_dir, extra):
    """Runs one campaign into out_dir; returns its record (summary, case start times)."""
    os.makedirs(out_dir, exist_ok=True)
    cmd = [halo, "fuzz", "--target", "halide@21", "--generator", "halide", "--seed", str(seed),
           "--time", str(seconds), "--out", out_dir, "--json"] + extra
    if "--jobs" not in extra and supports_jobs(halo):
        cmd += ["--jobs", "1"]
    print("running: " + " ".join(cmd), file=sys.stderr, flush=True)
    t0 = time.monotonic()
    stdout_path = os.path.join(out_dir, "campaign.stdout.json")
    stderr_path = os.path.join(out_dir, "campaign.stderr.txt")
    with open(stdout_path, "w") as so, open(stderr_path, "w") as se:
        p = subprocess.Popen(cmd, stdout=so, stderr=se)
        # case -> [wall seconds, cpu seconds] at the first poll that saw it started
        starts = {}
        cpu = 0.0
        last = {}  # job -> the next case it was last seen at
        while True:
            try:
                p.wait(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                pass
            wall = time.monotonic() - t0
            cpu = max(cpu, tree_cpu_seconds(p.pid))
            for path in glob.glob(os.path.join(out_dir, ".halo-campaign-*.progress")):
                try:
                    with open(path) as f:
                        rec = json.load(f)
                except (OSError, ValueError):
                    continue
                if rec.get("seed") != seed:
                    continue
                # One process: {"next_case": n}. A campaign run as N jobs (`--jobs N`):
                # {"next_cases": [n_0, ..., n_N-1]}, job j running the cases k = j (mod N),
                # null once its shard is done.
                nexts = rec.get("next_cases")
                if not isinstance(nexts, list):
                    nexts = [rec.get("next_case", 0)]
                jobs = len(nexts)
                for j, n in enumerate(nexts):
                    if n is None:
                        continue
                    n = int(n)
                    first = last.get(j, j - jobs)  # nothing of job j seen yet: its first case is j
                    # Every case of job j after the last one seen, up to n, started since the
                    # previous poll (a case that began and ended between two polls is dated
                    # at the later one).
                    for k in range(first + jobs, n + 1, jobs):
                        starts.setdefault(str(k), [round(wall, 2), round(cpu, 2)])
                    last[j] = max(n, last.get(j, n))
        rc = p.returncode
    wall = time.monotonic() - t0
    summary = None
    try:
        with open(stdout_path) as f:
            summary = json.load(f)
    except (OSError, ValueError):
        pass
    record = {"seed": seed, "command": cmd, "exit_status": rc, "wall_seconds": round(wall, 2),
              "cpu_seconds": round(cpu, 2), "case_starts": starts,
              "cases": summary.get("cases") if summary else None,
              "campaign_seconds": summary.get("seconds") if summary else None}
    with open(os.path.join(out_dir, "recall-campaign.json"), "w") as f:
        json.dump(record, f, indent=1)
    return record


# ----------------------------------------------------------------------------------------
# Matching rules
# ----------------------------------------------------------------------------------------

def program_of(rec):
    return rec.get("program") or ""


def halide_directives(program):
    """The schedule section of a .halo text (from `schedule` to `realize`)."""
    m = re.search(r"\bschedule\b(.*?)(\brealize\b|\Z)", program, re.S)
    return m.group(1) if m else ""


def func_bodies(program):
    """{func name: the text of its definition} of a .halo program."""
    out = {}
    for m in re.finditer(r"\bfun\s+(\w+)\s*\(", program):
        name, start = m.group(1), m.end()
        nxt = re.search(r"\bfun\s+\w+\s*\(|\}\s*\n\s*\n|\bschedule\b|\brealize\b", program[start:])
        out[name] = program[start:start + (nxt.start() if nxt else len(program))]
    return out


def structure_chain_at_one_loop(rec):
    """Two producers A and B computed at the same loop L of a consumer, B reading A, A stored
    at another loop (an explicit store_at above L, below the root) and B stored elsewhere
    than A (the root, or another loop), with no `bound`, `bound_extent`, `fold_storage`,
    `async`, `rfactor` or `hoist_storage`: the shape of halide/Halide#8140. (With A stored
    at the root, or A and B stored at the same loop, Halide 21 computes right.)"""
    prog = program_of(rec)
    sched = halide_directives(prog)
    if re.search(r"\b(bound|bound_extent|fold_storage|async|rfactor|hoist_storage)\s*\(", sched):
        return False
    computed = {}
    for m in re.finditer(r"compute_at\(\s*(\w+)\s*,\s*(<[^>]*>)", sched):
        computed[m.group(1)] = m.group(2).replace(" ", "")
    stored = {}
    for m in re.finditer(r"store_at\(\s*(\w+)\s*,\s*(<[^>]*>)", sched):
        stored[m.group(1)] = m.group(2).replace(" ", "")
    bodies = func_bodies(prog)
    for a, la in computed.items():
        for b, lb in computed.items():
            if a == b or la != lb:
                continue
            if not re.search(r"\b%s\[" % re.escape(a), bodies.get(b, "")):
                continue
            sa, sb = stored.get(a, "root"), stored.get(b, "root")
            if sa not in ("root", la) and sb != sa:
                return True
    return False


def first_mismatch_diff(rec):
    m = re.search(r"= (-?\d+), expected (-?\d+)", rec.get("detail", ""))
    return None if not m else int(m.group(1)) - int(m.group(2))


STRUCTURES = {"chain_at_one_loop": structure_chain_at_one_loop}


def rule_matches(rule, rec):
    """Whether a finding record satisfies a bug's matching rule (every given condition)."""
    if not rule:
        return False
    outcome = rec.get("outcome") or rec.get("verdict")
    if "outcome" in rule and outcome not in rule["outcome"]:
        return False
    prog = program_of(rec)
    text = "\n".join(str(rec.get(k, "")) for k in ("signature", "detail", "message"))
    if "text_regex" in rule and not re.search(rule["text_regex"], text, re.S):
        return False
    if "phase_regex" in rule and not re.search(rule["phase_regex"], rec.get("signature", "")):
        return False
    for rx in rule.get("program_all", []):
        if not re.search(rx, prog, re.S):
            return False
    for rx in rule.get("program_none", []):
        if re.search(rx, prog, re.S):
            return False
    if "first_mismatch_diff_multiple_of" in rule:
        d = first_mismatch_diff(rec)
        if d is None or d == 0 or d % rule["first_mismatch_diff_multiple_of"] != 0:
            return False
    if "structure" in rule and not STRUCTURES[rule["structure"]](rec):
        return False
    return True


def finding_records(campaign_dir):
    out = []
    for path in sorted(glob.glob(os.path.join(campaign_dir, "*.json"))):
        base = os.path.basename(path)
        if base in ("triage.json", "recall-campaign.json", "campaign.stdout.json"):
            continue
        try:
            with open(path) as f:
                rec = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(rec, dict) and "case" in rec:
            rec["_file"] = base
            out.append(rec)
    return out


# ----------------------------------------------------------------------------------------
# Reports
# ----------------------------------------------------------------------------------------

def evaluate(bugs, run_dir, seeds):
    results = []
    campaigns = {}
    for s in seeds:
        d = os.path.join(run_dir, "seed-%d" % s)
        try:
            with open(os.path.join(d, "recall-campaign.json")) as f:
                campaigns[s] = json.load(f)
        except (OSError, ValueError):
            campaigns[s] = None
    for bug in bugs:
        per_seed = {}
        for s in seeds:
            d = os.path.join(run_dir, "seed-%d" % s)
            hits = [r for r in finding_records(d) if rule_matches(bug.get("match"), r)]
            if not hits:
                continue
            first = min(hits, key=lambda r: r["case"])
            c = campaigns.get(s) or {}
            start = (c.get("case_starts") or {}).get(str(first["case"]))
            per_seed[s] = {"case": first["case"], "file": first["_file"],
                           "wall_seconds": start[0] if start else None,
                           "cpu_seconds": start[1] if start else None,
                           "findings_matched": len(hits)}
        cpus = [v["cpu_seconds"] for v in per_seed.values() if v["cpu_seconds"] is not None]
        walls = [v["wall_seconds"] for v in per_seed.values() if v["wall_seconds"] is not None]
        results.append({"name": bug["name"], "expressible": bug.get("halo_form") is not None,
                        "has_rule": bool(bug.get("match")), "seeds_hit": len(per_seed), "seeds": len(seeds),
                        "median_cpu_seconds_to_first_hit": statistics.median(cpus) if cpus else None,
                        "median_wall_seconds_to_first_hit": statistics.median(walls) if walls else None,
                        "per_seed": per_seed})
    findings = []
    for s in seeds:
        c = campaigns.get(s) or {}
        for r in finding_records(os.path.join(run_dir, "seed-%d" % s)):
            start = (c.get("case_starts") or {}).get(str(r["case"]))
            findings.append({"seed": s, "case": r["case"], "file": r["_file"], "outcome": r.get("outcome"),
                             "signature": r.get("signature"),
                             "wall_seconds": start[0] if start else None, "cpu_seconds": start[1] if start else None,
                             "bugs": [b["name"] for b in bugs if rule_matches(b.get("match"), r)]})
    return {"seeds": seeds, "campaigns": campaigns, "bugs": results, "findings": findings}


def markdown(report):
    k = len(report["seeds"])
    lines = ["| bug | halo form | rule | seeds hit (of %d) | median CPU s to first hit | median wall s | first hits (seed: case) |" % k,
             "|---|---|---|---|---|---|---|"]
    for b in report["bugs"]:
        fmt = lambda v: "-" if v is None else "%.1f" % v
        hits = ", ".join("%s: %s" % (s, v["case"]) for s, v in sorted(b["per_seed"].items(), key=lambda kv: int(kv[0])))
        lines.append("| %s | %s | %s | %d | %s | %s | %s |" % (
            b["name"], "yes" if b["expressible"] else "no", "yes" if b["has_rule"] else "no", b["seeds_hit"],
            fmt(b["median_cpu_seconds_to_first_hit"]), fmt(b["median_wall_seconds_to_first_hit"]), hits or "-"))
    lines.append("")
    lines.append("| seed | cases | campaign seconds (halo's summary) | wall s | CPU s (process tree) | findings | exit |")
    lines.append("|---|---|---|---|---|---|---|")
    for s in report["seeds"]:
        c = report["campaigns"].get(s) or report["campaigns"].get(str(s)) or {}
        n = c.get("_findings")
        cs = c.get("campaign_seconds")
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (s, c.get("cases"), "-" if cs is None else "%.1f" % cs,
                                                          c.get("wall_seconds"), c.get("cpu_seconds"), n,
                                                          c.get("exit_status")))
    lines.append("")
    lines.append("| finding (seed, case) | outcome | signature | started at wall s | CPU s | bugs matched |")
    lines.append("|---|---|---|---|---|---|")
    for f in report["findings"]:
        sig = (f["signature"] or "").replace("|", "\\|")
        lines.append("| %s, %s | %s | `%s` | %s | %s | %s |" % (f["seed"], f["case"], f["outcome"], sig[:90],
                                                        f["wall_seconds"], f["cpu_seconds"],
                                                        ", ".join(f["bugs"]) or "none"))
    return "\n".join(lines) + "\n"


def check_forms(halo, bugs):
    """Runs each bug's .halo form on Halide 21 and applies every rule to its verdict (with
    the form's text as the program); fails when a form that is a finding on 21 is not
    matched by its own bug's rule. Other rules matching it are listed: overlaps."""
    ok = True
    for bug in bugs:
        form = bug.get("halo_form")
        if not form:
            continue
        path = os.path.join(HERE, form) if not os.path.isabs(form) else form
        p = subprocess.run([halo, "oracle", path, "--target", "halide@21", "--json"], capture_output=True, text=True)
        try:
            v = json.loads(p.stdout)
        except ValueError:
            print("%s: no JSON verdict (exit %d): %s" % (bug["name"], p.returncode, p.stderr.strip()[:300]))
            ok = False
            continue
        if "matrix" in v:
            v = v["matrix"][0]
        with open(path) as f:
            v["program"] = f.read()
        matched = [b["name"] for b in bugs if rule_matches(b.get("match"), v)]
        finding = bool(v.get("finding"))
        print("%s: outcome %s, signature %s; rules matching: %s%s" % (
            bug["name"], v.get("outcome"), v.get("signature"), ", ".join(matched) or "none",
            "" if finding else " (not a finding on 21: its own rule cannot be checked on it)"))
        if finding and bug.get("match") and bug["name"] not in matched:
            ok = False
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--halo", default=os.path.join(HERE, "..", "..", "build", "halo"), help="the halo binary")
    ap.add_argument("-K", type=int, default=5, help="campaigns, seeds 1..K (default 5)")
    ap.add_argument("--seeds", help="comma-separated seeds instead of 1..K")
    ap.add_argument("--time", type=float, default=600, help="seconds per campaign (default 600)")
    ap.add_argument("--out", default="recall-run", help="directory of the run (default ./recall-run)")
    ap.add_argument("--bugs", default=os.path.join(HERE, "bugs.json"))
    ap.add_argument("--extra", default="", help="more options for `halo fuzz`, one string")
    ap.add_argument("--rescan", metavar="DIR", help="apply the rules to the campaigns already in DIR")
    ap.add_argument("--check-forms", action="store_true", help="check every rule against the bugs' .halo forms")
    a = ap.parse_args()

    with open(a.bugs) as f:
        bugs = json.load(f)["bugs"]
    halo = os.path.abspath(a.halo)
    if a.check_forms:
        return 0 if check_forms(halo, bugs) else 1

    seeds = [int(s) for s in a.seeds.split(",")] if a.seeds else list(range(1, a.K + 1))
    run_dir = a.rescan or a.out
    if not a.rescan:
        if not os.access(halo, os.X_OK):
            print("run.py: no halo binary at %s (use --halo)" % halo, file=sys.stderr)
            return 2
        os.makedirs(run_dir, exist_ok=True)
        for s in seeds:
            run_campaign(halo, s, a.time, os.path.join(run_dir, "seed-%d" % s), a.extra.split())
    else:
        found = sorted(int(m.group(1)) for d in os.listdir(run_dir) for m in [re.match(r"seed-(\d+)$", d)] if m)
        if not a.seeds:
            seeds = found
    report = evaluate(bugs, run_dir, seeds)
    for s in seeds:
        c = report["campaigns"].get(s)
        if c is not None:
            c["_findings"] = len(finding_records(os.path.join(run_dir, "seed-%d" % s)))
    md = markdown(report)
    with open(os.path.join(run_dir, "recall.json"), "w") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(run_dir, "recall.md"), "w") as f:
        f.write(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""halo's overhead against TVM alone, on the same cases, measured in the same run.

1. `halo fuzz --target tvm` runs N cases; HALO_TVM_DUMP makes halo keep every request it
   sends its TVM worker (the case's TVMScript, schedule and buffers, tvm_oracle.cpp).
   Its wall time is halo's: drawing, halo's reference, the translation, the worker's
   round trip, the guard-zone runs and the judgement.
2. The same requests are then run by TVM alone, TVM imported once, each in a child forked
   from this process (some crash TVM): parse the TVMScript, apply the schedule,
   tvm.compile, run once on plain arrays. This is what a TVM user pays for the same
   programs, with no oracle around them.

The ratio of the two is halo's overhead. Run from the repository root after building halo:

    PYTHONPATH=.venv/tvm/0.27.0.post1 python3 bench/tvm_overhead.py --cases 300 --seed 7

Only the standard library, TVM and NumPy are used.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time


def run_halo(halo, cases, seed, version, dump, timeout):
    env = dict(os.environ, HALO_TVM_DUMP=dump)
    cmd = [halo, "fuzz", "--target", f"tvm@{version}", "--seed", str(seed), "--cases", str(cases),
           "--jobs", "1", "--shrink-tries", "0", "--minimize-per-signature", "0", "--halide-timeout",
           str(timeout), "--json"]
    start = time.monotonic()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if out.returncode not in (0, 1):
        sys.exit(f"halo fuzz failed ({out.returncode}): {out.stderr[-2000:]}")
    return seconds, json.loads(out.stdout)


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "candidates", "tvm"))
from tvm_worker import exec_script  # noqa: E402


def run_one(req):
    """Parse, schedule, compile, run once on plain arrays; exit status 0 when it ran."""
    import numpy as np
    import tvm
    try:
        scope = exec_script(req["script"])  # as the worker runs it (TVMScript reads its source back)
        sch = tvm.s_tir.Schedule(scope["mod"])
        scope["schedule"](sch)
        lib = tvm.compile(sch.mod, target="llvm")
        arrays = []
        for a in req["args"]:
            dtype = a["dtype"]
            bits = {"float32": "uint32", "float64": "uint64"}.get(dtype)
            if a["values"] is None:
                arrays.append(tvm.runtime.tensor(np.zeros(a["shape"], dtype=dtype)))
            else:
                v = np.array(a["values"], dtype=bits or dtype).reshape(a["shape"])
                arrays.append(tvm.runtime.tensor(v.view(dtype) if bits else v))
        lib(*arrays)
        return 0
    except Exception:  # refused or failing cases cost what they cost
        return 1


def tvm_alone(requests, timeout):
    """Each request run by TVM alone, TVM imported once; each in a forked child, because
    some of the cases crash TVM (the findings), which must not end the measurement."""
    import gc
    import tvm  # noqa: F401 - imported once, before the forks
    gc.freeze()
    seconds, ran, failed = 0.0, 0, 0
    for path in requests:
        with open(path) as f:
            req = json.load(f)
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os._exit(run_one(req))
        while True:  # a case that hangs TVM is stopped where halo stops it
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() - start > timeout:
                os.kill(pid, 9)
                _, status = os.waitpid(pid, 0)
                break
            time.sleep(0.001)
        seconds += time.monotonic() - start
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
            ran += 1
        else:
            failed += 1
    return seconds, ran, failed


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--halo", default="build/halo")
    p.add_argument("--cases", type=int, default=300)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--version", default="0.27")
    p.add_argument("--timeout", type=float, default=5, help="seconds TVM may take on a case, in both runs (a hang costs it in both)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as dump:
        halo_seconds, summary = run_halo(args.halo, args.cases, args.seed, args.version, dump, args.timeout)
        requests = sorted(glob.glob(os.path.join(dump, "request-*.json")))
        alone_seconds, ran, failed = tvm_alone(requests, args.timeout)
    split = summary.get("time_split", {})
    print(f"cases drawn                      {summary['cases']}")
    print(f"  sent to TVM                    {len(requests)} (the others not expressible or out of model)")
    print(f"halo fuzz, wall                  {halo_seconds:8.2f} s   ({summary['cases'] / halo_seconds:.2f} cases/s on 1 job)")
    print(f"  of which cases                 {split.get('cases', 0):8.2f} s")
    print(f"  of which findings (re-runs)    {split.get('completing', 0) + split.get('shrinking', 0):8.2f} s")
    print(f"TVM alone on the same requests   {alone_seconds:8.2f} s   ({ran} ran, {failed} refused or failed)")
    if alone_seconds > 0:
        print(f"overhead (halo cases / TVM alone) {split.get('cases', halo_seconds) / alone_seconds:7.2f}x")
        print(f"overhead (halo wall / TVM alone)  {halo_seconds / alone_seconds:7.2f}x")


if __name__ == "__main__":
    main()

"""Exo reproducer written by halo (halo fuzz --target exo, seed 35).

The procedure `kernel` below and the schedule after it are all there is: run
    python3 THIS.py
with exo-lang installed and a C compiler (`cc`, or $CC). It compiles the scheduled and the
unscheduled procedure with the installed Exo, runs both on the inputs below, and prints
expected beside actual values. Expected values are halo's reference semantics of the
unscheduled procedure (its .halo spec), independent of Exo. Exit status 1: the
scheduled procedure is wrong (or Exo crashed, or its C did not compile); 0: it is right.

What halo saw with exo-lang 1.0.0: internal-error: eliminate_dead_code | p = eliminate_dead_code(p, p.body()[1].body()[0]) | Z3Exception at exo/rewrite/new_analysis_core.py:899: 'Value cannot be converted into a Z3 Boolean value'
"""
from __future__ import annotations

from exo import compile_procs_to_strings, proc
from exo.libs.externs import relu
from exo.platforms.x86 import *
from exo.stdlib.scheduling import *
from exo import DRAM, config, instr
from exo.libs.externs import select
from exo.libs.memories import DRAM_STACK, DRAM_STATIC


@config
class Cfg:
    vi: i32
    vf: f32
    ix: index


@instr("(void)0;")
def halo_noop():
    pass


@proc
def kernel(N: size, M: size, X: i32[61, 17] @ DRAM, Z: i32[27] @ DRAM, Y: i32[N, M] @ DRAM, W: i32[N, M] @ DRAM):
    assert N <= 5
    assert M <= 12
    for i in seq(0, N):
        for j in seq(0, M):
            t: i32 @ DRAM
            t = (2 * (X[(i - (-j)), (3 / 6)] - 7))
            if (2 * j) < M:
                Y[i, j] = (-X[(4 * (i + j)), j])
    for i in seq(0, N):
        for j in seq(0, M):
            t: i32 @ DRAM
            t = select((X[((N % 5) - (N % 5)), M] + 1), Z[((5 * N) + (j / 6))], X[(((i + i) - j) + 11), (((-i) - (i * 3)) + 16)], 3)
            W[i, j] = ((6 / 2) * (Z[((-i) + 4)] + 2))


p = kernel
p = divide_loop(p, p.body()[1].body()[0], 3, ['jo', 'ji'], tail='cut_and_guard', perfect=False)
p = eliminate_dead_code(p, p.body()[1].body()[0])
scheduled = p

N, M = 5, 12
ELEM = "i32"
X = [1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 10, 0, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1, 4, 7, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9, 12, 2, 5, 8, 11, 1]  # X[61, 17], row-major
Z = [-3, 2, -4, 1, -5, 0, 5, -1, 4, -2, 3, -3, 2, -4, 1, -5, 0, 5, -1, 4, -2, 3, -3, 2, -4, 1, -5]
INIT = {"Y": [-4, -1, 2, 5, -3, 0, 3, -5, -2, 1, 4, -4, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, -2, 1, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, -5, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5, -3, 0, 5, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5], "W": [2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1]}
EXPECTED = {"Y": [-1, -6, -11, -3, -8, 0, 3, -5, -2, 1, 4, -4, -3, -8, 0, -5, -10, -2, -3, 0, 3, -5, -2, 1, -5, -10, -2, -7, -12, -4, 2, 5, -3, 0, 3, -5, -7, -12, -4, -9, -1, -6, -4, -1, 2, 5, -3, 0, -9, -1, -6, -11, -3, -8, 1, 4, -4, -1, 2, 5], "W": [-9, -9, -9, -9, -9, -9, -9, -9, -9, -9, -9, -9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, -6, -6, -6, -6, -6, -6, -6, -6, -6, -6, -6, -6, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, -3, -3, -3, -3, -3, -3, -3, -3, -3, -3, -3, -3]}


import ctypes
import os
import shlex
import subprocess
import sys
import tempfile


def run(proc):
    """Compiles proc with Exo and runs it; returns the outputs, or the reason it could not."""
    ct = ctypes.c_float if ELEM == "f32" else ctypes.c_int32
    with tempfile.TemporaryDirectory() as d:
        c_text, h_text = compile_procs_to_strings([proc], "proc.h")
        with open(os.path.join(d, "proc.c"), "w") as f:
            f.write(c_text)
        with open(os.path.join(d, "proc.h"), "w") as f:
            f.write(h_text)
        cc = shlex.split(os.environ.get("CC", "cc"))
        r = subprocess.run(cc + ["-O0", "-shared", "-fPIC", "-o", os.path.join(d, "proc.so"), os.path.join(d, "proc.c")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return None, "its C does not compile:\n" + r.stderr[:2000]
        try:
            lib = ctypes.CDLL(os.path.join(d, "proc.so"))
        except OSError as e:  # a function the C calls and never defines
            return None, f"its C does not link: {e}"
        fn = getattr(lib, proc.name())
        ctxt = ctypes.create_string_buffer(4096)
        bufs = {"X": (ct * len(X))(*X), "Z": (ct * len(Z))(*Z)}
        for name, init in INIT.items():
            bufs[name] = (ct * len(init))(*init)
        args = [ctxt, ctypes.c_long(N), ctypes.c_long(M), bufs["X"], bufs["Z"], bufs["Y"]]
        if "W" in INIT:
            args.append(bufs["W"])
        fn(*args)
        return {name: list(bufs[name]) for name in INIT}, ""


def show(label, got, note):
    if got is None:
        print(f"{label}: {note}")
        return True
    wrong = False
    for name, want in EXPECTED.items():
        bad = [k for k, (a, b) in enumerate(zip(want, got[name])) if a != b]
        if not bad:
            print(f"{label}: {name} is right ({len(want)} elements)")
            continue
        wrong = True
        print(f"{label}: {name}: {len(bad)} of {len(want)} elements differ")
        for k in bad[:8]:
            print(f"  {name}[{k // M}, {k % M}]: expected {want[k]}, actual {got[name][k]}")
    return wrong


try:
    import importlib.metadata

    version = importlib.metadata.version("exo-lang")
except Exception:  # noqa: BLE001 - a source checkout has no metadata
    version = "unknown (source)"
print(f"Exo {version} from {os.path.dirname(sys.modules['exo'].__file__)}")
print(scheduled)
wrong_scheduled = show("scheduled", *run(scheduled))
wrong_unscheduled = show("unscheduled", *run(kernel))
if wrong_scheduled and wrong_unscheduled:
    print("both are wrong: Exo's C code generation, not the schedule")
elif wrong_scheduled:
    print("only the scheduled procedure is wrong: a rewrite changed what the procedure computes")
sys.exit(1 if wrong_scheduled else 0)

"""Exo reproducer written by halo (halo fuzz --target exo, seed 35).

The procedure `kernel` below and the schedule after it are all there is: run
    python3 THIS.py
with exo-lang installed and a C compiler (`cc`, or $CC). It compiles the scheduled and the
unscheduled procedure with the installed Exo, runs both on the inputs below, and prints
expected beside actual values. Expected values are halo's reference semantics of the
unscheduled procedure (its .halo spec), independent of Exo. Exit status 1: the
scheduled procedure is wrong (or Exo crashed, or its C did not compile); 0: it is right.

What halo saw with exo-lang 1.0.0: compile-error: /tmp/halo-exo-27QRDS/manifest.json:1:1: error: the kernel does not compile (/usr/bin/cc exited with status 1):
/tmp/halo-exo-27QRDS/scheduled.c: In function ‘kernel’:
/tmp/halo-exo-27QRDS/scheduled.c:19:32: error: assignment of read-only location ‘*(yr.data + (sizetype)((long unsigned int)(j * (int_fast32_t)yr.strides[0]) * 4))’
   19 |     yr.data[j * yr.strides[0]] = ((int32_t) 1);
      |                                ^

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
def kernel(N: size, M: size, X: i32[1, 1] @ DRAM, Z: i32[1] @ DRAM, Y: i32[N, M] @ DRAM):
    assert N <= 1
    assert M <= 1
    for i in seq(0, N):
        yr = Y[i, 0:M]
        for j in seq(0, M):
            yr[j] = 1


p = kernel
scheduled = p

N, M = 1, 1
ELEM = "i32"
X = [1]  # X[1, 1], row-major
Z = [-3]
INIT = {"Y": [-4]}
EXPECTED = {"Y": [1]}


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

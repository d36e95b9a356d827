"""Exo reproducer written by halo (halo fuzz --target exo, seed 35).

The procedure `kernel` below and the schedule after it are all there is: run
    python3 THIS.py
with exo-lang installed and a C compiler (`cc`, or $CC). It compiles the scheduled and the
unscheduled procedure with the installed Exo, runs both on the inputs below, and prints
expected beside actual values. Expected values are halo's reference semantics of the
unscheduled procedure (its .halo spec), independent of Exo. Exit status 1: the
scheduled procedure is wrong (or Exo crashed, or its C did not compile); 0: it is right.

What halo saw with exo-lang 1.0.0: compile-error: /tmp/halo-exo-NvRQKY/manifest.json:1:1: error: the kernel does not compile (/usr/bin/cc exited with status 1):
/tmp/halo-exo-NvRQKY/scheduled.c: In function ‘kernel’:
/tmp/halo-exo-NvRQKY/scheduled.c:23:41: warning: implicit declaration of function ‘_relu_float’; did you mean ‘_select_float’? [-Wimplicit-function-declaration]
   23 |     Y[i * M + j] = _select_float((float)_relu_float((float)X[j * 3 + (i / 2)]), (float)-3.0f, (float)_relu_float((float)Y[(N - 1 - i) * M + M - 1 - j]), (float)-4.0f);
      |                                         ^~~~~~~~~~~
      |                                         _select_float
/usr/bin/ld: /tmp/ccqqL8wx.o: in function `kernel':
/tmp/halo-exo-NvRQKY/scheduled.c:23: undefined reference to `_relu_float'
/usr/bin/ld: /tmp/halo-exo-NvRQKY/scheduled.c:23: undefined reference to `_relu_float'
collect2: error: ld returned 1 exit status

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
def kernel(N: size, M: size, X: f32[8, 3] @ DRAM, Z: f32[1] @ DRAM, Y: f32[N, M] @ DRAM):
    assert N <= 6
    assert M <= 8
    for i in seq(0, N):
        for j in seq(0, M):
            Y[i, j] = select(relu(X[j, (i / 2)]), (-3.0), relu(Y[((N - 1) - i), ((M - 1) - j)]), (-4.0))


p = kernel
scheduled = p

N, M = 6, 8
ELEM = "f32"
X = [1, 4, 7, 8, 11, 1, 2, 5, 8, 9, 12, 2, 3, 6, 9, 10, 0, 3, 4, 7, 10, 11, 1, 4]  # X[8, 3], row-major
Z = [-3]
INIT = {"Y": [-4, -1, 2, 5, -3, 0, 3, -5, 1, 4, -4, -1, 2, 5, -3, 0, -5, -2, 1, 4, -4, -1, 2, 5, 0, 3, -5, -2, 1, 4, -4, -1, 5, -3, 0, 3, -5, -2, 1, 4, -1, 2, 5, -3, 0, 3, -5, -2]}
EXPECTED = {"Y": [-4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4]}


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

#!/usr/bin/env python3
# A TVM wrong_output on a TensorIR program and schedule (halo: tvm-wrong_output:run).
# Reproduces with: apache-tvm 0.27.0.post1. Needs only TVM and NumPy: python3 THIS_FILE.py.
# The program, as halo wrote it (the .halo source is below, commented):
#
#   pipeline f() {
#     input a(x) : u32;
#     fun f(x) : u32 = { u32(0) - a[x] }
#   }
#   
#   realize () over (0, 8)
#     with a = seeded(3) over (0, 8)
import sys

import numpy as np
import tvm
from tvm.script import ir as I
from tvm.script import tirx as T


class HaloNotExpressible(Exception):
    pass


def read_index(sch, block, buffer):
    # 0.26 names a read region's buffer `buffer`, 0.27 `source`.
    reads = [(r.buffer if hasattr(r, "buffer") else r.source).name for r in sch.get(sch.get_sblock(block)).reads]
    if buffer not in reads:
        raise HaloNotExpressible(f"{block} does not read {buffer}")
    return reads.index(buffer)


def own(sch, L, block, names, target):
    loops = sch.get_loops(sch.get_sblock(block))
    if target is not None:
        t = sch.get(target)
        k = [i for i, l in enumerate(loops) if sch.get(l).same_as(t)]
        loops = loops[k[0] + 1:] if k else []
    if len(loops) != len(names):
        for n in names:
            L.pop(n, None)
        return
    for n, l in zip(names, loops):
        L[n] = l


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(in_a: T.Buffer((8,), "uint32"), b_f: T.Buffer((8,), "uint32")):
        T.func_attr({"tirx.noalias": True})
        for l_x in range(8):
            with T.sblock("f_s0"):
                v_x = T.axis.spatial(8, l_x)
                b_f[v_x] = (T.Cast("uint32", T.int32(0)) - in_a[v_x])


mod = Module


def schedule(sch):
    L = {}
    return L


# (name, dtype, shape, values): the prim_func's buffers; the output's values are TVM's to write.
ARGS = [
    ("in_a", "uint32", (8,), [4245999158, 501970071, 437011160, 2776281909, 2575754703, 3503488323, 4269483638, 3613119951]),
    ("b_f", "uint32", (8,), None),
]
WINDOW = [(0, 8)]  # R(z): (min, extent) per dimension, the first fastest
BOX = [(0, 8)]  # the output buffer's region in the same coordinates
# What halo's semantics computes on R(z) (floats as IEEE bits; None: undefined).
EXPECTED = [48968138, 3792997225, 3857956136, 1518685387, 1719212593, 791478973, 25483658, 681847345]


def as_array(dtype, shape, values):
    # Floats travel as their IEEE bits, so that every value is exact.
    bits = {"float32": "uint32", "float64": "uint64"}.get(dtype)
    a = np.array(values, dtype=bits or dtype).reshape(shape)
    return a.view(dtype) if bits else a


GUARD = 4096


def guarded(dtype, shape, values, sentinel):
    """The buffer as a view into a larger allocation whose guard zones hold `sentinel`."""
    itemsize = np.dtype(dtype).itemsize
    size = int(np.prod(shape)) * itemsize
    raw = np.full(2 * GUARD + size + 64, sentinel, dtype=np.uint8)
    start = (-raw.ctypes.data) % 64 + GUARD
    if values is not None:
        raw[start:start + size] = as_array(dtype, shape, values).view(np.uint8).reshape(-1)
    view = raw[start:start + size].view(dtype).reshape(shape)
    return raw, start, size, view


def to_tvm(view):
    return tvm.runtime.from_dlpack(view) if hasattr(tvm.runtime, "from_dlpack") else tvm.nd.from_dlpack(view)


def run_once(lib, sentinel):
    bufs = [guarded(d, s, v, sentinel) for (_, d, s, v) in ARGS]
    lib(*[to_tvm(b[3]) for b in bufs])
    damage = []
    for (name, dtype, shape, _), (raw, start, size, _) in zip(ARGS, bufs):
        item = np.dtype(dtype).itemsize
        for k in np.nonzero(raw[:start] != sentinel)[0][:10]:
            damage.append(f"{name}: element {(int(k) - start) // item} (before the buffer) written")
        for k in np.nonzero(raw[start + size:] != sentinel)[0][:10]:
            damage.append(f"{name}: element {(size + int(k)) // item} (after the buffer) written")
    return bufs[-1][3].copy(), damage


def main():
    sch = tvm.s_tir.Schedule(Module)
    schedule(sch)
    lib = tvm.compile(sch.mod, target="llvm")
    out1, damage1 = run_once(lib, 0xA5)
    out2, damage2 = run_once(lib, 0x5A)
    dtype = ARGS[-1][1]
    bits = {"float32": "uint32", "float64": "uint64"}.get(dtype)
    wrong = 0
    for k, want in enumerate(EXPECTED):
        point, rest = [], k
        for (mn, ln) in WINDOW:
            point.append(mn + (rest % ln if ln else 0))
            rest = rest // ln if ln else 0
        index = tuple(p - mn for p, (mn, _) in reversed(list(zip(point, BOX))))
        got1, got2 = out1[index], out2[index]
        have = int(got1.view(bits)) if bits else int(got1)
        if want is None:
            continue  # undefined in Halide's semantics (e.g. a signed 32-bit overflow)
        if have != want or (got1 != got2 and not (bits and np.isnan(got1) and np.isnan(got2))):
            wrong += 1
            if wrong <= 10:
                shown = as_array(dtype, (), [want]) if bits else want
                print(f"at {tuple(point)}: expected {shown!r}, TVM computed {got1.item()!r}"
                      + (f" (then {got2.item()!r} with other guard bytes)" if got1 != got2 else ""))
    for d in damage1 + damage2:
        print("memory:", d)
    defined = sum(e is not None for e in EXPECTED)
    print(f"{wrong} wrong point(s) of {defined} compared; {len(damage1) + len(damage2)} guard byte region(s) written")
    print("tvm", tvm.__version__)
    sys.exit(1 if wrong or damage1 or damage2 else 0)


if __name__ == "__main__":
    main()

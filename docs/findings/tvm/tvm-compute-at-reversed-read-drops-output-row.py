#!/usr/bin/env python3
# A TVM wrong_output on a TensorIR program and schedule (halo: tvm-wrong_output:run).
# Reproduces with: apache-tvm 0.27.0.post1. Needs only TVM and NumPy: python3 THIS_FILE.py.
# The program, as halo wrote it (the .halo source is below, commented):
#
#   pipeline f3() {
#     fun f1(x, y) = { 7 }
#     fun f2(x, y) = { f1[x, y / 2] }
#     fun f3(x, y) = { f2[x - 1, 1 - y] }
#   }
#   
#   schedule {
#     compute_at(f2, <f3, 0, 0, x>);
#   }
#   
#   realize () over (0, 6), (-2, 6)
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
    def main(b_f3: T.Buffer((6, 6), "int32")):
        T.func_attr({"tirx.noalias": True})
        b_f1 = T.sblock_alloc_buffer((3, 6), "int32")
        b_f2 = T.sblock_alloc_buffer((6, 6), "int32")
        for l_y in range(3):
            for l_x in range(6):
                with T.sblock("f1_s0"):
                    v_y = T.axis.spatial(3, l_y)
                    v_x = T.axis.spatial(6, l_x)
                    b_f1[(v_y - 1) + 1, (v_x - 1) + 1] = T.int32(7)
        for l_y in range(6):
            for l_x in range(6):
                with T.sblock("f2_s0"):
                    v_y = T.axis.spatial(6, l_y)
                    v_x = T.axis.spatial(6, l_x)
                    b_f2[(v_y - 2) + 2, (v_x - 1) + 1] = b_f1[T.floordiv((v_y - 2), T.int32(2)) + 1, (v_x - 1) + 1]
        for l_y in range(6):
            for l_x in range(6):
                with T.sblock("f3_s0"):
                    v_y = T.axis.spatial(6, l_y)
                    v_x = T.axis.spatial(6, l_x)
                    b_f3[(v_y - 2) + 2, v_x] = b_f2[(T.int32(1) - (v_y - 2)) + 2, (v_x - T.int32(1)) + 1]


mod = Module


def schedule(sch):
    L = {}
    own(sch, L, "f3_s0", ["f3.0.y", "f3.0.x"], None)
    sch.compute_at(sch.get_sblock("f2_s0"), L["f3.0.x"], preserve_unit_loops=True)
    own(sch, L, "f2_s0", ["f2.0.y", "f2.0.x"], L["f3.0.x"])
    own(sch, L, "f1_s0", ["f1.0.y", "f1.0.x"], None)
    return L


# (name, dtype, shape, values): the prim_func's buffers; the output's values are TVM's to write.
ARGS = [
    ("b_f3", "int32", (6, 6), None),
]
WINDOW = [(0, 6), (-2, 6)]  # R(z): (min, extent) per dimension, the first fastest
BOX = [(0, 6), (-2, 6)]  # the output buffer's region in the same coordinates
# What halo's semantics computes on R(z) (floats as IEEE bits; None: undefined).
EXPECTED = [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
    7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
    7, 7, 7, 7]


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

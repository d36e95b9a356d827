#!/usr/bin/env python3
# A TVM compile_error on a TensorIR program and schedule (halo: tvm-compile_error:compile:InternalError: Check failed: undefined.size() == # (# vs. #) : In PrimFunc main variables (ax#_#,) are used, but are not passed in as API arguments).
# Reproduces with: apache-tvm 0.27.0.post1. Needs only TVM and NumPy: python3 THIS_FILE.py.
# The program, as halo wrote it (the .halo source is below, commented):
#
#   pipeline f4() {
#     fun f0(x, y) = { (x * 0 + y * 0) % 9 }
#     fun f1(x, y) = { (f0[2 * x, 2 * y + 1] * 2 + f0[2 * x, 2 * y]) / 2 }
#     fun f2(x, y) = { (f0[x + 1, 0 - y] * 2 + f1[y, x / 2 - 1] * 2 + f1[x, 2 * y] * 2) / 2 }
#     fun f3(x, y) = { f2[2 * x - 1, y / 2] * 2 }
#     fun f4(x, y) = { f3[1 - x, y + 1] * 2 + f3[x / 2 + 2, y] * -1 }
#   }
#   
#   schedule {
#     split(<f3, 0, 0, x>, xo, xi, 5, guard);
#     split(<f3, 0, 0, y>, yo, yi, 8, guard);
#     swap(<f3, 0, 0, yi>);
#     split(<f2, 0, 0, x>, xo, xi, 6, guard);
#     split(<f2, 0, 0, y>, yo, yi, 2, guard);
#     swap(<f2, 0, 0, yi>);
#     traverse(<f2, 0, 0, xi>, unrolled);
#     split(<f0, 0, 0, x>, xo, xi, 2, guard);
#     compute_at(f2, <f3, 0, 0, xi>);
#     compute_at(f1, <f3, 0, 0, xi>);
#     align_storage(f3, x, 4);
#   }
#   
#   realize () over (-3, 8), (2, 6)
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
    def main(b_f4: T.Buffer((6, 8), "int32")):
        T.func_attr({"tirx.noalias": True})
        b_f0 = T.sblock_alloc_buffer((28, 29), "int32")
        b_f1 = T.sblock_alloc_buffer((14, 15), "int32")
        b_f2 = T.sblock_alloc_buffer((4, 15), "int32")
        b_f3 = T.sblock_alloc_buffer((7, 8), "int32")
        for l_y in range(28):
            for l_x in range(29):
                with T.sblock("f0_s0"):
                    v_y = T.axis.spatial(28, l_y)
                    v_x = T.axis.spatial(29, l_x)
                    b_f0[(v_y - 10) + 10, (v_x - 14) + 14] = T.floormod((((v_x - 14) * T.int32(0)) + ((v_y - 10) * T.int32(0))), T.int32(9))
        for l_y in range(14):
            for l_x in range(15):
                with T.sblock("f1_s0"):
                    v_y = T.axis.spatial(14, l_y)
                    v_x = T.axis.spatial(15, l_x)
                    b_f1[(v_y - 5) + 5, (v_x - 7) + 7] = T.floordiv(((b_f0[((T.int32(2) * (v_y - 5)) + T.int32(1)) + 10, (T.int32(2) * (v_x - 7)) + 14] * T.int32(2)) + b_f0[(T.int32(2) * (v_y - 5)) + 10, (T.int32(2) * (v_x - 7)) + 14]), T.int32(2))
        for l_y in range(4):
            for l_x in range(15):
                with T.sblock("f2_s0"):
                    v_y = T.axis.spatial(4, l_y)
                    v_x = T.axis.spatial(15, l_x)
                    b_f2[(v_y + 1) - 1, (v_x - 7) + 7] = T.floordiv((((b_f0[(T.int32(0) - (v_y + 1)) + 10, ((v_x - 7) + T.int32(1)) + 14] * T.int32(2)) + (b_f1[(T.floordiv((v_x - 7), T.int32(2)) - T.int32(1)) + 5, (v_y + 1) + 7] * T.int32(2))) + (b_f1[(T.int32(2) * (v_y + 1)) + 5, (v_x - 7) + 7] * T.int32(2))), T.int32(2))
        for l_y in range(7):
            for l_x in range(8):
                with T.sblock("f3_s0"):
                    v_y = T.axis.spatial(7, l_y)
                    v_x = T.axis.spatial(8, l_x)
                    b_f3[(v_y + 2) - 2, (v_x - 3) + 3] = (b_f2[T.floordiv((v_y + 2), T.int32(2)) - 1, ((T.int32(2) * (v_x - 3)) - T.int32(1)) + 7] * T.int32(2))
        for l_y in range(6):
            for l_x in range(8):
                with T.sblock("f4_s0"):
                    v_y = T.axis.spatial(6, l_y)
                    v_x = T.axis.spatial(8, l_x)
                    b_f4[(v_y + 2) - 2, (v_x - 3) + 3] = ((b_f3[((v_y + 2) + T.int32(1)) - 2, (T.int32(1) - (v_x - 3)) + 3] * T.int32(2)) + (b_f3[(v_y + 2) - 2, (T.floordiv((v_x - 3), T.int32(2)) + T.int32(2)) + 3] * (T.int32(0) - T.int32(1))))


mod = Module


def schedule(sch):
    L = {}
    own(sch, L, "f4_s0", ["f4.0.y", "f4.0.x"], None)
    own(sch, L, "f3_s0", ["f3.0.y", "f3.0.x"], None)
    L["f3.0.xo"], L["f3.0.xi"] = sch.split(L["f3.0.x"], factors=[None, 5])
    L["f3.0.yo"], L["f3.0.yi"] = sch.split(L["f3.0.y"], factors=[None, 8])
    sch.reorder(L["f3.0.xo"], L["f3.0.yi"])
    sch.compute_at(sch.get_sblock("f2_s0"), L["f3.0.xi"], preserve_unit_loops=True)
    own(sch, L, "f2_s0", ["f2.0.y", "f2.0.x"], L["f3.0.xi"])
    L["f2.0.xo"], L["f2.0.xi"] = sch.split(L["f2.0.x"], factors=[None, 6])
    L["f2.0.yo"], L["f2.0.yi"] = sch.split(L["f2.0.y"], factors=[None, 2])
    sch.reorder(L["f2.0.xo"], L["f2.0.yi"])
    sch.unroll(L["f2.0.xi"])
    sch.compute_at(sch.get_sblock("f1_s0"), L["f3.0.xi"], preserve_unit_loops=True)
    own(sch, L, "f1_s0", ["f1.0.y", "f1.0.x"], L["f3.0.xi"])
    own(sch, L, "f0_s0", ["f0.0.y", "f0.0.x"], None)
    L["f0.0.xo"], L["f0.0.xi"] = sch.split(L["f0.0.x"], factors=[None, 2])
    sch.storage_align(sch.get_sblock("f3_s0"), 0, 0, 4, 0)
    return L


# (name, dtype, shape, values): the prim_func's buffers; the output's values are TVM's to write.
ARGS = [
    ("b_f4", "int32", (6, 8), None),
]
WINDOW = [(-3, 8), (2, 6)]  # R(z): (min, extent) per dimension, the first fastest
BOX = [(-3, 8), (2, 6)]  # the output buffer's region in the same coordinates
# What halo's semantics computes on R(z) (floats as IEEE bits; None: undefined).
EXPECTED = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]


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

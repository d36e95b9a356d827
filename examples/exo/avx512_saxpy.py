# y = a * x + y on float vectors, scheduled with Exo 1.0 onto AVX-512: the loop is divided
# by 16 with its tail cut off (tail="cut"), x, y and a broadcast of a are staged in
# AVX-512 registers, and the copies and the update are replaced by Exo's x86 instructions
# (_mm512_loadu_ps, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_storeu_ps). The N % 16
# leftover elements stay scalar C.
#
#   build/halo exo examples/exo/avx512_saxpy.py saxpy --spec examples/exo/avx512_saxpy.halo --init y=y0
from __future__ import annotations

from exo import proc
from exo.platforms.x86 import *
from exo.stdlib.scheduling import *


@proc
def saxpy_algorithm(N: size, a: f32[1] @ DRAM, x: f32[N] @ DRAM, y: f32[N] @ DRAM):
    for i in seq(0, N):
        y[i] += a[0] * x[i]


def schedule(p):
    p = rename(p, "saxpy")
    p = divide_loop(p, "i", 16, ["io", "ii"], tail="cut")
    p = simplify(stage_mem(p, "for ii in _: _ #0", "x[16*io:16*io+16]", "xv"))
    p = simplify(stage_mem(p, "for ii in _: _ #0", "y[16*io:16*io+16]", "yv"))
    p = bind_expr(p, p.find("a[0] * _").lhs(), "av")
    p = expand_dim(p, "av", 16, "ii")
    p = lift_alloc(p, "av")
    p = fission(p, p.find("av[_] = _").after())
    for buf in ["xv", "yv", "av"]:
        p = set_memory(p, buf, AVX512)
    return replace_all(p, [mm512_loadu_ps, mm512_storeu_ps, mm512_set1_ps, mm512_fmadd_ps])


saxpy = schedule(saxpy_algorithm)

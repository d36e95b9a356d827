# halo fuzz --target exo: a matmul kernel (f32), seed 2; its spec is the .halo file beside this one.
# Re-run: halo exo THIS.py scheduled --spec THIS.halo --init C=poison
from __future__ import annotations

from exo import compile_procs_to_strings, proc
from exo.libs.externs import relu
from exo.platforms.x86 import *
from exo.stdlib.scheduling import *


@proc
def kernel(N: size, M: size, K: size, A: f32[N, K] @ DRAM, B: f32[K, M] @ DRAM, Bias: f32[M] @ DRAM, C: f32[N, M] @ DRAM):
    for i in seq(0, N):
        for j in seq(0, M):
            C[i, j] = Bias[j]
            for k in seq(0, K):
                C[i, j] += A[i, k] * B[k, j]
            C[i, j] = relu(C[i, j])


def _avx512_rows(p):
    # the inner loop in 16-wide rows (tail cut off), each row staged in AVX-512 registers
    p = divide_loop(p, "j", 16, ["jv", "jl"], tail="cut")
    for buf, reg in (("X", "xv"), ("Z", "zv"), ("Y", "yv")):
        p = simplify(stage_mem(p, "for jl in _: _ #0", f"{buf}[i, 16 * jv:16 * jv + 16]", reg))
        p = set_memory(p, reg, AVX512)
    p = replace_all(p, [mm512_loadu_ps, mm512_storeu_ps, mm512_add_ps])
    compile_procs_to_strings([p], "check.h")  # a register left with scalar accesses: the step is rejected
    return p


def _step(p, text, step):
    # a step Exo rejects leaves the procedure as it was: a rejection is not a finding
    try:
        q = step(p)
        print("halo-step applied:", text)
        return q
    except Exception as e:  # noqa: BLE001 - every Exo rejection is the same to the campaign
        print("halo-step rejected:", text, "-", type(e).__name__)
        return p


p = kernel
p = _step(p, 'divide_loop(p, "j", 16, ["jo", "ji"], tail="guard")', lambda p: divide_loop(p, "j", 16, ["jo", "ji"], tail="guard"))
p = _step(p, 'divide_loop(p, "ji", 8, ["jio", "jii"], tail="cut_and_guard")', lambda p: divide_loop(p, "ji", 8, ["jio", "jii"], tail="cut_and_guard"))
scheduled = p

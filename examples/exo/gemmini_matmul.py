# An int8 matrix multiplication on Gemmini, written with Exo 1.0 and its Gemmini library:
# C[i, j] = sum_k A[i, k] * B[k, j], accumulated in int32 in Gemmini's accumulator, in
# 16x16 tiles (scratchpad tiles of A and B, one accumulator tile of C). Rows of C past the
# last full tile (N % 16 of them) take a tail path with a partial tile.
#
#   build/halo exo examples/exo/gemmini_matmul.py gemmini_matmul --spec examples/exo/gemmini_matmul.halo
from __future__ import annotations

from exo import proc
from exo.platforms.gemmini import *


@proc
def gemmini_matmul(N: size, M: size, K: size, A: i8[N, K] @ DRAM, B: i8[K, M] @ DRAM, C: i32[N, M] @ DRAM):
    assert M % 16 == 0
    assert K % 16 == 0
    config_matmul()
    for io in seq(0, N / 16):
        for jo in seq(0, M / 16):
            res: i32[16, 16] @ GEMM_ACCUM
            zero_acc_i32(16, 16, res)
            for ko in seq(0, K / 16):
                a: i8[16, 16] @ GEMM_SCRATCH
                b: i8[16, 16] @ GEMM_SCRATCH
                ld_i8(16, 16, A[16 * io : 16 * io + 16, 16 * ko : 16 * ko + 16], a)
                ld_i8(16, 16, B[16 * ko : 16 * ko + 16, 16 * jo : 16 * jo + 16], b)
                matmul_acc_i8(16, 16, 16, a, b, res)
            st_acc_i32(16, 16, res, C[16 * io : 16 * io + 16, 16 * jo : 16 * jo + 16])
    if N % 16 > 0:
        for jo in seq(0, M / 16):
            res: i32[N % 16, 16] @ GEMM_ACCUM
            zero_acc_i32(N % 16, 16, res)
            for ko in seq(0, K / 16):
                a: i8[N % 16, 16] @ GEMM_SCRATCH
                b: i8[16, 16] @ GEMM_SCRATCH
                ld_i8(N % 16, 16, A[N - N % 16 : N, 16 * ko : 16 * ko + 16], a)
                ld_i8(16, 16, B[16 * ko : 16 * ko + 16, 16 * jo : 16 * jo + 16], b)
                matmul_acc_i8(N % 16, 16, 16, a, b, res)
            st_acc_i32(N % 16, 16, res, C[N - N % 16 : N, 16 * jo : 16 * jo + 16])

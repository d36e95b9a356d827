/* A tiled weight-stationary int8 matrix product on Gemmini with bias, scale and ReLU,
 * written as Exo's generated code is (a context pointer first, Exo's allocators, the
 * gemmini_extended_* macros): C = relu(sat8(scale * (A B + bias))) for any m, n, k.
 * Output tiles of 16 x 16 live in the accumulator, which starts from the bias (moved in
 * with stride 0, so every row repeats it); A moves in as panels of up to four 16-column
 * blocks (one block mvin), B one 16 x 16 tile at a time; edge tiles are partial.
 * Spec: gemmini_matmul.halo; manifest: gemmini_matmul.json. */
#include <stdbool.h>
#include <stdint.h>

#include <include/gemmini.h>
#include "gemm_acc_malloc.h"
#include "gemm_malloc.h"

typedef struct gemmini_matmul_Context {
  struct {
    float scale;
    bool act;
  } ConfigStore;
} gemmini_matmul_Context;

static int_fast32_t at_most(int_fast32_t a, int_fast32_t b) { return a < b ? a : b; }

void gemmini_matmul(gemmini_matmul_Context* ctxt, int_fast32_t M, int_fast32_t N, int_fast32_t K, const float* scale,
                    bool act, const int8_t* A, const int8_t* B, const int32_t* bias, int8_t* C) {
  (void)ctxt;
  const uint32_t a = gemm_malloc(4 * 16 * 16 * sizeof(int8_t));  /* an A panel: four 16 x 16 blocks */
  const uint32_t b = gemm_malloc(16 * 16 * sizeof(int8_t));      /* a B tile */
  const uint32_t res = gemm_acc_malloc(16 * 16 * sizeof(int32_t));  /* a C tile */

  gemmini_extended_config_ex(WS, 0, 0, 1, 0, 0);
  gemmini_extended_config_st(N * sizeof(int8_t), act ? RELU : NO_ACTIVATION, scale[0]);
  gemmini_extended3_config_ld(K * sizeof(int8_t), 1.0f, 0, 0);   /* mvin:  rows of A */
  gemmini_extended3_config_ld(N * sizeof(int8_t), 1.0f, 0, 1);   /* mvin2: rows of B */
  gemmini_extended3_config_ld(0, 1.0f, 0, 2);                    /* mvin3: the bias, repeated */

  for (int_fast32_t i0 = 0; i0 < M; i0 += 16) {
    const int_fast32_t rows = at_most(16, M - i0);
    for (int_fast32_t j0 = 0; j0 < N; j0 += 16) {
      const int_fast32_t cols = at_most(16, N - j0);
      gemmini_extended_mvin3(&bias[j0], res, cols, rows);
      for (int_fast32_t k0 = 0; k0 < K; k0 += 64) {
        const int_fast32_t panel = at_most(64, K - k0);
        gemmini_extended_mvin(&A[i0 * K + k0], a, panel, rows);
        for (int_fast32_t kk = 0; kk < panel; kk += 16) {
          const int_fast32_t depth = at_most(16, panel - kk);
          gemmini_extended_mvin2(&B[(k0 + kk) * N + j0], b, cols, depth);
          gemmini_extended_preload(b, res | 0x40000000u, cols, depth, cols, rows);
          gemmini_extended_compute_preloaded(a + (uint32_t)kk, ~((uint32_t)0), depth, rows, 16, 16);
        }
      }
      gemmini_extended_mvout(&C[i0 * N + j0], res, cols, rows);
    }
  }
  gemmini_fence();
  gemm_acc_free(res);
  gemm_free(b);
  gemm_free(a);
}

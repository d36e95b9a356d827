/* A 2-D convolution on Gemmini (weight-stationary, int8, bias and ReLU), in the style of
 * Exo's generated code: scratchpad and accumulator buffers are pointers holding row
 * addresses (Exo's GEMM_SCRATCH / GEMM_ACCUM memories) and operands are passed as
 * ((uint64_t) &buf[...]). For each output row and tile of up to 16 output pixels x 16
 * output channels, the accumulator starts from the bias and accumulates, for every kernel
 * position and block of 16 input channels, the pixels' channel vectors (A: rows are
 * pixels, IC bytes apart in the NHWC image) times the weights (B: rows are input channels,
 * OC bytes apart in HWIO). Spec: gemmini_conv.halo; manifest: gemmini_conv.json. */
#include <stdbool.h>
#include <stdint.h>

#include <include/gemmini.h>
#include "gemm_acc_malloc.h"
#include "gemm_malloc.h"

typedef struct conv_Context {
  struct {
    int_fast32_t src_stride;
  } ConfigLoad;
} conv_Context;

static int_fast32_t lesser(int_fast32_t a, int_fast32_t b) { return a < b ? a : b; }

void gemmini_conv(conv_Context* ctxt, int_fast32_t IH, int_fast32_t IW, int_fast32_t IC, int_fast32_t OC,
                  int_fast32_t KH, int_fast32_t KW, const int8_t* inp, const int8_t* w, const int32_t* bias,
                  int8_t* out) {
  (void)ctxt;
  const int_fast32_t OH = IH - KH + 1, OW = IW - KW + 1;
  int8_t* i_s = (int8_t*)((uint64_t)gemm_malloc(16 * 16 * sizeof(int8_t)));
  int8_t* w_s = (int8_t*)((uint64_t)gemm_malloc(16 * 16 * sizeof(int8_t)));
  int32_t* res = (int32_t*)((uint64_t)gemm_acc_malloc(16 * 16 * sizeof(int32_t)));

  gemmini_extended_config_ex(WS, 0, 0, 1, 0, 0);
  gemmini_extended_config_st(OC * sizeof(int8_t), RELU, 1.0f);
  gemmini_extended3_config_ld(IC * sizeof(int8_t), 1.0f, 0, 0);  /* pixels of the image */
  gemmini_extended3_config_ld(OC * sizeof(int8_t), 1.0f, 0, 1);  /* input channels of the weights */
  gemmini_extended3_config_ld(0, 1.0f, 0, 2);                    /* the bias, repeated */

  for (int_fast32_t y = 0; y < OH; ++y) {
    for (int_fast32_t x0 = 0; x0 < OW; x0 += 16) {
      const int_fast32_t px = lesser(16, OW - x0);
      for (int_fast32_t o0 = 0; o0 < OC; o0 += 16) {
        const int_fast32_t oc = lesser(16, OC - o0);
        gemmini_extended_mvin3(&bias[o0], ((uint64_t)&res[0]), oc, px);
        for (int_fast32_t ky = 0; ky < KH; ++ky) {
          for (int_fast32_t kx = 0; kx < KW; ++kx) {
            for (int_fast32_t c0 = 0; c0 < IC; c0 += 16) {
              const int_fast32_t cc = lesser(16, IC - c0);
              gemmini_extended_mvin(&inp[((y + ky) * IW + (x0 + kx)) * IC + c0], ((uint64_t)&i_s[0]), cc, px);
              gemmini_extended_mvin2(&w[((ky * KW + kx) * IC + c0) * OC + o0], ((uint64_t)&w_s[0]), oc, cc);
              gemmini_extended_preload((uint32_t)(&w_s[0]), (uint32_t)(&res[0]) | 0x40000000, oc, cc, oc, px);
              gemmini_extended_compute_preloaded((uint32_t)(&i_s[0]), ~((uint32_t)0), cc, px, 16, 16);
            }
          }
        }
        gemmini_extended_mvout(&out[(y * OW + x0) * OC + o0], (uint32_t)&res[0], oc, px);
      }
    }
  }
  gemmini_fence();
  gemm_acc_free((uint32_t)(uint64_t)res);
  gemm_free((uint64_t)w_s);
  gemm_free((uint64_t)i_s);
}

/* Gemmini's default configuration, as gemmini_params.h of ucb-bar/gemmini-rocc-tests
 * describes it, for code compiled against halo's Gemmini simulator (docs/kernels.md):
 * a 16x16 int8 systolic array, 256 KiB of scratchpad, 64 KiB of int32 accumulator, float
 * scale factors. The scaling functions are static inline functions with the semantics of
 * the original macros (round half to even, then saturation to int8). */
#ifndef HALO_GEMMINI_PARAMS_H
#define HALO_GEMMINI_PARAMS_H

#include <limits.h>
#include <math.h>
#include <stdint.h>

#ifndef DIM
#define DIM 16
#endif
#define ADDR_LEN 32
#define BANK_NUM 4
#define BANK_ROWS 4096
#define ACC_ROWS 1024
#define MAX_BYTES 64
#define MAX_BLOCK_LEN (MAX_BYTES / (DIM * 1))
#define MAX_BLOCK_LEN_ACC (MAX_BYTES / (DIM * 4))

typedef int8_t elem_t;
static const elem_t elem_t_max = 127;
static const elem_t elem_t_min = -128;
typedef int32_t acc_t;
typedef int64_t full_t;

#define HAS_MVIN_SCALE
typedef float scale_t;
typedef uint32_t scale_t_bits;
typedef int32_t scale_acc_t;
typedef uint32_t scale_acc_t_bits;
typedef float acc_scale_t;
typedef uint32_t acc_scale_t_bits;

#define row_align(blocks) __attribute__((aligned(blocks * DIM * sizeof(elem_t))))
#define row_align_acc(blocks) __attribute__((aligned(blocks * DIM * sizeof(acc_t))))

#define MVIN_SCALE_IDENTITY 1.0
#define ACC_SCALE_IDENTITY 1.0

#define ACC_SCALE_T_IS_FLOAT
#define ACC_SCALE_EXP_BITS 8
#define ACC_SCALE_SIG_BITS 24
#define ACC_READ_SMALL_WIDTH
#define ACC_READ_FULL_WIDTH

/* ROUNDING_RIGHT_SHIFT: an arithmetic right shift rounding half to even. */
static inline int64_t halo_gemmini_rounding_right_shift(int64_t x, unsigned shift) {
  if (shift == 0) return x;
  if (shift > 62) shift = 62;
  int64_t q = x >> shift;
  int64_t half = (x >> (shift - 1)) & 1;
  int64_t below = shift <= 1 ? 0 : (x & (((int64_t)1 << (shift - 1)) - 1));
  return q + (half & ((int64_t)(below != 0) | (q & 1)));
}
#define ROUNDING_RIGHT_SHIFT(x, shift) halo_gemmini_rounding_right_shift((x), (shift))

/* ACC_SCALE and MVIN_SCALE: x * scale computed in float, rounded half to even, saturated
 * to int8 (NaN gives 0). */
static inline acc_t halo_gemmini_scale_round_saturate(acc_t x, float scale) {
  float y = (float)x * scale;
  if (isnan(y)) return 0;
  if (y >= 127.5f) return 127;
  if (y <= -128.5f) return -128;
  acc_t t = (acc_t)floorf(y);
  float frac = y - (float)t;
  if (frac > 0.5f || (frac == 0.5f && (t & 1))) ++t;
  return t > 127 ? 127 : t < -128 ? -128 : t;
}
#define ACC_SCALE(x, scale) halo_gemmini_scale_round_saturate((acc_t)(x), (float)(scale))
#define MVIN_SCALE(x, scale) halo_gemmini_scale_round_saturate((acc_t)(x), (float)(scale))

#endif /* HALO_GEMMINI_PARAMS_H */

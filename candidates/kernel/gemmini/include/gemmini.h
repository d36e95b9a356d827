/* Gemmini's programming interface for code run under halo's Gemmini simulator
 * (docs/kernels.md). Kernels written for Gemmini (the tests of gemmini-rocc-tests, the C
 * that Exo generates) include this header instead of the hardware's gemmini.h and compile
 * unmodified: the macros have the documented names and argument orders, and each encodes
 * its operands into the instruction's 64-bit rs1/rs2 exactly as the hardware's macros do;
 * where the hardware executes a RoCC custom instruction, these call halo_gemmini_rocc,
 * whose simulator decodes the fields again. Encoding mistakes in generated code (a row
 * count that does not fit its 16-bit field, an address wider than 32 bits) therefore reach
 * the simulator as they would reach the hardware, and are reported there.
 *
 * Written from the ISA section of the Gemmini README and the field layouts of
 * gemmini-rocc-tests/include/gemmini.h (current ISA: accumulator scale and activation in
 * config_st). gemmini_extended_config_ex also accepts the older seven-argument form that
 * Exo's Gemmini library emits (with relu6_shift before A_stride). */
#ifndef HALO_GEMMINI_H
#define HALO_GEMMINI_H

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmini_params.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The simulator's one instruction port: funct and the two source registers. */
void halo_gemmini_rocc(uint64_t funct, uint64_t rs1, uint64_t rs2);
/* gemmini_fence(): waits until every earlier Gemmini instruction has completed. */
void halo_gemmini_fence(void);
#ifdef __cplusplus
}
#endif

#define GEMMINI_ASSERTIONS

#define k_CONFIG 0
#define k_MVIN2 1
#define k_MVIN 2
#define k_MVOUT 3
#define k_COMPUTE_PRELOADED 4
#define k_COMPUTE_ACCUMULATE 5
#define k_PRELOAD 6
#define k_FLUSH 7
#define k_LOOP_WS 8
#define k_LOOP_WS_CONFIG_BOUNDS 9
#define k_LOOP_WS_CONFIG_ADDRS_AB 10
#define k_LOOP_WS_CONFIG_ADDRS_DC 11
#define k_LOOP_WS_CONFIG_STRIDES_AB 12
#define k_LOOP_WS_CONFIG_STRIDES_DC 13
#define k_MVIN3 14

#define CONFIG_EX 0
#define CONFIG_LD 1
#define CONFIG_ST 2

#define XCUSTOM_ACC 3
#define GARBAGE_ADDR ((uint32_t)(-1))
#define OUTPUT_STATIONARY 0
#define WEIGHT_STATIONARY 1
#define NO_ACTIVATION 0
#define RELU 1

enum tiled_matmul_type_t { OS, WS, CPU };

static inline scale_t_bits scale_t_to_scale_t_bits(scale_t x) {
  scale_t_bits b;
  memcpy(&b, &x, sizeof b);
  return b;
}
static inline scale_t scale_t_bits_to_scale_t(scale_t_bits b) {
  scale_t x;
  memcpy(&x, &b, sizeof x);
  return x;
}
static inline acc_scale_t_bits acc_scale_t_to_acc_scale_t_bits(acc_scale_t x) {
  acc_scale_t_bits b;
  memcpy(&b, &x, sizeof b);
  return b;
}
static inline acc_scale_t acc_scale_t_bits_to_acc_scale_t(acc_scale_t_bits b) {
  acc_scale_t x;
  memcpy(&x, &b, sizeof x);
  return x;
}

/* The RoCC instruction: on hardware an `asm volatile` custom-3 instruction. */
#define ROCC_INSTRUCTION_RS1_RS2(x, rs1, rs2, funct) \
  halo_gemmini_rocc((uint64_t)(funct), (uint64_t)(rs1), (uint64_t)(rs2))

/* The operand layout of mvin/mvout rs2 and preload/compute rs1, rs2:
 * [63:48] rows, [47:32] columns, [31:0] local address. */
#define HALO_GEMMINI_OPERAND(addr, cols, rows) \
  (((uint64_t)(rows) << (ADDR_LEN + 16)) | ((uint64_t)(cols) << ADDR_LEN) | (uint64_t)(addr))

/* ---------------------------------------------------------------- mvin and mvout */
#define gemmini_extended_mvin(dram_addr, spad_addr, cols, rows) \
  ROCC_INSTRUCTION_RS1_RS2(XCUSTOM_ACC, dram_addr, HALO_GEMMINI_OPERAND(spad_addr, cols, rows), k_MVIN)
#define gemmini_extended_mvin2(dram_addr, spad_addr, cols, rows) \
  ROCC_INSTRUCTION_RS1_RS2(XCUSTOM_ACC, dram_addr, HALO_GEMMINI_OPERAND(spad_addr, cols, rows), k_MVIN2)
#define gemmini_extended_mvin3(dram_addr, spad_addr, cols, rows) \
  ROCC_INSTRUCTION_RS1_RS2(XCUSTOM_ACC, dram_addr, HALO_GEMMINI_OPERAND(spad_addr, cols, rows), k_MVIN3)
#define gemmini_block_mvin(dram_addr, spad_addr, len) gemmini_extended_mvin(dram_addr, spad_addr, (len) * DIM, DIM)
#define gemmini_mvin(dram_addr, spad_addr) gemmini_extended_mvin(dram_addr, spad_addr, DIM, DIM)

#define gemmini_extended_mvout(dram_addr, spad_addr, cols, rows) \
  ROCC_INSTRUCTION_RS1_RS2(XCUSTOM_ACC, dram_addr, HALO_GEMMINI_OPERAND(spad_addr, cols, rows), k_MVOUT)
#define gemmini_mvout(dram_addr, spad_addr) gemmini_extended_mvout(dram_addr, spad_addr, DIM, DIM)

/* ---------------------------------------------------------------- compute */
#define gemmini_extended_compute_preloaded(A, BD, A_cols, A_rows, BD_cols, BD_rows)                           \
  ROCC_INSTRUCTION_RS1_RS2(XCUSTOM_ACC, HALO_GEMMINI_OPERAND(A, A_cols, A_rows),                             \
                           HALO_GEMMINI_OPERAND(BD, BD_cols, BD_rows), k_COMPUTE_PRELOADED)
#define gemmini_extended_compute_accumulated(A, BD, A_cols, A_rows, BD_cols, BD_rows)                         \
  ROCC_INSTRUCTION_RS1_RS2(XCUSTOM_ACC, HALO_GEMMINI_OPERAND(A, A_cols, A_rows),                             \
                           HALO_GEMMINI_OPERAND(BD, BD_cols, BD_rows), k_COMPUTE_ACCUMULATE)
#define gemmini_compute_preloaded(A, BD) gemmini_extended_compute_preloaded(A, BD, DIM, DIM, DIM, DIM)
#define gemmini_compute_accumulated(A, BD) gemmini_extended_compute_accumulated(A, BD, DIM, DIM, DIM, DIM)

/* ---------------------------------------------------------------- preload */
#define gemmini_extended_preload(BD, C, BD_cols, BD_rows, C_cols, C_rows)                                    \
  ROCC_INSTRUCTION_RS1_RS2(XCUSTOM_ACC, HALO_GEMMINI_OPERAND(BD, BD_cols, BD_rows),                          \
                           HALO_GEMMINI_OPERAND(C, C_cols, C_rows), k_PRELOAD)
#define gemmini_preload(BD, C) gemmini_extended_preload(BD, C, DIM, DIM, DIM, DIM)
#define gemmini_preload_zeros(C) gemmini_preload(GARBAGE_ADDR, C)

/* ---------------------------------------------------------------- config_ex
 * rs1: [63:32] acc scale, [31:16] A stride, [9] B transpose, [8] A transpose, [7] set only
 * strides, [6:3] activation, [2] dataflow, [1:0] CONFIG_EX; rs2: [63:48] C stride,
 * [47:32] relu6 shift, [31:0] systolic shift. */
#define halo_gemmini_config_ex_fields(dataflow, sys_act, sys_shift, sys_acc_scale, relu6_shift, C_stride, A_stride, \
                                      A_transpose, B_transpose, set_only_strides)                                 \
  ROCC_INSTRUCTION_RS1_RS2(                                                                                        \
      XCUSTOM_ACC,                                                                                                 \
      ((uint64_t)acc_scale_t_to_acc_scale_t_bits((acc_scale_t)(sys_acc_scale)) << 32) |                            \
          ((uint64_t)(A_stride) << 16) | ((uint64_t)(B_transpose) << 9) | ((uint64_t)(A_transpose) << 8) |          \
          ((uint64_t)(set_only_strides) << 7) | ((uint64_t)(sys_act) << 3) | ((uint64_t)(dataflow) << 2) |          \
          CONFIG_EX,                                                                                               \
      ((uint64_t)(C_stride) << 48) | ((uint64_t)(relu6_shift) << 32) | (uint64_t)(sys_shift), k_CONFIG)

#define gemmini_extended3_config_ex(dataflow, sys_act, sys_shift, sys_acc_scale, C_stride, A_stride, A_transpose, \
                                    B_transpose, set_only_strides)                                              \
  halo_gemmini_config_ex_fields(dataflow, sys_act, sys_shift, sys_acc_scale, 0, C_stride, A_stride, A_transpose,   \
                                B_transpose, set_only_strides)
#define gemmini_extended2_config_ex(dataflow, sys_act, sys_shift, A_stride, A_transpose, B_transpose) \
  gemmini_extended3_config_ex(dataflow, sys_act, sys_shift, ACC_SCALE_IDENTITY, 1, A_stride, A_transpose,   \
                              B_transpose, false)
/* gemmini_extended_config_ex(dataflow, sys_act, sys_shift, A_stride, A_transpose, B_transpose)
 * or, as in older Gemmini and Exo's library,
 * gemmini_extended_config_ex(dataflow, act, sys_shift, relu6_shift, A_stride, A_transpose, B_transpose). */
#define halo_gemmini_config_ex6(dataflow, sys_act, sys_shift, A_stride, A_transpose, B_transpose) \
  gemmini_extended2_config_ex(dataflow, sys_act, sys_shift, A_stride, A_transpose, B_transpose)
#define halo_gemmini_config_ex7(dataflow, act, sys_shift, relu6_shift, A_stride, A_transpose, B_transpose)          \
  halo_gemmini_config_ex_fields(dataflow, act, sys_shift, ACC_SCALE_IDENTITY, relu6_shift, 1, A_stride, A_transpose, \
                                B_transpose, false)
#define HALO_GEMMINI_PICK8(_1, _2, _3, _4, _5, _6, _7, NAME, ...) NAME
#define gemmini_extended_config_ex(...) \
  HALO_GEMMINI_PICK8(__VA_ARGS__, halo_gemmini_config_ex7, halo_gemmini_config_ex6, ~, ~, ~, ~, ~, ~)(__VA_ARGS__)
#define gemmini_config_ex(dataflow, sys_act, sys_shift) \
  gemmini_extended_config_ex(dataflow, sys_act, sys_shift, 1, 0, 0)

/* ---------------------------------------------------------------- config_ld
 * rs1: [63:32] scale, [31:16] block stride, [15:8] pixel repeats, [4:3] id (mvin, mvin2,
 * mvin3), [2] shrunk, [1:0] CONFIG_LD; rs2: stride in bytes. */
#define gemmini_extended5_config_ld(stride, scale, shrunk, block_mvin_stride, pixel_repeats, id)                 \
  ROCC_INSTRUCTION_RS1_RS2(XCUSTOM_ACC,                                                                         \
                           ((uint64_t)(scale_t_to_scale_t_bits((scale_t)(scale))) << 32) |                       \
                               ((uint64_t)(block_mvin_stride) << 16) | ((uint64_t)(pixel_repeats) << 8) |        \
                               ((uint64_t)(id) << 3) | ((uint64_t)(shrunk) << 2) | CONFIG_LD,                    \
                           stride, k_CONFIG)
#define gemmini_extended4_config_ld(stride, scale, shrunk, block_mvin_stride, id) \
  gemmini_extended5_config_ld(stride, scale, shrunk, block_mvin_stride, 1, id)
#define gemmini_extended3_config_ld(stride, scale, shrunk, id) \
  gemmini_extended4_config_ld(stride, scale, shrunk, DIM, id)
#define gemmini_extended2_config_ld(stride, scale, shrunk) gemmini_extended3_config_ld(stride, scale, shrunk, 0)
#define gemmini_extended_config_ld(stride, scale) gemmini_extended2_config_ld(stride, scale, false)
#define gemmini_config_ld(stride) gemmini_extended_config_ld(stride, MVIN_SCALE_IDENTITY)

/* ---------------------------------------------------------------- config_st
 * rs1: [63:56] ocols, [55:48] orows, [47:40] pocols, [39:32] porows, [31:24] pool out dim,
 * [11:10] lpad, [9:8] upad, [7:6] pool size, [5:4] pool stride, [3:2] activation,
 * [1:0] CONFIG_ST; rs2: [63:32] accumulator scale, [31:0] stride in bytes. */
#define gemmini_extended2_config_st(stride, acc_act, acc_scale, pool_stride, pool_size, pool_out_dim, porows, pocols, \
                                    orows, ocols, upad, lpad)                                                        \
  ROCC_INSTRUCTION_RS1_RS2(                                                                                           \
      XCUSTOM_ACC,                                                                                                    \
      ((uint64_t)(ocols) << 56) | ((uint64_t)(orows) << 48) | ((uint64_t)(pocols) << 40) |                            \
          ((uint64_t)(porows) << 32) | ((uint64_t)(pool_out_dim) << 24) | ((uint64_t)(lpad) << 10) |                 \
          ((uint64_t)(upad) << 8) | ((uint64_t)(pool_size) << 6) | ((uint64_t)(pool_stride) << 4) |                   \
          ((uint64_t)(acc_act) << 2) | CONFIG_ST,                                                                     \
      ((uint64_t)acc_scale_t_to_acc_scale_t_bits((acc_scale_t)(acc_scale)) << 32) | (uint64_t)(uint32_t)(stride),    \
      k_CONFIG)
#define gemmini_extended_config_st(stride, acc_act, acc_scale) \
  gemmini_extended2_config_st(stride, acc_act, acc_scale, 0, 0, 0, 0, 0, 0, 0, 0, 0)
#define gemmini_config_st(stride) gemmini_extended_config_st(stride, NO_ACTIVATION, ACC_SCALE_IDENTITY)

/* ---------------------------------------------------------------- flush and fence */
#define gemmini_flush(skip) ROCC_INSTRUCTION_RS1_RS2(XCUSTOM_ACC, skip, 0, k_FLUSH)
#define gemmini_fence() halo_gemmini_fence()

/* ---------------------------------------------------------------- the CISC matmul loop
 * Encoded as the hardware's macro does; the simulator reports it as not modelled. */
#define gemmini_loop_ws(I, J, K, pad_I, pad_J, pad_K, A, B, D, C, A_stride, B_stride, D_stride, C_stride, A_transpose, \
                        B_transpose, full_C, low_D, ex_accumulate, act)                                               \
  do {                                                                                                                \
    ROCC_INSTRUCTION_RS1_RS2(XCUSTOM_ACC,                                                                             \
                             ((uint64_t)(pad_K) << 32) | ((uint64_t)(pad_J) << 16) | (uint64_t)(pad_I),               \
                             ((uint64_t)(K) << 32) | ((uint64_t)(J) << 16) | (uint64_t)(I), k_LOOP_WS_CONFIG_BOUNDS);  \
    ROCC_INSTRUCTION_RS1_RS2(XCUSTOM_ACC, A, B, k_LOOP_WS_CONFIG_ADDRS_AB);                                          \
    ROCC_INSTRUCTION_RS1_RS2(XCUSTOM_ACC, D, C, k_LOOP_WS_CONFIG_ADDRS_DC);                                          \
    ROCC_INSTRUCTION_RS1_RS2(XCUSTOM_ACC, A_stride, B_stride, k_LOOP_WS_CONFIG_STRIDES_AB);                          \
    ROCC_INSTRUCTION_RS1_RS2(XCUSTOM_ACC, D_stride, C_stride, k_LOOP_WS_CONFIG_STRIDES_DC);                          \
    ROCC_INSTRUCTION_RS1_RS2(XCUSTOM_ACC,                                                                             \
                             ((uint64_t)(act) << 8) | ((uint64_t)(low_D) << 2) | ((uint64_t)(full_C) << 1) |          \
                                 (uint64_t)(ex_accumulate),                                                          \
                             ((uint64_t)(B_transpose) << 1) | (uint64_t)(A_transpose), k_LOOP_WS);                   \
  } while (0)

#endif /* HALO_GEMMINI_H */

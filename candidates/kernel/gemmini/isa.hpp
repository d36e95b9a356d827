// The Gemmini ISA as its own documentation defines it (ucb-bar/gemmini README, "ISA", and
// the macros of software/gemmini-rocc-tests/include/gemmini.h): the default configuration's
// sizes, the funct codes of the RoCC instructions, and the bit layout of every rs1/rs2
// operand, with an encoder and a decoder for each. The C header that kernels compile against
// (include/gemmini.h) encodes with macros written from the same layouts; the simulator
// (simulator.hpp) decodes with the functions here, so an encoding mistake in generated code
// (a row count that does not fit in its field, an address wider than 32 bits) reaches the
// simulator as the hardware would see it.
//
// This header has no dependency beyond the standard library: it is compiled into halo and
// into the runtime library that kernels link with.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace halo::gemmini {

// ------------------------------------------------------------ default configuration
constexpr int kDim = 16;                          // systolic array is DIM x DIM
constexpr uint32_t kBankNum = 4, kBankRows = 4096;
constexpr uint32_t kSpRows = kBankNum * kBankRows;  // 16384 rows of 16 int8: 256 KiB
constexpr uint32_t kAccRows = 1024;                // 1024 rows of 16 int32: 64 KiB
constexpr uint32_t kMaxBytes = 64;                  // DMA bytes per row beat (MAX_BYTES)
constexpr int kAddrLen = 32;

// Widest transfer in columns for an element of `bytes` bytes: MAX_BLOCK_LEN blocks of DIM
// (MAX_BLOCK_LEN = MAX_BYTES/(DIM*1) = 4 for int8, MAX_BLOCK_LEN_ACC = MAX_BYTES/(DIM*4) = 1
// for int32), never less than one block.
constexpr uint32_t max_cols(uint32_t bytes) {
  uint32_t blocks = kMaxBytes / (kDim * bytes);
  return kDim * (blocks == 0 ? 1 : blocks);
}

// ------------------------------------------------------------ funct codes (gemmini.h)
enum Funct : uint64_t {
  kConfig = 0,
  kMvin2 = 1,
  kMvin = 2,
  kMvout = 3,
  kComputePreloaded = 4,
  kComputeAccumulate = 5,
  kPreload = 6,
  kFlush = 7,
  kLoopWs = 8,
  kLoopWsConfigBounds = 9,
  kLoopWsConfigAddrsAB = 10,
  kLoopWsConfigAddrsDC = 11,
  kLoopWsConfigStridesAB = 12,
  kLoopWsConfigStridesDC = 13,
  kMvin3 = 14,
};
// rs1[1:0] of a kConfig instruction selects what is configured.
enum ConfigKind : uint64_t { kConfigEx = 0, kConfigLd = 1, kConfigSt = 2, kConfigOther = 3 };

enum Dataflow : uint32_t { kOutputStationary = 0, kWeightStationary = 1 };
enum Activation : uint32_t { kNoActivation = 0, kRelu = 1 };

const char* funct_name(uint64_t funct);

// ------------------------------------------------------------ private addresses
// A 32-bit row address: bit 31 selects the accumulator, bit 30 accumulates on a write to
// the accumulator, bit 29 reads full-width accumulator values; all ones is the garbage
// address (zeros as an input, no write as an output).
constexpr uint32_t kGarbageAddr = 0xFFFFFFFFu;
constexpr uint32_t kAccBit = 1u << 31, kAccumulateBit = 1u << 30, kFullWidthBit = 1u << 29;
constexpr uint32_t kRowMask = kFullWidthBit - 1;  // bits [28:0]

struct LocalAddr {
  uint32_t raw = 0;
  bool garbage() const { return raw == kGarbageAddr; }
  bool accumulator() const { return raw & kAccBit; }
  bool accumulate() const { return raw & kAccumulateBit; }
  bool full_width() const { return raw & kFullWidthBit; }
  uint32_t row() const { return raw & kRowMask; }
};

// The operand layout shared by mvin/mvout rs2 and preload/compute rs1, rs2:
// [31:0] local address, [47:32] columns, [63:48] rows.
struct Operand {
  LocalAddr addr;
  uint32_t cols = 0, rows = 0;
};
inline Operand decode_operand(uint64_t rs) {
  return Operand{LocalAddr{uint32_t(rs)}, uint32_t((rs >> 32) & 0xFFFF), uint32_t((rs >> 48) & 0xFFFF)};
}
inline uint64_t encode_operand(uint32_t addr, uint32_t cols, uint32_t rows) {
  return (uint64_t(rows) << (kAddrLen + 16)) | (uint64_t(cols) << kAddrLen) | uint64_t(addr);
}

inline uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline float bits_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// ------------------------------------------------------------ config_ex
// rs1: [2] dataflow (0 OS, 1 WS), [6:3] activation of results written to the scratchpad,
// [7] set only the strides, [8] transpose A, [9] transpose B, [31:16] A stride (rows),
// [63:32] accumulator scale (float bits; the current ISA takes mvout's scale from
// config_st, so the simulator keeps it but does not use it).
// rs2: [31:0] systolic shift (output-stationary results), [47:32] relu6 shift (older
// ISA versions), [63:48] C stride (rows).
struct ConfigEx {
  uint32_t dataflow = kOutputStationary;
  uint32_t activation = kNoActivation;
  bool set_only_strides = false;
  bool a_transpose = false, b_transpose = false;
  uint32_t a_stride = 1;
  uint32_t acc_scale_bits = 0;
  uint32_t sys_shift = 0;
  uint32_t relu6_shift = 0;
  uint32_t c_stride = 1;
};
inline ConfigEx decode_config_ex(uint64_t rs1, uint64_t rs2) {
  ConfigEx c;
  c.dataflow = uint32_t((rs1 >> 2) & 1);
  c.activation = uint32_t((rs1 >> 3) & 0xF);
  c.set_only_strides = (rs1 >> 7) & 1;
  c.a_transpose = (rs1 >> 8) & 1;
  c.b_transpose = (rs1 >> 9) & 1;
  c.a_stride = uint32_t((rs1 >> 16) & 0xFFFF);
  c.acc_scale_bits = uint32_t(rs1 >> 32);
  c.sys_shift = uint32_t(rs2);
  c.relu6_shift = uint32_t((rs2 >> 32) & 0xFFFF);
  c.c_stride = uint32_t((rs2 >> 48) & 0xFFFF);
  return c;
}
inline void encode_config_ex(const ConfigEx& c, uint64_t& rs1, uint64_t& rs2) {
  rs1 = (uint64_t(c.acc_scale_bits) << 32) | (uint64_t(c.a_stride) << 16) | (uint64_t(c.b_transpose) << 9) |
        (uint64_t(c.a_transpose) << 8) | (uint64_t(c.set_only_strides) << 7) | (uint64_t(c.activation) << 3) |
        (uint64_t(c.dataflow) << 2) | kConfigEx;
  rs2 = (uint64_t(c.c_stride) << 48) | (uint64_t(c.relu6_shift) << 32) | uint64_t(c.sys_shift);
}
// The README's table of transpose combinations: OS cannot transpose B alone, WS cannot
// transpose both.
inline bool transpose_permitted(uint32_t dataflow, bool a_t, bool b_t) {
  if (dataflow == kOutputStationary) return !(!a_t && b_t);
  return !(a_t && b_t);
}

// ------------------------------------------------------------ config_ld (config_mvin)
// rs1: [2] shrunk (int8 elements moved into the accumulator), [4:3] which mvin (0 mvin,
// 1 mvin2, 2 mvin3), [15:8] pixel repeats (experimental; 1 = plain), [31:16] block stride
// (private rows between the DIM-wide blocks of a wide mvin), [63:32] scale (float bits).
// rs2: main-memory stride in bytes.
struct ConfigLd {
  bool shrunk = false;
  uint32_t id = 0;
  uint32_t pixel_repeats = 1;
  uint32_t block_stride = kDim;
  uint32_t scale_bits = 0x3F800000u;  // 1.0f
  uint64_t stride = 0;
};
inline ConfigLd decode_config_ld(uint64_t rs1, uint64_t rs2) {
  ConfigLd c;
  c.shrunk = (rs1 >> 2) & 1;
  c.id = uint32_t((rs1 >> 3) & 3);
  c.pixel_repeats = uint32_t((rs1 >> 8) & 0xFF);
  c.block_stride = uint32_t((rs1 >> 16) & 0xFFFF);
  c.scale_bits = uint32_t(rs1 >> 32);
  c.stride = rs2;
  return c;
}
inline void encode_config_ld(const ConfigLd& c, uint64_t& rs1, uint64_t& rs2) {
  rs1 = (uint64_t(c.scale_bits) << 32) | (uint64_t(c.block_stride) << 16) | (uint64_t(c.pixel_repeats) << 8) |
        (uint64_t(c.id) << 3) | (uint64_t(c.shrunk) << 2) | kConfigLd;
  rs2 = c.stride;
}

// ------------------------------------------------------------ config_st (config_mvout)
// rs1: [3:2] activation of accumulator reads, [5:4] max-pool stride (0: no pooling),
// [7:6] pool size, [9:8] upper pad, [11:10] left pad, [31:24] pool output dimension,
// [39:32] pooled rows, [47:40] pooled columns, [55:48] rows, [63:56] columns to pool.
// rs2: [31:0] main-memory stride in bytes, [63:32] accumulator scale (float bits).
struct ConfigSt {
  uint32_t activation = kNoActivation;
  uint32_t pool_stride = 0, pool_size = 0, upad = 0, lpad = 0;
  uint32_t pool_out_dim = 0, porows = 0, pocols = 0, orows = 0, ocols = 0;
  uint32_t stride = 0;
  uint32_t acc_scale_bits = 0x3F800000u;  // 1.0f
};
inline ConfigSt decode_config_st(uint64_t rs1, uint64_t rs2) {
  ConfigSt c;
  c.activation = uint32_t((rs1 >> 2) & 3);
  c.pool_stride = uint32_t((rs1 >> 4) & 3);
  c.pool_size = uint32_t((rs1 >> 6) & 3);
  c.upad = uint32_t((rs1 >> 8) & 3);
  c.lpad = uint32_t((rs1 >> 10) & 3);
  c.pool_out_dim = uint32_t((rs1 >> 24) & 0xFF);
  c.porows = uint32_t((rs1 >> 32) & 0xFF);
  c.pocols = uint32_t((rs1 >> 40) & 0xFF);
  c.orows = uint32_t((rs1 >> 48) & 0xFF);
  c.ocols = uint32_t((rs1 >> 56) & 0xFF);
  c.stride = uint32_t(rs2);
  c.acc_scale_bits = uint32_t(rs2 >> 32);
  return c;
}
inline void encode_config_st(const ConfigSt& c, uint64_t& rs1, uint64_t& rs2) {
  rs1 = (uint64_t(c.ocols) << 56) | (uint64_t(c.orows) << 48) | (uint64_t(c.pocols) << 40) |
        (uint64_t(c.porows) << 32) | (uint64_t(c.pool_out_dim) << 24) | (uint64_t(c.lpad) << 10) |
        (uint64_t(c.upad) << 8) | (uint64_t(c.pool_size) << 6) | (uint64_t(c.pool_stride) << 4) |
        (uint64_t(c.activation) << 2) | kConfigSt;
  rs2 = (uint64_t(c.acc_scale_bits) << 32) | uint64_t(c.stride);
}

// ------------------------------------------------------------ arithmetic of the datapath
// Round half to even (ROUND_NEAR_EVEN of gemmini_params.h) of the float x * scale, then
// saturation to int8: ACC_SCALE and MVIN_SCALE of the default configuration. NaN becomes 0.
inline int32_t scale_round_saturate(int32_t x, float scale) {
  float y = float(x) * scale;  // int32 * float is a float product, as in the C macros
  if (std::isnan(y)) return 0;
  if (y >= 127.5f) return 127;    // 127.5 rounds to 128, which saturates too
  if (y <= -128.5f) return -128;  // -128.5 rounds to -128 (even)
  int32_t t = int32_t(std::floor(y));
  float frac = y - float(t);  // exact: y and t are close and small
  if (frac > 0.5f || (frac == 0.5f && (t & 1))) ++t;
  return t > 127 ? 127 : t < -128 ? -128 : t;
}
// ROUNDING_RIGHT_SHIFT of gemmini_params.h: an arithmetic right shift rounding half to even.
inline int64_t rounding_right_shift(int64_t x, uint32_t shift) {
  if (shift == 0) return x;
  if (shift > 62) shift = 62;  // configuration keeps shifts below 32; stay defined regardless
  int64_t q = x >> shift;
  int64_t half = (x >> (shift - 1)) & 1;
  int64_t below = shift <= 1 ? 0 : (x & ((int64_t(1) << (shift - 1)) - 1));
  return q + (half & (int64_t(below != 0) | (q & 1)));
}
inline int8_t saturate_int8(int64_t x) { return int8_t(x > 127 ? 127 : x < -128 ? -128 : x); }

}  // namespace halo::gemmini

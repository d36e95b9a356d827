// The Gemmini simulator (candidates/kernel/gemmini): the macros of include/gemmini.h encode
// each operand where the hardware expects it and the simulator decodes it back; each
// instruction's semantics on small cases against a plain computation of the same values;
// and every memory-safety check reports the instruction, its operands and the address.
// The macros are the C header kernels compile against, included here as C++; their one
// entry point, halo_gemmini_rocc, is defined below to record each instruction and run it
// on the simulator under test.
#include "candidates/kernel/gemmini/include/gemmini.h"
#include "candidates/kernel/gemmini/simulator.hpp"

#include <catch2/catch.hpp>
#include <rapidcheck.h>

#include <cstring>
#include <string>
#include <vector>

using namespace halo::gemmini;

namespace {
struct Issued {
  uint64_t funct, rs1, rs2;
};
std::vector<Issued> g_issued;
Simulator* g_sim = nullptr;
}  // namespace

extern "C" void halo_gemmini_rocc(uint64_t funct, uint64_t rs1, uint64_t rs2) {
  g_issued.push_back({funct, rs1, rs2});
  if (g_sim) g_sim->execute(funct, rs1, rs2);
}
extern "C" void halo_gemmini_fence(void) {
  if (g_sim) g_sim->fence();
}

namespace {

// Issues the instructions of `body` on a fresh simulator (or none: only records them).
struct Session {
  Simulator sim;
  Session() { g_sim = &sim; g_issued.clear(); }
  ~Session() { g_sim = nullptr; }
  template <typename T>
  void buffer(const std::vector<T>& v, const char* name, bool writable) {
    sim.add_region(DramRegion{uint64_t(uintptr_t(v.data())), v.size() * sizeof(T), name, writable, true});
  }
  std::string findings() const {
    std::string s;
    for (const auto& f : sim.findings()) s += "[" + f.kind + "] " + f.message + "\n";
    return s;
  }
};

Issued last() {
  REQUIRE(!g_issued.empty());
  return g_issued.back();
}

}  // namespace

// ------------------------------------------------------------------ encoding

TEST_CASE("gemmini: the data-movement and compute macros put each operand in its documented field",
          "[gemmini]") {
  g_sim = nullptr;
  g_issued.clear();
  int8_t host[4] = {};
  gemmini_extended_mvin(host, 0x123u, 40, 7);
  Issued i = last();
  CHECK(i.funct == 2);
  CHECK(i.rs1 == uint64_t(uintptr_t(host)));
  Operand op = decode_operand(i.rs2);
  CHECK(op.addr.raw == 0x123u);
  CHECK(op.cols == 40);
  CHECK(op.rows == 7);

  gemmini_extended_mvin2(host, 5, 1, 2);
  CHECK(last().funct == 1);
  gemmini_extended_mvin3(host, 5, 1, 2);
  CHECK(last().funct == 14);

  gemmini_extended_mvout(host, kAccBit | kFullWidthBit | 9u, 16, 3);
  i = last();
  CHECK(i.funct == 3);
  op = decode_operand(i.rs2);
  CHECK(op.addr.accumulator());
  CHECK(op.addr.full_width());
  CHECK(op.addr.row() == 9);
  CHECK(op.cols == 16);
  CHECK(op.rows == 3);

  gemmini_extended_preload(GARBAGE_ADDR, kAccBit | kAccumulateBit | 32u, 11, 12, 13, 14);
  i = last();
  CHECK(i.funct == 6);
  Operand bd = decode_operand(i.rs1), c = decode_operand(i.rs2);
  CHECK(bd.addr.garbage());
  CHECK(bd.cols == 11);
  CHECK(bd.rows == 12);
  CHECK(c.addr.accumulate());
  CHECK(c.addr.row() == 32);
  CHECK(c.cols == 13);
  CHECK(c.rows == 14);

  gemmini_extended_compute_preloaded(64u, ~((uint32_t)0), 3, 4, 16, 16);
  i = last();
  CHECK(i.funct == 4);
  Operand a = decode_operand(i.rs1);
  CHECK(a.addr.row() == 64);
  CHECK(a.cols == 3);
  CHECK(a.rows == 4);
  CHECK(decode_operand(i.rs2).addr.garbage());
  gemmini_extended_compute_accumulated(1u, 2u, 1, 1, 1, 1);
  CHECK(last().funct == 5);
  gemmini_flush(1);
  CHECK(last().funct == 7);
  CHECK(last().rs1 == 1);
}

TEST_CASE("gemmini: the configuration macros encode their fields, in both forms of config_ex", "[gemmini]") {
  g_sim = nullptr;
  g_issued.clear();
  gemmini_extended_config_ex(WS, RELU, 5, 3, 1, 0);
  Issued i = last();
  CHECK(i.funct == 0);
  CHECK((i.rs1 & 3) == kConfigEx);
  ConfigEx e = decode_config_ex(i.rs1, i.rs2);
  CHECK(e.dataflow == kWeightStationary);
  CHECK(e.activation == kRelu);
  CHECK(e.sys_shift == 5);
  CHECK(e.a_stride == 3);
  CHECK(e.a_transpose);
  CHECK_FALSE(e.b_transpose);
  CHECK(e.c_stride == 1);
  CHECK(bits_float(e.acc_scale_bits) == 1.0f);
  CHECK_FALSE(e.set_only_strides);

  // Exo's Gemmini library: (dataflow, act, sys_shift, relu6_shift, A_stride, A_transpose, B_transpose)
  gemmini_extended_config_ex(WS, 0, 0, 7, 1, 0, 1);
  e = decode_config_ex(last().rs1, last().rs2);
  CHECK(e.relu6_shift == 7);
  CHECK(e.a_stride == 1);
  CHECK(e.b_transpose);
  CHECK(e.c_stride == 1);

  gemmini_extended3_config_ex(OS, 0, 2, 0.5f, 4, 6, 0, 0, true);
  e = decode_config_ex(last().rs1, last().rs2);
  CHECK(e.dataflow == kOutputStationary);
  CHECK(bits_float(e.acc_scale_bits) == 0.5f);
  CHECK(e.c_stride == 4);
  CHECK(e.a_stride == 6);
  CHECK(e.set_only_strides);

  gemmini_extended4_config_ld(1000, 0.75f, 1, 20, 2);
  i = last();
  ConfigLd l = decode_config_ld(i.rs1, i.rs2);
  CHECK((i.rs1 & 3) == kConfigLd);
  CHECK(l.stride == 1000);
  CHECK(bits_float(l.scale_bits) == 0.75f);
  CHECK(l.shrunk);
  CHECK(l.block_stride == 20);
  CHECK(l.id == 2);
  CHECK(l.pixel_repeats == 1);
  gemmini_extended3_config_ld(64, 1.0f, 0, 1);
  l = decode_config_ld(last().rs1, last().rs2);
  CHECK(l.block_stride == 16);
  CHECK(l.id == 1);

  gemmini_extended_config_st(256, RELU, 0.125f);
  i = last();
  ConfigSt s = decode_config_st(i.rs1, i.rs2);
  CHECK((i.rs1 & 3) == kConfigSt);
  CHECK(s.stride == 256);
  CHECK(s.activation == kRelu);
  CHECK(bits_float(s.acc_scale_bits) == 0.125f);
  CHECK(s.pool_stride == 0);
}

TEST_CASE("gemmini: encoding and decoding are inverse, and agree with the C macros", "[gemmini]") {
  g_sim = nullptr;
  rc::check("operands", [](uint32_t addr, uint16_t cols, uint16_t rows) {
    Operand op = decode_operand(encode_operand(addr, cols, rows));
    RC_ASSERT(op.addr.raw == addr);
    RC_ASSERT(op.cols == cols);
    RC_ASSERT(op.rows == rows);
    g_issued.clear();
    gemmini_extended_mvin(0, addr, cols, rows);
    RC_ASSERT(g_issued.back().rs2 == encode_operand(addr, cols, rows));
  });
  rc::check("config_ex", [](bool ws, bool at, bool bt, bool only, uint16_t astride, uint16_t cstride, uint32_t shift) {
    ConfigEx c;
    c.dataflow = ws;
    c.activation = *rc::gen::inRange(0, 2);
    c.a_transpose = at;
    c.b_transpose = bt;
    c.set_only_strides = only;
    c.a_stride = astride;
    c.c_stride = cstride;
    c.sys_shift = shift;
    c.acc_scale_bits = float_bits(0.5f);
    uint64_t rs1, rs2;
    encode_config_ex(c, rs1, rs2);
    ConfigEx d = decode_config_ex(rs1, rs2);
    RC_ASSERT(d.dataflow == c.dataflow);
    RC_ASSERT(d.activation == c.activation);
    RC_ASSERT(d.a_transpose == at);
    RC_ASSERT(d.b_transpose == bt);
    RC_ASSERT(d.set_only_strides == only);
    RC_ASSERT(d.a_stride == astride);
    RC_ASSERT(d.c_stride == cstride);
    RC_ASSERT(d.sys_shift == shift);
    g_issued.clear();
    gemmini_extended3_config_ex(c.dataflow, c.activation, c.sys_shift, 0.5f, c.c_stride, c.a_stride, at, bt, only);
    RC_ASSERT(g_issued.back().rs1 == rs1);
    RC_ASSERT(g_issued.back().rs2 == rs2);
  });
  rc::check("config_ld", [](bool shrunk, uint16_t block, uint64_t stride) {
    ConfigLd c;
    c.shrunk = shrunk;
    c.id = *rc::gen::inRange(0, 3);
    c.block_stride = block;
    c.stride = stride;
    c.scale_bits = float_bits(2.0f);
    uint64_t rs1, rs2;
    encode_config_ld(c, rs1, rs2);
    ConfigLd d = decode_config_ld(rs1, rs2);
    RC_ASSERT(d.shrunk == shrunk);
    RC_ASSERT(d.id == c.id);
    RC_ASSERT(d.block_stride == block);
    RC_ASSERT(d.stride == stride);
    RC_ASSERT(d.pixel_repeats == 1u);
    g_issued.clear();
    gemmini_extended4_config_ld(stride, 2.0f, shrunk, block, c.id);
    RC_ASSERT(g_issued.back().rs1 == rs1);
    RC_ASSERT(g_issued.back().rs2 == rs2);
  });
  rc::check("config_st", [](uint32_t stride) {
    ConfigSt c;
    c.stride = stride;
    c.activation = *rc::gen::inRange(0, 2);
    c.acc_scale_bits = float_bits(0.25f);
    uint64_t rs1, rs2;
    encode_config_st(c, rs1, rs2);
    ConfigSt d = decode_config_st(rs1, rs2);
    RC_ASSERT(d.stride == stride);
    RC_ASSERT(d.activation == c.activation);
    RC_ASSERT(d.acc_scale_bits == c.acc_scale_bits);
    g_issued.clear();
    gemmini_extended_config_st(stride, c.activation, 0.25f);
    RC_ASSERT(g_issued.back().rs1 == rs1);
    RC_ASSERT(g_issued.back().rs2 == rs2);
  });
}

// ------------------------------------------------------------------ semantics

TEST_CASE("gemmini: mvin and mvout move strided rows, wide blocks, and scale with round-half-to-even",
          "[gemmini]") {
  Session s;
  // A 5 x 40 int8 matrix with row stride 48: a wide mvin puts three blocks DIM rows apart.
  std::vector<int8_t> src(5 * 48), dst(5 * 48, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = int8_t(int(i * 7 % 251) - 125);
  s.buffer(src, "src", false);
  s.buffer(dst, "dst", true);
  gemmini_extended3_config_ld(48, 1.0f, 0, 0);
  gemmini_extended_mvin(src.data(), 100u, 40, 5);
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 40; ++c) CHECK(s.sim.sp(100 + uint32_t(r + (c / 16) * 16), c % 16) == src[size_t(r * 48 + c)]);
  gemmini_extended_config_st(48, NO_ACTIVATION, 1.0f);
  gemmini_extended_mvout(dst.data(), 100u, 40, 5);
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 40; ++c) CHECK(dst[size_t(r * 48 + c)] == src[size_t(r * 48 + c)]);
  // A block stride other than DIM.
  gemmini_extended4_config_ld(48, 1.0f, 0, 5, 1);
  gemmini_extended_mvin2(src.data(), 300u, 32, 5);
  for (int r = 0; r < 5; ++r) CHECK(s.sim.sp(305 + uint32_t(r), 3) == src[size_t(r * 48 + 19)]);
  // Scale 1.5: round half to even, saturate to int8.
  std::vector<int8_t> vals = {1, 3, -3, 5, 100, -100, 0, 7};
  s.buffer(vals, "vals", false);
  gemmini_extended3_config_ld(8, 1.5f, 0, 2);
  gemmini_extended_mvin3(vals.data(), 400u, 8, 1);
  std::vector<int> want = {2, 4, -4, 8, 127, -128, 0, 10};  // 1.5->2, 4.5->4, -4.5->-4, 7.5->8, 10.5->10
  for (int c = 0; c < 8; ++c) CHECK(s.sim.sp(400, c) == want[size_t(c)]);
  // Main-memory address 0 moves in zeros.
  gemmini_extended_mvin3(0, 100u, 16, 1);
  for (int c = 0; c < 16; ++c) CHECK(s.sim.sp(100, c) == 0);
  INFO(s.findings());
  CHECK(s.sim.findings().empty());
}

TEST_CASE("gemmini: the accumulator takes int32 and shrunk int8 rows, accumulates on bit 30, and mvout scales, "
          "saturates, applies ReLU, or reads full width on bit 29",
          "[gemmini]") {
  Session s;
  std::vector<int32_t> wide = {1000, -1000, 6, 10, -6, -10, 300, -2};
  std::vector<int8_t> narrow = {1, -2, 3, -4, 5, -6, 7, -8};
  std::vector<int8_t> out8(8);
  std::vector<int32_t> out32(8);
  s.buffer(wide, "wide", false);
  s.buffer(narrow, "narrow", false);
  s.buffer(out8, "out8", true);
  s.buffer(out32, "out32", true);
  gemmini_extended3_config_ld(32, 1.0f, 0, 0);
  gemmini_extended3_config_ld(8, 1.0f, 1, 1);  // shrunk: int8 elements into the accumulator
  gemmini_extended_mvin(wide.data(), kAccBit | 2u, 8, 1);
  gemmini_extended_mvin2(narrow.data(), kAccBit | kAccumulateBit | 2u, 8, 1);
  for (int c = 0; c < 8; ++c) CHECK(s.sim.acc(2, c) == wide[size_t(c)] + narrow[size_t(c)]);
  // scale 0.25: 1001*0.25 = 250.25 -> 127 (saturated); 8*0.25 = 2; 7*.25=1.75 -> 2; 14*.25 = 3.5 -> 4 (even)
  gemmini_extended_config_st(8, NO_ACTIVATION, 0.25f);
  gemmini_extended_mvout(out8.data(), kAccBit | 2u, 8, 1);
  for (int c = 0; c < 8; ++c)
    CHECK(out8[size_t(c)] == scale_round_saturate(wide[size_t(c)] + narrow[size_t(c)], 0.25f));
  CHECK(out8[0] == 127);
  CHECK(out8[1] == -128);
  CHECK(out8[2] == 2);   // 9 * 0.25 = 2.25
  CHECK(out8[3] == 2);   // 6 * 0.25 = 1.5 -> 2
  CHECK(out8[5] == -4);  // -16 * 0.25
  gemmini_extended_config_st(8, RELU, 1.0f);
  gemmini_extended_mvout(out8.data(), kAccBit | 2u, 8, 1);
  CHECK(out8[1] == 0);
  CHECK(out8[2] == 9);
  gemmini_extended_config_st(32, NO_ACTIVATION, 0.25f);
  gemmini_extended_mvout(out32.data(), kAccBit | kFullWidthBit | 2u, 8, 1);
  for (int c = 0; c < 8; ++c) CHECK(out32[size_t(c)] == wide[size_t(c)] + narrow[size_t(c)]);
  INFO(s.findings());
  CHECK(s.sim.findings().empty());
}

namespace {
// A, B, D of up to 16 x 16 in the scratchpad; the product computed by the simulator in the
// weight-stationary dataflow, against the plain sum.
struct Tile {
  int rows, cols;
  std::vector<int8_t> v;
  int8_t at(int i, int j) const { return i < rows && j < cols ? v[size_t(i * cols + j)] : 0; }
};
Tile random_tile(int max_rows, int max_cols) {
  Tile t;
  t.rows = *rc::gen::inRange(1, max_rows + 1);
  t.cols = *rc::gen::inRange(1, max_cols + 1);
  t.v = *rc::gen::container<std::vector<int8_t>>(size_t(t.rows * t.cols), rc::gen::arbitrary<int8_t>());
  return t;
}
// Writes the tile into 16 scratchpad rows; the cells outside its extents get junk, so that
// a simulator reading past an operand's rows or columns computes something else.
void put(Simulator& s, uint32_t row, const Tile& t) {
  for (int i = 0; i < kDim; ++i)
    for (int j = 0; j < kDim; ++j)
      s.set_sp(row + uint32_t(i), j, i < t.rows && j < t.cols ? t.at(i, j) : int8_t(57 - 3 * i - j));
}
}  // namespace

TEST_CASE("gemmini: weight-stationary preload/compute matches A B + D on random partial tiles", "[gemmini]") {
  rc::check([] {
    Session s;
    const int n = *rc::gen::inRange(1, 17), k = *rc::gen::inRange(1, 17), m = *rc::gen::inRange(1, 17);
    Tile A{n, k, *rc::gen::container<std::vector<int8_t>>(size_t(n * k), rc::gen::arbitrary<int8_t>())};
    Tile B{k, m, *rc::gen::container<std::vector<int8_t>>(size_t(k * m), rc::gen::arbitrary<int8_t>())};
    Tile D = random_tile(16, 16);
    const bool accumulate = *rc::gen::arbitrary<bool>();
    const bool b_transposed = *rc::gen::arbitrary<bool>();
    put(s.sim, 0, A);
    // transposed B is stored as B^T and transposed back on preload
    Tile Bstored = B;
    if (b_transposed) {
      Bstored = Tile{m, k, std::vector<int8_t>(size_t(m * k))};
      for (int i = 0; i < k; ++i)
        for (int j = 0; j < m; ++j) Bstored.v[size_t(j * k + i)] = B.at(i, j);
    }
    put(s.sim, 16, Bstored);
    put(s.sim, 32, D);
    for (int i = 0; i < kDim; ++i)
      for (int j = 0; j < kDim; ++j) s.sim.set_acc(uint32_t(i), j, i * 100 + j);
    gemmini_extended_config_ex(WS, 0, 0, 1, 0, b_transposed);
    uint32_t c_addr = kAccBit | (accumulate ? kAccumulateBit : 0u);
    gemmini_extended_preload(16u, c_addr, m, k, m, n);  // B's shape, transposed or not
    gemmini_extended_compute_preloaded(0u, 32u, k, n, D.cols, D.rows);
    RC_ASSERT(s.sim.findings().empty());
    for (int i = 0; i < kDim; ++i)
      for (int j = 0; j < kDim; ++j) {
        int32_t want = i * 100 + j;
        if (i < n && j < m) {
          int32_t sum = D.at(i, j);
          for (int kk = 0; kk < k; ++kk) sum += A.at(i, kk) * B.at(kk, j);
          want = accumulate ? want + sum : sum;
        }
        RC_ASSERT(s.sim.acc(uint32_t(i), j) == want);
      }
    // compute_accumulated reuses the preloaded weights with a new A, here into the scratchpad
    Tile A2 = random_tile(16, 16);
    put(s.sim, 48, A2);
    gemmini_extended_preload(GARBAGE_ADDR, 64u, 16, 16, m, A2.rows);
    gemmini_extended_compute_accumulated(48u, GARBAGE_ADDR, A2.cols, A2.rows, 16, 16);
    for (int i = 0; i < A2.rows; ++i)
      for (int j = 0; j < m; ++j) {
        int32_t sum = 0;
        for (int kk = 0; kk < std::min(k, A2.cols); ++kk) sum += A2.at(i, kk) * B.at(kk, j);
        RC_ASSERT(s.sim.sp(64 + uint32_t(i), j) == saturate_int8(sum));
      }
  });
}

TEST_CASE("gemmini: output-stationary compute accumulates in the array and shifts with rounding into the "
          "scratchpad, with transposed A, strides and garbage addresses",
          "[gemmini]") {
  Session s;
  Tile A{16, 16, std::vector<int8_t>(256)}, B{16, 16, std::vector<int8_t>(256)}, D{16, 16, std::vector<int8_t>(256)};
  for (int i = 0; i < 256; ++i) {
    A.v[size_t(i)] = int8_t(i % 23 - 11);
    B.v[size_t(i)] = int8_t(i % 19 - 9);
    D.v[size_t(i)] = int8_t(i % 7 - 3);
  }
  put(s.sim, 0, A);
  put(s.sim, 16, B);
  put(s.sim, 32, D);
  gemmini_extended_config_ex(OS, RELU, 3, 1, 0, 0);
  gemmini_extended_preload(32u, 64u, 16, 16, 16, 16);  // D into the array, C to scratchpad row 64
  gemmini_extended_compute_preloaded(0u, 16u, 16, 16, 16, 16);
  gemmini_extended_preload(GARBAGE_ADDR, 80u, 16, 16, 16, 16);
  gemmini_extended_compute_accumulated(0u, 16u, 16, 16, 16, 16);  // A B once more on top
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      int64_t once = D.at(i, j), twice;
      for (int k = 0; k < 16; ++k) once += A.at(i, k) * B.at(k, j);
      twice = once;
      for (int k = 0; k < 16; ++k) twice += A.at(i, k) * B.at(k, j);
      auto expect = [](int64_t v) {
        int8_t x = saturate_int8(rounding_right_shift(v, 3));
        return x < 0 ? 0 : x;
      };
      CHECK(int(s.sim.sp(64 + uint32_t(i), j)) == int(expect(once)));
      CHECK(int(s.sim.sp(80 + uint32_t(i), j)) == int(expect(twice)));
    }
  // Results leave the array through the shift whichever memory they go to: into the
  // accumulator as int32, shifted but neither saturated nor activated.
  gemmini_extended_config_ex(OS, NO_ACTIVATION, 3, 1, 0, 0);
  gemmini_extended_preload(32u, kAccBit | 100u, 16, 16, 16, 16);
  gemmini_extended_compute_preloaded(0u, 16u, 16, 16, 16, 16);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      int64_t once = D.at(i, j);
      for (int k = 0; k < 16; ++k) once += A.at(i, k) * B.at(k, j);
      CHECK(int64_t(s.sim.acc(100 + uint32_t(i), j)) == rounding_right_shift(once, 3));
    }
  // Rounding right shift: half to even.
  CHECK(rounding_right_shift(12, 3) == 2);   // 1.5 -> 2
  CHECK(rounding_right_shift(20, 3) == 2);   // 2.5 -> 2
  CHECK(rounding_right_shift(-12, 3) == -2); // -1.5 -> -2
  CHECK(rounding_right_shift(13, 3) == 2);   // 1.625 -> 2

  // Transposed A with A stride 2, C stride 2, in WS: A(i, k) = sp[a + 2k][i].
  gemmini_extended3_config_ex(WS, 0, 0, 1.0f, 2, 2, 1, 0, false);
  gemmini_extended_preload(16u, kAccBit | 0u, 16, 16, 16, 16);
  gemmini_extended_compute_preloaded(0u, GARBAGE_ADDR, 8, 16, 16, 16);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      int32_t sum = 0;
      for (int k = 0; k < 8; ++k) sum += A.at(2 * k, i) * B.at(k, j);
      CHECK(s.sim.acc(uint32_t(2 * i), j) == sum);
    }
  // A garbage C address writes nothing.
  int32_t before = s.sim.acc(0, 0);
  gemmini_extended_preload(16u, GARBAGE_ADDR, 16, 16, 16, 16);
  gemmini_extended_compute_preloaded(0u, GARBAGE_ADDR, 16, 16, 16, 16);
  CHECK(s.sim.acc(0, 0) == before);
  // set_only_strides keeps the dataflow and transposes.
  gemmini_extended3_config_ex(OS, 0, 0, 1.0f, 1, 1, 0, 0, true);
  gemmini_extended_preload(16u, kAccBit | 0u, 16, 16, 16, 16);
  gemmini_extended_compute_preloaded(0u, GARBAGE_ADDR, 16, 16, 16, 16);
  int32_t sum = 0;
  for (int k = 0; k < 16; ++k) sum += A.at(k, 0) * B.at(k, 0);  // still WS with A transposed
  CHECK(s.sim.acc(0, 0) == sum);
  INFO(s.findings());
  CHECK(s.sim.findings().empty());
}

TEST_CASE("gemmini: configurations the hardware forbids or the program never set are findings", "[gemmini]") {
  Session s;
  std::vector<int8_t> buf(256);
  s.buffer(buf, "buf", true);
  gemmini_extended_mvin2(buf.data(), 0u, 16, 16);  // mvin2 never configured
  gemmini_extended_mvout(buf.data(), 0u, 16, 16);  // no config_st
  gemmini_extended_preload(0u, 16u, 16, 16, 16, 16);
  gemmini_extended_compute_preloaded(0u, GARBAGE_ADDR, 16, 16, 16, 16);  // no config_ex
  gemmini_extended_config_ex(WS, 0, 0, 1, 1, 1);  // WS with A and B transposed: not permitted
  gemmini_extended_config_ex(OS, 0, 0, 1, 0, 1);  // OS with B alone transposed: not permitted
  gemmini_extended_config_ex(OS, 0, 0, 1, 1, 1);  // permitted
  gemmini_extended_compute_accumulated(0u, GARBAGE_ADDR, 16, 16, 16, 16);  // no preload before it
  const auto& f = s.sim.findings();
  INFO(s.findings());
  REQUIRE(f.size() == 6);
  CHECK(f[0].kind == "configuration");
  CHECK_THAT(f[0].message, Catch::Contains("mvin2") && Catch::Contains("load configuration 1"));
  CHECK_THAT(f[1].message, Catch::Contains("config_st"));
  CHECK_THAT(f[2].message, Catch::Contains("config_ex"));
  CHECK_THAT(f[3].message, Catch::Contains("weight-stationary") && Catch::Contains("not a permitted"));
  CHECK_THAT(f[4].message, Catch::Contains("output-stationary") && Catch::Contains("not a permitted"));
  CHECK(f[5].kind == "sequence");
}

// ------------------------------------------------------------------ memory safety

TEST_CASE("gemmini: accesses outside the scratchpad, the accumulator, or a harness buffer name the instruction, "
          "its operands and the address",
          "[gemmini]") {
  Session s;
  std::vector<int8_t> A(16 * 16), C(16 * 16, int8_t(90));  // sentinels: a performed access would show
  for (size_t i = 0; i < A.size(); ++i) A[i] = int8_t(i % 100 + 1);
  const std::vector<int8_t> A0 = A;
  s.buffer(A, "input A (int8_t[16][16])", false);
  s.buffer(C, "output C (int8_t[16][16])", true);
  gemmini_extended3_config_ld(16, 1.0f, 0, 0);
  gemmini_extended_config_st(16, NO_ACTIVATION, 1.0f);
  gemmini_extended_config_ex(WS, 0, 0, 1, 0, 0);

  // Rows past the end of the scratchpad.
  gemmini_extended_mvin(A.data(), uint32_t(kSpRows - 8), 16, 16);
  // Rows past the end of the accumulator, as C of a compute.
  gemmini_extended_preload(0u, kAccBit | uint32_t(kAccRows - 4), 16, 16, 16, 16);
  gemmini_extended_compute_preloaded(0u, GARBAGE_ADDR, 16, 16, 16, 16);
  // A row read running past the end of A (17 rows of a 16-row buffer).
  gemmini_extended3_config_ld(17, 1.0f, 0, 0);
  gemmini_extended_mvin(A.data(), 0u, 16, 16);
  // A write into an input buffer.
  gemmini_extended_mvout(A.data(), 0u, 16, 1);
  // A main-memory address truncated to 32 bits.
  gemmini_extended_mvout((uint32_t)(uintptr_t)C.data(), 0u, 16, 1);
  // A row count that does not fit (17 > DIM), and 65 columns of int8 (more than 4 blocks).
  gemmini_extended_mvin(A.data(), 0u, 16, 17);
  gemmini_extended_mvin(A.data(), 0u, 65, 1);

  const auto& f = s.sim.findings();
  INFO(s.findings());
  REQUIRE(f.size() == 7);
  CHECK(f[0].kind == "memory");
  CHECK_THAT(f[0].message, Catch::StartsWith("mvin (funct 2, rs1=0x") && Catch::Contains("rs2=0x0010001000003ff8") &&
                               Catch::Contains("rows 16376..16391") && Catch::Contains("16384 rows"));
  CHECK_THAT(f[1].message, Catch::StartsWith("compute_preloaded") && Catch::Contains("accumulator") &&
                               Catch::Contains("1020..1035"));
  CHECK_THAT(f[2].message, Catch::Contains("reads main memory") && Catch::Contains("past the end of input A"));
  CHECK_THAT(f[3].message, Catch::Contains("writes main memory") && Catch::Contains("must only read"));
  CHECK_THAT(f[4].message, Catch::Contains("outside every buffer"));
  if (uintptr_t(C.data()) >> 32)
    CHECK_THAT(f[4].message, Catch::Contains("upper 32 bits of output C") && Catch::Contains("truncated"));
  CHECK(f[5].kind == "encoding");
  CHECK_THAT(f[5].message, Catch::Contains("16 cols x 17 rows") && Catch::Contains("at most 16 rows"));
  CHECK(f[6].kind == "encoding");
  CHECK_THAT(f[6].message, Catch::Contains("65 cols x 1 rows") && Catch::Contains("64 columns"));
  // No offending access was performed: A and C keep their sentinels, and the scratchpad
  // rows the first mvin would have reached before the end are still zero.
  CHECK(A == A0);
  for (auto v : C) CHECK(v == 90);
  for (uint32_t r = kSpRows - 8; r < kSpRows; ++r)
    for (int j = 0; j < kDim; ++j) CHECK(s.sim.sp(r, j) == 0);
}

TEST_CASE("gemmini: once the program allocates, every row must lie in one live allocation", "[gemmini]") {
  Session s;
  std::vector<int8_t> A(64 * 16);
  s.buffer(A, "A", false);
  gemmini_extended3_config_ld(16, 1.0f, 0, 0);
  uint32_t a = s.sim.sp_malloc(8 * 16);   // 8 rows
  uint32_t b = s.sim.sp_malloc(16 * 16);  // 16 rows, right after
  uint32_t acc = s.sim.acc_malloc(16 * 16 * 4);
  CHECK(a == 0);
  CHECK(b == 8);
  CHECK(acc == (kAccBit | 0u));
  gemmini_extended_mvin(A.data(), a, 16, 8);   // fits
  gemmini_extended_mvin(A.data(), a, 16, 16);  // runs into b
  gemmini_extended_mvin(A.data(), 100u, 16, 1);  // never allocated
  s.sim.sp_free(b);
  gemmini_extended_mvin(A.data(), b, 16, 1);  // after gemm_free
  s.sim.sp_free(b);                          // freed twice
  gemmini_extended_mvin(A.data(), acc | 15u, 16, 2);  // accumulator rows 15..16 of a 16-row allocation
  uint32_t big = s.sim.acc_malloc(2000 * 64);
  CHECK(big == kGarbageAddr);
  const auto& f = s.sim.findings();
  INFO(s.findings());
  REQUIRE(f.size() == 6);
  CHECK_THAT(f[0].message, Catch::Contains("row 8 lies in allocation #2") && Catch::Contains("runs across the end"));
  CHECK_THAT(f[1].message, Catch::Contains("row 100 is outside every live gemm_malloc allocation"));
  CHECK_THAT(f[2].message, Catch::Contains("freed") && Catch::Contains("use after gemm_free"));
  CHECK_THAT(f[3].message, Catch::Contains("gemm_free(0x00000008)"));
  CHECK_THAT(f[4].message, Catch::Contains("accumulator row 16") && Catch::Contains("gemm_acc_malloc"));
  CHECK(f[5].kind == "allocation");
}

TEST_CASE("gemmini: zero bytes allocate the garbage address as Exo's allocators do and moves of no rows touch nothing",
          "[gemmini]") {
  Session s;
  std::vector<int8_t> A(16 * 16);
  std::vector<int32_t> C(16 * 16);
  s.buffer(A, "A", false);
  s.buffer(C, "C", true);
  gemmini_extended3_config_ld(16, 1.0f, 0, 0);
  gemmini_extended_config_st(16 * sizeof(int32_t), 0, 1.0f);
  // exo/libs/gemm_malloc.c and gemm_acc_malloc.c return -1 for size 0; Exo's tails of
  // N % 16 rows allocate and move zero rows when N % 16 is 0.
  uint32_t sp = s.sim.sp_malloc(0);
  uint32_t acc = s.sim.acc_malloc(0);
  CHECK(sp == kGarbageAddr);
  CHECK(acc == kGarbageAddr);
  gemmini_extended_mvin(A.data(), sp, 16, 0);
  gemmini_extended_mvout(C.data(), acc, 16, 0);
  s.sim.sp_free(sp);
  s.sim.acc_free(acc);
  INFO(s.findings());
  CHECK(s.sim.findings().empty());
  // A move of rows into the garbage address is still a finding.
  gemmini_extended_mvin(A.data(), sp, 16, 1);
  REQUIRE(s.sim.findings().size() == 1);
  CHECK_THAT(s.sim.findings()[0].message, Catch::Contains("the destination is the garbage address"));
}

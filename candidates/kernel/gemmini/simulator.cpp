// The Gemmini functional simulator (simulator.hpp): decode, check, execute. The semantics of
// each instruction follow the Gemmini README's ISA section and the functional model that
// ships with Gemmini (Spike's gemmini extension); docs/kernels.md states them in prose.
#include "candidates/kernel/gemmini/simulator.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace halo::gemmini {

const char* funct_name(uint64_t funct) {
  switch (funct) {
    case kConfig: return "config";
    case kMvin2: return "mvin2";
    case kMvin: return "mvin";
    case kMvout: return "mvout";
    case kComputePreloaded: return "compute_preloaded";
    case kComputeAccumulate: return "compute_accumulated";
    case kPreload: return "preload";
    case kFlush: return "flush";
    case kLoopWs: return "loop_ws";
    case kLoopWsConfigBounds: return "loop_ws_config_bounds";
    case kLoopWsConfigAddrsAB: return "loop_ws_config_addrs_ab";
    case kLoopWsConfigAddrsDC: return "loop_ws_config_addrs_dc";
    case kLoopWsConfigStridesAB: return "loop_ws_config_strides_ab";
    case kLoopWsConfigStridesDC: return "loop_ws_config_strides_dc";
    case kMvin3: return "mvin3";
    default: return "unknown";
  }
}

namespace {
std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

const char* mem_name(bool acc) { return acc ? "accumulator" : "scratchpad"; }

std::string operand_text(const Operand& op) {
  if (op.addr.garbage()) return fmt("garbage address, %u cols x %u rows", op.cols, op.rows);
  std::string flags;
  if (op.addr.accumulator()) {
    if (op.addr.accumulate()) flags += ", accumulate";
    if (op.addr.full_width()) flags += ", full width";
  }
  return fmt("%s row %u%s, %u cols x %u rows", mem_name(op.addr.accumulator()), op.addr.row(), flags.c_str(),
             op.cols, op.rows);
}

inline int32_t load_le(const uint8_t* p, uint32_t bytes) {
  if (bytes == 1) return int8_t(*p);
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
}  // namespace

Simulator::Simulator()
    : sp_(size_t(kSpRows) * kDim, 0),
      acc_(size_t(kAccRows) * kDim, 0),
      sp_owner_(kSpRows, 0),
      acc_owner_(kAccRows, 0) {}

// ------------------------------------------------------------------ findings

void Simulator::report(const char* kind, const std::string& message) {
  ++finding_count_;
  if (findings_.size() >= kMaxKeptFindings) return;
  findings_.push_back(Finding{kind, message});
  if (on_finding) on_finding(findings_.back());
}

std::string Simulator::instr_text() const {
  std::string name = funct_name(cur_funct_);
  if (cur_funct_ == kConfig) {
    static const char* kinds[] = {"config_ex", "config_ld", "config_st", "config (kind 3)"};
    name = kinds[cur_rs1_ & 3];
  }
  return fmt("%s (funct %" PRIu64 ", rs1=0x%016" PRIx64 ", rs2=0x%016" PRIx64 ")", name.c_str(), cur_funct_, cur_rs1_,
             cur_rs2_);
}

// ------------------------------------------------------------------ checks

bool Simulator::check_shape(const Operand& op, uint32_t max_rows, uint32_t max_c, const char* what) {
  if (op.rows <= max_rows && op.cols <= max_c) return true;
  report("encoding", fmt("%s: %s operand (%s) does not fit: the hardware takes at most %u rows and %u columns here "
                         "(a count wider than its 16-bit field, or an address wider than 32 bits, spills into the "
                         "row and column fields)",
                         instr_text().c_str(), what, operand_text(op).c_str(), max_rows, max_c));
  return false;
}

void Simulator::report_row_outside_allocation(Mem m, uint32_t row, int32_t expected_owner, const char* what) {
  const bool acc = m == Mem::Accumulator;
  const auto& allocs = acc ? acc_allocs_ : sp_allocs_;
  int32_t o = (acc ? acc_owner_ : sp_owner_)[row];
  auto describe = [&](int32_t id) {
    const Allocation& a = allocs[size_t((id < 0 ? -id : id) - 1)];
    return fmt("allocation #%u (rows %u..%u%s)", a.id, a.first, a.first + a.rows - 1, a.live ? "" : ", freed");
  };
  if (o > 0)
    report("memory", fmt("%s: %s %s row %u lies in %s but the operand starts in %s: it runs across the end of its "
                         "allocation",
                         instr_text().c_str(), what, mem_name(acc), row, describe(o).c_str(),
                         describe(expected_owner).c_str()));
  else if (o < 0)
    report("memory", fmt("%s: %s %s row %u belongs to %s: a use after gemm%s_free", instr_text().c_str(), what,
                         mem_name(acc), row, describe(o).c_str(), acc ? "_acc" : ""));
  else
    report("memory", fmt("%s: %s %s row %u is outside every live %s allocation", instr_text().c_str(), what,
                         mem_name(acc), row, acc ? "gemm_acc_malloc" : "gemm_malloc"));
}

bool Simulator::check_rows(Mem m, uint32_t first, uint32_t count, uint32_t stride, const char* what,
                           int32_t* alloc) {
  if (count == 0) return true;
  const bool acc = m == Mem::Accumulator;
  const uint64_t size = acc ? kAccRows : kSpRows;
  const uint64_t last = uint64_t(first) + uint64_t(count - 1) * stride;
  if (last >= size || first >= size) {
    std::string strided = stride == 1 ? "" : fmt(" (every %u)", stride);
    report("memory", fmt("%s: %s rows %u..%" PRIu64 "%s lie outside the %s (%" PRIu64 " rows)", instr_text().c_str(),
                         what, first, last, strided.c_str(), mem_name(acc), size));
    return false;
  }
  if (!(acc ? acc_managed_ : sp_managed_)) return true;
  const auto& owner = acc ? acc_owner_ : sp_owner_;
  int32_t want = alloc && *alloc ? *alloc : owner[first];
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t row = uint32_t(first + uint64_t(i) * stride);
    if (owner[row] <= 0 || owner[row] != want) {
      report_row_outside_allocation(m, row, want, what);
      return false;
    }
  }
  if (alloc) *alloc = want;
  return true;
}

const DramRegion* Simulator::region_of(uint64_t addr) const {
  auto next = regions_.upper_bound(addr);
  return next == regions_.begin() ? nullptr : &std::prev(next)->second;
}

bool Simulator::dram_allowed(uint64_t addr, uint64_t bytes, bool write) const {
  if (!dram_checks_ || bytes == 0) return true;
  const DramRegion* r = region_of(addr);
  uint64_t end = addr + bytes;
  return r && end > addr && end <= r->base + r->bytes && (!write || r->writable);
}

void Simulator::report_dram(uint64_t addr, uint64_t bytes, bool write, const char* what) {
  const DramRegion* r = region_of(addr);
  auto next = regions_.upper_bound(addr);
  const DramRegion* after = next == regions_.end() ? nullptr : &next->second;
  const uint64_t end = addr + bytes;
  const bool wraps = end < addr;
  auto named = [](const DramRegion* x) {
    return fmt("%s (%" PRIu64 " bytes at 0x%" PRIx64 ")", x->name.c_str(), x->bytes, x->base);
  };
  std::string where;
  if (r && !wraps && end <= r->base + r->bytes) {
    where = fmt("is inside %s, which the kernel must only read", r->name.c_str());
  } else if (r && addr < r->base + r->bytes) {
    where = fmt("runs %" PRIu64 " bytes past the end of %s", wraps ? UINT64_MAX : end - (r->base + r->bytes),
                named(r).c_str());
  } else if (after && (wraps || end > after->base)) {
    where = fmt("starts %" PRIu64 " bytes before %s", after->base - addr, named(after).c_str());
  } else {
    // Between buffers: name the nearer one, if it is near at all.
    constexpr uint64_t kNear = 1u << 20;
    uint64_t below = r && r->checked ? addr - (r->base + r->bytes) : UINT64_MAX;
    uint64_t above = after && after->checked ? after->base - end : UINT64_MAX;
    if (below < kNear && below <= above)
      where = below == 0 ? fmt("starts at the end of %s", named(r).c_str())
                         : fmt("starts %" PRIu64 " bytes past the end of %s", below, named(r).c_str());
    else if (above < kNear)
      where = fmt("ends %" PRIu64 " bytes before %s", above, named(after).c_str());
    else
      where = "lies outside every buffer the harness allocated and every heap block the kernel allocated";
    // An address that lost its upper half: with them restored, it would lie in a buffer.
    if (addr >> 32 == 0)
      for (const auto& [base, reg] : regions_) {
        uint64_t full = (base & ~uint64_t(0xFFFFFFFF)) | addr;
        if (reg.checked && base >> 32 != 0 && full >= base && full < base + reg.bytes) {
          where += fmt(" (with the upper 32 bits of %s it would lie inside it: an address truncated to 32 bits)",
                       reg.name.c_str());
          break;
        }
      }
  }
  report("memory", fmt("%s: %s %s main memory [0x%" PRIx64 ", 0x%" PRIx64 "), which %s", instr_text().c_str(), what,
                       write ? "writes" : "reads", addr, end, where.c_str()));
}

// ------------------------------------------------------------------ main memory regions

void Simulator::add_region(const DramRegion& r) { regions_[r.base] = r; }
void Simulator::remove_region(uint64_t base) { regions_.erase(base); }

// ------------------------------------------------------------------ allocations

namespace {
// First fit over the live allocations, lowest address first.
uint32_t first_fit(const std::vector<int32_t>& owner, uint32_t rows) {
  uint32_t run = 0;
  for (uint32_t r = 0; r < owner.size(); ++r) {
    run = owner[r] > 0 ? 0 : run + 1;
    if (run == rows) return r + 1 - rows;
  }
  return UINT32_MAX;
}
}  // namespace

// A request for zero bytes gets the garbage address and no rows, as from Exo's own
// allocators (exo/libs/gemm_malloc.c and gemm_acc_malloc.c return -1 for size 0), whose
// tails allocate N % 16 rows also when that is 0; freeing it does nothing, as there.
uint32_t Simulator::sp_malloc(uint64_t bytes) {
  if (bytes == 0) return kGarbageAddr;
  uint64_t rows = (bytes + kDim - 1) / kDim;
  uint32_t first = rows == 0 || rows > kSpRows ? UINT32_MAX : first_fit(sp_owner_, uint32_t(rows));
  if (first == UINT32_MAX) {
    report("allocation", fmt("gemm_malloc(%" PRIu64 "): no run of %" PRIu64 " free scratchpad rows (of %u)", bytes,
                             rows, kSpRows));
    return kGarbageAddr;
  }
  sp_managed_ = true;
  uint32_t id = sp_next_id_++;
  sp_allocs_.push_back(Allocation{id, first, uint32_t(rows), true});
  std::fill(sp_owner_.begin() + first, sp_owner_.begin() + first + rows, int32_t(id));
  return first;
}

uint32_t Simulator::acc_malloc(uint64_t bytes) {
  if (bytes == 0) return kGarbageAddr;
  // Exo passes the size in bytes of int32 elements; a row holds DIM of them.
  uint64_t rows = (bytes + kDim * 4 - 1) / (kDim * 4);
  uint32_t first = rows == 0 || rows > kAccRows ? UINT32_MAX : first_fit(acc_owner_, uint32_t(rows));
  if (first == UINT32_MAX) {
    report("allocation", fmt("gemm_acc_malloc(%" PRIu64 "): no run of %" PRIu64 " free accumulator rows (of %u)",
                             bytes, rows, kAccRows));
    return kGarbageAddr;
  }
  acc_managed_ = true;
  uint32_t id = acc_next_id_++;
  acc_allocs_.push_back(Allocation{id, first, uint32_t(rows), true});
  std::fill(acc_owner_.begin() + first, acc_owner_.begin() + first + rows, int32_t(id));
  return kAccBit | first;
}

namespace {
template <typename Allocs>
bool free_allocation(Allocs& allocs, std::vector<int32_t>& owner, uint32_t row) {
  for (auto& a : allocs) {
    if (a.live && a.first == row) {
      a.live = false;
      std::fill(owner.begin() + a.first, owner.begin() + a.first + a.rows, -int32_t(a.id));
      return true;
    }
  }
  return false;
}
}  // namespace

void Simulator::sp_free(uint32_t addr) {
  if (addr == kGarbageAddr) return;
  if (!free_allocation(sp_allocs_, sp_owner_, addr))
    report("memory", fmt("gemm_free(0x%08x): not the start of a live gemm_malloc allocation", addr));
}

void Simulator::acc_free(uint32_t addr) {
  if (addr == kGarbageAddr) return;
  if (!free_allocation(acc_allocs_, acc_owner_, addr & ~kAccBit))
    report("memory", fmt("gemm_acc_free(0x%08x): not the start of a live gemm_acc_malloc allocation", addr));
}

void Simulator::reset_sp_allocations() {
  sp_allocs_.clear();
  sp_next_id_ = 1;  // ids index sp_allocs_
  std::fill(sp_owner_.begin(), sp_owner_.end(), 0);
  sp_managed_ = false;
}

void Simulator::reset_acc_allocations() {
  acc_allocs_.clear();
  acc_next_id_ = 1;  // ids index acc_allocs_
  std::fill(acc_owner_.begin(), acc_owner_.end(), 0);
  acc_managed_ = false;
}

// ------------------------------------------------------------------ instructions

void Simulator::execute(uint64_t funct, uint64_t rs1, uint64_t rs2) {
  ++instructions_;
  cur_funct_ = funct;
  cur_rs1_ = rs1;
  cur_rs2_ = rs2;
  switch (funct) {
    case kConfig: config(rs1, rs2); return;
    case kMvin: mvin(0, rs1, rs2); return;
    case kMvin2: mvin(1, rs1, rs2); return;
    case kMvin3: mvin(2, rs1, rs2); return;
    case kMvout: mvout(rs1, rs2); return;
    case kPreload: preload(rs1, rs2); return;
    case kComputePreloaded: compute(true, rs1, rs2); return;
    case kComputeAccumulate: compute(false, rs1, rs2); return;
    case kFlush: return;  // the TLB is not modelled: main memory is the host's, untranslated
    case kLoopWs:
    case kLoopWsConfigBounds:
    case kLoopWsConfigAddrsAB:
    case kLoopWsConfigAddrsDC:
    case kLoopWsConfigStridesAB:
    case kLoopWsConfigStridesDC:
      report("unsupported", fmt("%s: the CISC loop instructions are not modelled by the simulator",
                                instr_text().c_str()));
      return;
    default:
      report("encoding", fmt("%s: no Gemmini instruction has funct %" PRIu64, instr_text().c_str(), funct));
      return;
  }
}

void Simulator::config(uint64_t rs1, uint64_t rs2) {
  switch (rs1 & 3) {
    case kConfigEx: {
      ConfigEx c = decode_config_ex(rs1, rs2);
      if (!transpose_permitted(c.dataflow, c.a_transpose, c.b_transpose))
        report("configuration", fmt("%s: %s dataflow with A %stransposed and B %stransposed is not a permitted "
                                    "combination (Gemmini README, config_ex)",
                                    instr_text().c_str(), c.dataflow == kWeightStationary ? "weight-stationary"
                                                                                          : "output-stationary",
                                    c.a_transpose ? "" : "not ", c.b_transpose ? "" : "not "));
      if (c.activation > kRelu)
        report("unsupported", fmt("%s: activation %u (RELU6 or a transformer activation) is not modelled",
                                  instr_text().c_str(), c.activation));
      if (c.sys_shift > 31)
        report("configuration", fmt("%s: systolic shift %u is wider than the 32-bit partial sums",
                                    instr_text().c_str(), c.sys_shift));
      if (c.set_only_strides) {
        ex_.a_stride = c.a_stride;
        ex_.c_stride = c.c_stride;
      } else {
        ex_ = c;
        ex_set_ = true;
      }
      return;
    }
    case kConfigLd: {
      ConfigLd c = decode_config_ld(rs1, rs2);
      if (c.id > 2) {
        report("encoding", fmt("%s: load configuration id %u; there are three (mvin, mvin2, mvin3)",
                               instr_text().c_str(), c.id));
        return;
      }
      ld_[c.id] = LoadConfig{true, c, bits_float(c.scale_bits)};
      return;
    }
    case kConfigSt: {
      ConfigSt c = decode_config_st(rs1, rs2);
      if (c.activation > kRelu)
        report("unsupported", fmt("%s: accumulator activation %u is not modelled", instr_text().c_str(),
                                  c.activation));
      st_ = c;
      st_scale_ = bits_float(c.acc_scale_bits);
      st_set_ = true;
      return;
    }
    default:
      report("unsupported", fmt("%s: configuration kind 3 (im2col / transformer units) is not modelled",
                                instr_text().c_str()));
  }
}

void Simulator::mvin(int id, uint64_t rs1, uint64_t rs2) {
  static const char* names[] = {"mvin", "mvin2", "mvin3"};
  const LoadConfig& lc = ld_[size_t(id)];
  if (!lc.set) {
    report("configuration", fmt("%s: %s uses load configuration %d, which no config_ld has set", instr_text().c_str(),
                                names[id], id));
    return;
  }
  Operand op = decode_operand(rs2);
  // A move of no rows (or no columns) touches nothing, wherever it points: Exo's tails issue
  // them into the garbage address of a zero-size allocation.
  if (op.rows == 0 || op.cols == 0) return;
  if (op.addr.garbage()) {
    report("encoding", fmt("%s: the destination is the garbage address", instr_text().c_str()));
    return;
  }
  const bool to_acc = op.addr.accumulator();
  const uint32_t elem = to_acc && !lc.cfg.shrunk ? 4 : 1;
  if (!check_shape(op, kDim, max_cols(elem), "the destination")) return;
  if (lc.cfg.pixel_repeats > 1) {
    report("unsupported", fmt("%s: pixel repeats %u (an experimental feature) are not modelled", instr_text().c_str(),
                              lc.cfg.pixel_repeats));
    return;
  }
  const Mem m = to_acc ? Mem::Accumulator : Mem::Scratchpad;
  const uint32_t blocks = (op.cols + kDim - 1) / kDim;
  const uint32_t base = op.addr.row(), bs = lc.cfg.block_stride;
  // All blocks of the destination must lie in memory, and in the allocation of its first row.
  int32_t alloc = 0;
  for (uint32_t b = 0; b < blocks; ++b) {
    uint64_t first = uint64_t(base) + uint64_t(b) * bs;
    if (first > UINT32_MAX || !check_rows(m, uint32_t(first), op.rows, 1, b ? "destination block" : "destination",
                                          &alloc))
      return;
  }
  const bool zeros = rs1 == 0;  // main-memory address 0 moves in zeros
  const uint64_t row_bytes = uint64_t(op.cols) * elem;
  const float scale = lc.scale;
  const bool scaled = scale != 1.0f;
  const bool accumulate = to_acc && op.addr.accumulate();
  bool dram_reported = false;
  for (uint32_t r = 0; r < op.rows; ++r) {
    uint64_t a = rs1 + uint64_t(r) * lc.cfg.stride;
    const uint8_t* src = nullptr;
    if (!zeros) {
      if (dram_allowed(a, row_bytes, false)) {
        src = reinterpret_cast<const uint8_t*>(a);
      } else if (!dram_reported) {
        report_dram(a, row_bytes, false, fmt("row %u", r).c_str());
        dram_reported = true;
      }
    }
    for (uint32_t b = 0; b < blocks; ++b) {
      const uint32_t c0 = b * kDim, n = std::min<uint32_t>(kDim, op.cols - c0);
      const uint32_t row = base + r + b * bs;
      if (to_acc) {
        int32_t* dst = &acc_[size_t(row) * kDim];
        for (uint32_t c = 0; c < n; ++c) {
          int32_t v = src ? load_le(src + (c0 + c) * elem, elem) : 0;
          if (elem == 1 && scaled) v = scale_round_saturate(v, scale);  // MVIN_SCALE (int8 inputs)
          dst[c] = accumulate ? int32_t(uint32_t(dst[c]) + uint32_t(v)) : v;
        }
      } else {
        int8_t* dst = &sp_[size_t(row) * kDim];
        for (uint32_t c = 0; c < n; ++c) {
          int32_t v = src ? int8_t(src[c0 + c]) : 0;
          dst[c] = int8_t(scaled ? scale_round_saturate(v, scale) : v);
        }
      }
    }
  }
}

void Simulator::mvout(uint64_t rs1, uint64_t rs2) {
  if (!st_set_) {
    report("configuration", fmt("%s: mvout before any config_st set the store stride", instr_text().c_str()));
    return;
  }
  Operand op = decode_operand(rs2);
  if (op.rows == 0 || op.cols == 0) return;  // moves nothing (see mvin)
  if (op.addr.garbage()) {
    report("encoding", fmt("%s: the source is the garbage address", instr_text().c_str()));
    return;
  }
  const bool from_acc = op.addr.accumulator();
  const bool full = from_acc && op.addr.full_width();
  const uint32_t elem = full ? 4 : 1;
  if (!check_shape(op, kDim, max_cols(elem), "the source")) return;
  if (st_.pool_stride != 0) {
    report("unsupported", fmt("%s: max-pooling during mvout (an experimental feature) is not modelled",
                              instr_text().c_str()));
    return;
  }
  const Mem m = from_acc ? Mem::Accumulator : Mem::Scratchpad;
  const uint32_t blocks = (op.cols + kDim - 1) / kDim;
  const uint32_t base = op.addr.row();
  // mvout's blocks are DIM rows apart: together one contiguous run of rows.
  if (!check_rows(m, base, (blocks - 1) * kDim + op.rows, 1, "source")) return;
  const uint64_t row_bytes = uint64_t(op.cols) * elem;
  const bool relu = st_.activation == kRelu;
  bool dram_reported = false;
  for (uint32_t r = 0; r < op.rows; ++r) {
    uint64_t a = rs1 + uint64_t(r) * st_.stride;
    if (!dram_allowed(a, row_bytes, true)) {
      if (!dram_reported) report_dram(a, row_bytes, true, fmt("row %u", r).c_str());
      dram_reported = true;
      continue;
    }
    uint8_t* dst = reinterpret_cast<uint8_t*>(a);
    for (uint32_t j = 0; j < op.cols; ++j) {
      const uint32_t row = base + (j / kDim) * kDim + r, col = j % kDim;
      if (from_acc) {
        int32_t v = acc_[size_t(row) * kDim + col];
        if (full) {
          std::memcpy(dst + j * 4, &v, 4);
        } else {
          int32_t s = scale_round_saturate(v, st_scale_);  // ACC_SCALE, then saturation
          if (relu && s < 0) s = 0;
          dst[j] = uint8_t(int8_t(s));
        }
      } else {
        dst[j] = uint8_t(sp_[size_t(row) * kDim + col]);
      }
    }
  }
}

void Simulator::preload(uint64_t rs1, uint64_t rs2) {
  Operand bd = decode_operand(rs1), c = decode_operand(rs2);
  if (!check_shape(bd, kDim, kDim, "the B/D") || !check_shape(c, kDim, kDim, "the C")) {
    bd.rows = std::min<uint32_t>(bd.rows, kDim);
    bd.cols = std::min<uint32_t>(bd.cols, kDim);
    c.rows = std::min<uint32_t>(c.rows, kDim);
    c.cols = std::min<uint32_t>(c.cols, kDim);
  }
  pre_bd_ = bd;
  pre_c_ = c;
  preload_pending_ = true;
  any_preload_ = true;
}

void Simulator::compute(bool preloaded, uint64_t rs1, uint64_t rs2) {
  const bool preload_pending = preload_pending_;
  preload_pending_ = false;  // a compute consumes its preload, whatever happens next
  if (!ex_set_) {
    report("configuration", fmt("%s: compute before any config_ex set the dataflow", instr_text().c_str()));
    return;
  }
  if (!preload_pending) {
    report("sequence", fmt("%s: compute without a preceding preload", instr_text().c_str()));
    if (!any_preload_) return;
  }
  Operand a = decode_operand(rs1), bd = decode_operand(rs2);
  if (!check_shape(a, kDim, kDim, "the A") || !check_shape(bd, kDim, kDim, "the B/D")) return;
  const bool ws = ex_.dataflow == kWeightStationary;
  constexpr int D = kDim;

  // 1. compute_preloaded first loads the array: weights B (WS) or partial sums D (OS).
  if (preloaded) {
    if (ws) weights_.fill(0);
    else sums_.fill(0);
    const Operand& p = pre_bd_;
    if (!p.addr.garbage() && p.rows && p.cols) {
      if (p.addr.accumulator()) {
        report("unsupported", fmt("%s: preloading %s from the accumulator is not modelled", instr_text().c_str(),
                                  ws ? "B" : "D"));
      } else {
        const bool tr = ws && ex_.b_transpose;
        if (check_rows(Mem::Scratchpad, p.addr.row(), tr ? p.cols : p.rows, 1, ws ? "preloaded B" : "preloaded D")) {
          const int8_t* src = &sp_[size_t(p.addr.row()) * D];
          for (uint32_t i = 0; i < p.rows; ++i)
            for (uint32_t j = 0; j < p.cols; ++j) {
              int8_t v = tr ? src[j * D + i] : src[i * D + j];
              if (ws) weights_[i * D + j] = v;
              else sums_[i * D + j] = v;
            }
        }
      }
    }
  }

  // 2. A, rows of the scratchpad A_stride apart (or its columns, transposed); zero outside
  //    its rows and columns.
  alignas(64) int16_t A[D * D] = {};
  uint32_t a_rows = 0, a_cols = 0;
  if (!a.addr.garbage() && a.rows && a.cols) {
    if (a.addr.accumulator()) {
      report("unsupported", fmt("%s: reading A from the accumulator is not modelled", instr_text().c_str()));
    } else {
      const bool tr = ex_.a_transpose;
      const size_t stride = ex_.a_stride;
      if (check_rows(Mem::Scratchpad, a.addr.row(), tr ? a.cols : a.rows, uint32_t(stride), "A")) {
        const int8_t* src = &sp_[size_t(a.addr.row()) * D];
        a_rows = a.rows;
        a_cols = a.cols;
        for (uint32_t i = 0; i < a.rows; ++i)
          for (uint32_t k = 0; k < a.cols; ++k) A[i * D + k] = tr ? src[stride * k * D + i] : src[stride * i * D + k];
      }
    }
  }

  // 3. The second operand: D (WS, added to the product) or B (OS), zero outside its shape.
  alignas(64) int16_t BD[D * D] = {};
  uint32_t bd_rows = 0;
  if (!bd.addr.garbage() && bd.rows && bd.cols) {
    if (bd.addr.accumulator()) {
      report("unsupported", fmt("%s: reading %s from the accumulator is not modelled", instr_text().c_str(),
                                ws ? "D" : "B"));
    } else {
      const bool tr = !ws && ex_.b_transpose;
      if (check_rows(Mem::Scratchpad, bd.addr.row(), tr ? bd.cols : bd.rows, 1, ws ? "D" : "B")) {
        const int8_t* src = &sp_[size_t(bd.addr.row()) * D];
        bd_rows = bd.rows;
        for (uint32_t i = 0; i < bd.rows; ++i)
          for (uint32_t j = 0; j < bd.cols; ++j) BD[i * D + j] = tr ? src[j * D + i] : src[i * D + j];
      }
    }
  }

  // 4. The systolic array: WS results = D + A B (B held in the array); OS partial sums in
  //    the array += A B. Products of int8 fit int16; the sums are int32 and wrap, as the
  //    hardware's adders do (unsigned arithmetic, so the wrap is defined).
  alignas(64) int32_t R[D * D];
  int32_t* sums = ws ? R : sums_.data();
  const int16_t* B = ws ? weights_.data() : BD;
  const uint32_t depth = ws ? a_cols : std::min(a_cols, bd_rows);
  if (ws)
    for (int i = 0; i < D * D; ++i) R[i] = BD[i];
  for (uint32_t i = 0; i < a_rows; ++i) {
    int32_t* r = sums + i * D;
    for (uint32_t k = 0; k < depth; ++k) {
      const int16_t aik = A[i * D + k];
      const int16_t* b = B + k * D;
      for (int j = 0; j < D; ++j) r[j] = int32_t(uint32_t(r[j]) + uint32_t(aik * b[j]));
    }
  }
  if (!ws) {
    // Output-stationary results leave the array through the PEs' rounding right shift by
    // the systolic shift, whichever memory C goes to (Gemmini's PE: out_c = c >> shift).
    for (int i = 0; i < D * D; ++i) R[i] = int32_t(rounding_right_shift(sums_[size_t(i)], ex_.sys_shift));
  }

  // 5. Write C unless its address is the garbage address.
  const Operand& c = pre_c_;
  if (c.addr.garbage() || c.rows == 0 || c.cols == 0) return;
  const uint32_t cstride = ex_.c_stride;
  if (c.addr.accumulator()) {
    if (!check_rows(Mem::Accumulator, c.addr.row(), c.rows, cstride, "C")) return;
    const bool accumulate = c.addr.accumulate();
    for (uint32_t i = 0; i < c.rows; ++i) {
      int32_t* dst = &acc_[size_t(c.addr.row() + cstride * i) * D];
      for (uint32_t j = 0; j < c.cols; ++j)
        dst[j] = accumulate ? int32_t(uint32_t(dst[j]) + uint32_t(R[i * D + j])) : R[i * D + j];
    }
  } else {
    if (!check_rows(Mem::Scratchpad, c.addr.row(), c.rows, cstride, "C")) return;
    const bool relu = ex_.activation == kRelu;
    for (uint32_t i = 0; i < c.rows; ++i) {
      int8_t* dst = &sp_[size_t(c.addr.row() + cstride * i) * D];
      for (uint32_t j = 0; j < c.cols; ++j) {
        int8_t s = saturate_int8(R[i * D + j]);
        dst[j] = relu && s < 0 ? 0 : s;
      }
    }
  }
}

}  // namespace halo::gemmini

// A functional simulator of Gemmini's default configuration (isa.hpp): the scratchpad
// (16384 rows of 16 int8), the accumulator (1024 rows of 16 int32), the 16x16 systolic
// array in weight- and output-stationary dataflow, and the configuration state of the
// execute, load (three independent mvin configurations) and store pipelines. It executes
// one RoCC instruction at a time, in program order: Gemmini's ROB makes the decoupled
// access/execute hardware equivalent to that order once a fence retires, which is the only
// point where the host can observe the results.
//
// Every access is checked before it is made (docs/kernels.md, "What the simulator checks"):
//  * each scratchpad and accumulator row against the memory's size and, once the program
//    allocates with gemm_malloc / gemm_acc_malloc, against the live allocations (all rows
//    of one operand must lie in one allocation);
//  * each main-memory row that mvin reads or mvout writes against the regions the harness
//    registered (buffers with guard zones, the kernel's own heap blocks); a write needs a
//    writable region;
//  * the operand fields against what the hardware accepts (rows <= DIM, columns <= the
//    widest block transfer), and the configuration each instruction depends on against
//    having been set.
// A violated check is a Finding naming the instruction, its operands and the address; the
// offending access is not performed (a read yields zeros), so the kernel keeps running and
// every later violation is reported too.
#pragma once

#include "candidates/kernel/gemmini/isa.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace halo::gemmini {

struct Finding {
  // "memory" (an access outside memory, an allocation or a buffer), "encoding" (a field the
  // hardware cannot take), "configuration" (state used before it was set, or a combination
  // the hardware does not permit), "sequence" (compute without preload), "allocation"
  // (gemm_malloc out of rows), "unsupported" (a feature the simulator does not model).
  std::string kind;
  std::string message;
  bool memory() const { return kind == "memory"; }
};

// A range of main memory an instruction may touch.
struct DramRegion {
  uint64_t base = 0, bytes = 0;
  std::string name;       // e.g. "input A (int8_t[50][36])"
  bool writable = false;
  bool checked = true;    // false: known memory whose object bounds are unknown (stack, static data)
};

class Simulator {
 public:
  Simulator();

  // One RoCC instruction (funct, rs1, rs2) as the macros of include/gemmini.h issue it.
  void execute(uint64_t funct, uint64_t rs1, uint64_t rs2);
  // gemmini_fence(): every earlier instruction has completed (always true here).
  void fence() { ++fences_; }

  // ---- main memory the instructions may touch
  void add_region(const DramRegion& r);
  void remove_region(uint64_t base);
  // Off: mvin/mvout may touch any address (for code that manages its own memory).
  void set_dram_checks(bool on) { dram_checks_ = on; }

  // ---- gemm_malloc / gemm_acc_malloc (Exo's allocators): row addresses, the accumulator's
  // with bit 31 set; `bytes` is the allocation's size in bytes as Exo passes it.
  uint32_t sp_malloc(uint64_t bytes);
  void sp_free(uint32_t addr);
  uint32_t acc_malloc(uint64_t bytes);
  void acc_free(uint32_t addr);
  void reset_sp_allocations();
  void reset_acc_allocations();

  // ---- findings: kept up to a limit, counted beyond it; `on_finding` sees each as it occurs
  const std::vector<Finding>& findings() const { return findings_; }
  uint64_t finding_count() const { return finding_count_; }
  std::function<void(const Finding&)> on_finding;

  // ---- state, for tests and reports
  int8_t sp(uint32_t row, int col) const { return sp_[size_t(row) * kDim + col]; }
  int32_t acc(uint32_t row, int col) const { return acc_[size_t(row) * kDim + col]; }
  void set_sp(uint32_t row, int col, int8_t v) { sp_[size_t(row) * kDim + col] = v; }
  void set_acc(uint32_t row, int col, int32_t v) { acc_[size_t(row) * kDim + col] = v; }
  uint64_t instructions() const { return instructions_; }
  uint64_t fences() const { return fences_; }

  static constexpr size_t kMaxKeptFindings = 200;

 private:
  struct LoadConfig {
    bool set = false;
    ConfigLd cfg;
    float scale = 1.0f;
  };
  struct Allocation {
    uint32_t id = 0, first = 0, rows = 0;
    bool live = true;
  };
  // Which memory a row address names, for checks and messages.
  enum class Mem { Scratchpad, Accumulator };

  void config(uint64_t rs1, uint64_t rs2);
  void mvin(int id, uint64_t rs1, uint64_t rs2);
  void mvout(uint64_t rs1, uint64_t rs2);
  void preload(uint64_t rs1, uint64_t rs2);
  void compute(bool preloaded, uint64_t rs1, uint64_t rs2);

  // Checks: each reports a finding and returns false when the access must not happen.
  // Rows first + i*stride, i < count, of memory m: inside the memory and, once the program
  // allocates, inside one live allocation (*alloc: that allocation's id, 0 = not yet known).
  bool check_rows(Mem m, uint32_t first, uint32_t count, uint32_t stride, const char* what, int32_t* alloc = nullptr);
  void report_row_outside_allocation(Mem m, uint32_t row, int32_t expected_owner, const char* what);
  // Main memory [addr, addr + bytes): nullptr when the access is allowed, else why not.
  const DramRegion* region_of(uint64_t addr) const;
  bool dram_allowed(uint64_t addr, uint64_t bytes, bool write) const;
  void report_dram(uint64_t addr, uint64_t bytes, bool write, const char* what);
  bool check_shape(const Operand& op, uint32_t max_rows, uint32_t max_cols_, const char* what);

  void report(const char* kind, const std::string& message);
  std::string instr_text() const;

  std::vector<int8_t> sp_;
  std::vector<int32_t> acc_;

  // execute pipeline
  bool ex_set_ = false;
  ConfigEx ex_;
  // store pipeline
  bool st_set_ = false;
  ConfigSt st_;
  float st_scale_ = 1.0f;
  // load pipelines: mvin, mvin2, mvin3
  std::array<LoadConfig, 3> ld_;

  // preload state
  bool preload_pending_ = false;  // a preload not yet consumed by a compute
  bool any_preload_ = false;
  Operand pre_bd_, pre_c_;
  // the systolic array: weights B (WS, int8 values held as int16 for widening multiplies)
  // or partial sums (OS), DIM x DIM, row-major
  std::array<int16_t, kDim * kDim> weights_{};
  std::array<int32_t, kDim * kDim> sums_{};

  // allocations: per row 0 = never allocated, +id live, -id freed
  std::vector<int32_t> sp_owner_, acc_owner_;
  std::vector<Allocation> sp_allocs_, acc_allocs_;
  uint32_t sp_next_id_ = 1, acc_next_id_ = 1;
  bool sp_managed_ = false, acc_managed_ = false;

  // main memory regions by base address
  std::map<uint64_t, DramRegion> regions_;
  bool dram_checks_ = true;

  std::vector<Finding> findings_;
  uint64_t finding_count_ = 0;
  uint64_t instructions_ = 0, fences_ = 0;
  // the instruction being executed, for messages
  uint64_t cur_funct_ = 0, cur_rs1_ = 0, cur_rs2_ = 0;
};

}  // namespace halo::gemmini

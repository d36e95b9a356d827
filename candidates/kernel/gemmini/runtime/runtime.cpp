// The runtime library a Gemmini kernel links with (built by CMake as halo_gemmini_rt, see
// docs/kernels.md): the one entry point the macros of include/gemmini.h call
// (halo_gemmini_rocc), Exo's scratchpad and accumulator allocators, and the harness API
// the generated driver uses to register its buffers and to collect the simulator's
// findings in the report file that `halo kernel` reads.
#include "candidates/kernel/gemmini/simulator.hpp"

#include <pthread.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>

using halo::gemmini::DramRegion;
using halo::gemmini::Finding;
using halo::gemmini::Simulator;

namespace {

// One simulator per process, created on first use and never destroyed: kernels may issue
// instructions from static constructors or after main returns.
Simulator& sim() {
  static Simulator* s = [] {
    auto* p = new Simulator();
    return p;
  }();
  return *s;
}

FILE* g_report = nullptr;
bool g_kernel_phase = false;
uint64_t g_heap_blocks = 0;
std::set<uint64_t>* g_heap_bases = nullptr;

std::string one_line(const std::string& s) {
  std::string r = s;
  for (char& c : r)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return r;
}

void write_finding(const Finding& f) {
  if (!g_report) return;
  std::fprintf(g_report, "finding\tgemmini-%s\t%s\n", f.kind.c_str(), one_line(f.message).c_str());
  std::fflush(g_report);
}

}  // namespace

// Linker symbols bounding the executable's static data (GNU ld).
extern "C" char etext[], _end[];

extern "C" {

// ---------------------------------------------------------------- the instruction port
void halo_gemmini_rocc(uint64_t funct, uint64_t rs1, uint64_t rs2) { sim().execute(funct, rs1, rs2); }
void halo_gemmini_fence(void) { sim().fence(); }

// ---------------------------------------------------------------- Exo's allocators
uint32_t gemm_malloc(long unsigned int size) { return sim().sp_malloc(size); }
void gemm_free(uint32_t addr) { sim().sp_free(addr); }
uint32_t gemm_acc_malloc(long unsigned int size) { return sim().acc_malloc(size); }
void gemm_acc_free(uint32_t addr) { sim().acc_free(addr); }
void gemm_init_mem(void) { sim().reset_sp_allocations(); }
void gemm_acc_init_mem(void) { sim().reset_acc_allocations(); }

// ---------------------------------------------------------------- the harness
// Opens the report file (appending: the driver writes to it too) and registers the memory
// whose object bounds are unknown (the stack, the executable's static data) as unchecked.
void halo_gemmini_harness_begin(const char* report_path) {
  g_report = std::fopen(report_path, "a");
  sim().on_finding = write_finding;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* stack = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &stack, &size) == 0)
      sim().add_region(DramRegion{uint64_t(uintptr_t(stack)), size, "the stack (object bounds not checked)", true,
                                  false});
    pthread_attr_destroy(&attr);
  }
  uint64_t lo = uint64_t(uintptr_t(etext)), hi = uint64_t(uintptr_t(_end));
  if (hi > lo)
    sim().add_region(DramRegion{lo, hi - lo, "the executable's static data (object bounds not checked)", true, false});
}

// A buffer of the harness: `bytes` of data at `data`; `name` says what it is
// ("input a (int8_t[50][36])"). Its guard zones are the driver's business: for the
// simulator, everything outside the data is outside the buffer.
void halo_gemmini_harness_buffer(const void* data, uint64_t bytes, const char* name, int writable) {
  sim().add_region(DramRegion{uint64_t(uintptr_t(data)), bytes, name, writable != 0, true});
}

// 1 just before the kernel is called, 0 just after: heap blocks are tracked in between.
void halo_gemmini_harness_call(int begin) { g_kernel_phase = begin != 0; }

void halo_gemmini_harness_end(void) {
  if (!g_report) return;
  const Simulator& s = sim();
  std::fprintf(g_report, "stats\tinstructions=%" PRIu64 "\tfences=%" PRIu64 "\tfindings=%" PRIu64 "\n",
               s.instructions(), s.fences(), s.finding_count());
  std::fclose(g_report);
  g_report = nullptr;
}

// ---------------------------------------------------------------- heap blocks (heap_wrap.cpp)
void halo_gemmini_heap_block(void* p, uint64_t bytes) {
  if (!g_kernel_phase || !p) return;
  g_kernel_phase = false;  // the bookkeeping below allocates; do not track it
  if (!g_heap_bases) g_heap_bases = new std::set<uint64_t>();
  g_heap_bases->insert(uint64_t(uintptr_t(p)));
  char name[96];
  std::snprintf(name, sizeof name, "heap block #%" PRIu64 " (%" PRIu64 " bytes the kernel allocated)",
                ++g_heap_blocks, bytes);
  sim().add_region(DramRegion{uint64_t(uintptr_t(p)), bytes, name, true, true});
  g_kernel_phase = true;
}

void halo_gemmini_heap_release(void* p) {
  if (!p || !g_heap_bases) return;
  bool phase = g_kernel_phase;
  g_kernel_phase = false;
  if (g_heap_bases->erase(uint64_t(uintptr_t(p)))) sim().remove_region(uint64_t(uintptr_t(p)));
  g_kernel_phase = phase;
}

}  // extern "C"

// `halo kernel`: compiler-emitted kernels (Gemmini C, AVX-512 intrinsics, plain C) run
// under simulation and checked against the algorithm they claim to implement
// (docs/kernels.md). The manifest (kernel_manifest.hpp) names the sources, the function,
// the .halo spec and each argument. halo evaluates the spec's funcs with the big-step
// reference (interp/fast_eval.hpp) to fill the input buffers and to know every output
// element; it generates a C driver that allocates the buffers with guard zones, calls the
// function once and writes the outputs back; it compiles driver and kernel with the system
// C compiler (against the Gemmini simulator's runtime, or SIMDe for AVX-512, under
// AddressSanitizer and UndefinedBehaviorSanitizer), runs the program in a child process
// under limits, and compares every output element with the reference. Memory-safety
// violations, sanitizer reports, crashes and hangs are classified findings.
#pragma once

#include "interp/input.hpp"
#include "candidates/kernel/kernel_manifest.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace halo {

struct KernelOptions {
  bool native = false;            // avx512: also run natively (-mavx512f) when the host has AVX-512F
  double timeout_seconds = 60;    // wall clock per run of the kernel, and per compile
  std::string timeout_flag = "--timeout";  // what raises timeout_seconds, for the limit's message
  uint64_t max_memory_mib = 4096; // per run of the kernel
  Limits reference_limits;        // for the reference evaluation
  bool keep = false;              // keep the build directory (its path is in the report)
};

struct KernelFinding {
  std::string kind;     // e.g. "gemmini-memory", "asan", "ubsan", "guard", "crash", "hang", "exit"
  std::string message;
  bool memory = false;  // counts against memory safety
};

struct KernelMismatch {
  std::string arg;
  std::vector<int64_t> index;
  std::string expected, actual;
};

// One execution of the compiled kernel.
struct KernelRun {
  std::string label;            // "simulated" / "emulated" / "native"
  bool completed = false;       // the driver reached its end and wrote the outputs
  double seconds = 0;
  std::vector<std::vector<uint8_t>> outputs;  // bytes of each output/inout buffer, in argument order
  std::vector<KernelFinding> findings;
  std::string stats;            // the Gemmini runtime's counters, if any
};

struct KernelReport {
  std::string manifest, function, platform, spec;
  uint64_t compared = 0, mismatches = 0;
  std::optional<KernelMismatch> first_mismatch;
  bool memory_safe = true;
  std::vector<KernelFinding> findings;
  std::vector<KernelRun> runs;
  bool native_requested = false, native_ran = false, native_agrees = true;
  std::string native_note;
  std::string workdir;  // when kept
  bool holds() const;
};

// The kernel's sources (with the driver) do not compile with the system C compiler: bad
// input for `halo kernel`, a finding when a compiler under test emitted them (`halo fuzz
// --target exo`).
class KernelCompileError : public InputError {
 public:
  using InputError::InputError;
};

// Throws InputError for a bad manifest, spec, or sources that do not compile, and
// ResourceLimit when the reference evaluation exceeds its limits.
KernelReport check_kernel(const std::string& manifest_path, const KernelOptions& options);

nlohmann::json kernel_report_to_json(const KernelReport& r);
std::string render_kernel_report(const KernelReport& r);

// A func's final values (the big-step reference) on the box [0, d0) x [0, d1) x ..., in
// the order of a row-major C array: element X[i0][i1]... is the func's value at
// (i0, i1, ...). `params` are the pipeline's parameters, in order.
std::vector<Value> kernel_reference_values(const Pipeline& pipe, const std::vector<Value>& params,
                                           const std::string& func, const std::vector<int64_t>& dims,
                                           const Limits& lim);

// Where halo finds what kernels compile against (set at build time, see CMakeLists.txt).
struct KernelSupportPaths {
  std::string gemmini_include;  // candidates/kernel/gemmini/include
  std::string gemmini_runtime;  // the halo_gemmini_rt static library
  std::string avx512_prelude;   // candidates/kernel/avx512/kernel_avx512.h
};
KernelSupportPaths kernel_support_paths();

// True when /proc/cpuinfo lists avx512f.
bool host_has_avx512f();

}  // namespace halo

// Benchmark of the Gemmini simulator (docs/kernels.md, "Performance"): the example kernel
// examples/kernels/gemmini_matmul.c, linked with the simulator's runtime, computes a
// 512x512x512 int8 matmul with bias, scale and ReLU; a native C++ triple loop computes the
// same values on the same host; and halo's big-step reference evaluates the kernel's spec
// for the same sizes. All three must agree element for element before any time is
// reported. Target: the simulated kernel within 5x of the native loop.
#include "interp/fast_eval.hpp"
#include "candidates/kernel/kernel.hpp"
#include "candidates/kernel/gemmini/isa.hpp"
#include "semantics/parser.hpp"
#include "semantics/validity.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

extern "C" {
// examples/kernels/gemmini_matmul.c (its context struct is passed as an opaque pointer)
void gemmini_matmul(void* ctxt, int_fast32_t M, int_fast32_t N, int_fast32_t K, const float* scale, bool act,
                    const int8_t* A, const int8_t* B, const int32_t* bias, int8_t* C);
// the runtime's harness: the buffers the simulator may touch
void halo_gemmini_harness_begin(const char* report_path);
void halo_gemmini_harness_buffer(const void* data, uint64_t bytes, const char* name, int writable);
void halo_gemmini_harness_end(void);
}

namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
double best_of(int reps, F&& f) {
  double best = 1e300;
  for (int i = 0; i < reps; ++i) {
    auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

template <typename T>
std::vector<T> as_vector(const std::vector<halo::Value>& vs) {
  std::vector<T> out;
  out.reserve(vs.size());
  for (const auto& v : vs) out.push_back(T(v.small()));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"the Gemmini simulator on a 512x512x512 int8 matmul, against native C++ and the reference"};
  int n = 512, reps = 3;
  app.add_option("--size", n, "M = N = K")->capture_default_str();
  app.add_option("--reps", reps, "best of this many runs")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  const float scale = 0.25f;
  const bool act = true;

  // Inputs and the reference from the kernel's own spec.
  halo::Program prog = halo::parse_file(std::string(HALO_SOURCE_DIR) + "/examples/kernels/gemmini_matmul.halo");
  halo::check_program(prog);
  std::vector<halo::Value> params = {n, n, n};  // m, n, k_size
  halo::Limits lim;
  auto A = as_vector<int8_t>(halo::kernel_reference_values(prog.pipeline, params, "a", {n, n}, lim));
  auto B = as_vector<int8_t>(halo::kernel_reference_values(prog.pipeline, params, "b", {n, n}, lim));
  auto bias = as_vector<int32_t>(halo::kernel_reference_values(prog.pipeline, params, "bias", {n}, lim));

  auto t0 = Clock::now();
  std::vector<halo::Value> ref = halo::kernel_reference_values(prog.pipeline, params, "c", {n, n}, lim);
  double t_ref = std::chrono::duration<double>(Clock::now() - t0).count();

  // The simulated kernel, with its buffers registered so that every mvin/mvout is checked.
  std::vector<int8_t> C_sim(size_t(n) * n);
  // The simulator's report: a finding (an access outside the buffers, an encoding error)
  // disqualifies the run, whatever the values.
  const std::string report = (std::filesystem::temp_directory_path() /
                              fmt::format("halo_bench_gemmini_{}.report", ::getpid())).string();
  std::filesystem::remove(report);
  halo_gemmini_harness_begin(report.c_str());
  halo_gemmini_harness_buffer(A.data(), A.size(), "A", 0);
  halo_gemmini_harness_buffer(B.data(), B.size(), "B", 0);
  halo_gemmini_harness_buffer(bias.data(), bias.size() * 4, "bias", 0);
  halo_gemmini_harness_buffer(C_sim.data(), C_sim.size(), "C", 1);
  unsigned char context[64] = {};
  double t_sim = best_of(reps, [&] {
    gemmini_matmul(context, n, n, n, &scale, act, A.data(), B.data(), bias.data(), C_sim.data());
  });
  halo_gemmini_harness_end();
  std::string findings;
  {
    std::ifstream in(report);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("stats\t", 0) != 0) findings += line + "\n";
  }
  std::filesystem::remove(report);
  if (!findings.empty()) {
    fmt::print("the simulator reported findings on the benchmark kernel:\n{}", findings);
    return 1;
  }

  // The native triple loop (i-k-j, vectorizable), with Gemmini's rounding and saturation.
  std::vector<int8_t> C_nat(size_t(n) * n);
  std::vector<int32_t> acc(static_cast<size_t>(n));
  double t_nat = best_of(reps, [&] {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) acc[size_t(j)] = bias[size_t(j)];
      for (int k = 0; k < n; ++k) {
        const int32_t a = A[size_t(i) * n + k];
        const int8_t* brow = &B[size_t(k) * n];
        for (int j = 0; j < n; ++j) acc[size_t(j)] += a * brow[j];
      }
      for (int j = 0; j < n; ++j) {
        int32_t s = halo::gemmini::scale_round_saturate(acc[size_t(j)], scale);
        C_nat[size_t(i) * n + j] = int8_t(act && s < 0 ? 0 : s);
      }
    }
  });

  size_t bad_sim = 0, bad_nat = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    bad_sim += ref[i] != halo::Value(C_sim[i]);
    bad_nat += ref[i] != halo::Value(C_nat[i]);
  }
  if (bad_sim || bad_nat) {
    fmt::print("values differ from the reference: simulator {} elements, native {} elements\n", bad_sim, bad_nat);
    return 1;
  }
  double ratio = t_sim / t_nat;
  fmt::print("int8 matmul {0}x{0}x{0} with bias, scale and ReLU (all three agree on {1} elements)\n", n, ref.size());
  fmt::print("  Gemmini simulator (examples/kernels/gemmini_matmul.c): {:.3f} s\n", t_sim);
  fmt::print("  native C++ triple loop:                                 {:.3f} s\n", t_nat);
  fmt::print("  ratio: {:.1f}x (target: within 5x)\n", ratio);
  fmt::print("  big-step reference evaluation of the spec:              {:.3f} s\n", t_ref);
  return ratio <= 5.0 ? 0 : 1;
}

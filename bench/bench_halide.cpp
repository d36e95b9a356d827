// The cost of halo's Halide target against Halide alone (docs/halide.md, "Speed"), for one
// Halide version: halo_bench_halide_MAJOR links that version's back end (HALO_HALIDE_MAJOR)
// for "Halide alone", and sends halo's cases to that version's worker.
//
// For the first N cases of a fixed-seed campaign (the cases `halo fuzz --target halide`
// runs), it times run_halide_case — reference, translation, Int(32) model, fork, JIT
// compile and run in the child, comparison — without and with the memory check, and, on
// each case Halide ran cleanly, right after, Halide alone: the same pipeline built,
// JIT-compiled and realized in this process, warm, with no oracle around it. halo's
// overhead is the ratio of the two on those cases.
#include "fuzz/case_gen.hpp"
#include "candidates/halide/halide_oracle.hpp"
#include "candidates/halide/jit.hpp"
#include "candidates/halide/plan.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>

using namespace halo;
using Clock = std::chrono::steady_clock;

namespace {
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
}  // namespace

int main(int argc, char** argv) {
  uint64_t cases = 100, seed = 20261121;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--cases")) cases = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(argv[i + 1], nullptr, 10);
  }
  struct Case {
    Program prog;
    Input in;
    double oracle_seconds = 0, memcheck_seconds = 0;
    double child_compile_seconds = 0;  // JIT compile time measured inside the child
    double alone_seconds = 0, alone_compile_seconds = 0;  // Halide alone, in this process
  };
  std::vector<Case> ran;  // cases Halide compiled and ran to a pass
  std::map<std::string, int> outcomes;
  halide::HalideOptions plain;
  plain.version = HALO_HALIDE_MAJOR;
  plain.memcheck = false;
  halide::HalideOptions checked;
  checked.version = HALO_HALIDE_MAJOR;
  fmt::print("Halide {}\n", HALO_HALIDE_VERSION);
  // The worker process starts (and compiles Halide's JIT runtime) once per campaign: timed
  // apart, on a trivial case, and not charged to the cases.
  {
    Program first = fuzz::generate_case(fuzz::campaign_case(seed, 0)).value();
    auto t0 = Clock::now();
    try {
      halide::run_halide_case(first, resolve_input(first, {}), plain);
    } catch (const std::exception&) {
    }
    fmt::print("worker start (fork and exec, Halide's JIT runtime compiled once) and case 0: {:.0f} ms\n", 1e3 * since(t0));
  }
  halide::warm_up_jit(plain.target);  // this process's JIT runtime too, before any case is timed
  double all_plain = 0;
  for (uint64_t k = 0; k < cases; ++k) {
    Program p;
    try {
      p = fuzz::generate_case(fuzz::campaign_case(seed, k)).value();
    } catch (const std::exception&) {
      continue;
    }
    Input in = resolve_input(p, {});
    auto t0 = Clock::now();
    halide::HalideVerdict v;
    try {
      v = halide::run_halide_case(p, in, plain);
    } catch (const ResourceLimit&) {
      ++outcomes["limit"];
      continue;
    }
    double dt = since(t0);
    all_plain += dt;
    ++outcomes[halide::outcome_name(v.outcome)];
    if (v.outcome != halide::HalideOutcome::Pass) continue;
    t0 = Clock::now();
    halide::run_halide_case(p, in, checked);
    Case c{p, in, dt, since(t0), v.compile_seconds};
    // Halide alone on the same pipeline, right after halo's runs of it: a change in the
    // machine's load then weighs on both sides alike (measuring all of one side first and
    // all of the other after made the ratio follow the load, from -8% to +30%).
    auto plan = std::get<halide::HalidePlan>(halide::translate_to_halide(p, in));
    t0 = Clock::now();
    halide::JitResult r = halide::run_plan_jit(plan, halide::JitOptions{}, [](const char*) {});
    c.alone_seconds = since(t0);
    c.alone_compile_seconds = r.compile_seconds;
    ran.push_back(std::move(c));
  }
  double halo_plain = 0, halo_checked = 0, alone = 0, alone_compile = 0, child_compile = 0;
  for (const Case& c : ran) {
    alone += c.alone_seconds;
    alone_compile += c.alone_compile_seconds;
    halo_plain += c.oracle_seconds;
    halo_checked += c.memcheck_seconds;
    child_compile += c.child_compile_seconds;
  }
  size_t n = ran.size();
  fmt::print("{} cases of seed {}: ", cases, seed);
  for (const auto& [o, count] : outcomes) fmt::print("{} {}  ", o, count);
  fmt::print("\nall cases, halo --target halide --no-memcheck: {:.1f} cases/s\n", double(cases) / all_plain);
  if (n == 0) return 0;
  fmt::print("on the {} cases Halide ran (pass):\n", n);
  fmt::print("  Halide alone (build + JIT compile + realize, warm): {:7.1f} ms/case  {:6.2f} cases/s  "
             "(JIT compile alone {:.1f} ms)\n",
             1e3 * alone / double(n), double(n) / alone, 1e3 * alone_compile / double(n));
  fmt::print("  halo --target halide --no-memcheck:                 {:7.1f} ms/case  {:6.2f} cases/s  overhead {:+.1f}%\n",
             1e3 * halo_plain / double(n), double(n) / halo_plain, 100 * (halo_plain / alone - 1));
  fmt::print("    of which Halide's JIT compile in halo's child process: {:.1f} ms\n", 1e3 * child_compile / double(n));
  fmt::print("  halo --target halide (with the memory check):       {:7.1f} ms/case  {:6.2f} cases/s  overhead {:+.1f}%\n",
             1e3 * halo_checked / double(n), double(n) / halo_checked, 100 * (halo_checked / alone - 1));
  return 0;
}

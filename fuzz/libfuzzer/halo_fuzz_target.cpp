// The libFuzzer-style entry points of `halo fuzz --target self` and `--target halide`
// (docs/fuzzing.md, "Scale out"): LLVMFuzzerTestOneInput decodes any byte string into a
// valid (algorithm, schedule, input) triple — the same generators and the same check as a
// `halo fuzz` campaign — so halo can run on existing distributed fuzzing infrastructure
// (ClusterFuzz, OSS-Fuzz style), which supplies the corpus, the scheduling and the crash
// triage. One source, two binaries (HALO_FUZZ_CASES): `halo_fuzz_target` checks halo's own
// pipeline (the semantics generator, check_self); `halo_fuzz_halide` checks a Halide
// compiler (the Halide generator, fuzz/candidate_campaign.hpp), the version HALO_FUZZ_HALIDE names
// (a major, e.g. 14) or else the newest one built.
//
// Input format (fuzz/case_gen.hpp): bytes 0..31 are the RapidCheck key of the case, byte 32
// its size; shorter inputs are zero-padded, longer ones cut, so every input is a valid
// case. A finding aborts with a report on stderr, as libFuzzer expects of a crash; a case
// stopped by a resource limit is not a finding. `halo fuzz --target self|halide@M
// --fuzzer-input FILE --out DIR` turns a crashing input into a minimized .halo file (and,
// for Halide, its C++ reproducer).
//
// Linked with a fuzzing engine (HALO_FUZZ_ENGINE), the self target puts throughput first:
// an input decoding to a case larger than kFuzzerMaxCaseSize is skipped (returns -1:
// libFuzzer keeps it out of the corpus) and each case runs under fuzzer_case_limits(), a
// tenth of a campaign's. The Halide target's time is Halide's compilation, whatever the
// size, so it runs every size; under an engine Halide gets kEngineHalideSeconds per case,
// below the engine's own per-input timeout, so that a hang is classified by halo. The
// decoding is the campaign's, so a crash input replays as the same case with `halo fuzz
// --fuzzer-input` and with the standalone driver below, which both run every size under
// the campaign's limits.
//
// Built with GCC, the targets link with standalone_main.cpp, a driver that runs the inputs
// named on its command line (libFuzzer's reproduce mode); with clang and
// -DHALO_LIBFUZZER=ON they link with libFuzzer itself (-fsanitize=fuzzer).
#include "fuzz/case_gen.hpp"
#include "fuzz/targets.hpp"
#include "semantics/printer.hpp"
#if HALO_FUZZ_CASES_HALIDE
#include "fuzz/halide_gen.hpp"
#include "candidates/halide/candidate.hpp"
#include "candidates/halide/versions.hpp"
#include "fuzz/candidate_campaign.hpp"
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
#ifdef HALO_FUZZ_ENGINE
constexpr bool kUnderEngine = true;
#else
constexpr bool kUnderEngine = false;
#endif
#if HALO_FUZZ_CASES_HALIDE
// Below .ci/fuzz's -timeout=20, so that Halide's hang is its finding, not the engine's timeout.
constexpr double kEngineHalideSeconds = 15;

halo::CandidateOptions halide_options() {
  using namespace halo::halide;
  const char* env = std::getenv("HALO_FUZZ_HALIDE");
  HalideSelection sel = select_halide_versions(env && *env ? std::string("halide@") + env : "halide");
  if (!sel.error.empty()) {
    std::fprintf(stderr, "halo_fuzz_halide: %s (HALO_FUZZ_HALIDE=%s)\n", sel.error.c_str(), env ? env : "");
    std::exit(2);
  }
  halo::CandidateOptions opt;
  opt.version = std::to_string(sel.majors.front());
  if (kUnderEngine) opt.timeout_seconds = kEngineHalideSeconds;
  return opt;
}

bool skipped(const halo::fuzz::CaseSeed&) { return false; }
halo::Program generate(const halo::fuzz::CaseSeed& seed) {
  return halo::fuzz::generate_halide_case(seed, halo::fuzz::HalideGenWeights{}).value();
}
halo::fuzz::CaseResult check(const halo::Program& prog) {
  static const halo::CandidateOptions opt = halide_options();
  return halo::fuzz::check_candidate_case(halo::halide::halide_candidate(), prog, halo::fuzz::default_case_limits(), opt);
}
#else
// Sizes above this one cost several times more per case under AddressSanitizer (the
// generators' limits grow with the size: fuzz/case_gen.cpp, case_config) and reach few
// features that smaller sizes miss; campaigns (`halo fuzz`) still run every size.
constexpr int kFuzzerMaxCaseSize = 40;

bool skipped(const halo::fuzz::CaseSeed& seed) { return kUnderEngine && seed.size > kFuzzerMaxCaseSize; }
halo::Program generate(const halo::fuzz::CaseSeed& seed) { return halo::fuzz::generate_case(seed).value(); }
halo::fuzz::CaseResult check(const halo::Program& prog) {
  return halo::fuzz::check_self(prog, kUnderEngine ? halo::fuzz::fuzzer_case_limits() : halo::fuzz::default_case_limits());
}
#endif

// HALO_FUZZ_PRINT_CASE=1: print each input's case on stdout instead of checking it, so that
// two builds' decodings can be compared (.ci/fuzz compares clang's with GCC's).
bool print_only() {
  static const bool on = [] {
    const char* env = std::getenv("HALO_FUZZ_PRINT_CASE");
    return env && *env && std::string(env) != "0";
  }();
  return on;
}
}  // namespace

// Under AddressSanitizer every allocation's stack (30 frames by default) is kept for
// reports, once per distinct stack, and a case's deep recursions over generated programs
// make new ones all the time: the process grew by about 1 MB per case (800 cases: 1.2 GB),
// so a long run would end in libFuzzer's out-of-memory stop, not a finding. Five frames
// still place an allocation in halo; the growth falls to a quarter and a case runs twice
// as fast. An engine's own ASAN_OPTIONS still win over this default.
#if defined(__SANITIZE_ADDRESS__)  // GCC
#define HALO_FUZZ_ASAN 1
#elif defined(__has_feature)  // clang
#if __has_feature(address_sanitizer)
#define HALO_FUZZ_ASAN 1
#endif
#endif
#ifdef HALO_FUZZ_ASAN
extern "C" const char* __asan_default_options() { return "malloc_context_size=5"; }
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace halo;
  fuzz::CaseSeed seed = fuzz::decode_case_bytes(data, size);
  if (!print_only() && skipped(seed)) return -1;  // libFuzzer keeps it out of the corpus
  Program prog;
  try {
    prog = generate(seed);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "halo fuzz target: the case generator failed: %s\n", e.what());
    std::abort();
  }
  if (print_only()) {
    std::printf("# case %s\n%s", fuzz::to_hex(fuzz::encode_case_bytes(seed)).c_str(), print_program(prog).c_str());
    return 0;
  }
  fuzz::CaseResult r = check(prog);
  if (!r.is_finding()) return 0;
  std::fprintf(stderr, "halo fuzz target: finding: %s: %s\ncase %s:\n%s", r.kind.c_str(), r.detail.c_str(),
               fuzz::to_hex(fuzz::encode_case_bytes(seed)).c_str(), print_program(prog).c_str());
  std::abort();
}

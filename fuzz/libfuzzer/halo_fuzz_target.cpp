// The libFuzzer-style entry point of `halo fuzz --target self` (docs/fuzzing.md, "Scale
// out"): LLVMFuzzerTestOneInput decodes any byte string into a valid (algorithm, schedule,
// input) triple — the same generators and the same check as a `halo fuzz` campaign — so
// halo can run on existing distributed fuzzing infrastructure (ClusterFuzz, OSS-Fuzz
// style), which supplies the corpus, the scheduling and the crash triage.
//
// Input format (fuzz/case_gen.hpp): bytes 0..31 are the RapidCheck key of the case, byte 32
// its size; shorter inputs are zero-padded, longer ones cut, so every input is a valid
// case. A finding aborts with a report on stderr, as libFuzzer expects of a crash; a case
// stopped by a resource limit is not a finding. `halo fuzz --fuzzer-input FILE --out DIR`
// turns a crashing input into a minimized .halo file.
//
// Linked with a fuzzing engine (HALO_FUZZ_ENGINE), the target puts throughput first: an input
// decoding to a case larger than kFuzzerMaxCaseSize is skipped (returns -1: libFuzzer keeps
// it out of the corpus) and each case runs under fuzzer_case_limits(), a tenth of a
// campaign's. The decoding itself is the campaign's, so a crash input replays as the same
// case with `halo fuzz --fuzzer-input` and with the standalone driver below, which both run
// every size under the campaign's limits.
//
// Built with GCC, the target links with standalone_main.cpp, a driver that runs the inputs
// named on its command line (libFuzzer's reproduce mode); with clang and
// -DHALO_LIBFUZZER=ON it links with libFuzzer itself (-fsanitize=fuzzer).
#include "fuzz/case_gen.hpp"
#include "fuzz/targets.hpp"
#include "semantics/printer.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {
#ifdef HALO_FUZZ_ENGINE
constexpr bool kUnderEngine = true;
#else
constexpr bool kUnderEngine = false;
#endif
// Sizes above this one cost several times more per case under AddressSanitizer (the
// generators' limits grow with the size: fuzz/case_gen.cpp, case_config) and reach few
// features that smaller sizes miss; campaigns (`halo fuzz`) still run every size.
constexpr int kFuzzerMaxCaseSize = 40;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace halo;
  fuzz::CaseSeed seed = fuzz::decode_case_bytes(data, size);
  if (kUnderEngine && seed.size > kFuzzerMaxCaseSize) return -1;
  Program prog;
  try {
    prog = fuzz::generate_case(seed).value();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "halo fuzz target: the case generator failed: %s\n", e.what());
    std::abort();
  }
  fuzz::CaseResult r = fuzz::check_self(prog, kUnderEngine ? fuzz::fuzzer_case_limits() : fuzz::default_case_limits());
  if (!r.is_finding()) return 0;
  std::fprintf(stderr, "halo fuzz target: finding: %s: %s\ncase %s:\n%s", r.kind.c_str(), r.detail.c_str(),
               fuzz::to_hex(fuzz::encode_case_bytes(seed)).c_str(), print_program(prog).c_str());
  std::abort();
}

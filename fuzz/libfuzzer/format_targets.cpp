// libFuzzer entry points for every input format halo reads (docs/fuzzing.md, "Fuzzing
// halo itself"): one binary per format, selected at compile time by HALO_FUZZ_FORMAT.
// Each feeds the bytes to the same reader the CLI uses and accepts exactly the documented
// outcomes: success, InputError (bad input, exit 2) or ResourceLimit (exit 3). Anything
// else — another exception, a crash, a sanitizer report, a hang — is a bug in halo, and
// libFuzzer reports it.
//
//   halo   .halo source: parse, validity (Defs. 2.7-2.10), the schedule's replay
//   tgt    .tgt target program text
//   fill   a hole filling (--fill FILE.json) for the program of thesis §2.2
//   manifest  a `halo kernel` manifest
//   answer    an external bounds engine's answer for the program of thesis §2.2
#include "candidates/engines/engine.hpp"
#include "bounds/extract.hpp"
#include "candidates/kernel/kernel_manifest.hpp"
#include "schedule/schedule.hpp"
#include "support/command_budget.hpp"
#include "support/json_text.hpp"
#include "semantics/parser.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/validity.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#ifndef HALO_FUZZ_FORMAT
#error "define HALO_FUZZ_FORMAT (halo, tgt, fill, manifest, answer)"
#endif

namespace {

#define HALO_STR2(x) #x
#define HALO_STR(x) HALO_STR2(x)
const std::string kFormat = HALO_STR(HALO_FUZZ_FORMAT);

// The program whose holes fills and engine answers name (thesis §2.2, scheduled).
const halo::TgtProgram& thesis_program() {
  static const halo::TgtProgram t = [] {
    halo::Program p = halo::parse_program(
        "pipeline f() {\n  fun g(x) = { x * x + 1 }\n  fun f(x) = { g[x] + g[x + 1] }\n}\n\nrealize () over (0, 6)\n",
        "thesis.halo");
    halo::check_program(p);
    return halo::schedule_pipeline(p);
  }();
  return t;
}

void one_input(const std::string& text) {
  using namespace halo;
  if (kFormat == "halo") {
    Program p = parse_program(text, "fuzz.halo");
    check_program(p);
    schedule_pipeline(p);
  } else if (kFormat == "tgt") {
    parse_tgt(text, "fuzz.tgt");
  } else if (kFormat == "fill") {
    filling_from_json(parse_json_text(text, "fuzz.json"), thesis_program(), "fuzz.json");
  } else if (kFormat == "manifest") {
    parse_kernel_manifest_text(text, "fuzz.json");
  } else if (kFormat == "answer") {
    interpret_engine_answer(text, thesis_program());  // never throws
  } else {
    std::fprintf(stderr, "unknown HALO_FUZZ_FORMAT %s\n", kFormat.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return 0;  // the readers are linear; larger inputs only slow the engine
  // Each input gets a small budget, so a slow path is a limit and not a libFuzzer timeout.
  halo::ScopedCommandBudget budget(halo::CommandLimits{2, uint64_t{64} << 20});
  try {
    one_input(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const halo::InputError&) {
  } catch (const halo::ResourceLimit&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "halo %s fuzz target: unexpected exception (an internal error of halo): %s\n",
                 kFormat.c_str(), e.what());
    std::abort();
  }
  return 0;
}

// Halide behind the candidate interface: see candidate.hpp.
#include "candidates/halide/candidate.hpp"

#include "candidates/halide/plan.hpp"
#include "candidates/halide/versions.hpp"

#include <fmt/format.h>

namespace halo::halide {

namespace {

class HalideCandidate final : public Candidate {
 public:
  std::string name() const override { return "halide"; }
  std::string display_name() const override { return "Halide"; }
  std::vector<CandidateVersion> versions() const override { return halide_candidate_versions(); }
  std::string unavailable_reason() const override {
    return installed_halide_versions().empty()
               ? "no Halide worker is built (install libhalide14-0-dev or run scripts/setup.sh for the PyPI wheels)"
               : "";
  }
  bool has_own_directives() const override { return true; }
  // The worker realizes the pipeline it compiled last for every window of the same program
  // (JitOptions::reuse_key): four windows cost about one compile.
  uint64_t windows_per_program() const override { return 4; }
  // The translation the worker would build: a schedule Halide cannot express, or a value
  // outside the Int(32) model of an untyped program, is said before anything runs.
  void preflight(const Program& prog, const Input& in) const override {
    auto plan = translate_to_halide(prog, in);
    if (const auto* e = std::get_if<TranslationError>(&plan))
      throw InputError(Diagnostic{prog.file, {},
                                  fmt::format("Halide would not run this case as written ({}): {}",
                                              e->not_expressible ? "not_expressible" : "out_of_model", e->message)});
  }
  std::string reproducer_extension() const override { return ".cpp"; }

  CandidateVerdict run_case(const Program& prog, const Input& in, const CandidateOptions& opt) const override {
    HalideVerdict v = run_halide_case(prog, in, halide_options(opt));
    CandidateVerdict c;
    c.candidate = "halide";
    c.version = v.halide_version;
    c.outcome = outcome_name(v.outcome);
    c.phase = v.phase;
    c.finding = v.finding();
    c.declined = v.outcome == HalideOutcome::NotExpressible || v.outcome == HalideOutcome::OutOfModel;
    c.ran = halide_ran(v.outcome);
    c.detail = v.detail;
    c.signature = v.signature;
    c.shrink_kind = shrink_kind(v);
    // A hole in the memory check, counted so that a campaign says how often it opened.
    if (v.mem.unjudged_vector_lanes > 0) c.coverage.push_back("halide:memcheck-unjudged-vector-lanes");
    c.mismatches = v.mismatches;
    for (const PointMismatch& m : v.first_mismatches)
      c.first_mismatches.push_back({m.point, m.expected, m.got.to_string()});
    c.memory_events = v.mem.out_of_bounds_examples;
    c.memory_events.insert(c.memory_events.end(), v.heap_corruption.begin(), v.heap_corruption.end());
    c.record = halide_verdict_to_json(v);
    c.text = describe_halide_verdict(v);
    c.native = std::move(v);
    return c;
  }

  std::string reproducer(const Program& prog, const Input& in, const CandidateVerdict& v,
                         const CandidateOptions& opt) const override {
    return halide_reproducer(prog, in, std::any_cast<const HalideVerdict&>(v.native), halide_options(opt));
  }
};

}  // namespace

const Candidate& halide_candidate() {
  static const HalideCandidate c;
  return c;
}

HalideOptions halide_options(const CandidateOptions& opt) {
  HalideOptions h;
  h.version = opt.version.empty() ? 0 : std::stoi(opt.version);
  h.target = opt.platform;
  h.memcheck = opt.memcheck;
  h.timeout_seconds = opt.timeout_seconds;
  h.max_memory_bytes = opt.max_memory_bytes;
  h.reference_limits = opt.reference_limits;
  h.reuse_process = opt.reuse_process;
  h.formal_refusal = opt.formal_refusal;
  h.relaxed_floats = opt.relaxed_floats;
  return h;
}

std::string shrink_kind(const HalideVerdict& v) {
  std::string base = fmt::format("halide-{}:{}", outcome_name(v.outcome), v.phase);
  switch (v.outcome) {
    case HalideOutcome::WrongOutput:
    case HalideOutcome::MemoryViolation:
    case HalideOutcome::Hang:
    case HalideOutcome::OutOfMemory:
      return base;
    default: {
      // The signature's message part: everything after "OUTCOME:PHASE:".
      size_t colon = v.signature.find(':', v.signature.find(':') + 1);
      return colon == std::string::npos ? base : base + v.signature.substr(colon);
    }
  }
}

}  // namespace halo::halide

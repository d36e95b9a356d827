// TVM behind the candidate interface: see candidate.hpp.
#include "candidates/tvm/candidate.hpp"

#include "candidates/tvm/translate.hpp"
#include "candidates/tvm/tvm_oracle.hpp"
#include "support/diagnostics.hpp"

#include <fmt/format.h>

namespace halo::tvm {

namespace {

TvmOptions tvm_options(const CandidateOptions& opt) {
  TvmOptions t;
  t.version = opt.version;
  t.memcheck = opt.memcheck;
  t.timeout_seconds = opt.timeout_seconds;
  t.max_memory_bytes = opt.max_memory_bytes;
  t.reference_limits = opt.reference_limits;
  return t;
}

class TvmCandidate final : public Candidate {
 public:
  std::string name() const override { return "tvm"; }
  std::string display_name() const override { return "TVM"; }
  std::string reproducer_extension() const override { return ".py"; }
  std::string unavailable_reason() const override { return tvm_unavailable_reason(); }
  bool has_own_directives() const override { return true; }

  std::vector<CandidateVersion> versions() const override {
    std::vector<CandidateVersion> vs;
    for (const TvmVersion& v : installed_tvm_versions()) vs.push_back({v.key, v.version, "pip"});
    return vs;
  }

  void preflight(const Program& prog, const Input& in) const override {
    auto t = translate_to_tvm(prog, in);
    if (const auto* e = std::get_if<TvmTranslationError>(&t))
      throw InputError(Diagnostic{prog.file, {},
                                  fmt::format("TVM would not run this case as written ({}): {}",
                                              e->not_expressible ? "not_expressible" : "out_of_model", e->message)});
  }

  CandidateVerdict run_case(const Program& prog, const Input& in, const CandidateOptions& opt) const override {
    TvmVerdict v = run_tvm_case(prog, in, tvm_options(opt));
    CandidateVerdict c;
    c.candidate = "tvm";
    c.version = v.version;
    c.outcome = v.outcome;
    c.phase = v.phase;
    c.finding = v.finding();
    c.declined = v.declined();
    c.ran = v.ran();
    c.detail = v.detail;
    c.signature = v.signature;
    c.shrink_kind = v.outcome == "wrong_output" || v.outcome == "memory_violation" || v.outcome == "hang"
                        ? "tvm-" + v.outcome
                        : v.signature;
    for (const std::string& p : v.primitives) c.coverage.push_back("tvm:" + p);
    // Why a case did not reach TVM, or why TVM refused it, by the reason's first words: the
    // holes a campaign reports.
    if (v.outcome == "not_expressible" || v.outcome == "refused" || v.outcome == "out_of_model") {
      std::string reason = v.outcome == "refused" ? v.detail.substr(v.detail.find(':') + 1) : v.message;
      reason = reason.substr(0, reason.find_first_of(":(\n"));
      while (!reason.empty() && reason.front() == ' ') reason.erase(reason.begin());
      if (reason.size() > 60) reason.resize(60);
      c.coverage.push_back("tvm:" + v.outcome + ":" + reason);
    }
    c.mismatches = v.mismatches;
    for (const auto& m : v.first_mismatches) {
      std::vector<Value> point;
      for (int64_t x : m.point) point.emplace_back(x);
      c.first_mismatches.push_back({point, m.expected, m.got.display()});
    }
    c.memory_events = v.memory_events;
    c.record = tvm_verdict_to_json(v);
    c.record["verdict"] = verdict_word(c.finding, c.ran);
    c.text = describe_tvm_verdict(v);
    c.native = std::move(v);
    return c;
  }

  std::string reproducer(const Program& prog, const Input& in, const CandidateVerdict& v,
                         const CandidateOptions& opt) const override {
    return tvm_reproducer(prog, in, std::any_cast<const TvmVerdict&>(v.native), tvm_options(opt));
  }
};

}  // namespace

const Candidate& tvm_candidate() {
  static const TvmCandidate c;
  return c;
}

}  // namespace halo::tvm

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
  t.relaxed_floats = opt.relaxed_floats;
  t.reuse_process = opt.reuse_process;
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
      // The reason without the names of the case (f1, <f2, 0, 1, x>), so that counts group.
      std::string reason = v.outcome == "refused" ? v.message : v.message.empty() ? v.phase : v.message;
      reason = reason.substr(0, reason.find_first_of("\n"));
      if (reason.rfind("ScheduleError", 0) == 0) {  // which primitive TVM refused
        size_t at = v.message.find("schedule primitive '");
        reason = at == std::string::npos ? "ScheduleError" : "ScheduleError in " + v.message.substr(at + 20, v.message.find('\'', at + 20) - at - 20);
      }
      std::string words;
      for (size_t at = 0; at < reason.size();) {
        size_t end = reason.find(' ', at);
        std::string w = reason.substr(at, end == std::string::npos ? std::string::npos : end - at);
        bool name = w.size() >= 2 && (w[0] == 'f' || w[0] == '<') && std::isdigit(static_cast<unsigned char>(w[w[0] == '<' ? 2 : 1]));
        if (!w.empty()) words += (words.empty() ? "" : " ") + (name ? std::string("F") : w);
        if (end == std::string::npos) break;
        at = end + 1;
      }
      reason = words.substr(0, words.find_first_of(":("));
      while (!reason.empty() && reason.back() == ' ') reason.pop_back();
      if (reason.size() > 70) reason.resize(70);
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

// Exo behind the candidate interface: see candidate.hpp.
#include "candidates/exo/candidate.hpp"

#include "candidates/exo/exo_kernel.hpp"
#include "support/diagnostics.hpp"
#include "support/run_process.hpp"

#include <mutex>

namespace halo::exo {

namespace {

constexpr const char* kDeclined =
    "halo writes no Exo procedure from a .halo schedule: Exo's cases are Exo scripts, checked with "
    "`halo exo SCRIPT.py PROC --spec FILE.halo` or drawn by `halo fuzz --target exo`";

class ExoCandidate final : public Candidate {
 public:
  std::string name() const override { return "exo"; }
  std::string display_name() const override { return "Exo"; }
  std::string reproducer_extension() const override { return ".py"; }
  std::string unavailable_reason() const override { return exo_unavailable_reason(); }

  // exo-lang's version as the project's .venv has it (asked once: Python takes a second).
  std::vector<CandidateVersion> versions() const override {
    std::call_once(once_, [this] {
      ProcessLimits lim;
      lim.wall_seconds = 60;
      ProcessResult r = run_process(
          {exo_paths().python, "-c", "import importlib.metadata as m; print(m.version('exo-lang'), end='')"}, {}, ".",
          lim, 1 << 12);
      if (r.started && r.exited && r.exit_code == 0 && !r.output.empty()) versions_.push_back({r.output, r.output, "pip"});
    });
    return versions_;
  }

  void preflight(const Program& prog, const Input&) const override {
    throw InputError(Diagnostic{prog.file, {}, std::string("Exo would not run this case: ") + kDeclined});
  }

  CandidateVerdict run_case(const Program& prog, const Input&, const CandidateOptions&) const override {
    CandidateVerdict v;
    v.candidate = "exo";
    auto installed = versions();
    v.version = installed.empty() ? "not installed" : installed.back().version;
    v.outcome = "declined";
    v.declined = true;
    v.detail = kDeclined;
    v.record = {{"target", "exo"}, {"exo_version", v.version}, {"outcome", v.outcome}, {"finding", false},
                {"verdict", verdict_word(v)}, {"detail", v.detail}};
    v.text = "Exo " + v.version + ": declined\n  " + v.detail + "\n";
    return v;
  }

  std::string reproducer(const Program& prog, const Input&, const CandidateVerdict& v,
                         const CandidateOptions&) const override {
    throw InputError(Diagnostic{prog.file, {}, "no Exo reproducer: " + v.detail});
  }

 private:
  mutable std::once_flag once_;
  mutable std::vector<CandidateVersion> versions_;
};

}  // namespace

const Candidate& exo_candidate() {
  static const ExoCandidate c;
  return c;
}

}  // namespace halo::exo

// What every compiler under test provides to halo, and the verdict it reports.
//
// A candidate is a production compiler (Halide in each installed version, Exo, the next
// one) that halo judges against its own semantics. Each lives in one folder of
// candidates/ behind this interface and is registered once (candidates/registry.hpp), so
// that `halo oracle --target`, `halo fuzz --target`, the reproducers, the triage of
// findings and the version matrix treat every candidate alike; what is specific to one
// compiler or one of its versions stays in its folder.
//
// The interface follows the life of one case (P, z): translate it or decline with a
// reason, build it with the candidate, run it on z under limits, compare its outputs and
// memory events with halo's reference (Theorems 2.1 and 2.2 via Def. 2.3), classify how it
// ended, and write a standalone reproducer for a compiler engineer. A candidate that
// crashes, hangs or aborts is an outcome of its verdict, never a crash of halo.
#pragma once

#include "interp/input.hpp"
#include "semantics/ast.hpp"

#include <nlohmann/json.hpp>

#include <any>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace halo {

// One installed version of a candidate.
struct CandidateVersion {
  std::string key;      // what `--target NAME@KEY` names ("21")
  std::string version;  // the full version ("21.0.0")
  std::string origin;   // where it comes from ("debian", "pip")
};

// How a candidate runs one case. A candidate ignores what it has no use for.
struct CandidateOptions {
  std::string version;              // a CandidateVersion::key; "" = the newest installed
  std::string platform = "host";    // what to compile for (Halide: a target string)
  bool memcheck = true;             // also check every load and store, where the candidate can
  double timeout_seconds = 60;      // compiling and running one case
  uint64_t max_memory_bytes = 4ull << 30;
  Limits reference_limits;          // halo's own reference evaluation
  bool reuse_process = true;        // serve many cases from one warm process, where the candidate has one
  // halo's rules refuse the schedule a Halide call made by itself (a swap of Halide's fuse
  // of loops that are not adjacent): the refusal, with its location. The candidate runs the
  // schedule as written anyway: it must refuse it too, or compute the reference (Halide's
  // promise for every schedule it accepts). Empty: the schedule passed halo's rules.
  std::string formal_refusal;
  // Halide: judge float outputs in the relaxed float mode (docs/floats.md), not bit for bit.
  bool relaxed_floats = false;
};

// How one case ended for a candidate.
struct CandidateVerdict {
  std::string candidate;    // the registered name ("halide")
  std::string version;      // the full version that ran ("21.0.0")
  std::string outcome;      // the candidate's word for how it ended ("pass", "wrong_output", ...)
  std::string phase;        // where it ended (build, compile, run, ...); "" when nothing ran
  bool finding = false;     // a theorem violated or a divergence from halo's reference
  bool declined = false;    // the candidate cannot express the case; `detail` says why
  bool ran = false;         // the candidate compiled the case and ran it on z
  std::string detail;       // what happened, in a paragraph for people
  std::string signature;    // the same for two cases that fail the same way (triage)
  std::string shrink_kind;  // what shrinking a finding must preserve
  std::vector<std::string> coverage;  // further outcome tags a campaign counts ("halide:...")
  // What the run showed, when the candidate ran: the output points whose values differ
  // from halo's reference (Theorem 2.2), and the accesses outside the regions it realized
  // or the heap damage it did (Theorem 2.1).
  struct Mismatch {
    std::vector<Value> point;
    Value expected;
    std::string actual;
  };
  uint64_t mismatches = 0;
  std::vector<Mismatch> first_mismatches;
  std::vector<std::string> memory_events;
  nlohmann::json record;    // the whole verdict as JSON (`halo oracle --json`)
  std::string text;         // the whole verdict for people (`halo oracle`)
  std::any native;          // the candidate's own verdict, for its reproducer
};

class Candidate {
 public:
  virtual ~Candidate() = default;
  virtual std::string name() const = 0;          // "halide": what --target names
  virtual std::string display_name() const = 0;  // "Halide": the column of the version matrix
  // The installed versions, oldest first; empty when none can run here.
  virtual std::vector<CandidateVersion> versions() const = 0;
  // Empty when the candidate can run here; otherwise what is missing and how to install it.
  virtual std::string unavailable_reason() const = 0;
  // Translates (P, z), builds, runs and judges it. Throws ResourceLimit when halo's own
  // reference exceeds opt.reference_limits; everything the candidate does is an outcome.
  virtual CandidateVerdict run_case(const Program& prog, const Input& in, const CandidateOptions& opt) const = 0;
  // The standalone program that rebuilds the case with this candidate and prints its values
  // beside halo's expected ones, for an upstream report. Throws InputError when there is
  // none to write (a declined case).
  virtual std::string reproducer(const Program& prog, const Input& in, const CandidateVerdict& v,
                                 const CandidateOptions& opt) const = 0;
  virtual std::string reproducer_extension() const = 0;  // ".cpp"
  // Whether the candidate has scheduling directives of its own beyond fig. 2.11 (halo's
  // lowering refuses them; only the candidate runs them).
  virtual bool has_own_directives() const { return false; }
  // How many output windows a campaign runs each program on by default (fuzz --windows):
  // more than one when consecutive cases that differ only in their window share one compile.
  virtual uint64_t windows_per_program() const { return 1; }
  // What `halo check --target NAME` checks beyond halo's own rules, without running the
  // candidate: throws InputError when the candidate could not run (P, z) as written.
  virtual void preflight(const Program& prog, const Input& in) const {}
};

// The relaxed float mode (CandidateOptions::relaxed_floats; docs/floats.md): a float output
// agrees within |got - want| <= absolute + relative * |want| in its precision (Float(32):
// 1e-6 and 1e-4; Float(64): 1e-12 and 1e-9), and anything agrees at a point whose reference
// is NaN or infinite (fast-math assumes there are none).
struct RelaxedFloatTolerance {
  double absolute, relative;
};
RelaxedFloatTolerance relaxed_float_tolerance(Type t);
bool relaxed_agree(Type t, const Value& want, const Value& got);

// A verdict is earned: "violated" on a finding, "holds" when the candidate ran the case and
// agreed, "not_run" when it never ran it (outside its model, not expressible in it, halo's
// reference already an error) and found nothing, which is no verdict on the candidate.
const char* verdict_word(bool finding, bool ran);
inline const char* verdict_word(const CandidateVerdict& v) { return verdict_word(v.finding, v.ran); }

// `--target NAME`, `NAME@KEY` or `NAME@all` resolved against a candidate's installed
// versions: the keys to run (newest for NAME), or an error naming the installed ones.
struct VersionSelection {
  std::vector<std::string> keys;
  bool all = false;
  std::string error;
};
VersionSelection select_versions(const std::string& name, const std::string& display_name,
                                 const std::vector<CandidateVersion>& installed, const std::string& target);

// The verdict over several versions: violated when one found something, holds only when
// every version ran and agreed, not_run otherwise; and the versions that did not run.
const char* matrix_verdict_word(const std::vector<CandidateVerdict>& verdicts);
std::vector<std::string> versions_not_run(const std::vector<CandidateVerdict>& verdicts);

// `halo oracle --target NAME@all`: one row per version (version, outcome, phase, what
// happened), the signature of every finding, and the overall verdict.
std::string version_matrix_text(const std::string& display_name, const std::vector<CandidateVerdict>& verdicts);

// A finding's history: (version, outcome) in version order → "wrong_output in 14.0.0 and
// 19.0.0; pass in 21.0.0".
std::string version_history_text(const std::vector<std::pair<std::string, std::string>>& outcomes);

}  // namespace halo

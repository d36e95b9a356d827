// `halo fuzz --target NAME` for every registered candidate: its flags, and the campaign
// that draws cases with the candidate's generator and judges them (docs/fuzzing.md). Kept
// apart from the oracle's flags (tools/cmd_halide.cpp) because it needs the generators of
// fuzz/, which the browser build of the playground leaves out (docs/playground.md).
#include "tools/cmd_candidate_fuzz.hpp"

#include "candidates/registry.hpp"
#include "fuzz/candidate_campaign.hpp"
#include "fuzz/expr_gen.hpp"
#include "fuzz/halide_gen.hpp"
#include "fuzz/tvm_gen.hpp"

#include <fmt/format.h>

namespace halo::cli {

int expr_float_percent(const std::vector<std::string>& weights) {
  int percent = 0;
  for (const std::string& w : weights) {
    fuzz::HalideGenWeights parsed;  // the same NAME=PERCENT syntax and checks
    parsed.set(w);
    if (w.rfind("float=", 0) != 0)
      throw InputError(Diagnostic{"--weight", {}, fmt::format("'{}': the expr generator's only weight is float=PERCENT", w)});
    percent = parsed["float"];
  }
  return percent;
}

void add_halide_fuzz_flags(CLI::App* fuzz, const std::string& target, HalideFuzzFlags& f) {
  fuzz->add_option("--halide-target", f.halide_target,
                   "with --target halide: the Halide target string to JIT-compile for (host = the machine)")
      ->capture_default_str();
  fuzz->add_flag("--no-memcheck", f.no_memcheck,
                 "with --target halide: skip the traced run that checks every load and store of every func");
  fuzz->add_option("--float-mode", f.float_mode,
                   "with --target halide: how a float output is judged: strict (compiled with strict_float, compared bit for "
                   "bit) or relaxed (Halide's default fast-math, compared within a tolerance; docs/floats.md)")
      ->check(CLI::IsMember({"strict", "relaxed"}))
      ->capture_default_str();
  fuzz->add_option("--halide-timeout", f.halide_timeout,
                   "with --target halide: seconds Halide may take to compile and run one case (more is a hang; "
                   "`halo oracle` waits 60 s, a campaign 10 s by default)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  fuzz->add_flag("--triage", f.triage,
                 "with --target halide: group the findings by failure signature, one representative each");
  fuzz->add_option("--generator", f.generator,
                   "the cases drawn: halide (stencil chains over x, y with the schedules where Halide's "
                   "miscompilations live; docs/fuzzing.md; --target halide only), expr (one random typed expression "
                   "over typed input lanes, scalar or vectorized; docs/types.md), semantics (the default of "
                   "--target self) or tvm (Halide-style programs with TVM's schedule primitives, docs/tvm.md; the "
                   "default of --target tvm)")
      ->check(CLI::IsMember({"halide", "expr", "semantics", "tvm"}))
      ->each([&f](const std::string&) { f.generator_given = true; })
      ->capture_default_str();
  fuzz->add_option("--weight", f.weights,
                   "with --target halide: NAME=PERCENT, how often the halide generator draws a pattern (repeatable; "
                   "the names and defaults are in docs/fuzzing.md); with --target exo: NAME=WEIGHT (0..100) of a "
                   "family or a scheduling primitive, relative to the others (docs/kernels.md)");
  check_halide_flags(fuzz, target, f.halide_target,
                     {"--halide-target", "--no-memcheck", "--halide-timeout", "--triage", "--generator", "--weight",
                      "--float-mode"});
}

void use_candidate_target(const std::string& target, const HalideFuzzFlags& f, const std::string& findings_dir,
                          CampaignCommand& c) {
  CandidateTarget t = resolve_candidate_target(target);
  if (!t.selection.error.empty()) throw InputError(Diagnostic{"--target", {}, t.selection.error});
  if (t.selection.all || t.selection.keys.size() != 1)
    throw InputError(Diagnostic{"", {}, "a campaign runs against one version (--target NAME or NAME@V); "
                                        "each finding is then re-run on every installed version"});
  const Candidate* candidate = t.candidate;
  CandidateOptions opt = candidate_options(f.halide_target, f.no_memcheck, f.halide_timeout, f.float_mode);
  opt.version = t.selection.keys.front();
  std::string version;
  for (const CandidateVersion& v : candidate->versions())
    if (v.key == opt.version) version = v.version;
  c.reproduce = "halo oracle {file} --target " + target +
                (f.halide_target == "host" ? std::string() : " --halide-target " + f.halide_target) + "  (or run the " +
                candidate->reproducer_extension() + " file next to it)";
  c.check = [candidate, opt](const Program& p, const Limits& lim) {
    return fuzz::check_candidate_case(*candidate, p, lim, opt);
  };
  // A failure of the plain run (compile, bounds query, run) is shrunk without the memory
  // check's traced compile: half the compiles per candidate. complete_finding then checks
  // the minimized case whole, on every version.
  c.shrink_check = [candidate, opt](const fuzz::CaseResult& found) {
    CandidateOptions o = opt;
    if (found.kind.find(":memcheck_") == std::string::npos) o.memcheck = false;
    return std::function<fuzz::CaseResult(const Program&, const Limits&)>(
        [candidate, o](const Program& p, const Limits& lim) { return fuzz::check_candidate_case(*candidate, p, lim, o); });
  };
  c.candidate_directives = candidate->has_own_directives();
  c.windows = candidate->windows_per_program();
  c.record_extra[candidate->name() + "_target"] = f.halide_target;
  c.record_extra[candidate->name() + "_version"] = version;
  std::string generator = f.generator;
  if (candidate->name() == "tvm" && generator == "halide" && !f.generator_given) generator = "tvm";
  if (generator == "tvm") {
    fuzz::TvmGenWeights weights;
    for (const std::string& w : f.weights) weights.set(w);
    c.generator = [weights](const fuzz::CaseSeed& s) { return fuzz::generate_tvm_case(s, weights); };
    c.record_extra["generator"] = {{"name", "tvm"}, {"weights", weights.to_json()}};
  } else if (generator == "halide") {
    fuzz::HalideGenWeights weights;
    for (const std::string& w : f.weights) weights.set(w);
    c.generator = [weights](const fuzz::CaseSeed& s) { return fuzz::generate_halide_case(s, weights); };
    c.record_extra["generator"] = {{"name", "halide"}, {"weights", weights.to_json()}};
  } else if (generator == "expr") {
    int floats = expr_float_percent(f.weights);
    c.generator = [floats](const fuzz::CaseSeed& s) { return fuzz::generate_expr_case(s, floats); };
    c.record_extra["generator"] = {{"name", "expr"}, {"weights", {{"float", floats}}}};
  } else if (!f.weights.empty()) {
    throw InputError(Diagnostic{"--weight", {}, "weights are the halide and expr generators' (--generator halide|expr)"});
  } else {
    c.record_extra["generator"] = {{"name", "semantics"}};
  }
  bool triage = f.triage;
  c.complete_record_keys = {"signature"};  // written by complete_candidate_finding
  c.complete_finding = [candidate, opt](fuzz::FindingReport& f, const std::function<bool()>& stop) {
    fuzz::complete_candidate_finding(f, *candidate, opt, stop);
  };
  c.finish = [triage, findings_dir](fuzz::CampaignSummary& s, nlohmann::json& json, std::string& text) {
    nlohmann::json groups = fuzz::group_candidate_findings(s, triage, text);
    if (!triage) return;
    json["triage"] = groups;
    // Campaigns sharing the directory (other processes, shards, seeds or versions):
    // their findings deduplicated by signature with this one's.
    if (!findings_dir.empty()) json["triage_directory"] = fuzz::triage_findings_directory(findings_dir, text);
  };
}

}  // namespace halo::cli

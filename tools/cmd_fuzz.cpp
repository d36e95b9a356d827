// `halo fuzz`: property-based fuzzing campaigns of halo against its own semantics
// (issue "fuzzing campaigns"; docs/fuzzing.md). Generated valid (algorithm, schedule,
// input) triples are lowered, scheduled, completed by β0 and run on the small-step
// machine, and judged against the big-step reference and the dynamic query check
// (fuzz/targets.hpp); every finding is shrunk and written as a self-contained .halo file.
#include "tools/campaign_cli.hpp"
#include "fuzz/expr_gen.hpp"
#include "tools/cmd_candidate_fuzz.hpp"
#include "tools/commands.hpp"

#include <memory>

namespace halo::cli {

Subcommand register_fuzz(CLI::App& app) {
  struct Options {
    std::string target = "self";
    CampaignCliOptions campaign;
    HalideFuzzFlags halide;  // --target halide (tools/cmd_candidate_fuzz.cpp)
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "fuzz", "run a fuzzing campaign: random valid programs, schedules and inputs, checked by the oracle");
  cmd->add_option("--target", o->target,
                  "what to fuzz: self (lowering, scheduling, β0 and the small-step machine against the big-step "
                  "reference and the bounds query); halide (the newest Halide installed) or halide@M (Halide major "
                  "version M), docs/halide.md; exo (the Exo compiler from the project's .venv, docs/kernels.md)")
      ->check(self_or_candidate("self|halide[@M]|exo|tvm[@V]"))
      ->capture_default_str();
  add_campaign_options(cmd, o->campaign);
  add_halide_fuzz_flags(cmd, o->target, o->halide);
  for (const char* name : {"--target", "--halide-target", "--no-memcheck", "--halide-timeout", "--generator", "--weight",
                           "--float-mode"})
    o->campaign.identity_options.push_back(name);
  return {cmd, [o](std::ostream& out, std::ostream& err) {
            resume_recorded_campaign(o->campaign, "fuzz");  // restores --target and the rest of the record
            if (o->target == "exo" || o->target.rfind("exo@", 0) == 0) return run_exo_fuzz(o->campaign, o->halide.weights, out, err);  // tools/cmd_exo_fuzz.cpp
            CampaignCommand c;
            c.name = "fuzz";
            c.target = o->target;
            c.reproduce = "halo fuzz --target self --replay {file}";
            c.check = [](const Program& p, const Limits& lim) { return fuzz::check_self(p, lim); };
            if (o->target == "self" && o->halide.generator == "expr") {  // typed cases through halo's own pipeline
              int floats = expr_float_percent(o->halide.weights);
              c.generator = [floats](const fuzz::CaseSeed& s) { return fuzz::generate_expr_case(s, floats); };
              c.record_extra["generator"] = {{"name", "expr"}, {"weights", {{"float", floats}}}};
            }
            if (o->target != "self")
              use_candidate_target(o->target, o->halide,
                                o->campaign.resume_dir.empty() ? o->campaign.out_dir : o->campaign.resume_dir, c);
            return run_campaign_command(o->campaign, c, out, err);
          }};
}

}  // namespace halo::cli

// `halo comply --engine CMD`: a campaign that holds an external bounds engine to the
// bounds-quality constraint of Def. 2.5 (wherever β0's completion computes P(z) without
// failing an assertion, the engine's must too) and to Theorems 2.1 and 2.2, on generated
// valid cases (oracle/quality.hpp; docs/fuzzing.md, docs/bounds-engines.md). Each
// violation is shrunk to a minimal case, replayable with `halo oracle FILE --engine CMD`.
#include "tools/campaign_cli.hpp"
#include "tools/commands.hpp"

#include <memory>

namespace halo::cli {

Subcommand register_comply(CLI::App& app) {
  struct Options {
    std::string engine;
    double engine_timeout = 10;
    CampaignCliOptions campaign;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "comply", "check an external bounds engine against β0 (Def. 2.5) and Theorems 2.1, 2.2 on generated cases");
  cmd->add_option("--engine", o->engine,
                  "the engine: a command reading the bounds query (JSON) on stdin and writing the hole "
                  "substitution (JSON) on stdout (docs/bounds-engines.md); required unless --resume restores it");
  cmd->add_option("--engine-timeout", o->engine_timeout, "seconds the engine may take per case")->check(seconds_value())->capture_default_str();
  add_campaign_options(cmd, o->campaign);
  for (const char* name : {"--engine", "--engine-timeout"}) o->campaign.identity_options.push_back(name);
  return {cmd, [o](std::ostream& out, std::ostream& err) {
            resume_recorded_campaign(o->campaign, "comply");  // restores --engine and the rest of the record
            if (o->engine.empty()) throw InputError(Diagnostic{"--engine", {}, "halo comply needs --engine CMD, the bounds engine to check (or --resume DIR of a comply campaign)"});
            CampaignCommand c;
            c.name = "comply";
            c.target = "engine";
            std::string quoted = "'";
            for (char ch : o->engine) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
            quoted += "'";
            c.reproduce = "halo oracle {file} --engine " + quoted;
            c.record_extra = {{"engine", o->engine}};
            std::string engine = o->engine;
            double seconds = o->engine_timeout;
            c.check = [engine, seconds](const Program& p, const Limits& lim) {
              return fuzz::check_engine_case(p, lim, engine, seconds);
            };
            return run_campaign_command(o->campaign, c, out, err);
          }};
}

}  // namespace halo::cli

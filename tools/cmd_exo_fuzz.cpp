// `halo fuzz --target exo` on the command line: the options, the progress line and the
// summary of the Exo campaign (fuzz/exo_campaign.hpp).
#include "candidates/exo/exo_kernel.hpp"
#include "fuzz/exo_campaign.hpp"
#include "support/diagnostics.hpp"
#include "tools/campaign_cli.hpp"
#include "tools/commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

namespace halo::cli {

int run_exo_fuzz(const CampaignCliOptions& opt, const std::vector<std::string>& weights, std::ostream& out,
                 std::ostream& err) {
  if (!opt.replay.empty() || !opt.fuzzer_inputs.empty())
    throw InputError(Diagnostic{"<command line>", {}, "--target exo replays a finding with `halo exo SCRIPT.py "
                                                      "scheduled --spec SPEC.halo` (the command is in the script)"});
  // The flags first (a bad --shard, a --resume folder without a campaign: resume_recorded_campaign
  // has run), then whether Exo is there: the flag handling is the same on every machine.
  auto [shard, shards] = parse_shard(opt.shard);
  fuzz::ExoCampaignOptions o;
  o.seed = opt.seed;
  o.cases = opt.cases ? opt.cases : (opt.seconds > 0 ? 0 : 1000);
  o.seconds = opt.seconds;
  o.shard = shard;
  o.shards = shards;
  o.out_dir = opt.out_dir;
  o.max_findings = opt.max_findings;
  o.shrink_tries = opt.shrink_tries;
  o.shrink_seconds = opt.shrink_seconds;
  for (const std::string& w : weights) o.weights.set(w);
  o.identity = campaign_identity(opt, o.cases);
  if (!opt.resumed_record.is_null()) {
    o.resume = true;
    o.first_case = opt.resumed_record["next_case"].get<uint64_t>();
    o.out_dir = opt.resume_dir;
    o.progress_path = opt.resumed_path;
    if (opt.resumed_record.contains("options")) o.identity = opt.resumed_record["options"];
    if (opt.resumed_record.value("finished", false)) o.cases = o.first_case;  // nothing left in this shard
  }
  // Exo itself takes seconds per case (several on a loaded machine): its own deadline, and the
  // kernel's, are generous; a case that still runs out of time is a limit, not a finding.
  o.timeout = std::max(120.0, opt.case_timeout);
  std::string missing = exo_unavailable_reason();
  if (!missing.empty()) throw InputError(Diagnostic{"<command line>", {}, "--target exo: " + missing});
  std::exception_ptr write_failure;
  nlohmann::json summary;
  with_campaign_progress("halo fuzz --target exo", err, [&](const fuzz::ProgressFn& progress, const std::function<bool()>& stop) {
    summary = fuzz::run_exo_campaign(o, progress, stop, &write_failure);
  });
  if (summary["interrupted"].get<bool>())
    err << fmt::format("halo fuzz: interrupted; {} finding(s) kept\n", summary["findings"].size());
  if (opt.json) {
    out << summary.dump() << "\n";
  } else {
    double secs = summary["seconds"].get<double>();
    uint64_t ran = summary["cases"].get<uint64_t>();
    out << fmt::format("exo campaign (seed {}, shard {}/{}): {} cases in {:.1f} s ({:.2f} cases/s)\n", o.seed, shard,
                       shards, ran, secs, secs > 0 ? double(ran) / secs : 0.0);
    for (const auto& [k, n] : summary["outcomes"].items()) out << fmt::format("  {:<14} {}\n", k, n.get<uint64_t>());
    if (!summary["coverage"].empty()) {
      out << "coverage of the program family's primitives (drawn: applied / rejected / nowhere to apply / crashed):\n";
      for (const auto& [prim, c] : summary["coverage"].items())
        out << fmt::format("  {:<24} {:>5}: {:>5} / {:>5} / {:>5} / {:>3}\n", prim, c["drawn"].get<uint64_t>(),
                           c["applied"].get<uint64_t>(), c["rejected"].get<uint64_t>(), c["skipped"].get<uint64_t>(),
                           c["crashed"].get<uint64_t>());
    }
    for (const auto& f : summary["findings"]) {
      out << fmt::format("finding ({}): {}\n", f["kind"].get<std::string>(), f["detail"].get<std::string>());
      if (f.contains("script_text"))
        out << "  the minimized script (write it with --out DIR):\n"
            << f["script_text"].get<std::string>() << "  its spec:\n"
            << f["spec_text"].get<std::string>();
      else
        out << fmt::format("  re-run: {}{}\n", f["reproduce"].get<std::string>(),
                           f.contains("reproducer") ? "; standalone: python3 " + f["reproducer"].get<std::string>()
                                                    : std::string());
    }
  }
  if (write_failure) {
    out << std::flush;
    err << fmt::format("halo fuzz: stopped: a file of the campaign could not be written; every finding listed is on "
                       "disk complete, and --resume {} redoes the case that failed\n",
                       o.out_dir);
    std::rethrow_exception(write_failure);
  }
  return summary["findings"].empty() ? kExitOk : kExitFinding;
}

}  // namespace halo::cli

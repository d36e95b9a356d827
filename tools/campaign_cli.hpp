// The command-line side of a fuzzing campaign, shared by `halo fuzz` (tools/cmd_fuzz.cpp)
// and `halo comply` (tools/cmd_comply.cpp): the options both take (--cases, --time, --seed,
// --out, --json, --shard, shrink budget, per-case limits, --replay), Ctrl-C handling, the
// progress line on a terminal, and the summary in text or JSON (docs/fuzzing.md).
#pragma once

#include "fuzz/campaign.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace halo::cli {

struct CampaignCliOptions {
  uint64_t cases = 0;
  double seconds = 0;
  uint64_t seed = 1;
  std::string out_dir;
  bool json = false;
  std::string shard = "0/1";
  uint64_t max_findings = 0;
  int shrink_tries = fuzz::ShrinkBudget{}.max_tries;
  double shrink_seconds = fuzz::ShrinkBudget{}.max_seconds;
  int minimize_per_signature = fuzz::ShrinkBudget{}.per_signature;
  uint64_t max_steps = fuzz::default_case_limits().max_steps;
  double case_timeout = fuzz::default_case_limits().max_seconds;
  std::vector<std::string> replay;
  bool shrink = false;                     // --replay FILE --shrink: minimize each replayed finding again
  std::vector<std::string> fuzzer_inputs;  // libFuzzer inputs to run as the campaign's cases
  std::string resume_dir;                  // --resume DIR
  int jobs = 0;                            // --jobs N (0: every core)
  uint64_t windows = 0;                    // --windows N (0: the command's default, CampaignCommand::windows)
  // The command the options belong to, and the names of its options that make a campaign
  // this one (seed, cases, shard, shrink budget, limits, and the command's own: target,
  // engine, generator...): recorded in the progress file, restored by --resume.
  CLI::App* app = nullptr;
  std::vector<std::string> identity_options;
  nlohmann::json resumed_record;  // --resume: the progress record continued (null otherwise)
  std::string resumed_path;       // ... and its file, which the continuation goes on writing
};

// Adds the campaign options to `cmd`; `o` must outlive the parse and the action.
void add_campaign_options(CLI::App* cmd, CampaignCliOptions& o);

// --resume DIR, first thing in a command's action: finds the campaign recorded in DIR that
// the options given explicitly select (refusing, with exit 2, none or several), refuses an
// option given explicitly that contradicts the record (naming both values), and sets every
// other recorded option to its recorded value, so that the action continues the recorded
// campaign. `command` is "fuzz" or "comply". Does nothing without --resume.
void resume_recorded_campaign(CampaignCliOptions& o, const std::string& command);

// The recorded options of the campaign the options describe (its identity).
nlohmann::json campaign_identity(const CampaignCliOptions& o, uint64_t effective_cases);

// The progress line of a campaign on a terminal: counts, speed, and the case a job has been
// on longest when that is more than a moment ("case 57 running for 12 s").
std::string progress_line(const std::string& command, const fuzz::CampaignProgress& p);
// Runs a campaign's `body` as every campaign command runs: Ctrl-C becomes a stop request
// (`stop` says when; a second Ctrl-C kills the candidates and halo), and for a person
// watching (stderr a terminal) the progress line is redrawn every quarter second from the
// newest report, so a long case or shrink never looks frozen.
void with_campaign_progress(const std::string& name, std::ostream& err,
                            const std::function<void(const fuzz::ProgressFn& progress, const std::function<bool()>& stop)>& body);

// --shard I/N as numbers (InputError when malformed).
std::pair<uint64_t, uint64_t> parse_shard(const std::string& s);

struct CampaignCommand {
  std::string name;       // "fuzz" or "comply", for messages
  std::string target;     // the findings' target name ("self", "engine")
  std::string reproduce;  // how to replay a finding ("{file}" is its path)
  nlohmann::json record_extra = nlohmann::json::object();
  std::function<fuzz::CaseResult(const Program&, const Limits&)> check;
  // Optional: the check for a finding's shrinking candidates (fuzz::CampaignOptions::shrink_check).
  std::function<std::function<fuzz::CaseResult(const Program&, const Limits&)>(const fuzz::CaseResult&)> shrink_check;
  // The cases (empty: fuzz::generate_case, the semantics generator).
  std::function<rc::Shrinkable<Program>(const fuzz::CaseSeed&)> generator;
  // The candidate judges directives outside fig. 2.11 (Halide's own): a replayed file's
  // schedule is checked with schedule_formal_part, not schedule_pipeline.
  bool candidate_directives = false;
  // Optional, run on the finished campaign before its summary is printed: a target may add
  // keys to the JSON summary (`json`) and lines to the text summary (`text`), such as its
  // triage; the work per finding belongs in complete_finding, which --time bounds.
  std::function<void(fuzz::CampaignSummary& s, nlohmann::json& json, std::string& text)> finish;
  // Optional, run on each finding as soon as it is filed (fuzz::CampaignOptions::complete_finding):
  // a candidate's version history, signature and reproducer.
  std::function<void(fuzz::FindingReport&, const std::function<bool()>& stop)> complete_finding;
  // Keys `complete_finding` adds to every finding's record: a record without them was left
  // by a killed or timed-out campaign, and --resume redoes its case (fuzz::CampaignOptions).
  std::vector<std::string> complete_record_keys;
  // Output windows per program unless --windows says (fuzz::CampaignOptions::windows): more
  // than one where the candidate compiles a program once for all of them.
  uint64_t windows = 1;
};

// Runs the campaign (or, with --replay, checks the given files), prints the summary on
// `out` and progress on `err` (when it is a terminal), and returns the exit status: 0 no
// finding, 1 findings. Ctrl-C stops the campaign after the current case, keeping findings.
int run_campaign_command(const CampaignCliOptions& o, const CampaignCommand& c, std::ostream& out, std::ostream& err);

// `halo fuzz --target exo` (tools/cmd_exo_fuzz.cpp): its own loop over Exo kernel cases,
// with the same options, summary style and exit status.
int run_exo_fuzz(const CampaignCliOptions& o, const std::vector<std::string>& weights, std::ostream& out,
                 std::ostream& err);

}  // namespace halo::cli

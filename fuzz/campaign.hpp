// A fuzzing campaign: cases from seeds (case_gen.hpp), a check per case (targets.hpp),
// shrinking of each finding to a minimal case that fails the same way, and findings written
// as self-contained `.halo` files with a JSON record. `halo fuzz` and `halo comply` are thin
// command-line wrappers around run_campaign (tools/campaign_cli.cpp).
//
// Determinism: case k of seed S is the same on every machine and in every shard; a
// campaign split with --shard i/n runs the cases k ≡ i (mod n), so the n shards together run
// exactly the unsharded campaign. Shrinking is deterministic too (it walks the case's
// RapidCheck shrink tree in order), so the same finding minimizes to the same file, up to
// the shrink budget when it is measured in seconds.
#pragma once

#include "fuzz/case_gen.hpp"
#include "fuzz/coverage.hpp"
#include "fuzz/targets.hpp"
#include "support/output_file.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace halo::fuzz {

struct ShrinkBudget {
  int max_tries = 1000;      // candidate cases checked
  double max_seconds = 20;   // wall clock
  // Findings of one candidate signature minimized per process (0: every one). A campaign
  // meets the same failure again and again; minimizing each (up to max_seconds) was most of
  // a campaign's time. Later ones are filed as generated, saying which cases were minimized.
  int per_signature = 2;
};

struct Minimized {
  Program program;
  CaseResult result;
  int steps = 0;  // smaller cases adopted
  int tries = 0;  // candidates checked
};

// Greedy shrinking: walks the shrink tree of `start` (which fails as `failure`), adopting
// the first smaller case that fails with the same kind, until none does or the budget is
// spent; then reduces the program structurally (fuzz/reduce.hpp) the same way. `stop` ends
// it early (the best case so far is kept).
Minimized minimize(const rc::Shrinkable<Program>& start, const CaseResult& failure, const CaseCheck& check,
                   const ShrinkBudget& budget, const std::function<bool()>& stop = {});

struct FindingReport;

struct CampaignOptions {
  std::string target = "self";  // names the findings and the record
  uint64_t seed = 1;
  uint64_t cases = 0;           // case indices 0..cases-1 (0: no bound; then `seconds` must be set)
  // Each program drawn is run on this many output windows: the one drawn, then others of
  // the case's key (case_window), as long as it passes. A compiler under test compiles a
  // pipeline once for all of them, as its users do (a Halide JIT pipeline realizes any
  // output buffer): more cases per second where the compile is the cost.
  uint64_t windows = 1;
  double seconds = 0;           // stop starting new cases after this long (0: no limit)
  uint64_t shard = 0, shards = 1;
  std::string out_dir;          // where findings go ("": not written)
  uint64_t max_findings = 0;    // stop after this many distinct findings (0: no limit)
  ShrinkBudget shrink;
  std::string reproduce;        // how to replay a finding; "{file}" is replaced by its path
  // When not empty: exactly these cases (for instance decoded libFuzzer inputs), case k
  // being inputs[k], instead of the seed's; `cases` and `seconds` still bound the run.
  std::vector<CaseSeed> inputs;
  nlohmann::json record_extra = nlohmann::json::object();  // added to every finding's record
  // The check a finding's shrinking candidates get, given the finding (empty: the
  // campaign's own check). A candidate re-runs only what the finding needs: a failure of
  // Halide's plain run is shrunk without the traced run's second compile (the minimized
  // case is then checked whole when its finding is completed).
  std::function<CaseCheck(const CaseResult& found)> shrink_check;
  // The cases: case k is generator(campaign_case(seed, k)) (empty: generate_case).
  std::function<rc::Shrinkable<Program>(const CaseSeed&)> generator;
  // Resuming (--resume DIR): start at the first case of the shard at or after this one,
  // after rebuilding the duplicate detection from the findings of the earlier cases on disk
  // and redoing every earlier case whose finding is incomplete there (killed mid-write).
  bool resume = false;
  uint64_t first_case = 0;
  // What, besides target, seed and shard, makes this campaign this one (the options that
  // decide its cases and findings, as given on the command line): recorded in its progress
  // file, whose name it keys, so that campaigns sharing an output directory keep apart.
  nlohmann::json identity = nlohmann::json::object();
  // The progress file to write ("": campaign_progress_path); --resume keeps the one it read.
  std::string progress_path;
  // Keys a finding's JSON record must have to be complete (a target that adds keys after the
  // campaign, such as a candidate's "signature"); a record without them is redone on resume.
  std::vector<std::string> complete_record_keys;
  // What a target adds to each finding once its files are on disk (a candidate's version
  // history, signature and reproducer), run at once so that the campaign's --time bounds
  // it too; it rewrites the record. `stop` says the campaign must end: what is not done
  // then is left out of the record (without its complete_record_keys, redone on resume).
  std::function<void(FindingReport&, const std::function<bool()>& stop)> complete_finding;
  // Whether this process writes the progress record (a job of `--jobs N` reports to the
  // campaign that started it instead, which writes one record for all its jobs).
  bool write_progress = true;
};

// Where a campaign with an output directory records, after every finished case, the next
// case of its shard with its identity (target, seed, shard, options), so that `--resume DIR`
// continues it: DIR/.halo-campaign-TARGET-SEED-I-of-N-HASH.progress, HASH a digest of the
// identity, so that two campaigns sharing DIR never share a progress file.
std::string campaign_progress_path(const CampaignOptions& opts);
// That file's text once case `done` of the shard is finished (every target's campaign).
std::string campaign_progress_text(const CampaignOptions& opts, uint64_t done);

// The progress records in `dir` (any campaign, any target), as {path, record}; a file that is
// not JSON is skipped.
std::vector<std::pair<std::string, nlohmann::json>> campaign_progress_records(const std::string& dir);

// The name of case k's finding files without extension: TARGET-SEED-K.
std::string finding_stem(const CampaignOptions& opts, uint64_t k);

// What makes two findings the same (duplicate detection), from a finding's JSON record: its
// verdict and minimized program (a generator failure: its detail).
std::string finding_key_of_record(const nlohmann::json& record);

// Removes the files of case k's finding in the campaign's output directory (.halo, .json
// and whatever a target wrote beside them: TARGET-SEED-K.*).
void remove_finding_files(const CampaignOptions& opts, uint64_t k);

// Removes the temporaries that write_file_atomically leaves when its process is killed between
// writing and renaming (`.NAME.tmp.PID`), for every PID that is no longer running.
void remove_stale_temporaries(const std::string& dir);

struct FindingReport {
  uint64_t index = 0;   // the case
  uint64_t window = 0;  // the program's window that failed (0: the drawn one; CampaignOptions::windows)
  CaseSeed seed;
  std::string kind, detail;
  std::string original_detail;
  Program minimized;
  int shrink_steps = 0, shrink_tries = 0;
  std::string not_minimized;  // why the case was filed as generated ("": it was minimized)
  size_t original_chars = 0, minimized_chars = 0;
  std::string halo_file, json_file;  // empty when not written
  nlohmann::json record;             // the JSON record (also written next to the .halo file)
};

struct CampaignSummary {
  std::string target;
  uint64_t seed = 0, shard = 0, shards = 1;
  uint64_t cases = 0;       // cases run by this shard (a program on one of its windows)
  uint64_t programs = 0;    // programs drawn (cases / programs <= CampaignOptions::windows)
  uint64_t passed = 0, limits = 0, duplicates = 0;
  uint64_t vacuous = 0;  // passes where the engine gave up (`assert 0`): not counted in passed
  std::vector<FindingReport> findings;  // distinct findings (same kind and minimized case: one)
  double seconds = 0;
  bool interrupted = false;
  // Resumed (--resume): the first case of this part, and the complete findings the earlier
  // part left on disk (not in `findings`, which are this part's).
  bool resumed = false;
  uint64_t first_case = 0, earlier_findings = 0;
  // A finding or the progress record could not be written (a full disk): the campaign
  // stopped there; `write_error` says why, `write_failure` is the error to report after
  // the summary. Every finding in `findings` is on disk complete, the failed one not at all.
  std::string write_error;
  std::exception_ptr write_failure;
  // --time ran out in the middle of work (a case, a shrink or a finding's completion): the
  // case in progress was abandoned (not counted; --resume runs it), a shrink kept its best
  // case so far, an unfinished completion left its finding incomplete (`incomplete`).
  bool cut_by_time = false;
  uint64_t incomplete = 0;
  // Jobs of `--jobs N` that filed findings at the same moment past --max-findings: the
  // extra findings, dropped (their files removed), lowest case numbers kept.
  uint64_t dropped_beyond_max = 0;
  // Where the time went: running cases, shrinking findings, completing them.
  double case_seconds = 0, shrink_seconds = 0, completion_seconds = 0;
  // For the progress line: the case being worked on (running, shrinking or completing) and
  // since when (seconds since the campaign began), and the next case of the shard not yet
  // finished (what the progress record says).
  bool working = false;
  uint64_t current_case = 0;
  double current_since = 0;
  std::string current_phase;  // "case", "shrinking", "completing"
  uint64_t next_case = 0;
  Coverage coverage;
  double cases_per_second() const { return seconds > 0 ? double(cases) / seconds : 0; }
  // {"target", "seed", "shard", "cases", "passed", "vacuous", "findings", "limits", "duplicates",
  //  "interrupted", "cut_by_time", "incomplete", "seconds", "cases_per_second", "coverage",
  //  "finding_records"}, and when
  //  resumed "resumed": {"first_case", "earlier_findings"}, after a write failure "write_error"
  nlohmann::json to_json() const;
};

// What a progress line shows: the campaign's counts and what it works on now.
struct CampaignProgress {
  uint64_t cases = 0, programs = 0, findings = 0, limits = 0;
  double seconds = 0;
  // The case being worked on and for how long, in which phase ("case", "shrinking",
  // "completing"); with several jobs, the one a job has been on longest.
  bool working = false;
  uint64_t current_case = 0;
  double current_for = 0;
  std::string phase;
  int jobs = 1;
  // The next case of the shard not yet finished (UINT64_MAX: the shard is done).
  uint64_t next_case = 0;
  double cases_per_second() const { return seconds > 0 ? double(cases) / seconds : 0; }
  nlohmann::json to_json() const;
  static CampaignProgress from_json(const nlohmann::json& j);
};
CampaignProgress progress_of(const CampaignSummary& s);

// Called when a case starts, after each case and each finding, and when a shrink or a
// finding's completion begins, for progress display.
using ProgressFn = std::function<void(const CampaignProgress&)>;

// Runs the campaign. `stop` is polled between cases and between shrink candidates (an
// interrupted campaign keeps what it found, each finding already on disk). Throws
// InputError when the output directory cannot be created.
CampaignSummary run_campaign(const CampaignOptions& opts, const CaseCheck& check, const std::function<bool()>& stop = {},
                             const ProgressFn& progress = {});

// The self-contained `.halo` text of a finding: the program with its schedule and
// realization, then comment lines saying what failed and how to replay it.
std::string finding_text(const FindingReport& f, const CampaignOptions& opts);

// Findings, records and progress are written whole or not at all (support/output_file.hpp).
using halo::write_file_atomically;

}  // namespace halo::fuzz

// `halo fuzz --target exo`: a campaign against the Exo compiler (exo_gen.hpp,
// docs/kernels.md "Fuzzing Exo"). Each case is a kernel of the family, written as an Exo
// script with a random schedule and as its .halo spec; the Exo candidate's kernel check
// (candidates/exo/exo_kernel.hpp) compiles it with Exo, runs the C on the Gemmini simulator
// or under SIMDe and AddressSanitizer, and compares it with the reference. A script Exo
// rejects is counted, not a finding; wrong values, memory errors, crashes and C that does
// not compile are findings. Each finding is shrunk (steps dropped, sizes reduced) and
// written as SCRIPT.py and SPEC.halo side by side, with the command that re-runs it. Its
// cases are Exo scripts, not .halo programs, so this loop stands beside the campaign of
// campaign.hpp rather than inside it (docs/candidates.md, "Known limits"), but shares its
// machinery: shards, progress records, --resume and atomic finding files.
#pragma once

#include "fuzz/campaign.hpp"
#include "fuzz/exo_gen.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <string>

namespace halo::fuzz {

struct ExoCaseOutcome {
  // holds, exo-rejected, limit; findings: wrong-value, memory, compile-error, crash,
  // internal-error (an exception from inside a scheduling primitive), ...
  std::string kind;
  std::string detail;
  bool finding = false;
  std::string log;  // what the case's script printed: one `halo-step ...` line per draw
};

// Runs one case through Exo and the kernel harness. Never throws for what Exo does.
ExoCaseOutcome check_exo_case(const ExoKernelCase& c, double timeout);

struct ExoCampaignOptions {
  uint64_t seed = 1;
  uint64_t cases = 0;       // 0: 1000, or no bound when `seconds` is set
  double seconds = 0;       // stop starting cases after this long (0: no limit)
  uint64_t shard = 0, shards = 1;  // --shard I/N: the cases k with k mod N = I
  std::string out_dir;      // where findings go ("": not written; the summary holds them)
  uint64_t max_findings = 0;
  int shrink_tries = 1000;
  double shrink_seconds = 20;
  double timeout = 120;     // Exo and the kernel, per case
  ExoGenWeights weights;    // what the generator draws (--weight)
  // As for every campaign (campaign.hpp): the progress record's identity, and --resume.
  nlohmann::json identity = nlohmann::json::object();
  bool resume = false;
  uint64_t first_case = 0;
  std::string progress_path;  // "": campaign_progress_path; --resume keeps the one it read
};

// Progress as every campaign reports it (campaign.hpp): when a case starts, after each
// case, and when a finding's shrinking starts.
using ExoProgress = ProgressFn;

// Runs the campaign; returns its summary {"target", "seed", "shard", "cases", "seconds",
// "cases_per_second", "outcomes", "families", "coverage" (per primitive of the program
// family: how often drawn, applied, rejected, skipped for want of a place, crashed),
// "weights", "findings", "interrupted"} (each finding's
// record, as written next to its files), with "resumed" and "write_error" as in
// CampaignSummary::to_json. With an output directory the campaign records its progress after
// every case (campaign_progress_path), so --resume continues it; every finding's files are
// written atomically, the record last, and a finding whose files cannot all be written is
// removed and stops the campaign: `write_failure` is then the error to report after the
// summary. `stop` is polled between cases.
nlohmann::json run_exo_campaign(const ExoCampaignOptions& opt, const ExoProgress& progress = {},
                                const std::function<bool()>& stop = {}, std::exception_ptr* write_failure = nullptr);

}  // namespace halo::fuzz

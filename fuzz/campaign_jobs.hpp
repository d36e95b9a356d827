// A campaign on every core: `halo fuzz --jobs N` runs one campaign as N processes, each the
// campaign's shard i + n·j of n·N (its own Halide worker, its own halo evaluations), into
// one findings directory, with one progress line and one summary. The cases are exactly the
// single-process campaign's (sharding partitions them), so a seed means the same cases
// whatever N is; only which process runs which case changes.
//
// Why processes and not threads: a candidate's worker, the command's resource budget and
// halo's evaluators are process-wide, and a job that a candidate brings down (or that a
// resource limit ends) must not take the campaign with it. The jobs are forked from the
// campaign, so they share its options, check and generator without re-parsing anything.
//
// Findings: each job files its own as a campaign does; the same minimized case found by two
// jobs at once is kept once (the lower case number) when the campaign merges their
// summaries. The campaign, not its jobs, writes the progress record: the next case of every
// job, so that `--resume DIR` continues each where it stopped.
#pragma once

#include "fuzz/campaign.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace halo::fuzz {

struct JobsOptions {
  int jobs = 1;
  // Resuming: the next case of each job (nullopt: that job's shard is finished); empty when
  // the campaign starts from its first case.
  std::vector<std::optional<uint64_t>> next_cases;
};

// Runs `opts` as `jobs.jobs` processes (jobs.jobs >= 2). `stop` is polled by the campaign and
// forwarded to the jobs; `progress` sees the merged summary, its current case being the one
// a job has been working on longest.
CampaignSummary run_campaign_jobs(const CampaignOptions& opts, const JobsOptions& jobs, const CaseCheck& check,
                                  const std::function<bool()>& stop = {}, const ProgressFn& progress = {});

// The progress record of a campaign run as jobs: campaign_progress_text's keys, and "jobs"
// and "next_cases" (null for a finished job); "next_case" is the smallest.
std::string campaign_jobs_progress_text(const CampaignOptions& opts,
                                        const std::vector<std::optional<uint64_t>>& next_cases);

// The number of cores halo may use (sched_getaffinity), at least 1: `--jobs`'s default.
int available_cores();

}  // namespace halo::fuzz

// `halo fuzz --target NAME`: any candidate of candidates/registry.hpp plugged into the
// fuzzing campaign of campaign.hpp. Each generated case runs through the candidate's
// run_case; a finding's kind, what shrinking must preserve, is the candidate's shrink kind
// (Halide: outcome and phase, plus its normalized message for errors), so the schedule,
// the algorithm and the window shrink while the same classified failure persists. After
// the campaign every minimized finding gets the candidate's standalone reproducer next to
// its .halo file, is re-run on every installed version to confirm it reproduces and to
// give its version history, and the findings are grouped by failure signature (--triage).
#pragma once

#include "fuzz/campaign.hpp"
#include "fuzz/targets.hpp"
#include "oracle/candidate.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace halo::fuzz {

// The campaign check: Pass for whatever is not a finding (each outcome counted in the
// coverage as "NAME:OUTCOME"); Limit when halo's own reference exceeds `lim`; Finding
// otherwise, of the candidate's shrink kind.
CaseResult check_candidate_case(const Candidate& c, const Program& prog, const Limits& lim,
                                const CandidateOptions& opt);

// After the campaign: writes FINDING.EXT (the reproducer) next to every finding's .halo
// file, re-runs each minimized case and records in its JSON record {"signature",
// "reproduced", "outcome", "versions", "history", "cpp" (the reproducer's file name)};
// returns the triage, the findings grouped by failure signature with the smallest case of
// each group as its representative, as JSON and, with `triage`, as text in `text`.
nlohmann::json finish_candidate_campaign(CampaignSummary& s, const Candidate& c, const CandidateOptions& opt,
                                         bool triage, std::string& text);

// The triage of a findings directory that many campaigns share (processes, shards, seeds,
// versions): every JSON record in `dir` that names a signature, grouped by it, the
// smallest minimized case of each group its representative. Returns the groups as JSON
// [{"signature", "count", "campaigns", "findings", "representative"}] and appends their text
// to `text`; writes the groups to DIR/triage.json as well (each campaign that finishes
// rewrites it from the records on disk, so the last one to finish leaves the whole).
nlohmann::json triage_findings_directory(const std::string& dir, std::string& text);

}  // namespace halo::fuzz

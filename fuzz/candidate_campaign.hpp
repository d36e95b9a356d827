// `halo fuzz --target NAME`: any candidate of candidates/registry.hpp plugged into the
// fuzzing campaign of campaign.hpp. Each generated case runs through the candidate's
// run_case; a finding's kind, what shrinking must preserve, is the candidate's shrink kind
// (Halide: outcome and phase, plus its normalized message for errors), so the schedule,
// the algorithm and the window shrink while the same classified failure persists. After
// the campaign every minimized finding gets the candidate's standalone reproducer next to
// its .halo file, is re-run on every installed version to confirm it reproduces and to
// give its version history (as soon as it is found, so that --time bounds it), and the
// findings are grouped by failure signature (--triage).
#pragma once

#include "fuzz/campaign.hpp"
#include "fuzz/targets.hpp"
#include "oracle/candidate.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace halo::fuzz {

// The campaign check: Pass for whatever is not a finding (each outcome counted in the
// coverage as "NAME:OUTCOME"); Limit when halo's own reference exceeds `lim`; Finding
// otherwise, of the candidate's shrink kind.
CaseResult check_candidate_case(const Candidate& c, const Program& prog, const Limits& lim,
                                const CandidateOptions& opt);

// A finding's completion, as soon as it is filed (CampaignOptions::complete_finding): writes
// FINDING.EXT (the reproducer) next to its .halo file, re-runs the minimized case on every
// installed version and records in its JSON record {"signature", "reproduced", "outcome",
// "versions", "history", "cpp" (the reproducer's file name)}. When `stop` ends it (the
// campaign's --time), the record gets {"completion": "not done: ..."} and no signature, so
// that --resume completes it. Throws InputError when a file cannot be written.
void complete_candidate_finding(FindingReport& f, const Candidate& c, const CandidateOptions& opt,
                                const std::function<bool()>& stop);

// After the campaign: the triage, the findings grouped by failure signature with the
// smallest case of each group as its representative, as JSON and, with `triage`, as text
// in `text` (a finding not completed is grouped as "incomplete").
nlohmann::json group_candidate_findings(const CampaignSummary& s, bool triage, std::string& text);

// The triage of a findings directory that many campaigns share (processes, shards, seeds,
// versions): every JSON record in `dir` that names a signature, grouped by it, the
// smallest minimized case of each group its representative. Returns the groups as JSON
// [{"signature", "count", "campaigns", "findings", "representative"}] and appends their text
// to `text`; writes the groups to DIR/triage.json as well (each campaign that finishes
// rewrites it from the records on disk, so the last one to finish leaves the whole).
nlohmann::json triage_findings_directory(const std::string& dir, std::string& text);

}  // namespace halo::fuzz

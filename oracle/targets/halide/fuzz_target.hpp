// `halo fuzz --target halide`: the Halide target plugged into the fuzzing campaign of
// fuzz/campaign.hpp. Each generated case runs through run_halide_case; a finding's kind —
// what shrinking must preserve — is its outcome and phase (plus Halide's normalized message
// for errors), so the schedule, the algorithm and the window shrink while the same
// classified failure persists. After the campaign, every minimized finding gets its Halide
// C++ reproducer next to its .halo file, is re-run to confirm it reproduces, and the
// findings are grouped by failure signature (--triage).
#pragma once

#include "fuzz/campaign.hpp"
#include "fuzz/targets.hpp"
#include "oracle/targets/halide/halide_oracle.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace halo::halide {

// The campaign check: Pass for pass, out_of_model, reference_error, not_expressible and
// agreed_assertion (each counted in the outcome coverage as "halide:OUTCOME"); Limit when
// halo's own reference exceeds `lim`; Finding otherwise.
fuzz::CaseResult check_halide_case(const Program& prog, const Limits& lim, const HalideOptions& opt);

// What shrinking preserves: "halide-OUTCOME:PHASE", and for Halide's errors and crashes
// the normalized first line of its message as well.
std::string shrink_kind(const HalideVerdict& v);

// After the campaign: writes FINDING.cpp (the reproducer) next to every finding's .halo
// file, re-runs each minimized case and records in its JSON record {"signature",
// "reproduced", "outcome", "cpp"}; returns the triage — the findings grouped by failure
// signature, with the smallest case of each group as its representative — as JSON, and,
// with `triage`, as text in `text`.
nlohmann::json finish_halide_campaign(fuzz::CampaignSummary& s, const HalideOptions& opt, bool triage,
                                      std::string& text);

// The triage of a findings directory that many campaigns share (processes, shards, seeds,
// Halide versions): every JSON record in `dir` that names a signature, grouped by it, the
// smallest minimized case of each group its representative. Returns the groups as JSON
// [{"signature", "count", "campaigns", "findings", "representative"}] and appends their text
// to `text`; writes the groups to DIR/triage.json as well (each campaign that finishes
// rewrites it from the records on disk, so the last one to finish leaves the whole).
nlohmann::json triage_findings_directory(const std::string& dir, std::string& text);

}  // namespace halo::halide

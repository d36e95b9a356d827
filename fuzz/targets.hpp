// What a campaign checks on each case: the targets of `halo fuzz` and `halo comply`.
//
//  * self (`halo fuzz --target self`): halo against itself. The case's program is printed
//    and parsed back (the finding file must reproduce it), validated, lowered and
//    scheduled, completed by β0, run on the small-step machine and judged against the
//    big-step reference (Theorems 2.1 and 2.2, oracle/theorems.hpp); when β0's completion
//    runs to the end, the run is also checked against the bounds query B(T)
//    (bounds/query_check.hpp). The theorems are proved, so any failure is a bug in halo.
//  * engine (`halo comply --engine CMD`): an external bounds engine against β0 (Def. 2.5)
//    and against Theorems 2.1 and 2.2 (oracle/quality.hpp).
//
// A case that exceeds a resource limit is neither a pass nor a finding: it is counted
// apart, so that no case can hang a campaign and no limit is mistaken for a bug.
#pragma once

#include "interp/input.hpp"
#include "semantics/ast.hpp"

#include <functional>
#include <string>
#include <vector>

namespace halo::fuzz {

struct CaseResult {
  enum class Verdict { Pass, Limit, Finding } verdict = Verdict::Pass;
  // Finding: what failed, one of "print-parse", "invalid-program", "schedule-rejected",
  // "memory-safety" (Theorem 2.1), "confluence" (Theorem 2.2), "race", "query-check",
  // "internal-error", "engine-failed", "quality" (Def. 2.5). Shrinking keeps a smaller case
  // only when it fails with the same kind.
  std::string kind;
  std::string detail;
  // A candidate's failure signature (outcome, phase and the normalized message or the
  // schedule's features): findings that share it fail alike as far as the candidate tells.
  // Empty for halo's own checks. A campaign minimizes only the first few findings of each
  // (ShrinkBudget::per_signature).
  std::string signature;
  // Outcome coverage: how the case ended ("status:ok", "beta0:gave-up", ...).
  std::vector<std::string> outcomes;
  // A pass whose completion was `assert 0` because the bounds engine gave up: the theorems
  // hold vacuously, so campaigns count it apart from real passes.
  bool vacuous = false;
  bool is_finding() const { return verdict == Verdict::Finding; }
};

using CaseCheck = std::function<CaseResult(const Program&)>;

// Runs one case's check: a resource limit (or exhausted memory) is Verdict::Limit, and
// anything halo throws is an internal-error finding (a crash of halo on a valid case is a
// bug too), so that no case can end a campaign.
CaseResult guarded(const std::function<CaseResult(CaseResult&)>& body);

// Limits for one case of a campaign: small enough that no case takes long.
Limits default_case_limits();

// Limits for one execution of the libFuzzer decoder (fuzz/libfuzzer/halo_fuzz_target.cpp):
// a tenth of a campaign's steps and time and a quarter of its memory (200,000 steps, 0.2 s,
// 64 MiB), so that an engine spends its time on many cases rather than on
// the few that run into a limit. A finding under these limits is a finding under the
// campaign's (limits only cut runs short), so `--fuzzer-input` replays it.
Limits fuzzer_case_limits();

CaseResult check_self(const Program& prog, const Limits& lim);
CaseResult check_engine_case(const Program& prog, const Limits& lim, const std::string& engine, double engine_seconds);

}  // namespace halo::fuzz

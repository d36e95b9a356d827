// The per-case checks of `halo fuzz --target self` and `halo comply`: see targets.hpp.
#include "fuzz/targets.hpp"

#include "fuzz/coverage.hpp"

#include "bounds/beta0.hpp"
#include "bounds/extract.hpp"
#include "bounds/query_check.hpp"
#include "candidates/engines/engine.hpp"
#include "oracle/quality.hpp"
#include "schedule/schedule.hpp"
#include "support/candidate_unavailable.hpp"
#include "support/command_budget.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/validity.hpp"

#include <fmt/format.h>

#include <new>

namespace halo::fuzz {

namespace {

CaseResult found(CaseResult r, std::string kind, std::string detail) {
  r.verdict = CaseResult::Verdict::Finding;
  r.kind = std::move(kind);
  r.detail = std::move(detail);
  return r;
}

// The kind of a violated verdict: the first of Theorem 2.1, Theorem 2.2, the race check.
std::string violation_kind(const OracleVerdict& v) {
  return !v.memory_safe ? "memory-safety" : !v.confluent ? "confluence" : "race";
}

// The scheduled program of a generated case, or the finding that it is not one: the
// case must print and parse back to itself (so the finding file reproduces it), be valid
// (Defs. 2.7-2.10) and its schedule must replay (every directive's rules, §2.8).
struct Prepared {
  Program prog;
  TgtProgram target;
  Input input;
};
std::optional<Prepared> prepare(const Program& generated, CaseResult& r) {
  std::string text = print_program(generated);
  Prepared p;
  try {
    p.prog = parse_program(text, generated.file);
  } catch (const InputError& e) {
    r = found(r, "print-parse", std::string("the printed case does not parse back: ") + e.what());
    return std::nullopt;
  }
  if (!same_program(p.prog, generated)) {
    r = found(r, "print-parse", "the printed case parses back to a different program");
    return std::nullopt;
  }
  auto diags = validate_program(p.prog);
  if (!diags.empty()) {
    r = found(r, "invalid-program", "the generated case is not valid: " + diags.front().format());
    return std::nullopt;
  }
  try {
    p.target = schedule_pipeline(p.prog);
  } catch (const InputError& e) {
    r = found(r, "schedule-rejected", std::string("the generated schedule does not replay: ") + e.what());
    return std::nullopt;
  }
  try {
    p.input = resolve_input(p.prog, {});
  } catch (const InputError& e) {
    r = found(r, "invalid-program", std::string("the generated realization is not valid: ") + e.what());
    return std::nullopt;
  }
  return p;
}


// The whole case (scheduling, bounds inference and lifting, every evaluation) shares one
// deadline: a case runs a few evaluations of at most lim.max_seconds each, and bounds
// inference whose fills grow too fast must stop too (seed 11, case 540: a fused loop of a
// func with three rdom updates took 145 s in β0), as a resource limit, not a finding.
constexpr double kCaseDeadlineFactor = 5;
CommandLimits case_budget(const Limits& lim) {
  return CommandLimits{lim.max_seconds > 0 ? kCaseDeadlineFactor * lim.max_seconds : 0, lim.max_memory_bytes};
}

}  // namespace

CaseResult guarded(const std::function<CaseResult(CaseResult&)>& body) {
  CaseResult r;
  try {
    return body(r);
  } catch (const ResourceLimit& e) {
    r.verdict = CaseResult::Verdict::Limit;
    r.detail = e.what();
  } catch (const std::bad_alloc&) {
    r.verdict = CaseResult::Verdict::Limit;
    r.detail = "out of memory";
  } catch (const CandidateUnavailable&) {
    throw;  // no case can run: the campaign stops (not a finding of this case)
  } catch (const InputError& e) {
    r = found(r, "internal-error", std::string("halo rejected a valid case: ") + e.what());
  } catch (const std::exception& e) {
    r = found(r, "internal-error", e.what());
  }
  return r;
}

Limits default_case_limits() {
  Limits l;
  l.max_steps = 2'000'000;
  l.max_memory_bytes = 256ull << 20;
  l.max_seconds = 2;
  return l;
}

Limits fuzzer_case_limits() {
  Limits l = default_case_limits();
  l.max_steps /= 10;
  l.max_seconds /= 10;
  l.max_memory_bytes /= 4;
  return l;
}

CaseResult check_self(const Program& prog, const Limits& lim) {
  ScopedCommandBudget budget(case_budget(lim));
  return guarded([&](CaseResult& r) {
    auto p = prepare(prog, r);
    if (!p) return r;
    const TgtProgram& t = p->target;
    Query q = extract_query(t);
    Beta0Result b = run_beta0(q, t);
    Beta0Completion c = complete_with_beta0(b, t);
    r.outcomes.push_back(c.ok ? "beta0:ok" : "beta0:gave-up");
    if (!c.ok) r.outcomes.push_back("beta0:gave-up:" + c.gave_up);
    r.vacuous = !c.ok;
    OracleVerdict v = check_theorems(p->prog, c.program, p->input, lim);
    r.outcomes.push_back(std::string("status:") + run_status_name(v.run.status));
    if (c.ok) r.outcomes.push_back(kRanTag);  // the completed program (not `assert 0`) ran
    if (v.reference_has_error) r.outcomes.push_back("reference:error");
    if (!v.holds()) {
      if (c.ok) explain_with_query(v, t, b.filling, p->input, lim);
      return found(r, violation_kind(v), v.detail);
    }
    // β0's completion ran to the end: the run must satisfy every conjunct of B(T) it meets.
    if (c.ok && v.run.status == RunStatus::Ok) {
      if (auto viol = check_run_against_query(t, b.filling, p->input, lim))
        return found(r, "query-check",
                     fmt::format("β0's completion runs, but breaks the bounds query on this input: {} ({}){}",
                                 viol->conjunct, viol->origin, viol->detail.empty() ? "" : ": " + viol->detail));
      if (!v.reference_has_error) r.outcomes.push_back("computed");
    }
    return r;
  });
}

CaseResult check_engine_case(const Program& prog, const Limits& lim, const std::string& engine,
                             double engine_seconds) {
  ScopedCommandBudget budget(case_budget(lim));
  return guarded([&](CaseResult& r) {
    auto p = prepare(prog, r);
    if (!p) return r;
    EngineVerdict ev = check_engine(p->prog, p->target, p->input, lim, engine, engine_seconds);
    r.outcomes.push_back(ev.engine.kind == EngineResult::Kind::Filled   ? "engine:filled"
                         : ev.engine.kind == EngineResult::Kind::GaveUp ? "engine:gave-up"
                                                                        : "engine:failed");
    if (ev.beta0_computes) r.outcomes.push_back("beta0:computes");
    if (ev.engine_stores >= 0)
      r.outcomes.push_back(ev.engine_stores < ev.beta0_stores   ? "stores:fewer-than-beta0"
                           : ev.engine_stores > ev.beta0_stores ? "stores:more-than-beta0"
                                                                : "stores:as-beta0");
    r.vacuous = ev.engine.kind == EngineResult::Kind::GaveUp;
    if (ev.holds()) return r;
    std::string kind = ev.engine_failed            ? "engine-failed"
                       : !ev.completion.holds()    ? violation_kind(ev.completion)
                                                   : "quality";
    return found(r, kind, ev.detail);
  });
}

}  // namespace halo::fuzz

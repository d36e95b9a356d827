// Def. 2.5 for one case and the query-based explanation of a verdict: see quality.hpp.
#include "oracle/quality.hpp"

#include "bounds/beta0.hpp"
#include "bounds/extract.hpp"
#include "bounds/query_check.hpp"

#include <fmt/format.h>

namespace halo {

void explain_with_query(OracleVerdict& v, const TgtProgram& t, const HoleFilling& g, const Input& in,
                        const Limits& lim) {
  if (v.holds_serially()) return;  // a race alone is explained by its own message
  try {
    if (auto q = check_run_against_query(t, g, in, lim))
      v.detail += fmt::format("; first violated conjunct of B(T): {} ({})", q->conjunct, q->origin);
  } catch (const std::exception&) {
    // The explanation is a courtesy: the verdict stands without it.
  }
}

EngineVerdict judge_engine(const Program& prog, const TgtProgram& t, const Input& in, const Limits& lim,
                           const EngineRun& engine) {
  EngineVerdict ev;
  Query q = extract_query(t);
  Beta0Result b = run_beta0(q, t);
  Beta0Completion c = complete_with_beta0(b, t);
  ev.beta0 = check_theorems(prog, c.program, in, lim);
  if (c.ok) explain_with_query(ev.beta0, t, b.filling, in, lim);

  ev.engine = engine(q);
  ev.engine_failed = ev.engine.kind == EngineResult::Kind::Failed;
  if (!ev.engine_failed) {
    ev.completion = check_theorems(prog, complete_with(ev.engine, t), in, lim);
    if (ev.engine.kind == EngineResult::Kind::Filled) explain_with_query(ev.completion, t, ev.engine.filling, in, lim);
  }
  const OracleVerdict& v = ev.beta0;
  const OracleVerdict& e = ev.completion;
  ev.beta0_computes = !v.reference_has_error && !v.assertion_failed && v.confluent && v.run.status == RunStatus::Ok;
  bool engine_computes = !ev.engine_failed && e.run.status == RunStatus::Ok && e.confluent && !e.reference_has_error;
  ev.quality = !ev.beta0_computes || engine_computes;
  auto stores = [](const RunResult& run) {
    int64_t n = 0;
    for (const auto& [f, st] : run.stats) n += static_cast<int64_t>(st.stores);
    return n;
  };
  if (ev.beta0_computes && engine_computes) ev.beta0_stores = stores(v.run), ev.engine_stores = stores(e.run);
  ev.detail = ev.engine_failed   ? "the engine failed: " + ev.engine.detail
              : !e.holds()       ? e.detail
              : !ev.quality      ? "Def. 2.5 violated: β0's completion computes P(z) but the engine's does not: " + e.detail
                                 : e.detail;
  return ev;
}

nlohmann::json engine_verdict_to_json(const EngineVerdict& v) {
  nlohmann::json j = v.engine_failed ? nlohmann::json{{"memory_safe", true},
                                                      {"assertion_failed", false},
                                                      {"reference_has_error", v.beta0.reference_has_error},
                                                      {"confluent", true}}
                                     : verdict_to_json(v.completion);
  j["quality"] = v.quality;
  j["engine_failed"] = v.engine_failed;
  j["verdict"] = v.holds() ? "holds" : "violated";
  j["detail"] = v.detail;
  j["beta0"] = verdict_to_json(v.beta0);
  if (v.engine_stores >= 0) j["stores"] = {{"engine", v.engine_stores}, {"beta0", v.beta0_stores}};
  return j;
}

}  // namespace halo

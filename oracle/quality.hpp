// The bounds-quality constraint (thesis Def. 2.5) for one case, and the explanation of a
// violated verdict in terms of the bounds query. Shared by `halo oracle --engine` (one
// case) and `halo comply` (a campaign of generated cases), so the judgement of an external
// bounds engine exists once.
//
// Def. 2.5 asks of an engine β that wherever β0's completion computes P's output without
// failing an assertion, β's completion does too. The engine's completion is also held to
// Theorems 2.1 and 2.2 like any completion (oracle/theorems.hpp). An engine that crashes,
// hangs or answers garbage (candidates/engines/engine.hpp) fails the case.
#pragma once

#include "bounds/engine_result.hpp"
#include "bounds/query.hpp"
#include "oracle/theorems.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace halo {

struct EngineVerdict {
  OracleVerdict beta0;       // β0's completion (the reference of Def. 2.5)
  EngineResult engine;       // the engine's answer
  OracleVerdict completion;  // the engine's completion (meaningless when engine_failed)
  bool engine_failed = false;
  bool beta0_computes = false;  // β0's completion computes P(z) (no assertion, no error value)
  bool quality = true;          // Def. 2.5 on this case
  // Beyond Def. 2.5, how tight the engine is: the points both completions store ([ASSN]
  // applications over every func) when both ran to the end; -1 otherwise.
  int64_t beta0_stores = -1, engine_stores = -1;
  bool holds() const { return !engine_failed && completion.holds() && quality; }
  std::string detail;
};

// Completes the scheduled program `t` of `prog` with β0 and with the answer of `engine` to
// the query of `t` (any engine: built-in, or an external one, candidates/engines/), runs
// both on `in` and judges them. Throws ResourceLimit when a run exceeds `lim`.
using EngineRun = std::function<EngineResult(const Query&)>;
EngineVerdict judge_engine(const Program& prog, const TgtProgram& t, const Input& in, const Limits& lim,
                           const EngineRun& engine);

// Appends to a verdict that violates Theorem 2.1 or 2.2 the first conjunct of B(T) that the
// filling `g` breaks on this input (bounds/query_check.hpp), so a reader sees why; other
// verdicts are left alone, and an explanation that cannot be computed is skipped.
void explain_with_query(OracleVerdict& v, const TgtProgram& t, const HoleFilling& g, const Input& in,
                        const Limits& lim);

// `halo oracle --engine --json`: the engine completion's verdict_to_json plus "quality",
// "engine_failed", "verdict", "detail" and "beta0" (β0's verdict).
nlohmann::json engine_verdict_to_json(const EngineVerdict& v);

}  // namespace halo

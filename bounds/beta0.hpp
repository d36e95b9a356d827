// The baseline bounds engine β0 of thesis §2.7.2, fig. 2.10b, and its lifting to a bounds
// engine (Def. 2.4): the reference that defines the minimum quality every compliant
// engine must reach (Def. 2.5), so it is implemented literally — naive interval
// arithmetic (bounds/interval) folded over the query B(T) (bounds/query.hpp) — and its
// few readings are documented in docs/beta0.md.
#pragma once

#include "bounds/interval.hpp"
#include "bounds/query.hpp"
#include "semantics/tgt.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace halo {

// What β0 inferred for one hole tuple ?mem f or ?cpu f^{i,j}: one interval per dimension,
// each over the variables in the hole's lexical scope (hole_scopes). `demanded` is false
// when no membership ever mentioned the tuple.
struct HoleTuple {
  HoleRef ref;
  std::vector<SymInterval> dims;
  bool demanded = false;
  // While β0 runs: the distinct conditions (conjunctions of `e > 0`) under which some
  // contribution's ranges are non-empty; `dims` are then the raw hulls. In a
  // Beta0Result, empty, and `dims` are guarded (see `guarded`).
  std::vector<Expr> guards;
};

// Dimension d of a tuple with its guards applied (semantics decision 17): the length is
// never negative, and it is 0 wherever no contribution's ranges are non-empty:
// (min, select(g1 || ... || gn, max(len, 0), 0)), the max dropped where a guard implies it,
// the select where the length is one of `nonneg_vars` (window lengths) and the guard says it
// is positive.
SymInterval guarded(const HoleTuple& t, size_t d, const std::set<std::string>& nonneg_vars);

struct Beta0Result {
  std::map<std::string, HoleTuple> tuples;  // keyed by HoleRef::to_string()
  HoleFilling filling;  // every hole of the program; meaningful only when ok
  bool ok = false;      // every hole determined and finite (the lifting's condition)
  std::string why_failed;
  // Why β0 gave up, as a short code: data-dependent (a point reads a func value),
  // unbounded (another [-∞, ∞]), out-of-scope, undetermined-hole, order, dimensions.
  std::string gave_up;
};

// The built-in engines: β0, the reference of Def. 2.5, and β1, the same fold over B(T) with
// the interval rules Halide's own bounds inference has (half-bounded intervals, value
// bounds of pure funcs; docs/beta1.md).
// Beta0Literal is β0 with the rules exactly as fig. 2.10b prints them (IntervalRules::literal):
// how far halo's reference stands above the printed figure.
enum class BoundsEngine { Beta0, Beta1, Beta0Literal };
// The engine a name selects ("beta0", "beta1", "beta0-literal"), if it names a built-in one.
std::optional<BoundsEngine> builtin_engine(const std::string& name);

// β0(q, ∅) followed by the lifting check against the holes of t: fills `filling` when
// every hole of t is determined and finite. A hole nothing demands gets the empty
// interval (min 0, len 0): no point needs to be in it (docs/beta0.md).
Beta0Result run_beta0(const Query& q, const TgtProgram& t);
// The same with either built-in engine's rules.
Beta0Result run_builtin_engine(const Query& q, const TgtProgram& t, BoundsEngine engine);

// The lifting of §2.7.2 on its own: the filling, or nullopt (the reason in `why`).
std::optional<HoleFilling> lift_beta0(const Query& q, const TgtProgram& t, std::string* why = nullptr);

// β0 as a bounds engine: [Γ]T when the lifting succeeds, otherwise T with its body
// replaced by `assert 0` (§2.7.2: "it simply fails by replacing the body with assert
// false"). Extracts the query with extract_query (bounds/extract.hpp).
struct Beta0Completion {
  TgtProgram program;
  bool ok = false;
  std::string reason;   // why β0 failed (empty when ok)
  std::string gave_up;  // its code (Beta0Result::gave_up)
};
Beta0Completion complete_with_beta0(const TgtProgram& t);
// The same from an already-extracted query.
Beta0Completion complete_with_beta0(const Query& q, const TgtProgram& t);
// The same from β0's answer on t's query, for callers that also show or use the answer
// (β0 then runs once).
Beta0Completion complete_with_beta0(const Beta0Result& r, const TgtProgram& t);

}  // namespace halo

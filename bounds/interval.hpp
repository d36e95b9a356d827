// Symbolic interval arithmetic: the function I(e, Γ) of thesis fig. 2.10b, which β0
// (bounds/beta0) applies to every point of the bounds query.
//
// An interval is a (min, len) pair of *expressions* — over the parameters, the window and
// the loop variables that stay symbolic — exactly the shape of the holes it will fill, or
// [-∞, ∞]. Fig. 2.10b gives the rules for +, div, func accesses, variables and constants
// and elides the "standard" ones; interval.cpp writes every rule out, each marked with
// where it comes from, and docs/beta0.md argues each one sound:
//
//   for every assignment of the variables within their intervals in Γ, the value of e
//   lies in I(e, Γ).
//
// tests/test_beta0.cpp checks that statement by brute force for every rule.
#pragma once

#include "semantics/ast.hpp"

#include <map>
#include <set>
#include <string>

namespace halo {

struct SymInterval {
  Expr min, len;           // null iff unbounded
  bool unbounded = false;  // [-∞, ∞]
  // β1 only (half-bounded intervals): when unbounded, what is still known of one side —
  // [lower, ∞] or [-∞, upper]; null when nothing is. β0's rules never set them.
  Expr lower, upper;

  static SymInterval point(Expr e);                 // [e, 1]
  static SymInterval of_bounds(Expr lo, Expr hi);   // [lo, hi - lo + 1] (inclusive bounds)
  static SymInterval everything();                  // [-∞, ∞]
  static SymInterval empty();                       // [0, 0]: demands nothing
  Expr max() const;                                 // min + len - 1 (the last point)
  // The lower / upper bound, whichever form the interval has; null when unknown.
  Expr lo() const { return unbounded ? lower : min; }
  Expr hi() const { return unbounded ? upper : max(); }
  // [lo, hi] with either side possibly unknown (null): bounded when both are known.
  static SymInterval half(Expr lo, Expr hi);
  std::string to_string() const;
};

// Γ as I reads it: the interval of each variable and of each determined hole expression
// (a hole's min or len is one value, so its interval is usually a point). A variable
// absent from `vars` is the point interval of itself — that is how parameters, window
// variables and the variables in scope of the hole being filled stay symbolic. A hole
// absent from `holes` is unbounded: nothing is known about it yet.
// Which rules I applies. β0 (the default) is fig. 2.10b with every elided rule written out;
// β1 (docs/beta1.md) adds what Halide's own bounds inference knows, half-bounded
// intervals (so clamps through min/max bound an unbounded operand), and value bounds of
// funcs at the point read, through their updates (bounds/func_values.hpp).
// `literal` is β0 as fig. 2.10b prints it (docs/beta0.md, "The literal figure"): no
// simplification of an operand before its rule applies (so x - x is [lo - hi, hi - lo],
// select(1, a, b) the hull of both branches, f[x] * 0 unbounded) and no constant-divisor
// rule for div; only the soundness repairs stay (div's length 2M + 1, the empty-range
// guards), because the theorems win over the printed rule.
class FuncValueBounds;
struct IntervalRules {
  bool half_bounded = false;
  bool literal = false;
  const FuncValueBounds* func_values = nullptr;  // null: a func value is [-∞, ∞]
};

struct IntervalEnv {
  std::map<std::string, SymInterval> vars;
  std::map<HoleLabel, SymInterval> holes;
  const IntervalRules* rules = nullptr;  // null: β0's
};

SymInterval interval_of(const Expr& e, const IntervalEnv& env);

// The variables an expression mentions, and whether it mentions a hole (a fill must do
// neither outside its scope; a loop range with a hole is not known yet).
struct ExprVars {
  std::set<std::string> vars;
  bool holes = false;
};
ExprVars vars_of(const Expr& e);

// The hull a ∪ b: [min(m1, m2), max(m1 + l1, m2 + l2) - min(m1, m2)] (fig. 2.10b's ∪).
SymInterval hull(const SymInterval& a, const SymInterval& b);
// The hull of intervals that may be half-bounded (β1): each side known where both are.
SymInterval hull_half(const SymInterval& a, const SymInterval& b);

}  // namespace halo

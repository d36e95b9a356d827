// A small algebraic simplifier for the bounds expressions β0 builds (bounds/beta0).
//
// Why it exists: interval arithmetic (bounds/interval) builds expressions such as
// `(x_min + x_len - 1) - x_min + 1`; without simplification the holes β0 fills grow with
// every rule applied and the §2.2 bounds would not read as (x_min, x_len + 1).
//
// What it does, and only this (each rewrite is an identity of the integers):
//   * constant folding with apply_op (the evaluators' own operators, so Euclidean div/mod
//     and x / 0 = 0 agree by construction);
//   * sums, differences, negations and products by a constant are normalized to a linear
//     form  c0 + c1*t1 + ... + cn*tn  over non-linear terms t (compared by their printed
//     text), which subsumes x + 0, x * 1, x * 0, (x + c1) + c2, x - x, ...;
//   * min / max / comparisons whose operands differ by a constant (min(x, x + 3) = x);
//   * select with a constant condition or identical branches; x / ±1, x % ±1, 0 / x, 0 % x.
//
// A typed program's node whose value is not its operator's value in ℤ (a wrapping type, a
// saturation, one of Halide's operators; docs/types.md) is kept as it is, its operands
// simplified, and folded only when they are all constants, with its typed rule.
//
// Assumption (docs/beta0.md): the expressions are error-free integer expressions — bounds
// expressions over parameters, window and loop variables. With error values (Def. 2.6)
// some rewrites would not hold (x - x is err_mem when x is, not 0; x * 0 drops an error),
// which is why the simplifier is not used on algorithm expressions.
#pragma once

#include "semantics/ast.hpp"

#include <map>
#include <optional>
#include <string>

namespace halo {

Expr simplify(const Expr& e);

// A stronger simplifier, for reading: simplify, then rewrites that need integer value
// ranges. Why it exists: β0's holes for tiled schedules keep guards and clamps that
// interval arithmetic cannot see through (`select((max(x_len + 1, 1) + 2) / 4 > 0, max((max(
// x_len + 1, 1) + 2) / 4 * 4, 0), 0)`), which `halo explain` shows as `select(x_len >= 1,
// (x_len + 3) / 4 * 4, 0)`. It is exact (each rewrite an identity over ℤ with halo's
// Euclidean div/mod, x / 0 = x % 0 = 0, under the same assumption as simplify: error-free
// integer expressions), but it is kept out of β0 (bounds/beta0.cpp uses simplify) so that
// β0's answers and everything printed from them stay as they are; only the explain page
// uses it. What it adds (docs/beta0.md):
//   * a range [lo, hi] for every subexpression (constants, variables narrowed by facts,
//     + - * / % min max select, comparisons and logic in [0, 1]); an expression whose range
//     is one value is that value; min/max drop an operand another one dominates by range;
//     a comparison or select condition the ranges decide is decided; a % k = a on [0, |k|);
//   * comparisons with a constant normalized to `t >= k`, `t <= k`, `t == k`, `t != k`
//     (constants moved into k, a common factor divided out, e / c, max(a, c), min(a, c)
//     with c > 0 a constant peeled);
//   * differences: a - b's range from their linear forms, with c·(e / c) read as e - e % c,
//     decides max(a, b) and a >= b ((y + 7) / 8 * 8 >= y); a term all operands of a min or
//     max share comes out (max(a + t, b + t) = max(a, b) + t);
//   * facts: in select(c, a, b), the conjuncts `v >= k`, `v <= k`, `v == k` of c narrow v
//     in a, the negated disjuncts of c narrow it in b (a branch whose facts contradict the
//     context is dropped); likewise b in a && b and a || b; an operand of an && / || chain
//     that another one implies syntactically (absorption) is dropped.
// Typed-sensitive nodes are kept, their operands simplified.
Expr simplify_with_ranges(const Expr& e);

// Is n such a node (see above)? Signed 32- and 64-bit arithmetic is not: where it is
// defined it is ℤ's.
bool typed_sensitive(const OpNode& n);

// The constant an expression is, if it is one (after simplification or not).
std::optional<Value> const_value(const Expr& e);

// Smart constructors: build op(args) and simplify it (children are assumed simplified,
// so the cost is proportional to the top of the tree only).
Expr simp_op(Op op, std::vector<Expr> args);
Expr simp_add(const Expr& a, const Expr& b);
Expr simp_sub(const Expr& a, const Expr& b);
Expr simp_mul(const Expr& a, const Expr& b);
Expr simp_min(const Expr& a, const Expr& b);
Expr simp_max(const Expr& a, const Expr& b);
Expr simp_const(int64_t c);

}  // namespace halo

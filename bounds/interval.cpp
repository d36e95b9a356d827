// I(e, Γ) of fig. 2.10b with every elided rule written out. Rules compute inclusive
// bounds [lo, hi] (easier to reason about) and convert to (min, len) once, with
// len = hi - lo + 1; the simplifier keeps the resulting expressions small. Soundness
// arguments are in docs/beta0.md, one per rule; tests/test_beta0.cpp checks each by
// brute force.
#include "bounds/interval.hpp"

#include "bounds/func_values.hpp"
#include "bounds/simplify.hpp"
#include "semantics/printer.hpp"

#include <fmt/format.h>

#include <cmath>

namespace halo {

SymInterval SymInterval::point(Expr e) { return {std::move(e), simp_const(1), false, nullptr, nullptr}; }
SymInterval SymInterval::of_bounds(Expr lo, Expr hi) {
  Expr len = simp_add(simp_sub(hi, lo), simp_const(1));
  return {std::move(lo), std::move(len), false, nullptr, nullptr};
}
SymInterval SymInterval::everything() { return {nullptr, nullptr, true, nullptr, nullptr}; }
SymInterval SymInterval::half(Expr lo, Expr hi) {
  if (lo && hi) return of_bounds(std::move(lo), std::move(hi));
  return {nullptr, nullptr, true, std::move(lo), std::move(hi)};
}
SymInterval SymInterval::empty() { return {simp_const(0), simp_const(0), false, nullptr, nullptr}; }
Expr SymInterval::max() const { return simp_sub(simp_add(min, len), simp_const(1)); }
std::string SymInterval::to_string() const {
  if (unbounded) return "[-inf, inf]";
  return fmt::format("[{}, {}]", print_expr(min), print_expr(len));
}

SymInterval hull(const SymInterval& a, const SymInterval& b) {
  if (a.unbounded || b.unbounded) return SymInterval::everything();
  Expr lo = simp_min(a.min, b.min);
  Expr end = simp_max(simp_add(a.min, a.len), simp_add(b.min, b.len));  // one past the last point
  return {lo, simp_sub(end, lo), false, nullptr, nullptr};
}

SymInterval hull_half(const SymInterval& a, const SymInterval& b) {
  if (!a.unbounded && !b.unbounded) return hull(a, b);
  Expr lo = a.lo() && b.lo() ? simp_min(a.lo(), b.lo()) : nullptr;
  Expr hi = a.hi() && b.hi() ? simp_max(a.hi(), b.hi()) : nullptr;
  return SymInterval::half(lo, hi);
}

namespace {

std::optional<int64_t> small_const(const Expr& e) {
  if (e->kind != ExprKind::Const) return std::nullopt;
  return as<ConstNode>(e).value.as_int64();
}

// The interval of a truth value: every comparison and logical operator yields 0 or 1.
SymInterval boolean() { return SymInterval::of_bounds(simp_const(0), simp_const(1)); }

// [lo, hi] · c for a constant c: monotone, order flips when c < 0.
SymInterval scale(const SymInterval& i, const Expr& c, int sign) {
  Expr a = simp_mul(i.min, c), b = simp_mul(i.max(), c);
  return sign >= 0 ? SymInterval::of_bounds(a, b) : SymInterval::of_bounds(b, a);
}

SymInterval op_interval_beta0(const OpNode& n, const std::vector<SymInterval>& w, bool literal = false);

// β1's rules (docs/beta1.md): every rule on lower and upper bounds separately, so that one
// known side survives an unknown one. Where both operands are bounded they agree with
// β0's (which they then call), so β1 is never less precise.
SymInterval op_interval_beta1(const OpNode& n, const std::vector<SymInterval>& w) {
  bool all_bounded = true;
  for (const auto& i : w) all_bounded = all_bounded && !i.unbounded;
  if (all_bounded) return op_interval_beta0(n, w);
  auto both = [](const Expr& a, const Expr& b, Expr (*f)(const Expr&, const Expr&)) -> Expr {
    return a && b ? f(a, b) : nullptr;
  };
  auto neg = [](const Expr& a) -> Expr { return a ? simp_sub(simp_const(0), a) : nullptr; };
  switch (n.op) {
    case Op::Lt: case Op::Gt: case Op::Eq: case Op::Le: case Op::Ge: case Op::Ne:
    case Op::And: case Op::Or: case Op::Not:
    case Op::Mod:
      return op_interval_beta0(n, w);  // bounded whatever the operands (mod: by its divisor)
    case Op::Add: return SymInterval::half(both(w[0].lo(), w[1].lo(), simp_add), both(w[0].hi(), w[1].hi(), simp_add));
    case Op::Sub: return SymInterval::half(both(w[0].lo(), w[1].hi(), simp_sub), both(w[0].hi(), w[1].lo(), simp_sub));
    case Op::Neg: return SymInterval::half(neg(w[0].hi()), neg(w[0].lo()));
    case Op::Mul: {
      for (int k = 0; k < 2; ++k) {
        if (auto c = small_const(n.args[k])) {
          if (*c == 0) return SymInterval::point(simp_const(0));
          const SymInterval& o = w[1 - k];
          Expr lo = o.lo() ? simp_mul(o.lo(), n.args[k]) : nullptr, hi = o.hi() ? simp_mul(o.hi(), n.args[k]) : nullptr;
          return *c > 0 ? SymInterval::half(lo, hi) : SymInterval::half(hi, lo);
        }
      }
      return SymInterval::everything();
    }
    case Op::Div: {
      auto c = small_const(n.args[1]);
      if (!c || *c == 0) return SymInterval::everything();
      Expr lo = w[0].lo() ? simp_op(Op::Div, {w[0].lo(), n.args[1]}) : nullptr;
      Expr hi = w[0].hi() ? simp_op(Op::Div, {w[0].hi(), n.args[1]}) : nullptr;
      return *c > 0 ? SymInterval::half(lo, hi) : SymInterval::half(hi, lo);
    }
    // min(a, b) <= either upper bound; >= the smaller lower bound when both are known.
    case Op::Min: {
      Expr hi = w[0].hi() && w[1].hi() ? simp_min(w[0].hi(), w[1].hi()) : w[0].hi() ? w[0].hi() : w[1].hi();
      return SymInterval::half(both(w[0].lo(), w[1].lo(), simp_min), hi);
    }
    case Op::Max: {
      Expr lo = w[0].lo() && w[1].lo() ? simp_max(w[0].lo(), w[1].lo()) : w[0].lo() ? w[0].lo() : w[1].lo();
      return SymInterval::half(lo, both(w[0].hi(), w[1].hi(), simp_max));
    }
    case Op::Select: return hull_half(w[1], w[2]);
    default: break;
  }
  return SymInterval::everything();
}

SymInterval op_interval(const OpNode& n, const IntervalEnv& env) {
  std::vector<SymInterval> w;
  for (const Expr& a : n.args) w.push_back(interval_of(a, env));
  if (env.rules && env.rules->half_bounded) return op_interval_beta1(n, w);
  return op_interval_beta0(n, w, env.rules && env.rules->literal);
}

SymInterval op_interval_beta0(const OpNode& n, const std::vector<SymInterval>& w, bool literal) {
  auto any_unbounded = [&] {
    for (const auto& i : w) if (i.unbounded) return true;
    return false;
  };
  switch (n.op) {
    // Comparisons and logical operators: 0 or 1 whatever the operands (elided in fig. 2.10b).
    case Op::Lt: case Op::Gt: case Op::Eq: case Op::Le: case Op::Ge: case Op::Ne:
    case Op::And: case Op::Or: case Op::Not:
      return boolean();
    // I(e1 mod e2) (elided in fig. 2.10b). Euclidean: 0 <= x mod y < |y|, and x mod 0 = 0.
    case Op::Mod: {
      if (auto c = small_const(n.args[1])) {
        int64_t bound = *c == 0 ? 0 : (*c > 0 ? *c - 1 : -(*c + 1));  // |c| - 1 without overflow
        return SymInterval::of_bounds(simp_const(0), simp_const(bound));
      }
      // General divisor y ∈ [lo, hi]: |y| <= D = max(-lo, hi), so the result lies in
      // [0, max(D - 1, 0)] (the max covers y = 0, where the result is 0).
      if (w[1].unbounded) return SymInterval::everything();
      Expr d = simp_max(simp_sub(simp_const(0), w[1].min), w[1].max());
      return SymInterval::of_bounds(simp_const(0), simp_max(simp_sub(d, simp_const(1)), simp_const(0)));
    }
    // I(e1 div e2) fig. 2.10b: [-M, 2M+1] with M = max(-m1, m1 + l1 - 1). The figure prints
    // the length as 2M - 1, which is unsound (6 div 1 with e1 ∈ [6, 1]: M = 6 gives
    // [-6, 4]); |e1 div e2| <= |e1| <= M for Euclidean division (and x div 0 = 0), so the
    // interval is [-M, M], of length 2M + 1. A nonzero constant divisor gets the sharper
    // monotone rule: x div c is non-decreasing in x for c > 0, non-increasing for c < 0
    // (not in the literal figure).
    case Op::Div: {
      auto c = small_const(n.args[1]);
      if (c && *c != 0 && !literal) {
        if (w[0].unbounded) return SymInterval::everything();
        Expr lo = simp_op(Op::Div, {w[0].min, n.args[1]}), hi = simp_op(Op::Div, {w[0].max(), n.args[1]});
        return *c > 0 ? SymInterval::of_bounds(lo, hi) : SymInterval::of_bounds(hi, lo);
      }
      if (w[0].unbounded) return SymInterval::everything();
      Expr m = simp_max(simp_sub(simp_const(0), w[0].min), w[0].max());
      return SymInterval::of_bounds(simp_sub(simp_const(0), m), m);
    }
    // I(e1 * e2) (elided in fig. 2.10b): by a constant, scale exactly (0 · anything = 0,
    // even unbounded, except in the literal figure, where [-∞, ∞] · 0 stays unbounded);
    // otherwise the hull of the four corner products.
    case Op::Mul: {
      for (int k = 0; k < 2; ++k) {
        if (auto c = small_const(n.args[k])) {
          if (*c == 0 && !(literal && w[1 - k].unbounded)) return SymInterval::point(simp_const(0));
          if (w[1 - k].unbounded) return SymInterval::everything();
          return scale(w[1 - k], n.args[k], *c > 0 ? 1 : -1);
        }
      }
      if (any_unbounded()) return SymInterval::everything();
      Expr p[4] = {simp_mul(w[0].min, w[1].min), simp_mul(w[0].min, w[1].max()),
                   simp_mul(w[0].max(), w[1].min), simp_mul(w[0].max(), w[1].max())};
      return SymInterval::of_bounds(simp_min(simp_min(p[0], p[1]), simp_min(p[2], p[3])),
                                    simp_max(simp_max(p[0], p[1]), simp_max(p[2], p[3])));
    }
    default: break;
  }
  if (any_unbounded()) return SymInterval::everything();
  switch (n.op) {
    // I(e1 + e2) fig. 2.10b: [m1 + m2, l1 + l2 - 1].
    case Op::Add: return {simp_add(w[0].min, w[1].min), simp_sub(simp_add(w[0].len, w[1].len), simp_const(1)), false, nullptr, nullptr};
    // I(e1 - e2) (elided in fig. 2.10b): [lo1 - hi2, hi1 - lo2].
    case Op::Sub: return SymInterval::of_bounds(simp_sub(w[0].min, w[1].max()), simp_sub(w[0].max(), w[1].min));
    // I(-e) (elided in fig. 2.10b): [-hi, -lo], same length.
    case Op::Neg: return {simp_sub(simp_const(0), w[0].max()), w[0].len, false, nullptr, nullptr};
    // I(min(e1, e2)) (elided in fig. 2.10b): min is monotone in both operands.
    case Op::Min: return SymInterval::of_bounds(simp_min(w[0].min, w[1].min), simp_min(w[0].max(), w[1].max()));
    // I(max(e1, e2)) (elided in fig. 2.10b): likewise.
    case Op::Max: return SymInterval::of_bounds(simp_max(w[0].min, w[1].min), simp_max(w[0].max(), w[1].max()));
    // I(select(c, e1, e2)) (elided in fig. 2.10b): the hull of the branches (the
    // condition's value is not tracked; a constant one was folded by the simplifier).
    case Op::Select: return hull(w[1], w[2]);
    default: break;
  }
  return SymInterval::everything();  // unreachable: every operator is handled above
}

// The interval of every value of type t: its range for a type of at most 16 bits, and
// unbounded beyond (a range of 2^32 points bounds nothing usefully: β0 gives up on it as
// on any unbounded index, as the thesis's rules do on a func value).
SymInterval type_range(Type t) {
  if (t.bits() > 16) return SymInterval::everything();
  return SymInterval::of_bounds(make_const(t.min()), make_const(t.max()));
}

// Does the interval lie in t's range, with constant bounds?
bool within(const SymInterval& i, Type t) {
  if (i.unbounded) return false;
  auto lo = small_const(i.min), hi = small_const(i.max());
  return lo && hi && t.can_represent(Value(*lo)) && t.can_represent(Value(*hi));
}

// [FLOAT-INDEX] The least and greatest value of e over the intervals env gives its
// variables, as two expressions of e's own type (docs/floats.md, "Bounds"). IEEE rounding is
// monotone, so +, -, negation, min, max, floor, ceil, round, trunc and every cast keep the
// order of their operands; a product's extremes are among its corner products, and so are a
// quotient's by a divisor that does not vary. A float whose value halo cannot bound (a func
// value, an operator not listed) lies in [-inf, +inf]: a NaN anywhere makes the index's
// cast to an integer undefined, so it never needs bounding. Integer operators count only
// in Int(32) and Int(64), which do not wrap; an integer that cannot be bounded makes the
// whole nullopt, as does an unbounded variable.
std::optional<std::pair<Expr, Expr>> monotone_bounds(const Expr& e, const IntervalEnv& env) {
  auto rebuild = [](const OpNode& n, std::vector<Expr> args) -> Expr {
    return std::make_shared<OpNode>(n.op, std::move(args), n.loc, n.sugar, n.type);
  };
  auto unknown = [&]() -> std::optional<std::pair<Expr, Expr>> {
    if (!e->type.is_float()) return std::nullopt;
    return std::pair{make_const(make_float(e->type, -HUGE_VAL), e->loc, e->type),
                     make_const(make_float(e->type, HUGE_VAL), e->loc, e->type)};
  };
  switch (e->kind) {
    case ExprKind::Const: return std::pair{e, e};
    case ExprKind::Var: {
      auto it = env.vars.find(as<VarNode>(e).name);
      if (it == env.vars.end()) return std::pair{e, e};
      if (it->second.unbounded) return unknown();
      // A loop variable's bounds are ℤ (Int(32) in a typed target): typed as the variable is.
      Expr lo = it->second.min, hi = it->second.max();
      if (lo->type != e->type) lo = make_cast(e->type, lo, e->loc, OpSugar::ImplicitCast);
      if (hi->type != e->type) hi = make_cast(e->type, hi, e->loc, OpSugar::ImplicitCast);
      return std::pair{lo, hi};
    }
    case ExprKind::Op: break;
    default: return unknown();
  }
  const auto& n = as<OpNode>(e);
  bool integer_wraps = !n.type.is_float() && n.type.is_typed() && !(n.type.is_int() && n.type.bits() >= 32);
  std::vector<std::pair<Expr, Expr>> b;
  auto operands = [&](size_t k) {
    for (size_t i = 0; i < k; ++i) {
      auto x = monotone_bounds(n.args[i], env);
      if (!x) return false;
      b.push_back(*x);
    }
    return true;
  };
  // The extreme of several candidates, each written once (bounds grow with every stage
  // they pass through, so a repeated candidate would double at each).
  auto extreme = [&](Op op, std::vector<Expr> xs) {
    std::vector<Expr> distinct;
    for (const Expr& x : xs)
      if (std::none_of(distinct.begin(), distinct.end(), [&](const Expr& d) { return same_expr(d, x); }))
        distinct.push_back(x);
    Expr r = distinct[0];
    for (size_t i = 1; i < distinct.size(); ++i)
      r = std::make_shared<OpNode>(op, std::vector<Expr>{r, distinct[i]}, n.loc, OpSugar::None, n.type);
    return r;
  };
  // Operands that do not vary make e a point: e itself, written once.
  auto all_points = [&] {
    return std::all_of(b.begin(), b.end(), [](const auto& x) { return same_expr(x.first, x.second); });
  };
  auto point = [&]() -> std::optional<std::pair<Expr, Expr>> {
    std::vector<Expr> xs;
    for (const auto& x : b) xs.push_back(x.first);
    Expr r = rebuild(n, std::move(xs));
    return std::pair{r, r};
  };
  switch (n.op) {
    case Op::Cast: case Op::Floor: case Op::Ceil: case Op::Round: case Op::Trunc:
      if (n.op == Op::Cast && integer_wraps && !n.type.can_represent(n.args[0]->type)) return unknown();
      if (!operands(1)) return unknown();
      if (all_points()) return point();
      return std::pair{rebuild(n, {b[0].first}), rebuild(n, {b[0].second})};
    case Op::Neg:
      if (integer_wraps || !operands(1)) return unknown();
      if (all_points()) return point();
      return std::pair{rebuild(n, {b[0].second}), rebuild(n, {b[0].first})};
    case Op::Add: case Op::Min: case Op::Max:
      if (integer_wraps || !operands(2)) return unknown();
      if (all_points()) return point();
      return std::pair{rebuild(n, {b[0].first, b[1].first}), rebuild(n, {b[0].second, b[1].second})};
    case Op::Sub:
      if (integer_wraps || !operands(2)) return unknown();
      if (all_points()) return point();
      return std::pair{rebuild(n, {b[0].first, b[1].second}), rebuild(n, {b[0].second, b[1].first})};
    case Op::Mul: case Op::Div: {
      if (integer_wraps || !operands(2)) return unknown();
      if (all_points()) return point();
      bool point_divisor = same_expr(b[1].first, b[1].second);
      if (!n.type.is_float()) {  // an integer product or quotient: by a constant only
        if (n.args[1]->kind != ExprKind::Const || !as<ConstNode>(n.args[1]).value.is_int()) return std::nullopt;
        const Value& c = as<ConstNode>(n.args[1]).value;
        if (c.is_zero()) return n.op == Op::Mul ? std::optional(std::pair{n.args[1], n.args[1]}) : std::nullopt;
        Expr lo = rebuild(n, {b[0].first, n.args[1]}), hi = rebuild(n, {b[0].second, n.args[1]});
        return c.sign() < 0 ? std::pair{hi, lo} : std::pair{lo, hi};
      }
      if (n.op == Op::Div && !point_divisor) return unknown();
      // By a constant of known sign (on the right, or on the left of a product): ordered.
      for (size_t k : {size_t{1}, size_t{0}}) {
        if (k == 0 && n.op == Op::Div) break;
        if (n.args[k]->kind != ExprKind::Const) continue;
        const Value& c = as<ConstNode>(n.args[k]).value;
        if (!c.is_float() || c.is_nan() || c.as_double() == 0) continue;
        const auto& x = b[1 - k];
        auto with = [&](const Expr& v) { return rebuild(n, k == 1 ? std::vector<Expr>{v, n.args[1]} : std::vector<Expr>{n.args[0], v}); };
        if (std::signbit(c.as_double())) return std::pair{with(x.second), with(x.first)};
        return std::pair{with(x.first), with(x.second)};
      }
      std::vector<Expr> corners;
      for (const Expr& x : {b[0].first, b[0].second})
        for (const Expr& y : point_divisor ? std::vector<Expr>{b[1].first} : std::vector<Expr>{b[1].first, b[1].second})
          corners.push_back(rebuild(n, {x, y}));
      return std::pair{extreme(Op::Min, corners), extreme(Op::Max, corners)};
    }
    default: return unknown();
  }
}

// I(e) for a typed node whose value is not its operator's ℤ value (typed_sensitive,
// docs/types.md "Bounds"): every value of e has e's type, so the type's range bounds it;
// where the ℤ rule's interval lies inside the range no wrap can happen and it holds.
SymInterval typed_op_interval(const OpNode& n, const IntervalEnv& env) {
  Type t = n.type;
  // A float has no integer interval (docs/floats.md, "Bounds"): only its cast to an integer
  // type is bounded, through monotone_bounds; where that fails, by the type's range.
  if (t.is_float()) return SymInterval::everything();
  if (n.op == Op::Cast && n.args[0]->type.is_float()) {
    auto b = monotone_bounds(n.args[0], env);
    if (!b) return type_range(t);
    // Constant parts folded (Halide's float operators, exactly), so that an end computed
    // from an unknown float is seen to be infinite.
    Expr lo = simplify(b->first), hi = simplify(b->second);
    auto finite = [](const Expr& x) {
      return !(x->kind == ExprKind::Const && as<ConstNode>(x).value.is_float() &&
               !std::isfinite(as<ConstNode>(x).value.as_double()));
    };
    if (finite(lo) && finite(hi)) return SymInterval::of_bounds(make_cast(t, lo, n.loc), make_cast(t, hi, n.loc));
    // One end known: β1 keeps it (a half-bounded interval, which a clamp completes).
    if (env.rules && env.rules->func_values && (finite(lo) || finite(hi)))
      return SymInterval::half(finite(lo) ? make_cast(t, lo, n.loc) : nullptr, finite(hi) ? make_cast(t, hi, n.loc) : nullptr);
    return type_range(t);
  }
  std::vector<SymInterval> w;
  for (const Expr& a : n.args) w.push_back(interval_of(a, env));
  switch (n.op) {
    // A cast to a type that holds every value of the operand's type changes no value; one
    // of an operand inside the target's range neither; a saturating cast clamps.
    case Op::Cast:
      if (t.can_represent(n.args[0]->type) || within(w[0], t)) return w[0];
      return type_range(t);
    case Op::SaturatingCast:
      if (t.can_represent(n.args[0]->type) || within(w[0], t)) return w[0];
      if (w[0].unbounded || t.bits() > 16) return type_range(t);
      return SymInterval::of_bounds(simp_min(simp_max(w[0].min, make_const(t.min())), make_const(t.max())),
                                    simp_max(simp_min(w[0].max(), make_const(t.max())), make_const(t.min())));
    // min, max and select choose one of their operands (of type t): no wrap.
    case Op::Min: case Op::Max: case Op::Select: return op_interval_beta0(n, w);
    // ℤ's operators on a wrapping type: ℤ's interval where it stays inside the range.
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Mod: case Op::Neg: {
      SymInterval z = op_interval_beta0(n, w);
      return within(z, t) ? z : type_range(t);
    }
    default: return type_range(t);  // comparisons (bool), bitwise operators, intrinsics
  }
}

}  // namespace

ExprVars vars_of(const Expr& e) {
  struct Collect : ExprVisitor {
    ExprVars out;
    void visit_var(const VarNode& n) override { out.vars.insert(n.name); }
    void visit_hole(const HoleNode&) override { out.holes = true; }
  } c;
  c.visit(e);
  return std::move(c.out);
}

SymInterval interval_of(const Expr& e, const IntervalEnv& env) {
  switch (e->kind) {
    // I(c) fig. 2.10b: [c, 1]. An error constant is no integer: nothing to bound it by.
    case ExprKind::Const:
      return as<ConstNode>(e).value.is_int() ? SymInterval::point(e) : SymInterval::everything();
    // I(v) fig. 2.10b: Γ(v); a variable Γ does not bind is itself (it stays symbolic).
    case ExprKind::Var: {
      auto it = env.vars.find(as<VarNode>(e).name);
      return it == env.vars.end() ? SymInterval::point(e) : it->second;
    }
    // I(f[ē]) fig. 2.10b: [-∞, ∞] — β0 knows nothing of func values; β1 bounds them at
    // the point read (bounds/func_values.hpp).
    // A typed program's func of a narrow type holds only values of that type
    // (docs/types.md "Bounds"), which bounds a read of it as Halide's bounds inference does.
    case ExprKind::Call: {
      SymInterval of_type = e->type.is_typed() ? type_range(e->type) : SymInterval::everything();
      if (env.rules && env.rules->func_values) {
        // β1's value bounds at the point read, or, where they know nothing (an input
        // buffer's value), the type's range, which holds whatever was stored.
        SymInterval v = env.rules->func_values->of_read(as<CallNode>(e), env);
        if (v.unbounded && !v.lower && !v.upper && !of_type.unbounded) return of_type;
        return v;
      }
      return of_type;
    }
    // I(?ℓ) (elided in fig. 2.10b): Γ(?ℓ) once determined, unbounded before.
    case ExprKind::Hole: {
      auto it = env.holes.find(as<HoleNode>(e).label);
      return it == env.holes.end() ? SymInterval::everything() : it->second;
    }
    case ExprKind::Op: {
      if (typed_sensitive(as<OpNode>(e))) return typed_op_interval(as<OpNode>(e), env);
      if (env.rules && env.rules->literal) return op_interval(as<OpNode>(e), env);
      Expr s = simplify(e);  // a select with a constant condition, 0 * f[x], ... fold first
      if (s->kind != ExprKind::Op) return interval_of(s, env);
      return op_interval(as<OpNode>(s), env);
    }
  }
  return SymInterval::everything();
}

}  // namespace halo

// The bounds simplifier (simplify.hpp). Every rewrite is an identity over the integers;
// docs/beta0.md lists them.
#include "bounds/simplify.hpp"
#include "support/command_budget.hpp"

#include "semantics/printer.hpp"
#include "semantics/type_ops.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <functional>
#include <utility>

namespace halo {

namespace {

// c0 + Σ ci * ti, with the terms keyed by their printed text so that structurally equal
// terms (which print alike) collect into one coefficient.
struct Linear {
  Value constant = Value(int64_t{0});
  std::map<std::string, std::pair<Expr, Value>> terms;
};

bool is_int_const(const Expr& e) { return e->kind == ExprKind::Const && as<ConstNode>(e).value.is_int(); }

// acc += scale * e, in linear form: walks +, -, unary - and products by a constant;
// everything else is an opaque term. One map for the whole walk (a term keeps the first
// expression met for its key, left to right).
void linearize_into(Linear& acc, const Expr& e, const Value& scale) {
  if (is_int_const(e)) {
    acc.constant = add(acc.constant, mul(as<ConstNode>(e).value, scale));
    return;
  }
  if (e->kind == ExprKind::Op) {
    const auto& n = as<OpNode>(e);
    switch (n.op) {
      case Op::Add: linearize_into(acc, n.args[0], scale); linearize_into(acc, n.args[1], scale); return;
      case Op::Sub:
        linearize_into(acc, n.args[0], scale);
        linearize_into(acc, n.args[1], sub(Value(int64_t{0}), scale));
        return;
      case Op::Neg: linearize_into(acc, n.args[0], sub(Value(int64_t{0}), scale)); return;
      case Op::Mul:
        if (is_int_const(n.args[0])) { linearize_into(acc, n.args[1], mul(scale, as<ConstNode>(n.args[0]).value)); return; }
        if (is_int_const(n.args[1])) { linearize_into(acc, n.args[0], mul(scale, as<ConstNode>(n.args[1]).value)); return; }
        break;
      default: break;
    }
  }
  auto [it, fresh] = acc.terms.try_emplace(print_expr(e), e, Value(int64_t{0}));
  it->second.second = add(it->second.second, scale);
}

// The linear form of a (simplified) expression.
Linear linearize(const Expr& e) {
  Linear out;
  linearize_into(out, e, Value(int64_t{1}));
  return out;
}

// The canonical expression of a linear form: positive terms (in key order), then the
// negative ones subtracted, then the constant added or subtracted — `x_min + x_len - 1`
// rather than `-1 + x_len + x_min`, so that filled holes read naturally.
Expr rebuild(const Linear& l) {
  Expr acc;
  auto scaled = [](const Expr& t, const Value& c) {
    return c == Value(int64_t{1}) ? t : make_op(Op::Mul, {t, make_const(c)});
  };
  for (const auto& [key, tc] : l.terms)
    if (tc.second.sign() > 0) acc = acc ? make_op(Op::Add, {acc, scaled(tc.first, tc.second)}) : scaled(tc.first, tc.second);
  for (const auto& [key, tc] : l.terms) {
    if (tc.second.sign() >= 0) continue;
    Expr t = scaled(tc.first, sub(Value(int64_t{0}), tc.second));
    acc = acc ? make_op(Op::Sub, {acc, t}) : make_op(Op::Neg, {t});
  }
  if (!acc) return make_const(l.constant);
  int s = l.constant.sign();
  if (s > 0) return make_op(Op::Add, {acc, make_const(l.constant)});
  if (s < 0) return make_op(Op::Sub, {acc, make_const(sub(Value(int64_t{0}), l.constant))});
  return acc;
}

// b - a when it is a constant.
std::optional<Value> constant_difference(const Expr& a, const Expr& b) {
  Linear d = linearize(b);
  linearize_into(d, a, Value(int64_t{-1}));
  for (const auto& [key, tc] : d.terms)
    if (!tc.second.is_zero()) return std::nullopt;
  return d.constant;
}

bool is_const(const Expr& e, int64_t c) { return is_int_const(e) && as<ConstNode>(e).value == Value(c); }

// One rewrite step at the root; the operands are already simplified.
Expr simplify_top(Op op, std::vector<Expr> args, SourceLoc loc) {
  bool all_const = true;
  for (const Expr& a : args) all_const = all_const && a->kind == ExprKind::Const;
  if (all_const) {
    std::vector<Value> vs;
    for (const Expr& a : args) vs.push_back(as<ConstNode>(a).value);
    return make_const(apply_op(op, vs), loc);
  }
  switch (op) {
    case Op::Add: case Op::Sub: case Op::Neg:
      return rebuild(linearize(make_op(op, args, loc)));
    case Op::Mul:
      if (is_int_const(args[0]) || is_int_const(args[1])) return rebuild(linearize(make_op(op, args, loc)));
      break;
    case Op::Div:
      if (is_const(args[1], 1)) return args[0];
      if (is_const(args[1], -1)) return simplify_top(Op::Neg, {args[0]}, loc);
      if (is_const(args[0], 0)) return args[0];  // 0 / y = 0, also for y = 0
      break;
    case Op::Mod:
      if (is_const(args[1], 1) || is_const(args[1], -1) || is_const(args[0], 0)) return make_const(Value(int64_t{0}), loc);
      break;
    case Op::Min: case Op::Max: {
      // A chain min(min(a, b), c) is flattened to its operands, and an operand another one
      // dominates by a constant (min(x, x + 3): x + 3) or repeats is dropped: interval
      // arithmetic over deep pipelines builds such chains, and unshared they grow
      // exponentially with the depth (docs/benchmarks.md, the pyramid).
      std::vector<Expr> ops;
      std::function<void(const Expr&)> flatten = [&](const Expr& e) {
        if (e->kind == ExprKind::Op && as<OpNode>(e).op == op) {
          for (const Expr& a : as<OpNode>(e).args) flatten(a);
          return;
        }
        for (Expr& o : ops) {
          if (auto d = constant_difference(o, e)) {  // d = e - o
            bool e_wins = op == Op::Min ? d->sign() < 0 : d->sign() > 0;
            if (e_wins) o = e;
            return;
          }
        }
        ops.push_back(e);
      };
      for (const Expr& a : args) flatten(a);
      if (ops.size() == 1) return ops[0];
      if (ops.size() == args.size() && args.size() == 2 && ops[0] == args[0] && ops[1] == args[1])
        return make_op(op, std::move(args), loc);
      Expr out = ops[0];
      for (size_t k = 1; k < ops.size(); ++k) out = make_op(op, {out, ops[k]}, loc);
      return out;
    }
    case Op::Lt: case Op::Gt: case Op::Eq: case Op::Le: case Op::Ge: case Op::Ne:
      if (auto d = constant_difference(args[1], args[0])) {  // d = a - b: compare d with 0
        std::array<Value, 2> vs = {*d, Value(int64_t{0})};
        return make_const(apply_op(op, vs), loc);
      }
      break;
    case Op::Select:
      if (is_int_const(args[0])) return as<ConstNode>(args[0]).value.is_zero() ? args[2] : args[1];
      if (same_expr(args[1], args[2])) return args[1];
      break;
    default: break;
  }
  return make_op(op, std::move(args), loc);
}

}  // namespace

bool typed_sensitive(const OpNode& n) {
  return n.type.is_typed() && (is_halide_op(n.op) || n.type.wraps() || n.type.is_float());
}

Expr simplify(const Expr& e) {
  if (!e || e->kind != ExprKind::Op) return e;
  tick_command_budget();  // bounds inference and lifting poll the command's budget
  const auto& n = as<OpNode>(e);
  std::vector<Expr> args;
  args.reserve(n.args.size());
  bool all_const = true;
  for (const Expr& a : n.args) {
    args.push_back(simplify(a));
    all_const = all_const && args.back()->kind == ExprKind::Const;
  }
  if (typed_sensitive(n)) {
    if (!all_const) return std::make_shared<OpNode>(n.op, std::move(args), n.loc, n.sugar, n.type);
    std::vector<Value> vs;
    for (const Expr& a : args) vs.push_back(as<ConstNode>(a).value);
    return make_const(apply_op_node(n, vs), n.loc, n.type);
  }
  return simplify_top(n.op, std::move(args), e->loc);
}

std::optional<Value> const_value(const Expr& e) {
  Expr s = simplify(e);
  if (s->kind == ExprKind::Const) return as<ConstNode>(s).value;
  return std::nullopt;
}

Expr simp_op(Op op, std::vector<Expr> args) { return simplify_top(op, std::move(args), {}); }
Expr simp_add(const Expr& a, const Expr& b) { return simp_op(Op::Add, {a, b}); }
Expr simp_sub(const Expr& a, const Expr& b) { return simp_op(Op::Sub, {a, b}); }
Expr simp_mul(const Expr& a, const Expr& b) { return simp_op(Op::Mul, {a, b}); }
Expr simp_min(const Expr& a, const Expr& b) { return simp_op(Op::Min, {a, b}); }
Expr simp_max(const Expr& a, const Expr& b) { return simp_op(Op::Max, {a, b}); }
Expr simp_const(int64_t c) { return make_const(Value(c)); }

}  // namespace halo

// ---------------------------------------------------------------- simplify_with_ranges
// (simplify.hpp). Every rewrite below is an identity over ℤ with halo's operators
// (Euclidean div/mod, x / 0 = x % 0 = 0), given the facts that hold where the rewritten
// expression is evaluated (the conditions of the selects around it); docs/beta0.md.
namespace halo {

namespace {

// A set of integers [lo, hi]; an absent end is unbounded. lo > hi is the empty set (only
// met where the facts contradict each other, i.e. in a branch that is never taken).
struct Range {
  std::optional<Value> lo, hi;
  static Range point(const Value& v) { return {v, v}; }
  static Range boolean() { return {Value(int64_t{0}), Value(int64_t{1})}; }
  std::optional<Value> single() const {
    if (lo && hi && compare(*lo, *hi) == 0) return lo;
    return std::nullopt;
  }
  bool empty() const { return lo && hi && compare(*lo, *hi) > 0; }
  bool excludes_zero() const { return (lo && lo->sign() > 0) || (hi && hi->sign() < 0); }
  bool is_zero() const { return lo && hi && lo->is_zero() && hi->is_zero(); }
  bool within_01() const { return lo && hi && lo->sign() >= 0 && compare(*hi, Value(int64_t{1})) <= 0; }
};

const Value kZero = Value(int64_t{0});
const Value kOne = Value(int64_t{1});

Value vmin(const Value& a, const Value& b) { return compare(a, b) <= 0 ? a : b; }
Value vmax(const Value& a, const Value& b) { return compare(a, b) >= 0 ? a : b; }
Value vneg(const Value& a) { return sub(kZero, a); }
Value vabs(const Value& a) { return a.sign() < 0 ? vneg(a) : a; }
bool ge(const Value& a, const Value& b) { return compare(a, b) >= 0; }
// ⌈a / b⌉ and ⌊a / b⌋ for b > 0 (halo's div is the floor for a positive divisor).
Value floor_div(const Value& a, const Value& b) { return div(a, b); }
Value ceil_div(const Value& a, const Value& b) { return vneg(div(vneg(a), b)); }

std::optional<Value> opt_add(const std::optional<Value>& a, const std::optional<Value>& b) {
  if (a && b) return add(*a, *b);
  return std::nullopt;
}
Range neg_range(const Range& r) {
  return {r.hi ? std::optional<Value>(vneg(*r.hi)) : std::nullopt, r.lo ? std::optional<Value>(vneg(*r.lo)) : std::nullopt};
}
Range add_range(const Range& a, const Range& b) { return {opt_add(a.lo, b.lo), opt_add(a.hi, b.hi)}; }
Range scale_range(const Range& r, const Value& k) {
  if (k.is_zero()) return Range::point(kZero);
  auto m = [&](const std::optional<Value>& v) { return v ? std::optional<Value>(mul(*v, k)) : std::nullopt; };
  return k.sign() > 0 ? Range{m(r.lo), m(r.hi)} : Range{m(r.hi), m(r.lo)};
}
Range hull(const Range& a, const Range& b) {
  Range out;
  if (a.lo && b.lo) out.lo = vmin(*a.lo, *b.lo);
  if (a.hi && b.hi) out.hi = vmax(*a.hi, *b.hi);
  return out;
}
Range intersect(const Range& a, const Range& b) {
  Range out = a;
  if (b.lo) out.lo = out.lo ? vmax(*out.lo, *b.lo) : *b.lo;
  if (b.hi) out.hi = out.hi ? vmin(*out.hi, *b.hi) : *b.hi;
  return out;
}

// What is known in one place: the ranges of variables (from the select conditions around).
struct Context {
  std::map<std::string, Range> facts;
  std::map<const ExprNode*, std::pair<Expr, Range>> ranges;  // memo, keeps its keys alive
  std::map<const ExprNode*, std::pair<Expr, Expr>> simplified;  // memo
};

std::optional<Value> int_const(const Expr& e) {
  if (is_int_const(e)) return as<ConstNode>(e).value;
  return std::nullopt;
}

bool untyped_op(const Expr& e) { return e->kind == ExprKind::Op && !typed_sensitive(as<OpNode>(e)); }

Range range_of(const Expr& e, Context& cx);
Range diff_range(const Expr& a, const Expr& b, Context& cx);

Range compute_range(const Expr& e, Context& cx) {
  if (e->kind == ExprKind::Const) {
    if (auto v = int_const(e)) return Range::point(*v);
    return {};
  }
  if (e->kind == ExprKind::Var) {
    auto it = cx.facts.find(as<VarNode>(e).name);
    return it == cx.facts.end() ? Range{} : it->second;
  }
  if (!untyped_op(e)) return {};
  const auto& n = as<OpNode>(e);
  auto r = [&](size_t i) { return range_of(n.args[i], cx); };
  switch (n.op) {
    case Op::Add: return add_range(r(0), r(1));
    case Op::Sub: return add_range(r(0), neg_range(r(1)));
    case Op::Neg: return neg_range(r(0));
    case Op::Mul: {
      Range a = r(0), b = r(1);
      if (auto k = b.single()) return scale_range(a, *k);
      if (auto k = a.single()) return scale_range(b, *k);
      if (a.lo && a.hi && b.lo && b.hi) {
        Value p[4] = {mul(*a.lo, *b.lo), mul(*a.lo, *b.hi), mul(*a.hi, *b.lo), mul(*a.hi, *b.hi)};
        Range out = Range::point(p[0]);
        for (const Value& v : p) out = hull(out, Range::point(v));
        return out;
      }
      if (a.lo && b.lo && a.lo->sign() >= 0 && b.lo->sign() >= 0)
        return {mul(*a.lo, *b.lo), a.hi && b.hi ? std::optional<Value>(mul(*a.hi, *b.hi)) : std::nullopt};
      return {};
    }
    case Op::Div: {
      Range a = r(0), b = r(1);
      if (auto k = b.single()) {
        if (k->is_zero()) return Range::point(kZero);
        Value m = vabs(*k);
        auto d = [&](const std::optional<Value>& v) { return v ? std::optional<Value>(floor_div(*v, m)) : std::nullopt; };
        Range out{d(a.lo), d(a.hi)};  // a / |k|, monotone
        return k->sign() > 0 ? out : neg_range(out);  // a / k = -(a / |k|) for k < 0
      }
      // |a / b| <= |a| (and a / 0 = 0).
      if (a.lo && a.hi) {
        Value m = vmax(vabs(*a.lo), vabs(*a.hi));
        return {vneg(m), m};
      }
      return {};
    }
    case Op::Mod: {
      Range a = r(0), b = r(1);
      if (auto k = b.single()) {
        if (k->is_zero()) return Range::point(kZero);
        Value top = sub(vabs(*k), kOne);
        if (a.lo && a.hi && a.lo->sign() >= 0 && compare(*a.hi, top) <= 0) return a;  // a % k = a
        return {kZero, top};
      }
      if (b.lo && b.hi) return {kZero, vmax(kZero, sub(vmax(vabs(*b.lo), vabs(*b.hi)), kOne))};
      return {kZero, std::nullopt};
    }
    case Op::Min: case Op::Max: {
      Range a = r(0), b = r(1);
      bool is_min = n.op == Op::Min;
      auto pick = [&](const std::optional<Value>& x, const std::optional<Value>& y, bool both_needed) -> std::optional<Value> {
        if (x && y) return is_min ? vmin(*x, *y) : vmax(*x, *y);
        if (both_needed) return std::nullopt;
        return x ? x : y;
      };
      // min: lo needs both ends, hi needs one; max: the other way round.
      return {pick(a.lo, b.lo, is_min), pick(a.hi, b.hi, !is_min)};
    }
    case Op::Select: {
      Range c = r(0);
      if (c.excludes_zero()) return r(1);
      if (c.is_zero()) return r(2);
      return hull(r(1), r(2));
    }
    case Op::Lt: case Op::Gt: case Op::Le: case Op::Ge: case Op::Eq: case Op::Ne: {
      Range d = diff_range(n.args[0], n.args[1], cx);  // a - b
      auto positive = [](const std::optional<Value>& v) { return v && v->sign() > 0; };
      auto negative = [](const std::optional<Value>& v) { return v && v->sign() < 0; };
      bool gt = positive(d.lo), lt = negative(d.hi);                    // surely a > b, a < b
      bool ge_ = d.lo && d.lo->sign() >= 0, le_ = d.hi && d.hi->sign() <= 0;  // surely a >= b, a <= b
      std::optional<bool> t;
      switch (n.op) {
        case Op::Lt: if (lt) t = true; else if (ge_) t = false; break;
        case Op::Gt: if (gt) t = true; else if (le_) t = false; break;
        case Op::Le: if (le_) t = true; else if (gt) t = false; break;
        case Op::Ge: if (ge_) t = true; else if (lt) t = false; break;
        case Op::Eq: if (ge_ && le_) t = true; else if (gt || lt) t = false; break;
        case Op::Ne: if (ge_ && le_) t = false; else if (gt || lt) t = true; break;
        default: break;
      }
      return t ? Range::point(*t ? kOne : kZero) : Range::boolean();
    }
    case Op::And: case Op::Or: {
      Range a = r(0), b = r(1);
      if (n.op == Op::And) {
        if (a.is_zero() || b.is_zero()) return Range::point(kZero);
        if (a.excludes_zero() && b.excludes_zero()) return Range::point(kOne);
      } else {
        if (a.excludes_zero() || b.excludes_zero()) return Range::point(kOne);
        if (a.is_zero() && b.is_zero()) return Range::point(kZero);
      }
      return Range::boolean();
    }
    case Op::Not: {
      Range a = r(0);
      if (a.is_zero()) return Range::point(kOne);
      if (a.excludes_zero()) return Range::point(kZero);
      return Range::boolean();
    }
    default: return {};
  }
}

Range range_of(const Expr& e, Context& cx) {
  auto it = cx.ranges.find(e.get());
  if (it != cx.ranges.end()) return it->second.second;
  Range out = compute_range(e, cx);
  cx.ranges.emplace(e.get(), std::make_pair(e, out));
  return out;
}

// The range of a - b, from their linear forms (so that common terms cancel), with each
// m·(e / c) whose coefficient m is a multiple of the constant c ≠ 0 written (m / c)·(e - e % c)
// (Euclid: c·(e / c) = e - e % c), so that e.g. (y + 7) / 8 * 8 - y is seen in [0, 7].
Range diff_range(const Expr& a, const Expr& b, Context& cx) {
  Linear l = linearize(a);
  linearize_into(l, b, Value(int64_t{-1}));
  Linear out;
  out.constant = l.constant;
  for (const auto& [key, tc] : l.terms) {
    const auto& [t, m] = tc;
    if (m.is_zero()) continue;
    if (untyped_op(t) && as<OpNode>(t).op == Op::Div) {
      const Expr& e = as<OpNode>(t).args[0];
      auto c = int_const(as<OpNode>(t).args[1]);
      if (c && !c->is_zero() && mod(m, *c).is_zero()) {
        Value q = div(m, *c);  // exact
        linearize_into(out, e, q);
        linearize_into(out, make_op(Op::Mod, {e, make_const(*c)}), vneg(q));
        continue;
      }
    }
    linearize_into(out, t, m);
  }
  Range r = Range::point(out.constant);
  for (const auto& [key, tc] : out.terms)
    if (!tc.second.is_zero()) r = add_range(r, scale_range(range_of(tc.first, cx), tc.second));
  return r;
}

Op flip(Op op) {  // a op b = b flip(op) a
  switch (op) {
    case Op::Lt: return Op::Gt;
    case Op::Gt: return Op::Lt;
    case Op::Le: return Op::Ge;
    case Op::Ge: return Op::Le;
    default: return op;
  }
}

Value gcd(Value a, Value b) {
  a = vabs(a), b = vabs(b);
  while (!b.is_zero()) {
    Value t = mod(a, b);
    a = b;
    b = t;
  }
  return a;
}

// `t op k` with op one of >=, <=, ==, != and k a constant, in canonical form: t's constant
// moved into k, a common factor of t's coefficients divided out, a t whose coefficients
// are all negative negated, then t = e / c, max(a, c), min(a, c) peeled; decided when
// t's range decides it.
Expr normalize_cmp(Op op, const Expr& t0, Value k, Context& cx) {
  Linear l = linearize(t0);
  k = sub(k, l.constant);
  l.constant = kZero;
  Value g = kZero;  // the gcd of t's coefficients
  bool all_negative = true;
  for (auto& [key, tc] : l.terms) {
    if (tc.second.is_zero()) continue;
    g = gcd(g, tc.second);
    all_negative = all_negative && tc.second.sign() < 0;
  }
  if (g.is_zero()) {  // no term left: t is the constant 0
    std::array<Value, 2> vs = {kZero, k};
    return make_const(apply_op(op, vs));
  }
  if (all_negative) {  // t op k ⟺ -t flip(op) -k
    for (auto& [key, tc] : l.terms) tc.second = vneg(tc.second);
    k = vneg(k);
    op = flip(op);
  }
  // t = g·t' exactly; t' op k / g, rounded inwards.
  for (auto& [key, tc] : l.terms) tc.second = div(tc.second, g);
  switch (op) {
    case Op::Ge: k = ceil_div(k, g); break;
    case Op::Le: k = floor_div(k, g); break;
    case Op::Eq: case Op::Ne:
      if (!mod(k, g).is_zero()) return make_const(op == Op::Eq ? kZero : kOne);
      k = floor_div(k, g);
      break;
    default: break;
  }
  Expr t = rebuild(l);
  // Peel t.
  if (untyped_op(t) && (op == Op::Ge || op == Op::Le)) {
    const auto& n = as<OpNode>(t);
    if (n.op == Op::Div) {
      if (auto c = int_const(n.args[1]); c && c->sign() > 0) {
        // ⌊e / c⌋ >= k ⟺ e >= k·c;  ⌊e / c⌋ <= k ⟺ e <= k·c + c - 1.
        Value bound = op == Op::Ge ? mul(k, *c) : sub(add(mul(k, *c), *c), kOne);
        return normalize_cmp(op, n.args[0], bound, cx);
      }
    }
    if (n.op == Op::Max || n.op == Op::Min) {
      for (int i = 0; i < 2; ++i) {
        auto c = int_const(n.args[i]);
        if (!c) continue;
        const Expr& a = n.args[1 - i];
        bool is_max = n.op == Op::Max;
        // max(a, c) >= k ⟺ a >= k || c >= k;  max(a, c) <= k ⟺ a <= k && c <= k;
        // min(a, c) >= k ⟺ a >= k && c >= k;  min(a, c) <= k ⟺ a <= k || c <= k.
        bool c_holds = op == Op::Ge ? ge(*c, k) : ge(k, *c);
        bool disjunction = is_max == (op == Op::Ge);
        if (disjunction) return c_holds ? make_const(kOne) : normalize_cmp(op, a, k, cx);
        return c_holds ? normalize_cmp(op, a, k, cx) : make_const(kZero);
      }
    }
  }
  Range r = diff_range(t, make_const(kZero), cx);
  switch (op) {
    case Op::Ge:
      if (r.lo && ge(*r.lo, k)) return make_const(kOne);
      if (r.hi && compare(*r.hi, k) < 0) return make_const(kZero);
      break;
    case Op::Le:
      if (r.hi && ge(k, *r.hi)) return make_const(kOne);
      if (r.lo && compare(*r.lo, k) > 0) return make_const(kZero);
      break;
    case Op::Eq: case Op::Ne: {
      bool outside = (r.lo && compare(*r.lo, k) > 0) || (r.hi && compare(*r.hi, k) < 0);
      bool is_k = r.single() && compare(*r.single(), k) == 0;
      if (outside || is_k) return make_const((is_k == (op == Op::Eq)) ? kOne : kZero);
      break;
    }
    default: break;
  }
  return make_op(op, {t, make_const(k)});
}

// A comparison a op b (operands simplified): normalized when one side is a constant.
Expr simplify_cmp(Op op, const Expr& a, const Expr& b, Context& cx) {
  auto ka = int_const(a), kb = int_const(b);
  if (ka && kb) {
    std::array<Value, 2> vs = {*ka, *kb};
    return make_const(apply_op(op, vs));
  }
  // A float comparison (a typed program's) is left alone: x > 1 is not x >= 2 there.
  bool is_float = a->type.is_float() || b->type.is_float();
  if ((!ka && !kb) || is_float) {
    Expr e = make_op(op, {a, b});
    if (auto v = range_of(e, cx).single()) return make_const(*v);
    return e;
  }
  Expr t = ka ? b : a;
  Value k = ka ? *ka : *kb;
  if (ka) op = flip(op);  // k op t ⟺ t flip(op) k
  switch (op) {
    case Op::Gt: return normalize_cmp(Op::Ge, t, add(k, kOne), cx);
    case Op::Lt: return normalize_cmp(Op::Le, t, sub(k, kOne), cx);
    default: return normalize_cmp(op, t, k, cx);
  }
}

// The negation of a comparison, as a comparison (!(a >= k) is a <= k - 1), when it is one.
std::optional<Expr> negate_cmp(const Expr& e, Context& cx) {
  if (!untyped_op(e)) return std::nullopt;
  const auto& n = as<OpNode>(e);
  Op neg;
  switch (n.op) {
    case Op::Lt: neg = Op::Ge; break;
    case Op::Ge: neg = Op::Lt; break;
    case Op::Gt: neg = Op::Le; break;
    case Op::Le: neg = Op::Gt; break;
    case Op::Eq: neg = Op::Ne; break;
    case Op::Ne: neg = Op::Eq; break;
    default: return std::nullopt;
  }
  return simplify_cmp(neg, n.args[0], n.args[1], cx);
}

// The facts `var >= k`, `var <= k`, `var == k` among the conjuncts of a (simplified,
// normalized) condition known to hold.
void facts_of(const Expr& c, std::map<std::string, Range>& facts) {
  if (!untyped_op(c)) return;
  const auto& n = as<OpNode>(c);
  if (n.op == Op::And) {
    facts_of(n.args[0], facts);
    facts_of(n.args[1], facts);
    return;
  }
  if (n.args.size() != 2 || n.args[0]->kind != ExprKind::Var) return;
  auto k = int_const(n.args[1]);
  if (!k) return;
  Range r;
  switch (n.op) {
    case Op::Ge: r.lo = *k; break;
    case Op::Gt: r.lo = add(*k, kOne); break;
    case Op::Le: r.hi = *k; break;
    case Op::Lt: r.hi = sub(*k, kOne); break;
    case Op::Eq: r = Range::point(*k); break;
    default: return;
  }
  const std::string& name = as<VarNode>(n.args[0]).name;
  auto it = facts.find(name);
  facts[name] = it == facts.end() ? r : intersect(it->second, r);
}

// The facts that hold where the (simplified) condition c is false: the negations of its
// disjuncts.
void facts_of_negation(const Expr& c, Context& cx, std::map<std::string, Range>& facts) {
  if (!untyped_op(c)) return;
  const auto& n = as<OpNode>(c);
  if (n.op == Op::Or) {
    facts_of_negation(n.args[0], cx, facts);
    facts_of_negation(n.args[1], cx, facts);
    return;
  }
  if (auto neg = negate_cmp(c, cx)) facts_of(*neg, facts);
}

bool contradictory(const std::map<std::string, Range>& facts) {
  for (const auto& [name, r] : facts)
    if (r.empty()) return true;
  return false;
}

Expr simp_ranges(const Expr& e, Context& cx);

// Range rewrites at the root of r (whose operands are simplified under cx).
Expr post(const Expr& r, Context& cx) {
  if (!untyped_op(r)) return r;
  const auto& n = as<OpNode>(r);
  switch (n.op) {
    case Op::Lt: case Op::Gt: case Op::Le: case Op::Ge: case Op::Eq: case Op::Ne:
      return simplify_cmp(n.op, n.args[0], n.args[1], cx);
    default: break;
  }
  if (auto v = range_of(r, cx).single()) return make_const(*v);
  switch (n.op) {
    case Op::Min: case Op::Max: {
      // Drop an operand that another one dominates by their ranges: max(a, b) = a when
      // lo(a) >= hi(b).
      std::vector<Expr> ops;
      std::function<void(const Expr&)> flatten = [&](const Expr& x) {
        if (untyped_op(x) && as<OpNode>(x).op == n.op) {
          for (const Expr& a : as<OpNode>(x).args) flatten(a);
          return;
        }
        ops.push_back(x);
      };
      flatten(r);
      // A term every operand has with the same coefficient comes out:
      // max(a + t, b + t) = max(a, b) + t.
      {
        Linear common = linearize(ops[0]);
        common.constant = kZero;
        for (size_t i = 1; i < ops.size(); ++i) {
          Linear li = linearize(ops[i]);
          for (auto it = common.terms.begin(); it != common.terms.end();) {
            auto jt = li.terms.find(it->first);
            if (it->second.second.is_zero() || jt == li.terms.end() || jt->second.second != it->second.second)
              it = common.terms.erase(it);
            else
              ++it;
          }
        }
        if (!common.terms.empty()) {
          Expr t = rebuild(common);
          Expr inner;
          for (const Expr& o : ops) inner = inner ? simp_op(n.op, {inner, simp_sub(o, t)}) : simp_sub(o, t);
          return simp_add(post(inner, cx), t);
        }
      }
      bool is_max = n.op == Op::Max;
      size_t before = ops.size();
      for (size_t i = 0; i < ops.size();) {
        Range ri = range_of(ops[i], cx);
        bool dominated = false;
        for (size_t j = 0; j < ops.size() && !dominated; ++j) {
          if (j == i) continue;
          Range rj = range_of(ops[j], cx);
          dominated = is_max ? (rj.lo && ri.hi && ge(*rj.lo, *ri.hi)) : (rj.hi && ri.lo && ge(*ri.lo, *rj.hi));
          if (!dominated) {  // by their difference: max(a, b) = a when a - b >= 0
            Range d = diff_range(ops[j], ops[i], cx);
            dominated = is_max ? (d.lo && d.lo->sign() >= 0) : (d.hi && d.hi->sign() <= 0);
          }
        }
        if (dominated) ops.erase(ops.begin() + long(i));
        else ++i;
      }
      if (ops.size() == before) return r;
      Expr out = ops[0];
      for (size_t k = 1; k < ops.size(); ++k) out = simp_op(n.op, {out, ops[k]});
      return out;
    }
    case Op::Mod: {
      // a % k = a when 0 <= a < |k|.
      auto k = int_const(n.args[1]);
      Range a = range_of(n.args[0], cx);
      if (k && !k->is_zero() && a.lo && a.hi && a.lo->sign() >= 0 && compare(*a.hi, vabs(*k)) < 0) return n.args[0];
      return r;
    }
    case Op::And: case Op::Or: {
      // a && b = b when a is surely true and b is 0 or 1; a || b = b when a is surely false.
      bool is_and = n.op == Op::And;
      for (int i = 0; i < 2; ++i) {
        Range a = range_of(n.args[i], cx);
        bool neutral = is_and ? a.excludes_zero() : a.is_zero();
        if (neutral && range_of(n.args[1 - i], cx).within_01()) return n.args[1 - i];
      }
      // Absorption over the chain a1 && a2 && ... (a1 || a2 || ...): an operand implied by
      // another one (whose disjuncts are among its disjuncts; for ||, which implies another
      // one: whose conjuncts include the other's) is dropped, when all are 0 or 1.
      const Op joint = is_and ? Op::Or : Op::And;
      std::function<void(const Expr&, Op, std::vector<Expr>&)> flatten = [&](const Expr& y, Op o, std::vector<Expr>& out) {
        if (untyped_op(y) && as<OpNode>(y).op == o) {
          for (const Expr& z : as<OpNode>(y).args) flatten(z, o, out);
          return;
        }
        out.push_back(y);
      };
      std::vector<Expr> chain;
      flatten(r, n.op, chain);
      std::vector<std::set<std::string>> parts;
      for (const Expr& x : chain) {
        if (!range_of(x, cx).within_01()) return r;
        std::vector<Expr> ps;
        flatten(x, joint, ps);
        std::set<std::string> keys;
        for (const Expr& y : ps) keys.insert(print_expr(y));
        parts.push_back(std::move(keys));
      }
      std::vector<bool> dropped(chain.size(), false);
      bool any = false;
      for (size_t i = 0; i < chain.size(); ++i)
        for (size_t j = 0; j < chain.size() && !dropped[i]; ++j) {
          if (j == i || dropped[j]) continue;
          // &&: a_j implies a_i when parts(a_j) ⊆ parts(a_i); ||: a_i implies a_j when
          // parts(a_j) ⊆ parts(a_i) too (conjuncts), so a_i goes either way.
          if (std::includes(parts[i].begin(), parts[i].end(), parts[j].begin(), parts[j].end())) dropped[i] = any = true;
        }
      if (any) {
        Expr out;
        for (size_t i = 0; i < chain.size(); ++i)
          if (!dropped[i]) out = out ? make_op(n.op, {out, chain[i]}) : chain[i];
        return out;
      }
      return r;
    }
    case Op::Not: {
      const Expr& a = n.args[0];
      if (auto neg = negate_cmp(a, cx)) return *neg;
      if (untyped_op(a) && as<OpNode>(a).op == Op::Not && range_of(as<OpNode>(a).args[0], cx).within_01())
        return as<OpNode>(a).args[0];
      return r;
    }
    default: return r;
  }
}

Expr simp_ranges_uncached(const Expr& e, Context& cx) {
  if (e->kind == ExprKind::Var) {
    if (auto v = range_of(e, cx).single()) return make_const(*v, e->loc);
    return e;
  }
  if (e->kind != ExprKind::Op) return e;
  tick_command_budget();
  const auto& n = as<OpNode>(e);
  if (typed_sensitive(n)) {
    std::vector<Expr> args;
    for (const Expr& a : n.args) args.push_back(simp_ranges(a, cx));
    return simplify(std::make_shared<OpNode>(n.op, std::move(args), n.loc, n.sugar, n.type));
  }
  if (n.op == Op::Select) {
    Expr c = simp_ranges(n.args[0], cx);
    Range rc = range_of(c, cx);
    if (rc.excludes_zero()) return simp_ranges(n.args[1], cx);
    if (rc.is_zero()) return simp_ranges(n.args[2], cx);
    Context t, f;
    t.facts = f.facts = cx.facts;
    facts_of(c, t.facts);
    facts_of_negation(c, cx, f.facts);
    // Facts that contradict the context: that branch is never taken here.
    if (contradictory(t.facts)) return simp_ranges(n.args[2], f);
    if (contradictory(f.facts)) return simp_ranges(n.args[1], t);
    Expr a = simp_ranges(n.args[1], t), b = simp_ranges(n.args[2], f);
    return post(simp_op(Op::Select, {c, a, b}), cx);
  }
  if (n.op == Op::And || n.op == Op::Or) {
    // b is only read where a is true (&&) or false (||): simplified under those facts.
    Expr a = simp_ranges(n.args[0], cx);
    Context rest;
    rest.facts = cx.facts;
    if (n.op == Op::And) facts_of(a, rest.facts);
    else facts_of_negation(a, cx, rest.facts);
    if (contradictory(rest.facts)) return make_const(n.op == Op::And ? kZero : kOne, e->loc);
    Expr b = simp_ranges(n.args[1], rest);
    if (n.op == Op::Or && range_of(b, cx).within_01()) {
      // a || b = b when a implies b: b holds under a's facts.
      Context under_a;
      under_a.facts = cx.facts;
      facts_of(a, under_a.facts);
      if (!contradictory(under_a.facts)) {
        Expr b_if_a = simp_ranges(b, under_a);
        if (int_const(b_if_a) && !int_const(b_if_a)->is_zero()) return b;
      }
    }
    return post(simplify_top(n.op, {a, b}, e->loc), cx);
  }
  std::vector<Expr> args;
  for (const Expr& a : n.args) args.push_back(simp_ranges(a, cx));
  return post(simplify_top(n.op, std::move(args), e->loc), cx);
}

Expr simp_ranges(const Expr& e, Context& cx) {
  auto it = cx.simplified.find(e.get());
  if (it != cx.simplified.end()) return it->second.second;
  Expr out = simp_ranges_uncached(e, cx);
  cx.simplified.emplace(e.get(), std::make_pair(e, out));
  return out;
}

}  // namespace

Expr simplify_with_ranges(const Expr& e) {
  if (!e) return e;
  Context cx;
  return simp_ranges(simplify(e), cx);
}

}  // namespace halo

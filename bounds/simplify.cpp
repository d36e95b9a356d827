// The bounds simplifier (simplify.hpp). Every rewrite is an identity over the integers;
// docs/beta0.md lists them.
#include "bounds/simplify.hpp"
#include "support/command_budget.hpp"

#include "semantics/printer.hpp"
#include "semantics/type_ops.hpp"

#include <array>
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

// The typing pass: see typing.hpp. Each rule cites the part of src/IROperator.h it follows.
#include "semantics/typing.hpp"

#include "semantics/type_ops.hpp"

#include <fmt/format.h>

#include <map>

namespace halo {

namespace {

const Type kInt32 = Type::int_(32);

class Typer {
 public:
  explicit Typer(const Program& p) : prog_(p) {}

  [[noreturn]] void fail(SourceLoc loc, std::string message) const {
    throw InputError(Diagnostic{prog_.file, loc, std::move(message)});
  }

  // An integer literal as the user wrote it: a constant, or the negation of one (`x + -1`
  // is Halide's Expr + int with int -1).
  static std::optional<Value> literal(const Expr& e) {
    if (e->kind == ExprKind::Const && e->type.is_z()) return as<ConstNode>(e).value;
    if (e->kind == ExprKind::Op && as<OpNode>(e).op == Op::Neg && as<OpNode>(e).args[0]->kind == ExprKind::Const &&
        as<OpNode>(e).args[0]->type.is_z())
      return sub(Value(int64_t{0}), as<ConstNode>(as<OpNode>(e).args[0]).value);
    return std::nullopt;
  }

  // The literal `e` as a constant of type t (check_representable: an error, not a wrap).
  Expr adopt(const Expr& e, const Value& v, Type t, const char* where) const {
    if (!t.can_represent(v))
      fail(e->loc, fmt::format("the integer constant {} {} would be implicitly coerced to {}, which changes its "
                               "value to {} (Halide's check_representable; write an explicit cast)",
                               v.to_string(), where, t.to_string(), wrap_to(t, v).to_string()));
    if (e->kind == ExprKind::Const) return with_type(e, t);
    const auto& n = as<OpNode>(e);  // -c
    return std::make_shared<OpNode>(Op::Neg, std::vector<Expr>{with_type(n.args[0], t)}, n.loc, OpSugar::None, t);
  }

  // The literal `e` as Halide's Expr(int): Int(32), which the literal must fit.
  Expr as_int32(const Expr& e) const {
    auto v = literal(e);
    if (!v) return e;
    if (!kInt32.can_represent(*v))
      fail(e->loc, fmt::format("the integer constant {} does not fit Int(32), the type of an integer literal in "
                               "Halide (write a cast to a 64-bit type)",
                               v->to_string()));
    return adopt(e, *v, kInt32, "");
  }

  Expr cast_to(const Expr& e, Type t) const { return e->type == t ? e : make_cast(t, e, e->loc, OpSugar::ImplicitCast); }

  Expr type(const Expr& e) {
    tick_command_budget();
    switch (e->kind) {
      case ExprKind::Const: return as_int32(e);
      case ExprKind::Var: {
        auto it = vars_.find(as<VarNode>(e).name);
        return with_type(e, it == vars_.end() ? kInt32 : it->second);  // unbound: validity says so
      }
      case ExprKind::Call: {
        const auto& n = as<CallNode>(e);
        std::vector<Expr> args;
        for (size_t i = 0; i < n.args.size(); ++i) args.push_back(index(n.args[i], n.func, i));
        auto it = funcs_.find(n.func);
        return make_call(n.func, std::move(args), n.loc, n.label, it == funcs_.end() ? kInt32 : it->second);
      }
      case ExprKind::Hole: return e;
      case ExprKind::Op: return type_op_node(as<OpNode>(e));
    }
    return e;
  }

  Expr type_op_node(const OpNode& n) {
    if (n.sugar == OpSugar::Clamp) return clamp(n);
    if (n.sugar == OpSugar::Abs) return build(Op::Abs, {type(n.args[0])}, n.loc, Type::z());
    switch (n.op) {
      // Halide's Expr-op-int overloads: the literal takes the other operand's type.
      case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Mod: case Op::Lt: case Op::Gt: case Op::Eq:
      case Op::Le: case Op::Ge: case Op::Ne: case Op::Min: case Op::Max: case Op::BitAnd: case Op::BitOr:
      case Op::BitXor: case Op::And: case Op::Or:
        return build(n.op, literal_pair(n.args[0], n.args[1], fmt::format("in '{}'", op_name(n.op))), n.loc, n.type);
      case Op::Shl: case Op::Shr: case Op::RoundingShiftLeft: case Op::RoundingShiftRight:
        return shift(n);
      case Op::MulShiftRight: case Op::RoundingMulShiftRight: {
        // mul_shift_right(a, b, int q): q becomes UInt of a's width (src/IROperator.cpp).
        Expr a = type(n.args[0]), b = type(n.args[1]);
        Expr q = n.args[2];
        if (auto v = literal(q)) q = adopt(q, *v, Type::uint(a->type.bits()), "(the shift)");
        else q = type(q);
        return build(n.op, {a, b, q}, n.loc, n.type);
      }
      case Op::Lerp: {
        // lerp: an integer constant value is coerced to the other value's type.
        std::vector<Expr> args = literal_pair(n.args[0], n.args[1], "in lerp");
        args.push_back(type(n.args[2]));
        return build(n.op, std::move(args), n.loc, n.type);
      }
      case Op::Select: {
        // select: an integer-constant condition is cast to Bool, an integer-constant value
        // to the other value's type, both without a range check (src/IROperator.cpp).
        Expr c = type(n.args[0]);
        if (literal(n.args[0])) c = cast_to(c, Type::boolean());
        Expr t = type(n.args[1]), f = type(n.args[2]);
        bool lt = literal(n.args[1]).has_value(), lf = literal(n.args[2]).has_value();
        if (lt && !lf) t = cast_to(t, f->type);
        if (lf && !lt) f = cast_to(f, t->type);
        return build(Op::Select, {c, t, f}, n.loc, n.type);
      }
      default: {
        std::vector<Expr> args;
        for (const Expr& a : n.args) args.push_back(type(a));
        return build(n.op, std::move(args), n.loc, n.type);
      }
    }
  }

  // Two operands, a literal one taking the other's type (Halide's Expr-op-int overloads).
  std::vector<Expr> literal_pair(const Expr& a, const Expr& b, const std::string& where) {
    auto la = literal(a), lb = literal(b);
    if (la && !lb) {
      Expr y = type(b);
      return {adopt(a, *la, y->type, where.c_str()), y};
    }
    if (lb && !la) {
      Expr x = type(a);
      return {x, adopt(b, *lb, x->type, where.c_str())};
    }
    return {type(a), type(b)};
  }

  // x << int: the amount becomes UInt of x's width; a negative one shifts the other way
  // (src/IROperator.cpp operator<<(Expr, int)).
  Expr shift(const OpNode& n) {
    Expr a = type(n.args[0]);
    auto lb = literal(n.args[1]);
    if (!lb || literal(n.args[0])) return build(n.op, {a, type(n.args[1])}, n.loc, n.type);
    Op op = n.op;
    Value amount = *lb;
    if (amount.sign() < 0) {
      if (op == Op::Shl || op == Op::Shr) op = op == Op::Shl ? Op::Shr : Op::Shl;
      else op = op == Op::RoundingShiftLeft ? Op::RoundingShiftRight : Op::RoundingShiftLeft;
      amount = sub(Value(int64_t{0}), amount);
    }
    Type ut = Type::uint(a->type.bits());
    if (!ut.can_represent(amount))
      fail(n.args[1]->loc, fmt::format("the shift amount {} does not fit {}, the unsigned type of the shifted value's "
                                       "width (Halide's check_representable)",
                                       lb->to_string(), ut.to_string()));
    // A constant shift by the width or more: Halide's simplifier turns it into its
    // signed_integer_overflow error at compile time (Simplify_Call.cpp), even unsigned.
    if (!amount.is_small() || amount.small() >= a->type.bits())
      fail(n.args[1]->loc, fmt::format("a constant shift by {} is at least the width of {} (Halide rejects it at "
                                       "compile time)",
                                       amount.to_string(), a->type.to_string()));
    Expr b = make_const(amount, n.args[1]->loc, ut);
    return build(op, {a, b}, n.loc, n.type);
  }

  // clamp(e, lo, hi): lo and hi are cast to e's type, which must hold them losslessly
  // (src/IROperator.cpp clamp: lossless_cast, else "Type mismatch in call to clamp").
  Expr clamp(const OpNode& n) {
    const auto& inner = as<OpNode>(n.args[0]);
    Expr e = type(inner.args[0]);
    Type t = e->type;
    auto bound = [&](const Expr& b) {
      if (auto v = literal(b)) return adopt(b, *v, t, "(a bound of clamp)");
      Expr x = type(b);
      if (!t.can_represent(x->type))
        fail(b->loc, fmt::format("type mismatch in clamp: the bound is {}, which {} cannot hold (write an explicit "
                                 "cast)",
                                 x->type.to_string(), t.to_string()));
      return cast_to(x, t);
    };
    Expr hi = bound(inner.args[1]), lo = bound(n.args[1]);
    Expr mn = std::make_shared<OpNode>(Op::Min, std::vector<Expr>{e, hi}, inner.loc, OpSugar::None, t);
    return std::make_shared<OpNode>(Op::Max, std::vector<Expr>{mn, lo}, n.loc, OpSugar::Clamp, t);
  }

  // The operator applied after type_op's rules: implicit casts where an operand's type is
  // not the one the rule brings it to.
  Expr build(Op op, std::vector<Expr> args, SourceLoc loc, Type target) {
    std::vector<Type> ts;
    for (const Expr& a : args) ts.push_back(a->type);
    OpTyping r = type_op(op, ts, target);
    if (!r.error.empty()) fail(loc, r.error);
    for (size_t i = 0; i < args.size(); ++i) args[i] = cast_to(args[i], r.operands[i]);
    return std::make_shared<OpNode>(op, std::move(args), loc, OpSugar::None, r.result);
  }

  // A stage value of func f: a literal takes the func's type; anything else must have it.
  Expr value_of(const Expr& v, const FuncDef& f, const char* what) {
    if (auto lit = literal(v)) return adopt(v, *lit, f.type, fmt::format("(the {} of func {})", what, f.name.text).c_str());
    Expr t = type(v);
    if (t->type != f.type)
      fail(v->loc, fmt::format("the {} of func {} has type {}, but the func's values are {} (write a cast: {}(...))",
                               what, f.name.text, t->type.to_string(), f.type.to_string(), f.type.to_string()));
    return t;
  }

  // An argument of a func call (or of an update's left-hand side): Int(32). Halide casts
  // a narrower integer implicitly and refuses a u32, u64 or i64 one, which it could not
  // cast losslessly (src/Parameter.cpp check_call_arg_types).
  Expr index(const Expr& a, const std::string& func, size_t i) {
    Expr t = type(a);
    if (!kInt32.can_represent(t->type))
      fail(a->loc, fmt::format("implicit cast from {} to int in argument {} in call to {} is not allowed (Halide's "
                               "check_call_arg_types; write an explicit cast: i32(...))",
                               t->type.to_string(), i + 1, func));
    return cast_to(t, kInt32);
  }

  // An rdom bound: Int(32), which its type must hold losslessly (src/RDom.cpp
  // validate_min_extent).
  Expr rdom_bound(const Expr& b, const char* which) {
    Expr t = type(b);
    if (!kInt32.can_represent(t->type))
      fail(b->loc, fmt::format("the rdom {} has type {}, which cannot be represented as an int32 (Halide's "
                               "RDom::validate_min_extent; write an explicit cast)",
                               which, t->type.to_string()));
    return cast_to(t, kInt32);
  }

  Expr condition(const Expr& c) {
    Expr t = type(c);
    if (!t->type.is_bool())
      fail(c->loc, fmt::format("a predicate must be bool, not {} (write e != 0)", t->type.to_string()));
    return t;
  }

  void run(Program& p) {
    Pipeline& pl = p.pipeline;
    for (size_t i = 0; i < pl.params.size(); ++i) params_[pl.params[i].text] = pl.param_type(i);
    for (FuncDef& f : pl.funcs) {
      vars_ = params_;
      for (const Name& x : f.vars) vars_[x.text] = kInt32;
      if (f.declared) {
        f.type = *f.declared;
        f.pure = value_of(f.pure, f, "pure definition");
      } else {
        f.pure = type(f.pure);
        f.type = f.pure->type;
      }
      funcs_[f.name.text] = f.type;
      for (UpdateStage& u : f.updates) {
        vars_ = params_;
        for (const Name& x : f.vars) vars_[x.text] = kInt32;
        for (RVar& r : u.rdom) {
          r.min = rdom_bound(r.min, "min");
          r.len = rdom_bound(r.len, "extent");
          vars_[r.name.text] = kInt32;
        }
        for (size_t i = 0; i < u.lhs.size(); ++i) u.lhs[i] = index(u.lhs[i], f.name.text, i);
        u.value = value_of(u.value, f, "update");
        if (u.predicate) u.predicate = condition(u.predicate);
      }
    }
    vars_ = params_;
    if (p.schedule)
      for (Directive& d : *p.schedule)
        for (Expr& e : d.exprs) e = type(e);
    if (p.realize)
      for (const ParamBinding& b : p.realize->params)
        for (size_t i = 0; i < pl.params.size(); ++i)
          if (pl.params[i].text == b.name.text && !pl.param_type(i).can_represent(b.value))
            fail(b.name.loc, fmt::format("{} = {} is not a value of {}'s type {}", b.name.text, b.value.to_string(),
                                         b.name.text, pl.param_type(i).to_string()));
  }

 private:
  const Program& prog_;
  std::map<std::string, Type> params_, vars_, funcs_;
};

}  // namespace

void type_program(Program& p) {
  if (!p.pipeline.typed) return;
  Typer(p).run(p);
}

namespace {
[[noreturn]] void refuse(const std::string& file, SourceLoc loc, const char* what) {
  throw InputError(Diagnostic{file, loc,
                              fmt::format("{} does not take typed programs yet: halo check, eval, schedule, "
                                          "lower, bounds, run and oracle (halo's own pipeline and Halide) do "
                                          "(docs/types.md, \"What runs typed programs\")",
                                          what)});
}
}  // namespace

void refuse_typed(const Program& p, const char* what) {
  if (p.pipeline.typed) refuse(p.file, p.pipeline.loc, what);
}

void refuse_typed(const TgtProgram& t, const char* what) {
  if (t.typed) refuse(t.file, t.loc, what);
}

}  // namespace halo

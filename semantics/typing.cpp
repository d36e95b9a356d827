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
  explicit Typer(std::string file) : file_(std::move(file)) {}
  struct StmtTyper;

  [[noreturn]] void fail(SourceLoc loc, std::string message) const {
    throw InputError(Diagnostic{file_, loc, std::move(message)});
  }

  // A literal as the user wrote it: an integer constant, an unsuffixed float constant (a
  // C++ double), or the negation of one (`x + -1` is Halide's Expr + int with int -1).
  static std::optional<Value> literal(const Expr& e) {
    if (e->kind == ExprKind::Const && e->type.is_z()) return as<ConstNode>(e).value;
    if (e->kind == ExprKind::Op && as<OpNode>(e).op == Op::Neg && as<OpNode>(e).args[0]->kind == ExprKind::Const &&
        as<OpNode>(e).args[0]->type.is_z())
      return negate_literal(as<ConstNode>(as<OpNode>(e).args[0]).value);
    return std::nullopt;
  }
  static Value negate_literal(const Value& v) {
    if (v.is_float()) return v.is_f32() ? Value::f32(-v.as_float()) : Value::f64(-v.as_double());
    return sub(Value(int64_t{0}), v);
  }
  static bool integer_literal(const Expr& e) {
    auto v = literal(e);
    return v && v->is_int();
  }

  // A float literal where Halide makes an Expr of it: C++ converts the double to float, since
  // Expr's constructor from float is implicit and the one from double explicit (src/Expr.h);
  // the negation of a literal is C++'s, before Halide sees it (`-0.0f` is -0).
  Expr float_constant(const Expr& e, const Value& v, Type t = Type::float_(32)) const {
    return make_const(make_float(t, v.as_double()), e->loc, t);
  }

  // The literal `e` as a constant of type t (check_representable: an error, not a wrap).
  Expr adopt(const Expr& e, const Value& v, Type t, const char* where) const {
    if (v.is_float()) return float_constant(e, v);  // a float literal keeps its own type
    if (!t.can_represent(v))
      fail(e->loc, fmt::format("the integer constant {} {} would be implicitly coerced to {}, which changes its "
                               "value to {} (Halide's check_representable; write an explicit cast)",
                               v.to_string(), where, t.to_string(),
                               t.is_float() ? number_as_float(t, v).to_string() : wrap_to(t, v).to_string()));
    if (t.is_float()) return make_const(number_as_float(t, v), e->loc, t);
    if (e->kind == ExprKind::Const) return with_type(e, t);
    const auto& n = as<OpNode>(e);  // -c
    return std::make_shared<OpNode>(Op::Neg, std::vector<Expr>{with_type(n.args[0], t)}, n.loc, OpSugar::None, t);
  }

  // The literal `e` as Halide's Expr(int): Int(32), which the literal must fit.
  Expr as_int32(const Expr& e) const {
    auto v = literal(e);
    if (!v) return e;
    if (v->is_float()) return float_constant(e, *v);
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
      case ExprKind::Hole: return with_type(e, kInt32);  // only target programs have holes
      case ExprKind::Op: return type_op_node(as<OpNode>(e));
    }
    return e;
  }

  Expr type_op_node(const OpNode& n) {
    if (n.sugar == OpSugar::Clamp) return clamp(n);
    // Typing again an expression already typed keeps its implicit casts implicit.
    if (n.sugar == OpSugar::ImplicitCast) return cast_to(type(n.args[0]), n.type);
    if (n.sugar == OpSugar::Abs) return build(Op::Abs, {type(n.args[0])}, n.loc, Type::z());
    // -c of a float constant is C++'s negation of the literal (-0.0f is -0), not Halide's 0 - c.
    if (n.op == Op::Neg && n.args[0]->kind == ExprKind::Const && as<ConstNode>(n.args[0]).value.is_float()) {
      Value v = negate_literal(as<ConstNode>(n.args[0]).value);
      return n.args[0]->type.is_z() ? float_constant(n.args[0], v) : make_const(v, n.loc, n.args[0]->type);
    }
    // f64(1.5): the .halo spelling of Halide's Expr(double), an exact binary64 constant.
    if (n.op == Op::Cast && n.type.is_float() && n.type.bits() == 64)
      if (auto v = literal(n.args[0]); v && v->is_float()) return float_constant(n.args[0], *v, n.type);
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
        // "Floating-point weight for lerp with integer arguments is ..., which is not in the
        // range [0.0, 1.0]" (IROperator.cpp lerp): a constant one, at compile time.
        if (!args[0]->type.is_float() && args[2]->kind == ExprKind::Const && as<ConstNode>(args[2]).value.is_float()) {
          double w = as<ConstNode>(args[2]).value.as_double();
          if (!(w >= 0.0 && w <= 1.0))
            fail(n.args[2]->loc, fmt::format("the float weight {} of a lerp of integers is not in [0, 1] (Halide "
                                             "rejects it at compile time)",
                                             as<ConstNode>(args[2]).value.to_string()));
        }
        return build(n.op, std::move(args), n.loc, n.type);
      }
      case Op::Select: {
        // select: an integer-constant condition is cast to Bool, an integer-constant value
        // to the other value's type, both without a range check (src/IROperator.cpp).
        Expr c = type(n.args[0]);
        if (integer_literal(n.args[0])) c = cast_to(c, Type::boolean());
        Expr t = type(n.args[1]), f = type(n.args[2]);
        bool lt = integer_literal(n.args[1]), lf = integer_literal(n.args[2]);
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
    if (la && la->is_float()) la.reset();  // a float literal is a Float(32) Expr (float_constant)
    if (lb && lb->is_float()) lb.reset();
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
    // CodeGen_LLVM::visit(Div): user_assert(!is_const_zero(b)) "Division by constant zero"; a
    // float % lowers to a - b * floor(a / b), which divides too. (An integer one Halide's
    // simplifier folds to 0 before.)
    if ((op == Op::Div || op == Op::Mod) && r.result.is_float() && args[1]->kind == ExprKind::Const &&
        as<ConstNode>(args[1]).value.is_float() && as<ConstNode>(args[1]).value.as_double() == 0)
      fail(args[1]->loc, "division by a constant zero: Halide rejects it at compile time");
    for (size_t i = 0; i < args.size(); ++i) args[i] = cast_to(args[i], r.operands[i]);
    return std::make_shared<OpNode>(op, std::move(args), loc, OpSugar::None, r.result);
  }

  // A value stored in func f of type ft: a literal takes the type; anything else must have it.
  Expr value_of(const Expr& v, const std::string& f, Type ft, const char* what) {
    if (auto lit = literal(v); lit && lit->is_int())
      return adopt(v, *lit, ft, fmt::format("(the {} of func {})", what, f).c_str());
    Expr t = type(v);
    if (t->type != ft)
      fail(v->loc, fmt::format("the {} of func {} has type {}, but the func's values are {} (write a cast: {}(...))",
                               what, f, t->type.to_string(), ft.to_string(), ft.to_string()));
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

  // An rdom bound, or a loop or buffer bound of a target program: Int(32), which its type
  // must hold losslessly (src/RDom.cpp validate_min_extent; Halide's For and Allocate take
  // Int(32) bounds).
  Expr int32_bound(const Expr& b, const char* what) {
    Expr t = type(b);
    if (!kInt32.can_represent(t->type))
      fail(b->loc, fmt::format("the {} has type {}, which cannot be represented as an int32 (Halide's "
                               "RDom::validate_min_extent; write an explicit cast)",
                               what, t->type.to_string()));
    return cast_to(t, kInt32);
  }

  Expr condition(const Expr& c) {
    Expr t = type(c);
    if (!t->type.is_bool())
      fail(c->loc, fmt::format("a predicate must be bool, not {} (write e != 0)", t->type.to_string()));
    return t;
  }

  // A condition of a target program: bool; lowering's `if (1)` (an integer literal) is cast
  // to bool, as select's constant condition is.
  Expr target_condition(const Expr& c) {
    if (literal(c)) return cast_to(type(c), Type::boolean());
    return condition(c);
  }

  // Every expression of a typed target program, in its scope (see type_target).
  void run(TgtProgram& t);

  void run(Program& p) {
    Pipeline& pl = p.pipeline;
    for (size_t i = 0; i < pl.params.size(); ++i) params_[pl.params[i].text] = pl.param_type(i);
    // An input is read like a func of its type (an untyped one is Int(32), like a Param);
    // its geometry variables are Int(32), as Halide's img.dim(k).min() is.
    for (InputDef& in : pl.inputs) {
      in.type = in.declared.value_or(kInt32);
      funcs_[in.name.text] = in.type;
      bind_geometry(in.name.text, in.dims());
    }
    for (FuncDef& f : pl.funcs) {
      vars_ = params_;
      for (const Name& x : f.vars) vars_[x.text] = kInt32;
      if (f.inline_reduction && !f.updates.empty()) {
        // Halide's inline reduction starts from its identity in the type of the reduced
        // expression, typed on its own as the Expr passed to sum() is (src/InlineReductions.cpp).
        for (const RVar& r : f.updates[0].rdom) vars_[r.name.text] = kInt32;
        Type t = type(as<OpNode>(f.updates[0].value).args[1])->type;
        f.declared = t;
        // (A float identity is a constant of t itself: Halide's make_const(t, ...).)
        f.pure = make_const(inline_reduction_identity(*f.inline_reduction, t), f.pure->loc,
                            t.is_float() ? t : Type::z());
        vars_ = params_;
        for (const Name& x : f.vars) vars_[x.text] = kInt32;
      }
      if (f.declared) {
        f.type = *f.declared;
        f.pure = value_of(f.pure, f.name.text, f.type, "pure definition");
      } else {
        f.pure = type(f.pure);
        f.type = f.pure->type;
      }
      funcs_[f.name.text] = f.type;
      if (f.boundary) {  // the arguments of Halide's call, as the user's Exprs are typed
        vars_ = params_;
        if (f.boundary->value) f.boundary->value = type(f.boundary->value);
        for (auto& [mn, ext] : f.boundary->bounds) {
          mn = int32_bound(mn, "boundary min");
          ext = int32_bound(ext, "boundary extent");
        }
      }
      for (UpdateStage& u : f.updates) {
        vars_ = params_;
        for (const Name& x : f.vars) vars_[x.text] = kInt32;
        for (RVar& r : u.rdom) {
          r.min = int32_bound(r.min, "rdom min");
          r.len = int32_bound(r.len, "rdom extent");
          vars_[r.name.text] = kInt32;
        }
        for (size_t i = 0; i < u.lhs.size(); ++i) u.lhs[i] = index(u.lhs[i], f.name.text, i);
        u.value = value_of(u.value, f.name.text, f.type, "update");
        if (u.predicate) u.predicate = condition(u.predicate);
      }
    }
    vars_ = params_;
    if (p.schedule)
      for (Directive& d : *p.schedule)
        for (Expr& e : d.exprs) e = type(e);
    check_realization(p.realize);
  }

  void bind_geometry(const std::string& input, size_t dims) {
    for (size_t k = 0; k < dims; ++k) params_[buffer_min_var(input, k)] = params_[buffer_extent_var(input, k)] = kInt32;
  }

  // Each realized parameter's value must be one of its type; a number given for a float
  // parameter becomes a value of that type (Param<float>::set(2.2) rounds the double).
  void check_realization(std::optional<Realization>& r) const {
    if (!r) return;
    for (ParamBinding& b : r->params) {
      auto it = params_.find(b.name.text);
      if (it != params_.end() && it->second.is_float()) {
        b.value = number_as_float(it->second, b.value);
        continue;
      }
      if (it != params_.end() && b.value.is_float())
        fail(b.name.loc, fmt::format("{} = {} is not a value of {}'s type {}", b.name.text, b.value.to_string(),
                                     b.name.text, it->second.to_string()));
      if (it != params_.end() && !it->second.can_represent(b.value))
        fail(b.name.loc, fmt::format("{} = {} is not a value of {}'s type {}", b.name.text, b.value.to_string(),
                                     b.name.text, it->second.to_string()));
    }
  }

 private:
  std::string file_;
  std::map<std::string, Type> params_, vars_, funcs_;
};

// The statements of a target program: a loop binds an Int(32) variable, a let one of its
// value's type; stores follow the rules of a stage's value and left-hand side.
struct Typer::StmtTyper : StmtMutator {
  Typer& ty;
  explicit StmtTyper(Typer& t) : ty(t) {}

  // A variable bound for the statement s alone.
  Stmt scoped(const std::string& var, Type t, const Stmt& s) {
    auto it = ty.vars_.find(var);
    std::optional<Type> shadowed = it == ty.vars_.end() ? std::nullopt : std::optional<Type>(it->second);
    ty.vars_[var] = t;
    Stmt out = mutate(s);
    if (shadowed) ty.vars_[var] = *shadowed;
    else ty.vars_.erase(var);
    return out;
  }

  Stmt mutate_assert(const Stmt& s) override { return make_assert(ty.target_condition(as<AssertStmt>(s).cond), s->loc); }
  Stmt mutate_allocate(const Stmt& s) override {
    const auto& a = as<AllocateStmt>(s);
    std::vector<std::pair<Expr, Expr>> b;
    for (const auto& [mn, ln] : a.bounds) b.emplace_back(ty.int32_bound(mn, "buffer min"), ty.int32_bound(ln, "buffer extent"));
    return make_allocate(a.func, std::move(b), a.loc, a.type);
  }
  Stmt mutate_store(const Stmt& s) override {
    const auto& st = as<StoreStmt>(s);
    std::vector<Expr> args;
    for (size_t i = 0; i < st.args.size(); ++i) args.push_back(ty.index(st.args[i], st.func, i));
    auto it = ty.funcs_.find(st.func);
    Type ft = it == ty.funcs_.end() ? kInt32 : it->second;
    return make_store(st.func, st.label, std::move(args), ty.value_of(st.value, st.func, ft, "store"), st.loc);
  }
  Stmt mutate_if(const Stmt& s) override {
    const auto& i = as<IfStmt>(s);
    return make_if(ty.target_condition(i.cond), mutate(i.then_case), mutate(i.else_case), i.loc);
  }
  Stmt mutate_for(const Stmt& s) override {
    const auto& f = as<ForStmt>(s);
    Expr mn = ty.int32_bound(f.min, "loop min"), ln = ty.int32_bound(f.len, "loop extent");
    return make_for(f.func, f.spec, f.stage, f.var, mn, ln, f.order, scoped(f.binder(), kInt32, f.body), f.loc);
  }
  Stmt mutate_let(const Stmt& s) override {
    const auto& l = as<LetStmt>(s);
    Expr v = ty.type(l.value);
    return make_let(l.var, v, scoped(l.var, v->type, l.body), l.loc);
  }
};

void Typer::run(TgtProgram& t) {
  for (size_t i = 0; i < t.params.size(); ++i) params_[t.params[i]] = t.param_type(i);
  check_realization(t.realize);
  for (const auto& [mn, ln] : t.window) params_[mn] = params_[ln] = kInt32;
  for (const TgtInput& in : t.inputs) {
    funcs_[in.name] = in.type;
    bind_geometry(in.name, in.vars.size());
  }
  struct Buffers : StmtVisitor {
    std::map<std::string, Type>& funcs;
    explicit Buffers(std::map<std::string, Type>& f) : funcs(f) {}
    void visit_allocate(const AllocateStmt& a) override { funcs[a.func] = a.type; }
  } buffers(funcs_);
  buffers.visit(t.body);
  vars_ = params_;
  StmtTyper st(*this);
  t.body = st.mutate(t.body);
}

}  // namespace

void type_program(Program& p) {
  if (!p.pipeline.typed) return;
  Typer(p.file).run(p);
}

void type_target(TgtProgram& t) {
  if (!t.typed) return;
  Typer(t.file).run(t);
}

}  // namespace halo

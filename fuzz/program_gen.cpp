// Generators of valid programs: see program_gen.hpp for what they guarantee and cover.
#include "fuzz/program_gen.hpp"

#include <fmt/format.h>

namespace halo::fuzz {

namespace {

const char* const kVarNames[] = {"x", "y", "z", "w"};

struct FuncSig {
  std::string name;
  int dims;
};

// What an expression may mention at the place it is generated.
struct Scope {
  std::vector<std::string> vars;     // variables in scope (params, pure vars, rvars)
  std::vector<FuncSig> callees;      // funcs defined earlier
  const FuncSig* self = nullptr;     // set in update stages: self accesses allowed
  std::vector<bool> self_pure;       // per dimension of self: pure in this stage
  std::vector<std::string> self_vars;
  std::vector<std::string> nonpure;  // vars that must not be used (reduction dims' pure vars)
};

Value gen_constant() {
  int kind = *rc::gen::inRange(0, 20);
  if (kind == 0) return Value::from_big(BigInt(1) << *rc::gen::inRange(60, 70));  // beyond int64
  if (kind == 1) return Value(int64_t{0});
  return Value(int64_t(*rc::gen::inRange(-5, 10)));
}

Expr gen_expr(const Scope& s, int depth);

// An index: most often affine in a variable (cheap, in range), sometimes anything,
// sometimes data-dependent but clamped, as a Halide programmer would write it.
Expr gen_index(const Scope& s, int depth) {
  int kind = *rc::gen::inRange(0, 6);
  if (kind <= 2 && !s.vars.empty()) {
    Expr v = make_var(*rc::gen::elementOf(s.vars));
    int off = *rc::gen::inRange(-2, 3);
    return off == 0 ? v : make_op(off > 0 ? Op::Add : Op::Sub, {v, make_const(Value(int64_t(std::abs(off))))});
  }
  if (kind == 3 && depth > 0) {
    int lo = *rc::gen::inRange(-3, 1), hi = *rc::gen::inRange(0, 4);
    return make_op(Op::Min, {make_op(Op::Max, {gen_expr(s, depth - 1), make_const(Value(int64_t(lo)))}),
                             make_const(Value(int64_t(hi)))});
  }
  return depth > 0 ? gen_expr(s, depth - 1) : make_const(Value(int64_t(*rc::gen::inRange(-3, 4))));
}

Expr gen_access(const Scope& s, int depth) {
  bool self = s.self && *rc::gen::inRange(0, 3) == 0;
  if (self) {
    std::vector<Expr> args;
    for (int d = 0; d < s.self->dims; ++d)
      args.push_back(s.self_pure[d] ? make_var(s.self_vars[d]) : gen_index(s, depth));
    return make_call(s.self->name, std::move(args));
  }
  const FuncSig& g = *rc::gen::elementOf(s.callees);
  std::vector<Expr> args;
  for (int d = 0; d < g.dims; ++d) args.push_back(gen_index(s, depth));
  return make_call(g.name, std::move(args));
}

Expr gen_leaf(const Scope& s) {
  if (!s.vars.empty() && *rc::gen::inRange(0, 3) != 0) return make_var(*rc::gen::elementOf(s.vars));
  return make_const(gen_constant());
}

Expr gen_expr(const Scope& s, int depth) {
  if (depth <= 0) return gen_leaf(s);
  int kind = *rc::gen::inRange(0, 10);
  bool can_access = !s.callees.empty() || s.self;
  if (kind <= 1) return gen_leaf(s);
  if (kind <= 4 && can_access) return gen_access(s, depth - 1);
  static const Op ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Mod, Op::Lt, Op::Gt, Op::Eq, Op::Le,
                           Op::Ge,  Op::Ne,  Op::And, Op::Or,  Op::Not, Op::Neg, Op::Select, Op::Min, Op::Max};
  Op op = *rc::gen::elementOf(std::vector<Op>(std::begin(ops), std::end(ops)));
  std::vector<Expr> args;
  for (int i = 0; i < op_arity(op); ++i) args.push_back(gen_expr(s, depth - 1));
  return make_op(op, std::move(args));
}

// A startup expression (Def. 2.9): constants and parameters.
Expr gen_startup(const std::vector<std::string>& params, int lo, int hi) {
  Expr c = make_const(Value(int64_t(*rc::gen::inRange(lo, hi + 1))));
  if (params.empty() || *rc::gen::inRange(0, 4) != 0) return c;
  // p clamped into [lo, hi] keeps extents small whatever the parameter's value.
  Expr p = make_var(*rc::gen::elementOf(params));
  return make_op(Op::Min, {make_op(Op::Max, {p, make_const(Value(int64_t(lo)))}), make_const(Value(int64_t(hi)))});
}

UpdateStage gen_update(const FuncDef& f, const FuncSig& sig, const std::vector<FuncSig>& earlier,
                       const std::vector<std::string>& params, int stage_index, const ProgramGenConfig& cfg) {
  UpdateStage u;
  int nr = *rc::gen::inRange(0, cfg.max_rdom_dims + 1);
  u.explicit_rdom = nr > 0 || *rc::gen::arbitrary<bool>();
  Scope s;
  s.vars = params;
  for (int k = 0; k < nr; ++k) {
    std::string r = fmt::format("r{}{}", stage_index, k);
    // Negative extents are rare: they turn the whole func into ε_rdom.
    int lo_len = *rc::gen::inRange(0, 12) == 0 ? -1 : 0;
    u.rdom.push_back(RVar{Name{r, {}}, gen_startup(params, -2, 2), gen_startup(params, lo_len, cfg.max_rdom_extent)});
    s.vars.push_back(r);
  }
  s.callees = earlier;
  s.self = &sig;
  for (const auto& v : f.vars) s.self_vars.push_back(v.text);
  for (int d = 0; d < sig.dims; ++d) {
    bool pure = *rc::gen::inRange(0, 4) != 0;
    s.self_pure.push_back(pure);
    if (pure) s.vars.push_back(f.vars[d].text);
  }
  int depth = cfg.max_expr_depth;
  for (int d = 0; d < sig.dims; ++d)
    u.lhs.push_back(s.self_pure[d] ? make_var(f.vars[d].text) : gen_index(s, depth - 1));
  // A third of the updates accumulate in an order-sensitive way (f = f * k + r): without
  // them, a machine that ran rdoms in the wrong order would pass (sums commute).
  if (*rc::gen::inRange(0, 3) == 0) {
    std::vector<Expr> self_args;
    for (int d = 0; d < sig.dims; ++d)
      self_args.push_back(s.self_pure[d] ? make_var(f.vars[d].text) : u.lhs[d]);
    Expr acc = make_op(Op::Mul, {make_call(sig.name, std::move(self_args)),
                                 make_const(Value(int64_t(*rc::gen::inRange(2, 11))))});
    u.value = make_op(Op::Add, {acc, gen_expr(s, depth - 1)});
  } else {
    u.value = gen_expr(s, depth);
  }
  if (*rc::gen::inRange(0, 3) == 0) u.predicate = gen_expr(s, depth - 1);
  return u;
}

}  // namespace

rc::Gen<Program> gen_program(ProgramGenConfig cfg) {
  return rc::gen::exec([cfg] {
    Program prog;
    prog.file = "<generated>";
    Pipeline& p = prog.pipeline;
    int np = *rc::gen::inRange(0, cfg.max_params + 1);
    std::vector<std::string> params;
    for (int i = 0; i < np; ++i) {
      params.push_back(fmt::format("p{}", i));
      p.params.push_back(Name{params.back(), {}});
    }
    int nf = *rc::gen::inRange(1, cfg.max_funcs + 1);
    std::vector<FuncSig> sigs;
    for (int fi = 0; fi < nf; ++fi) {
      FuncDef f;
      int dims = *rc::gen::inRange(fi + 1 == nf ? 1 : 0, cfg.max_dims + 1);
      FuncSig sig{fmt::format("f{}", fi), dims};
      f.name = Name{sig.name, {}};
      for (int d = 0; d < dims; ++d) f.vars.push_back(Name{kVarNames[d], {}});
      Scope pure;
      pure.vars = params;
      for (const auto& v : f.vars) pure.vars.push_back(v.text);
      pure.callees = sigs;
      f.pure = gen_expr(pure, cfg.max_expr_depth);
      int nu = *rc::gen::inRange(0, cfg.max_updates + 1);
      for (int j = 0; j < nu; ++j) f.updates.push_back(gen_update(f, sig, sigs, params, j + 1, cfg));
      p.funcs.push_back(std::move(f));
      sigs.push_back(sig);
    }
    p.name = p.funcs.back().name;
    Realization r;
    for (const auto& name : params) r.params.push_back(ParamBinding{Name{name, {}}, Value(int64_t(*rc::gen::inRange(-3, 6)))});
    for (size_t d = 0; d < p.funcs.back().vars.size(); ++d)
      r.window.push_back(Interval{Value(int64_t(*rc::gen::inRange(-3, 3))),
                                  Value(int64_t(*rc::gen::inRange(0, cfg.max_window_extent + 1))), {}});
    prog.realize = r;
    return prog;
  });
}

rc::Gen<Expr> gen_closed_expr(int depth) {
  return rc::gen::exec([depth] { return gen_expr(Scope{}, depth); });
}

}  // namespace halo::fuzz

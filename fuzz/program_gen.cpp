// Generators of valid programs: see program_gen.hpp for what they guarantee and cover.
#include "fuzz/program_gen.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

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

// Choices are arranged so that RapidCheck's shrinking (towards the first value of each
// choice) leads to simpler programs: small constants, no predicate, pure dimensions.
Value gen_constant() {
  int kind = *rc::gen::inRange(0, 20);
  if (kind == 19) return Value::from_big(BigInt(1) << *rc::gen::inRange(60, 70));  // beyond int64
  if (kind == 18) return Value(int64_t{0});
  return Value(int64_t(small_int(-5, 9)));
}

Expr gen_expr(const Scope& s, int depth);

bool reads_a_func(const Expr& e) {
  struct Finder : ExprVisitor {
    bool found = false;
    void visit_call(const CallNode&) override { found = true; }
  } f;
  f.visit(e);
  return f.found;
}

// An index: most often affine in a variable (cheap, in range), sometimes anything,
// sometimes clamped, as a Halide programmer would write it. A data-dependent index (one
// that reads a func) is clamped seven times in eight: β0's interval arithmetic cannot
// bound an unclamped one, so it gives up (`assert 0`), which checks little.
Expr gen_index(const Scope& s, int depth) {
  int kind = *rc::gen::inRange(0, 6);
  if (kind <= 2 && !s.vars.empty()) {
    Expr v = make_var(*rc::gen::elementOf(s.vars));
    int off = small_int(-2, 2);
    return off == 0 ? v : make_op(off > 0 ? Op::Add : Op::Sub, {v, make_const(Value(int64_t(std::abs(off))))});
  }
  if (depth <= 0) return make_const(Value(int64_t(small_int(-3, 3))));
  Expr e = gen_expr(s, depth - 1);
  if (kind != 3 && (!reads_a_func(e) || *rc::gen::inRange(0, 8) == 7)) return e;
  int lo = small_int(-3, 0), hi = small_int(0, 3);
  return make_op(Op::Min, {make_op(Op::Max, {e, make_const(Value(int64_t(lo)))}), make_const(Value(int64_t(hi)))});
}

Expr gen_access(const Scope& s, int depth) {
  // A self access when there is nothing else to read (the first func's update stages).
  bool self = s.self && (s.callees.empty() || *rc::gen::inRange(0, 3) == 0);
  if (self) {
    std::vector<Expr> args;
    for (int d = 0; d < s.self->dims; ++d)
      args.push_back(s.self_pure[d] ? make_var(s.self_vars[d]) : gen_index(s, depth));
    return make_call(s.self->name, std::move(args));
  }
  // Half the reads are of the func just before, so that pipelines are often chains (as
  // image pipelines are), where each producer has one consumer to be computed inside.
  const FuncSig& g = *rc::gen::inRange(0, 2) == 0 ? s.callees.back() : *rc::gen::elementOf(s.callees);
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
  Expr c = make_const(Value(int64_t(small_int(lo, hi))));
  if (params.empty() || *rc::gen::inRange(0, 4) != 3) return c;
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
    std::string r = cfg.distinct_names ? fmt::format("r{}{}{}", sig.name.substr(1), stage_index, k)
                                       : fmt::format("r{}{}", stage_index, k);
    // Negative extents are rare: they turn the whole func into ε_rdom.
    // Extents from lo_len up: mostly at least 1; empty (0) or negative ones now and then.
    int kind = *rc::gen::inRange(0, 12);
    int lo_len = kind == 11 ? -1 : kind >= 9 ? 0 : 1;
    u.rdom.push_back(RVar{Name{r, {}}, gen_startup(params, -2, 2), gen_startup(params, lo_len, cfg.max_rdom_extent)});
    s.vars.push_back(r);
  }
  s.callees = earlier;
  s.self = &sig;
  for (const auto& v : f.vars) s.self_vars.push_back(v.text);
  for (int d = 0; d < sig.dims; ++d) {
    bool pure = *rc::gen::inRange(0, 100) >= cfg.scatter_percent;
    s.self_pure.push_back(pure);
    if (pure) s.vars.push_back(f.vars[d].text);
  }
  int depth = cfg.max_expr_depth;
  for (int d = 0; d < sig.dims; ++d)
    u.lhs.push_back(s.self_pure[d] ? make_var(f.vars[d].text) : gen_index(s, depth - 1));
  // A third of the updates accumulate in an order-sensitive way (f = f * k + r): without
  // them, a machine that ran rdoms in the wrong order would pass (sums commute).
  if (*rc::gen::inRange(0, 3) == 2) {
    std::vector<Expr> self_args;
    for (int d = 0; d < sig.dims; ++d)
      self_args.push_back(s.self_pure[d] ? make_var(f.vars[d].text) : u.lhs[d]);
    Expr acc = make_op(Op::Mul, {make_call(sig.name, std::move(self_args)),
                                 make_const(Value(int64_t(*rc::gen::inRange(2, 11))))});
    u.value = make_op(Op::Add, {acc, gen_expr(s, depth - 1)});
  } else {
    u.value = gen_expr(s, depth);
  }
  if (*rc::gen::inRange(0, 3) == 2) u.predicate = gen_expr(s, depth - 1);
  return u;
}

// An output extent: empty now and then (one case in twenty per dimension: an empty window
// says nothing about the values), otherwise 1..max, shrinking towards 1.
int window_extent(int max) {
  if (*rc::gen::inRange(0, 20) == 19) return 0;
  return *rc::gen::inRange(1, std::max(max, 1) + 1);
}

// Makes every func contribute to the output: a func no live func reads is added to the
// pure stage of the nearest live func after it (g = ... + f[x, y], with g's variables as
// far as they go, 0 beyond), from the output back.
void keep_every_func_live(Pipeline& p) {
  size_t n = p.funcs.size();
  std::vector<bool> live(n, false);
  live[n - 1] = true;
  for (size_t i = n - 1; i-- > 0;) {
    const std::string name = p.funcs[i].name.text;
    for (size_t j = i + 1; j < n && !live[i]; ++j) live[i] = live[j] && reads_func(p.funcs[j], name);
    if (live[i]) continue;
    size_t j = i + 1;
    while (!live[j]) ++j;
    FuncDef& g = p.funcs[j];
    std::vector<Expr> args;
    for (size_t d = 0; d < p.funcs[i].vars.size(); ++d)
      args.push_back(d < g.vars.size() ? make_var(g.vars[d].text) : make_const(Value(int64_t{0})));
    g.pure = make_op(Op::Add, {g.pure, make_call(name, std::move(args))});
    live[i] = true;
  }
}

}  // namespace

std::set<std::string> funcs_read_by_stage(const FuncDef& f, size_t stage) {
  struct Calls : ExprVisitor {
    std::set<std::string> funcs;
    void visit_call(const CallNode& n) override {
      funcs.insert(n.func);
      ExprVisitor::visit_call(n);
    }
  } c;
  if (stage == 0) {
    c.visit(f.pure);
  } else if (stage <= f.updates.size()) {
    const UpdateStage& u = f.updates[stage - 1];
    for (const Expr& e : u.lhs) c.visit(e);
    c.visit(u.value);
    if (u.predicate) c.visit(u.predicate);
  }
  return c.funcs;
}

bool reads_func(const FuncDef& g, const std::string& f) {
  for (size_t i = 0; i < g.stage_count(); ++i)
    if (funcs_read_by_stage(g, i).count(f)) return true;
  return false;
}

int small_int(int lo, int hi) {
  int anchor = std::clamp(0, lo, hi);
  int k = *rc::gen::inRange(0, hi - lo + 1);
  return k <= hi - anchor ? anchor + k : anchor - (k - (hi - anchor));
}

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
      for (int d = 0; d < dims; ++d)
        f.vars.push_back(Name{cfg.distinct_names ? fmt::format("{}{}", kVarNames[d], fi) : kVarNames[d], {}});
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
    if (*rc::gen::inRange(0, 100) < cfg.live_percent) keep_every_func_live(p);
    p.name = p.funcs.back().name;
    Realization r;
    for (const auto& name : params) r.params.push_back(ParamBinding{Name{name, {}}, Value(int64_t(small_int(-3, 5)))});
    for (size_t d = 0; d < p.funcs.back().vars.size(); ++d)
      r.window.push_back(Interval{Value(int64_t(small_int(-3, 2))),
                                  Value(int64_t(window_extent(cfg.max_window_extent))), {}});
    prog.realize = r;
    return prog;
  });
}

rc::Gen<Expr> gen_closed_expr(int depth) {
  return rc::gen::exec([depth] { return gen_expr(Scope{}, depth); });
}

}  // namespace halo::fuzz

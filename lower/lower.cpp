// The lowering function of thesis fig. 2.9 (see lower.hpp and docs/lowering.md). Each
// equation of the figure is one function below, marked with its name, so that the code
// can be checked against the figure line by line.
#include "lower/lower.hpp"
#include "semantics/typing.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <stdexcept>

namespace halo {

HoleLabel mem_hole(const std::string& f, const std::string& x, bool is_len) {
  return HoleLabel{HoleKind::Mem, is_len, f, x, FuncLabel::kNone, FuncLabel::kNone};
}

HoleLabel cpu_hole(const std::string& f, int64_t spec, int64_t stage, const std::string& x, bool is_len) {
  return HoleLabel{HoleKind::Cpu, is_len, f, x, stage, spec};
}

std::pair<Expr, Expr> mem_interval(const std::string& f, const std::string& x) {
  return {make_hole(mem_hole(f, x, false)), make_hole(mem_hole(f, x, true))};
}

std::pair<Expr, Expr> cpu_interval(const std::string& f, int64_t spec, int64_t stage, const std::string& x) {
  return {make_hole(cpu_hole(f, spec, stage, x, false)), make_hole(cpu_hole(f, spec, stage, x, true))};
}

FuncLabel stage_label(const FuncDef& f, size_t stage) {
  bool last = stage + 1 == f.stage_count();
  return FuncLabel{int64_t(stage), last ? FuncLabel::kShared : 0};
}

std::vector<std::pair<std::string, std::string>> window_variables(const Pipeline& p) {
  // Every name a hole's completion could confuse with a window variable: the parameters
  // and the variables of every func, since after compute_at a producer's holes sit inside
  // its consumers' loops.
  std::set<std::string> taken;
  for (const auto& q : p.params) taken.insert(q.text);
  for (const auto& f : p.funcs) {
    for (const auto& x : f.vars) taken.insert(x.text);
    for (const auto& u : f.updates)
      for (const auto& r : u.rdom) taken.insert(r.name.text);
  }
  auto fresh = [&](std::string name) {
    while (taken.count(name)) name += '_';
    taken.insert(name);
    return name;
  };
  std::vector<std::pair<std::string, std::string>> w;
  for (const auto& x : p.output().vars) {
    std::string mn = fresh(x.text + "_min");
    std::string ln = fresh(x.text + "_len");
    w.emplace_back(std::move(mn), std::move(ln));
  }
  return w;
}

namespace {

// [f^{i-1}/f] of L_P's base case, together with the labels of every other func reference
// (§2.6: references record the previous stage and the specialization): a self-reference
// in stage i reads f as stage i-1 left it; a reference to g reads g as its last stage
// left it, through the shared hole consumers demand.
class LabelAccesses : public ExprMutator {
 public:
  LabelAccesses(const Pipeline& p, const FuncDef& f, size_t stage) : p_(p), f_(f), stage_(stage) {}

 protected:
  Expr mutate_call(const Expr& e) override {
    Expr m = ExprMutator::mutate_call(e);
    const auto& n = as<CallNode>(m);
    if (p_.find_input(n.func)) return m;  // an input has no stage: its reads stay unlabelled
    return make_call(n.func, n.args, n.loc, label_of(n.func), n.type);
  }

 private:
  FuncLabel label_of(const std::string& g) const {
    if (g == f_.name.text) {
      if (stage_ == 0) throw std::logic_error("lowering: self-reference in the pure stage of " + g);
      return stage_label(f_, stage_ - 1);
    }
    const FuncDef* d = p_.find(g);
    if (!d) throw std::logic_error("lowering: reference to unknown func " + g);
    return stage_label(*d, d->stage_count() - 1);
  }
  const Pipeline& p_;
  const FuncDef& f_;
  size_t stage_;
};

class LabelStmtAccesses : public StmtMutator {
 public:
  explicit LabelStmtAccesses(LabelAccesses& m) : m_(m) {}

 protected:
  Expr mutate_expr(const Expr& e) override { return m_.mutate(e); }

 private:
  LabelAccesses& m_;
};

// Stage i as fig. 2.9 sees it: `R in (ē) <- e_B if e_P`. The pure stage U0 = e is
// `rdom() in (x̄) <- e if 1` (fig. 2.5), and an absent predicate is `1`.
UpdateStage stage_as_update(const FuncDef& f, size_t i) {
  if (i > 0) return f.updates[i - 1];
  UpdateStage u;
  for (const auto& x : f.vars) u.lhs.push_back(make_var(x.text, x.loc));
  u.value = f.pure;
  u.explicit_rdom = false;
  u.loc = f.pure->loc;
  return u;
}

// The variables stage i binds, each renamed to the loop name that binds it (Lemma 2.4 used
// as the binder, Halide's f.s0.x): x_j -> <f, 0, i, x_j> for each pure dimension of the
// stage (Def. 2.8), r_k -> <f, 0, i, r_k> for each rdom variable. Lowering substitutes these
// in the stage's value, predicate and left-hand side (so in its self-reference arguments
// too), which is what lets a producer computed inside a consumer's loop over x bind its own
// x without shadowing the consumer's (docs/semantics-decisions.md, "Qualified loop variables").
std::map<std::string, std::string> stage_binders(const FuncDef& f, size_t i, const UpdateStage& u) {
  std::map<std::string, std::string> names;
  for (size_t j = 0; j < f.vars.size(); ++j)
    if (is_pure_dimension(f, u.lhs, j)) names[f.vars[j].text] = qualified_var(f.name.text, 0, int64_t(i), f.vars[j].text);
  for (const auto& r : u.rdom) names[r.name.text] = qualified_var(f.name.text, 0, int64_t(i), r.name.text);
  return names;
}

// L_R fig. 2.9: L_R(rdom(r1 = I1, r̄ = Ī), s) = L_R(rdom(r̄ = Ī), for r1 in I1 do s), so r1,
// wrapped first, is the innermost loop. Loops are named <f, 0, i, r_k> (Lemma 2.4).
Stmt lower_rdom(const FuncDef& f, size_t i, const std::vector<RVar>& rdom, Stmt s) {
  for (const auto& r : rdom)
    s = make_for(f.name.text, 0, int64_t(i), r.name.text, r.min, r.len, Traversal::Serial, std::move(s), r.name.loc);
  return s;
}

// L_P fig. 2.9: one loop per pure dimension (e_j ≡ x_j) over the stage's cpu hole, x1
// wrapped first so it is the innermost; dimensions that are not pure in the stage get no
// loop. The base case L_P(f, (), (), i, s) = [f^{i-1}/f]s labels the func references.
Stmt lower_pure(const Pipeline& p, const FuncDef& f, size_t i, const std::vector<Expr>& lhs, Stmt s, SourceLoc loc) {
  int64_t hole_spec = stage_label(f, i).spec;
  for (size_t j = 0; j < f.vars.size(); ++j) {
    const std::string& x = f.vars[j].text;
    if (!is_pure_dimension(f, lhs, j)) continue;
    auto [mn, ln] = cpu_interval(f.name.text, hole_spec, int64_t(i), x);
    s = make_for(f.name.text, 0, int64_t(i), x, mn, ln, Traversal::Serial, std::move(s), loc);
  }
  LabelAccesses exprs(p, f, i);
  LabelStmtAccesses stmts(exprs);
  return stmts.mutate(s);
}

// L_U fig. 2.9: L_U(f, x̄, i, R in ē = e_B if e_P)
//   = L_P(f, x̄, ē, i, L_R(R, if e_P then f^i[ē] <- e_B)).
// The store carries stage i's label, so it names the cpu hole of the stage it computes.
Stmt lower_stage(const Pipeline& p, const FuncDef& f, size_t i) {
  UpdateStage u = stage_as_update(f, i);
  auto binders = stage_binders(f, i, u);
  Expr pred = u.predicate ? rename_vars(u.predicate, binders) : make_const(Value(int64_t{1}), u.loc);
  std::vector<Expr> args;
  for (const Expr& a : u.lhs) args.push_back(rename_vars(a, binders));
  Stmt store = make_store(f.name.text, stage_label(f, i), std::move(args), rename_vars(u.value, binders), u.loc);
  Stmt guarded = make_if(pred, store, nullptr, u.loc);
  return lower_pure(p, f, i, u.lhs, lower_rdom(f, i, u.rdom, guarded), u.loc);
}

// L_B fig. 2.9: `label s_i: L_U(f, x̄, i, U_i)` for each stage in order; the stage labels
// are spelled `f.s<i>` so that they are unique across funcs.
Stmt lower_body(const Pipeline& p, const FuncDef& f) {
  std::vector<Stmt> stages;
  for (size_t i = 0; i < f.stage_count(); ++i)
    stages.push_back(make_label(fmt::format("{}.s{}", f.name.text, i), lower_stage(p, f, i), f.loc));
  return make_seq(std::move(stages), f.loc);
}

// L(fun f(x̄) = B) fig. 2.9: `allocate f(?mem f_x̄); label f: L_B(f, x̄, B)`. Each func's
// allocate immediately precedes its computation, as in the figure.
Stmt lower_func(const Pipeline& p, const FuncDef& f) {
  std::vector<std::pair<Expr, Expr>> bounds;
  for (const auto& x : f.vars) bounds.push_back(mem_interval(f.name.text, x.text));
  return make_seq({make_allocate(f.name.text, std::move(bounds), f.loc, f.type), make_label(f.name.text, lower_body(p, f), f.loc)},
                  f.loc);
}

}  // namespace

// An input buffer (docs/inputs.md): `allocate img(?mem img)` takes the region the program
// reads out of the realization's buffer, and the assertion after it is Halide's startup
// check that the buffer covers that region (src/AddImageChecks.cpp):
//   assert (len_1 <= 0 || ... || len_n <= 0) ||
//          (img.min.0 <= min_1 && min_1 + len_1 <= img.min.0 + img.extent.0 && ...)
// A region nothing reads (some length <= 0) needs no buffer; a too-small buffer stops the
// run at the assertion (allowed by Def. 2.3), and a region a bounds engine got too small
// makes a later read a memory error (Theorem 2.1).
Stmt lower_input(const InputDef& in) {
  SourceLoc at = in.loc;
  std::vector<std::pair<Expr, Expr>> bounds;
  Expr empty, inside;
  auto conj = [&](Expr& acc, Expr e, Op op) { acc = acc ? make_op(op, {acc, e}, at) : e; };
  for (size_t k = 0; k < in.dims(); ++k) {
    auto [mn, ln] = mem_interval(in.name.text, in.vars[k].text);
    bounds.emplace_back(mn, ln);
    Expr bmin = make_var(buffer_min_var(in.name.text, k), at), bext = make_var(buffer_extent_var(in.name.text, k), at);
    conj(empty, make_op(Op::Le, {ln, make_const(Value(int64_t{0}), at)}, at), Op::Or);
    conj(inside, make_op(Op::Le, {bmin, mn}, at), Op::And);
    conj(inside, make_op(Op::Le, {make_op(Op::Add, {mn, ln}, at), make_op(Op::Add, {bmin, bext}, at)}, at), Op::And);
  }
  Stmt alloc = make_allocate(in.name.text, std::move(bounds), at, in.type);
  if (!inside) return alloc;  // a 0-dimensional input: one value, always covered
  return make_seq({alloc, make_assert(make_op(Op::Or, {empty, inside}, at), at)}, at);
}

// §2.9 "Negative rdom extents": a negative extent is an error "checked at program startup",
// so that no scheduling transform can hide it (a fuse of two negative extents would run
// their product, a split of a negative extent none). Rdom bounds are startup expressions
// (Def. 2.9), so the check can run before anything else: one `assert len >= 0` per
// reduction variable, in program order; a length written as a non-negative constant
// cannot fail and gets none. docs/semantics-decisions.md, reading 14.
std::vector<Stmt> rdom_startup_checks(const Pipeline& p) {
  std::vector<Stmt> checks;
  for (const auto& f : p.funcs)
    for (const auto& u : f.updates)
      for (const auto& r : u.rdom) {
        if (r.len->kind == ExprKind::Const) {
          const Value& c = as<ConstNode>(r.len).value;
          if (c.is_int() && c.sign() >= 0) continue;
        }
        SourceLoc at = r.len->loc;
        checks.push_back(make_assert(make_op(Op::Ge, {r.len, make_const(Value(int64_t{0}), at)}, at), at));
      }
  return checks;
}

// L(pipeline f(p̄): F̄; fun f(x̄) = B) fig. 2.9:
//   pipeline f(p̄, x̄_min, x̄_len): L(F̄); L(fun f(x̄) = B)
// preceded by the startup checks of the rdom extents (§2.9, above).
TgtProgram lower_pipeline(const Program& prog) {
  const Pipeline& p = prog.pipeline;
  TgtProgram t;
  t.typed = p.typed;
  t.file = prog.file;
  t.name = p.name.text;
  for (size_t i = 0; i < p.params.size(); ++i) {
    t.params.push_back(p.params[i].text);
    if (p.typed) t.param_types.push_back(p.param_type(i));
  }
  t.window = window_variables(p);
  t.inputs = input_decls(p);
  std::vector<Stmt> funcs = rdom_startup_checks(p);
  for (const auto& in : p.inputs) funcs.push_back(lower_input(in));
  for (const auto& f : p.funcs) funcs.push_back(lower_func(p, f));
  t.body = make_seq(std::move(funcs), p.loc);
  t.realize = prog.realize;
  t.loc = p.loc;
  // What lowering wrote in ℤ (loop bounds, holes, the stores' left-hand sides) computes in
  // Int(32) in a typed program, as in Halide (docs/types.md, "Typed target programs").
  type_target(t);
  return t;
}

}  // namespace halo

// Structural reduction passes: see reduce.hpp.
#include "fuzz/reduce.hpp"

#include "interp/input.hpp"
#include "schedule/schedule.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/validity.hpp"

#include <algorithm>

namespace halo::fuzz {

namespace {

Expr zero() { return make_const(Value(int64_t{0})); }

// Every expression slot of the algorithm (directive arguments stay: their rules are the
// rewrites', and a finding's schedule is reduced by dropping whole directives).
std::vector<Expr*> expr_slots(Program& p) {
  std::vector<Expr*> out;
  for (FuncDef& f : p.pipeline.funcs) {
    out.push_back(&f.pure);
    for (UpdateStage& u : f.updates) {
      out.push_back(&u.value);
      if (u.predicate) out.push_back(&u.predicate);
      for (Expr& e : u.lhs) out.push_back(&e);
      for (RVar& r : u.rdom) out.push_back(&r.min), out.push_back(&r.len);
    }
  }
  return out;
}

void preorder(const Expr& e, std::vector<const ExprNode*>& out) {
  out.push_back(e.get());
  if (e->kind == ExprKind::Op)
    for (const Expr& a : as<OpNode>(e).args) preorder(a, out);
  if (e->kind == ExprKind::Call)
    for (const Expr& a : as<CallNode>(e).args) preorder(a, out);
}

Expr replace_node(const Expr& e, const ExprNode* target, const Expr& with) {
  if (e.get() == target) return with;
  if (e->kind == ExprKind::Op) {
    const auto& n = as<OpNode>(e);
    std::vector<Expr> args;
    for (const Expr& a : n.args) args.push_back(replace_node(a, target, with));
    return make_op(n.op, std::move(args), e->loc);
  }
  if (e->kind == ExprKind::Call) {
    const auto& n = as<CallNode>(e);
    std::vector<Expr> args;
    for (const Expr& a : n.args) args.push_back(replace_node(a, target, with));
    return make_call(n.func, std::move(args), e->loc, n.label);
  }
  return e;
}

// The simpler expressions a node may become: 0, or one of its operands.
std::vector<Expr> node_replacements(const ExprNode* n) {
  std::vector<Expr> out;
  switch (n->kind) {
    case ExprKind::Const:
      if (!static_cast<const ConstNode*>(n)->value.is_zero()) out.push_back(zero());
      break;
    case ExprKind::Var: out.push_back(zero()); break;
    case ExprKind::Op:
      out.push_back(zero());
      for (const Expr& a : static_cast<const OpNode*>(n)->args) out.push_back(a);
      break;
    case ExprKind::Call:
      out.push_back(zero());
      break;
    case ExprKind::Hole: break;
  }
  return out;
}

void normalize_schedule(Program& p) {
  if (p.schedule && p.schedule->empty() && p.schedule_mode != ScheduleMode::Autoscheduler) p.schedule = std::nullopt;
}

// p without func `name`: its reads become 0, directives naming it go.
Program without_func(Program p, const std::string& name) {
  struct ReadsToZero : ExprMutator {
    const std::string* name;
    Expr mutate_call(const Expr& e) override {
      if (as<CallNode>(e).func == *name) return zero();
      return ExprMutator::mutate_call(e);
    }
  } m;
  m.name = &name;
  auto& fs = p.pipeline.funcs;
  fs.erase(std::remove_if(fs.begin(), fs.end(), [&](const FuncDef& f) { return f.name.text == name; }), fs.end());
  for (Expr* e : expr_slots(p)) *e = m.mutate(*e);
  if (p.schedule) {
    auto& s = *p.schedule;
    s.erase(std::remove_if(s.begin(), s.end(),
                           [&](const Directive& d) { return d.func.text == name || d.loop.func.text == name; }),
            s.end());
  }
  normalize_schedule(p);
  return p;
}

// p without update stage `stage` (>= 1) of func f: directives on that stage's loops go,
// later stages' loop names move down by one.
Program without_stage(Program p, size_t func, size_t stage) {
  FuncDef& f = p.pipeline.funcs[func];
  f.updates.erase(f.updates.begin() + std::ptrdiff_t(stage - 1));
  if (p.schedule) {
    auto& s = *p.schedule;
    s.erase(std::remove_if(s.begin(), s.end(),
                           [&](const Directive& d) {
                             return d.loop.func.text == f.name.text && d.loop.stage == int64_t(stage);
                           }),
            s.end());
    for (Directive& d : s)
      if (d.loop.func.text == f.name.text && d.loop.stage > int64_t(stage)) --d.loop.stage;
  }
  normalize_schedule(p);
  return p;
}

// Does any expression of p (the algorithm's and the directives') mention variable v?
bool mentions_var(Program p, const std::string& v) {
  std::vector<Expr*> slots = expr_slots(p);
  if (p.schedule)
    for (Directive& d : *p.schedule)
      for (Expr& e : d.exprs) slots.push_back(&e);
  return std::any_of(slots.begin(), slots.end(), [&](Expr* e) { return occurs(*e, v); });
}

// p without reduction variable `k` of update `u` of func `f`: its uses become its minimum.
Program without_rvar(Program p, size_t f, size_t u, size_t k) {
  UpdateStage& st = p.pipeline.funcs[f].updates[u];
  struct ToMin : ExprMutator {
    std::string var;
    Expr min;
    Expr mutate_var(const Expr& e) override { return as<VarNode>(e).name == var ? min : e; }
  } m;
  m.var = st.rdom[k].name.text;
  m.min = st.rdom[k].min;
  st.rdom.erase(st.rdom.begin() + std::ptrdiff_t(k));
  st.value = m.mutate(st.value);
  if (st.predicate) st.predicate = m.mutate(st.predicate);
  for (Expr& e : st.lhs) e = m.mutate(e);
  return p;
}

}  // namespace

bool is_valid_case(const Program& p) {
  if (!validate_program(p).empty()) return false;
  try {
    schedule_formal_part(p);  // Halide's own directives are kept for the candidate to judge
    resolve_input(p, {});
  } catch (const std::exception&) {
    // Rejected input, or a variant on which halo itself fails: either way not a candidate
    // the shrinker may keep (the finding being shrunk is checked by the caller's guard).
    return false;
  }
  return true;
}

std::pair<size_t, uint64_t> case_measure(const Program& p) {
  uint64_t extent = 0;
  if (p.realize) {
    for (const Interval& w : p.realize->window)
      if (w.len.is_small()) extent += uint64_t(std::max<int64_t>(w.len.small(), 0));
    for (const ParamBinding& b : p.realize->params)
      if (b.value.is_small()) extent += uint64_t(std::abs(b.value.small()));
  }
  return {print_program(p).size(), extent};
}

void for_each_simpler_variant(const Program& p, const std::function<bool(Program)>& offer_edited) {
  // Each variant is offered as its text reads: the edits rebuild nodes without their types
  // (a typed program's node replaced by the literal 0, say), and the program judged must be
  // the one a user would read and run, typed again by the typing pass, or refused.
  auto offer = [&](Program v) {
    try {
      v = parse_program(print_program(v), v.file);
    } catch (const InputError&) {
      return false;
    }
    return offer_edited(std::move(v));
  };
  const auto& funcs = p.pipeline.funcs;
  // Whole funcs (never the output), then whole update stages.
  for (size_t i = 0; i + 1 < funcs.size(); ++i)
    if (offer(without_func(p, funcs[i].name.text))) return;
  for (size_t i = 0; i < funcs.size(); ++i)
    for (size_t s = funcs[i].updates.size(); s >= 1; --s)
      if (offer(without_stage(p, i, s))) return;
  // Reduction variables, then unused parameters.
  for (size_t i = 0; i < funcs.size(); ++i)
    for (size_t u = 0; u < funcs[i].updates.size(); ++u)
      for (size_t k = 0; k < funcs[i].updates[u].rdom.size(); ++k)
        if (offer(without_rvar(p, i, u, k))) return;
  for (size_t k = 0; k < p.pipeline.params.size(); ++k)
    if (!mentions_var(p, p.pipeline.params[k].text)) {
      Program v = p;
      v.pipeline.params.erase(v.pipeline.params.begin() + std::ptrdiff_t(k));
      if (v.realize) {
        auto& ps = v.realize->params;
        ps.erase(std::remove_if(ps.begin(), ps.end(),
                                [&](const ParamBinding& b) { return b.name.text == p.pipeline.params[k].text; }),
                 ps.end());
      }
      if (offer(std::move(v))) return;
    }
  // Directives, then predicates.
  if (p.schedule)
    for (size_t k = 0; k < p.schedule->size(); ++k) {
      Program v = p;
      v.schedule->erase(v.schedule->begin() + std::ptrdiff_t(k));
      normalize_schedule(v);
      if (offer(std::move(v))) return;
    }
  for (size_t i = 0; i < funcs.size(); ++i)
    for (size_t s = 0; s < funcs[i].updates.size(); ++s)
      if (funcs[i].updates[s].predicate) {
        Program v = p;
        v.pipeline.funcs[i].updates[s].predicate = nullptr;
        if (offer(std::move(v))) return;
      }
  // Expression nodes: each replaced by 0 or by one of its operands.
  Program probe = p;
  std::vector<Expr*> slots = expr_slots(probe);
  for (size_t k = 0; k < slots.size(); ++k) {
    std::vector<const ExprNode*> nodes;
    preorder(*slots[k], nodes);
    for (const ExprNode* n : nodes)
      for (const Expr& with : node_replacements(n)) {
        Program v = p;
        Expr* slot = expr_slots(v)[k];
        *slot = replace_node(*slot, n, with);
        if (offer(std::move(v))) return;
      }
  }
  // The input: a window extent down to 1, a minimum or a parameter to 0.
  if (p.realize) {
    for (size_t d = 0; d < p.realize->window.size(); ++d) {
      const Interval& w = p.realize->window[d];
      if (w.len.is_small() && w.len.small() > 1) {
        Program v = p;
        v.realize->window[d].len = Value(int64_t{1});
        if (offer(std::move(v))) return;
      }
      if (!w.min.is_zero()) {
        Program v = p;
        v.realize->window[d].min = Value(int64_t{0});
        if (offer(std::move(v))) return;
      }
    }
    for (size_t k = 0; k < p.realize->params.size(); ++k)
      if (!p.realize->params[k].value.is_zero()) {
        Program v = p;
        v.realize->params[k].value = Value(int64_t{0});
        if (offer(std::move(v))) return;
      }
  }
}

}  // namespace halo::fuzz

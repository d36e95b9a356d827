// β0 (fig. 2.10b) and its lifting (§2.7.2). docs/beta0.md maps each equation to the code.
#include "bounds/beta0.hpp"
#include "support/command_budget.hpp"

#include "bounds/func_values.hpp"
#include "bounds/simplify.hpp"
#include "semantics/printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <set>

namespace halo {

namespace {

std::optional<std::vector<Expr>> nonempty_atoms(const Expr& len, const IntervalEnv& env);
std::optional<std::vector<Expr>> condition_atoms(const Expr& c, const IntervalEnv& env);

// One entry of Γ for a variable, kept as the syntax that bound it rather than as an
// interval, because the interval a variable contributes depends on the hole being
// filled: a variable in that hole's lexical scope stays symbolic (the hole may mention
// it), any other is replaced by its range, itself expressed over the enclosing variables
// in the same way (Binder::interval below). Applied eagerly to a single Γ, Γ[v ↦ I]
// could not serve both kinds of hole.
struct Binder {
  enum class Kind { Range, Def, Anything } kind;  // ∀ v ∈ [a, b]; let v = a; ∀ p ∈ [-∞, ∞]
  std::string var;
  Expr a, b;
};

// The scope of every `label f` (semantics decision 17): the variables a compute hole of f
// may mention even when that hole appears in no loop of the program (a stage whose
// left-hand side is an rdom variable, a constant or a func value has no loop over the
// dimension, so hole_scopes never sees the hole).
std::map<std::string, std::vector<std::string>> label_scopes(const TgtProgram& t) {
  struct W : StmtVisitor {
    std::vector<std::string> scope;
    std::map<std::string, std::vector<std::string>> out;
    void visit_label(const LabelStmt& s) override {
      out.emplace(s.label, scope);
      visit(s.body);
    }
    void visit_for(const ForStmt& s) override {
      scope.push_back(s.var);
      visit(s.body);
      scope.pop_back();
    }
    void visit_let(const LetStmt& s) override {
      scope.push_back(s.var);
      visit(s.body);
      scope.pop_back();
    }
  } w;
  w.scope = t.params;
  for (auto& g : t.geometry_vars()) w.scope.push_back(std::move(g));
  for (const auto& [mn, ln] : t.window) w.scope.push_back(mn), w.scope.push_back(ln);
  w.visit(t.body);
  return std::move(w.out);
}

bool contains_call(const Expr& e) {
  struct C : ExprVisitor {
    bool found = false;
    void visit_call(const CallNode&) override { found = true; }
  } c;
  c.visit(e);
  return c.found;
}

// ---------------------------------------------------------------- emptiness guards
// (semantics decision 17: a filled length is never negative, and a region all of whose
// contributing ranges are empty is empty)

std::optional<std::vector<Expr>> nonempty_atoms(const Expr& len, const IntervalEnv& env) {
  std::vector<Expr> atoms;
  auto add = [&](const std::optional<std::vector<Expr>>& more) {
    if (!more) return false;
    atoms.insert(atoms.end(), more->begin(), more->end());
    return true;
  };
  Expr l = simplify(len);
  if (l->kind == ExprKind::Op) {
    const auto& n = as<OpNode>(l);
    auto c = const_value(n.args.back());
    bool last_nonpositive = c && c->is_int() && c->as_int64() && *c->as_int64() <= 0;
    // select(c, a, b <= 0) runs only when c holds and a > 0: the shape guarded lengths have.
    if (n.op == Op::Select && last_nonpositive) {
      if (!add(condition_atoms(n.args[0], env)) || !add(nonempty_atoms(n.args[1], env))) return std::nullopt;
      return atoms;
    }
    // max(a, b <= 0) > 0 iff a > 0; min(a, b) > 0 iff both are.
    if (n.op == Op::Max && last_nonpositive) return nonempty_atoms(n.args[0], env);
    if (n.op == Op::Min) {
      if (!add(nonempty_atoms(n.args[0], env)) || !add(nonempty_atoms(n.args[1], env))) return std::nullopt;
      return atoms;
    }
  }
  // Otherwise: the length can be positive only if the upper bound of its interval is.
  SymInterval i = interval_of(l, env);
  if (i.unbounded) return atoms;
  Expr hi = simplify(i.max());
  if (auto v = const_value(hi); v && v->is_int()) {
    if (v->as_int64() && *v->as_int64() <= 0) return std::nullopt;
    return atoms;
  }
  atoms.push_back(simp_op(Op::Gt, {hi, simp_const(0)}));
  return atoms;
}

// The atoms of a condition β0 built itself (a conjunction of `e > 0`); any other
// condition contributes no atom, which only makes the guard weaker (sound).
std::optional<std::vector<Expr>> condition_atoms(const Expr& c, const IntervalEnv& env) {
  if (c->kind == ExprKind::Op) {
    const auto& n = as<OpNode>(c);
    if (n.op == Op::Gt && n.args.size() == 2) {
      if (auto z = const_value(n.args[1]); z && z->is_int() && z->as_int64() == 0)
        return nonempty_atoms(n.args[0], env);
    }
    if (n.op == Op::And) {
      auto a = condition_atoms(n.args[0], env), b = condition_atoms(n.args[1], env);
      if (!a || !b) return std::nullopt;
      a->insert(a->end(), b->begin(), b->end());
      return a;
    }
  }
  if (auto v = const_value(c); v && v->is_int() && v->is_zero()) return std::nullopt;
  return std::vector<Expr>{};
}

// The atoms `e > 0` of a conjunction, the weaker of two atoms that differ by a constant
// dropped: the readable, deduplicated form of a guard.
std::vector<Expr> normalize_atoms(const std::vector<Expr>& atoms) {
  std::vector<Expr> out;
  auto lhs = [](const Expr& a) { return as<OpNode>(a).args[0]; };
  for (const Expr& a : atoms) {
    bool keep = true;
    for (Expr& o : out) {
      auto d = const_value(simp_sub(lhs(a), lhs(o)));  // a - o
      if (!d || !d->is_int()) continue;
      if (d->as_int64() && *d->as_int64() < 0) o = a;  // a > 0 implies o > 0
      keep = false;
      break;
    }
    if (keep) out.push_back(a);
  }
  return out;
}

Expr conjunction(const std::vector<Expr>& atoms) {
  Expr c;
  for (const Expr& a : atoms) c = c ? simp_op(Op::And, {c, a}) : a;
  return c ? c : simp_const(1);
}

// When the loop a guarded length belongs to runs, the guard holds: the length proper.
Expr strip_guard(const Expr& len) {
  if (len->kind != ExprKind::Op) return len;
  const auto& n = as<OpNode>(len);
  auto c = const_value(n.args.back());
  bool last_nonpositive = c && c->is_int() && c->as_int64() && *c->as_int64() <= 0;
  if ((n.op == Op::Select || n.op == Op::Max) && last_nonpositive) return strip_guard(n.args[n.op == Op::Select ? 1 : 0]);
  return len;
}

}  // namespace

SymInterval guarded(const HoleTuple& t, size_t d, const std::set<std::string>& nonneg_vars) {
  const SymInterval& i = t.dims[d];
  if (i.unbounded) return i;
  // The disjunction of the contributions' guards, each conjunction that another one's
  // atoms imply dropped ((a && b) || a is a).
  auto atoms_of = [](const Expr& g) {
    std::set<std::string> out;
    std::vector<Expr> todo = {g};
    while (!todo.empty()) {
      Expr a = todo.back();
      todo.pop_back();
      if (a->kind == ExprKind::Op && as<OpNode>(a).op == Op::And)
        todo.insert(todo.end(), as<OpNode>(a).args.begin(), as<OpNode>(a).args.end());
      else out.insert(print_expr(a));
    }
    return out;
  };
  std::vector<std::set<std::string>> atom_sets;
  for (const Expr& g : t.guards) atom_sets.push_back(atoms_of(g));
  std::vector<Expr> guards;
  for (size_t k = 0; k < t.guards.size(); ++k) {
    bool absorbed = false;
    for (size_t j = 0; j < t.guards.size() && !absorbed; ++j)
      absorbed = j != k && std::includes(atom_sets[k].begin(), atom_sets[k].end(), atom_sets[j].begin(), atom_sets[j].end()) &&
                 (atom_sets[j] != atom_sets[k] || j < k);
    if (!absorbed) guards.push_back(t.guards[k]);
  }
  Expr demand;
  bool always = guards.empty();
  for (const Expr& g : guards) {
    if (auto v = const_value(g); v && v->is_int() && !v->is_zero()) always = true;
    demand = demand ? simp_op(Op::Or, {demand, g}) : g;
  }
  // max(len, 0), unless len >= 0 follows from a guard atom e > 0 with len >= e - 1.
  Expr len = i.len;
  bool nonneg = false;
  if (auto v = const_value(len); v && v->is_int()) nonneg = !v->as_int64() || *v->as_int64() >= 0;
  if (!always && guards.size() == 1) {
    std::vector<Expr> atoms;
    std::vector<Expr> todo = {guards[0]};
    while (!todo.empty()) {
      Expr a = todo.back();
      todo.pop_back();
      if (a->kind != ExprKind::Op) continue;
      const auto& n = as<OpNode>(a);
      if (n.op == Op::And) todo.insert(todo.end(), n.args.begin(), n.args.end());
      else if (n.op == Op::Gt) atoms.push_back(n.args[0]);
    }
    for (const Expr& e : atoms)
      if (auto v = const_value(simp_sub(len, e)); v && v->is_int() && v->as_int64() && *v->as_int64() >= -1) nonneg = true;
  }
  if (!nonneg) len = simp_max(len, simp_const(0));
  if (always) return {i.min, len, false, nullptr, nullptr};
  // select(v > 0, v, 0) is v for a variable known non-negative (a window length: the input
  // is rejected otherwise, interp/input.hpp).
  if (guards.size() == 1 && len->kind == ExprKind::Var && nonneg_vars.count(as<VarNode>(len).name)) {
    const Expr& g = guards[0];
    if (g->kind == ExprKind::Op && as<OpNode>(g).op == Op::Gt && same_expr(as<OpNode>(g).args[0], len))
      return {i.min, len, false, nullptr, nullptr};
  }
  return {i.min, simp_op(Op::Select, {demand, len, simp_const(0)}), false, nullptr, nullptr};
}

namespace {

class Beta0 {
 public:
  Beta0(const TgtProgram& t, BoundsEngine engine) : scopes_(hole_scopes(t)), label_scopes_(label_scopes(t)) {
    for (const auto& w : t.window) nonneg_.insert(w.second);
    if (engine == BoundsEngine::Beta1) {
      rules_.half_bounded = true;
      func_values_ = std::make_unique<FuncValueBounds>(t, rules_);
      rules_.func_values = func_values_.get();
    }
    rules_.literal = engine == BoundsEngine::Beta0Literal;
  }
  Beta0(const Beta0&) = delete;
  Beta0& operator=(const Beta0&) = delete;
  std::set<std::string> nonneg_;  // the window lengths

  // β0(b, Γ), with Γ split into the variable binders (scoped: restored on return) and the
  // hole tuples (global: they accumulate, as the Γ threaded through the figure does).
  void run(const Query& q) {
    if (!q) return;
    switch (q->kind) {
      case QueryKind::True:
      case QueryKind::Pred:  // β0 never checks predicates (assertions, e_len >= 0)
        return;
      case QueryKind::And:  // β0(b1 ∧ b2, Γ) = β0(b1, β0(b2, Γ)): right to left, consumers first
        for (auto it = q->kids.rbegin(); it != q->kids.rend(); ++it) run(*it);
        return;
      case QueryKind::Implies:  // β0(e ⇒ b, Γ) = β0(b, Γ): unconditionally. The antecedent,
        // an expression or a membership (ē ∈ ?cpu f, kids[0]), is not a demand: skipped.
        if (!q->kids.empty()) run(q->kids.back());
        return;
      case QueryKind::Exists:  // β0(∃?ℓ : b, Γ) = β0(b, Γ)
        for (const Query& k : q->kids) run(k);
        return;
      case QueryKind::Forall: {  // β0(∀v ∈ I : b, Γ) = β0(b, Γ[v ↦ I])
        if (!q->min || !q->len) push_binder({Binder::Kind::Anything, q->var, nullptr, nullptr});
        else push_binder({Binder::Kind::Range, q->var, determined(q->min), determined(q->len)});
        for (const Query& k : q->kids) run(k);
        pop_binder();
        return;
      }
      case QueryKind::Let:  // β0(let v = e in b, Γ) = β0(b, Γ[v ↦ I(e, Γ)])
        push_binder({Binder::Kind::Def, q->var, determined(q->expr), nullptr});
        for (const Query& k : q->kids) run(k);
        pop_binder();
        return;
      case QueryKind::Member: {  // β0(ē ∈ ?ℓ, Γ) = Γ[?ℓ ↦ Γ(?ℓ) ∪ I(ē, Γ)]
        std::vector<Expr> guard;
        IntervalEnv env = env_for(q->hole, &guard);
        if (!guard_ok_) return;  // under a range that is always empty: no point is demanded
        std::vector<SymInterval> box;
        bool data = false;
        for (const Expr& e : q->point) {
          box.push_back(interval_of(determined(e), env));
          data |= box.back().unbounded && contains_call(e);
        }
        unite(q->hole, box, guard, *q, data);
        return;
      }
      case QueryKind::Cover: {  // a box [(m, l), ...] ∈ ?ℓ: each dimension as the range m..m+l-1
        std::vector<Expr> guard;
        IntervalEnv env = env_for(q->hole, &guard);
        if (!guard_ok_) return;
        std::vector<SymInterval> box;
        for (const auto& [m, l] : q->box) {
          Expr len = determined(l);
          auto atoms = nonempty_atoms(len, env);
          if (!atoms) return;  // an empty box demands nothing
          guard.insert(guard.end(), atoms->begin(), atoms->end());
          box.push_back(range(determined(m), strip_guard(len), env));
        }
        unite(q->hole, box, guard, *q, false);
        return;
      }
    }
  }

  std::map<std::string, HoleTuple> tuples;
  std::string failure;  // the first reason β0 cannot be trusted, if any

 private:
  // Every point of [m, m + l - 1] lies in [lo I(m), hi I(m + l - 1)] when l >= 1; an empty
  // range demands nothing, so any interval is sound for it.
  static SymInterval range(const Expr& m, const Expr& l, const IntervalEnv& env) {
    SymInterval first = interval_of(m, env);
    SymInterval last = interval_of(simp_sub(simp_add(m, l), simp_const(1)), env);
    if (first.unbounded || last.unbounded) return SymInterval::everything();
    return SymInterval::of_bounds(first.min, last.max());
  }

  // The variables hole tuple h may mention: those of the statement binding its holes, or,
  // for a compute tuple none of whose holes appears in the program, those of `label f`
  // (semantics decision 17).
  const std::vector<std::string>* scope_of(const HoleRef& h) const {
    if (h.vars.empty()) return nullptr;
    if (auto it = scopes_.find(h.min_hole(0)); it != scopes_.end()) return &it->second;
    if (h.kind == HoleKind::Cpu)
      if (auto it = label_scopes_.find(h.func); it != label_scopes_.end()) return &it->second;
    return nullptr;
  }

  // Γ as seen from hole h: binders outermost first; a variable in h's scope is removed (it
  // is a symbolic point), any other gets its range, computed over the binders outside it.
  // `guard` receives the atoms under which every such range can be non-empty; guard_ok_
  // is false when one of them is empty whatever the variables of h's scope are.
  IntervalEnv env_for(const HoleRef& h, std::vector<Expr>* guard) {
    const std::vector<std::string>* scope = scope_of(h);
    // Γ changes only when a binder is pushed or popped, and the memberships of one
    // statement share their binders and scope: Γ is computed once for all of them.
    auto cached = env_cache_.find(scope);
    if (cached != env_cache_.end() && cached->second.binders_version == binders_version_) {
      guard->insert(guard->end(), cached->second.guard.begin(), cached->second.guard.end());
      guard_ok_ = cached->second.guard_ok;
      return cached->second.env;
    }
    IntervalEnv env;
    env.rules = &rules_;
    guard_ok_ = true;
    size_t first_atom = guard->size();
    for (const Binder& b : binders_) {
      bool in_scope = scope && std::find(scope->begin(), scope->end(), b.var) != scope->end();
      if (in_scope) { env.vars.erase(b.var); continue; }
      switch (b.kind) {
        case Binder::Kind::Anything: env.vars[b.var] = SymInterval::everything(); break;
        case Binder::Kind::Def: env.vars[b.var] = interval_of(b.a, env); break;
        case Binder::Kind::Range: {
          auto atoms = nonempty_atoms(b.b, env);
          if (!atoms) guard_ok_ = false;
          else guard->insert(guard->end(), atoms->begin(), atoms->end());
          env.vars[b.var] = range(b.a, strip_guard(b.b), env);
          break;
        }
      }
    }
    env_cache_[scope] = EnvCache{binders_version_, env,
                                 std::vector<Expr>(guard->begin() + std::ptrdiff_t(first_atom), guard->end()), guard_ok_};
    return env;
  }

  void push_binder(Binder b) {
    binders_.push_back(std::move(b));
    ++binders_version_;
  }
  void pop_binder() {
    binders_.pop_back();
    ++binders_version_;
  }

  // An expression with every determined hole replaced by its inferred value: I(?ℓ, Γ)
  // reads Γ(?ℓ), which is one value, so substituting it is the same. A hole read this way
  // is frozen: a later membership that widened it would invalidate what was inferred
  // from the old value (see unite).
  Expr determined(const Expr& e) {
    struct Filler : ExprMutator {
      Beta0* self;
      Expr mutate_hole(const Expr& e) override {
        const HoleLabel& h = as<HoleNode>(e).label;
        HoleRef ref{h.kind, h.func, h.stage, h.spec, {}};
        auto it = self->tuples.find(ref.to_string());
        self->frozen_.insert(ref.to_string());
        // Consumers come first (right to left): a tuple nothing has demanded by the time
        // its value is read is never demanded, and gets the empty interval (decision 12).
        if (it == self->tuples.end()) return simp_const(0);
        const auto& vars = it->second.ref.vars;
        size_t d = std::find(vars.begin(), vars.end(), h.var) - vars.begin();
        if (d == vars.size() || it->second.dims[d].unbounded) return e;
        SymInterval g = guarded(it->second, d, self->nonneg_);
        return h.is_len ? g.len : g.min;
      }
    } f;
    f.self = this;
    return simplify(f.mutate(e));
  }

  void unite(const HoleRef& h, const std::vector<SymInterval>& box, const std::vector<Expr>& atoms,
             const QueryNode& q, bool data_dependent) {
    tick_command_budget();
    if (box.size() != h.vars.size()) {
      note("dimensions", fmt::format("{} has {} dimensions but is given {} ({})", h.to_string(), h.vars.size(), box.size(), q.origin));
      return;
    }
    std::string key = h.to_string();
    if (frozen_.count(key))
      note("order", fmt::format("{} is demanded after its value was used ({}); right-to-left order broken", key, q.origin));
    // Why a dimension became unbounded, kept for the lifting (which gives up only if the
    // tuple is one the program has).
    for (size_t d = 0; d < box.size(); ++d)
      if (box[d].unbounded)
        unbounded_why.try_emplace(key + "/" + h.vars[d], data_dependent ? "data-dependent" : "unbounded",
                                  fmt::format("{} is unbounded in dimension {}: {} ({})", key, h.vars[d],
                                              data_dependent ? "the point reads a func value"
                                                             : "the point's interval is [-∞, ∞]",
                                              q.origin));
    Expr guard = conjunction(normalize_atoms(atoms));
    auto [it, fresh] = tuples.try_emplace(key, HoleTuple{h, box, true, {}});
    if (!fresh)
      for (size_t d = 0; d < box.size(); ++d) it->second.dims[d] = hull(it->second.dims[d], box[d]);
    auto& gs = it->second.guards;
    if (std::none_of(gs.begin(), gs.end(), [&](const Expr& g) { return same_expr(g, guard); })) gs.push_back(guard);
  }

  void note(const char* code, std::string why) {
    if (failure.empty()) failure = std::move(why), failure_code = code;
  }

 public:
  std::string failure_code;
  std::map<std::string, std::pair<std::string, std::string>> unbounded_why;  // tuple/dim → (code, detail)

 private:
  bool guard_ok_ = true;

  std::map<HoleLabel, std::vector<std::string>> scopes_;
  std::map<std::string, std::vector<std::string>> label_scopes_;
  IntervalRules rules_;
  std::unique_ptr<FuncValueBounds> func_values_;
  std::vector<Binder> binders_;
  uint64_t binders_version_ = 0;  // bumped by every push and pop of binders_
  struct EnvCache {
    uint64_t binders_version;
    IntervalEnv env;
    std::vector<Expr> guard;
    bool guard_ok;
  };
  std::map<const std::vector<std::string>*, EnvCache> env_cache_;  // env_for's last answer per scope
  std::set<std::string> frozen_;
};

}  // namespace

Beta0Result run_beta0(const Query& q, const TgtProgram& t) { return run_builtin_engine(q, t, BoundsEngine::Beta0); }

Beta0Result run_builtin_engine(const Query& q, const TgtProgram& t, BoundsEngine engine) {
  Beta0 b(t, engine);
  b.run(q);
  Beta0Result r;
  r.tuples = std::move(b.tuples);
  for (auto& [key, tuple] : r.tuples) {
    std::vector<SymInterval> dims;
    for (size_t d = 0; d < tuple.dims.size(); ++d) dims.push_back(guarded(tuple, d, b.nonneg_));
    tuple.dims = std::move(dims);
    tuple.guards.clear();
  }
  r.why_failed = b.failure;
  r.gave_up = b.failure_code;
  auto fail = [&](const char* code, std::string why) {
    if (r.why_failed.empty()) r.why_failed = std::move(why), r.gave_up = code;
  };
  // The lifting's condition: every hole of the program determined, finite, and over its
  // own scope only.
  for (const auto& [label, scope] : hole_scopes(t)) {
    HoleRef ref{label.kind, label.func, label.stage, label.spec, {}};
    auto it = r.tuples.find(ref.to_string());
    if (it == r.tuples.end() || !it->second.demanded) {
      // Nothing reads, writes or covers any point of this tuple: the empty interval
      // satisfies every conjunct that mentions it (docs/beta0.md).
      SymInterval e = SymInterval::empty();
      r.filling[label] = label.is_len ? e.len : e.min;
      continue;
    }
    const auto& vars = it->second.ref.vars;
    size_t d = std::find(vars.begin(), vars.end(), label.var) - vars.begin();
    if (d == vars.size()) {
      fail("dimensions", fmt::format("{}: no dimension {}", it->first, label.var));
      continue;
    }
    const SymInterval& i = it->second.dims[d];
    if (i.unbounded) {
      if (auto w = b.unbounded_why.find(it->first + "/" + label.var); w != b.unbounded_why.end())
        fail(w->second.first.c_str(), w->second.second);
      else
        fail("unbounded", fmt::format("{} is unbounded in dimension {}", it->first, label.var));
      continue;
    }
    Expr v = simplify(label.is_len ? i.len : i.min);
    ExprVars c = vars_of(v);
    for (const std::string& x : c.vars)
      if (std::find(scope.begin(), scope.end(), x) == scope.end())
        fail("out-of-scope", fmt::format("{} mentions {}, which is not in its scope", label.to_string(), x));
    if (c.holes) fail("undetermined-hole", fmt::format("{} depends on an undetermined hole", label.to_string()));
    r.filling[label] = v;
  }
  r.ok = r.why_failed.empty();
  if (!r.ok) r.filling.clear();
  if (r.ok) r.gave_up.clear();
  return r;
}

std::optional<BoundsEngine> builtin_engine(const std::string& name) {
  if (name == "beta0") return BoundsEngine::Beta0;
  if (name == "beta1") return BoundsEngine::Beta1;
  if (name == "beta0-literal") return BoundsEngine::Beta0Literal;
  return std::nullopt;
}

std::optional<HoleFilling> lift_beta0(const Query& q, const TgtProgram& t, std::string* why) {
  Beta0Result r = run_beta0(q, t);
  if (why) *why = r.why_failed;
  if (!r.ok) return std::nullopt;
  return std::move(r.filling);
}

Beta0Completion complete_with_beta0(const Query& q, const TgtProgram& t) {
  return complete_with_beta0(run_beta0(q, t), t);
}

Beta0Completion complete_with_beta0(const Beta0Result& r, const TgtProgram& t) {
  Beta0Completion c;
  c.reason = r.why_failed;
  c.gave_up = r.gave_up;
  if (r.ok) {
    c.program = fill_holes(t, r.filling);
    c.ok = true;
    return c;
  }
  c.program = t;
  c.program.body = make_assert(make_const(Value(int64_t{0}), t.loc), t.loc);
  return c;
}

}  // namespace halo

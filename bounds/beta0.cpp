// β0 (fig. 2.10b) and its lifting (§2.7.2). docs/beta0.md maps each equation to the code.
#include "bounds/beta0.hpp"
#include "semantics/command_budget.hpp"

#include "bounds/simplify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace halo {

namespace {

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

struct VarCollector : ExprVisitor {
  std::set<std::string> vars;
  bool holes = false;
  void visit_var(const VarNode& n) override { vars.insert(n.name); }
  void visit_hole(const HoleNode&) override { holes = true; }
};

class Beta0 {
 public:
  explicit Beta0(const TgtProgram& t) : scopes_(hole_scopes(t)) {}

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
        if (!q->min || !q->len) binders_.push_back({Binder::Kind::Anything, q->var, nullptr, nullptr});
        else binders_.push_back({Binder::Kind::Range, q->var, determined(q->min), determined(q->len)});
        for (const Query& k : q->kids) run(k);
        binders_.pop_back();
        return;
      }
      case QueryKind::Let:  // β0(let v = e in b, Γ) = β0(b, Γ[v ↦ I(e, Γ)])
        binders_.push_back({Binder::Kind::Def, q->var, determined(q->expr), nullptr});
        for (const Query& k : q->kids) run(k);
        binders_.pop_back();
        return;
      case QueryKind::Member: {  // β0(ē ∈ ?ℓ, Γ) = Γ[?ℓ ↦ Γ(?ℓ) ∪ I(ē, Γ)]
        IntervalEnv env = env_for(q->hole);
        std::vector<SymInterval> box;
        for (const Expr& e : q->point) box.push_back(interval_of(determined(e), env));
        unite(q->hole, box, *q);
        return;
      }
      case QueryKind::Cover: {  // a box [(m, l), ...] ∈ ?ℓ: each dimension as the range m..m+l-1
        IntervalEnv env = env_for(q->hole);
        std::vector<SymInterval> box;
        for (const auto& [m, l] : q->box) box.push_back(range(determined(m), determined(l), env));
        unite(q->hole, box, *q);
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

  // Γ as seen from hole h: binders outermost first; a variable in h's scope is removed (it
  // is a symbolic point), any other gets its range, computed over the binders outside it.
  IntervalEnv env_for(const HoleRef& h) const {
    IntervalEnv env;
    const std::vector<std::string>* scope = nullptr;
    if (!h.vars.empty()) {
      auto it = scopes_.find(h.min_hole(0));
      if (it != scopes_.end()) scope = &it->second;
    }
    for (const Binder& b : binders_) {
      bool in_scope = scope && std::find(scope->begin(), scope->end(), b.var) != scope->end();
      if (in_scope) { env.vars.erase(b.var); continue; }
      switch (b.kind) {
        case Binder::Kind::Anything: env.vars[b.var] = SymInterval::everything(); break;
        case Binder::Kind::Def: env.vars[b.var] = interval_of(b.a, env); break;
        case Binder::Kind::Range: env.vars[b.var] = range(b.a, b.b, env); break;
      }
    }
    return env;
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
        if (it == self->tuples.end() || !it->second.demanded) return e;  // not determined: stays unbounded
        self->frozen_.insert(it->first);
        const auto& vars = it->second.ref.vars;
        size_t d = std::find(vars.begin(), vars.end(), h.var) - vars.begin();
        if (d == vars.size() || it->second.dims[d].unbounded) return e;
        return h.is_len ? it->second.dims[d].len : it->second.dims[d].min;
      }
    } f;
    f.self = this;
    return simplify(f.mutate(e));
  }

  void unite(const HoleRef& h, const std::vector<SymInterval>& box, const QueryNode& q) {
    tick_command_budget();
    if (box.size() != h.vars.size()) {
      note(fmt::format("{} has {} dimensions but is given {} ({})", h.to_string(), h.vars.size(), box.size(), q.origin));
      return;
    }
    std::string key = h.to_string();
    if (frozen_.count(key))
      note(fmt::format("{} is demanded after its value was used ({}); right-to-left order broken", key, q.origin));
    auto [it, fresh] = tuples.try_emplace(key, HoleTuple{h, box, true});
    if (fresh) return;
    for (size_t d = 0; d < box.size(); ++d) it->second.dims[d] = hull(it->second.dims[d], box[d]);
  }

  void note(std::string why) {
    if (failure.empty()) failure = std::move(why);
  }

  std::map<HoleLabel, std::vector<std::string>> scopes_;
  std::vector<Binder> binders_;
  std::set<std::string> frozen_;
};

}  // namespace

Beta0Result run_beta0(const Query& q, const TgtProgram& t) {
  Beta0 b(t);
  b.run(q);
  Beta0Result r;
  r.tuples = std::move(b.tuples);
  r.why_failed = b.failure;
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
      if (r.why_failed.empty()) r.why_failed = fmt::format("{}: no dimension {}", it->first, label.var);
      continue;
    }
    const SymInterval& i = it->second.dims[d];
    if (i.unbounded) {
      if (r.why_failed.empty()) r.why_failed = fmt::format("{} is unbounded in dimension {}", it->first, label.var);
      continue;
    }
    Expr v = simplify(label.is_len ? i.len : i.min);
    VarCollector c;
    c.visit(v);
    for (const std::string& x : c.vars)
      if (std::find(scope.begin(), scope.end(), x) == scope.end() && r.why_failed.empty())
        r.why_failed = fmt::format("{} mentions {}, which is not in its scope", label.to_string(), x);
    if (c.holes && r.why_failed.empty()) r.why_failed = fmt::format("{} depends on an undetermined hole", label.to_string());
    r.filling[label] = v;
  }
  r.ok = r.why_failed.empty();
  if (!r.ok) r.filling.clear();
  return r;
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

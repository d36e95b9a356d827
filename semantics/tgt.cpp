// Constructors, structural equality, traversals, hole scopes and hole filling for the
// target language (tgt.hpp).
#include "semantics/tgt.hpp"

#include "support/command_budget.hpp"
#include "semantics/typing.hpp"

#include <algorithm>

namespace halo {

Stmt make_nop(SourceLoc l) { return std::make_shared<NopStmt>(l); }
Stmt make_assert(Expr c, SourceLoc l) { return std::make_shared<AssertStmt>(std::move(c), l); }

Stmt make_seq(std::vector<Stmt> stmts, SourceLoc l) {
  std::vector<Stmt> flat;
  for (auto& s : stmts) {
    if (s->kind == StmtKind::Seq) {
      const auto& inner = as<SeqStmt>(s).stmts;
      flat.insert(flat.end(), inner.begin(), inner.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.empty()) return make_nop(l);
  if (flat.size() == 1) return flat.front();
  return std::make_shared<SeqStmt>(std::move(flat), l);
}

Stmt make_allocate(std::string func, std::vector<std::pair<Expr, Expr>> bounds, SourceLoc l, Type type) {
  return std::make_shared<AllocateStmt>(std::move(func), std::move(bounds), l, type);
}
Stmt make_store(std::string func, FuncLabel label, std::vector<Expr> args, Expr value, SourceLoc l) {
  return std::make_shared<StoreStmt>(std::move(func), label, std::move(args), std::move(value), l);
}
Stmt make_if(Expr c, Stmt t, Stmt e, SourceLoc l) {
  return std::make_shared<IfStmt>(std::move(c), std::move(t), e ? std::move(e) : make_nop(l), l);
}
Stmt make_for(std::string func, int64_t spec, int64_t stage, std::string var, Expr min, Expr len, Traversal order,
              Stmt body, SourceLoc l) {
  return std::make_shared<ForStmt>(std::move(func), spec, stage, std::move(var), std::move(min), std::move(len), order,
                                   std::move(body), l);
}
Stmt make_let(std::string var, Expr value, Stmt body, SourceLoc l) {
  return std::make_shared<LetStmt>(std::move(var), std::move(value), std::move(body), l);
}
Stmt make_label(std::string label, Stmt body, SourceLoc l) {
  return std::make_shared<LabelStmt>(std::move(label), std::move(body), l);
}

// ---------------------------------------------------------------- equality
namespace {
bool same_exprs(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), same_expr);
}
}  // namespace

bool same_stmt(const Stmt& a, const Stmt& b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case StmtKind::Nop: return true;
    case StmtKind::Assert: return same_expr(as<AssertStmt>(a).cond, as<AssertStmt>(b).cond);
    case StmtKind::Seq: {
      const auto &x = as<SeqStmt>(a).stmts, &y = as<SeqStmt>(b).stmts;
      return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), same_stmt);
    }
    case StmtKind::Allocate: {
      const auto &x = as<AllocateStmt>(a), &y = as<AllocateStmt>(b);
      if (x.func != y.func || x.type != y.type || x.bounds.size() != y.bounds.size()) return false;
      for (size_t i = 0; i < x.bounds.size(); ++i)
        if (!same_expr(x.bounds[i].first, y.bounds[i].first) || !same_expr(x.bounds[i].second, y.bounds[i].second))
          return false;
      return true;
    }
    case StmtKind::Store: {
      const auto &x = as<StoreStmt>(a), &y = as<StoreStmt>(b);
      return x.func == y.func && x.label == y.label && same_exprs(x.args, y.args) && same_expr(x.value, y.value);
    }
    case StmtKind::If: {
      const auto &x = as<IfStmt>(a), &y = as<IfStmt>(b);
      return same_expr(x.cond, y.cond) && same_stmt(x.then_case, y.then_case) && same_stmt(x.else_case, y.else_case);
    }
    case StmtKind::For: {
      const auto &x = as<ForStmt>(a), &y = as<ForStmt>(b);
      return x.func == y.func && x.spec == y.spec && x.stage == y.stage && x.var == y.var && x.order == y.order &&
             same_expr(x.min, y.min) && same_expr(x.len, y.len) && same_stmt(x.body, y.body);
    }
    case StmtKind::Let: {
      const auto &x = as<LetStmt>(a), &y = as<LetStmt>(b);
      return x.var == y.var && same_expr(x.value, y.value) && same_stmt(x.body, y.body);
    }
    case StmtKind::Label: {
      const auto &x = as<LabelStmt>(a), &y = as<LabelStmt>(b);
      return x.label == y.label && same_stmt(x.body, y.body);
    }
  }
  return false;
}

Type TgtProgram::param_type(size_t i) const {
  if (!typed) return Type::z();
  return i < param_types.size() ? param_types[i] : Type::int_(32);
}

bool same_tgt(const TgtProgram& a, const TgtProgram& b) {
  if (a.name != b.name || a.params != b.params || a.typed != b.typed || a.param_types != b.param_types ||
      a.window != b.window || a.inputs != b.inputs || !same_stmt(a.body, b.body))
    return false;
  if (a.realize.has_value() != b.realize.has_value()) return false;
  if (!a.realize) return true;
  const auto &r = *a.realize, &s = *b.realize;
  if (r.window != s.window || r.params.size() != s.params.size() || r.inputs != s.inputs) return false;
  for (size_t i = 0; i < r.params.size(); ++i)
    if (!(r.params[i].name == s.params[i].name) || r.params[i].value != s.params[i].value) return false;
  return true;
}

std::vector<TgtInput> input_decls(const Pipeline& p) {
  std::vector<TgtInput> out;
  for (const InputDef& in : p.inputs) {
    TgtInput t;
    t.name = in.name.text;
    for (const Name& v : in.vars) t.vars.push_back(v.text);
    t.type = in.type;
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::string> TgtProgram::geometry_vars() const {
  std::vector<std::string> out;
  for (const auto& in : inputs)
    for (size_t k = 0; k < in.vars.size(); ++k) {
      out.push_back(buffer_min_var(in.name, k));
      out.push_back(buffer_extent_var(in.name, k));
    }
  return out;
}

const TgtInput* TgtProgram::find_input(const std::string& n) const {
  for (const auto& in : inputs)
    if (in.name == n) return &in;
  return nullptr;
}

// ---------------------------------------------------------------- visitor
// Every pass that walks statements with these answers to --timeout (command_budget.hpp).
void StmtVisitor::visit(const Stmt& s) {
  tick_command_budget();
  switch (s->kind) {
    case StmtKind::Nop: return visit_nop(as<NopStmt>(s));
    case StmtKind::Assert: return visit_assert(as<AssertStmt>(s));
    case StmtKind::Seq: return visit_seq(as<SeqStmt>(s));
    case StmtKind::Allocate: return visit_allocate(as<AllocateStmt>(s));
    case StmtKind::Store: return visit_store(as<StoreStmt>(s));
    case StmtKind::If: return visit_if(as<IfStmt>(s));
    case StmtKind::For: return visit_for(as<ForStmt>(s));
    case StmtKind::Let: return visit_let(as<LetStmt>(s));
    case StmtKind::Label: return visit_label(as<LabelStmt>(s));
  }
}
void StmtVisitor::visit_seq(const SeqStmt& s) {
  for (const auto& x : s.stmts) visit(x);
}
void StmtVisitor::visit_allocate(const AllocateStmt& s) {
  for (const auto& [mn, ln] : s.bounds) {
    visit_expr(mn);
    visit_expr(ln);
  }
}
void StmtVisitor::visit_store(const StoreStmt& s) {
  for (const auto& a : s.args) visit_expr(a);
  visit_expr(s.value);
}
void StmtVisitor::visit_if(const IfStmt& s) {
  visit_expr(s.cond);
  visit(s.then_case);
  visit(s.else_case);
}
void StmtVisitor::visit_for(const ForStmt& s) {
  visit_expr(s.min);
  visit_expr(s.len);
  visit(s.body);
}
void StmtVisitor::visit_let(const LetStmt& s) {
  visit_expr(s.value);
  visit(s.body);
}

// ---------------------------------------------------------------- mutator
Stmt StmtMutator::mutate(const Stmt& s) {
  tick_command_budget();
  switch (s->kind) {
    case StmtKind::Nop: return mutate_nop(s);
    case StmtKind::Assert: return mutate_assert(s);
    case StmtKind::Seq: return mutate_seq(s);
    case StmtKind::Allocate: return mutate_allocate(s);
    case StmtKind::Store: return mutate_store(s);
    case StmtKind::If: return mutate_if(s);
    case StmtKind::For: return mutate_for(s);
    case StmtKind::Let: return mutate_let(s);
    case StmtKind::Label: return mutate_label(s);
  }
  return s;
}

Stmt StmtMutator::mutate_assert(const Stmt& s) {
  const auto& n = as<AssertStmt>(s);
  Expr c = mutate_expr(n.cond);
  return c == n.cond ? s : make_assert(c, n.loc);
}
Stmt StmtMutator::mutate_seq(const Stmt& s) {
  const auto& n = as<SeqStmt>(s);
  std::vector<Stmt> out;
  bool changed = false;
  for (const auto& x : n.stmts) {
    out.push_back(mutate(x));
    changed |= out.back() != x;
  }
  return changed ? make_seq(std::move(out), n.loc) : s;
}
Stmt StmtMutator::mutate_allocate(const Stmt& s) {
  const auto& n = as<AllocateStmt>(s);
  std::vector<std::pair<Expr, Expr>> b;
  bool changed = false;
  for (const auto& [mn, ln] : n.bounds) {
    b.emplace_back(mutate_expr(mn), mutate_expr(ln));
    changed |= b.back().first != mn || b.back().second != ln;
  }
  return changed ? make_allocate(n.func, std::move(b), n.loc, n.type) : s;
}
Stmt StmtMutator::mutate_store(const Stmt& s) {
  const auto& n = as<StoreStmt>(s);
  std::vector<Expr> args;
  bool changed = false;
  for (const auto& a : n.args) {
    args.push_back(mutate_expr(a));
    changed |= args.back() != a;
  }
  Expr v = mutate_expr(n.value);
  changed |= v != n.value;
  return changed ? make_store(n.func, n.label, std::move(args), v, n.loc) : s;
}
Stmt StmtMutator::mutate_if(const Stmt& s) {
  const auto& n = as<IfStmt>(s);
  Expr c = mutate_expr(n.cond);
  Stmt t = mutate(n.then_case), e = mutate(n.else_case);
  return c == n.cond && t == n.then_case && e == n.else_case ? s : make_if(c, t, e, n.loc);
}
Stmt StmtMutator::mutate_for(const Stmt& s) {
  const auto& n = as<ForStmt>(s);
  Expr mn = mutate_expr(n.min), ln = mutate_expr(n.len);
  Stmt b = mutate(n.body);
  if (mn == n.min && ln == n.len && b == n.body) return s;
  return make_for(n.func, n.spec, n.stage, n.var, mn, ln, n.order, b, n.loc);
}
Stmt StmtMutator::mutate_let(const Stmt& s) {
  const auto& n = as<LetStmt>(s);
  Expr v = mutate_expr(n.value);
  Stmt b = mutate(n.body);
  return v == n.value && b == n.body ? s : make_let(n.var, v, b, n.loc);
}
Stmt StmtMutator::mutate_label(const Stmt& s) {
  const auto& n = as<LabelStmt>(s);
  Stmt b = mutate(n.body);
  return b == n.body ? s : make_label(n.label, b, n.loc);
}

// ---------------------------------------------------------------- holes
namespace {
struct HoleCollector : ExprVisitor {
  std::vector<HoleLabel> holes;
  void visit_hole(const HoleNode& h) override { holes.push_back(h.label); }
};

// Walks statements keeping the variables in scope; the binding statement of a hole is
// `allocate f` (mem holes of f) or `label f` (cpu holes of f), per SEMANTICS.md.
class ScopeWalker : public StmtVisitor {
 public:
  std::map<HoleLabel, std::vector<std::string>> scopes;
  std::vector<std::string> scope;

 protected:
  // Each hole keeps a copy of its scope, which a chain of 20,000 funcs makes 40,000 names
  // deep: the copying alone would hold a second between two of the statements' polls.
  void keep(const HoleLabel& h) {
    if (scope.size() > 256) poll_command_budget();
    scopes.emplace(h, scope);
  }
  void record(const Expr& e, HoleKind kind, const std::string& func) {
    HoleCollector c;
    c.visit(e);
    for (const auto& h : c.holes)
      if (h.kind == kind && h.func == func) keep(h);
  }
  void visit_expr(const Expr& e) override {
    // A hole used outside its binding statement still gets a scope: the innermost one
    // that sees it first (an ill-formed program; validity of Tgt? reports it).
    HoleCollector c;
    c.visit(e);
    for (const auto& h : c.holes) keep(h);
  }
  void visit_allocate(const AllocateStmt& s) override {
    for (const auto& [mn, ln] : s.bounds) {
      record(mn, HoleKind::Mem, s.func);
      record(ln, HoleKind::Mem, s.func);
    }
    StmtVisitor::visit_allocate(s);
  }
  void visit_label(const LabelStmt& s) override {
    // The cpu holes of f are bound by `label f`: every cpu hole of f below it.
    struct Cpu : StmtVisitor {
      HoleCollector c;
      void visit_expr(const Expr& e) override { c.visit(e); }
    } cpu;
    cpu.visit(s.body);
    for (const auto& h : cpu.c.holes)
      if (h.kind == HoleKind::Cpu && h.func == s.label) keep(h);
    StmtVisitor::visit_label(s);
  }
  void visit_for(const ForStmt& s) override {
    visit_expr(s.min);
    visit_expr(s.len);
    scope.push_back(s.binder());
    visit(s.body);
    scope.pop_back();
  }
  void visit_let(const LetStmt& s) override {
    visit_expr(s.value);
    scope.push_back(s.var);
    visit(s.body);
    scope.pop_back();
  }
};

class HoleFiller : public StmtMutator {
 public:
  HoleFiller(const HoleFilling& g, std::vector<HoleLabel>* unfilled) : g_(g), unfilled_(unfilled) {}

 protected:
  struct Exprs : ExprMutator {
    const HoleFilling& g;
    std::vector<HoleLabel>* unfilled;
    Exprs(const HoleFilling& gg, std::vector<HoleLabel>* u) : g(gg), unfilled(u) {}
    Expr mutate_hole(const Expr& e) override {
      const auto& h = as<HoleNode>(e).label;
      if (auto it = g.find(h); it != g.end()) return it->second;
      if (unfilled && std::find(unfilled->begin(), unfilled->end(), h) == unfilled->end()) unfilled->push_back(h);
      return e;
    }
  };
  Expr mutate_expr(const Expr& e) override {
    Exprs m(g_, unfilled_);
    return m.mutate(e);
  }

 private:
  const HoleFilling& g_;
  std::vector<HoleLabel>* unfilled_;
};
}  // namespace

std::map<HoleLabel, std::vector<std::string>> hole_scopes(const TgtProgram& p) {
  ScopeWalker w;
  w.scope = p.params;
  for (auto& g : p.geometry_vars()) w.scope.push_back(std::move(g));
  for (const auto& [mn, ln] : p.window) {
    w.scope.push_back(mn);
    w.scope.push_back(ln);
  }
  w.visit(p.body);
  return w.scopes;
}

Stmt fill_holes(const Stmt& s, const HoleFilling& g, std::vector<HoleLabel>* unfilled) {
  HoleFiller f(g, unfilled);
  return f.mutate(s);
}

TgtProgram fill_holes(const TgtProgram& p, const HoleFilling& g, std::vector<HoleLabel>* unfilled) {
  TgtProgram out = p;
  out.body = fill_holes(p.body, g, unfilled);
  // A completion is written in ℤ; in a typed program it computes in Int(32), as Halide's
  // bounds do (docs/types.md, "Typed target programs").
  if (out.typed) type_target(out);
  return out;
}

}  // namespace halo

// The specialization (§2.8.1), compute (§2.8.3) and storage (§2.8.4) phases of the schedule:
// S(specialize(f, c̄), T), S(compute_at(f, ℓ), T) and S(store_at(f, ℓ), T). Fig. 2.12,
// which gave these rules, was lost; the rewrites follow shared/spec/SEMANTICS.md
// ("Scheduling directives") literally, and docs/schedule-placement.md explains them with
// examples. Each rewrite checks its restrictions first and throws InputError at the
// directive naming the broken rule, so an invalid schedule never produces a program.
//
// The restriction shared by compute_at and store_at is Lemma 2.5 (dominance): after the
// move, f's `label f` must still precede every access to f made outside it, and f's
// `allocate` must precede f's computation and every access. It is checked on the whole
// rewritten program by one walk (`first_dominance_violation`), which also catches the
// case TARGETS.md asks for — Halide rejects computing a producer inside a loop that exists
// in only one specialization of its consumer, because the consumer's other specializations
// still read the producer outside that loop.
#include "schedule/schedule.hpp"

#include "support/test_mutation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>
#include <stdexcept>

namespace halo {
namespace {

[[noreturn]] void reject(const Program& prog, const Directive& d, const std::string& msg) {
  throw InputError(Diagnostic{prog.file, d.loc, msg});
}

std::string loop_text(const std::string& f, int64_t spec, int64_t stage, const std::string& v) {
  return fmt::format("<{}, {}, {}, {}>", f, spec, stage, v);
}
std::string loop_text(const LoopName& l) {
  if (l.spec == LoopName::kEverySpec) return fmt::format("<{}, *, {}, {}>", l.func.text, l.stage, l.var.text);
  return loop_text(l.func.text, l.spec, l.stage, l.var.text);
}
std::string loop_text(const ForStmt& l) { return loop_text(l.func, l.spec, l.stage, l.var); }

bool names_loop(const ForStmt& s, const LoopName& l) {
  return s.func == l.func.text && s.spec == l.spec && s.stage == l.stage && s.var == l.var.text;
}

// Every loop of `func` in program order (for "the loop does not exist" messages).
std::vector<std::string> loops_of(const Stmt& body, const std::string& func) {
  struct W : StmtVisitor {
    std::string f;
    std::vector<std::string> out;
    void visit_for(const ForStmt& s) override {
      if (s.func == f) out.push_back(loop_text(s));
      StmtVisitor::visit_for(s);
    }
  } w;
  w.f = func;
  w.visit(body);
  return w.out;
}

// Where the loop named `l` sits: the loop node, the loops enclosing it (outermost first)
// and the func labels enclosing it.
struct LoopSite {
  const ForStmt* loop = nullptr;
  std::vector<const ForStmt*> enclosing;  // outermost first, not including `loop`
  std::vector<std::string> labels;        // enclosing statement labels
};
std::optional<LoopSite> find_loop(const Stmt& body, const LoopName& l) {
  struct W : StmtVisitor {
    const LoopName* l = nullptr;
    std::vector<const ForStmt*> loops;
    std::vector<std::string> labels;
    std::optional<LoopSite> found;
    void visit_for(const ForStmt& s) override {
      if (!found && names_loop(s, *l)) found = LoopSite{&s, loops, labels};
      loops.push_back(&s);
      StmtVisitor::visit_for(s);
      loops.pop_back();
    }
    void visit_label(const LabelStmt& s) override {
      labels.push_back(s.label);
      StmtVisitor::visit_label(s);
      labels.pop_back();
    }
  } w;
  w.l = &l;
  w.visit(body);
  return w.found;
}

std::string loops_list(const Stmt& body, const std::string& func) {
  auto loops = loops_of(body, func);
  return loops.empty() ? fmt::format("'{}' has no loops", func)
                       : fmt::format("the loops of '{}' are {}", func, fmt::join(loops, ", "));
}

// The target loop named by `l` (d.loop, or one copy of it), or an InputError listing the
// loops its func has.
LoopSite require_loop(const TgtProgram& t, const Directive& d, const Program& prog, const LoopName& l) {
  if (auto site = find_loop(t.body, l)) return *site;
  reject(prog, d, fmt::format("'{}' names loop {}, which does not exist in the program (Lemma 2.4: a loop is "
                              "named by its func, specialization, stage and variable); {}",
                              directive_name(d.kind), loop_text(l), loops_list(t.body, l.func.text)));
}
LoopSite require_loop(const TgtProgram& t, const Directive& d, const Program& prog) {
  return require_loop(t, d, prog, d.loop);
}

// The producer f: a func of the pipeline that is not its output.
void require_producer(const Directive& d, const Program& prog) {
  const std::string& f = d.func.text;
  if (!prog.pipeline.find(f))
    reject(prog, d, fmt::format("'{}' names unknown func '{}' (fig. 2.11)", directive_name(d.kind), f));
  if (f == prog.pipeline.name.text)
    reject(prog, d, fmt::format("'{}' cannot move '{}': it is the output func, which is computed and stored "
                                "at the top level of the pipeline (SEMANTICS.md)",
                                directive_name(d.kind), f));
}

// Removes the first statement satisfying `pick` from the tree (from its sequence, or
// replaced by a nop), storing it in `taken`.
template <typename Pick>
Stmt extract(const Stmt& s, Pick pick, Stmt& taken) {
  struct M : StmtMutator {
    Pick* pick;
    Stmt* taken;
    Stmt mutate_seq(const Stmt& s) override {
      if (*taken) return s;
      const auto& n = as<SeqStmt>(s);
      std::vector<Stmt> out;
      bool changed = false;
      for (const Stmt& c : n.stmts) {
        if (!*taken && (*pick)(c)) {
          *taken = c;
          changed = true;
          continue;
        }
        Stmt m = *taken ? c : mutate(c);
        changed |= m != c;
        out.push_back(m);
      }
      return changed ? make_seq(std::move(out), s->loc) : s;
    }
  } m;
  m.pick = &pick;
  m.taken = &taken;
  if (pick(s)) {
    taken = s;
    return make_nop(s->loc);
  }
  return m.mutate(s);
}

// The position of func f in the pipeline (producers come first: a func reads only funcs
// defined before it, validity.cpp).
size_t def_index(const Program& prog, const std::string& f) {
  const auto& fs = prog.pipeline.funcs;
  for (size_t k = 0; k < fs.size(); ++k)
    if (fs[k].name.text == f) return k;
  return fs.size();
}

// Is s the `label h` or `allocate h` of a func h that must stay before func f's moved
// statement: a func defined before f (a producer of f, or unrelated), or f's own allocate.
bool stays_before(const Stmt& s, const std::string& f, const Program& prog) {
  std::string h;
  if (s->kind == StmtKind::Label) h = as<LabelStmt>(s).label;
  else if (s->kind == StmtKind::Allocate) h = as<AllocateStmt>(s).func;
  else return false;
  if (!prog.pipeline.find(h)) return false;
  if (s->kind == StmtKind::Allocate && h == f) return true;
  return def_index(prog, h) < def_index(prog, f);
}

// Puts `moved` (f's label or allocate) at the start of the body of the loop named `l`,
// after the producers already placed there: the labels and allocates that begin the body
// and belong to funcs defined before f. So the funcs computed at one loop end up in
// pipeline order whatever the order of their directives (as Halide orders realizations),
// and a producer's compute_at may be listed before its consumer's.
Stmt insert_at_loop_start(const Stmt& body, const LoopName& l, const Stmt& moved, const std::string& f,
                          const Program& prog) {
  struct M : StmtMutator {
    const LoopName* l;
    Stmt moved;
    const std::string* f;
    const Program* prog;
    Stmt mutate_for(const Stmt& s) override {
      const auto& n = as<ForStmt>(s);
      if (!names_loop(n, *l)) return StmtMutator::mutate_for(s);
      std::vector<Stmt> stmts;
      if (n.body->kind == StmtKind::Seq) stmts = as<SeqStmt>(n.body).stmts;
      else stmts.push_back(n.body);
      size_t at = 0;
      while (at < stmts.size() && stays_before(stmts[at], *f, *prog)) ++at;
      stmts.insert(stmts.begin() + std::ptrdiff_t(at), moved);
      return make_for(n.func, n.spec, n.stage, n.var, n.min, n.len, n.order, make_seq(std::move(stmts), n.body->loc),
                      s->loc);
    }
  } m;
  m.l = &l;
  m.moved = moved;
  m.f = &f;
  m.prog = &prog;
  return m.mutate(body);
}

// Does a compute_at come after d in the schedule? Then dominance is checked once the last
// of them is applied, on the placement as a whole (as Halide checks a schedule), so that
// the order of compute_at directives does not matter.
bool later_compute_at(const Program& prog, const Directive& d) {
  if (!prog.schedule) return false;
  const auto& s = *prog.schedule;
  for (size_t k = 0; k < s.size(); ++k)
    if (&s[k] == &d || (s[k].loc.line == d.loc.line && s[k].loc.col == d.loc.col && s[k].kind == d.kind)) {
      for (size_t j = k + 1; j < s.size(); ++j)
        if (s[j].kind == DirectiveKind::ComputeAt) return true;
      return false;
    }
  return false;
}

bool is_func_label(const Stmt& s, const std::string& f) {
  return s->kind == StmtKind::Label && as<LabelStmt>(s).label == f;
}
bool is_allocate(const Stmt& s, const std::string& f) {
  return s->kind == StmtKind::Allocate && as<AllocateStmt>(s).func == f;
}

// ---------------------------------------------------------------- Lemma 2.5 (dominance)

// Walks the program in execution order, keeping the set of what has certainly run:
// `allocate h` and the whole of `label h`. A sequence threads the set; a loop body and
// the branches of an `if` may not run (or run only one), so after a loop nothing of its
// body counts, and after an `if` only what both branches did. Every access to h (a read
// h^ℓ[...] or a store to h) must find `allocate h` done, and, outside h's own label,
// `label h` done. The first violation is described for the message.
struct DominanceWalk {
  const Pipeline* pipe = nullptr;
  std::set<std::string> funcs;          // the funcs of the pipeline
  std::vector<std::string> func_stack;  // enclosing func labels (a func's computation)
  std::vector<const ForStmt*> loops;    // enclosing loops
  std::optional<std::string> violation;
  std::string accessed;  // the func whose access breaks dominance
  std::string accessor;  // the func whose computation makes that access ("" at the top level)

  std::string where() const {
    std::string who = func_stack.empty() ? std::string("the top level") : fmt::format("'{}'", func_stack.back());
    if (loops.empty()) return who;
    return fmt::format("{} (inside loop {})", who, loop_text(*loops.back()));
  }
  bool inside_label(const std::string& h) const {
    return std::find(func_stack.begin(), func_stack.end(), h) != func_stack.end();
  }
  void access(const std::string& h, const char* what, const std::set<std::string>& done) {
    if (violation || !funcs.count(h)) return;
    accessed = h;
    accessor = func_stack.empty() ? std::string() : func_stack.back();
    if (!done.count("allocate " + h))
      violation = fmt::format("the {} of '{}' in {} would not be preceded by 'allocate {}'", what, h, where(), h);
    else if (!inside_label(h) && !done.count("label " + h))
      violation = fmt::format("the {} of '{}' in {} would not be preceded by the computation of '{}' (label {})",
                              what, h, where(), h, h);
  }
  void expr(const Expr& e, const std::set<std::string>& done) {
    if (!e || violation) return;
    switch (e->kind) {
      case ExprKind::Call: {
        const auto& c = as<CallNode>(e);
        access(c.func, "read", done);
        for (const auto& a : c.args) expr(a, done);
        return;
      }
      case ExprKind::Op:
        for (const auto& a : as<OpNode>(e).args) expr(a, done);
        return;
      default: return;
    }
  }
  std::set<std::string> stmt(const Stmt& s, std::set<std::string> done) {
    if (violation) return done;
    switch (s->kind) {
      case StmtKind::Nop: return done;
      case StmtKind::Assert: expr(as<AssertStmt>(s).cond, done); return done;
      case StmtKind::Seq:
        for (const Stmt& c : as<SeqStmt>(s).stmts) done = stmt(c, std::move(done));
        return done;
      case StmtKind::Allocate: {
        const auto& n = as<AllocateStmt>(s);
        for (const auto& [mn, ln] : n.bounds) expr(mn, done), expr(ln, done);
        done.insert("allocate " + n.func);
        return done;
      }
      case StmtKind::Store: {
        const auto& n = as<StoreStmt>(s);
        access(n.func, "write", done);
        for (const auto& a : n.args) expr(a, done);
        expr(n.value, done);
        return done;
      }
      case StmtKind::If: {
        const auto& n = as<IfStmt>(s);
        expr(n.cond, done);
        auto a = stmt(n.then_case, done);
        auto b = n.else_case ? stmt(n.else_case, done) : done;
        std::set<std::string> both;
        std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::inserter(both, both.begin()));
        return both;
      }
      case StmtKind::For: {
        const auto& n = as<ForStmt>(s);
        expr(n.min, done), expr(n.len, done);
        loops.push_back(&n);
        stmt(n.body, done);
        loops.pop_back();
        return done;
      }
      case StmtKind::Let: {
        const auto& n = as<LetStmt>(s);
        expr(n.value, done);
        return stmt(n.body, std::move(done));
      }
      case StmtKind::Label: {
        const auto& n = as<LabelStmt>(s);
        bool is_func = funcs.count(n.label) > 0;
        if (is_func) func_stack.push_back(n.label);
        done = stmt(n.body, std::move(done));
        if (is_func) {
          func_stack.pop_back();
          done.insert("label " + n.label);
        }
        return done;
      }
    }
    return done;
  }
};

std::optional<std::string> first_dominance_violation(const TgtProgram& t, const Program& prog,
                                                     std::string* accessed = nullptr, std::string* accessor = nullptr) {
  DominanceWalk w;
  w.pipe = &prog.pipeline;
  for (const auto& f : prog.pipeline.funcs) w.funcs.insert(f.name.text);
  w.stmt(t.body, {});
  if (w.violation && accessed) *accessed = w.accessed;
  if (w.violation && accessor) *accessor = w.accessor;
  return w.violation;
}

// The compute_at of func f in the schedule, if any.
const Directive* compute_at_of(const Program& prog, const std::string& f) {
  if (!prog.schedule) return nullptr;
  for (const Directive& o : *prog.schedule)
    if (o.kind == DirectiveKind::ComputeAt && o.func.text == f) return &o;
  return nullptr;
}

// The loop names (func, spec) of every specialization that reads f outside f's label,
// used to say "the loop exists in only one specialization of its consumer" (TARGETS.md).
bool consumer_reads_in_other_spec(const Stmt& body, const std::string& f, const LoopName& l) {
  struct W : StmtVisitor {
    std::string f;
    const LoopName* l;
    std::vector<const ForStmt*> loops;
    bool found = false;
    void visit_for(const ForStmt& s) override {
      loops.push_back(&s);
      StmtVisitor::visit_for(s);
      loops.pop_back();
    }
    void visit_expr(const Expr& e) override {
      if (!e || found) return;
      if (e->kind == ExprKind::Call) {
        const auto& c = as<CallNode>(e);
        if (c.func == f)
          for (const ForStmt* lp : loops)
            if (lp->func == l->func.text && lp->spec != l->spec) found = true;
        for (const auto& a : c.args) visit_expr(a);
      } else if (e->kind == ExprKind::Op) {
        for (const auto& a : as<OpNode>(e).args) visit_expr(a);
      }
    }
  } w;
  w.f = f;
  w.l = &l;
  w.visit(body);
  return w.found;
}

// ---------------------------------------------------------------- parallel loops

// SEMANTICS.md (traverse): a func computed inside a parallel loop must also be stored
// inside it. For every func h whose `label h` sits inside a parallel loop P, `allocate h`
// must be inside P too — unless a store_at of h comes later in the schedule (the storage
// phase follows the compute phase, fig. 2.11), which is checked when it is applied.
// Returns the first violation.
std::optional<std::string> first_parallel_violation(const TgtProgram& t, const Program& prog, const Directive& d) {
  // Funcs with a store_at still to come after d.
  std::set<std::string> pending;
  if (prog.schedule) {
    const auto& s = *prog.schedule;
    size_t at = s.size();
    for (size_t k = 0; k < s.size(); ++k)
      if (&s[k] == &d || (s[k].loc.line == d.loc.line && s[k].loc.col == d.loc.col && s[k].kind == d.kind)) {
        at = k;
        break;
      }
    for (size_t k = at == s.size() ? s.size() : at + 1; k < s.size(); ++k)
      if (s[k].kind == DirectiveKind::StoreAt) pending.insert(s[k].func.text);
  }
  struct W : StmtVisitor {
    std::set<std::string> funcs, pending;
    std::vector<const ForStmt*> loops;
    std::map<std::string, std::vector<const ForStmt*>> alloc_loops;  // loops around allocate h
    std::optional<std::string> violation;
    void visit_for(const ForStmt& s) override {
      loops.push_back(&s);
      StmtVisitor::visit_for(s);
      loops.pop_back();
    }
    void visit_allocate(const AllocateStmt& s) override {
      alloc_loops[s.func] = loops;
      StmtVisitor::visit_allocate(s);
    }
    void visit_label(const LabelStmt& s) override {
      if (!violation && funcs.count(s.label) && !pending.count(s.label)) {
        const auto& around = alloc_loops[s.label];
        for (const ForStmt* p : loops)
          if (p->order == Traversal::Parallel && std::find(around.begin(), around.end(), p) == around.end()) {
            violation = fmt::format("'{}' is computed inside the parallel loop {} but stored outside it, so its "
                                    "iterations would share one buffer (SEMANTICS.md, traverse: a func computed "
                                    "inside a parallel loop must also be stored inside it; Halide rejects this as "
                                    "a potential race condition); add store_at({}, ...) at that loop or deeper",
                                    s.label, loop_text(*p), s.label);
            break;
          }
      }
      StmtVisitor::visit_label(s);
    }
  } w;
  for (const auto& f : prog.pipeline.funcs) w.funcs.insert(f.name.text);
  w.pending = pending;
  w.visit(t.body);
  return w.violation;
}

// ---------------------------------------------------------------- specialization

// Copy j of f's computation: f's loops, f's non-shared cpu holes, f's non-shared func
// references and stores carry specialization j (§2.8.1 and Def. 2.14: the last stage keeps
// the shared label `*`), and so do the qualified variables of f's loops and lets (ast.hpp):
// <f, 0, i, x> becomes <f, j, i, x>, the binder of the copy's loop.
//
// For a computation copied into every specialization of its consumer (compute_at at
// <g, *, i, v>, semantics decision 19) the copies run in different scopes, so nothing is
// shared: `shared` also gives the last stage's holes, stores and reads copy j.
struct Respecialize : StmtMutator, ExprMutator {
  std::set<std::string> funcs;
  int64_t j = 0;
  bool shared = false;  // also the last stage's (FuncLabel::kShared) labels
  using StmtMutator::mutate;

 protected:
  bool renames(const std::string& func, int64_t spec) const {
    return funcs.count(func) && (shared || spec != FuncLabel::kShared);
  }
  Expr mutate_expr(const Expr& e) override { return e ? ExprMutator::mutate(e) : e; }
  std::string rename(const std::string& v) const {
    auto l = split_qualified_var(v);
    if (!l || !funcs.count(l->func.text)) return v;
    return qualified_var(l->func.text, j, l->stage, l->var.text);
  }
  Expr mutate_var(const Expr& e) override {
    const auto& n = as<VarNode>(e);
    std::string r = rename(n.name);
    return r == n.name ? e : make_var(std::move(r), e->loc);
  }
  Stmt mutate_let(const Stmt& s) override {
    Stmt m = StmtMutator::mutate_let(s);
    const auto& n = as<LetStmt>(m);
    std::string r = rename(n.var);
    return r == n.var ? m : make_let(std::move(r), n.value, n.body, m->loc);
  }
  Expr mutate_call(const Expr& e) override {
    Expr m = ExprMutator::mutate_call(e);
    const auto& c = as<CallNode>(m);
    if (!c.label.labelled() || !renames(c.func, c.label.spec)) return m;
    return make_call(c.func, c.args, m->loc, FuncLabel{c.label.stage, j}, c.type);
  }
  Expr mutate_hole(const Expr& e) override {
    const auto& h = as<HoleNode>(e);
    if (h.label.kind != HoleKind::Cpu || !renames(h.label.func, h.label.spec)) return e;
    HoleLabel l = h.label;
    l.spec = j;
    return make_hole(l, e->loc);
  }
  Stmt mutate_store(const Stmt& s) override {
    Stmt m = StmtMutator::mutate_store(s);
    const auto& n = as<StoreStmt>(m);
    if (!renames(n.func, n.label.spec)) return m;
    return make_store(n.func, FuncLabel{n.label.stage, j}, n.args, n.value, m->loc);
  }
  Stmt mutate_for(const Stmt& s) override {
    Stmt m = StmtMutator::mutate_for(s);
    const auto& n = as<ForStmt>(m);
    if (!funcs.count(n.func)) return m;
    return make_for(n.func, j, n.stage, n.var, n.min, n.len, n.order, n.body, m->loc);
  }
};

// The label of copy j of f's computation (docs/schedule-placement.md). It contains no
// ".s<digits>" suffix, so the bounds extraction does not mistake it for a stage label.
std::string copy_label(const std::string& f, int64_t j) { return fmt::format("{}.j{}", f, j); }

bool already_specialized(const Stmt& body, const std::string& f) {
  struct W : StmtVisitor {
    std::string f;
    bool found = false;
    void visit_for(const ForStmt& s) override {
      found |= s.func == f && s.spec != 0;
      StmtVisitor::visit_for(s);
    }
    void visit_label(const LabelStmt& s) override {
      found |= s.label == copy_label(f, 0);
      StmtVisitor::visit_label(s);
    }
  } w;
  w.f = f;
  w.visit(body);
  return w.found;
}

// ---------------------------------------------------------------- a loop in every specialization

// The copies of g's computation: the specializations of g's copy labels `g.j<k>`, else
// those its loops carry (a computation already copied into every specialization of its
// own consumer), else just 0.
std::set<int64_t> copies_of(const Stmt& body, const std::string& g) {
  struct W : StmtVisitor {
    std::string g;
    std::set<int64_t> labelled, looped;
    void visit_label(const LabelStmt& s) override {
      const std::string prefix = g + ".j";
      int64_t k = 0;
      const char* end = s.label.data() + s.label.size();
      if (s.label.size() > prefix.size() && s.label.compare(0, prefix.size(), prefix) == 0) {
        auto [p, ec] = std::from_chars(s.label.data() + prefix.size(), end, k);
        if (ec == std::errc() && p == end) labelled.insert(k);
      }
      StmtVisitor::visit_label(s);
    }
    void visit_for(const ForStmt& s) override {
      if (s.func == g) looped.insert(s.spec);
      StmtVisitor::visit_for(s);
    }
  } w;
  w.g = g;
  w.visit(body);
  if (!w.labelled.empty()) return w.labelled;
  if (!w.looped.empty()) return w.looped;
  return {0};
}

// The funcs computed inside `label`'s statement (its own and those computed at its loops),
// and whether any of them is specialized there.
std::set<std::string> funcs_computed_in(const Stmt& label, const Program& prog, bool* specialized) {
  struct W : StmtVisitor {
    const Program* prog;
    std::set<std::string> funcs;
    bool specialized = false;
    void visit_label(const LabelStmt& s) override {
      if (prog->pipeline.find(s.label)) funcs.insert(s.label);
      StmtVisitor::visit_label(s);
    }
    void visit_for(const ForStmt& s) override {
      specialized |= s.spec != 0;
      StmtVisitor::visit_for(s);
    }
  } w;
  w.prog = &prog;
  w.visit(label);
  for (const auto& f : w.funcs) w.specialized |= already_specialized(label, f);
  if (specialized) *specialized = w.specialized;
  return w.funcs;
}

// Copy j of the body of loop lj: the funcs computed in every specialization (`moved`, and
// those an earlier compute_at at <g, *, i, v> copied here, recognized by a last stage that
// writes copy j rather than the shared label) take specialization j everywhere in it,
// including the reads of their last stage: in copy j the consumer reads copy j.
Stmt respecialize_at_loop(const Stmt& body, const LoopName& lj, const std::set<std::string>& moved,
                          const Program& prog) {
  struct M : StmtMutator {
    const LoopName* lj;
    const std::set<std::string>* moved;
    const Program* prog;
    Stmt mutate_for(const Stmt& s) override {
      const auto& n = as<ForStmt>(s);
      if (!names_loop(n, *lj)) return StmtMutator::mutate_for(s);
      struct Copied : StmtVisitor {
        const Program* prog;
        int64_t j;
        std::set<std::string> funcs;
        void visit_store(const StoreStmt& st) override {
          const FuncDef* def = prog->pipeline.find(st.func);
          if (def && st.label.stage == int64_t(def->stage_count()) - 1 && st.label.spec == j) funcs.insert(st.func);
          StmtVisitor::visit_store(st);
        }
      } copied;
      copied.prog = prog;
      copied.j = n.spec;
      copied.visit(n.body);
      Respecialize r;
      r.funcs = *moved;
      r.funcs.insert(copied.funcs.begin(), copied.funcs.end());
      r.j = n.spec;
      r.shared = true;
      return make_for(n.func, n.spec, n.stage, n.var, n.min, n.len, n.order, r.mutate(n.body), s->loc);
    }
  } m;
  m.lj = &lj;
  m.moved = &moved;
  m.prog = &prog;
  return m.mutate(body);
}

// The loops d.loop names: itself, or for <g, *, i, v> the loop v of stage i in each copy of
// g, which must exist in every one of them.
std::vector<LoopName> target_loops(const TgtProgram& t, const Directive& d, const Program& prog) {
  if (d.loop.spec != LoopName::kEverySpec) return {d.loop};
  std::vector<LoopName> out;
  std::vector<std::string> missing;
  for (int64_t j : copies_of(t.body, d.loop.func.text)) {
    LoopName lj = d.loop;
    lj.spec = j;
    if (find_loop(t.body, lj)) out.push_back(lj);
    else missing.push_back(loop_text(lj));
  }
  if (!missing.empty())
    reject(prog, d, fmt::format("compute_at({}, {}): {} does not exist, so the loop is not in every specialization "
                                "of '{}' (semantics decision 19); {}",
                                d.func.text, loop_text(d.loop), fmt::join(missing, " and "), d.loop.func.text,
                                loops_list(t.body, d.loop.func.text)));
  return out;
}

// Is loop v of stage i in every copy of its func? Then <g, *, i, v> is what a writer of a
// loop in one copy probably meant.
bool in_every_copy(const Stmt& body, const LoopName& l) {
  for (int64_t j : copies_of(body, l.func.text)) {
    LoopName lj = l;
    lj.spec = j;
    if (!find_loop(body, lj)) return false;
  }
  return true;
}

}  // namespace

// S(specialize(f, c1..cn), T) (§2.8.1, SEMANTICS.md): `label f: s` becomes
// `label f: if c1 then label f.j1: s1 else if c2 ... else label f.j0: s0`.
TgtProgram apply_specialize(const TgtProgram& t, const Directive& d, const Program& prog) {
  const std::string& f = d.func.text;
  if (!prog.pipeline.find(f))
    reject(prog, d, fmt::format("'specialize' names unknown func '{}' (fig. 2.11)", f));
  if (d.exprs.empty())
    reject(prog, d, fmt::format("'specialize' of '{}' needs at least one condition (§2.8.1)", f));
  // §2.8.1: at most one specialization directive per func.
  if (prog.schedule)
    for (const Directive& o : *prog.schedule) {
      if (&o == &d || (o.loc.line == d.loc.line && o.loc.col == d.loc.col)) break;
      if (o.kind == DirectiveKind::Specialize && o.func.text == f)
        reject(prog, d, fmt::format("'{}' is specialized a second time (first at {}:{}); §2.8.1 allows at most one "
                                    "specialize per func",
                                    f, o.loc.line, o.loc.col));
    }
  if (already_specialized(t.body, f))
    reject(prog, d, fmt::format("'{}' is already specialized; §2.8.1 allows at most one specialize per func", f));

  Stmt label;
  Stmt rest = extract(t.body, [&](const Stmt& s) { return is_func_label(s, f); }, label);
  if (!label) throw std::logic_error("specialize: no 'label " + f + "' in the program");
  const auto& l = as<LabelStmt>(label);
  auto copy = [&](int64_t j) {
    Respecialize r;
    r.funcs = {f};
    r.j = j;
    return make_label(copy_label(f, j), r.mutate(l.body), l.body->loc);
  };
  Stmt chain = copy(0);
  for (size_t k = d.exprs.size(); k-- > 0;) chain = make_if(d.exprs[k], copy(int64_t(k) + 1), chain, d.loc);
  Stmt replaced = make_label(f, chain, label->loc);
  // Put the new label where the old one was.
  struct M : StmtMutator {
    const StmtNode* old;
    Stmt repl;
    Stmt mutate_label(const Stmt& s) override { return s.get() == old ? repl : StmtMutator::mutate_label(s); }
  } m;
  m.old = label.get();
  m.repl = replaced;
  TgtProgram out = t;
  out.body = m.mutate(t.body);
  (void)rest;
  return out;
}

// S(compute_at(f, ℓ), T) (§2.8.3, SEMANTICS.md): `label f: ...` moves to the start of ℓ's body.
//
// compute_at(f, <g, *, i, v>) (semantics decision 19, Halide's LoopLevel in a specialized
// consumer) puts a copy of f's computation at the start of loop v in each copy j of g; copy
// j computes, and g's copy j reads, f's specialization j (every stage, the last included:
// the copies run in different scopes, so no hole is shared).
TgtProgram apply_compute_at(const TgtProgram& t, const Directive& d, const Program& prog) {
  require_producer(d, prog);
  const std::string& f = d.func.text;
  std::vector<LoopName> targets = target_loops(t, d, prog);
  for (const LoopName& lj : targets) {
    LoopSite site = require_loop(t, d, prog, lj);
    if (std::find(site.labels.begin(), site.labels.end(), f) != site.labels.end())
      reject(prog, d, fmt::format("compute_at cannot compute '{}' inside loop {}, which is part of '{}''s own "
                                  "computation (Lemma 2.5: f's computation must precede every access to f)",
                                  f, loop_text(lj), f));
  }
  Stmt label;
  Stmt body = extract(t.body, [&](const Stmt& s) { return is_func_label(s, f); }, label);
  if (!label) throw std::logic_error("compute_at: no 'label " + f + "' in the program");
  TgtProgram out = t;
  if (d.loop.spec != LoopName::kEverySpec) {
    out.body = insert_at_loop_start(body, d.loop, label, f, prog);
  } else {
    bool specialized = false;
    std::set<std::string> moved = funcs_computed_in(label, prog, &specialized);
    if (specialized)
      reject(prog, d, fmt::format("compute_at({}, {}): '{}' (or a func computed inside it) is specialized itself; a "
                                  "computation copied into every specialization of '{}' must not be (semantics "
                                  "decision 19). Compute it at a loop of one specialization, or outside '{}'",
                                  f, loop_text(d.loop), f, d.loop.func.text, d.loop.func.text));
    for (const LoopName& lj : targets) {
      body = insert_at_loop_start(body, lj, label, f, prog);
      body = respecialize_at_loop(body, lj, moved, prog);
    }
    out.body = body;
  }
  std::string accessed, accessor;
  std::optional<std::string> why;
  if (!later_compute_at(prog, d)) why = first_dominance_violation(out, prog, &accessed, &accessor);
  if (why && test_mutation("compute-at-no-dominance")) why.reset();  // mutation hook (support/test_mutation.hpp)
  // With several compute_at directives, say which one to move or change: the accessed
  // func's own compute_at (its computation no longer precedes this use), else the one of
  // the func making the access (it reads the producer before the producer's loop).
  const Directive* blamed = &d;
  if (why && accessed != f) {
    if (const Directive* o = compute_at_of(prog, accessed)) blamed = o;
    else if (const Directive* r = compute_at_of(prog, accessor)) blamed = r;
  }
  if (why && blamed != &d && !(blamed->loc.line == d.loc.line && blamed->loc.col == d.loc.col))
    throw InputError(Diagnostic{
        prog.file, blamed->loc,
        fmt::format("compute_at({}, {}) breaks dominance in the schedule as a whole (Lemma 2.5: f's computation "
                    "must precede every access to f outside it): {}. Move this directive to a loop that encloses "
                    "every use of '{}'{}",
                    blamed->func.text, loop_text(blamed->loop), *why, blamed->func.text,
                    accessor.empty() || accessor == blamed->func.text || accessor == prog.pipeline.name.text
                        ? std::string()
                        : fmt::format(", or compute '{}' inside {} too", accessor, loop_text(blamed->loop)))});
  if (why) {
    if (d.loop.spec != LoopName::kEverySpec && consumer_reads_in_other_spec(out.body, f, d.loop)) {
      LoopName every = d.loop;
      every.spec = LoopName::kEverySpec;
      if (in_every_copy(t.body, d.loop))
        reject(prog, d, fmt::format("compute_at({}, {}): loop {} is one specialization's copy of a loop every "
                                    "specialization of '{}' has, and the others also read '{}': write {} to compute "
                                    "'{}' in each of them, as Halide's LoopLevel({}, {}) does (semantics decision "
                                    "19): {}",
                                    f, loop_text(d.loop), loop_text(d.loop), d.loop.func.text, f, loop_text(every), f,
                                    d.loop.func.text, d.loop.var.text, *why));
      reject(prog, d, fmt::format("compute_at({}, {}): loop {} exists in only one specialization of '{}', whose "
                                  "other specializations also read '{}' (Lemma 2.5; Halide rejects this too, "
                                  "TARGETS.md): {}",
                                  f, loop_text(d.loop), loop_text(d.loop), d.loop.func.text, f, *why));
    }
    reject(prog, d, fmt::format("compute_at({}, {}) would break dominance (Lemma 2.5: f's computation must "
                                "precede every access to f outside it, and f's allocation must precede both): {}",
                                f, loop_text(d.loop), *why));
  }
  // No freshness condition on f's variables: every loop binds its qualified name
  // <func, spec, stage, var> (ast.hpp), so f's loops over x never shadow a consumer's loop
  // over x, and fig. 2.8's FOR-STOP clears only f's own binder (docs/semantics-decisions.md,
  // "Qualified loop variables").
  if (auto why = first_parallel_violation(out, prog, d)) reject(prog, d, *why);
  return out;
}

// S(store_at(f, ℓ), T) (§2.8.4, SEMANTICS.md): `allocate f(...)` moves to the start of ℓ's body.
TgtProgram apply_store_at(const TgtProgram& t, const Directive& d, const Program& prog) {
  require_producer(d, prog);
  const std::string& f = d.func.text;
  LoopSite site = require_loop(t, d, prog);
  if (std::find(site.labels.begin(), site.labels.end(), f) != site.labels.end())
    reject(prog, d, fmt::format("store_at cannot store '{}' inside loop {}, which is part of '{}''s own "
                                "computation (Lemma 2.5: the allocation must precede f's computation)",
                                f, loop_text(d.loop), f));
  Stmt alloc;
  Stmt body = extract(t.body, [&](const Stmt& s) { return is_allocate(s, f); }, alloc);
  if (!alloc) throw std::logic_error("store_at: no 'allocate " + f + "' in the program");
  TgtProgram out = t;
  out.body = insert_at_loop_start(body, d.loop, alloc, f, prog);
  if (auto why = first_dominance_violation(out, prog))
    reject(prog, d, fmt::format("store_at({}, {}) would break dominance (Lemma 2.5: f's allocation must precede "
                                "f's computation and every access to f): {}",
                                f, loop_text(d.loop), *why));
  if (auto why = first_parallel_violation(out, prog, d)) reject(prog, d, *why);
  return out;
}

}  // namespace halo

// The loops phase of scheduling (thesis §2.8.2, fig. 2.11; fig. 2.12 was lost, so the
// rewrites follow shared/spec/SEMANTICS.md "Scheduling directives" exactly): split, fuse,
// swap and traverse, each a rewrite S(s, T) of a Tgt? program. It exists so that a
// schedule can change the order in which a stage visits its points while keeping loop
// naming (Lemma 2.4 / 2.10: every loop stays <func, spec, stage, var>) and dominance
// (Lemma 2.5: loops only move within their own stage's nest). docs/schedule-loops.md
// describes every rewrite, its restrictions and an example.
//
// Readings taken here (docs/schedule-loops.md, "Decisions"):
//  * Purity (Def. 2.16) is derived from the algorithm and the schedule, not stored in the
//    program: the pure loops of stage i of f are its pure dimensions (Def. 2.8), plus the
//    names that earlier split/fuse directives of the same <f, spec, i> derived from pure
//    loops. Names are fresh within their <f, spec, i>, so replaying the schedule is
//    unambiguous.
//  * Loops bind qualified variables (the loop name <f, spec, i, v>, ast.hpp): split and fuse
//    bind <f, spec, i, vo> and rebind the old <f, spec, i, v> by a let, so a name needs to
//    be new only among the loops and lets of its own <func, spec, stage> (as Halide's xo,
//    xi live in their func's and stage's namespace).
//  * The `let`s (and split's guard) go directly below the innermost loop of the stage, so
//    the stage's loops stay perfectly nested; a newer let sits outside older ones, which
//    may use the variable it binds (splitting xo again rebinds xo above `let x = .. xo ..`).
//  * A constant split factor must be positive (rejected otherwise); a factor that is not
//    a constant (a startup expression over parameters) is checked at run time by
//    `assert(e > 0)` put first in the program, as Halide checks it at pipeline startup.
#include "schedule/schedule.hpp"
#include "semantics/schedule_vocabulary.hpp"

#include "bounds/simplify.hpp"
#include "support/test_mutation.hpp"
#include "semantics/printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace halo {

namespace {

// ---------------------------------------------------------------- small helpers
std::string loop_text(const std::string& f, int64_t spec, int64_t stage, const std::string& v) {
  return fmt::format("<{}, {}, {}, {}>", f, spec, stage, v);
}
std::string loop_text(const LoopName& l) { return loop_text(l.func.text, l.spec, l.stage, l.var.text); }
std::string loop_text(const ForStmt& f) { return loop_text(f.func, f.spec, f.stage, f.var); }

bool names_loop(const ForStmt& f, const LoopName& l) {
  return f.func == l.func.text && f.spec == l.spec && f.stage == l.stage && f.var == l.var.text;
}
bool same_stage(const ForStmt& a, const ForStmt& b) {
  return a.func == b.func && a.spec == b.spec && a.stage == b.stage;
}

[[noreturn]] void reject(const Program& prog, const Directive& d, const std::string& msg) {
  // A swap Halide's fuse makes by itself: the user wrote the fuse, so the message says so.
  if (d.halide_implicit)
    throw InputError(Diagnostic{prog.file, d.loc,
                                fmt::format("{} moves {} as Halide's fuse does (the loops between inner and outer "
                                            "change places), and that move is not allowed: {}",
                                            d.sugar, print_loop_name(d.loop), msg)});
  throw InputError(Diagnostic{prog.file, d.loc, msg});
}

// Does `e` mention variable `v`?
bool mentions(const Expr& e, const std::string& v) {
  struct Finder : ExprVisitor {
    const std::string& name;
    bool found = false;
    explicit Finder(const std::string& n) : name(n) {}
    void visit_var(const VarNode& n) override { found = found || n.name == name; }
  } f(v);
  f.visit(e);
  return f.found;
}

// Every loop of the program, in program order.
std::vector<const ForStmt*> all_loops(const Stmt& s) {
  struct Collector : StmtVisitor {
    std::vector<const ForStmt*> loops;
    void visit_for(const ForStmt& f) override {
      loops.push_back(&f);
      StmtVisitor::visit_for(f);
    }
  } c;
  c.visit(s);
  return c.loops;
}

}  // namespace

const ForStmt& find_loop(const TgtProgram& t, const Directive& d, const Program& prog) {
  std::vector<const ForStmt*> loops = all_loops(t.body);
  for (const ForStmt* f : loops)
    if (names_loop(*f, d.loop)) return *f;
  std::vector<std::string> of_func;
  for (const ForStmt* f : loops)
    if (f->func == d.loop.func.text) of_func.push_back(loop_text(*f));
  reject(prog, d,
         fmt::format("'{}' names loop {}, which does not exist (Lemma 2.4: a loop is named by its func, "
                     "specialization, stage and variable); {}",
                     directive_name(d.kind), loop_text(d.loop),
                     of_func.empty() ? fmt::format("func '{}' has no loops", d.loop.func.text)
                                     : fmt::format("func '{}' has the loops {}", d.loop.func.text,
                                                   fmt::join(of_func, ", "))));
}

namespace {

// T with the loop named `l` replaced by rewrite(loop).
Stmt replace_loop(const Stmt& body, const LoopName& l, const std::function<Stmt(const ForStmt&)>& rewrite) {
  struct Replacer : StmtMutator {
    const LoopName& name;
    const std::function<Stmt(const ForStmt&)>& fn;
    Replacer(const LoopName& n, const std::function<Stmt(const ForStmt&)>& f) : name(n), fn(f) {}
    Stmt mutate_for(const Stmt& s) override {
      const auto& f = as<ForStmt>(s);
      if (names_loop(f, name)) return fn(f);
      return StmtMutator::mutate_for(s);
    }
  } r(l, rewrite);
  return r.mutate(body);
}

// `s` with wrap(inner) in place of the stage's innermost statement `inner`: descends
// through the loops of stage `of` (the stage's loops are perfectly nested in the loops
// phase) and wraps the first statement that is not one of them.
Stmt wrap_below(const Stmt& s, const ForStmt& of, const std::function<Stmt(const Stmt&)>& wrap) {
  if (s->kind == StmtKind::For && same_stage(as<ForStmt>(s), of)) {
    const auto& f = as<ForStmt>(s);
    return make_for(f.func, f.spec, f.stage, f.var, f.min, f.len, f.order, wrap_below(f.body, of, wrap), f.loc);
  }
  return wrap(s);
}

Stmt rebuild_for(const ForStmt& f, Expr mn, Expr ln, Traversal order, Stmt body) {
  return make_for(f.func, f.spec, f.stage, f.var, std::move(mn), std::move(ln), order, std::move(body), f.loc);
}

Expr op(Op o, Expr a, Expr b, SourceLoc l) { return make_op(o, {std::move(a), std::move(b)}, l); }

// ---------------------------------------------------------------- purity (Def. 2.16)
// The pure loop variables of stage `stage` of f in specialization `spec`: the pure
// dimensions of the stage (Def. 2.8: x_j is one when the left-hand side's e_j is x_j),
// plus every name that a split or fuse of the schedule, up to (not including) `upto`,
// derived from a pure loop of the same stage.
std::set<std::string> pure_loop_vars(const Program& prog, const std::string& func, int64_t spec, int64_t stage,
                                     const Directive& upto) {
  std::set<std::string> pure;
  const FuncDef* f = prog.pipeline.find(func);
  if (!f) return pure;
  if (stage == 0) {
    for (const Name& v : f->vars) pure.insert(v.text);
  } else if (stage >= 1 && static_cast<size_t>(stage) <= f->updates.size()) {
    const UpdateStage& u = f->updates[static_cast<size_t>(stage - 1)];
    for (size_t j = 0; j < f->vars.size() && j < u.lhs.size(); ++j)
      if (u.lhs[j]->kind == ExprKind::Var && as<VarNode>(u.lhs[j]).name == f->vars[j].text)
        pure.insert(f->vars[j].text);
  }
  if (!prog.schedule) return pure;
  // The directives before `upto`; a directive that is not one of the schedule's (a test
  // building its own) sees the whole schedule, which is the same since names are fresh.
  const auto& sched = *prog.schedule;
  size_t end = sched.size();
  for (size_t k = 0; k < sched.size(); ++k)
    if (&sched[k] == &upto) end = k;
  for (size_t k = 0; k < end; ++k) {
    const Directive& d = sched[k];
    if (d.loop.func.text != func || d.loop.spec != spec || d.loop.stage != stage) continue;
    if (!pure.count(d.loop.var.text)) continue;
    if (d.kind == DirectiveKind::Split && d.names.size() >= 2) {
      pure.insert(d.names[0].text);
      pure.insert(d.names[1].text);
    } else if (d.kind == DirectiveKind::Fuse && !d.names.empty()) {
      pure.insert(d.names[0].text);
    }
  }
  return pure;
}

bool is_pure(const Program& prog, const Directive& d, const ForStmt& loop) {
  return pure_loop_vars(prog, loop.func, loop.spec, loop.stage, d).count(loop.var) > 0;
}

// ---------------------------------------------------------------- freshness
// A name a directive introduces must be new (§2.8.2: "new, unique, and non-conflicting")
// within the namespace of the loop's <func, spec, stage>: not a pure or reduction variable
// of the func, nor the variable of a loop of the same <func, spec, stage>, nor a variable an
// earlier split or fuse rebinds there by a let. Other funcs, stages and specializations may
// use the same name: their loops bind other qualified variables (ast.hpp). Parameters and
// window variables stay excluded, so that the readable text form (docs/target-syntax.md)
// never confuses a loop variable with one of them.
void check_fresh(const TgtProgram& t, const Directive& d, const Program& prog, const Name& n, const char* role) {
  const std::string& x = n.text;
  auto clash = [&](const std::string& what) {
    throw InputError(Diagnostic{prog.file, n.loc.line ? n.loc : d.loc,
                                fmt::format("'{}': {} '{}' is not a fresh name, it is already {} (§2.8.2: names "
                                            "introduced by a directive must be new and unique within the "
                                            "func's stage)",
                                            directive_name(d.kind), role, x, what)});
  };
  for (const Name& p : prog.pipeline.params)
    if (p.text == x) clash("a parameter of the pipeline");
  for (const auto& [mn, ln] : t.window)
    if (mn == x || ln == x) clash("a window variable of the pipeline");
  if (const FuncDef* f = prog.pipeline.find(d.loop.func.text)) {
    for (const Name& v : f->vars)
      if (v.text == x) clash(fmt::format("a pure variable of func '{}'", f->name.text));
    for (const UpdateStage& u : f->updates)
      for (const RVar& r : u.rdom)
        if (r.name.text == x) clash(fmt::format("a reduction variable of func '{}'", f->name.text));
  }
  const std::string q = qualified_var(d.loop.func.text, d.loop.spec, d.loop.stage, x);
  struct Binders : StmtVisitor {
    const std::string& q;
    std::string found;
    explicit Binders(const std::string& qq) : q(qq) {}
    void visit_for(const ForStmt& f) override {
      if (found.empty() && f.binder() == q) found = "the variable of loop " + loop_text(f);
      StmtVisitor::visit_for(f);
    }
    void visit_let(const LetStmt& l) override {
      if (found.empty() && l.var == q) found = "bound by a let in its stage (an earlier split or fuse)";
      StmtVisitor::visit_let(l);
    }
  } b(q);
  b.visit(t.body);
  if (!b.found.empty()) clash(b.found);
}

}  // namespace

// ---------------------------------------------------------------- split
// split, fig. 2.11 / SEMANTICS.md: on `for v in (m, l) do s`,
//   for vo in (0, (l + e - 1) / e) do for vi in (0, e) do <s with, below the stage's
//   innermost loop,  let v = V in [if (v < m + l)] inner>
// guard: V = m + vo*e + vi, with the `if`; shift: V = min(m + vo*e, m + l - e) + vi;
// round: V = m + vo*e + vi, no `if`. vo and vi are serial, and pure iff v is.
TgtProgram apply_split(const TgtProgram& t, const Directive& d, const Program& prog) {
  const ForStmt& loop = find_loop(t, d, prog);
  if (d.names.size() < 2 || d.exprs.empty()) reject(prog, d, "'split' needs an outer name, an inner name and a factor");
  const Name& vo = d.names[0];
  const Name& vi = d.names[1];
  if (vo.text == vi.text)
    reject(prog, d, fmt::format("'split': the outer and inner names are both '{}' (§2.8.2: names introduced by a "
                                "directive must be new and unique)", vo.text));
  check_fresh(t, d, prog, vo, "the outer name");
  check_fresh(t, d, prog, vi, "the inner name");
  // §2.8.2: "Shifting and rounding are only allowed on pure stages" — stage 0 of any func,
  // also one with updates (docs/semantics-decisions.md, reading 15). In Halide's mode, round
  // also on a pure loop of an update stage that does not come from an earlier split's inner
  // loop, where Halide allows RoundUp (reading 32: each point is still updated once).
  bool halide_round = prog.schedule_mode == ScheduleMode::Halide && d.tail == TailStrategy::Round &&
                      is_pure(prog, d, loop) && !splits_halide_inner_loop(prog, d);
  if (d.tail != TailStrategy::Guard && loop.stage != 0 && !halide_round)
    reject(prog, d,
           fmt::format("'split' with tail strategy '{}' is allowed only on pure stages (§2.8.2; on an update "
                       "stage a shifted tail would apply the update twice to the points it recomputes), but loop {} "
                       "belongs to update stage {} of '{}'; use 'guard'{}",
                       tail_name(d.tail), loop_text(loop), loop.stage, loop.func,
                       d.tail == TailStrategy::Round && prog.schedule_mode == ScheduleMode::Thesis
                           ? " (in `schedule halide { }` round is accepted on an update's pure loop, as Halide's "
                             "RoundUp: docs/semantics-decisions.md, reading 32)"
                           : ""));
  const Expr& e = d.exprs[0];
  // A startup expression (validity.cpp checked it) that must be positive.
  std::optional<Expr> runtime_check = startup_check(e, Op::Gt, prog, d, "the factor");

  SourceLoc at = d.loc;
  const std::string v = loop.binder();
  Stmt rewritten = replace_loop(t.body, d.loop, [&](const ForStmt& f) {
    const Expr& m = f.min;
    const Expr& l = f.len;
    Expr vo_var = make_var(qualified_var(f.func, f.spec, f.stage, vo.text), at);
    Expr vi_var = make_var(qualified_var(f.func, f.spec, f.stage, vi.text), at);
    Expr base = op(Op::Add, m, op(Op::Mul, vo_var, e, at), at);  // m + vo*e
    Expr value;
    if (d.tail == TailStrategy::Shift)
      value = op(Op::Add, op(Op::Min, base, op(Op::Sub, op(Op::Add, m, l, at), e, at), at), vi_var, at);
    else
      value = op(Op::Add, base, vi_var, at);
    Stmt inner = wrap_below(f.body, f, [&](const Stmt& s) {
      Stmt guarded = s;
      if (d.tail == TailStrategy::Guard && !test_mutation("split-guard-dropped"))  // mutation hook (support/test_mutation.hpp)
        guarded = make_if(op(Op::Lt, make_var(v, at), op(Op::Add, m, l, at), at), s, nullptr, at);
      return make_let(v, value, guarded, at);
    });
    Expr outer_len = op(Op::Div, op(Op::Sub, op(Op::Add, l, e, at), make_const(Value(1), at), at), e, at);
    Stmt vi_loop = make_for(f.func, f.spec, f.stage, vi.text, make_const(Value(0), at), e, Traversal::Serial, inner, at);
    return make_for(f.func, f.spec, f.stage, vo.text, make_const(Value(0), at), outer_len, Traversal::Serial, vi_loop,
                    at);
  });
  TgtProgram out = t;
  out.body = runtime_check ? with_startup_checks({*runtime_check}, rewritten, at) : rewritten;
  return out;
}

// ---------------------------------------------------------------- fuse
// fuse, fig. 2.11 / SEMANTICS.md: on `for a in (ma, la) do for b in (mb, lb) do s`,
//   for t in (0, la * lb) do <s with, below the stage's innermost loop,
//                              let a = ma + t / lb in let b = mb + t % lb in inner>
// Both loops pure or both reduction (t is pure iff they are); lb and mb may not mention
// a. The fused loop is serial. b varies fastest, as before.
TgtProgram apply_fuse(const TgtProgram& t, const Directive& d, const Program& prog) {
  const ForStmt& outer = find_loop(t, d, prog);
  if (d.names.empty()) reject(prog, d, "'fuse' needs the name of the fused loop");
  const Name& tn = d.names[0];
  if (outer.body->kind != StmtKind::For || !same_stage(as<ForStmt>(outer.body), outer))
    reject(prog, d, fmt::format("'fuse' needs loop {} to have exactly one loop of the same stage as its body "
                                "(SEMANTICS.md: fuse joins a loop with the loop immediately inside it)",
                                loop_text(d.loop)));
  const ForStmt& inner = as<ForStmt>(outer.body);
  check_fresh(t, d, prog, tn, "the fused name");
  bool pa = is_pure(prog, d, outer), pb = is_pure(prog, d, inner);
  if (pa != pb)
    reject(prog, d, fmt::format("'fuse' of loop {} ({}) and loop {} ({}): both loops must be pure or both reduction "
                                "loops (§2.8.2, Def. 2.16)",
                                loop_text(outer), pa ? "pure" : "reduction", loop_text(inner),
                                pb ? "pure" : "reduction"));
  if (mentions(inner.min, outer.binder()) || mentions(inner.len, outer.binder()))
    reject(prog, d, fmt::format("'fuse': the bounds of the inner loop {} mention the outer variable '{}' "
                                "(SEMANTICS.md: the inner loop's bounds may not mention it)",
                                loop_text(inner), outer.var));
  SourceLoc at = d.loc;
  Stmt body = replace_loop(t.body, d.loop, [&](const ForStmt& a) {
    const ForStmt& b = as<ForStmt>(a.body);
    Expr tv = make_var(qualified_var(a.func, a.spec, a.stage, tn.text), at);
    Stmt fused_body = wrap_below(b.body, b, [&](const Stmt& s) {
      return make_let(a.binder(), op(Op::Add, a.min, op(Op::Div, tv, b.len, at), at),
                      make_let(b.binder(), op(Op::Add, b.min, op(Op::Mod, tv, b.len, at), at), s, at), at);
    });
    return make_for(a.func, a.spec, a.stage, tn.text, make_const(Value(0), at), op(Op::Mul, a.len, b.len, at),
                    Traversal::Serial, fused_body, at);
  });
  TgtProgram out = t;
  out.body = body;
  return out;
}

// ---------------------------------------------------------------- swap
// swap, fig. 2.11 / SEMANTICS.md: `for a in Ia do for b in Ib do s` becomes
// `for b in Ib do for a in Ia do s` (each loop keeps its bounds and traversal). Not both
// reduction loops (that would reorder the reduction); Ib may not mention a.
TgtProgram apply_swap(const TgtProgram& t, const Directive& d, const Program& prog) {
  const ForStmt& outer = find_loop(t, d, prog);
  if (outer.body->kind != StmtKind::For || !same_stage(as<ForStmt>(outer.body), outer))
    reject(prog, d, fmt::format("'swap' needs loop {} to have exactly one loop of the same stage as its body "
                                "(SEMANTICS.md: swap exchanges a loop with the loop immediately inside it)",
                                loop_text(d.loop)));
  const ForStmt& inner = as<ForStmt>(outer.body);
  if (!is_pure(prog, d, outer) && !is_pure(prog, d, inner))
    reject(prog, d, fmt::format("'swap' of loops {} and {}: both are reduction loops, and swapping them would "
                                "reorder the reduction (§2.8.2, Def. 2.16)",
                                loop_text(outer), loop_text(inner)));
  if (mentions(inner.min, outer.binder()) || mentions(inner.len, outer.binder()))
    reject(prog, d, fmt::format("'swap': the bounds of the inner loop {} mention the outer variable '{}' "
                                "(SEMANTICS.md: the inner loop's bounds may not mention it)",
                                loop_text(inner), outer.var));
  Stmt body = replace_loop(t.body, d.loop, [&](const ForStmt& a) {
    const ForStmt& b = as<ForStmt>(a.body);
    return rebuild_for(b, b.min, b.len, b.order, rebuild_for(a, a.min, a.len, a.order, b.body));
  });
  TgtProgram out = t;
  out.body = body;
  return out;
}

// ---------------------------------------------------------------- traverse
// traverse, fig. 2.11 / SEMANTICS.md: sets the loop's traversal order. parallel and
// vectorized only on pure loops (Def. 2.16); serial and unrolled on any loop. (A func
// computed inside a parallel loop must also be stored inside it: compute_at/store_at's
// check, schedule/placement.cpp.)
TgtProgram apply_traverse(const TgtProgram& t, const Directive& d, const Program& prog) {
  const ForStmt& loop = find_loop(t, d, prog);
  if ((d.order == Traversal::Parallel || d.order == Traversal::Vectorized) && !is_pure(prog, d, loop))
    reject(prog, d, fmt::format("'traverse' of loop {} as {}: it is a reduction loop, and only pure loops may be "
                                "traversed in parallel or vectorized (§2.8.2, Def. 2.16)",
                                loop_text(loop), traversal_name(d.order)));
  Stmt body = replace_loop(t.body, d.loop,
                           [&](const ForStmt& f) { return rebuild_for(f, f.min, f.len, d.order, f.body); });
  TgtProgram out = t;
  out.body = body;
  return out;
}

}  // namespace halo

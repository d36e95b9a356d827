// Validity of algorithm programs (thesis Defs. 2.7, 2.9, 2.10), of the realize section
// and of the target-independent part of the schedule.
//
// Why this file exists: the theorems of Chapter 2 (memory safety, scheduling
// equivalence, termination of the algorithm semantics) quantify over *valid* programs
// only. Every later pass (both evaluators, lowering, scheduling, bounds) assumes the
// restrictions checked here, so the checks run once, up front, and each violation becomes
// a located Diagnostic that names the rule and the definition it comes from.
//
// Layout: a few generic traversals (the accesses and variables of an expression, the
// expressions of a func's stages), then one function per rule. Every rule function
// appends to a shared Checker; validate_program runs them all and sorts the result into
// source order. To add a rule, write one more `check_...` function and call it from
// validate_program. docs/validity.md describes each rule and the reading taken.
#include "semantics/validity.hpp"

#include "semantics/printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>

namespace halo {

namespace {

// ---------------------------------------------------------------- generic traversals

// The func accesses, variable occurrences and operators of an expression, in pre-order
// (which is source order for parsed trees), plus where the expression starts. With
// descend_into_calls == false an access is collected but its arguments are not searched,
// so an offending subterm yields one report. Null subtrees are skipped and, like an
// operator with the wrong operand count, make the expression `malformed`: validation must
// not crash on a tree that no parser would build.
class Collector : public ExprVisitor {
 public:
  explicit Collector(bool descend_into_calls = true) : descend_(descend_into_calls) {}
  std::vector<const CallNode*> calls;
  std::vector<const VarNode*> vars;
  std::vector<const OpNode*> ops;
  SourceLoc start;  // the leftmost located node (line 0 if none)
  bool malformed = false;

  void walk(const Expr& e) {
    if (!e) {
      malformed = true;
      return;
    }
    const SourceLoc l = e->loc;
    if (l.line != 0 && (start.line == 0 || std::tie(l.line, l.col) < std::tie(start.line, start.col)))
      start = l;
    visit(e);
  }

 protected:
  void visit_var(const VarNode& n) override { vars.push_back(&n); }
  void visit_call(const CallNode& n) override {
    calls.push_back(&n);
    if (descend_)
      for (const auto& a : n.args) walk(a);
  }
  void visit_op(const OpNode& n) override {
    ops.push_back(&n);
    malformed |= n.args.size() != size_t(op_arity(n.op));
    for (const auto& a : n.args) walk(a);
  }

 private:
  bool descend_;
};

// Collects e; a null e (an absent predicate) is simply empty.
Collector collect(const Expr& e, bool descend_into_calls = true) {
  Collector c(descend_into_calls);
  if (e) c.walk(e);
  return c;
}

// Where an expression starts in the source: its leftmost located node. (The parser puts a
// binary operator at its operator token; a message about a whole argument points at the
// argument's first character instead.)
SourceLoc start_loc(const Expr& e, SourceLoc fallback) {
  SourceLoc s = collect(e).start;
  return s.line != 0 ? s : fallback;
}

// The part of a stage that is evaluated per point: for the pure stage its expression, for
// an update its left-hand side, value and predicate. The rdom bounds are not part of it:
// they are startup expressions (Def. 2.9) and are checked only by check_rdom_bounds.
// `stage` is 0 for the pure stage, j for update U_j.
using BodyFn = std::function<void(const Expr&, size_t stage)>;
void for_each_body_expr(const FuncDef& f, const BodyFn& fn) {
  fn(f.pure, 0);
  for (size_t j = 0; j < f.updates.size(); ++j) {
    const UpdateStage& u = f.updates[j];
    for (const auto& e : u.lhs) fn(e, j + 1);
    fn(u.value, j + 1);
    fn(u.predicate, j + 1);  // may be null (no predicate): fn must accept null
  }
}

// Every expression of update U_j, the rdom bounds included.
std::vector<Expr> all_exprs(const UpdateStage& u) {
  std::vector<Expr> es;
  for (const auto& r : u.rdom) {
    es.push_back(r.min);
    es.push_back(r.len);
  }
  es.insert(es.end(), u.lhs.begin(), u.lhs.end());
  es.push_back(u.value);
  es.push_back(u.predicate);
  return es;
}

bool contains(const std::vector<Name>& names, const std::string& n) {
  return std::any_of(names.begin(), names.end(), [&](const Name& m) { return m.text == n; });
}

// The expression as the user wrote it (up to layout); the printer is only trusted with
// well-formed trees.
std::string show(const Expr& e) {
  if (!e) return "<nothing>";
  return collect(e).malformed ? "<malformed expression>" : print_expr(e);
}

std::string plural(size_t n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// "stage 1 of 'f'" or "the pure stage of 'f'".
std::string stage_name(const FuncDef& f, size_t stage) {
  return stage == 0 ? fmt::format("the pure stage of '{}'", f.name.text)
                    : fmt::format("stage {} of '{}'", stage, f.name.text);
}

struct Checker {
  const Program& prog;
  std::vector<Diagnostic> diags;
  const Pipeline& pipe() const { return prog.pipeline; }
  void report(SourceLoc loc, std::string msg) { diags.push_back({prog.file, loc, std::move(msg)}); }
};

// The func an access `name[...]` inside func number `user` refers to, if it may refer to
// any: an earlier func (the nearest one if the name is duplicated) or `user` itself.
// Rule 5 reports every access for which this is null; the other rules skip those accesses.
const FuncDef* visible_func(const Pipeline& p, size_t user, const std::string& name) {
  if (user < p.funcs.size() && p.funcs[user].name.text == name) return &p.funcs[user];
  for (size_t i = std::min(user, p.funcs.size()); i-- > 0;)
    if (p.funcs[i].name.text == name) return &p.funcs[i];
  return nullptr;
}

// A parameter, or the geometry of a declared input (img.dim(k).min(), ast.hpp): the
// variables a startup expression (Def. 2.9) may use, since the realization binds both.
bool is_startup_var(const Pipeline& p, const std::string& name) {
  if (contains(p.params, name)) return true;
  auto g = split_buffer_var(name);
  if (!g) return false;
  const InputDef* in = p.find_input(g->input);
  return in && g->dim < in->dims();
}

// ---------------------------------------------------------------- rules

// Def. 2.9 (startup expression): the offending subterms of e, i.e. func accesses and
// variables that are not pipeline parameters; `what` says where e sits.
void report_non_startup(Checker& c, const Expr& e, const std::string& what) {
  Collector col = collect(e, /*descend_into_calls=*/false);
  for (const CallNode* call : col.calls)
    c.report(call->loc, fmt::format("{} must be a startup expression (Def. 2.9), but it accesses func '{}'",
                                    what, call->func));
  for (const VarNode* v : col.vars)
    if (!is_startup_var(c.pipe(), v->name))
      c.report(v->loc, fmt::format("{} must be a startup expression (Def. 2.9), but variable '{}' is not a "
                                   "pipeline parameter",
                                   what, v->name));
}

// Def. 2.10 (rdom bounds are startup expressions, Def. 2.9).
void check_rdom_bounds(Checker& c) {
  for (const FuncDef& f : c.pipe().funcs)
    for (size_t j = 0; j < f.updates.size(); ++j)
      for (const RVar& r : f.updates[j].rdom) {
        report_non_startup(c, r.min, fmt::format("the minimum of reduction variable '{}' in {}", r.name.text,
                                                 stage_name(f, j + 1)));
        report_non_startup(c, r.len, fmt::format("the length of reduction variable '{}' in {}", r.name.text,
                                                 stage_name(f, j + 1)));
      }
}

// Def. 2.10 (unique names): pipeline parameters, func names, the pure variables of a
// func, and the reduction variables of one stage are each unique. Reading taken (see
// docs/validity.md): a pure or reduction variable may not share its name with a pipeline
// parameter, nor a reduction variable with a pure variable of its func, since a variable
// occurrence would then be ambiguous. Funcs live in their own namespace (accesses use
// brackets), so a func may share a name with a variable.
void check_unique_names(Checker& c) {
  // Reports every name of `names` already seen earlier in the list; `what` describes
  // one of them, given its text.
  using Describe = std::function<std::string(const std::string&)>;
  auto no_duplicates = [&](const std::vector<Name>& names, const Describe& what) {
    std::map<std::string, SourceLoc> seen;
    for (const Name& n : names) {
      auto [it, fresh] = seen.emplace(n.text, n.loc);
      if (!fresh)
        c.report(n.loc, fmt::format("{} is declared twice (first at {}:{}); Def. 2.10 requires unique names",
                                    what(n.text), it->second.line, it->second.col));
    }
  };
  const Pipeline& p = c.pipe();
  no_duplicates(p.params, [](const std::string& n) { return fmt::format("pipeline parameter '{}'", n); });
  std::vector<Name> func_names;
  for (const InputDef& in : p.inputs) func_names.push_back(in.name);
  for (const FuncDef& f : p.funcs) func_names.push_back(f.name);
  no_duplicates(func_names, [&](const std::string& n) {
    return fmt::format("{} '{}'", p.find_input(n) ? "input" : "func", n);
  });
  for (const InputDef& in : p.inputs)
    no_duplicates(in.vars, [&](const std::string& n) {
      return fmt::format("dimension '{}' of input '{}'", n, in.name.text);
    });

  for (const FuncDef& f : p.funcs) {
    no_duplicates(f.vars, [&](const std::string& n) {
      return fmt::format("pure variable '{}' of '{}'", n, f.name.text);
    });
    for (const Name& x : f.vars)
      if (contains(p.params, x.text))
        c.report(x.loc, fmt::format("pure variable '{}' of '{}' has the same name as a pipeline parameter, "
                                    "so its uses would be ambiguous (Def. 2.10: names must be unique)",
                                    x.text, f.name.text));
    for (size_t j = 0; j < f.updates.size(); ++j) {
      std::vector<Name> rvars;
      for (const RVar& r : f.updates[j].rdom) rvars.push_back(r.name);
      no_duplicates(rvars, [&](const std::string& n) {
        return fmt::format("reduction variable '{}' in {}", n, stage_name(f, j + 1));
      });
      for (const Name& r : rvars) {
        if (contains(p.params, r.text))
          c.report(r.loc, fmt::format("reduction variable '{}' in {} has the same name as a pipeline "
                                      "parameter, so its uses would be ambiguous (Def. 2.10: names must be "
                                      "unique)",
                                      r.text, stage_name(f, j + 1)));
        if (contains(f.vars, r.text))
          c.report(r.loc, fmt::format("reduction variable '{}' in {} has the same name as a pure variable of "
                                      "'{}', so its uses would be ambiguous (Def. 2.10: names must be unique)",
                                      r.text, stage_name(f, j + 1), f.name.text));
      }
    }
  }
}

// Def. 2.10 (the output func `pipeline f(...)` exists and is the last func defined; a
// pipeline without funcs has no output and is invalid).
void check_output_func(Checker& c) {
  const Pipeline& p = c.pipe();
  if (p.funcs.empty()) {
    c.report(p.name.loc, fmt::format("pipeline '{}' defines no funcs; Def. 2.10 requires the output func '{}' "
                                     "to be defined as the last func",
                                     p.name.text, p.name.text));
    return;
  }
  if (!p.find(p.name.text)) {
    c.report(p.name.loc, fmt::format("output func '{}' is not defined in the pipeline (Def. 2.10: the output "
                                     "func must exist and be the last func defined)",
                                     p.name.text));
    return;
  }
  const FuncDef& last = p.funcs.back();
  if (last.name.text != p.name.text)
    c.report(p.name.loc, fmt::format("output func '{}' must be the last func defined (Def. 2.10), but '{}' is "
                                     "defined after it, at {}:{}",
                                     p.name.text, last.name.text, last.name.loc.line, last.name.loc.col));
}

// Def. 2.10 (funcs are defined before they are referenced by another func): every access
// in func f names f itself (rule 4 restricts that to update stages) or an earlier func.
void check_definition_order(Checker& c) {
  const Pipeline& p = c.pipe();
  for (size_t i = 0; i < p.funcs.size(); ++i)
    for_each_body_expr(p.funcs[i], [&](const Expr& e, size_t) {
      for (const CallNode* call : collect(e).calls) {
        if (visible_func(p, i, call->func) || p.find_input(call->func)) continue;
        if (p.find(call->func))
          c.report(call->loc, fmt::format("'{}' is used before it is defined (Def. 2.10: funcs must be defined "
                                          "before they are referenced)",
                                          call->func));
        else
          c.report(call->loc, fmt::format("unknown func '{}' (Def. 2.10: every accessed func must be defined "
                                          "in the pipeline, before its use)",
                                          call->func));
      }
    });
}

// Def. 2.10 (the first stage of every func is pure: it may not reference the func itself).
void check_pure_stage(Checker& c) {
  for (const FuncDef& f : c.pipe().funcs)
    for (const CallNode* call : collect(f.pure).calls)
      if (call->func == f.name.text)
        c.report(call->loc, fmt::format("the pure stage of '{}' refers to '{}' itself (Def. 2.10: the first "
                                        "stage of a func may not reference the func; use an update stage)",
                                        f.name.text, f.name.text));
}

// Halide's implicit pure definition (FuncDef::implicit_pure) is op's identity, written only
// as a first update `(lhs) <- f[lhs] op e` with that op: the parser builds no other, and a
// program rewritten by hand or by a reduction (which rewrites the pure expression and the
// update alike) must keep both, or halo would judge another program than the one Halide is
// given, where Halide makes the pure definition itself.
void check_implicit_pure(Checker& c) {
  for (const FuncDef& f : c.pipe().funcs) {
    if (!f.implicit_pure) continue;
    SourceLoc at = f.updates.empty() ? f.loc : f.updates[0].loc;
    if (f.updates.empty() || compound_update_op(f, f.updates[0]) != f.implicit_pure)
      c.report(at, fmt::format("func '{}' has Halide's implicit pure definition, so its first stage must be an "
                               "update (lhs) <- {}[lhs] {} e",
                               f.name.text, f.name.text, op_name(*f.implicit_pure)));
    if (!f.pure || f.pure->kind != ExprKind::Const ||
        !(as<ConstNode>(f.pure).value == implicit_pure_identity(*f.implicit_pure)))
      c.report(at, fmt::format("func '{}' has Halide's implicit pure definition, so its pure stage is {}, the "
                               "identity of {}",
                               f.name.text, implicit_pure_identity(*f.implicit_pure).to_string(),
                               op_name(*f.implicit_pure)));
  }
}

// Def. 2.7 (syntactic separation): in every update stage U_j of f, for each pure variable
// x_i of f that occurs anywhere in U_j, every access f[e_1..e_n] in U_j and the left-hand
// side must have e_i ≡ x_i (the variable itself, syntactically).
void check_syntactic_separation(Checker& c) {
  for (const FuncDef& f : c.pipe().funcs)
    for (size_t j = 0; j < f.updates.size(); ++j) {
      const UpdateStage& u = f.updates[j];
      const std::vector<Expr> exprs = all_exprs(u);
      std::set<std::string> occurring;
      for (const Expr& e : exprs)
        for (const VarNode* v : collect(e).vars) occurring.insert(v->name);

      // Reports args[i] unless it is x_i itself, for every pure x_i occurring in U_j.
      auto check_args = [&](const std::vector<Expr>& args, SourceLoc fallback, const std::string& subject,
                            const char* noun, const char* pronoun) {
        for (size_t i = 0; i < f.vars.size() && i < args.size(); ++i) {
          const std::string& x = f.vars[i].text;
          if (!occurring.count(x)) continue;
          const Expr& a = args[i];
          if (a && a->kind == ExprKind::Var && as<VarNode>(a).name == x) continue;
          c.report(start_loc(a, fallback),
                   fmt::format("syntactic separation (Def. 2.7): in {}, pure variable '{}' occurs, so {} must "
                               "have '{}' as {} {}, but {} has '{}'",
                               stage_name(f, j + 1), x, subject, x, noun, i + 1, pronoun, show(a)));
        }
      };
      check_args(u.lhs, u.loc, "the left-hand side", "entry", "it");
      for (const Expr& e : exprs)
        for (const CallNode* call : collect(e).calls)
          if (call->func == f.name.text)
            check_args(call->args, call->loc, fmt::format("every access to '{}'", f.name.text), "argument",
                       "this one");
    }
}

// Def. 2.10 ("common type checking rules (eg. func arity)"): every access gives exactly as
// many arguments as the func has dimensions, every update's left-hand side has one entry
// per dimension, and every operator has its arity (guaranteed by the parser; checked so
// that a hand-built tree cannot crash a later pass).
void check_arity(Checker& c) {
  const Pipeline& p = c.pipe();
  for (size_t i = 0; i < p.funcs.size(); ++i) {
    const FuncDef& f = p.funcs[i];
    for (size_t j = 0; j < f.updates.size(); ++j) {
      const UpdateStage& u = f.updates[j];
      if (u.lhs.size() != f.vars.size())
        c.report(u.loc, fmt::format("the left-hand side of {} has {} but '{}' has {} (Def. 2.10: arity must "
                                    "match)",
                                    stage_name(f, j + 1), plural(u.lhs.size(), "entry"), f.name.text,
                                    plural(f.vars.size(), "dimension")));
    }
    for_each_body_expr(f, [&](const Expr& e, size_t) {
      Collector col = collect(e);
      for (const CallNode* call : col.calls) {
        if (const InputDef* in = visible_func(p, i, call->func) ? nullptr : p.find_input(call->func);
            in && call->args.size() != in->dims())
          c.report(call->loc, fmt::format("input '{}' has {} but this access gives {} (Def. 2.10: arity must be "
                                          "respected)",
                                          call->func, plural(in->dims(), "dimension"),
                                          plural(call->args.size(), "argument")));
        const FuncDef* g = visible_func(p, i, call->func);
        if (g && call->args.size() != g->vars.size())
          c.report(call->loc, fmt::format("'{}' has {} but this access gives {} (Def. 2.10: func arity must be "
                                          "respected)",
                                          call->func, plural(g->vars.size(), "dimension"),
                                          plural(call->args.size(), "argument")));
      }
      for (const OpNode* op : col.ops)
        if (op->args.size() != size_t(op_arity(op->op)))
          c.report(op->loc, fmt::format("operator '{}' takes {} but has {} (Def. 2.10: type checking)",
                                        op_name(op->op), plural(size_t(op_arity(op->op)), "operand"),
                                        op->args.size()));
    });
  }
}

// Def. 2.10 (scoping, part of "common type checking rules"): in the pure stage the
// variables in scope are the func's pure variables and the pipeline parameters; an update
// stage adds its own reduction variables. Rdom bounds see only the parameters, which is
// Def. 2.9 and is reported by check_rdom_bounds.
void check_scoping(Checker& c) {
  const Pipeline& p = c.pipe();
  for (const FuncDef& f : p.funcs)
    for_each_body_expr(f, [&](const Expr& e, size_t stage) {
      for (const VarNode* v : collect(e).vars) {
        if (contains(f.vars, v->name) || is_startup_var(p, v->name)) continue;
        if (auto g = split_buffer_var(v->name)) {  // img.dim(k)... of no input, or beyond its dimensions
          const InputDef* in = p.find_input(g->input);
          c.report(v->loc, in ? fmt::format("{}.dim({}) does not exist: input '{}' has {}", g->input, g->dim,
                                            g->input, plural(in->dims(), "dimension"))
                              : fmt::format("'{}' is not an input, so it has no buffer geometry", g->input));
          continue;
        }
        if (stage > 0 && std::any_of(f.updates[stage - 1].rdom.begin(), f.updates[stage - 1].rdom.end(),
                                     [&](const RVar& r) { return r.name.text == v->name; }))
          continue;
        c.report(v->loc, fmt::format("unknown variable '{}' in {} (Def. 2.10: only the pure variables of "
                                     "'{}'{} and the pipeline parameters are in scope)",
                                     v->name, stage_name(f, stage), f.name.text,
                                     stage == 0 ? "" : ", the reduction variables of this stage,"));
      }
    });
}

// Fig. 2.6 [REALIZE] (the input z): every pipeline parameter gets exactly one value,
// and the output window has one interval of non-negative length per output dimension.
void check_realization(Checker& c) {
  if (!c.prog.realize) return;
  const Realization& r = *c.prog.realize;
  const Pipeline& p = c.pipe();
  std::map<std::string, SourceLoc> bound;
  for (const ParamBinding& b : r.params) {
    if (!contains(p.params, b.name.text))
      c.report(b.name.loc, fmt::format("realize binds '{}', which is not a parameter of pipeline '{}' "
                                       "([REALIZE], fig. 2.6)",
                                       b.name.text, p.name.text));
    else if (auto [it, fresh] = bound.emplace(b.name.text, b.name.loc); !fresh)
      c.report(b.name.loc, fmt::format("realize binds parameter '{}' twice (first at {}:{}); each parameter "
                                       "gets exactly one value ([REALIZE], fig. 2.6)",
                                       b.name.text, it->second.line, it->second.col));
    if (b.value.is_error())
      c.report(b.name.loc, fmt::format("realize binds '{}' to {}, which is not an integer", b.name.text,
                                       b.value.to_string()));
  }
  std::set<std::string> missing_reported;
  for (const Name& prm : p.params)
    if (!bound.count(prm.text) && missing_reported.insert(prm.text).second)
      c.report(r.loc, fmt::format("realize does not give a value to parameter '{}' ([REALIZE], fig. 2.6: every "
                                  "parameter is bound exactly once)",
                                  prm.text));
  if (const FuncDef* out = p.find(p.name.text); out && r.window.size() != out->vars.size())
    c.report(r.loc, fmt::format("realize gives {} but output func '{}' has {} ([REALIZE], fig. 2.6: one "
                                "interval per output dimension)",
                                plural(r.window.size(), "window interval"), p.name.text,
                                plural(out->vars.size(), "dimension")));
  std::map<std::string, SourceLoc> given;
  for (const InputBinding& b : r.inputs) {
    const InputDef* in = p.find_input(b.name.text);
    if (!in) {
      c.report(b.name.loc, fmt::format("realize gives a buffer to '{}', which is not an input of pipeline '{}'",
                                       b.name.text, p.name.text));
      continue;
    }
    if (auto [it, fresh] = given.emplace(b.name.text, b.name.loc); !fresh)
      c.report(b.name.loc, fmt::format("realize gives input '{}' two buffers (the first at {}:{})", b.name.text,
                                       it->second.line, it->second.col));
    if (b.source == InputSourceKind::Seeded) {
      if (b.box.size() != in->dims())
        c.report(b.loc, fmt::format("the seeded buffer of input '{}' has {} but the input has {}", b.name.text,
                                    plural(b.box.size(), "interval"), plural(in->dims(), "dimension")));
      for (const Interval& w : b.box)
        if (w.len.sign() < 0)
          c.report(w.loc, fmt::format("the buffer of input '{}' has negative extent {}", b.name.text,
                                      w.len.to_string()));
    }
  }
  for (size_t i = 0; i < r.window.size(); ++i) {
    const Interval& w = r.window[i];
    if (w.min.is_error() || w.len.is_error())
      c.report(w.loc, fmt::format("window interval {} of realize must be a pair of integers", i + 1));
    else if (w.len.sign() < 0)
      c.report(w.loc, fmt::format("window interval {} of realize has negative length {} ([REALIZE], fig. 2.6: "
                                  "a window is (min, len) with len >= 0)",
                                  i + 1, w.len.to_string()));
  }
}

// ---------------------------------------------------------------- schedule rules

const char* phase_name(int phase) {
  switch (phase) {
    case 0: return "specialization";
    case 1: return "loop";
    case 2: return "compute";
    case 3: return "storage";
    case 4: return "bounds";
    case 5: return "TVM primitive";
  }
  return "unknown";
}

// Fig. 2.11 (phase order): directives apply in the written order, and their phases
// (specialize, loops, compute, storage, bounds) must not decrease along it.
void check_phase_order(Checker& c) {
  const Directive* latest = nullptr;  // the directive with the highest phase so far
  for (const Directive& d : *c.prog.schedule) {
    int ph = directive_phase(d.kind);
    if (latest && ph < directive_phase(latest->kind)) {
      int lph = directive_phase(latest->kind);
      c.report(d.loc, fmt::format("'{}' (a {} phase directive) comes after '{}' (a {} phase directive, at "
                                  "{}:{}): directives must follow the phase order of fig. 2.11 "
                                  "(specialization, loop, compute, storage, bounds)",
                                  directive_name(d.kind), phase_name(ph), directive_name(latest->kind),
                                  phase_name(lph), latest->loc.line, latest->loc.col));
      continue;
    }
    latest = &d;
  }
}

// Halide's storage calls name dimensions of the func's storage: its pure variables
// (Func::reorder_storage, align_storage, bound_storage, align_extent take a Var). A name that
// is not one would be Halide's user error; halo says so at the name.
void check_storage_dimensions(Checker& c) {
  for (const Directive& d : *c.prog.schedule) {
    if (d.kind != DirectiveKind::ReorderStorage && d.kind != DirectiveKind::AlignStorage &&
        d.kind != DirectiveKind::BoundStorage && d.kind != DirectiveKind::AlignExtent)
      continue;
    const FuncDef* f = c.pipe().find(d.func.text);
    if (!f || d.on_intermediate || f->implicit_pure) continue;  // reported elsewhere, or named by Halide
    std::string dims;
    for (const Name& v : f->vars) dims += (dims.empty() ? "" : ", ") + v.text;
    std::set<std::string> seen;
    for (const Name& n : d.names) {
      if (std::none_of(f->vars.begin(), f->vars.end(), [&](const Name& v) { return v.text == n.text; }))
        c.report(n.loc, fmt::format("'{}': '{}' is not a pure variable of '{}' (its storage dimensions are {})",
                                    directive_name(d.kind), n.text, f->name.text, dims));
      else if (!seen.insert(n.text).second)
        c.report(n.loc, fmt::format("'{}' names '{}' twice", directive_name(d.kind), n.text));
    }
    if (d.kind == DirectiveKind::ReorderStorage && d.names.size() < 2)
      c.report(d.loc, "'reorder_storage' orders two or more dimensions (innermost first)");
  }
}

// Halide's specialize_fail ends a func's chain of specializations (Func.cpp: "Cannot add new
// specializations after specialize_fail()", "Only one specialize_fail() may be defined per
// Stage").
void check_specialize_fail_last(Checker& c) {
  std::map<std::string, const Directive*> failed;
  for (const Directive& d : *c.prog.schedule) {
    if (d.kind != DirectiveKind::Specialize && d.kind != DirectiveKind::SpecializeFail) continue;
    auto it = failed.find(d.func.text);
    if (it != failed.end())
      c.report(d.loc, fmt::format("'{}' of '{}' after its specialize_fail (at {}:{}): specialize_fail ends the "
                                  "func's chain of specializations",
                                  directive_name(d.kind), d.func.text, it->second->loc.line, it->second->loc.col));
    else if (d.kind == DirectiveKind::SpecializeFail)
      failed.emplace(d.func.text, &d);
  }
}

// Fig. 2.11 (directives name funcs of the pipeline).
void check_schedule_funcs(Checker& c) {
  for (const Directive& d : *c.prog.schedule)
    for (const Name* n : directive_funcs(d))
      if (d.on_intermediate && (n == &d.loop.func) != (d.kind == DirectiveKind::ComputeAt || d.kind == DirectiveKind::StoreAt))
        continue;  // the rfactor intermediate, Halide's (parser.cpp, mark_made_funcs)
      else if ((d.kind == DirectiveKind::Prefetch || d.kind == DirectiveKind::TvmCacheRead) && n == &d.func &&
               c.pipe().find_input(n->text))
        continue;  // Halide prefetches an input buffer as it does a func; TVM caches its reads alike
      else if (c.pipe().find_input(n->text))
        c.report(n->loc, fmt::format("'{}' names input '{}': an input is a buffer the realization gives, which "
                                     "no directive schedules (write a func that reads it, e.g. "
                                     "fun {}_copy(...) = {{ {}[...] }}, and schedule that)",
                                     directive_name(d.kind), n->text, n->text, n->text));
      else if (!c.pipe().find(n->text))
        c.report(n->loc, fmt::format("'{}' names unknown func '{}' (fig. 2.11: a schedule can only name funcs "
                                     "of pipeline '{}')",
                                     directive_name(d.kind), n->text, c.pipe().name.text));
}

// What expression k of a directive is, for messages (see Directive in ast.hpp).
std::string directive_expr_role(const Directive& d, size_t k) {
  const char* role = "an argument";
  switch (d.kind) {
    case DirectiveKind::Specialize: return fmt::format("condition {} of 'specialize'", k + 1);
    case DirectiveKind::Split: role = "the factor"; break;
    case DirectiveKind::Bound: role = k == 0 ? "the minimum" : "the length"; break;
    case DirectiveKind::BoundExtent: role = "the length"; break;
    case DirectiveKind::AlignBounds: role = k == 0 ? "the modulus" : "the remainder"; break;
    case DirectiveKind::FoldStorage: case DirectiveKind::BoundStorage: case DirectiveKind::RingBuffer:
      role = "the extent";
      break;
    case DirectiveKind::AlignStorage: role = "the alignment"; break;
    case DirectiveKind::AlignExtent: role = "the modulus"; break;
    default: break;
  }
  return fmt::format("{} of '{}'", role, directive_name(d.kind));
}

// Def. 2.9 in the schedule: specialize conditions, split factors and the expressions of
// bound, bound_extent and align_bounds are startup expressions (every expression a
// directive carries is one of these).
void check_schedule_startup(Checker& c) {
  for (const Directive& d : *c.prog.schedule)
    for (size_t k = 0; k < d.exprs.size(); ++k) report_non_startup(c, d.exprs[k], directive_expr_role(d, k));
}

}  // namespace

// The func names a directive mentions (which fields are meaningful depends on its kind;
// see Directive in ast.hpp).
std::vector<const Name*> directive_funcs(const Directive& d) {
  switch (d.kind) {
    case DirectiveKind::Specialize:
    case DirectiveKind::Bound:
    case DirectiveKind::BoundExtent:
    case DirectiveKind::AlignBounds: return {&d.func};
    case DirectiveKind::Split:
    case DirectiveKind::Fuse:
    case DirectiveKind::Swap:
    case DirectiveKind::Traverse: return {&d.loop.func};
    case DirectiveKind::ComputeAt:
    case DirectiveKind::StoreAt:
    case DirectiveKind::HoistStorage: return {&d.func, &d.loop.func};
    case DirectiveKind::Rfactor: return {&d.loop.func};
    case DirectiveKind::ComputeWith: return {&d.loop.func, &d.with.func};
    case DirectiveKind::FoldStorage:
    case DirectiveKind::Async:
    case DirectiveKind::ComputeInline:
    case DirectiveKind::Memoize:
    case DirectiveKind::StoreIn:
    case DirectiveKind::HoistStorageRoot:
    case DirectiveKind::ReorderStorage:
    case DirectiveKind::AlignStorage:
    case DirectiveKind::BoundStorage:
    case DirectiveKind::AlignExtent:
    case DirectiveKind::RingBuffer:
    case DirectiveKind::SpecializeFail: return {&d.func};
    case DirectiveKind::In:
    case DirectiveKind::CloneIn: {  // the wrapped func and its consumers, not the wrapper's new name
      std::vector<const Name*> fs{&d.func};
      for (size_t k = 0; k + 1 < d.names.size(); ++k) fs.push_back(&d.names[k]);
      return fs;
    }
    case DirectiveKind::Atomic:
    case DirectiveKind::Partition:
    case DirectiveKind::Unscheduled:
    case DirectiveKind::AllowRaceConditions: return {&d.loop.func};
    // The prefetched func may also be an input (check_schedule_funcs).
    case DirectiveKind::Prefetch: return {&d.loop.func, &d.func};
    case DirectiveKind::TvmReverseComputeAt: return {&d.func, &d.loop.func};
    case DirectiveKind::TvmReverseComputeInline: return {&d.func};
    case DirectiveKind::TvmCacheRead: return {&d.loop.func, &d.func};  // f may be an input (check_schedule_funcs)
    case DirectiveKind::TvmCacheWrite: case DirectiveKind::TvmDecomposeReduction: case DirectiveKind::TvmSplitUnpredicated:
    case DirectiveKind::TvmBlockize: case DirectiveKind::TvmLoopPartition: case DirectiveKind::TvmPadEinsum:
      return {&d.loop.func};
  }
  return {};
}

// ---------------------------------------------------------------- entry points

bool is_startup_expr(const Expr& e, const Pipeline& p) {
  Collector col = collect(e, /*descend_into_calls=*/false);
  return col.calls.empty() && std::all_of(col.vars.begin(), col.vars.end(),
                                          [&](const VarNode* v) { return is_startup_var(p, v->name); });
}

std::vector<Diagnostic> validate_program(const Program& prog) {
  Checker c{prog, {}};
  check_unique_names(c);
  check_output_func(c);
  check_definition_order(c);
  check_pure_stage(c);
  check_implicit_pure(c);
  check_syntactic_separation(c);
  check_arity(c);
  check_scoping(c);
  check_rdom_bounds(c);
  check_realization(c);
  if (prog.schedule) {
    check_phase_order(c);
    check_schedule_funcs(c);
    check_storage_dimensions(c);
    check_specialize_fail_last(c);
    check_schedule_startup(c);
  }
  // Source order; diagnostics without a location (line 0) keep their order and come last.
  std::stable_sort(c.diags.begin(), c.diags.end(), [](const Diagnostic& a, const Diagnostic& b) {
    auto key = [](const Diagnostic& d) {
      return std::tuple(d.loc.line == 0, d.loc.line, d.loc.col);
    };
    return key(a) < key(b);
  });
  return std::move(c.diags);
}

void check_program(const Program& prog) {
  auto diags = validate_program(prog);
  if (!diags.empty()) throw InputError(std::move(diags));
}

}  // namespace halo

// compute_inline(f): Halide's default placement, which fig. 2.11 leaves out (its funcs are
// computed at the root unless placed). halo defines it as substitution, so it preserves the
// output by construction (docs/semantics-decisions.md, "compute_inline"): S(compute_inline(f), T)
// removes `allocate f` and `label f` from T and replaces every read f^ℓ[e1, ..., en] by f's
// pure definition with its variables bound to e1, ..., en. Reads inside the definition keep
// their labels (a read of another func is checked against that func's last stage wherever
// it stands), so the bounds query of T now asks for f's producers at the consumer's points,
// which is what Halide's inlining does.
//
// Substitution is the meaning of a func with one pure stage that is not the output, and a
// func substituted away has no loops, storage or bounds for another directive to name:
// the rewrite checks these restrictions first.
#include "schedule/schedule.hpp"
#include "semantics/validity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace halo {

namespace {

// f's pure definition as T computes it: the store of `label f.s0`, whose arguments are the
// loop variables <f, 0, 0, x_k> and whose value is the definition over them.
class FindDefinition final : public StmtVisitor {
 public:
  explicit FindDefinition(const std::string& f) : func_(f) {}
  const StoreStmt* store = nullptr;

 protected:
  void visit_store(const StoreStmt& s) override {
    if (!store && s.func == func_ && s.label.stage == 0) store = &s;
  }

 private:
  const std::string& func_;
};

class BindVars final : public ExprMutator {
 public:
  explicit BindVars(const std::map<std::string, Expr>& values) : values_(values) {}

 protected:
  Expr mutate_var(const Expr& e) override {
    auto it = values_.find(as<VarNode>(e).name);
    return it == values_.end() ? e : it->second;
  }

 private:
  const std::map<std::string, Expr>& values_;
};

class InlineReads final : public ExprMutator {
 public:
  InlineReads(const std::string& f, const StoreStmt& def) : func_(f), def_(def) {}

 protected:
  Expr mutate_call(const Expr& e) override {
    Expr rebuilt = ExprMutator::mutate_call(e);  // reads of f inside the arguments first
    const auto& c = as<CallNode>(rebuilt);
    if (c.func != func_) return rebuilt;
    std::map<std::string, Expr> at;
    for (size_t k = 0; k < def_.args.size() && k < c.args.size(); ++k)
      at[as<VarNode>(def_.args[k]).name] = c.args[k];
    return BindVars(at).mutate(def_.value);
  }

 private:
  const std::string& func_;
  const StoreStmt& def_;
};

class RemoveAndInline final : public StmtMutator {
 public:
  RemoveAndInline(const std::string& f, const StoreStmt& def) : func_(f), reads_(f, def) {}

 protected:
  Expr mutate_expr(const Expr& e) override { return reads_.mutate(e); }
  Stmt mutate_seq(const Stmt& s) override {
    std::vector<Stmt> kept;
    for (const Stmt& c : as<SeqStmt>(s).stmts) {
      if (c->kind == StmtKind::Allocate && as<AllocateStmt>(c).func == func_) continue;
      if (c->kind == StmtKind::Label && as<LabelStmt>(c).label == func_) continue;
      kept.push_back(mutate(c));
    }
    return make_seq(std::move(kept), s->loc);
  }

 private:
  const std::string& func_;
  InlineReads reads_;
};

}  // namespace

TgtProgram apply_compute_inline(const TgtProgram& t, const Directive& d, const Program& prog) {
  auto reject = [&](const SourceLoc& at, std::string why) {
    throw InputError(Diagnostic{prog.file, at, fmt::format("compute_inline({}): {}", d.func.text, why)});
  };
  const FuncDef* f = prog.pipeline.find(d.func.text);
  if (!f) reject(d.func.loc, "there is no such func");
  if (f == &prog.pipeline.output()) reject(d.func.loc, "the output is always computed at the root");
  if (!f->updates.empty())
    reject(d.func.loc, fmt::format("{} has {} update stage{}; only a func with a single pure stage is substituted into "
                                   "its consumers (Halide refuses the same)",
                                   d.func.text, f->updates.size(), f->updates.size() == 1 ? "" : "s"));
  if (prog.schedule)
    for (const Directive& o : *prog.schedule) {
      if (&o == &d) continue;
      auto funcs = directive_funcs(o);
      if (std::any_of(funcs.begin(), funcs.end(), [&](const Name* n) { return *n == d.func; }))
        reject(o.loc, fmt::format("'{}' at {}:{} names {}, which is substituted into its consumers: an inlined func "
                                  "has no loops, storage or bounds of its own",
                                  directive_name(o.kind), o.loc.line, o.loc.col, d.func.text));
    }
  FindDefinition find(d.func.text);
  find.visit(t.body);
  if (!find.store)
    throw InputError(Diagnostic{prog.file, d.loc,
                                fmt::format("compute_inline({}): {} is not computed in this program", d.func.text,
                                            d.func.text)});
  // The definition outlives the rewrite of the tree that holds it.
  StoreStmt def = *find.store;
  TgtProgram out = t;
  out.body = RemoveAndInline(d.func.text, def).mutate(t.body);
  return out;
}

}  // namespace halo

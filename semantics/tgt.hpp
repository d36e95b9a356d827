// Syntax trees of the target language Tgt and of Tgt? (thesis fig. 2.7): an imperative
// language of loops over (min, len) intervals, buffer allocation and stores, whose
// expressions are those of the algorithm language plus labelled holes (Tgt? only) and
// labelled func references, which read buffers.
//
// Like expressions, statements are small immutable nodes behind shared pointers, so the
// scheduling directives (later) rewrite programs by rebuilding only the changed spine.
// A sequence is n-ary (s1; s2; ...; sn) rather than the figure's binary `s1; s2`: the
// two are the same term up to associativity, and the machine (interp/small_step) steps
// through an n-ary sequence exactly as through right-nested binary ones.
#pragma once

#include "semantics/ast.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace halo {

enum class StmtKind : uint8_t { Nop, Assert, Seq, Allocate, Store, If, For, Let, Label };

struct StmtNode {
  StmtKind kind;
  SourceLoc loc;
  virtual ~StmtNode() = default;

 protected:
  StmtNode(StmtKind k, SourceLoc l) : kind(k), loc(l) {}
};
using Stmt = std::shared_ptr<const StmtNode>;

struct NopStmt final : StmtNode {
  explicit NopStmt(SourceLoc l) : StmtNode(StmtKind::Nop, l) {}
};

struct AssertStmt final : StmtNode {
  Expr cond;
  AssertStmt(Expr c, SourceLoc l) : StmtNode(StmtKind::Assert, l), cond(std::move(c)) {}
};

struct SeqStmt final : StmtNode {
  std::vector<Stmt> stmts;  // at least two; nested sequences are flattened by make_seq
  SeqStmt(std::vector<Stmt> s, SourceLoc l) : StmtNode(StmtKind::Seq, l), stmts(std::move(s)) {}
};

// allocate f(I1, ..., In): one (min, len) interval per dimension. In a typed program the
// buffer holds values of the func's type (`allocate f(...) : u8`, docs/types.md); ℤ
// otherwise.
struct AllocateStmt final : StmtNode {
  std::string func;
  std::vector<std::pair<Expr, Expr>> bounds;
  Type type;
  AllocateStmt(std::string f, std::vector<std::pair<Expr, Expr>> b, SourceLoc l, Type t = {})
      : StmtNode(StmtKind::Allocate, l), func(std::move(f)), bounds(std::move(b)), type(t) {}
};

// f^ℓ[e1, ..., en] <- e0: the label is the stage (and specialization) being computed.
struct StoreStmt final : StmtNode {
  std::string func;
  FuncLabel label;
  std::vector<Expr> args;
  Expr value;
  StoreStmt(std::string f, FuncLabel lab, std::vector<Expr> a, Expr v, SourceLoc l)
      : StmtNode(StmtKind::Store, l), func(std::move(f)), label(lab), args(std::move(a)), value(std::move(v)) {}
};

struct IfStmt final : StmtNode {
  Expr cond;
  Stmt then_case, else_case;  // else_case is a NopStmt when the source has no else
  IfStmt(Expr c, Stmt t, Stmt e, SourceLoc l)
      : StmtNode(StmtKind::If, l), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
};

// for^τ x in (min, len) do body. The loop's name (Lemma 2.4) is <func, spec, stage, var>,
// and that name is also the variable the loop binds (binder(): the qualified variable
// "<func, spec, stage, var>", ast.hpp), as Halide binds f.s0.x; `var` is the name the
// schedule and the reader use.
struct ForStmt final : StmtNode {
  std::string func;
  int64_t spec = 0;
  int64_t stage = 0;
  std::string var;
  Expr min, len;
  Traversal order = Traversal::Serial;
  Stmt body;
  ForStmt(std::string f, int64_t sp, int64_t st, std::string v, Expr mn, Expr ln, Traversal o, Stmt b,
          SourceLoc l)
      : StmtNode(StmtKind::For, l), func(std::move(f)), spec(sp), stage(st), var(std::move(v)),
        min(std::move(mn)), len(std::move(ln)), order(o), body(std::move(b)) {}
  std::string binder() const { return qualified_var(func, spec, stage, var); }
};

struct LetStmt final : StmtNode {
  std::string var;
  Expr value;
  Stmt body;
  LetStmt(std::string v, Expr e, Stmt b, SourceLoc l)
      : StmtNode(StmtKind::Let, l), var(std::move(v)), value(std::move(e)), body(std::move(b)) {}
};

// label ℓ: s. Labels have no semantics; lowering names a func's computation `f` and its
// stages `f.s0`, `f.s1`, ... (fig. 2.9's `label f:` and `label s_i:`).
struct LabelStmt final : StmtNode {
  std::string label;
  Stmt body;
  LabelStmt(std::string lab, Stmt b, SourceLoc l) : StmtNode(StmtKind::Label, l), label(std::move(lab)), body(std::move(b)) {}
};

template <typename T>
const T& as(const Stmt& s) { return static_cast<const T&>(*s); }

Stmt make_nop(SourceLoc l = {});
Stmt make_assert(Expr c, SourceLoc l = {});
Stmt make_seq(std::vector<Stmt> stmts, SourceLoc l = {});  // flattens; 0 → nop, 1 → itself
Stmt make_allocate(std::string func, std::vector<std::pair<Expr, Expr>> bounds, SourceLoc l = {}, Type type = {});
Stmt make_store(std::string func, FuncLabel label, std::vector<Expr> args, Expr value, SourceLoc l = {});
Stmt make_if(Expr c, Stmt t, Stmt e = nullptr, SourceLoc l = {});
Stmt make_for(std::string func, int64_t spec, int64_t stage, std::string var, Expr min, Expr len, Traversal order,
              Stmt body, SourceLoc l = {});
Stmt make_let(std::string var, Expr value, Stmt body, SourceLoc l = {});
Stmt make_label(std::string label, Stmt body, SourceLoc l = {});

// pipeline f(p1, ..., pm) over (x1_min, x1_len), ...: s   — fig. 2.9's
// `pipeline f(p̄, x̄_min, x̄_len)`, with the window variables kept apart from the parameters
// so that an input z (parameters and window) binds both. `output_vars` names the output
// func's pure variables (the dimension names its holes use).
// An input buffer of a target program (`input img(x, y) : u8` after the window): the
// realization binds it, with its geometry variables img.min.k and img.extent.k (ast.hpp),
// before the body runs; the body's `allocate img(...)` takes the region it reads out of it
// (docs/inputs.md).
struct TgtInput {
  std::string name;
  std::vector<std::string> vars;  // one per dimension (they name its mem holes)
  Type type;
  bool operator==(const TgtInput& o) const { return name == o.name && vars == o.vars && type == o.type; }
};

struct TgtProgram {
  std::string file;
  std::string name;  // the output func
  std::vector<std::string> params;
  std::vector<TgtInput> inputs;
  std::vector<std::pair<std::string, std::string>> window;  // (x_min, x_len) per output dim
  Stmt body;
  std::optional<Realization> realize;
  SourceLoc loc;
  // A typed target program (docs/types.md, "Typed target programs") is typed throughout,
  // as Halide's Stmt is: its parameters have their types (param_types, one per parameter),
  // loop, window and let variables and holes are Int(32), buffers have their func's type.
  bool typed = false;
  std::vector<Type> param_types;
  Type param_type(size_t i) const;
  const TgtInput* find_input(const std::string& name) const;
  // The inputs' geometry variables (img.min.0, img.extent.0, ...): bound by [REALIZE] with
  // the parameters, and like them in scope everywhere (startup variables).
  std::vector<std::string> geometry_vars() const;
};

// The input buffers of a pipeline as its target program declares them.
std::vector<TgtInput> input_decls(const Pipeline& p);

bool same_stmt(const Stmt& a, const Stmt& b);  // structural, ignoring locations
bool same_tgt(const TgtProgram& a, const TgtProgram& b);

// Visitor and mutator over statements (expressions inside are left to ExprVisitor and
// ExprMutator, which a pass can call from visit_expr / mutate_expr).
class StmtVisitor {
 public:
  virtual ~StmtVisitor() = default;
  void visit(const Stmt& s);

 protected:
  virtual void visit_expr(const Expr&) {}
  virtual void visit_nop(const NopStmt&) {}
  virtual void visit_assert(const AssertStmt& s) { visit_expr(s.cond); }
  virtual void visit_seq(const SeqStmt& s);
  virtual void visit_allocate(const AllocateStmt& s);
  virtual void visit_store(const StoreStmt& s);
  virtual void visit_if(const IfStmt& s);
  virtual void visit_for(const ForStmt& s);
  virtual void visit_let(const LetStmt& s);
  virtual void visit_label(const LabelStmt& s) { visit(s.body); }
};

class StmtMutator {
 public:
  virtual ~StmtMutator() = default;
  Stmt mutate(const Stmt& s);

 protected:
  // Rewrites every expression of the statement; the identity by default.
  virtual Expr mutate_expr(const Expr& e) { return e; }
  // Defaults rebuild a node only when a child changed.
  virtual Stmt mutate_nop(const Stmt& s) { return s; }
  virtual Stmt mutate_assert(const Stmt& s);
  virtual Stmt mutate_seq(const Stmt& s);
  virtual Stmt mutate_allocate(const Stmt& s);
  virtual Stmt mutate_store(const Stmt& s);
  virtual Stmt mutate_if(const Stmt& s);
  virtual Stmt mutate_for(const Stmt& s);
  virtual Stmt mutate_let(const Stmt& s);
  virtual Stmt mutate_label(const Stmt& s);
};

// Every hole of the program, each with its lexical scope (SEMANTICS.md, "Lowering"): the
// parameters, the window variables, and the loop and let variables enclosing the
// statement that binds it — `allocate f` for f's mem holes, `label f` for f's cpu holes.
// A completion may use only these variables in the hole's expression.
std::map<HoleLabel, std::vector<std::string>> hole_scopes(const TgtProgram& p);

// A substitution of expressions for holes, as a bounds engine produces (Def. 2.15).
using HoleFilling = std::map<HoleLabel, Expr>;
// [Γ]T: fills every hole that Γ names; returns the holes left unfilled.
TgtProgram fill_holes(const TgtProgram& p, const HoleFilling& g, std::vector<HoleLabel>* unfilled = nullptr);
// The same on one statement. A hole inside a replacement is not replaced again, so a hole
// may be rewritten into an expression over itself (align_bounds widens ?cpu this way).
Stmt fill_holes(const Stmt& s, const HoleFilling& g, std::vector<HoleLabel>* unfilled = nullptr);

}  // namespace halo

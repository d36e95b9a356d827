// The bounds query B(T) of thesis fig. 2.10a: the predicate a completion of a Tgt? program
// must satisfy (Def. 2.15), with the ∀ / ∃ / ⇒ / ∧ / let / membership structure of the figure.
//
// It is a data structure rather than a formula string because three consumers read it:
// β0 (bounds/beta0) folds interval arithmetic over it, external bounds engines receive it
// as JSON, and the oracle evaluates it against a concrete run to say *which* conjunct a
// candidate violates.
#pragma once

#include "semantics/tgt.hpp"

#include <memory>
#include <string>
#include <vector>

namespace halo {

// The interval tuple ?mem f, or ?cpu f^{stage,spec}: one (min, len) hole pair per dimension
// of f, the dimensions named by f's pure variables.
struct HoleRef {
  HoleKind kind = HoleKind::Mem;
  std::string func;
  int64_t stage = FuncLabel::kNone;  // cpu only
  int64_t spec = FuncLabel::kNone;   // cpu only (kShared for the last stage)
  std::vector<std::string> vars;
  HoleLabel min_hole(size_t dim) const;
  HoleLabel len_hole(size_t dim) const;
  std::string to_string() const;  // ?mem<f> / ?cpu<f, spec, stage>
  bool operator==(const HoleRef& o) const {
    return kind == o.kind && func == o.func && stage == o.stage && spec == o.spec;
  }
};

enum class QueryKind : uint8_t {
  True,     // true
  Pred,     // e (an assertion's condition, a loop's e_len >= 0, an if's condition in ⇒)
  And,      // b1 ∧ ... ∧ bn, in program order (β0 folds right to left: consumers first)
  Implies,  // e ⇒ b; or, with a null `expr`, kids = {antecedent, b} where the antecedent is a
            // Member (the store rule's ē ∈ ?cpu f^{i,j} ⇒ B_cpu(e0): a membership, not an expression)
  Forall,   // ∀ v ∈ [min, len] : b   (parameters: ∀ p ∈ [-∞, ∞], with min = len = null)
  Exists,   // ∃ ?ℓ : b
  Let,      // let v = e in b
  Member,   // (e1, ..., en) ∈ ?ℓ        — a point
  Cover,    // [(m1, l1), ..., (mn, ln)] ∈ ?ℓ — a box (the output window; stage coverage)
};

struct QueryNode;
using Query = std::shared_ptr<const QueryNode>;

struct QueryNode {
  QueryKind kind = QueryKind::True;
  Expr expr;                  // Pred: the condition; Implies: the antecedent; Let: the value
  std::string var;            // Forall, Let
  Expr min, len;              // Forall (null for an unbounded parameter)
  HoleRef hole;               // Exists, Member, Cover
  std::vector<Expr> point;    // Member
  std::vector<std::pair<Expr, Expr>> box;  // Cover
  std::vector<Query> kids;    // And: the conjuncts; Implies, Forall, Exists, Let: one body
                              // (Implies with a null expr: {antecedent Member, body})
  SourceLoc loc;              // the statement the conjunct comes from
  std::string origin;         // why it is there, e.g. "read of g in the store to f (stage 0)"
};

}  // namespace halo

// The derivation evaluator: the big-step rules of thesis fig. 2.6 applied literally.
//
// This file exists so that the algorithm semantics has an executable form that a reader
// can check against the figure rule by rule, and that can print its derivation trees for
// teaching (`halo eval --derivation X,Y`). It is also the reference the fast evaluator
// (fast_eval.hpp) is property-tested against, so it trades speed for literalness:
//  * [REALIZE] substitutes the parameters into the whole definition list D with
//    `substitute`, then derives `D; f[i1..in]` for each point of the window;
//  * funcs are evaluated by substitution ([FUNC-EVAL], [UPDATE-EVAL] with the strict
//    `select`), rdoms by unrolling ([RDOM-EVAL], r1 fastest), never by an environment;
//  * a context D is a list of funcs whose last one may have a modified stage list; stage
//    lists are immutable cons lists with shared tails and the unroll of a given cell is
//    cached, so identical contexts are the same object and judgments `D; f[c̄] ⇓ c` can
//    be memoized by (context, func, point) without changing the derivation.
// The evaluator runs on an explicit stack (derivations as deep as an rdom is long cannot
// overflow the C++ stack), charges every rule application to a Budget, and lets
// ResourceLimit propagate. See docs/bigstep.md.
#pragma once

#include "interp/input.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace halo {

// One node of a derivation tree. Premises may be shared between nodes (memoized
// judgments): the tree is stored as a DAG, which is the same derivation.
struct Derivation {
  std::string rule;      // "FUNC-EVAL", "UPDATE-EVAL", ... as fig. 2.6 names them
  std::string judgment;  // "⟨g; f: s0..s1⟩; f[1, 2] ⇓ 5": the context D, the term, the value
  Value value;
  std::vector<std::shared_ptr<const Derivation>> premises;

  Derivation() = default;
  Derivation(std::string r, std::string j, Value v, std::vector<std::shared_ptr<const Derivation>> p)
      : rule(std::move(r)), judgment(std::move(j)), value(std::move(v)), premises(std::move(p)) {}
  Derivation(const Derivation&) = default;
  Derivation(Derivation&&) = default;
  Derivation& operator=(const Derivation&) = default;
  Derivation& operator=(Derivation&&) = default;
  // Tears deep trees down iteratively (a derivation can be as deep as an rdom is long).
  ~Derivation();
};
using DerivationPtr = std::shared_ptr<const Derivation>;

class DerivationEvaluator {
 public:
  // Applies [REALIZE]'s substitution [c/p] to the pipeline. `p` must be valid
  // (validity.hpp); a free variable met during evaluation throws std::logic_error.
  DerivationEvaluator(const Pipeline& p, const Input& in, const Limits& lim, bool record_derivations);
  ~DerivationEvaluator();
  DerivationEvaluator(const DerivationEvaluator&) = delete;
  DerivationEvaluator& operator=(const DerivationEvaluator&) = delete;

  // The output func at a point (the premise of [REALIZE] for that point).
  Value eval_point(const std::vector<Value>& point);
  // The derivation of the output func at a point, rooted at a [REALIZE] node whose one
  // premise is `D; f[i1..in] ⇓ c`. Requires record_derivations (std::logic_error otherwise).
  DerivationPtr derive_point(const std::vector<Value>& point);
  uint64_t steps() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The output on R(z), computed by derivation (without recording the trees).
OutputBuffer evaluate_by_derivation(const Pipeline& p, const Input& in, const Limits& lim);

// Indented tree, one judgment per line followed by its rule name. A sub-derivation that
// occurs more than once is printed in full the first time, tagged "#N", and afterwards as
// "(derived above: #N)". Output stops after max_lines lines with
// "... (N more lines; use --derivation-depth or a smaller program)".
std::string print_derivation(const Derivation& d, size_t max_lines = 5000);

// {"rule", "judgment", "value", "premises": [...]}; a value is a JSON integer when it fits
// in 53 bits, else a decimal string, and errors are "err_rdom" / "err_mem" (as in
// `halo eval --json`). A shared sub-derivation carries "id" at its first occurrence and is
// later written as {"rule", "judgment", "value", "ref": id} (no premises), so the output
// stays as small as the DAG. Throws ResourceLimit for derivations deeper than 4000 levels.
std::string derivation_to_json(const Derivation& d);

}  // namespace halo

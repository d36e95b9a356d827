// The fast evaluator of the big-step semantics (fig. 2.6): the default behind `halo eval`.
//
// It computes exactly what the derivation evaluator (derivation.hpp) computes, but
// without substitution. Three facts of the semantics make that possible:
//  * funcs are total and referentially transparent, so each func's final value at a
//    point can be memoized (densely over a box estimated from the output window by
//    interval analysis, sparsely outside it);
//  * syntactic separation (Def. 2.7) means an update stage only mixes points that share
//    the stage's pure coordinates, so a stage is simulated once per pure-coordinate slice,
//    in rdom order (r1 fastest), exactly as the unrolled point updates would apply;
//  * UPDATE-EVAL is a strict select, so an error value met anywhere in a slice's updates
//    (index, predicate or value) reaches every point of the slice, and a point that held an
//    error keeps it: the simulation tracks both per slice and per cell.
// Expressions are compiled to a flat node array with variables resolved to frame slots
// and evaluated on int64 with overflow checks; anything else (errors, big integers)
// falls back to evaluating the same nodes on Values. A func whose stages have only pure
// dimensions is computed a row at a time (up to 64 consecutive points along its first
// dimension, each node once over the whole row): untyped operators with overflow checks,
// a typed program's operators with their type's wrap, saturation and Int(32)-undefined
// rules applied lane by lane. A row in which any lane leaves the word path is abandoned,
// and its points are computed one by one on the exact path.
#pragma once

#include "interp/input.hpp"

#include <memory>

namespace halo {

class FastEvaluator {
 public:
  FastEvaluator(const Pipeline& p, const Input& in, const Limits& lim);
  ~FastEvaluator();
  FastEvaluator(const FastEvaluator&) = delete;
  FastEvaluator& operator=(const FastEvaluator&) = delete;

  // The output func at one point (any point, not only those of the window).
  Value eval_point(const std::vector<Value>& point);
  // Any func's final value at one point.
  Value func_value(const std::string& func, const std::vector<Value>& point);
  // The output func on R(z).
  OutputBuffer realize();
  uint64_t steps() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

OutputBuffer evaluate_fast(const Pipeline& p, const Input& in, const Limits& lim);

}  // namespace halo

// β1's value bounds of funcs (docs/beta1.md, "Func values"): the interval I(f[ē]) of a
// read, when a point of the bounds query reads a func value (a data-dependent index, a
// scatter, a histogram). Fig. 2.10b makes it [-∞, ∞]; Halide bounds a pure func's values
// over its whole domain. β1 goes beyond both, because a vacuous verdict is a hole in the
// oracle:
//
//  * at the point read: the definition is evaluated over the intervals of the read's
//    arguments, so f[p0 - 1, p0 - 2] of f(x, y) = y % 5 - x is bounded though y alone
//    is not;
//  * through the updates, stage by stage: an update whose left-hand side is the pure
//    variables (pointwise) changes only the point it reads at; it runs there as many
//    times as its rdom has points, so its bound is iterated that many times (up to 16),
//    or, for more or an unknown count, until it is stable (at most 4 rounds) and then
//    widened on each side that still moves; an update that writes elsewhere (a scatter)
//    may write any point, so it adds its values over the whole domain.
//
// A bound is the hull of every value the point holds from the pure stage to the last, so
// it also bounds a read inside the func's own updates, which may see a later stage's
// value than its label names.
#pragma once

#include "bounds/interval.hpp"
#include "semantics/tgt.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace halo {

class FuncValueBounds {
 public:
  // `rules` are the interval rules the values are bounded with (β1's); this object must
  // outlive every interval computed with rules whose func_values points to it.
  FuncValueBounds(const TgtProgram& t, const IntervalRules& rules);
  FuncValueBounds(const FuncValueBounds&) = delete;
  FuncValueBounds& operator=(const FuncValueBounds&) = delete;

  // I(f[ē]) for a read in `env`: [-∞, ∞] when nothing is known.
  SymInterval of_read(const CallNode& read, const IntervalEnv& env) const;

 private:
  struct Site {                // one store of a stage (one per specialization)
    std::vector<Expr> coords;  // the left-hand side
    Expr value;
    std::map<std::string, SymInterval> ranges;  // loops around it whose range has no hole
    int64_t repeats = -1;  // how often it may run at one point; -1: unknown or over 16
    bool pointwise = false;  // coords are the pure variables in order
    std::vector<std::string> point_vars;  // then: their names in this stage
  };
  struct Func {
    std::vector<std::string> pure_vars;  // empty when the pure stage is no plain store
    std::vector<std::vector<Site>> stages;
  };
  // While a stage of f is being bounded: what a read of f itself returns.
  struct SelfRead {
    SymInterval at_point, anywhere;
    std::vector<std::string> point_vars;  // the variables of the point written
  };

  SymInterval through(const std::string& f, size_t stage, const std::vector<SymInterval>& args) const;
  // I(value) of one store at the point `args`, a read of f itself giving `at_point` at the
  // point the store writes and `elsewhere` at any other.
  SymInterval site_value(const std::string& f, const Site& s, const std::vector<SymInterval>& args,
                         const SymInterval& at_point, const SymInterval& elsewhere) const;

  IntervalRules rules_;
  std::set<std::string> params_;
  std::map<std::string, Func> funcs_;
  mutable std::map<std::string, SymInterval> memo_;  // by f, stage and argument intervals
  mutable std::set<std::string> busy_;
  mutable std::map<std::string, SelfRead> self_;
};

}  // namespace halo

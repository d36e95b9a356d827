// RapidCheck generators of valid algorithm programs with a realization.
//
// Every program they produce is valid by construction (Defs. 2.7, 2.9, 2.10): the
// pure/reduction split of each update stage is chosen first and only pure variables of
// the stage are used, rdom bounds are built from constants and parameters only, funcs
// reference only earlier funcs (and themselves in update stages, with the pure
// coordinates in place). They cover what the semantics makes subtle: multi-dimensional
// rdoms (r1 fastest), negative and zero extents, predicates, scatters into reduction
// dimensions, data-dependent but clamped indices, division and modulo by zero, and
// integers beyond 64 bits. Sizes are small so that even the literal derivation
// evaluator runs each case in milliseconds; shrinking comes from rc::gen::exec.
#pragma once

#include "semantics/ast.hpp"

#include <rapidcheck.h>

#include <set>
#include <string>
#include <vector>

namespace halo::fuzz {

struct ProgramGenConfig {
  int max_funcs = 4;
  int max_dims = 2;
  int max_params = 2;
  int max_updates = 2;
  int max_rdom_dims = 2;
  int max_rdom_extent = 4;   // extents are drawn from [-1, max] (negative ones are rare)
  // Chance (percent) that a dimension of an update's left-hand side is not its pure
  // variable (a scatter). β0 gives up on a stage that does not iterate a dimension of its
  // func (docs/fuzzing.md), so campaigns use fewer.
  int scatter_percent = 25;
  int max_expr_depth = 3;
  int max_window_extent = 4;
  // Give every func its own variable names (x0, y0 for f0; reduction variables r<func><stage><k>)
  // instead of x, y, z, w everywhere. Halide users share x, y, z across funcs, and loops bind
  // qualified variables (docs/semantics-decisions.md, "Qualified loop variables"), so
  // producers computed inside consumers over the same names are the common case; distinct
  // names keep the other corner covered.
  bool distinct_names = false;
  // Chance (percent) that every func is made to contribute to the output. A func no one
  // reads is legal, but β0 cannot bound a func nothing demands and gives up (`assert 0`),
  // which checks little: campaigns keep most funcs live.
  int live_percent = 0;
};

rc::Gen<Program> gen_program(ProgramGenConfig cfg = {});
// Inside rc::gen::exec: an integer in [lo, hi] that shrinks towards the one nearest 0.
int small_int(int lo, int hi);
// Inside rc::gen::exec: true with the given chance (percent); the draw shrinks towards false.
inline bool chance(int percent) { return small_int(0, 99) >= 100 - percent; }
// Inside rc::gen::exec: one of `options`; the draw shrinks towards the first.
template <typename T>
const T& pick(const std::vector<T>& options) {
  return options[size_t(small_int(0, int(options.size()) - 1))];
}

// The funcs that stage `stage` of f reads (its store: left-hand side, value, predicate).
std::set<std::string> funcs_read_by_stage(const FuncDef& f, size_t stage);
// Does some stage of g read func f?
bool reads_func(const FuncDef& g, const std::string& f);
rc::Gen<Expr> gen_closed_expr(int depth);  // constants and operators only

}  // namespace halo::fuzz

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

namespace halo::fuzz {

struct ProgramGenConfig {
  int max_funcs = 4;
  int max_dims = 2;
  int max_params = 2;
  int max_updates = 2;
  int max_rdom_dims = 2;
  int max_rdom_extent = 4;   // extents are drawn from [-1, max] (negative ones are rare)
  int max_expr_depth = 3;
  int max_window_extent = 4;
};

rc::Gen<Program> gen_program(ProgramGenConfig cfg = {});
rc::Gen<Expr> gen_closed_expr(int depth);  // constants and operators only

}  // namespace halo::fuzz

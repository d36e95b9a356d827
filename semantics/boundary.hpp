// Halide's boundary conditions (src/BoundaryConditions.cpp) as formulas of the algorithm
// language: `fun g(x, y) = repeat_edge(img)` defines g by exactly the expression Halide's
// BoundaryConditions::repeat_edge builds, so that the reference semantics of a program
// written with them is Halide's own (the `likely` marks Halide adds are the identity).
// The formulas are the same in Halide 14, 19 and 21 (only `likely` placement changed).
#pragma once

#include "semantics/ast.hpp"

namespace halo {

// The pure definition of a func defined by a boundary condition over `source_dims`
// dimensions of its source: the source read at the clamped, wrapped or mirrored
// coordinates (constant_exterior: select(out of bounds, value, repeat_edge)). `vars` are the
// func's own variables. A condition without bounds on an input takes the input's buffer,
// dimension k being (img.dim(k).min(), img.dim(k).extent()) (buffer_min_var); on a func it
// has no bounds (Halide's Region{}: every dimension unbounded).
Expr boundary_formula(const BoundaryCondition& bc, const std::vector<Name>& vars, bool source_is_input);

}  // namespace halo

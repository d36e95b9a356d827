// Validity of algorithms (thesis Defs. 2.7, 2.9, 2.10) and of realizations.
// A valid program is what the theorems quantify over; everything downstream (both
// evaluators, lowering, scheduling) may assume it. Each violated rule yields one located
// Diagnostic whose message names the rule in words a user understands.
#pragma once

#include "semantics/ast.hpp"

#include <vector>

namespace halo {

// Def. 2.9: no func references, and the only variables are pipeline parameters.
bool is_startup_expr(const Expr& e, const Pipeline& p);

// All violations of the algorithm's validity rules and of the realize section's shape
// (parameters bound exactly once, one window interval per output dimension).
std::vector<Diagnostic> validate_program(const Program& prog);

// Throws InputError carrying every diagnostic of validate_program, if any.
void check_program(const Program& prog);

// The funcs a directive names (which of its fields do depends on its kind; see Directive
// in ast.hpp).
std::vector<const Name*> directive_funcs(const Directive& d);

}  // namespace halo

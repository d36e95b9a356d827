// Structural reduction of a failing case, after RapidCheck's shrinking (fuzz/campaign.hpp).
//
// RapidCheck shrinks the *choices* that generated a case, which cannot remove a func that
// later funcs read, an update stage in the middle, or a subexpression. These passes edit
// the program itself, in the spirit of delta debugging / C-Reduce: each proposes simpler
// variants — a func removed (its reads replaced by 0), an update stage removed (later
// stages' loop names renumbered), a directive or a predicate dropped, an expression node
// replaced by 0 or by one of its operands, a window extent or a parameter made smaller —
// and the caller keeps a variant only when it is a valid case that fails the same way.
#pragma once

#include "semantics/ast.hpp"

#include <functional>

namespace halo::fuzz {

// Is `p` a valid case: valid (Defs. 2.7-2.10), its schedule replays (§2.8), and its
// realization gives an input?
bool is_valid_case(const Program& p);

// A measure that every variant decreases: the printed length, then the sum of window
// extents and of parameter magnitudes.
std::pair<size_t, uint64_t> case_measure(const Program& p);

// Calls `offer` on each simpler variant of `p` (not necessarily valid), biggest cuts
// first, until `offer` returns true (the variant was adopted).
void for_each_simpler_variant(const Program& p, const std::function<bool(Program)>& offer);

}  // namespace halo::fuzz

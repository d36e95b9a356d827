// The Int(32) model: when may halo's ℤ semantics be compared with a compiler's Int(32)? Halide and
// TVM both compute an untyped program in Int(32) and treat signed overflow as undefined.
//
// halo computes in ℤ (SEMANTICS.md); Halide computes in 32-bit two's complement and treats
// signed overflow as undefined (its simplifier assumes none happens). A case is *in the
// model* when no value Halide computes leaves Int(32); only then does a difference between
// the two outputs say something about Halide. Out-of-model cases are reported as such,
// never as findings.
//
// The check is conservative (docs/halide.md, "The Int(32) rule"): every constant,
// parameter, window bound, rdom bound and schedule expression must fit; then interval
// analysis over concrete regions must keep *every subexpression* of every stage inside
// Int(32) — not only func values, since 2^31 * 2 / 4 would wrap in the middle. The regions
// are what Halide may compute: the demand of the output window propagated backwards
// through every access (func values count as unbounded, as in Halide's and β0's bounds
// inference), widened by what the schedule may overcompute (split factors, bound,
// bound_extent, align_bounds); regions Halide was seen to realize (its trace) can be added.
// Func values are bounded by iterating each update stage's interval to a fixpoint, or as
// many times as its rdom has points (a cell's value is at most that many updates deep).
#pragma once

#include "interp/input.hpp"
#include "semantics/ast.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace halo {

// Inclusive integer box, one (lo, hi) per dimension.
using Box = std::vector<std::pair<int64_t, int64_t>>;

struct Int32ModelResult {
  bool in_model = true;
  // Not in the model because a region is unbounded to interval analysis: an index that
  // depends on func values, which Halide's bounds inference cannot bound either (nor can
  // β0). Halide is still run on such cases: it should say so with an error, not crash.
  bool unbounded_region = false;
  std::string why;                   // the first value that may leave Int(32), and where
  std::map<std::string, Box> boxes;  // the regions the analysis assumed, per demanded func
};

// `also_realized`: regions Halide is known to have realized (from its trace); they are
// added to the analysis's own regions.
Int32ModelResult check_int32_model(const Program& prog, const Input& in,
                                   const std::map<std::string, Box>& also_realized = {});

}  // namespace halo

// The expression generator of `halo fuzz --target halide --generator expr` (issue 29): one
// random typed expression over typed input lanes, compiled by Halide scalar or vectorized
// with 8 to 64 lanes, and judged point by point by halo's typed reference. It goes where
// Halide's narrow-type code generation lives — widening and narrowing, saturating and
// averaging arithmetic, shifts, absd, multiply-shift, bool masks — and where Halide
// rewrites such arithmetic into intrinsics under vectorization. Halide's own expression
// fuzzers take Halide's simplifier as the reference; halo's reference is independent.
//
// A case is
//   pipeline f() {
//     fun in_u8(x) : u8 = { ... }        one input per type the expression reads: a hash
//     ...                                of x, with the type's edges on some lanes
//     fun f(x) = { EXPR }
//   }
//   schedule { vectorize(f, x, L); compute_inline(in_u8); }   (each part drawn)
//   realize () over (0, N)
// Each operator is drawn with operand types its typing rule (semantics/type_ops.hpp)
// accepts, and its result cast (plainly or saturating) to the type the context wants, so the
// typing pass re-derives exactly the types drawn. The draw shrinks towards shallower
// expressions, fewer lanes and no schedule.
#pragma once

#include "fuzz/case_gen.hpp"

namespace halo::fuzz {

struct ExprGenConfig {
  int max_depth = 4;    // operator nesting
  int max_window = 64;  // points of the one dimension
  // Percent of cases whose types include Float(32) and Float(64) (docs/floats.md): their
  // values reach ±0, subnormals, ties, the largest finite, ±inf and NaN. 0 (the default)
  // keeps every earlier seed's case what it was.
  int float_percent = 0;
};
// Deeper expressions and larger windows as the size grows (0..kMaxCaseSize).
ExprGenConfig expr_case_config(int size, int float_percent = 0);

rc::Gen<Program> gen_expr_case(ExprGenConfig cfg);
rc::Shrinkable<Program> generate_expr_case(const CaseSeed& s, int float_percent = 0);

}  // namespace halo::fuzz

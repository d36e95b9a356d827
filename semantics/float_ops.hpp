// Halide's operators on Float(32) and Float(64): what each computes, exactly, as Halide's
// code computes it under strict_float (docs/floats.md). type_ops.hpp types them and sends
// every application with a float operand or result here.
//
// The reference is exact: + - * / sqrt are IEEE-754's correctly rounded operations in the
// result's precision, computed by the host's SSE2 instructions, which implement exactly
// those (static_asserts in float_ops.cpp; halo is built with -ffp-contract=off so that no
// product is fused into an addition); tests/test_floats.cpp checks every one against MPFR.
// Where Halide's documentation is silent the rule follows Halide's code generation
// (CodeGen_LLVM.cpp), cited beside it, so that min, max and abs of NaN and signed zeros
// mean what Halide's compiled code does.
#pragma once

#include "semantics/type.hpp"
#include "semantics/value.hpp"

#include <span>

namespace halo {

// `op` on operands of types `arg_types` (already brought to them by type_op), giving a
// value of type `result`, where an operand or the result is a float type (or op is
// Reinterpret). Error operands were handled by the caller.
Value apply_float_op(Op op, Type result, std::span<const Type> arg_types, std::span<const Value> args);

// Halide's saturating_cast from or to a float type (FindIntrinsics.cpp
// lower_saturating_cast, Halide 19 and 21): NaN goes to the target's greatest value when
// the target is narrower than the source, to its least otherwise.
Value saturating_cast_float(Type t, Type from, const Value& v);

}  // namespace halo

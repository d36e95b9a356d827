// Halide's operators on its integer types: which types their operands are brought to and
// which type they return (the typing rules), and what they compute (the value rules). The
// reference is Halide's own documentation (src/IROperator.h, src/Type.h) and, where it
// says nothing, Halide's implementation; each rule cites it, and docs/types.md tabulates
// them. A program without types never reaches this file: ℤ keeps fig. 2.5b's meaning.
//
// Where Halide leaves a result undefined (signed 32- and 64-bit overflow, a shift by the
// width or more), the value is ε_undef (value.hpp), so that a case whose reference is
// undefined is out of model and never reported as a finding.
#pragma once

#include "semantics/ast.hpp"
#include "semantics/type.hpp"
#include "semantics/value.hpp"

#include <span>
#include <string>
#include <vector>

namespace halo {

// Halide's match_types (src/IROperator.cpp) for two integer types: equal types stay; two
// UInts go to the wider UInt; anything else (two Ints, or an Int and a UInt) goes to the
// Int of the wider width.
Type match_types(Type a, Type b);

// The typing of one operator application: the type each operand is cast to (an implicit
// cast where it differs from the operand's own), and the result type; or, where Halide
// rejects the combination at compile time, the error (`error` not empty).
struct OpTyping {
  std::vector<Type> operands;
  Type result;
  std::string error;
};

// `args` are the operand types after integer literals took theirs (the typing pass gives a
// literal the type of the other operand, as Halide's Expr-op-int overloads do). For Cast
// and SaturatingCast, `target` is the type cast to.
OpTyping type_op(Op op, std::span<const Type> args, Type target = Type::z());

// What `op` computes on operands of types `arg_types` (each operand already of its
// OpTyping::operands type), giving a value of type `result`. Errors propagate as in
// Def. 2.6 (the greatest error operand). For ℤ it is apply_op.
Value apply_typed_op(Op op, Type result, std::span<const Type> arg_types, std::span<const Value> args);

// [OP-EVAL] for the node `n` whose operands evaluated to `args`: fig. 2.6's apply_op in a
// program without types, Halide's operator at the node's types in a typed one.
Value apply_op_node(const OpNode& n, std::span<const Value> args);

}  // namespace halo

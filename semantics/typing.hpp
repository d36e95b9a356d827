// The typing pass: gives every expression of a typed program its Halide type, as Halide's
// front end does when a user's C++ builds Exprs (docs/types.md).
//
// A program that writes none of Halide's types is left as it is: every node keeps ℤ, the
// thesis's language unchanged. In a typed program pure and reduction variables and
// parameters without a written type are Int(32) (Halide's Var, RVar and Param<int>), a func
// has the type of its pure definition (or the type written after its signature), and each
// operator follows src/IROperator.h: an integer literal beside a typed operand takes that
// operand's type and must be representable in it (check_representable, an error in every
// Halide version), operands of different types meet by match_types, and the casts this
// inserts are explicit nodes marked ImplicitCast (the printer leaves them out). What Halide
// rejects at compile time is an InputError at the expression, exit 2.
#pragma once

#include "semantics/ast.hpp"
#include "semantics/tgt.hpp"

namespace halo {

// Types `p` in place when p.pipeline.typed; throws InputError at the first type error.
void type_program(Program& p);

// Types a typed target program in place (docs/types.md, "Typed target programs"), with
// the rules of type_program: parameters have their types, window, loop and let variables
// and holes are Int(32) (a let's variable has its value's type), a buffer has its
// allocation's type, loop and buffer bounds are Int(32), conditions are bool (a literal
// one is cast), a store's value has its buffer's type. Expressions written in ℤ by
// lowering, scheduling or a completion become Int(32), as Halide's Stmt computes them;
// typed ones are left as they are. Untyped programs are left alone.
void type_target(TgtProgram& t);

}  // namespace halo

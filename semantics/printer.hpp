// The printer: the inverse of the parser. parse(print(p)) is p up to source locations,
// a property test checks it. Output is the canonical layout of LANGUAGE.md, with the
// fewest parentheses that keep the tree (operators are printed by precedence).
#pragma once

#include "semantics/ast.hpp"
#include "support/indentation.hpp"

#include <string>

namespace halo {

std::string print_expr(const Expr& e);
// A finite float as a decimal that reads as a float literal, in .halo as in C++: the
// shortest round trip, with ".0" added where it has neither point nor exponent.
std::string float_decimal(const Value& v);
std::string print_loop_name(const LoopName& l);
std::string print_directive(const Directive& d);
// For `schedule halide { }` (ScheduleMode::Halide): the schedule as halo applies it, every
// default halo added and every `auto` tail's resolution said in a comment, each line a `#`
// comment; empty for the thesis's mode. Every command that runs such a program shows it.
std::string print_effective_schedule(const Program& p);
std::string print_program(const Program& p);

}  // namespace halo

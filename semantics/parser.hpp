// The parser for the .halo format of shared/spec/LANGUAGE.md: pipeline, schedule and
// realize sections. Recursive descent over a hand-written lexer; every node gets the
// line and column where it starts. Malformed input throws InputError with a located
// message; nesting deeper than kMaxNesting is rejected rather than overflowing the stack.
#pragma once

#include "semantics/ast.hpp"

#include <string>
#include <string_view>

namespace halo {

inline constexpr int kMaxNesting = 200;
// Statements of a target program nest once per loop, and lowering makes one loop per
// variable of every stage around a compute site: a valid program with a 200-variable rdom
// lowers to more than 200 nested statements. The target-language readers (text and JSON)
// admit this much, so that halo reads everything it prints from valid input; the CLI runs
// on the big stack (support/big_stack.hpp), where this depth is far from its end.
inline constexpr int kMaxStatementNesting = 2000;

Program parse_program(std::string_view source, const std::string& file);
Expr parse_expr(std::string_view source, const std::string& file);

// Reads a file and parses it; a file that cannot be read is an InputError at 0:0.
Program parse_file(const std::string& path);

// For commands that never use the schedule (`halo eval`, `halo lower`): an error inside
// the schedule section goes to `schedule_errors` instead of being thrown, and the program
// comes back without a schedule. Errors anywhere else throw as in parse_file.
Program parse_file_ignoring_schedule_errors(const std::string& path, std::vector<Diagnostic>& schedule_errors);

}  // namespace halo

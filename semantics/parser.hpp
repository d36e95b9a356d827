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

Program parse_program(std::string_view source, const std::string& file);
Expr parse_expr(std::string_view source, const std::string& file);

// Reads a file and parses it; a file that cannot be read is an InputError at 0:0.
Program parse_file(const std::string& path);

}  // namespace halo

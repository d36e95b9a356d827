// The printer: the inverse of the parser. parse(print(p)) is p up to source locations,
// a property test checks it. Output is the canonical layout of LANGUAGE.md, with the
// fewest parentheses that keep the tree (operators are printed by precedence).
#pragma once

#include "semantics/ast.hpp"

#include <algorithm>
#include <cstddef>
#include <string>

namespace halo {

// Printed programs and queries indent two spaces per level up to kMaxIndentLevels and no
// further. A valid program may nest thousands deep (a chain of 3000 funcs gives a query
// 9000 levels deep), and indenting every level made its text quadratic in its size (237 MB
// for that chain); braces and the query's connectives still show the nesting.
inline constexpr int kMaxIndentLevels = 40;
inline size_t indent_width(int levels) { return 2 * static_cast<size_t>(std::clamp(levels, 0, kMaxIndentLevels)); }

std::string print_expr(const Expr& e);
std::string print_loop_name(const LoopName& l);
std::string print_directive(const Directive& d);
std::string print_program(const Program& p);

}  // namespace halo

// How deep any text halo writes is indented: printed programs, queries, derivations and
// JSON documents share one bound, so that no output grows quadratically with nesting.
#pragma once

#include <algorithm>
#include <cstddef>

namespace halo {

// Text indents two spaces per level up to kMaxIndentLevels and no further. A valid program
// may nest thousands deep (a chain of 3000 funcs gives a query 9000 levels deep), and
// indenting every level made its text quadratic in its size (237 MB for that chain); braces
// and the query's connectives still show the nesting. JSON nested deeper is written compact.
inline constexpr int kMaxIndentLevels = 40;
inline size_t indent_width(int levels) { return 2 * static_cast<size_t>(std::clamp(levels, 0, kMaxIndentLevels)); }

}  // namespace halo

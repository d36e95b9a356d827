// See json_text.hpp.
#include "support/json_text.hpp"

#include "support/diagnostics.hpp"
#include "support/indentation.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

namespace halo {

size_t json_nesting_depth(std::string_view text) {
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    else if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return deepest;
}

nlohmann::json parse_json_text(std::string_view text, const std::string& source, size_t max_depth) {
  if (size_t d = json_nesting_depth(text); d > max_depth)
    throw InputError(Diagnostic{source, {}, fmt::format("not valid JSON: nested {} levels deep (limit {})", d,
                                                        max_depth)});
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e400
    throw InputError(Diagnostic{source, {}, std::string("not valid JSON: ") + e.what()});
  }
}

namespace {
// Does j nest arrays and objects more than `levels` deep? Iterative (j may nest 100,000 deep).
bool nests_deeper_than(const nlohmann::json& j, size_t levels) {
  std::vector<std::pair<const nlohmann::json*, size_t>> todo{{&j, 0}};
  while (!todo.empty()) {
    auto [v, depth] = todo.back();
    todo.pop_back();
    if (!v->is_structured()) continue;
    if (depth + 1 > levels) return true;
    for (const auto& child : *v) todo.emplace_back(&child, depth + 1);
  }
  return false;
}
}  // namespace

std::string json_text(const nlohmann::json& j, int indent) {
  // Indentation is quadratic in the depth (support/indentation.hpp): a deep
  // document stays on one line.
  if (indent >= 0 && nests_deeper_than(j, size_t(kMaxIndentLevels))) indent = -1;
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace halo

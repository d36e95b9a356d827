// See json_text.hpp.
#include "semantics/json_text.hpp"

#include "semantics/diagnostics.hpp"
#include "semantics/printer.hpp"

#include <fmt/format.h>

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

std::string json_text(const nlohmann::json& j, int indent) {
  std::string compact = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  // Indentation is quadratic in the depth (semantics/printer.hpp, kMaxIndentLevels): a deep
  // document stays on one line.
  if (indent < 0 || json_nesting_depth(compact) > size_t(kMaxIndentLevels)) return compact;
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace halo

// Reading and writing JSON text that halo does not control: fills, kernel manifests, query
// documents, engines' answers, and reports that copy what a candidate printed.
//
// Why a layer over nlohmann::json: its parser throws out_of_range (not parse_error) for a
// number such as 1e400, its dump recurses once per nesting level and throws on bytes that
// are not UTF-8. Here every malformed text is an InputError naming the source (exit 2), a
// document nested deeper than kMaxJsonNesting is refused before it is built (so no later
// recursion over it can exhaust the stack), and output replaces invalid UTF-8 with U+FFFD.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace halo {

// Deep enough for every document halo itself writes from valid input (a query or program
// whose statements nest to kMaxStatementNesting, each level a few JSON levels).
inline constexpr size_t kMaxJsonNesting = 100000;

// The deepest nesting of arrays and objects in `text` (strings skipped); linear, no recursion.
size_t json_nesting_depth(std::string_view text);

// Parses `text`; throws InputError{source, "not valid JSON: ..."} for any malformed text,
// a number out of range, or nesting beyond `max_depth`.
nlohmann::json parse_json_text(std::string_view text, const std::string& source,
                               size_t max_depth = kMaxJsonNesting);

// For dump(): bytes that are not UTF-8 (from a candidate's output) become U+FFFD.
inline constexpr auto kReplaceInvalidUtf8 = nlohmann::json::error_handler_t::replace;

// j.dump(indent), with bytes that are not UTF-8 replaced by U+FFFD instead of throwing; a
// document nested deeper than kMaxIndentLevels (support/indentation.hpp) is written compact.
std::string json_text(const nlohmann::json& j, int indent = -1);

}  // namespace halo

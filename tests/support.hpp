// Helpers shared by the test files: locations as "LINE:COL" and the check that parsing
// fails at a given place with a given message.
#pragma once

#include "semantics/diagnostics.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace halo::test {

inline std::string where(SourceLoc l) { return std::to_string(l.line) + ":" + std::to_string(l.col); }

// `parse(src)` must throw one InputError located at `at` in `file`, whose message
// contains `message`.
template <typename Parse>
void require_error(Parse parse, const std::string& src, const std::string& file, const std::string& at,
                   const std::string& message) {
  INFO("input: " << src.substr(0, 160) << (src.size() > 160 ? "..." : ""));
  try {
    parse(src);
    FAIL("parsed without error");
  } catch (const InputError& e) {
    INFO(e.what());
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(where(e.diagnostics()[0].loc) == at);
    CHECK_THAT(e.diagnostics()[0].message, Catch::Contains(message));
    CHECK(e.diagnostics()[0].file == file);
  }
}

}  // namespace halo::test

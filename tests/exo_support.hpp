// What the Exo tests share: whether exo-lang is installed in the project's .venv, and the
// skip that says so (tests that need Exo warn and return where it is missing).
#pragma once

#include "candidates/exo/exo_kernel.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace halo::test {

// Empty when exo-lang is importable; checked once per test binary.
inline const std::string& exo_missing() {
  static const std::string reason = halo::exo_unavailable_reason();
  return reason;
}

}  // namespace halo::test

#define REQUIRE_EXO_OR_SKIP()                                                                 \
  do {                                                                                        \
    if (!halo::test::exo_missing().empty()) {                                                 \
      WARN("exo-lang is not installed, this test is skipped: " << halo::test::exo_missing()); \
      return;                                                                                 \
    }                                                                                         \
  } while (0)

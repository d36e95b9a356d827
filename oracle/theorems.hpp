// The oracle for one case (P, z) and one completed program P' (thesis §2.3.2): does P'
// respect Theorem 2.1 (memory safety) and Theorem 2.2 via Def. 2.3 (confluence: P(z) has
// an error value in R(z), or P'(z) fails an assertion, or P ≃_z P')?
//
// The reference P(z) is the fast big-step evaluator (checked against the literal
// derivation evaluator by property tests); P'(z) is the small-step machine. The verdict
// says which theorem failed and why: the stuck state, or the first point where the
// outputs differ.
#pragma once

#include "interp/input.hpp"
#include "interp/small_step.hpp"
#include "semantics/tgt.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace halo {

struct OracleVerdict {
  bool reference_has_error = false;  // P(z) has an error value in R(z)
  // P'(z) failed an assertion (Def. 2.11), or got stuck on a negative loop length while P
  // has a negative rdom extent under z (the startup check of §2.9; docs/semantics-decisions.md).
  bool assertion_failed = false;
  bool memory_safe = true;           // Theorem 2.1: P'(z) made no out-of-bounds access
  bool confluent = true;             // Def. 2.3 for this z
  bool race_free = true;             // no parallel loop raced (SEMANTICS.md "Races")
  bool holds_serially() const { return memory_safe && confluent; }
  bool holds() const { return holds_serially() && race_free; }
  std::string detail;                // why it is violated (or how it holds)
  OutputBuffer reference;
  RunResult run;
};

OracleVerdict check_theorems(const Program& prog, const TgtProgram& completed, const Input& in, const Limits& lim);

// Does some rdom of P have a negative extent under z? Rdom bounds are startup expressions
// (Def. 2.9), so this is decided from the parameters alone, as Halide does at startup.
bool has_negative_rdom_extent(const Program& prog, const Input& in);

// {"memory_safe", "assertion_failed", "reference_has_error", "confluent", "race_free", "verdict", "detail"}
// (LANGUAGE.md §2), plus "status" (how P'(z) ended) and "steps".
nlohmann::json verdict_to_json(const OracleVerdict& v);

}  // namespace halo

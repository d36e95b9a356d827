// What a campaign's generated cases reached: which directives (and their variants), which
// features of the algorithm language, and which outcomes of the oracle. A campaign that
// never generates a scatter or a compute_at tests nothing about them; the counts in
// `halo fuzz --json` ("coverage") and the test that requires every directive and feature
// to be reached keep the generators honest.
#pragma once

#include "interp/input.hpp"
#include "semantics/ast.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace halo::fuzz {

// The directive variants and language features a case can exhibit, as counted.
const std::vector<std::string>& directive_coverage_names();
const std::vector<std::string>& feature_coverage_names();

// The names above that `prog` exhibits (features under its own realization: a negative
// rdom extent, an empty window).
std::vector<std::string> directives_in(const Program& prog);
std::vector<std::string> features_in(const Program& prog);

// The combinations of directives where Halide's known miscompilations live (issue 17): a
// producer computed at a variable a split made, stored above its compute level, both
// (a sliding window), a split with one of Halide's predicating tails, a vectorized split
// variable, rfactor, fold_storage, async, compute_with, hoist_storage.
const std::vector<std::string>& combination_coverage_names();
std::vector<std::string> combinations_in(const Program& prog);

// The outcome tag a candidate adds when it compiled and ran the case (so the coverage of a
// combination can say how many of its cases really reached the compiler's code).
inline constexpr const char* kRanTag = "ran";

// A typed program's value types (u8, i16, bool, ...) and Halide's own operators it writes
// (widening_add, saturating_cast, <<, ...): what a typed campaign reached. Empty for an
// untyped program.
std::vector<std::string> types_in(const Program& prog);
std::vector<std::string> halide_operators_in(const Program& prog);

struct Coverage {
  std::map<std::string, uint64_t> directives, features, outcomes;  // name → number of cases
  std::map<std::string, uint64_t> types, operators;                // typed programs (types_in, halide_operators_in)
  struct Reach {
    uint64_t cases = 0, ran = 0;
  };
  std::map<std::string, Reach> combinations;
  void add_program(const Program& prog);
  void add_outcomes(const std::vector<std::string>& tags);
  // Both, and the combinations of `prog` with whether its outcomes include kRanTag.
  void add_case(const Program& prog, const std::vector<std::string>& outcome_tags);
  // {"directives": {name: count, ...}, "features": {...}, "outcomes": {...},
  //  "directives_reached": "k/n", "features_reached": "k/n", "not_reached": [...],
  //  "combinations": {name: {"cases", "ran"}, ...}, "types": {...}, "operators": {...}}
  nlohmann::json to_json() const;
  // Adds the counts of another campaign's to_json() (a job of `halo fuzz --jobs N`).
  void add_json(const nlohmann::json& j);
  // Names of directives and features no case reached.
  std::vector<std::string> not_reached() const;
};

}  // namespace halo::fuzz

// Test-only mutations of halo, to check the oracle itself (issue "fuzzing campaigns",
// mutation check): a campaign is only worth running if it would notice a broken compiler.
// Setting the environment variable HALO_MUTATION to one of the names below makes halo
// skip one of its own rules on purpose; `tests/test_fuzz_campaign.cpp` runs a short
// `halo fuzz` with each mutation on and requires a finding, and with none on requires
// none. Each hook is a one-line condition at the rule it breaks, marked `// mutation hook`.
//
//   split-guard-dropped      schedule/loops.cpp: split with tail `guard` emits no `if`,
//                            so the last tile runs past the loop's extent.
//   compute-at-no-dominance  schedule/placement.cpp: compute_at skips the Lemma 2.5
//                            (dominance) check, so a producer may be computed inside a loop
//                            that some of its consumers run outside of.
//
// The variable is read once per process. It never changes halo's behaviour when unset.
#pragma once

#include <array>
#include <cstdlib>
#include <string>
#include <string_view>

namespace halo {

inline constexpr std::array<std::string_view, 2> kTestMutations = {"split-guard-dropped",
                                                                   "compute-at-no-dominance"};

// The value of HALO_MUTATION ("" when unset), read once.
inline const std::string& active_test_mutation() {
  static const std::string name = [] {
    const char* m = std::getenv("HALO_MUTATION");
    return m ? std::string(m) : std::string();
  }();
  return name;
}

// Is the test mutation `name` switched on?
inline bool test_mutation(std::string_view name) {
  const std::string& a = active_test_mutation();
  return !a.empty() && a == name;
}

}  // namespace halo

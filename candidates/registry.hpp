// Every candidate halo can judge, in one list: what `--target` of `halo oracle` and
// `halo fuzz` accepts beside `self`. A new compiler is one folder of candidates/ that
// implements oracle/candidate.hpp, plus one line in registry.cpp.
#pragma once

#include "oracle/candidate.hpp"

#include <string>
#include <vector>

namespace halo {

// The registered candidates, in the order `--help` lists them.
const std::vector<const Candidate*>& registered_candidates();

// The candidate `--target NAME`, `NAME@KEY` or `NAME@all` names; nullptr for none.
const Candidate* find_candidate(const std::string& target);

// "halide[@V|@all], exo[@V|@all]": the registered targets, for messages.
std::string candidate_target_list();

// `--target` resolved: the candidate and the version keys to run, or an error.
struct CandidateTarget {
  const Candidate* candidate = nullptr;
  VersionSelection selection;
};
CandidateTarget resolve_candidate_target(const std::string& target);

}  // namespace halo

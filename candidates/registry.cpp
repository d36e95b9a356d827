// The registry of candidates: see registry.hpp.
#include "candidates/registry.hpp"

#include "candidates/exo/candidate.hpp"
#include "candidates/halide/candidate.hpp"
#include "candidates/tvm/candidate.hpp"

#include <fmt/format.h>

namespace halo {

const std::vector<const Candidate*>& registered_candidates() {
  static const std::vector<const Candidate*> all = {
      &halide::halide_candidate(),  // candidates/halide/
      &exo::exo_candidate(),        // candidates/exo/
      &tvm::tvm_candidate(),        // candidates/tvm/
  };
  return all;
}

const Candidate* find_candidate(const std::string& target) {
  std::string name = target.substr(0, target.find('@'));
  for (const Candidate* c : registered_candidates())
    if (c->name() == name) return c;
  return nullptr;
}

std::string candidate_target_list() {
  std::vector<std::string> names;
  for (const Candidate* c : registered_candidates()) names.push_back(c->name() + "[@V|@all]");
  return fmt::format("{}", fmt::join(names, ", "));
}

CandidateTarget resolve_candidate_target(const std::string& target) {
  CandidateTarget t;
  t.candidate = find_candidate(target);
  if (!t.candidate) {
    t.selection.error = fmt::format("not a target: {} (self, {})", target, candidate_target_list());
    return t;
  }
  std::string missing = t.candidate->unavailable_reason();
  if (!missing.empty()) {
    t.selection.error = fmt::format("{}: {}", target, missing);
    return t;
  }
  t.selection = select_versions(t.candidate->name(), t.candidate->display_name(), t.candidate->versions(), target);
  return t;
}

}  // namespace halo

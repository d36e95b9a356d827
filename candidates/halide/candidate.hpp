// Halide, in every installed version, behind the candidate interface (oracle/candidate.hpp).
// What the interface asks of a candidate is here in terms of run_halide_case
// (halide_oracle.hpp): the HalideVerdict's outcome, phase and signature become the verdict
// every candidate reports, and the HalideVerdict itself rides along for the reproducer.
#pragma once

#include "candidates/halide/halide_oracle.hpp"
#include "oracle/candidate.hpp"

namespace halo::halide {

const Candidate& halide_candidate();

// The options run_halide_case takes for the interface's (the version key is the major).
HalideOptions halide_options(const CandidateOptions& opt);

// What shrinking preserves: "halide-OUTCOME:PHASE", and for Halide's errors and crashes
// the normalized first line of its message as well.
std::string shrink_kind(const HalideVerdict& v);

}  // namespace halo::halide

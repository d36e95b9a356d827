// Apache TVM (TensorIR), in every installed version, behind the candidate interface
// (oracle/candidate.hpp): a .halo case is translated into TVMScript and TVM's schedule
// primitives (translate.hpp), run by a warm worker and judged (tvm_oracle.hpp).
#pragma once

#include "oracle/candidate.hpp"

namespace halo::tvm {

const Candidate& tvm_candidate();

}  // namespace halo::tvm

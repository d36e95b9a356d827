// Exo behind the candidate interface (oracle/candidate.hpp). Exo's cases are Exo scripts:
// a user's (`halo exo`) or drawn by its own generator (`halo fuzz --target exo`,
// fuzz/exo_gen.hpp), checked as compiler-emitted kernels (exo_kernel.hpp). halo writes no
// Exo procedure from a .halo schedule, so a .halo case is declined with that reason, never
// judged on a guess of what Exo would do.
#pragma once

#include "oracle/candidate.hpp"

namespace halo::exo {

const Candidate& exo_candidate();

}  // namespace halo::exo

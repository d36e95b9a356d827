// A finding of the Exo campaign's program family as an Exo maintainer wants it
// (docs/kernels.md, "Fuzzing Exo"): one Python script that needs only exo-lang and a C
// compiler. It holds the unscheduled procedure, the schedule as the literal calls Exo
// accepted (fuzz/exo_steps.py logged them), the inputs and the values halo's reference
// (the .halo spec, evaluated by the big-step semantics) gives; it compiles the scheduled
// and the unscheduled procedure with the installed Exo, runs both through ctypes, prints
// expected beside actual for each, and exits 1 when the scheduled one differs (or Exo
// crashes, or its C does not compile), 0 when the installed Exo no longer has the bug.
// Running the unscheduled one too tells a rewrite's bug (only the scheduled one is wrong)
// from a code generator's (both are).
#pragma once

#include "fuzz/exo_gen.hpp"

#include <string>
#include <vector>

namespace halo::fuzz {

// The literal calls of the steps Exo applied, and the one it crashed in (if any), in
// order, from what the case's script printed (`halo-step applied|crashed: PRIM | CALL |`).
std::vector<std::string> exo_applied_calls(const std::string& log);

// The reproducer of a program-family case whose schedule is `calls`; `what` says what
// the campaign saw (the kind and the first mismatch).
std::string exo_program_reproducer(const ExoKernelCase& c, const std::vector<std::string>& calls,
                                   const std::string& what);

}  // namespace halo::fuzz

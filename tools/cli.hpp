// The `halo` command line (LANGUAGE.md §2), as a function so tests drive it in-process.
#pragma once

#include <ostream>

namespace halo {

// Exit status: 0 success, 1 a finding, 2 bad input (syntax, validity, usage),
// 3 a resource limit stopped the run, 4 an internal error of halo.
// `own_process` (the halo executable, never a test): a command still running 0.3 s after
// its --timeout ends the process at once, with status 3 and the limit's message, instead of
// finishing its unwinding (support/command_budget.hpp, command_overran).
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err, bool own_process = false);

}  // namespace halo

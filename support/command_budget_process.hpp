// The parts of the command budget (command_budget.hpp) that only the halo executable and
// the tests of the budget itself use, kept out of the header every pass includes.
//
// A whole command's limits (CommandLimits::whole_command) also hold the process's resident
// memory to --max-memory beyond what it held when the command began: what each phase
// charges itself undercounts (allocator overhead, a derivation's strings), and the
// resident size is what the user's limit is about. Campaign cases keep to their charged
// budgets only, so that a case's verdict never depends on the allocator.
#pragma once

namespace halo {

// Called by the halo executable (not by tests running commands in-process): from then on a
// whole command's clock starts when the process started, since that is what a user times,
// not when the command's own work began.
void count_commands_from_process_start();

// For tests of the polling itself: while watched, the longest stretch of one thread's CPU
// time between two polls that read the clock (on any thread, since watching began). A
// phase that polls too rarely shows here whatever the machine's load: CPU time, not wall
// time. The stretch before a thread's first poll and after its last is not counted.
void watch_poll_gaps(bool on);
double longest_poll_gap_cpu_seconds();

}  // namespace halo

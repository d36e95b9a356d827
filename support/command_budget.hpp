// One budget for a whole command: the wall-clock deadline of --timeout and the share of
// --max-memory that unbounded integers may hold, polled by every phase (parsing,
// validity, scheduling, bounds inference and lifting, evaluation, the machine, report
// rendering, big-integer arithmetic) so that no phase can run past the limit the user
// gave. The evaluators' own Budget (interp/input.hpp) counts steps and charges their
// tables; it polls this one too.
//
// Big integers (semantics/value.hpp) are charged here while they live, and no single one
// may exceed kMaxIntegerBits: multiplying two such integers already takes about a second,
// so a program that squares a number repeatedly stops with exit 3 instead of running for
// hours (64 squarings of 2 would need 2^64 bits).
//
// Process-wide (atomics): halo evaluates on one thread at a time; ScopedCommandBudget
// restores the previous limits, so nested or successive commands (tests) do not leak them.
#pragma once

#include <cstdint>
#include <string>

namespace halo {

inline constexpr uint64_t kMaxIntegerBits = uint64_t{1} << 20;

struct CommandLimits {
  double seconds = 0;                           // 0: no deadline
  uint64_t big_integer_bytes = uint64_t{4} << 30;  // live big integers, all together
  // The limit of a whole command of the command line (not of one case of a campaign):
  // command_overran watches it, and the process's resident memory is held to
  // big_integer_bytes (--max-memory) beyond what it held when the command began. What
  // each phase charges itself undercounts (allocator overhead, a derivation's strings):
  // the resident size is what the user's limit is about. Campaign cases keep to their
  // charged budgets only, so that a case's verdict never depends on the allocator.
  bool whole_command = false;
};

class ScopedCommandBudget {
 public:
  explicit ScopedCommandBudget(const CommandLimits& l);
  ~ScopedCommandBudget();
  ScopedCommandBudget(const ScopedCommandBudget&) = delete;
  ScopedCommandBudget& operator=(const ScopedCommandBudget&) = delete;

 private:
  int64_t saved_deadline_ns_, saved_command_deadline_ns_;
  uint64_t saved_big_bytes_;
  double saved_seconds_;
  int64_t saved_resident_base_;
};

// Throws ResourceLimit ("time limit reached ... --timeout") once the deadline has passed.
void poll_command_budget();

// Seconds until the deadline (the innermost: a campaign case's, or the command's), at
// least 0; infinity when there is none. For waits in another process (a candidate's
// compile) that must end with the command.
double command_seconds_left();

// Cheap: polls the clock once every 1024 calls (for per-token or per-node loops).
void tick_command_budget();

// True once a whole command's deadline (CommandLimits::whole_command) lies more than
// `grace` seconds back. After the limit fires, a command unwinds: destroying what it
// built (on a chain of 20,000 funcs, millions of expression and query nodes) takes a
// second and more on a loaded machine, all of it after the limit. The halo executable
// checks this while it waits for the command and then ends itself (tools/cli.cpp).
bool command_overran(double grace);
// The message of a time limit ("time limit reached (5 s); raise it with --timeout").
std::string time_limit_message();

// Big integers: a result of `bits` bits is about to be made; throws ResourceLimit if it
// would exceed kMaxIntegerBits, or the live total would exceed the byte budget, or the
// deadline has passed.
void check_big_integer(uint64_t bits);
void charge_big_integer_bytes(int64_t delta);  // + when one is made, - when it is freed

// Expression nodes (semantics/ast.hpp) are charged while they live, at kExprNodeBytes each
// (a node, its operand vector and its shared_ptr block, on average): bounds inference,
// lifting and simplification build expressions, and a fill that grows without bound must
// stop at --max-memory with exit 3 like a runaway evaluation. charge_expr_node throws
// ResourceLimit (having charged nothing) when the live total would exceed the budget.
inline constexpr int64_t kExprNodeBytes = 96;
void charge_expr_node();
void release_expr_node() noexcept;

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

// The small-step machine for the target language Tgt (thesis fig. 2.8): the reference
// semantics of completed (hole-free) programs, behind `halo run`, and the judge of memory
// safety and assertion failures in the oracle (Theorem 2.1).
//
// It exists as a *machine* rather than as a term rewriter because searching the term for
// the redex at every step would make each step cost O(size of the program), and lowered
// programs take billions of steps. Instead the evaluation context E of fig. 2.8 is kept
// explicitly, as a stack of frames (one frame kind per production of E), and every
// transition applies exactly one rule of the figure at the redex the context designates.
// docs/smallstep.md maps every rule and every production to the code and argues that the
// machine and the context-based rules take the same steps.
#pragma once

#include "interp/input.hpp"
#include "interp/race_check.hpp"
#include "semantics/tgt.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace halo {

// How a run ended: `Ok` is [END]; every other status is a stuck state (Defs. 2.11-2.13,
// plus the two ways an ill-formed program can get stuck).
enum class RunStatus : uint8_t {
  Ok,
  AssertionFailure,  // assert 0 (Def. 2.11)
  RdomFailure,       // a for loop with a negative length (Def. 2.12)
  MemoryError,       // read or write outside the allocated bounds, or of a func never allocated (Def. 2.13)
  ErrorInControl,    // an error value where an integer is required (bound, condition, index)
  UnboundVariable,   // a variable not in Σ (only hand-written programs)
};
// "ok", "assertion_failure", "rdom_failure", "memory_error", "error_in_control",
// "unbound_variable": the names `halo run --json` prints (LANGUAGE.md §2).
const char* run_status_name(RunStatus s);

// What the run did to one func's buffer.
struct FuncStats {
  // Each distinct allocation box ((min, len) per dimension, as evaluated) with how many
  // times [ALLOC] made it, in order of first occurrence.
  std::vector<std::pair<std::vector<std::pair<Value, Value>>, uint64_t>> allocations;
  uint64_t stores = 0, loads = 0;  // [ASSN] and [READ] applications
};

struct RunResult {
  RunStatus status = RunStatus::Ok;
  // Stuck states: what got stuck and where (the func, point and bounds of a memory error,
  // the place that needed an integer, ...). Ok: empty, or a note when part of R(z) lies
  // outside the output func's allocation (those points are reported as err_mem).
  std::string message;
  SourceLoc loc;  // the statement or expression that got stuck (0:0 when unknown)
  // Valid when Ok: the output func's buffer restricted to R(z).
  OutputBuffer output;
  std::map<std::string, FuncStats> stats;  // every func the program names
  uint64_t steps = 0;                      // rule applications, [REALIZE] and [END] included
  // The first data race of a `parallel` loop, if any (interp/race_check.hpp). Not a stuck
  // state: fig. 2.8 runs the loop serially and the run goes on; the oracle reports it.
  std::optional<RaceReport> race;
};

// Receives every step when tracing: the rule's name exactly as in fig. 2.8 ("VAR",
// "FOR-ITER", ...) and the redex, printed compactly (`3 + 4`, `g^(0, 0)[1, 2]`,
// `for x in (0, 4) do …`). Strings are built only when a sink is given.
struct TraceSink {
  virtual ~TraceSink() = default;
  virtual void rule(const char* rule_name, const std::string& redex) = 0;
  // What the step just traced did to memory and loops, for tools that draw a run (`halo
  // explain`, report/explain.hpp). Each is called right after the rule() of the same step;
  // the defaults ignore them.
  virtual void allocated(const std::string& func, const std::vector<std::pair<Value, Value>>& box) {}  // [ALLOC]
  virtual void stored(const std::string& func, std::span<const Value> point, const Value& value) {}    // [ASSN]
  virtual void loaded(const std::string& func, std::span<const Value> point) {}                         // [READ]
  virtual void iterated(const ForStmt& loop, const Value& var_value) {}                                 // [FOR-ITER]
};

// Runs `pipeline f(p̄, x̄_min, x̄_len): s; realize(z)` to a final or stuck state.
// `in.params` follow p.params; `in.window` has one (min, len) per p.window entry.
// Throws InputError when the program has a hole, an operator with the wrong number of
// operands or a missing subtree, or when the input does not fit the program; throws
// ResourceLimit when a limit of `lim` is reached (steps, time, buffer memory).
RunResult run_tgt(const TgtProgram& p, const Input& in, const Limits& lim, TraceSink* trace = nullptr);

}  // namespace halo

// halo as a test oracle for the real Halide compiler (Debian's libhalide14): one case
// (P, z) — a .halo program with its schedule, and an input — is translated to Halide
// (plan.hpp), JIT-compiled and run in an isolated child process (isolate.hpp, jit.hpp),
// and judged against halo's big-step reference on R(z) (Theorem 2.2 via Def. 2.3) and
// against the regions Halide realized (Theorem 2.1 for every intermediate func).
//
// Every way Halide can go wrong is a classified outcome, never a crash of halo. The
// outcomes fall in three groups (docs/halide.md explains each):
//   not findings   pass, out_of_model (Int(32) cannot represent the case, int32_model.hpp),
//                  reference_error (P(z) has an error value: Def. 2.3 holds vacuously),
//                  not_expressible (a documented restriction of Halide, e.g. vectorizing a
//                  loop of non-constant extent), agreed_assertion (Halide's runtime check
//                  fails and so does halo's own completed program: Def. 2.3 allows both);
//   violations     wrong_output (Theorem 2.2), memory_violation (Theorem 2.1: an access
//                  outside the realized region, or a heap buffer overrun), crash,
//                  internal_error (Halide's own InternalError), autoscheduler_error (one of
//                  Halide's autoschedulers failing on a valid pipeline);
//   divergences    rejected (Halide's CompileError on a schedule halo accepts),
//                  runtime_assertion (Halide's runtime check fails, halo's program runs),
//                  hang, out_of_memory.
#pragma once

#include "interp/input.hpp"
#include "candidates/halide/jit.hpp"
#include "semantics/ast.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace halo::halide {

enum class HalideOutcome : uint8_t {
  Pass, OutOfModel, ReferenceError, NotExpressible, AgreedAssertion,
  WrongOutput, MemoryViolation, Crash, InternalError,
  Rejected, RuntimeAssertion, Hang, OutOfMemory,
  // Halide's autoscheduler failed on a valid pipeline in a way it does not document (an
  // internal error, a crash, an unexplained refusal), or Halide refuses the schedule its own
  // autoscheduler chose: a Halide bug, a violation (docs/halide.md, "Autoschedulers").
  AutoschedulerError,
};
const char* outcome_name(HalideOutcome o);
bool is_finding(HalideOutcome o);          // a violation or a divergence
bool is_violation(HalideOutcome o);        // wrong_output, memory_violation, crash, internal_error
bool halide_ran(HalideOutcome o);          // Halide compiled the case and ran it on z
// Whether the schedule lets a reduction loop of a stage race (allow_race_conditions, and a
// parallel or vectorized traversal of one of that stage's reduction loops): Halide promises
// no value then (Func.h: "may result in a non-deterministic routine that returns different
// values"), so another output than the reference is not a divergence. A race-allowed stage
// whose reduction loops stay serial promises its values as any stage does.
bool races_allowed(const Program& prog);

struct HalideOptions {
  int version = 0;               // the Halide major version (versions.hpp); 0 = the newest installed
  std::string target = "host";   // a Halide target string; "host" = get_jit_target_from_environment()
  bool memcheck = true;          // also run the traced pipeline (Theorem 2.1 for intermediates)
  double timeout_seconds = 60;   // for compiling and running, in the child
  uint64_t max_memory_bytes = 4ull << 30;  // the child's address space beyond what it starts with
  Limits reference_limits;       // halo's own evaluation
  // Serve cases from one long-lived worker process, warm (Halide's JIT runtime compiled
  // once), instead of a fresh process per case: what makes a campaign as fast as Halide
  // alone. Crashes, hangs and memory findings are decided again in a fresh process
  // (worker.hpp). A single case is faster in a fresh process.
  bool reuse_process = true;
  std::string formal_refusal;    // CandidateOptions::formal_refusal
  // How a float output is judged (docs/floats.md, "Against Halide"): strict compiles with
  // strict_float and compares bit for bit; relaxed compiles without it (Halide's default,
  // fast-math) and compares within kRelaxedFloatTolerance, not at NaN or infinite points.
  bool relaxed_floats = false;
};

struct PointMismatch {
  std::vector<Value> point;
  Value expected;
  Value got;
  bool in_memcheck_run = false;  // seen in the traced run only
};

struct HalideVerdict {
  HalideOutcome outcome = HalideOutcome::Pass;
  std::string phase;        // build, compile, bounds_query, run (memcheck_* for the traced run)
  std::string message;      // Halide's message, the signal, the first difference, the Int(32) reason
  std::string detail;       // one paragraph saying what happened, for people
  std::string signature;    // failure_signature: the same for two cases that fail the same way
  std::string output_tail;  // the last bytes Halide's process printed
  std::string halide_target;
  std::string halide_version;  // "21.0.0": the Halide that ran the case
  uint64_t mismatches = 0;
  std::vector<PointMismatch> first_mismatches;
  MemcheckReport mem;
  std::vector<std::string> heap_corruption;
  std::vector<std::string> notes;  // readings the translation took (plan notes)
  // `schedule autoscheduler NAME { }` (or --autoscheduler NAME): the autoscheduler, the
  // parameters Halide recorded, and the schedule it chose as C++ (empty when it did not
  // choose one), so that a finding shows the schedule that failed.
  std::string autoscheduler, autoscheduler_params, schedule_source;
  double compile_seconds = 0, run_seconds = 0, seconds = 0;
  // The runs realized pipelines the worker had compiled for an earlier case of the same
  // program at another window (JitOptions::reuse_key): compile_seconds is then 0. Only a
  // pass is decided so; anything else is decided again in a fresh process.
  bool compile_reused = false;
  bool finding() const { return is_finding(outcome); }
};

// Runs one case. `prog` must be valid (check_program and the schedule's own checks have
// passed). Throws ResourceLimit when halo's own reference evaluation exceeds
// opt.reference_limits; every failure of Halide is an outcome.
HalideVerdict run_halide_case(const Program& prog, const Input& in, const HalideOptions& opt = {});

// The installed Halide opt.version names (the newest for 0); throws when it is not installed.
struct HalideVersion;
const HalideVersion& halide_version_for(const HalideOptions& opt);

// Groups findings that fail the same way: the outcome, Halide's phase, and the message with
// the program's own names and all numbers replaced (for wrong_output and memory_violation,
// the schedule's directive kinds instead of a message).
std::string failure_signature(const HalideVerdict& v);

// The standalone Halide C++ program that rebuilds this case and prints Halide's wrong
// values next to halo's expected ones (emit_cpp.hpp); with the memory check when the
// verdict is a memory finding. Throws InputError when the case is out of the Int(32) model
// (there is no Int(32) program to write).
std::string halide_reproducer(const Program& prog, const Input& in, const HalideVerdict& v,
                              const HalideOptions& opt = {});

nlohmann::json halide_verdict_to_json(const HalideVerdict& v);
std::string describe_halide_verdict(const HalideVerdict& v);  // a few lines for people
}  // namespace halo::halide

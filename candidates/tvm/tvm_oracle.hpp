// Running one .halo case on Apache TVM and judging it: the installed TVM versions (each a
// pinned wheel in .venv/tvm/VERSION, scripts/setup.sh), one warm Python worker per version
// (candidates/tvm/tvm_worker.py: TVM imported once, a forked child per case, so a crash or
// a corrupted heap never outlives its case), and the verdict: TVM's outputs on R(z)
// compared with halo's reference (Theorem 2.2) and its accesses outside the buffers it was
// given, caught by guard zones around each of them (Theorem 2.1).
//
// What is not a finding: a schedule TVM refuses (ScheduleError: `refused`, counted), a case
// halo cannot write in TVM (`not_expressible`, `out_of_model`), and a reference that is
// already an error (`reference_error`). What is: a wrong output, an access outside a
// buffer, a crash or hang of TVM, TVM failing to build or run a schedule it accepted, an
// internal error of a schedule primitive instead of its ScheduleError, and a script of
// halo's that TVM cannot parse (`translation_error`: halo's own bug, shrunk like a
// finding so that it is fixed in halo).
#pragma once

#include "interp/input.hpp"
#include "semantics/ast.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace halo::tvm {

struct TvmVersion {
  std::string key;      // "0.27"
  std::string version;  // "0.27.0.post1"
  std::string dir;      // the wheel's --target directory (PYTHONPATH)
};

// The installed versions, oldest first ($HALO_TVM_DIR, else the project's .venv/tvm/).
const std::vector<TvmVersion>& installed_tvm_versions();
// Empty when TVM can run here; otherwise what is missing and how to install it.
std::string tvm_unavailable_reason();

struct TvmOptions {
  std::string version;  // a key; "" = the newest
  bool memcheck = true;
  double timeout_seconds = 60;
  uint64_t max_memory_bytes = 4ull << 30;
  Limits reference_limits;
  // Float outputs judged within the relaxed tolerance (oracle/candidate.hpp), not bit for
  // bit: TVM promises no IEEE strictness (its simplifier reassociates float arithmetic).
  bool relaxed_floats = false;
  // Serve the case from the warm worker of its version (a campaign), or from a worker of its
  // own that ends with it (one case: `halo oracle`).
  bool reuse_process = true;
};

struct TvmVerdict {
  std::string version;  // the full version that ran
  // pass; wrong_output, memory_violation, crash, hang, compile_error, run_error,
  // internal_error, translation_error (findings); refused, not_expressible, out_of_model,
  // reference_error (not).
  std::string outcome;
  std::string phase;     // translate, schedule, compile, run, reference
  std::string message;   // TVM's or the translation's words, first lines
  std::string detail;    // a paragraph for people
  std::string signature;
  std::vector<std::string> notes;
  std::vector<std::string> primitives;  // the schedule primitives the case called
  uint64_t mismatches = 0, compared = 0, undefined = 0;
  struct Mismatch {
    std::vector<int64_t> point;
    Value expected;
    Value got;
  };
  std::vector<Mismatch> first_mismatches;
  std::vector<std::string> memory_events;
  nlohmann::json seconds;  // the worker's schedule, compile and run times
  bool finding() const;
  bool ran() const;
  bool declined() const;
};

TvmVerdict run_tvm_case(const Program& prog, const Input& in, const TvmOptions& opt);
nlohmann::json tvm_verdict_to_json(const TvmVerdict& v);
std::string describe_tvm_verdict(const TvmVerdict& v);

// The standalone Python reproducer: the case's TVMScript and schedule, its inputs, the
// values halo expects on R(z), and a run that prints expected beside actual and checks the
// guard zones; it needs only TVM and NumPy.
std::string tvm_reproducer(const Program& prog, const Input& in, const TvmVerdict& v, const TvmOptions& opt);

// Stops the warm workers (tests, and before a version's directory changes).
void stop_tvm_workers();

}  // namespace halo::tvm

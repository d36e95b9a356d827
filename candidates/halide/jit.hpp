// Back end (a) of the Halide translation: builds a HalidePlan with Halide's C++ API,
// JIT-compiles it for the host (or a given target) and realizes it on R(z), in the calling
// process. It runs inside a worker executable (worker/worker_main.cpp, one per Halide
// version), never in halo: a crash or a hang of Halide there must not take halo down.
// Its implementation, worker/jit.cpp, is the only file that includes Halide.h; it is
// compiled once per version, and what differs between versions is there, behind
// HALO_HALIDE_MAJOR checks. halo_lib uses only the types declared here.
//
// Two run modes:
//  * plain: the pipeline exactly as translated, whose output is compared with the
//    reference (and the reproducer builds the same pipeline);
//  * memcheck: the same pipeline with trace_loads/trace_stores/trace_realizations on every
//    Func, parallel loops run serially, and a trace handler that checks every load and
//    store of every Func against the region Halide realized for it (Theorem 2.1 for
//    intermediates), and counts reads of points no store wrote — not an error in itself:
//    Halide loads and discards values it skipped computing (docs/halide.md says what this
//    can and cannot see).
// Both modes allocate every heap buffer through a handler that surrounds it with guard
// bytes checked when Halide frees it (overflows the trace cannot see).
#pragma once

#include "oracle/int32_model.hpp"
#include "candidates/halide/plan.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace halo::halide {

// How the worker says that its Halide lacks a directive of the plan (a version check in
// worker/jit.cpp): the case is not expressible in that version, never a finding.
inline constexpr const char* kNotInThisVersion = "halo: not in this Halide version";
// How the worker says that an autoscheduler refuses what it documents as unsupported before
// calling it (Anderson2021 schedules for GPUs only, and asserts a GPU target with an
// internal error): not expressible, never a finding.
inline constexpr const char* kAutoschedulerUnsupported = "halo: documented as unsupported by the autoscheduler";

// The byte every point of the output buffer holds before Halide runs, so that a point
// Halide never writes does not pass for a computed value: the plain and the traced run use
// different bytes, so an unwritten point that equals the reference in one differs in the
// other. Without the traced run (--no-memcheck) a point whose reference is the plain run's
// fill value cannot be told from an unwritten one (the oracle counts such points).
constexpr unsigned char kPlainRunFill = 0xDE, kTracedRunFill = 0x5B;

struct JitOptions {
  std::string target = "host";              // "host", or a Halide target string
  bool memcheck = false;
  uint64_t max_output_points = 1ull << 26;  // a bounds query asking for more is reported, not allocated
  // Not empty: the pipeline compiled last in this process for the same key (and the same
  // memcheck) is realized again instead of compiled again. Two cases share a key only when
  // they differ in nothing but their output window (protocol.hpp, compile_reuse_key): a
  // JIT-compiled pipeline realizes any output buffer, as a user's does.
  std::string reuse_key;
  bool strict_float = true;  // a float pipeline gets Halide's strict_float feature (docs/floats.md)
};

struct MemcheckReport {
  uint64_t loads = 0, stores = 0, realizations = 0;  // points loaded and stored (a vector counts its lanes)
  uint64_t out_of_bounds = 0;                  // loads/stores outside the func's realized region
  std::vector<std::string> out_of_bounds_examples;
  // Lanes of vector loads/stores outside the realized region. A trace event of a predicated
  // vector access lists every lane, the masked-off ones too (Halide's trace has no
  // predicate), so the oracle counts these as violations only where no predicating tail
  // could have masked them (halide_oracle.cpp).
  uint64_t vector_lanes_out_of_bounds = 0;
  std::vector<std::string> vector_lanes_examples;
  uint64_t unjudged_vector_lanes = 0;  // set by the oracle: lanes it could not judge (predicated)
  uint64_t uninitialized = 0;                  // loads of points no store of the realization wrote
  std::vector<std::string> uninitialized_examples;
  std::map<std::string, Box> realized;         // hull of every realization, per func
};

struct JitResult {
  // Which Halide exception ended the run (CompileError = a user error, InternalError =
  // a compiler bug, RuntimeError = a runtime assertion), or Ok.
  enum class Status : uint8_t { Ok, CompileError, InternalError, RuntimeError, OtherError };
  Status status = Status::Ok;
  std::string phase;    // build, autoschedule, compile, bounds_query, run
  std::string message;  // Halide's message
  std::vector<std::pair<int32_t, int32_t>> output_region;  // the output buffer realized (min, extent)
  std::string bounds_query_note;  // set when the bounds query's answer did not contain R(z)
  std::vector<int64_t> values;  // on R(z), first dimension fastest; read with hl_value(the output type, v)
  std::vector<std::string> heap_corruption;                // guard bytes found overwritten
  MemcheckReport mem;
  std::string target;   // the target Halide compiled for
  double compile_seconds = 0, run_seconds = 0;
  bool compile_reused = false;  // realized with the pipeline an earlier case compiled (JitOptions::reuse_key)
  // A plan with an autoscheduler (phase `autoschedule`, between build and compile): the
  // parameters as Halide records them, and the schedule it chose as C++
  // (AutoSchedulerResults::schedule_source), which the reproducer pastes.
  std::string autoscheduler_params;
  std::string schedule_source;
};

const char* jit_status_name(JitResult::Status s);

// Whether this Halide understands `target` ("host", or a string such as x86-64-linux-avx2).
bool halide_understands_target(const std::string& target);

// Builds, compiles and runs the plan. `phase` is called when a phase starts (so that a
// crash can be attributed to it). Halide's exceptions are caught and classified; anything
// else propagates.
JitResult run_plan_jit(const HalidePlan& plan, const JitOptions& opt, const std::function<void(const char*)>& phase);

// Compiles and runs a trivial pipeline once in this process, so that processes forked
// afterwards find Halide's JIT runtime already compiled (it costs more than a small
// pipeline). Idempotent; never throws (a failure shows again in the real run).
void warm_up_jit(const std::string& target);

// The plan's pipeline, built as run_plan_jit builds it, written with Halide's
// serialize_pipeline to `path` (Halide 19 and later; the import's round trip,
// docs/import.md). Throws std::runtime_error where this Halide cannot.
void serialize_plan(const HalidePlan& plan, const std::string& path);

}  // namespace halo::halide

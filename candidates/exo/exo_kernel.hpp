// The Exo compiler (exo-lang from PyPI, installed into the project's .venv by
// scripts/setup.sh) as a candidate of `halo kernel`: `halo exo SCRIPT.py PROC --spec
// FILE.halo` and `halo fuzz --target exo` (docs/kernels.md, "Exo as a candidate").
// halo runs the Python helper candidates/exo/exo_compile.py with the venv's
// interpreter: it runs the user's script, compiles the procedure with Exo's own compiler
// and describes its signature. From that signature and the command line halo writes a
// kernel manifest and hands it to check_kernel (candidates/kernel/kernel.hpp), so an Exo kernel is
// checked exactly as any other compiler-emitted kernel: same simulator, same sanitizers,
// same report.
#pragma once

#include "candidates/kernel/kernel.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace halo {

// Where halo finds Python with exo-lang and the helper script (set at build time, see
// CMakeLists.txt; $HALO_EXO_PYTHON and $HALO_EXO_HELPER override them).
struct ExoPaths {
  std::string python;  // <repo>/.venv/bin/python
  std::string helper;  // <repo>/candidates/exo/exo_compile.py
};
ExoPaths exo_paths();

// Empty when the interpreter exists and imports exo; otherwise what is missing and how to
// install it. Runs Python once (about a second).
std::string exo_unavailable_reason();

// How long Exo's own run (the user's script, its scheduling, C generation) may take by
// default in `halo exo` (--exo-timeout). The earlier 60 s cut off Exo's own Gemmini matmul
// schedules on the project's loaded machine, where one generated procedure already takes
// 15-30 s of wall time (docs/kernels.md); 600 s leaves a user's real script a wide margin.
inline constexpr double kExoDefaultSeconds = 600;

// The outcome of running the user's script and compiling the procedure.
struct ExoCompileResult {
  // Rejected: the script failed in any way (an exception, Exo's refusal, an exit status, a
  // signal, no usable signature); Limit: it ran out of time; Unavailable: no exo-lang.
  enum class Status { Compiled, Rejected, Limit, Unavailable } status = Status::Rejected;
  std::string message;        // Rejected/Limit/Unavailable: what happened, with Python's own words
  nlohmann::json signature;   // Compiled: candidates/exo/exo_compile.py's signature.json
  std::string source;         // Compiled: path of the generated .c
  std::string log;            // what the script printed (a fuzzing case logs its schedule's steps)
};

// Runs SCRIPT, compiles PROC into `outdir`, within the earlier of `timeout_seconds` (raised
// by `timeout_flag`, named in the message) and the command's budget. Never throws for what
// the script does.
ExoCompileResult compile_exo_proc(const std::string& script, const std::string& proc, const std::string& outdir,
                                  double timeout_seconds, const std::string& timeout_flag = "--exo-timeout");

// How the procedure's arguments meet the spec (each NAME=VALUE as on the command line).
struct ExoBinding {
  std::string spec;                                           // the .halo file
  std::vector<std::pair<std::string, std::string>> params;   // --param P=V
  std::vector<std::pair<std::string, std::string>> args;     // --arg A=V: size, index, stride, bool and scalar values
  std::vector<std::pair<std::string, std::string>> funcs;    // --func A=F: the spec func of tensor A (default: A)
  std::vector<std::pair<std::string, std::string>> inits;    // --init A=F: initial contents of a read and written A
};

// The kernel manifest (docs/kernels.md, "The manifest") for a compiled procedure. Throws
// InputError (exit 2) for an argument halo cannot bind: a size without a value, a window
// argument, an extent that is not a number or a size argument, a name in the binding that
// is no argument of the procedure.
nlohmann::json exo_kernel_manifest(const nlohmann::json& signature, const std::string& source,
                                   const ExoBinding& binding, const std::string& origin);

// `halo exo`: compile, write the manifest next to the C, check it. The report's `exo`
// object says which script, procedure and Exo version produced the kernel. C that Exo
// emitted and the system compiler rejects is the finding "compile-error". Throws
// InputError when exo-lang is missing or the script fails (exit 2), ResourceLimit when Exo
// runs out of time (exit 3).
struct ExoKernelReport {
  KernelReport kernel;
  std::string exo_version, script, proc;
  std::string log;  // what the script printed while Exo ran it
  // Arguments whose role in the scheduled code differs from the specification's (the
  // unscheduled procedure's), which is the one checked: "y: written by the specification,
  // never written by the scheduled procedure".
  std::vector<std::string> role_differences;
};
ExoKernelReport check_exo_kernel(const std::string& script, const std::string& proc, const ExoBinding& binding,
                                 const KernelOptions& options, double exo_timeout_seconds = kExoDefaultSeconds,
                                 const std::string& exo_timeout_flag = "--exo-timeout");

nlohmann::json exo_report_to_json(const ExoKernelReport& r);

// "NAME=VALUE" -> (NAME, VALUE); InputError naming the option otherwise.
std::pair<std::string, std::string> split_binding(const std::string& option, const std::string& text);

}  // namespace halo

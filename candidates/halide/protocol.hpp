// What halo and a Halide worker executable (worker/worker_main.cpp) say to each other over
// the worker's pipes (worker.hpp): a case goes down as JSON — the program's text (print ∘
// parse is the identity), the input, the options that matter in the worker — and each
// run comes back as a line of JSON after the phases it entered:
//   PHASE build|compile|bounds_query|run (memcheck_* for the traced run)
//   RESULT {JitResult}      the plain run
//   MEMCHECK {JitResult}    the traced run, when asked for and the plain run succeeded
// Both sides link this file; only the worker links Halide.
#pragma once

#include "interp/input.hpp"
#include "candidates/halide/jit.hpp"
#include "semantics/ast.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace halo::halide {

struct CaseRequest {
  Program prog;
  Input in;
  bool memcheck = true;
  std::string target = "host";  // a Halide target string
  // A float pipeline is compiled with strict_float (docs/floats.md); false: without it, for
  // the relaxed float mode, whose outputs are compared with a tolerance.
  bool strict_float = true;
};

std::string case_request_text(const Program& prog, const Input& in, bool memcheck, const std::string& target,
                              bool strict_float = true);
CaseRequest parse_case_request(const std::string& text);  // throws on malformed text

// What decides a case's compiled pipeline: everything of the request but its output window
// (the plan's window is used only to realize; plan.cpp), so that two cases of one key may
// share one compile (JitOptions::reuse_key). "" where the compile depends on the window too
// (an autoscheduler's estimates are the window) or where realizations share state beyond
// the buffers they are given (memoize's cache): those are compiled for every case.
std::string compile_reuse_key(const CaseRequest& c);

nlohmann::json jit_to_json(const JitResult& r);
JitResult jit_from_json(const nlohmann::json& j);

}  // namespace halo::halide

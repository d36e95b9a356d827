// The bounds-engine interface: β0 is one engine; any other is a command that reads the
// bounds query B(T) as JSON on its standard input and writes a hole substitution as JSON
// on its standard output (docs/bounds-engines.md). Authors of new engines plug in here,
// and `halo oracle --engine` holds them to Def. 2.5.
//
// The command runs in a child process with a time limit: an engine that crashes, hangs,
// prints garbage or fills a hole with an out-of-scope variable is reported as such (a
// finding about the engine), never a crash of halo.
#pragma once

#include "bounds/engine_result.hpp"
#include "bounds/query.hpp"
#include "oracle/quality.hpp"
#include "semantics/tgt.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace halo {

// A substitution read from JSON: an object from hole (text form, "?mem<f, x>.min") to
// expression (text, "x_min - 1", or the JSON form of docs/target-syntax.md). Every hole
// must exist in `t` and every expression may use only the variables of the hole's scope;
// otherwise InputError naming `source`.
HoleFilling filling_from_json(const nlohmann::json& j, const TgtProgram& t, const std::string& source);


// Runs `command` (through /bin/sh -c) on the query of `t`; the names "beta0" and "beta1"
// select a built-in engine instead (in-process, bounds/beta0.hpp). The engine answers
// {"holes": {...}} (a substitution) or {"fail": "reason"} (it gives up: the completion is
// `assert 0`, as for β0). Anything else — a non-zero exit, a signal, no answer within
// `seconds`, malformed JSON, an unknown hole, an out-of-scope variable, a hole left
// unfilled — is Failed.
EngineResult run_engine(const std::string& command, const Query& q, const TgtProgram& t, double seconds = 60);

// What an engine's standard output `answer` means for `t` (run_engine after the process
// exited with status 0): never throws, whatever the bytes (fuzzed: fuzz/libfuzzer/).
EngineResult interpret_engine_answer(const std::string& answer, const TgtProgram& t);

// Answers nested deeper than this are Failed before anything recurses over them.
inline constexpr size_t kMaxEngineAnswerNesting = 10000;


// Def. 2.5 for the engine `command` on one case (oracle/quality.hpp): the engine runs at
// most `engine_seconds` on the query of `t`.
EngineVerdict check_engine(const Program& prog, const TgtProgram& t, const Input& in, const Limits& lim,
                           const std::string& command, double engine_seconds);

}  // namespace halo

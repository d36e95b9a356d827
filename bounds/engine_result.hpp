// What any bounds engine answers for a program with holes T: a substitution for every hole,
// or a refusal (the completion is then `assert 0`, as for β0 when it gives up). β0 and β1
// answer in-process; external engines (candidates/engines/) over a pipe; the oracle judges
// the completion (oracle/quality.hpp) without knowing which kind of engine answered.
#pragma once

#include "semantics/tgt.hpp"

#include <string>

namespace halo {

struct EngineResult {
  enum class Kind { Filled, GaveUp, Failed } kind = Kind::Failed;
  HoleFilling filling;  // Filled
  std::string detail;   // GaveUp: the engine's reason; Failed: what went wrong with it
};

// The completion an engine's result defines: the filled program, or `assert 0`.
TgtProgram complete_with(const EngineResult& r, const TgtProgram& t);

}  // namespace halo

// The completion an engine's answer defines: see engine_result.hpp.
#include "bounds/engine_result.hpp"

namespace halo {

TgtProgram complete_with(const EngineResult& r, const TgtProgram& t) {
  if (r.kind == EngineResult::Kind::Filled) return fill_holes(t, r.filling);
  TgtProgram out = t;
  out.body = make_assert(make_const(Value(0)));
  return out;
}

}  // namespace halo

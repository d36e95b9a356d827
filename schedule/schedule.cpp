// The schedule driver: dispatch of each directive to its rewrite (schedule.hpp).
#include "schedule/schedule.hpp"

#include "lower/lower.hpp"

#include <fmt/format.h>

namespace halo {

TgtProgram apply_directive(const TgtProgram& t, const Directive& d, const Program& prog) {
  switch (d.kind) {
    case DirectiveKind::Split: return apply_split(t, d, prog);
    case DirectiveKind::Fuse: return apply_fuse(t, d, prog);
    case DirectiveKind::Swap: return apply_swap(t, d, prog);
    case DirectiveKind::Traverse: return apply_traverse(t, d, prog);
    case DirectiveKind::Specialize: return apply_specialize(t, d, prog);
    case DirectiveKind::ComputeAt: return apply_compute_at(t, d, prog);
    case DirectiveKind::StoreAt: return apply_store_at(t, d, prog);
    case DirectiveKind::Bound: case DirectiveKind::BoundExtent: case DirectiveKind::AlignBounds: break;
  }
  throw InputError(Diagnostic{prog.file, d.loc, fmt::format("the bounds directive {} is not implemented yet",
                                                            directive_name(d.kind))});
}

TgtProgram schedule_pipeline(const Program& prog, std::vector<TgtProgram>* steps) {
  TgtProgram t = lower_pipeline(prog);
  if (steps) steps->push_back(t);
  if (!prog.schedule) return t;
  for (const Directive& d : *prog.schedule) {
    t = apply_directive(t, d, prog);
    if (steps) steps->push_back(t);
  }
  return t;
}

}  // namespace halo

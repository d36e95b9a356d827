// Hole references of the bounds query (query.hpp).
#include "bounds/query.hpp"

#include <fmt/format.h>

namespace halo {

HoleLabel HoleRef::min_hole(size_t dim) const {
  return HoleLabel{kind, false, func, vars.at(dim), kind == HoleKind::Cpu ? stage : FuncLabel::kNone,
                   kind == HoleKind::Cpu ? spec : FuncLabel::kNone};
}

HoleLabel HoleRef::len_hole(size_t dim) const {
  HoleLabel h = min_hole(dim);
  h.is_len = true;
  return h;
}

std::string HoleRef::to_string() const {
  if (kind == HoleKind::Mem) return fmt::format("?mem<{}>", func);
  std::string sp = spec == FuncLabel::kShared ? "*" : std::to_string(spec);
  return fmt::format("?cpu<{}, {}, {}>", func, sp, stage);
}

}  // namespace halo

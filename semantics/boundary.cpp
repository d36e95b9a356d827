// Halide's BoundaryConditions formulas, transcribed one function per condition; see
// boundary.hpp. Each line cites the step of src/BoundaryConditions.cpp it mirrors.
#include "semantics/boundary.hpp"

namespace halo {

namespace {

struct Builder {
  SourceLoc loc;
  Expr lit(int64_t v) const { return make_const(Value(v), loc); }
  Expr op(Op o, std::vector<Expr> a) const { return make_op(o, std::move(a), loc); }
  Expr add(Expr a, Expr b) const { return op(Op::Add, {std::move(a), std::move(b)}); }
  Expr sub(Expr a, Expr b) const { return op(Op::Sub, {std::move(a), std::move(b)}); }
  Expr mul(Expr a, Expr b) const { return op(Op::Mul, {std::move(a), std::move(b)}); }
  Expr mod(Expr a, Expr b) const { return op(Op::Mod, {std::move(a), std::move(b)}); }
  Expr lt(Expr a, Expr b) const { return op(Op::Lt, {std::move(a), std::move(b)}); }
  Expr ge(Expr a, Expr b) const { return op(Op::Ge, {std::move(a), std::move(b)}); }
  Expr or_(Expr a, Expr b) const { return op(Op::Or, {std::move(a), std::move(b)}); }
  Expr select(Expr c, Expr t, Expr f) const { return op(Op::Select, {std::move(c), std::move(t), std::move(f)}); }
  // arg_var < min || arg_var >= min + extent
  Expr outside(const Expr& x, const Expr& min, const Expr& extent) const {
    return or_(lt(x, min), ge(x, add(min, extent)));
  }
  // clamp(arg_var, min, min + extent - 1)
  Expr edge(const Expr& x, const Expr& min, const Expr& extent) const {
    return make_clamp(x, min, sub(add(min, extent), lit(1)), loc);
  }
};

// The coordinate one bounded dimension reads, per condition.
Expr coordinate(BoundaryKind kind, const Builder& b, const Expr& x, const Expr& min, const Expr& extent) {
  switch (kind) {
    case BoundaryKind::RepeatEdge:
    case BoundaryKind::ConstantExterior:  // constant_exterior reads repeat_edge(source, bounds)
      return b.edge(x, min, extent);      // clamp(likely(arg_var), min, min + extent - 1)
    case BoundaryKind::RepeatImage: {
      Expr coord = b.sub(x, min);                       // Enforce zero origin.
      coord = b.mod(coord, extent);                     // Range is 0 to w-1
      coord = b.add(coord, min);                        // Restore correct min
      return b.select(b.outside(x, min, extent), coord, b.edge(x, min, extent));
    }
    case BoundaryKind::MirrorImage: {
      Expr coord = b.sub(x, min);                                   // Enforce zero origin.
      Expr twice = b.mul(b.lit(2), extent);
      coord = b.mod(coord, twice);                                  // Range is 0 to 2w-1
      coord = b.select(b.ge(coord, extent), b.sub(b.sub(twice, b.lit(1)), coord), coord);
      coord = b.add(coord, min);                                    // Restore correct min
      coord = make_clamp(coord, min, b.sub(b.add(min, extent), b.lit(1)), b.loc);
      return b.select(b.outside(x, min, extent), coord, b.edge(x, min, extent));
    }
    case BoundaryKind::MirrorInterior: {
      Expr limit = b.sub(extent, b.lit(1));
      Expr coord = b.sub(x, min);                      // Enforce zero origin.
      coord = b.mod(coord, b.mul(b.lit(2), limit));    // Range is 0 to 2w-1
      coord = b.sub(coord, limit);                     // Range is -w, w
      coord = make_abs(coord, b.loc);                  // Range is 0, w
      coord = b.sub(limit, coord);                     // Range is 0, w
      coord = b.add(coord, min);                       // Restore correct min
      return b.select(b.outside(x, min, extent), coord, b.edge(x, min, extent));
    }
  }
  return x;
}

}  // namespace

Expr boundary_formula(const BoundaryCondition& bc, const std::vector<Name>& vars, bool source_is_input) {
  Builder b{bc.loc};
  std::vector<std::pair<Expr, Expr>> bounds = bc.bounds;
  if (bounds.empty() && source_is_input)
    for (size_t k = 0; k < vars.size(); ++k)
      bounds.emplace_back(make_var(buffer_min_var(bc.source.text, k), bc.loc),
                          make_var(buffer_extent_var(bc.source.text, k), bc.loc));
  std::vector<Expr> actuals;
  Expr out_of_bounds;  // constant_exterior: false || x0 outside || x1 outside ...
  for (size_t k = 0; k < vars.size(); ++k) {
    Expr x = make_var(vars[k].text, vars[k].loc);
    if (k >= bounds.size()) {  // fewer bounds than dimensions: the rest are unbounded
      actuals.push_back(x);
      continue;
    }
    const auto& [min, extent] = bounds[k];
    actuals.push_back(coordinate(bc.kind, b, x, min, extent));
    if (bc.kind == BoundaryKind::ConstantExterior) {
      Expr o = b.outside(x, min, extent);
      out_of_bounds = out_of_bounds ? b.or_(out_of_bounds, o) : o;
    }
  }
  Expr read = make_call(bc.source.text, std::move(actuals), bc.source.loc);
  if (bc.kind != BoundaryKind::ConstantExterior) return read;
  // Halide starts from `false`; with no bounded dimension the select never picks the value.
  if (!out_of_bounds) return read;
  return b.select(out_of_bounds, bc.value, read);
}

}  // namespace halo

// The schedule driver: dispatch of each directive to its rewrite (schedule.hpp).
#include "schedule/schedule.hpp"
#include "support/command_budget.hpp"

#include "bounds/simplify.hpp"
#include "lower/lower.hpp"
#include "semantics/printer.hpp"
#include "semantics/typing.hpp"

#include <fmt/format.h>

#include <array>
#include <stdexcept>

namespace halo {

namespace {
TgtProgram rewrite(const TgtProgram& t, const Directive& d, const Program& prog);
}  // namespace

// A directive's rewrite writes its new loop bounds and indices in ℤ; in a typed program
// they compute in Int(32), as in Halide (docs/types.md, "Typed target programs").
TgtProgram apply_directive(const TgtProgram& t, const Directive& d, const Program& prog) {
  TgtProgram out = rewrite(t, d, prog);
  type_target(out);
  return out;
}

namespace {
TgtProgram rewrite(const TgtProgram& t, const Directive& d, const Program& prog) {
  // Outside fig. 2.11: halo's own lowering cannot apply it, --target halide runs it.
  std::string outside;
  if (d.on_intermediate)
    outside = fmt::format("'{}' schedules the intermediate func of an rfactor, which exists in Halide only",
                          directive_name(d.kind));
  else if (d.on_atomic)
    outside = fmt::format("a {} traversal of a loop of an atomic stage is Halide's (its atomic() allows it on a "
                          "reduction loop, which fig. 2.11 refuses)",
                          traversal_name(d.order));
  else if (is_tvm_only(d.kind))
    outside = fmt::format("'{}' is one of TVM's own schedule primitives, outside the formal model (fig. 2.11)",
                          directive_name(d.kind));
  else if (is_halide_only(d.kind))
    outside = fmt::format("'{}' is one of Halide's own directives, outside the formal model (fig. 2.11)",
                          directive_name(d.kind));
  else if (d.kind == DirectiveKind::Split && is_halide_only(d.tail))
    outside = fmt::format("the tail strategy '{}' is Halide's, outside the formal model (fig. 2.11 has guard, shift "
                          "and round)",
                          tail_name(d.tail));
  if (!outside.empty())
    throw InputError(Diagnostic{prog.file, d.loc,
                                is_tvm_only(d.kind)
                                    ? fmt::format("{}: halo cannot lower or complete it, so only `--target tvm` runs it "
                                                  "(docs/tvm.md, \"TVM's own primitives\")",
                                                  outside)
                                    : fmt::format("{}: halo cannot lower or complete it, so only `--target halide` runs "
                                                  "it (docs/halide.md, \"Halide-only directives\")",
                                                  outside)});
  switch (d.kind) {
    case DirectiveKind::Split: return apply_split(t, d, prog);
    case DirectiveKind::Fuse: return apply_fuse(t, d, prog);
    case DirectiveKind::Swap: return apply_swap(t, d, prog);
    case DirectiveKind::Traverse: return apply_traverse(t, d, prog);
    case DirectiveKind::Specialize: return apply_specialize(t, d, prog);
    case DirectiveKind::ComputeAt: return apply_compute_at(t, d, prog);
    case DirectiveKind::StoreAt: return apply_store_at(t, d, prog);
    case DirectiveKind::Bound: return apply_bound(t, d, prog);
    case DirectiveKind::BoundExtent: return apply_bound_extent(t, d, prog);
    case DirectiveKind::AlignBounds: return apply_align_bounds(t, d, prog);
    case DirectiveKind::ComputeInline: return apply_compute_inline(t, d, prog);
    default: break;  // Halide's own directives: rejected above
  }
  throw std::logic_error("apply_directive: unknown directive kind");
}
}  // namespace

std::optional<Expr> startup_check(const Expr& e, Op cmp, const Program& prog, const Directive& d,
                                  const std::string& what) {
  SourceLoc at = d.loc;
  Expr check = make_op(cmp, {e, make_const(Value(0), at)}, at);
  std::optional<Value> c = const_value(simplify(e));
  if (!c) return check;
  std::array<Value, 2> args{*c, Value(0)};
  Value holds = apply_op(cmp, args);
  if (!(holds.is_small() && holds.small() == 1))
    throw InputError(Diagnostic{prog.file, at,
                                fmt::format("'{}': {} {} is {}, but it must be {} 0", directive_name(d.kind), what,
                                            print_expr(e), c->to_string(), op_name(cmp))});
  return std::nullopt;
}

Stmt with_startup_checks(const std::vector<Expr>& checks, Stmt body, SourceLoc at) {
  if (checks.empty()) return body;
  std::vector<Stmt> seq;
  for (const Expr& c : checks) seq.push_back(make_assert(c, at));
  seq.push_back(std::move(body));
  return make_seq(std::move(seq), at);
}

Program formal_part(const Program& prog) {
  if (prog.schedule_mode == ScheduleMode::Autoscheduler) {
    // The autoscheduler's schedule is Halide's alone; the formal side keeps the thesis's
    // default (every func at the root), which the reference does not depend on.
    Program out = prog;
    out.schedule_mode = ScheduleMode::Thesis;
    out.autoscheduler.clear();
    return out;
  }
  if (!prog.schedule) return prog;
  Program out = prog;
  out.schedule->clear();
  for (const Directive& d : *prog.schedule) {
    if (!in_formal_part(d)) continue;
    out.schedule->push_back(d);
    if (d.kind == DirectiveKind::Split && is_halide_only(d.tail)) out.schedule->back().tail = TailStrategy::Guard;
  }
  return out;
}

bool is_predicating(TailStrategy t) {
  return t == TailStrategy::Predicate || t == TailStrategy::PredicateLoads || t == TailStrategy::PredicateStores;
}

TgtProgram schedule_formal_part(const Program& prog) {
  Program formal = formal_part(prog);
  TgtProgram t = lower_pipeline(formal);
  if (!prog.schedule) return t;
  size_t next = 0;  // the next directive of formal's schedule
  for (const Directive& d : *prog.schedule) {
    poll_command_budget();
    if (in_formal_part(d)) {
      t = apply_directive(t, (*formal.schedule)[next++], formal);
      continue;
    }
    if (d.on_intermediate) continue;  // its loops are Halide's (the translation checks them)
    if (d.kind == DirectiveKind::Rfactor || d.kind == DirectiveKind::ComputeWith || d.kind == DirectiveKind::HoistStorage ||
        d.kind == DirectiveKind::Prefetch || d.on_atomic)
      find_loop(t, d, prog);
    if (d.kind == DirectiveKind::ComputeWith) {
      Directive with = d;
      with.loop = d.with;
      find_loop(t, with, prog);
    }
  }
  return t;
}

TgtProgram schedule_pipeline(const Program& prog, std::vector<TgtProgram>* steps) {
  if (prog.schedule_mode == ScheduleMode::Autoscheduler)
    throw InputError(Diagnostic{prog.file, prog.autoscheduler_loc,
                                fmt::format("the schedule comes from Halide's autoscheduler {}, outside the formal "
                                            "model: halo cannot lower or complete it, so only `--target halide` runs "
                                            "it (docs/halide.md, \"Autoschedulers\")",
                                            prog.autoscheduler)});
  TgtProgram t = lower_pipeline(prog);
  if (steps) steps->push_back(t);
  if (!prog.schedule) return t;
  for (const Directive& d : *prog.schedule) {
    poll_command_budget();
    t = apply_directive(t, d, prog);
    if (steps) steps->push_back(t);
  }
  return t;
}

std::string schedule_step_title(const Program& prog, size_t k) {
  const Directive& d = (*prog.schedule)[k];
  std::vector<std::string> notes;
  if (!d.sugar.empty()) notes.push_back(fmt::format("from {} at {}:{}", d.sugar, d.loc.line, d.loc.col));
  if (!d.tail_note.empty()) notes.push_back(d.tail_note);
  if (!d.default_note.empty()) notes.push_back(d.default_note);
  // Directives halo added as Halide's defaults were not written anywhere: they move nothing.
  bool moved = false;
  for (size_t j = k + 1; j < prog.schedule->size() && !moved && d.default_note.empty(); ++j) {
    const Directive& later = (*prog.schedule)[j];
    const SourceLoc& l = later.loc;
    moved = later.default_note.empty() && (l.line < d.loc.line || (l.line == d.loc.line && l.col < d.loc.col));
  }
  if (moved)
    notes.push_back(fmt::format("written {}after directives of later phases: applied in fig. 2.11's phase order",
                                d.sugar.empty() ? fmt::format("at {}:{}, ", d.loc.line, d.loc.col) : ""));
  std::string title = "after " + print_directive(d);
  if (!notes.empty()) title += fmt::format(" ({})", fmt::join(notes, "; "));
  return title;
}

}  // namespace halo

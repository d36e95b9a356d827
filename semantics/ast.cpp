// Constructors, structural equality, and the generic traversals of ast.hpp.
#include "semantics/ast.hpp"

#include <array>
#include <cctype>
#include <unordered_map>

#include "support/command_budget.hpp"

#include <fmt/format.h>

#include <cmath>

#include <charconv>
#include <tuple>

namespace halo {

Expr make_const(Value v, SourceLoc l, Type t) { return std::make_shared<ConstNode>(std::move(v), l, t); }
Expr make_var(std::string name, SourceLoc l, Type t) { return std::make_shared<VarNode>(std::move(name), l, t); }
Expr make_call(std::string func, std::vector<Expr> args, SourceLoc l, FuncLabel label, Type t) {
  return std::make_shared<CallNode>(std::move(func), std::move(args), l, label, t);
}
Expr make_hole(HoleLabel label, SourceLoc l, Type t) { return std::make_shared<HoleNode>(std::move(label), l, t); }

bool HoleLabel::operator<(const HoleLabel& o) const {
  return std::tie(func, kind, var, stage, spec, is_len) < std::tie(o.func, o.kind, o.var, o.stage, o.spec, o.is_len);
}

std::string HoleLabel::to_string() const {
  const char* end = is_len ? "len" : "min";
  if (kind == HoleKind::Mem) return fmt::format("?mem<{}, {}>.{}", func, var, end);
  std::string sp = spec == FuncLabel::kShared ? "*" : std::to_string(spec);
  return fmt::format("?cpu<{}, {}, {}, {}>.{}", func, sp, stage, var, end);
}
Expr make_op(Op op, std::vector<Expr> args, SourceLoc l, Type t) {
  return std::make_shared<OpNode>(op, std::move(args), l, OpSugar::None, t);
}

Expr make_cast(Type t, Expr e, SourceLoc l, OpSugar sugar) {
  return std::make_shared<OpNode>(Op::Cast, std::vector<Expr>{std::move(e)}, l, sugar, t);
}

Expr with_type(const Expr& e, Type t) {
  if (e->type == t) return e;
  switch (e->kind) {
    case ExprKind::Const: return std::make_shared<ConstNode>(as<ConstNode>(e).value, e->loc, t);
    case ExprKind::Var: return std::make_shared<VarNode>(as<VarNode>(e).name, e->loc, t);
    case ExprKind::Call: {
      const auto& n = as<CallNode>(e);
      return std::make_shared<CallNode>(n.func, n.args, n.loc, n.label, t);
    }
    case ExprKind::Op: {
      const auto& n = as<OpNode>(e);
      return std::make_shared<OpNode>(n.op, n.args, n.loc, n.sugar, t);
    }
    case ExprKind::Hole: return std::make_shared<HoleNode>(as<HoleNode>(e).label, e->loc, t);
  }
  return e;
}

Expr make_clamp(Expr e, Expr lo, Expr hi, SourceLoc l) {
  return std::make_shared<OpNode>(Op::Max, std::vector<Expr>{make_op(Op::Min, {std::move(e), std::move(hi)}, l), std::move(lo)},
                                  l, OpSugar::Clamp);
}

Expr make_abs(Expr e, SourceLoc l) {
  Expr neg = make_op(Op::Neg, {e}, l);
  return std::make_shared<OpNode>(Op::Max, std::vector<Expr>{std::move(e), std::move(neg)}, l, OpSugar::Abs);
}

namespace {
bool same_exprs(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_expr(a[i], b[i])) return false;
  return true;
}
}  // namespace

bool same_expr(const Expr& a, const Expr& b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  if (a->type != b->type) return false;
  switch (a->kind) {
    case ExprKind::Const: return as<ConstNode>(a).value == as<ConstNode>(b).value;
    case ExprKind::Var: return as<VarNode>(a).name == as<VarNode>(b).name;
    case ExprKind::Call:
      return as<CallNode>(a).func == as<CallNode>(b).func && as<CallNode>(a).label == as<CallNode>(b).label &&
             same_exprs(as<CallNode>(a).args, as<CallNode>(b).args);
    case ExprKind::Hole: return as<HoleNode>(a).label == as<HoleNode>(b).label;
    case ExprKind::Op:
      return as<OpNode>(a).op == as<OpNode>(b).op && same_exprs(as<OpNode>(a).args, as<OpNode>(b).args);
  }
  return false;
}

// The operator of Halide's `f(lhs) op= e` an update spells (lhs) <- f[lhs] op e, if it does.
std::optional<Op> compound_update_op(const FuncDef& f, const UpdateStage& u) {
  if (!u.value || u.value->kind != ExprKind::Op) return std::nullopt;
  const auto& o = as<OpNode>(u.value);
  if (!(o.op == Op::Add || o.op == Op::Sub || o.op == Op::Mul || o.op == Op::Div) || o.args.size() != 2 ||
      o.args[0]->kind != ExprKind::Call)
    return std::nullopt;
  const auto& self = as<CallNode>(o.args[0]);
  if (self.func != f.name.text || self.args.size() != u.lhs.size()) return std::nullopt;
  for (size_t i = 0; i < u.lhs.size(); ++i)
    if (!same_expr(self.args[i], u.lhs[i])) return std::nullopt;
  return o.op;
}

Value implicit_pure_identity(Op op) { return Value(op == Op::Mul || op == Op::Div ? 1 : 0); }

std::optional<Type> Pipeline::declared_param_type(size_t i) const {
  return i < param_types.size() ? param_types[i] : std::nullopt;
}

Type Pipeline::param_type(size_t i) const {
  if (!typed) return Type::z();
  return declared_param_type(i).value_or(Type::int_(32));
}

namespace {
// Pipeline::find in constant time: every pass looks funcs up by name once per access, and a
// linear search made `halo check` on 100,000 funcs take 40 s. `funcs` is a public vector
// that passes edit, so an index is only a hint: a hit is checked against the vector, a miss
// falls back to the search, and a search that finds what the index did not rebuilds it.
// The hints live beside the pipelines, per thread (no locking, no index shared by threads),
// for the few pipelines a pass has in hand at once; a pipeline gone and another at its
// address is caught by the check like any other edit.
struct FuncIndexHint {
  const Pipeline* pipeline = nullptr;
  std::unordered_map<std::string, size_t> index;
};
constexpr size_t kFuncIndexHints = 4;
thread_local std::array<FuncIndexHint, kFuncIndexHints> t_hints;
thread_local size_t t_next_hint = 0;
}  // namespace

const FuncDef* Pipeline::find(const std::string& f) const {
  FuncIndexHint* hint = nullptr;
  for (auto& h : t_hints)
    if (h.pipeline == this) hint = &h;
  if (hint) {
    auto it = hint->index.find(f);
    if (it != hint->index.end() && it->second < funcs.size() && funcs[it->second].name.text == f) return &funcs[it->second];
  }
  for (size_t i = 0; i < funcs.size(); ++i) {
    if (funcs[i].name.text != f) continue;
    if (funcs.size() > 8) {  // small pipelines search faster than they hash
      if (!hint) {
        hint = &t_hints[t_next_hint];
        t_next_hint = (t_next_hint + 1) % kFuncIndexHints;
        hint->pipeline = this;
      }
      hint->index.clear();
      for (size_t j = 0; j < funcs.size(); ++j) hint->index.emplace(funcs[j].name.text, j);  // a duplicate: the first
    }
    return &funcs[i];
  }
  return nullptr;
}

const InputDef* Pipeline::find_input(const std::string& name) const {
  for (const auto& in : inputs)
    if (in.name.text == name) return &in;
  return nullptr;
}

namespace {
constexpr std::pair<BoundaryKind, const char*> kBoundaryNames[] = {
    {BoundaryKind::RepeatEdge, "repeat_edge"},
    {BoundaryKind::ConstantExterior, "constant_exterior"},
    {BoundaryKind::RepeatImage, "repeat_image"},
    {BoundaryKind::MirrorImage, "mirror_image"},
    {BoundaryKind::MirrorInterior, "mirror_interior"},
};
}  // namespace

const char* boundary_name(BoundaryKind k) {
  for (const auto& [kind, name] : kBoundaryNames)
    if (kind == k) return name;
  return "?";
}

std::optional<BoundaryKind> boundary_kind(std::string_view name) {
  for (const auto& [kind, n] : kBoundaryNames)
    if (name == n) return kind;
  return std::nullopt;
}

std::optional<Op> inline_reduction_kind(std::string_view word) {
  if (word == "sum") return Op::Add;
  if (word == "product") return Op::Mul;
  if (word == "maximum") return Op::Max;
  if (word == "minimum") return Op::Min;
  return std::nullopt;
}

Value inline_reduction_identity(Op op, Type t) {
  if (t.is_float()) return make_float(t, op == Op::Mul ? 1.0 : op == Op::Max ? -HUGE_VAL : op == Op::Min ? HUGE_VAL : 0.0);
  switch (op) {
    case Op::Mul: return Value(1);
    case Op::Max: return t.min();
    case Op::Min: return t.max();
    default: return Value(0);
  }
}

std::string buffer_min_var(const std::string& input, size_t dim) { return fmt::format("{}.min.{}", input, dim); }
std::string buffer_extent_var(const std::string& input, size_t dim) {
  return fmt::format("{}.extent.{}", input, dim);
}

std::optional<BufferGeometryVar> split_buffer_var(const std::string& name) {
  auto last = name.rfind('.');
  if (last == std::string::npos || last == 0) return std::nullopt;
  auto mid = name.rfind('.', last - 1);
  if (mid == std::string::npos || mid == 0) return std::nullopt;
  std::string what = name.substr(mid + 1, last - mid - 1);
  if (what != "min" && what != "extent") return std::nullopt;
  BufferGeometryVar v;
  v.input = name.substr(0, mid);
  v.extent = what == "extent";
  const char* b = name.data() + last + 1;
  const char* e = name.data() + name.size();
  auto [ptr, ec] = std::from_chars(b, e, v.dim);
  if (b == e || ec != std::errc() || ptr != e) return std::nullopt;
  return v;
}

std::string qualified_var(const std::string& func, int64_t spec, int64_t stage, const std::string& var) {
  return fmt::format("<{}, {}, {}, {}>", func, spec, stage, var);
}
std::string qualified_var(const LoopName& l) { return qualified_var(l.func.text, l.spec, l.stage, l.var.text); }

bool is_qualified_var(const std::string& name) { return !name.empty() && name.front() == '<'; }

std::optional<LoopName> split_qualified_var(const std::string& name) {
  if (!is_qualified_var(name) || name.back() != '>') return std::nullopt;
  std::vector<std::string> parts;
  size_t start = 1;
  while (true) {
    size_t comma = name.find(", ", start);
    if (comma == std::string::npos) {
      parts.push_back(name.substr(start, name.size() - 1 - start));
      break;
    }
    parts.push_back(name.substr(start, comma - start));
    start = comma + 2;
  }
  if (parts.size() != 4) return std::nullopt;
  LoopName l;
  l.func.text = parts[0];
  l.var.text = parts[3];
  try {
    l.spec = std::stoll(parts[1]);
    l.stage = std::stoll(parts[2]);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return l;
}

std::string short_var(const std::string& name) {
  if (!is_qualified_var(name)) return name;
  size_t comma = name.rfind(", ");
  if (comma == std::string::npos || name.back() != '>') return name;
  return name.substr(comma + 2, name.size() - 3 - comma);
}

const char* directive_name(DirectiveKind k) {
  switch (k) {
    case DirectiveKind::Specialize: return "specialize";
    case DirectiveKind::Split: return "split";
    case DirectiveKind::Fuse: return "fuse";
    case DirectiveKind::Swap: return "swap";
    case DirectiveKind::Traverse: return "traverse";
    case DirectiveKind::ComputeAt: return "compute_at";
    case DirectiveKind::StoreAt: return "store_at";
    case DirectiveKind::Bound: return "bound";
    case DirectiveKind::BoundExtent: return "bound_extent";
    case DirectiveKind::AlignBounds: return "align_bounds";
    case DirectiveKind::ComputeInline: return "compute_inline";
    case DirectiveKind::Rfactor: return "rfactor";
    case DirectiveKind::ComputeWith: return "compute_with";
    case DirectiveKind::FoldStorage: return "fold_storage";
    case DirectiveKind::Async: return "async";
    case DirectiveKind::HoistStorage: return "hoist_storage";
    case DirectiveKind::Atomic: return "atomic";
    case DirectiveKind::Prefetch: return "prefetch";
    case DirectiveKind::Memoize: return "memoize";
    case DirectiveKind::StoreIn: return "store_in";
    case DirectiveKind::HoistStorageRoot: return "hoist_storage_root";
    case DirectiveKind::ReorderStorage: return "reorder_storage";
    case DirectiveKind::AlignStorage: return "align_storage";
    case DirectiveKind::BoundStorage: return "bound_storage";
    case DirectiveKind::AlignExtent: return "align_extent";
    case DirectiveKind::RingBuffer: return "ring_buffer";
    case DirectiveKind::Partition: return "partition";
    case DirectiveKind::Unscheduled: return "unscheduled";
    case DirectiveKind::AllowRaceConditions: return "allow_race_conditions";
    case DirectiveKind::SpecializeFail: return "specialize_fail";
    case DirectiveKind::In: return "in";
    case DirectiveKind::CloneIn: return "clone_in";
    case DirectiveKind::TvmReverseComputeAt: return "tvm_reverse_compute_at";
    case DirectiveKind::TvmReverseComputeInline: return "tvm_reverse_compute_inline";
    case DirectiveKind::TvmCacheRead: return "tvm_cache_read";
    case DirectiveKind::TvmCacheWrite: return "tvm_cache_write";
    case DirectiveKind::TvmDecomposeReduction: return "tvm_decompose_reduction";
    case DirectiveKind::TvmSplitUnpredicated: return "tvm_split_unpredicated";
    case DirectiveKind::TvmBlockize: return "tvm_blockize";
    case DirectiveKind::TvmLoopPartition: return "tvm_loop_partition";
    case DirectiveKind::TvmPadEinsum: return "tvm_pad_einsum";
  }
  return "?";
}
bool is_cpu_memory_type(std::string_view name) {
  return name == "auto" || name == "heap" || name == "stack" || name == "register";
}
bool is_partition_policy(std::string_view name) { return name == "auto" || name == "never" || name == "always"; }
const char* tail_name(TailStrategy t) {
  switch (t) {
    case TailStrategy::Guard: return "guard";
    case TailStrategy::Shift: return "shift";
    case TailStrategy::Round: return "round";
    case TailStrategy::Predicate: return "predicate";
    case TailStrategy::PredicateLoads: return "predicate_loads";
    case TailStrategy::PredicateStores: return "predicate_stores";
    case TailStrategy::Auto: return "auto";
  }
  return "?";
}
const char* traversal_name(Traversal t) {
  switch (t) {
    case Traversal::Serial: return "serial";
    case Traversal::Parallel: return "parallel";
    case Traversal::Vectorized: return "vectorized";
    case Traversal::Unrolled: return "unrolled";
  }
  return "?";
}
int directive_phase(DirectiveKind k) {
  switch (k) {
    case DirectiveKind::Specialize: return 0;
    case DirectiveKind::Split: case DirectiveKind::Fuse: case DirectiveKind::Swap:
    case DirectiveKind::Traverse: return 1;
    case DirectiveKind::ComputeAt: case DirectiveKind::ComputeInline: return 2;
    case DirectiveKind::StoreAt: return 3;
    case DirectiveKind::Bound: case DirectiveKind::BoundExtent: case DirectiveKind::AlignBounds: return 4;
    case DirectiveKind::SpecializeFail: return 0;
    case DirectiveKind::In: case DirectiveKind::CloneIn: return 1;
    case DirectiveKind::Rfactor: case DirectiveKind::Atomic: case DirectiveKind::Partition:
    case DirectiveKind::Unscheduled: case DirectiveKind::AllowRaceConditions: return 1;
    case DirectiveKind::ComputeWith: case DirectiveKind::Async: case DirectiveKind::Prefetch:
    case DirectiveKind::Memoize: return 2;
    case DirectiveKind::FoldStorage: case DirectiveKind::HoistStorage: case DirectiveKind::StoreIn:
    case DirectiveKind::HoistStorageRoot: case DirectiveKind::ReorderStorage: case DirectiveKind::AlignStorage:
    case DirectiveKind::BoundStorage: case DirectiveKind::RingBuffer: return 3;
    case DirectiveKind::AlignExtent: return 4;
    // TVM's primitives act on the loops and blocks fig. 2.11's directives made: after them.
    case DirectiveKind::TvmReverseComputeAt: case DirectiveKind::TvmReverseComputeInline:
    case DirectiveKind::TvmCacheRead: case DirectiveKind::TvmCacheWrite: case DirectiveKind::TvmDecomposeReduction:
    case DirectiveKind::TvmSplitUnpredicated: case DirectiveKind::TvmBlockize: case DirectiveKind::TvmLoopPartition:
    case DirectiveKind::TvmPadEinsum: return 5;
  }
  return 0;
}
// Halide's own directives are the kinds from Rfactor on (ast.hpp lists them last).
// Outside fig. 2.11: Halide's own directives and TVM's (ast.hpp lists them last).
bool is_halide_only(DirectiveKind k) { return k >= DirectiveKind::Rfactor; }
bool is_tvm_only(DirectiveKind k) { return k >= DirectiveKind::TvmReverseComputeAt; }
bool is_halide_only(TailStrategy t) {
  return t != TailStrategy::Guard && t != TailStrategy::Shift && t != TailStrategy::Round;
}
bool is_halide_only(const Directive& d) {
  return is_halide_only(d.kind) || d.on_intermediate || d.on_atomic ||
         (d.kind == DirectiveKind::Split && is_halide_only(d.tail));
}
bool in_formal_part(const Directive& d) { return !is_halide_only(d.kind) && !d.on_intermediate && !d.on_atomic; }

const std::vector<std::string>& halide_autoscheduler_names() {
  static const std::vector<std::string> names{"Mullapudi2016", "Li2018", "Adams2019", "Anderson2021"};
  return names;
}

bool use_autoscheduler(Program& prog, const std::string& name, SourceLoc at) {
  bool replaced = prog.schedule.has_value() &&
                  !(prog.schedule_mode == ScheduleMode::Autoscheduler && prog.autoscheduler == name);
  prog.schedule_mode = ScheduleMode::Autoscheduler;
  prog.autoscheduler = name;
  prog.autoscheduler_loc = at;
  prog.schedule.emplace();
  prog.halide_roots.clear();
  return replaced;
}

std::string autoscheduler_plugin_name(const std::string& name) {
  std::string lower = name;
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

std::optional<std::string> canonical_autoscheduler(const std::string& name) {
  for (const std::string& n : halide_autoscheduler_names())
    if (name == n || name == autoscheduler_plugin_name(n)) return n;
  return std::nullopt;
}

namespace {
bool same_opt(const Expr& a, const Expr& b) { return (!a && !b) || (a && b && same_expr(a, b)); }

bool same_update(const UpdateStage& a, const UpdateStage& b) {
  if (a.rdom.size() != b.rdom.size() || a.explicit_rdom != b.explicit_rdom) return false;
  for (size_t i = 0; i < a.rdom.size(); ++i)
    if (!(a.rdom[i].name == b.rdom[i].name) || !same_expr(a.rdom[i].min, b.rdom[i].min) ||
        !same_expr(a.rdom[i].len, b.rdom[i].len))
      return false;
  return same_exprs(a.lhs, b.lhs) && same_expr(a.value, b.value) && same_opt(a.predicate, b.predicate);
}

bool same_boundary(const std::optional<BoundaryCondition>& a, const std::optional<BoundaryCondition>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  if (a->kind != b->kind || !(a->source == b->source) || !same_opt(a->value, b->value) ||
      a->bounds.size() != b->bounds.size())
    return false;
  for (size_t i = 0; i < a->bounds.size(); ++i)
    if (!same_expr(a->bounds[i].first, b->bounds[i].first) || !same_expr(a->bounds[i].second, b->bounds[i].second))
      return false;
  return true;
}

bool same_func(const FuncDef& a, const FuncDef& b) {
  if (!(a.name == b.name) || a.vars != b.vars || !same_expr(a.pure, b.pure) || a.implicit_pure != b.implicit_pure ||
      a.updates.size() != b.updates.size() || a.declared != b.declared || a.type != b.type ||
      !same_boundary(a.boundary, b.boundary))
    return false;
  for (size_t i = 0; i < a.updates.size(); ++i)
    if (!same_update(a.updates[i], b.updates[i])) return false;
  return true;
}

bool same_directive(const Directive& a, const Directive& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case DirectiveKind::Specialize:
      return a.func == b.func && same_exprs(a.exprs, b.exprs);
    case DirectiveKind::Split:
      return a.loop == b.loop && a.names == b.names && same_exprs(a.exprs, b.exprs) && a.tail == b.tail &&
             a.tail_auto == b.tail_auto;
    case DirectiveKind::Fuse: return a.loop == b.loop && a.names == b.names;
    case DirectiveKind::Swap: return a.loop == b.loop;
    case DirectiveKind::Traverse: return a.loop == b.loop && a.order == b.order;
    case DirectiveKind::ComputeAt: case DirectiveKind::StoreAt: return a.func == b.func && a.loop == b.loop;
    case DirectiveKind::Bound: case DirectiveKind::BoundExtent: case DirectiveKind::AlignBounds:
    case DirectiveKind::FoldStorage: case DirectiveKind::ReorderStorage: case DirectiveKind::AlignStorage:
    case DirectiveKind::BoundStorage: case DirectiveKind::AlignExtent: case DirectiveKind::RingBuffer:
      return a.func == b.func && a.names == b.names && same_exprs(a.exprs, b.exprs);
    case DirectiveKind::Partition: return a.loop == b.loop && a.names == b.names;
    case DirectiveKind::Unscheduled: case DirectiveKind::AllowRaceConditions: return a.loop == b.loop;
    case DirectiveKind::SpecializeFail: return a.func == b.func && a.message == b.message;
    case DirectiveKind::In: case DirectiveKind::CloneIn: return a.func == b.func && a.names == b.names;
    case DirectiveKind::Rfactor: return a.loop == b.loop && a.names == b.names;
    case DirectiveKind::ComputeWith: return a.loop == b.loop && a.with == b.with;
    case DirectiveKind::Async: case DirectiveKind::ComputeInline: case DirectiveKind::Memoize:
    case DirectiveKind::HoistStorageRoot: return a.func == b.func;
    case DirectiveKind::HoistStorage: return a.func == b.func && a.loop == b.loop;
    case DirectiveKind::Atomic: return a.loop == b.loop;
    case DirectiveKind::Prefetch: return a.loop == b.loop && a.func == b.func && a.names == b.names && same_exprs(a.exprs, b.exprs);
    case DirectiveKind::StoreIn: return a.func == b.func && a.names == b.names;
    case DirectiveKind::TvmReverseComputeAt: return a.func == b.func && a.loop == b.loop;
    case DirectiveKind::TvmReverseComputeInline: return a.func == b.func;
    case DirectiveKind::TvmCacheRead: return a.loop == b.loop && a.func == b.func;
    case DirectiveKind::TvmCacheWrite: case DirectiveKind::TvmDecomposeReduction: case DirectiveKind::TvmBlockize:
      return a.loop == b.loop;
    case DirectiveKind::TvmSplitUnpredicated: case DirectiveKind::TvmLoopPartition: case DirectiveKind::TvmPadEinsum:
      return a.loop == b.loop && a.names == b.names && same_exprs(a.exprs, b.exprs);
  }
  return false;
}
}  // namespace

bool same_program(const Program& a, const Program& b) {
  const Pipeline &p = a.pipeline, &q = b.pipeline;
  if (!(p.name == q.name) || p.params != q.params || p.funcs.size() != q.funcs.size()) return false;
  if (p.typed != q.typed) return false;
  for (size_t i = 0; i < p.params.size(); ++i)
    if (p.declared_param_type(i) != q.declared_param_type(i)) return false;
  for (size_t i = 0; i < p.funcs.size(); ++i)
    if (!same_func(p.funcs[i], q.funcs[i])) return false;
  if (p.inputs.size() != q.inputs.size()) return false;
  for (size_t i = 0; i < p.inputs.size(); ++i)
    if (!(p.inputs[i].name == q.inputs[i].name) || p.inputs[i].vars != q.inputs[i].vars ||
        p.inputs[i].declared != q.inputs[i].declared || p.inputs[i].type != q.inputs[i].type)
      return false;
  if (a.schedule.has_value() != b.schedule.has_value()) return false;
  if (a.schedule_mode != b.schedule_mode || a.autoscheduler != b.autoscheduler) return false;
  if (a.halide_roots != b.halide_roots) return false;
  if (a.schedule) {
    if (a.schedule->size() != b.schedule->size()) return false;
    for (size_t i = 0; i < a.schedule->size(); ++i)
      if (!same_directive((*a.schedule)[i], (*b.schedule)[i])) return false;
  }
  if (a.realize.has_value() != b.realize.has_value()) return false;
  if (a.realize) {
    const auto &r = *a.realize, &s = *b.realize;
    if (r.window != s.window || r.params.size() != s.params.size() || r.inputs != s.inputs) return false;
    for (size_t i = 0; i < r.params.size(); ++i)
      if (!(r.params[i].name == s.params[i].name) || r.params[i].value != s.params[i].value) return false;
  }
  return true;
}

// ---------------------------------------------------------------- traversals
// Every pass that walks expressions with these answers to --timeout (command_budget.hpp).
void ExprVisitor::visit(const Expr& e) {
  tick_command_budget();
  switch (e->kind) {
    case ExprKind::Const: visit_const(as<ConstNode>(e)); break;
    case ExprKind::Var: visit_var(as<VarNode>(e)); break;
    case ExprKind::Call: visit_call(as<CallNode>(e)); break;
    case ExprKind::Op: visit_op(as<OpNode>(e)); break;
    case ExprKind::Hole: visit_hole(as<HoleNode>(e)); break;
  }
}
void ExprVisitor::visit_call(const CallNode& n) {
  for (const auto& a : n.args) visit(a);
}
void ExprVisitor::visit_op(const OpNode& n) {
  for (const auto& a : n.args) visit(a);
}

Expr ExprMutator::mutate(const Expr& e) {
  tick_command_budget();
  switch (e->kind) {
    case ExprKind::Const: return mutate_const(e);
    case ExprKind::Var: return mutate_var(e);
    case ExprKind::Call: return mutate_call(e);
    case ExprKind::Op: return mutate_op(e);
    case ExprKind::Hole: return mutate_hole(e);
  }
  return e;
}

namespace {
// Mutates each child; returns true when any changed.
bool mutate_all(ExprMutator& m, const std::vector<Expr>& in, std::vector<Expr>& out,
                Expr (ExprMutator::*fn)(const Expr&)) {
  bool changed = false;
  out.reserve(in.size());
  for (const auto& a : in) {
    out.push_back((m.*fn)(a));
    changed |= out.back() != a;
  }
  return changed;
}
}  // namespace

Expr ExprMutator::mutate_call(const Expr& e) {
  const auto& n = as<CallNode>(e);
  std::vector<Expr> args;
  if (!mutate_all(*this, n.args, args, &ExprMutator::mutate)) return e;
  return make_call(n.func, std::move(args), n.loc, n.label, n.type);
}
// A rebuilt operator keeps its type (and an implicit cast stays implicit); the sugar of
// clamp and abs is forgotten, as ast.hpp says.
Expr ExprMutator::mutate_op(const Expr& e) {
  const auto& n = as<OpNode>(e);
  std::vector<Expr> args;
  if (!mutate_all(*this, n.args, args, &ExprMutator::mutate)) return e;
  OpSugar keep = n.sugar == OpSugar::ImplicitCast ? n.sugar : OpSugar::None;
  return std::make_shared<OpNode>(n.op, std::move(args), n.loc, keep, n.type);
}

Expr rename_vars(const Expr& e, const std::map<std::string, std::string>& names) {
  struct Renamer : ExprMutator {
    const std::map<std::string, std::string>& names;
    explicit Renamer(const std::map<std::string, std::string>& n) : names(n) {}
    Expr mutate_var(const Expr& e) override {
      const auto& n = as<VarNode>(e);
      auto it = names.find(n.name);
      return it == names.end() ? e : make_var(it->second, n.loc, n.type);
    }
  } r(names);
  return e && !names.empty() ? r.mutate(e) : e;
}

const Value* Substitution::find(const std::string& name) const {
  for (const auto& [n, v] : bindings)
    if (n == name) return &v;
  return nullptr;
}

namespace {
class Substituter : public ExprMutator {
 public:
  explicit Substituter(const Substitution& s) : s_(s) {}

 protected:
  Expr mutate_var(const Expr& e) override {
    const auto& n = as<VarNode>(e);
    if (const Value* v = s_.find(n.name)) return make_const(*v, n.loc, n.type);
    return e;
  }

 private:
  const Substitution& s_;
};

class Occurs : public ExprVisitor {
 public:
  explicit Occurs(const std::string& n) : name(n) {}
  const std::string& name;
  bool found = false;

 protected:
  void visit_var(const VarNode& n) override { found |= n.name == name; }
};
}  // namespace

Expr substitute(const Expr& e, const Substitution& s) {
  Substituter sub(s);
  return sub.mutate(e);
}

bool occurs(const Expr& e, const std::string& name) {
  Occurs o(name);
  o.visit(e);
  return o.found;
}

bool reads_func(const Expr& e, const std::string& f) {
  struct Reads : ExprVisitor {
    const std::string& f;
    bool found = false;
    explicit Reads(const std::string& g) : f(g) {}
    void visit_call(const CallNode& n) override {
      found = found || n.func == f;
      ExprVisitor::visit_call(n);
    }
  } r(f);
  if (e) r.visit(e);
  return r.found;
}

bool is_pure_dimension(const FuncDef& f, const std::vector<Expr>& lhs, size_t j) {
  return j < f.vars.size() && j < lhs.size() && lhs[j]->kind == ExprKind::Var &&
         as<VarNode>(lhs[j]).name == f.vars[j].text;
}

std::vector<StageLoop> initial_stage_loops(const FuncDef& f, size_t stage) {
  std::vector<StageLoop> loops;
  if (stage > 0) {
    const UpdateStage& u = f.updates[stage - 1];
    for (size_t k = 0; k < u.rdom.size(); ++k) loops.push_back({u.rdom[k].name.text, true, k});
  }
  for (size_t j = 0; j < f.vars.size(); ++j)
    if (stage == 0 || is_pure_dimension(f, f.updates[stage - 1].lhs, j)) loops.push_back({f.vars[j].text, false, j});
  return loops;
}

}  // namespace halo

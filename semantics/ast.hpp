// Syntax trees of the algorithm language (fig. 2.5), its schedule (fig. 2.11) and its
// realization, plus the expression language shared with the target language (fig. 2.7).
//
// Expressions are small immutable nodes behind shared pointers, as in Halide's IR.h:
// passes never modify a node, they build new ones (see ExprMutator), so subtrees can be
// shared freely between the algorithm, substitutions, derivations and lowered programs.
// Every node carries the source location it came from; nodes built by a pass inherit
// the location of the node they replace.
#pragma once

#include "support/command_budget.hpp"
#include "support/diagnostics.hpp"
#include "semantics/type.hpp"
#include "semantics/value.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace halo {

// Hole exists only in Tgt? programs (fig. 2.7); the algorithm language never contains one.
enum class ExprKind : uint8_t { Const, Var, Call, Op, Hole };

struct ExprNode {
  ExprKind kind;
  // ℤ in a program without types; one of Halide's types in a typed one (type.hpp), set by
  // the typing pass (typing.hpp) as Halide's Expr carries its Type.
  Type type;
  SourceLoc loc;
  virtual ~ExprNode() { release_expr_node(); }

 protected:
  // Every node is charged to the command's memory budget while it lives
  // (command_budget.hpp): a runaway fill stops at --max-memory.
  ExprNode(ExprKind k, SourceLoc l, Type t = {}) : kind(k), type(t), loc(l) { charge_expr_node(); }
  ExprNode(const ExprNode& o) : kind(o.kind), type(o.type), loc(o.loc) { charge_expr_node(); }
  ExprNode& operator=(const ExprNode&) = default;
};
using Expr = std::shared_ptr<const ExprNode>;

// A constant c ∈ V. The surface syntax only has integers; error constants appear when
// the derivation evaluator substitutes evaluated values into terms.
struct ConstNode final : ExprNode {
  Value value;
  ConstNode(Value v, SourceLoc l, Type t = {}) : ExprNode(ExprKind::Const, l, t), value(std::move(v)) {}
};

// A pure, reduction or parameter variable (the kind follows from the binding site).
struct VarNode final : ExprNode {
  std::string name;
  VarNode(std::string n, SourceLoc l, Type t = {}) : ExprNode(ExprKind::Var, l, t), name(std::move(n)) {}
};

// The label f^{i,j} of a func reference or store in the target language (§2.6): the stage
// i of f whose compute bounds the access is checked against (for a self-reference, the
// previous stage; for another func, its last stage) and the specialization j (kShared when
// the hole is the last stage's, which all specializations share, Def. 2.14).
struct FuncLabel {
  static constexpr int64_t kNone = -1;    // unlabelled: an algorithm-language access
  static constexpr int64_t kShared = -2;  // the last stage's hole, common to all specializations
  int64_t stage = kNone;
  int64_t spec = kNone;
  bool labelled() const { return stage != kNone; }
  bool operator==(const FuncLabel& o) const { return stage == o.stage && spec == o.spec; }
};

// A func access f[e1, ..., en] (algorithm) or f^{i,j}[e1, ..., en] (target: a buffer read).
struct CallNode final : ExprNode {
  std::string func;
  std::vector<Expr> args;
  FuncLabel label;
  CallNode(std::string f, std::vector<Expr> a, SourceLoc l, FuncLabel lab = {}, Type t = {})
      : ExprNode(ExprKind::Call, l, t), func(std::move(f)), args(std::move(a)), label(lab) {}
};

// clamp(e, lo, hi) and abs(e), the expression sugar Halide users type, are built from fig.
// 2.5b's operators: clamp is max(min(e, hi), lo) and abs is max(e, -e). The outer node
// remembers the spelling only so that the printer writes it back as written; every pass
// sees the operators, and a pass that rebuilds the node forgets the spelling. (In a typed
// program abs is Halide's Op::Abs, whose result is unsigned.) A cast the typing pass
// inserts where Halide's coercion rules do (match_types) is ImplicitCast: the printer
// writes its operand alone, as the user wrote it.
enum class OpSugar : uint8_t { None, Clamp, Abs, ImplicitCast };

// op(e1, ..., ek) for every operator of fig. 2.5b and of Halide (arity fixed by op_arity).
// A Cast or SaturatingCast casts to the node's type.
struct OpNode final : ExprNode {
  Op op;
  std::vector<Expr> args;
  OpSugar sugar = OpSugar::None;
  OpNode(Op o, std::vector<Expr> a, SourceLoc l, OpSugar s = OpSugar::None, Type t = {})
      : ExprNode(ExprKind::Op, l, t), op(o), args(std::move(a)), sugar(s) {}
};

// A labelled bounds hole ?ℓ (Def. 2.14): allocation (mem) or compute (cpu), the min or the
// len of the interval, the func and the dimension (named by the func's pure variable),
// and, for cpu holes, the stage and the specialization (FuncLabel::kShared for the last
// stage). Text form: ?mem<f, x>.min, ?cpu<f, spec, stage, x>.len (spec `*` when shared).
enum class HoleKind : uint8_t { Mem, Cpu };
struct HoleLabel {
  HoleKind kind = HoleKind::Mem;
  bool is_len = false;  // min or len
  std::string func;
  std::string var;
  int64_t stage = FuncLabel::kNone;  // cpu only
  int64_t spec = FuncLabel::kNone;   // cpu only
  bool operator==(const HoleLabel& o) const {
    return kind == o.kind && is_len == o.is_len && func == o.func && var == o.var && stage == o.stage &&
           spec == o.spec;
  }
  bool operator<(const HoleLabel& o) const;
  std::string to_string() const;  // the text form
};

struct HoleNode final : ExprNode {
  HoleLabel label;
  // Int(32) in a typed target program (docs/types.md), ℤ otherwise.
  HoleNode(HoleLabel lab, SourceLoc l, Type t = {}) : ExprNode(ExprKind::Hole, l, t), label(std::move(lab)) {}
};

// Constructors (IROperator.h in Halide).
Expr make_const(Value v, SourceLoc l = {}, Type t = {});
Expr make_var(std::string name, SourceLoc l = {}, Type t = {});
Expr make_call(std::string func, std::vector<Expr> args, SourceLoc l = {}, FuncLabel label = {}, Type t = {});
Expr make_hole(HoleLabel label, SourceLoc l = {}, Type t = {});
Expr make_op(Op op, std::vector<Expr> args, SourceLoc l = {}, Type t = {});
Expr make_cast(Type t, Expr e, SourceLoc l = {}, OpSugar sugar = OpSugar::None);  // cast<t>(e)
// The same node with another type (the typing pass types what the parser built).
Expr with_type(const Expr& e, Type t);
Expr make_clamp(Expr e, Expr lo, Expr hi, SourceLoc l = {});  // max(min(e, hi), lo), printed clamp(e, lo, hi)
Expr make_abs(Expr e, SourceLoc l = {});                      // max(e, -e), printed abs(e)

template <typename T>
const T& as(const Expr& e) { return static_cast<const T&>(*e); }

// Structural equality, ignoring source locations.
bool same_expr(const Expr& a, const Expr& b);

// ---------------------------------------------------------------- the algorithm
struct Name {
  std::string text;
  SourceLoc loc;
  bool operator==(const Name& o) const { return text == o.text; }  // location-blind
};

// r = (min, len): one dimension of an rdom.
struct RVar {
  Name name;
  Expr min, len;
};

// R in (e1, ..., en) <- value if predicate. `predicate` is null when absent (≡ if 1).
// `explicit_rdom` records whether the source wrote `rdom(...) in`, so that printing
// keeps the author's form; it does not affect the semantics.
struct UpdateStage {
  std::vector<RVar> rdom;
  std::vector<Expr> lhs;
  Expr value;
  Expr predicate;
  bool explicit_rdom = true;
  SourceLoc loc;
};

// Halide's BoundaryConditions (src/BoundaryConditions.h) as the whole definition of a func:
// `fun g(x, y) = repeat_edge(img)`. The func's pure stage is Halide's formula for it (built by
// expand_boundary, semantics/boundary.hpp); the condition is kept so that the printer writes
// it back as written and the Halide translation calls Halide's own function.
enum class BoundaryKind : uint8_t { RepeatEdge, ConstantExterior, RepeatImage, MirrorImage, MirrorInterior };
struct BoundaryCondition {
  BoundaryKind kind = BoundaryKind::RepeatEdge;
  Name source;                                 // a func or an input buffer
  Expr value;                                  // constant_exterior's value; null otherwise
  std::vector<std::pair<Expr, Expr>> bounds;   // (min, extent) of the leading dimensions
  // No bounds written and the source is an input: its buffer's (Halide's overload taking a
  // Buffer or ImageParam), i.e. img.dim(k).min() and img.dim(k).extent() for every k.
  bool buffer_bounds() const { return bounds.empty(); }
  SourceLoc loc;
};
const char* boundary_name(BoundaryKind k);
// sum, product, maximum, minimum (Halide's inline reductions) as the operator that folds them.
std::optional<Op> inline_reduction_kind(std::string_view word);
// The fold's starting value in type t (0, 1, t's least, t's greatest), as Halide starts it.
Value inline_reduction_identity(Op op, Type t);
std::optional<BoundaryKind> boundary_kind(std::string_view name);

struct FuncDef {
  Name name;
  // `fun f(x) : u8 = ...`: the value type as written (Halide's Func type), if written;
  // `type` is the value type of every stage (ℤ in a program without types).
  std::optional<Type> declared;
  Type type;
  std::vector<Name> vars;
  Expr pure;  // U0
  std::vector<UpdateStage> updates;  // U1 .. Um
  std::optional<BoundaryCondition> boundary;  // `= repeat_edge(...)`: pure is its formula
  // Lifted from an inline reduction (sum: Add, product: Mul, maximum: Max, minimum: Min)
  // while parsing: the typing pass gives its identity the type of the reduced expression.
  // Not part of the program's meaning once typed (same_program ignores it).
  std::optional<Op> inline_reduction;
  // Halide's implicit pure definition: the func's first definition is an update
  // `(lhs) <- f[lhs] op e`, Halide's `f(lhs) op= e` (op + - * /), and `pure` is op's identity
  // (0 for + and -, 1 for * and /), as Halide's FuncRef::operator+= and its siblings define
  // it (Func.h, v21: "If the function does not already have a pure definition, this sets it
  // to zero", for += and -=; "to 1" for *= and /=). Printed without its pure stage;
  // `--target halide` writes `op=` with no pure definition, so that Halide makes its own.
  std::optional<Op> implicit_pure;
  SourceLoc loc;
  size_t stage_count() const { return 1 + updates.size(); }
};

// The operator of Halide's `f(lhs) op= e` that an update of f spells (lhs) <- f[lhs] op e
// (op + - * /), if it does: the parser makes such a first stage f's implicit pure
// definition, and validity keeps every program that has one in that form (a reduction of
// a finding may not rewrite it into another).
std::optional<Op> compound_update_op(const FuncDef& f, const UpdateStage& u);
// The pure definition Halide gives a func whose first definition is `f(lhs) op= e`: op's
// identity, 1 for * and /, 0 for + and - (Func.h, FuncRef::operator+= and its siblings).
Value implicit_pure_identity(Op op);

// An input buffer (Halide's ImageParam, Input<Buffer<T>>): n-dimensional, of one type, its
// box and contents given by the realization (`with img = image("photo.png")`). It is read
// like a func, img[e1, ..., en]; a read outside its buffer is ε_mem (Theorem 2.1), and the
// lowered program checks at startup that the buffer covers the region it reads, as Halide
// does (docs/inputs.md).
struct InputDef {
  Name name;
  std::vector<Name> vars;  // one per dimension; they only name the dimensions
  std::optional<Type> declared;
  Type type;  // ℤ in a program without types
  SourceLoc loc;
  size_t dims() const { return vars.size(); }
};

// The buffer geometry of input `img` in expressions: Halide's img.dim(k).min() and
// img.dim(k).extent() are the variables "img.min.k" and "img.extent.k" (Halide's own names
// for them), bound with the parameters by the realization; no written name contains '.'.
std::string buffer_min_var(const std::string& input, size_t dim);
std::string buffer_extent_var(const std::string& input, size_t dim);
// (input, dim, is_extent) of a geometry variable; nullopt for any other name.
struct BufferGeometryVar {
  std::string input;
  size_t dim = 0;
  bool extent = false;
};
std::optional<BufferGeometryVar> split_buffer_var(const std::string& name);

// Def. 2.8: dimension j of a stage whose left-hand side is `lhs` is pure when e_j is x_j
// (stage 0's left-hand side is x̄ itself).
bool is_pure_dimension(const FuncDef& f, const std::vector<Expr>& lhs, size_t j);

// The loops L(P) gives stage i of f before any directive (fig. 2.9), innermost first: the
// rdom's loops, r1 innermost (L_R), inside one loop per pure dimension, x1 innermost
// (L_P). Lowering builds exactly this nest; the schedule vocabulary's model and the
// Halide translation start from it.
struct StageLoop {
  std::string name;
  bool rdom = false;
  size_t index = 0;  // k of r_k, or j of x_j
};
std::vector<StageLoop> initial_stage_loops(const FuncDef& f, size_t stage);

struct Pipeline {
  Name name;  // the output func
  std::vector<Name> params;
  // `pipeline f(w : u8)`: each parameter's type as written (parallel to params; nullopt
  // where none is written: Int(32) in a typed program, like a Param<int>).
  std::vector<std::optional<Type>> param_types;
  // Whether the program writes any of Halide's types (docs/types.md): then pure variables,
  // untyped parameters and integer literals are Int(32), as in Halide.
  bool typed = false;
  Type param_type(size_t i) const;                          // ℤ, the written type, or Int(32)
  std::optional<Type> declared_param_type(size_t i) const;  // as written (nullopt: none)
  std::vector<FuncDef> funcs;
  std::vector<InputDef> inputs;  // in declaration order
  SourceLoc loc;
  const FuncDef* find(const std::string& f) const;
  const InputDef* find_input(const std::string& name) const;
  const FuncDef& output() const { return funcs.back(); }
};

// ---------------------------------------------------------------- the schedule
struct LoopName {  // <func, specialization, stage, var>
  // `<f, *, i, v>`: the loop v of stage i in every specialization of f, which only
  // compute_at accepts (semantics decision 19: the producer is computed in each copy).
  static constexpr int64_t kEverySpec = -1;
  // `compute_at(g, f, y)`: Halide's LoopLevel(f, y), which names no stage. The schedule's
  // expansion (schedule_vocabulary.hpp) resolves it to the first stage of f with a loop y,
  // where Halide computes g, in every specialization of f for compute_at.
  static constexpr int64_t kAnyStage = -2;
  Name func;
  int64_t spec = 0;
  int64_t stage = 0;
  Name var;
  SourceLoc loc;
  bool operator==(const LoopName& o) const {
    return func == o.func && spec == o.spec && stage == o.stage && var == o.var;
  }
};

// A qualified loop variable (Lemma 2.4's loop name used as the binder, Halide's f.s0.x):
// lowering binds the loop <f, j, i, x> to the variable spelled exactly as that loop name,
// "<f, j, i, x>", and substitutes it for x in the stage, so that the loops of different
// funcs, specializations and stages never bind the same variable (docs/semantics-decisions.md,
// "Qualified loop variables"). Parameters, window variables and hand-written lets keep
// plain names, which can never start with '<'.
std::string qualified_var(const std::string& func, int64_t spec, int64_t stage, const std::string& var);
std::string qualified_var(const LoopName& l);
bool is_qualified_var(const std::string& name);
// The <func, spec, stage, var> of a qualified variable; nullopt for a plain name.
std::optional<LoopName> split_qualified_var(const std::string& name);
// The variable a name shows to a reader: x for "<f, 0, 0, x>", the name itself otherwise.
std::string short_var(const std::string& name);

enum class DirectiveKind : uint8_t {
  Specialize, Split, Fuse, Swap, Traverse, ComputeAt, StoreAt, Bound, BoundExtent, AlignBounds,
  // Halide's default placement, which the thesis leaves out: f substituted into its
  // consumers (schedule/inline.cpp, docs/semantics-decisions.md "compute_inline").
  ComputeInline,
  // Halide's own directives, outside fig. 2.11 (docs/halide.md, "Halide-only directives"):
  // only `--target halide` runs them; halo's own lowering rejects them.
  Rfactor, ComputeWith, FoldStorage, Async, HoistStorage,
  // Halide's calls that change where or how a func is kept or fetched, never its values:
  // atomic updates, prefetching, memoization, the memory a func is stored in, and storage
  // hoisted to the root (docs/halide.md, "Halide-only directives").
  Atomic, Prefetch, Memoize, StoreIn, HoistStorageRoot,
  // ... and the rest of Halide's Func and Stage calls that run on a CPU: a storage layout
  // (dimension order, alignment, a fixed size, a ring buffer), the extent a func is computed
  // on rounded up, a loop's partitioning policy, a stage marked as left unscheduled, races
  // allowed, and a specialization that fails (docs/halide.md, "Halide-only directives").
  ReorderStorage, AlignStorage, BoundStorage, AlignExtent, RingBuffer, Partition, Unscheduled,
  AllowRaceConditions, SpecializeFail,
  // Halide's wrappers: a new func w(vars) = f(vars) that replaces f in the consumers named
  // (all of them when none is), which the schedule then places and schedules like any func
  // (Func::in, Func::clone_in; docs/halide.md, "Wrappers").
  In, CloneIn,
  // TVM's own schedule primitives (tvm.s_tir.Schedule; docs/tvm.md, "TVM's own primitives"):
  // only `--target tvm` runs them; halo's own lowering and `--target halide` refuse them.
  // A consumer computed at a loop of its producer, a consumer inlined into its producer,
  // a stage reading (or writing) a func through a cache block, a reduction's init split
  // into its own block, a split without the predicate that guards its tail, a loop nest
  // made a block of its own, a loop partitioned, a stage's iteration space padded.
  TvmReverseComputeAt, TvmReverseComputeInline, TvmCacheRead, TvmCacheWrite, TvmDecomposeReduction,
  TvmSplitUnpredicated, TvmBlockize, TvmLoopPartition, TvmPadEinsum
};
// TVM's own primitives are the kinds from TvmReverseComputeAt on.
bool is_tvm_only(DirectiveKind k);
// guard, shift, round are fig. 2.11's; the predicate tails and auto are Halide's only.
enum class TailStrategy : uint8_t { Guard, Shift, Round, Predicate, PredicateLoads, PredicateStores, Auto };
enum class Traversal : uint8_t { Serial, Parallel, Vectorized, Unrolled };

const char* directive_name(DirectiveKind k);
// store_in's memory types that mean something on a CPU (Halide's MemoryType: Auto, Heap,
// Stack, Register; the others are a GPU's or an accelerator's).
bool is_cpu_memory_type(std::string_view name);
// partition's policies (Halide's Partition: Auto, Never, Always).
bool is_partition_policy(std::string_view name);
const char* tail_name(TailStrategy t);
const char* traversal_name(Traversal t);
// Phase of fig. 2.11: 0 specialize, 1 loops, 2 compute, 3 storage, 4 bounds. Halide's own
// directives take the phase of the directive they resemble (rfactor a loop directive,
// compute_with and async compute, fold_storage and hoist_storage storage).
int directive_phase(DirectiveKind k);
// A directive outside fig. 2.11: one of Halide's own, a split with one of Halide's tails,
// or any directive scheduling the intermediate func of a named rfactor.
bool is_halide_only(DirectiveKind k);
bool is_halide_only(TailStrategy t);
bool is_halide_only(const struct Directive& d);
// Whether halo's formal side applies d (schedule/schedule.cpp, formal_part): fig. 2.11's
// directives and a split with a Halide tail (read as guard); not Halide's own directives,
// nor a directive on an rfactor intermediate, which exists in Halide only.
bool in_formal_part(const struct Directive& d);

// One directive; which fields are meaningful depends on `kind`:
//   specialize(func, exprs...)          split(loop, names[0], names[1], exprs[0], tail)
//   fuse(loop, names[0])                swap(loop)          traverse(loop, order)
//   compute_at(func, loop)              store_at(func, loop)           compute_inline(func)
//   bound(func, names[0], exprs[0], exprs[1])    bound_extent(func, names[0], exprs[0])
//   align_bounds(func, names[0], exprs[0], exprs[1])
// and Halide's own:
//   rfactor(loop, names[0][, names[1]]) compute_with(loop, with)
//   fold_storage(func, names[0], exprs[0])       async(func)     hoist_storage(func, loop)
//   atomic(loop: a stage <f, j, i>, var empty)  prefetch(loop, func, names[0] = from, exprs[0] = offset)
//   memoize(func)   store_in(func, names[0] = memory)   hoist_storage_root(func)
//   reorder_storage(func, names...)     align_storage / bound_storage / align_extent(func, names[0], exprs[0])
//   ring_buffer(func, exprs[0])         partition(loop, names[0] = auto|never|always)
//   unscheduled(loop: a stage)          allow_race_conditions(loop: a stage)
//   specialize_fail(func, message)
//   in / clone_in(func, names = the consumers, then the wrapper's name)
// and TVM's own:
//   tvm_reverse_compute_at(func, loop)  tvm_reverse_compute_inline(func)
//   tvm_cache_read(loop: a stage, func)  tvm_cache_write(loop: a stage)
//   tvm_decompose_reduction(loop)       tvm_split_unpredicated(loop, names[0], names[1], exprs[0])
//   tvm_blockize(loop)                  tvm_loop_partition(loop, exprs...)
//   tvm_pad_einsum(loop: a stage, exprs = the padding of each pure dimension, x1 first)
struct Directive {
  DirectiveKind kind = DirectiveKind::Swap;
  Name func;
  LoopName loop;
  LoopName with;  // compute_with: the stage and loop computed with
  std::vector<Name> names;
  std::vector<Expr> exprs;
  TailStrategy tail = TailStrategy::Guard;
  Traversal order = Traversal::Serial;
  std::string message;  // specialize_fail: the error Halide reports, as written
  SourceLoc loc;
  // The call of Halide's vocabulary this directive was expanded from (tile, reorder,
  // vectorize, unroll, parallel: semantics/schedule_vocabulary.hpp), as written; empty for a
  // directive written as such. Only `halo schedule --steps` shows it.
  std::string sugar;
  // `schedule halide { }` (Program::schedule_mode): a split whose tail is Halide's `auto`,
  // written or left out, has tail_auto set and `tail` the strategy Halide resolves it to
  // (guard, shift or round), which halo applies; tail_note says why. A directive halo added
  // because Halide does so by default (compute_inline of an unscheduled func, store_at at the
  // compute_at level, ...) says why in default_note. Neither note changes the meaning; the
  // Halide translation leaves added directives to Halide and passes `auto` on. A directive
  // that means more to Halide than fig. 2.11 can say (compute_at at a loop of every
  // specialization, which Halide also stores there) says in formal_note what halo's formal
  // side does instead; the Halide translation runs it as written.
  bool tail_auto = false;
  std::string tail_note, default_note, formal_note;
  // The directive schedules a func one of Halide's calls made: the intermediate of a named
  // rfactor (`rfactor(<f, j, s, r>, u, intm)`) or a wrapper (`in(f, g, w)`, `clone_in`);
  // d.func or d.loop.func is that func. Halide's alone, set by the parser from the call
  // before it (semantics/parser.cpp, mark_made_funcs).
  bool on_intermediate = false;
  // A swap that Halide's call does by itself: `fuse(f, inner, outer, t)` of loops that are
  // not adjacent, which Halide's Stage::fuse makes adjacent by moving `outer` next to `inner`
  // (semantics/schedule_vocabulary.cpp). The formal side applies it; the Halide translation
  // emits no call for it (the fuse does it), and the printer leaves it to the fuse, which
  // then prints in Halide's form (its names[1] is `inner`).
  bool halide_implicit = false;
  // A parallel or vectorized traversal of a loop of a stage the schedule makes `atomic` or
  // lets race (`allow_race_conditions`): Halide's call is what allows it on a reduction loop
  // (a vector or parallel reduction), which fig. 2.11 refuses (Def. 2.16), so it is Halide's
  // alone, as the call is (set by the parser, semantics/parser.cpp, mark_atomic_traversals).
  bool on_atomic = false;
};

// ---------------------------------------------------------------- the realization
struct ParamBinding {
  Name name;
  Value value;
};
struct Interval {  // (min, len), constant
  Value min, len;
  SourceLoc loc;
  bool operator==(const Interval& o) const { return min == o.min && len == o.len; }
};
// `with img = image("photo.png")`, `npy("w.npy")` or `seeded(7) over (0, 64), (0, 48)`:
// where an input buffer's box and contents come from (interp/input_buffers.hpp).
enum class InputSourceKind : uint8_t { Image, Npy, Seeded };
struct InputBinding {
  Name name;
  InputSourceKind source = InputSourceKind::Seeded;
  std::string path;           // Image, Npy: as written (relative to the program's folder)
  Value seed;                 // Seeded
  std::vector<Interval> box;  // Seeded: the buffer's (min, extent) per dimension
  SourceLoc loc;
  bool operator==(const InputBinding& o) const {
    return name == o.name && source == o.source && path == o.path && seed == o.seed && box == o.box;
  }
};
struct Realization {
  std::vector<ParamBinding> params;
  std::vector<Interval> window;
  std::vector<InputBinding> inputs;
  SourceLoc loc;
};

// `schedule { }` means what the thesis says (fig. 2.9's root placement, guard tails, storage
// at the root); `schedule halide { }` means what Halide means (docs/halide-users.md,
// "Halide's defaults"): the defaults Halide applies are added to the schedule, marked;
// `schedule autoscheduler NAME { }` leaves the whole schedule to one of Halide's
// autoschedulers (docs/halide.md, "Autoschedulers"), which only `--target halide` runs.
enum class ScheduleMode : uint8_t { Thesis, Halide, Autoscheduler };

// Halide's autoschedulers by the names Halide registers them under, oldest first. A name
// is also accepted as its plugin spells it (the lower case of libautoschedule_adams2019.so);
// canonical_autoscheduler returns Halide's spelling, or nothing for an unknown name.
const std::vector<std::string>& halide_autoscheduler_names();
std::optional<std::string> canonical_autoscheduler(const std::string& name);
std::string autoscheduler_plugin_name(const std::string& name);  // "Adams2019" -> "adams2019"

// A whole .halo file.
struct Program {
  std::string file;
  ScheduleMode schedule_mode = ScheduleMode::Thesis;
  Pipeline pipeline;
  std::optional<std::vector<Directive>> schedule;
  // `schedule halide { }`: the funcs the writer placed at the root with Halide's
  // compute_root(f) / store_root(f) ("compute_root", f), in written order. Fig. 2.11 has no
  // directive for them (the formal default is the root), but in Halide's mode they keep a
  // func from being inlined, so the printed program says them again.
  std::vector<std::pair<std::string, std::string>> halide_roots;
  // ScheduleMode::Autoscheduler: Halide's name of the autoscheduler ("Adams2019"), and where
  // the file names it (its `schedule` keyword; nowhere when --autoscheduler put it there).
  std::string autoscheduler;
  SourceLoc autoscheduler_loc;
  // Set by `--autoscheduler` when it replaced a schedule written in the file: the sentence
  // every report of the case carries (the file's schedule is not what ran).
  std::string replaced_schedule;
  std::optional<Realization> realize;
};

// Makes Halide's autoscheduler `name` (Halide's spelling) the whole schedule of the program,
// as `schedule autoscheduler NAME { }` would. Returns whether it replaced a schedule section
// the program had (`--autoscheduler` says so in every report; the generator's own draw is
// not a replacement of anything written).
bool use_autoscheduler(Program& prog, const std::string& name, SourceLoc at = {});

// Structural equality of whole programs, ignoring source locations (parse∘print = id).
bool same_program(const Program& a, const Program& b);

// ---------------------------------------------------------------- traversals
// One visitor and one mutator for every pass over expressions (IRVisitor/IRMutator).
class ExprVisitor {
 public:
  virtual ~ExprVisitor() = default;
  void visit(const Expr& e);

 protected:
  virtual void visit_const(const ConstNode&) {}
  virtual void visit_var(const VarNode&) {}
  virtual void visit_call(const CallNode& n);  // default: visit the arguments
  virtual void visit_op(const OpNode& n);      // default: visit the operands
  virtual void visit_hole(const HoleNode&) {}
};

class ExprMutator {
 public:
  virtual ~ExprMutator() = default;
  Expr mutate(const Expr& e);

 protected:
  // Defaults rebuild a node only when a child changed, so unchanged subtrees stay shared.
  virtual Expr mutate_const(const Expr& e) { return e; }
  virtual Expr mutate_var(const Expr& e) { return e; }
  virtual Expr mutate_call(const Expr& e);
  virtual Expr mutate_op(const Expr& e);
  virtual Expr mutate_hole(const Expr& e) { return e; }
};

// [v/x]e for a set of simultaneous substitutions of constants for variables.
struct Substitution {
  std::vector<std::pair<std::string, Value>> bindings;
  const Value* find(const std::string& name) const;
};
Expr substitute(const Expr& e, const Substitution& s);

// e with every variable that `names` maps renamed (simultaneously).
Expr rename_vars(const Expr& e, const std::map<std::string, std::string>& names);

// Does variable `name` occur free in e?
bool occurs(const Expr& e, const std::string& name);

// Does e read func (or input) `f`, anywhere, also inside another read's arguments?
bool reads_func(const Expr& e, const std::string& f);

}  // namespace halo

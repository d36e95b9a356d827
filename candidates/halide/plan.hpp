// The Halide translation of a .halo program, as a small intermediate description with two
// back ends: jit.cpp builds it with Halide's C++ API and JIT-compiles it in-process (what
// differential testing runs), emit_cpp.cpp prints it as a standalone Halide C++ program
// (the reproducer of a finding). Translating once, into this description, is what makes
// the reproducer run exactly the pipeline the oracle judged.
//
// The mapping (docs/halide.md has the full table):
//  * every func is a Func over Int(32) with the func's pure variables as Vars; every update
//    stage is an update definition, its rdom an RDom (r1 = the RDom's first dimension,
//    Halide's innermost, as in fig. 2.9), its predicate RDom::where (or, for a stage
//    without reduction variables, select(p, value, f(lhs)): UPDATE-EVAL's strict select);
//  * an untyped program's values are ℤ in halo and Int(32) in Halide: comparisons and
//    logical operators give Bool in Halide, so the translation inserts the conversions
//    (x != 0, cast<int32_t>) that make every expression compute the same integer as
//    fig. 2.6 whenever every value fits in 32 bits (int32_model.hpp decides that);
//  * a typed program (docs/types.md) is translated with its own types: every expression
//    has the Halide type the typing pass gave it, literals are constants of that type,
//    casts and Halide's intrinsics are Halide's, and nothing is converted;
//  * the formal default schedule is every func computed and stored at the root (fig. 2.9),
//    Halide's is inlining: the description states compute_root().store_root() for every
//    func before the schedule's directives, each of which maps to one Halide call.
#pragma once

#include "interp/input.hpp"
#include "semantics/ast.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace halo::halide {

// An expression of the translation with its Halide type. In an untyped program that is
// Bool for comparisons and logical operators and Int(32) otherwise, Cast (to Int(32)) and
// ToBool (e != 0) being the conversions between the two; in a typed program it is the
// type the typing pass gave the halo expression.
struct HlExpr {
  // Input: a read of an ImageParam (name); BufferDim: its geometry, name.dim(rdom_dim).min()
  // (value 0) or .extent() (value 1).
  enum class Kind : uint8_t { Const, Param, Var, RVar, Call, Unary, Binary, Select, Cast, ToBool, Intrinsic, Input,
                              BufferDim };
  Kind kind = Kind::Const;
  Type type = Type::int_(32);
  Op op = Op::Add;        // Unary (Neg, Not, BitNot), Binary, Cast (Cast, SaturatingCast), Intrinsic
  int64_t value = 0;      // Const: the value; a u64 above INT64_MAX as its bit pattern, a float as its IEEE bits
  std::string name;       // Param, Var, Call: the halo name; RVar: the halo reduction variable
  int rdom_dim = -1;      // RVar: its dimension in the stage's RDom
  std::string rdom;       // RVar: the C++ name of the stage's RDom (cpp_rdom)
  std::vector<HlExpr> args;
};

struct HlRDom {
  std::string cpp_name;                             // cpp_rdom(func, stage)
  std::string halide_name;                          // the RDom's name; its RVars are NAME$x, NAME$y, ...
  std::vector<std::string> vars;                    // halo names, r1 first
  std::vector<std::pair<HlExpr, HlExpr>> ranges;    // (min, extent), as halo's (min, len)
};

struct HlStage {
  std::vector<HlExpr> lhs;        // pure stage: the func's Vars
  HlExpr value;
  std::optional<HlRDom> rdom;     // update stages with reduction variables
  std::optional<HlExpr> where;    // the predicate, as RDom::where (Bool)
  // The first update of a func with Halide's implicit pure definition: f(lhs) op= compound
  // (op: HlFunc::implicit_pure), Halide then adding the pure definition itself.
  std::optional<HlExpr> compound;
};

// A func defined by one of Halide's boundary conditions: Func f; f(vars) =
// BoundaryConditions::kind(source[, value][, bounds])(vars), Halide's own function (the
// stage's value is halo's formula, for the record).
struct HlBoundary {
  BoundaryKind kind = BoundaryKind::RepeatEdge;
  std::string source;
  bool source_is_input = false;
  std::optional<HlExpr> value;                    // constant_exterior
  std::vector<std::pair<HlExpr, HlExpr>> bounds;  // empty on an input: the ImageParam overload
};

// An input buffer: an ImageParam of its type and dimensions bound to a Buffer holding the
// realization's values over its box.
struct HlInput {
  std::string name;
  Type type = Type::int_(32);
  std::vector<std::pair<int32_t, int32_t>> box;  // (min, extent) per dimension
  std::vector<int64_t> values;                   // first dimension fastest; a u64 as its bit pattern
};

struct HlFunc {
  std::string name;
  Type type = Type::int_(32);     // the Func's value type
  std::vector<std::string> vars;
  std::vector<HlStage> stages;    // [0] is the pure definition
  std::optional<HlBoundary> boundary;
  bool is_output = false;
  // FuncDef::implicit_pure: stages[0] is not defined in Halide (Halide defines it); its
  // Vars are Halide's implicit ones, which no halo directive names.
  std::optional<Op> implicit_pure;
};

// A loop of a stage: a pure Var, an RDom dimension (rdom_dim >= 0), or a Var/RVar a split
// or fuse introduced.
struct HlLoop {
  std::string name;   // the halo loop variable
  bool rvar = false;
  int rdom_dim = -1;
  std::string rdom;   // rdom_dim >= 0: the C++ name of the RDom
};

// Which Halide Stage a call applies to: stage 0 is the Func itself, stage i the update
// f.update(i - 1); spec k >= 1 is the Stage that f.specialize(c_k) (or
// f.update(i - 1).specialize(c_k)) returned, spec 0 the default.
struct HlStageRef {
  std::string func;
  int64_t spec = 0;
  int64_t stage = 0;
};

// One Halide scheduling call.
struct HlCall {
  enum class Kind : uint8_t {
    ComputeRoot, StoreRoot,                   // the formal default, stated explicitly
    Specialize,                               // exprs[0] (Bool); creates the Stage `result`
    Split,                                    // loops = {old, outer, inner}, exprs[0] = factor, tail
    Fuse,                                     // loops = {inner, outer, fused}
    Reorder,                                  // loops = {new inner, new outer}
    Parallel, Vectorize, Unroll, Serial,      // loops = {v}
    ComputeAt, StoreAt,                       // func, at = consumer stage, loops = {v}
    Bound, BoundExtent, AlignBounds,          // func, loops = {pure var}, exprs as in halo
    // Halide's own directives (docs/halide.md, "Halide-only directives"):
    Rfactor,       // stage, loops = {the RVar, the new pure Var}; func: the intermediate's name, which
                   // later calls schedule, or empty: the intermediate is computed at the root
    ComputeWith,   // stage computed with stage `at`, fused down to loops[0] (a loop of `at`)
    FoldStorage,   // func, loops = {pure var}, exprs = {extent}
    Async,         // func
    HoistStorage,  // func, at, loops = {v} (Halide 19 and later)
    Atomic,            // stage (an update)
    Prefetch,          // stage prefetches func (a Func or an input) at loops[0] from loops[1], exprs[0] = offset
    Memoize,           // func
    StoreIn,           // func, memory (auto, heap, stack, register)
    HoistStorageRoot,  // func (Halide 19 and later)
    ReorderStorage,    // func, loops = its pure vars, innermost storage dimension first
    AlignStorage,      // func, loops = {pure var}, exprs = {alignment}
    BoundStorage,      // func, loops = {pure var}, exprs = {extent}
    AlignExtent,       // func, loops = {pure var}, exprs = {modulus}
    RingBuffer,        // func, exprs = {extent} (Halide 18 and later)
    Partition,         // stage, loops = {v}, text = auto | never | always (Halide 17 and later)
    Unscheduled,       // stage
    AllowRaceConditions,  // stage
    SpecializeFail,    // stage (every stage of the func, after its specializations), text = the message
    In, CloneIn,       // func wrapped, consumers (none: every consumer, In only), text = the wrapper's name
  };
  Kind kind = Kind::ComputeRoot;
  HlStageRef stage;                // loop calls and Specialize (the stage specialized)
  HlStageRef result;               // Specialize: the Stage it creates
  std::string func;                // ComputeRoot .. AlignBounds: the Func
  HlStageRef at;                   // ComputeAt / StoreAt: the consumer and its stage
  std::vector<HlLoop> loops;
  std::vector<HlExpr> exprs;
  TailStrategy tail = TailStrategy::Guard;
  std::string text;                // StoreIn: the memory type; Partition: the policy; SpecializeFail: the message
  bool of_input = false;           // Prefetch: func names an input buffer (an ImageParam)
  std::vector<std::string> consumers;  // In, CloneIn
  std::string origin;              // the halo directive, printed; empty for the defaults
};

const char* call_kind_name(HlCall::Kind k);

struct HlParam {
  std::string name;
  Type type = Type::int_(32);
  int64_t value = 0;  // under z; a u64 above INT64_MAX as its bit pattern
};

struct HalidePlan {
  std::string file;
  std::string output;                                 // the output func
  bool typed = false;                                 // the program is typed (docs/types.md)
  bool halide_mode = false;                           // `schedule halide { }`: Halide's defaults, not the formal one
  // `schedule autoscheduler NAME { }`: Halide's autoscheduler NAME chooses the schedule, which
  // is then empty (not even the formal default's compute_root calls: an autoscheduler
  // refuses or overwrites a scheduled func).
  std::string autoscheduler;
  std::vector<HlParam> params;
  std::vector<HlInput> inputs;                        // declaration order
  std::vector<HlFunc> funcs;                          // definition order
  std::vector<HlCall> schedule;                       // defaults first, then one or more calls per directive
  std::vector<std::pair<int32_t, int32_t>> window;    // R(z): (min, len) per output dimension
  std::vector<std::string> notes;                     // readings the translation took for this program
  const HlFunc* find(const std::string& f) const;
};

// Why a program cannot be translated under z, never a bug of either side: in an untyped
// program a constant, parameter, rdom bound or window bound outside Int(32) (out of the
// model, int32_model.hpp), or a schedule Halide cannot express (`not_expressible`).
struct TranslationError {
  std::string message;
  bool not_expressible = false;
};

// The parameters halo gives an autoscheduler (docs/halide.md, "Autoschedulers"): fixed, so
// that a case means the same schedule on every run and machine, and recorded in every
// verdict. Halide 19 and later take them as AutoschedulerParams::extra; Halide 14 takes
// parallelism, last_level_cache_size and balance as its MachineParams, and its Adams2019
// reads beam_size and random_dropout from the environment (HL_BEAM_SIZE, HL_RANDOM_DROPOUT).
std::map<std::string, std::string> autoscheduler_params(const std::string& name);
// One of those parameters, whichever autoscheduler takes it (Halide 14 gives every
// autoscheduler the machine's three).
const std::string& autoscheduler_param(const std::string& key);
std::string autoscheduler_params_text(const std::string& name);  // "parallelism=16 beam_size=32 ..."
std::string autoscheduler_plugin_file(const std::string& name);  // "libautoschedule_adams2019.so"

// Translates a valid program (semantics/validity.hpp and the schedule's own checks have
// passed) under input z. Returns the plan, or the reason it is out of the Int(32) model.
std::variant<HalidePlan, TranslationError> translate_to_halide(const Program& prog, const Input& in);

// C++ identifiers of the reproducer (and of messages): prefixed so that no halo name can
// clash with a C++ keyword or a Halide function (min, select, ...).
std::string cpp_func(const std::string& f);
std::string cpp_param(const std::string& p);
std::string cpp_input(const std::string& in);  // the ImageParam
std::string cpp_input_buffer(const std::string& in);  // the Buffer bound to it
std::string cpp_loop(const HlLoop& l);  // a Var, an RDom dimension r_f_1[0], or a derived RVar
std::string cpp_rdom(const std::string& f, int64_t stage);
std::string cpp_stage(const HlStageRef& s);  // f_g, f_g.update(0), or the specialization's Stage

// The printed form of an expression in C++ Halide syntax (what emit_cpp writes; also used
// in notes and messages).
std::string hl_expr_cpp(const HlExpr& e);

// The C++ name of a type (Int(8), UInt(16), Bool()) and of its Halide function for an
// intrinsic (widening_add, ...): the reproducer's spelling.
std::string hl_type_cpp(Type t);
const char* hl_intrinsic_name(Op op);
bool is_fixed_point_intrinsic(Op op);  // widening_add .. rounding_mul_shift_right

// Whether any value of the plan is a float (a func, parameter, input or expression of
// Float(32) or Float(64)): such a pipeline is compiled with Halide's strict_float target
// feature, so that every float operation is IEEE's (docs/floats.md).
bool plan_uses_floats(const HalidePlan& plan);

// A value the worker returns (a u64 as its bit pattern, a float as its IEEE bits) as halo's
// value of type t, and the other way.
Value hl_value(Type t, int64_t bits);
int64_t hl_bits(const Value& v);

// A float value of type t exactly, as a C++ literal: the shortest decimal that reads back to
// it (`0.1f` for a Float(32), `0.1` for a Float(64)), or std::numeric_limits' infinity and
// quiet_NaN. What the reproducer writes for constants, parameters, inputs and expected values.
std::string float_literal_cpp(Type t, const Value& v);

}  // namespace halo::halide

// The TVM translation of a .halo case: the program as a TensorIR module written in
// TVMScript, and its schedule as calls of TVM's schedule primitives (tvm.s_tir.Schedule),
// both Python text that the TVM worker (tvm_worker.py) executes and that the reproducer
// prints as it is. Translating once, into text a TVM user reads, is what makes the
// reproducer run exactly the program the oracle judged.
//
// The mapping (docs/tvm.md has the full table):
//  * every func is a buffer over the region halo's reference realizes it on (the demand of
//    the output window, found by running the unscheduled lowered program, brute_force_
//    filling.hpp); the output func's buffer and the input buffers are the prim_func's
//    arguments (the memory check guards them), the others TVM's own allocations;
//  * every stage is a block under one loop per dimension, as fig. 2.9 nests them (pure
//    loops outside, r1 innermost); its iterator kinds say what is true of it: spatial for a
//    pure dimension no iteration of which reads another's point, reduce for the rdom of an
//    integer reduction f(x) = f(x) op e, opaque otherwise. A func whose only update is such
//    a reduction, unscheduled at its pure stage, is one block with T.init (what TVM's
//    rfactor and decompose_reduction need);
//  * every expression has the type halo's typing gives it (an untyped program is Int(32),
//    oracle/int32_model.hpp, Bool where a comparison is); halo's Euclidean division, total
//    at zero, is written with TVM's floordiv and floormod and never divides by zero or by
//    -1; where halo's meaning differs from TVM's operator (float min and max, float !=) the
//    translation writes halo's;
//  * fig. 2.11's directives map onto TVM's primitives: split (guard: TVM's predicate),
//    fuse, swap (reorder), traverse (parallel, vectorize, unroll), compute_at,
//    compute_inline; store_at is dropped with a note (TVM places storage itself), and the
//    rest is not expressible. TVM's own primitives are the `tvm_*` directives.
//    compute_at goes before the producer's own loop directives, because TVM's compute_at
//    makes the producer's loops anew.
#pragma once

#include "interp/input.hpp"
#include "semantics/ast.hpp"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace halo::tvm {

// A buffer argument of the prim_func: an input, or the output func over its region.
struct TvmBuffer {
  std::string name;    // the TVMScript name
  std::string halo;    // the halo input or func
  Type type;
  std::vector<std::pair<int64_t, int64_t>> box;  // (min, len) per halo dimension, x1 first
  std::vector<Value> values;                     // inputs: first dimension fastest (halo's order)
  bool is_output = false;
  // TVM's shape: the last halo dimension first (the first is the fastest).
  std::vector<int64_t> shape() const;
};

struct TvmCase {
  std::string module;    // `@I.ir_module class Module: ...` (TVMScript)
  std::string schedule;  // `def schedule(sch): ...`
  std::vector<TvmBuffer> args;  // inputs in declaration order, then the output
  std::vector<std::string> notes;       // what the translation had to decide, for every report
  std::vector<std::string> primitives;  // the schedule primitives it calls (coverage)
  // The whole script the worker runs: imports, the module, the schedule.
  std::string script() const;
};

struct TvmTranslationError {
  std::string message;
  bool not_expressible = false;  // false: out of the model (an untyped value outside Int(32))
};

// Translates a valid program under input z.
std::variant<TvmCase, TvmTranslationError> translate_to_tvm(const Program& prog, const Input& in);

// An integer reduction f(x̄) = f(x̄) op e over its rdom (op one of + * min max, e not reading
// f): TVM's reduce iterators promise that reordering its rdom loops changes nothing, and a
// func whose only update it is becomes one block with T.init (rfactor and
// decompose_reduction need one).
bool tvm_reduction_update(const FuncDef& f, const UpdateStage& u);

// TVM's dtype of a halo type ("int32", "uint8", "bool", "float32"); Int(32) for ℤ.
std::string tvm_dtype(Type t);

}  // namespace halo::tvm

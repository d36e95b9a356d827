// The cases of `halo fuzz --target tvm` (--generator tvm, its default): programs as the
// Halide generator draws them (stencil chains over x and y, updates and reductions, Halide's
// types and floats, input-shaped reads), scheduled with what TVM has: fig. 2.11's split
// (guard), fuse, swap, traverse, compute_at and compute_inline; Halide's rfactor,
// reorder_storage and align_storage, which TVM runs as rfactor, transform_layout and
// storage_align (rfactor kept only on a reduction TVM can factor); and TVM's own primitives (tvm_reverse_compute_at, tvm_cache_read,
// tvm_cache_write, tvm_decompose_reduction, tvm_split_unpredicated, tvm_blockize,
// tvm_loop_partition), drawn where they apply to the program drawn. Halide's directives
// that TVM does not have are never drawn, so that cases reach TVM instead of being declined.
#pragma once

#include "fuzz/case_gen.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace halo::fuzz {

struct TvmGenWeights {
  std::map<std::string, int> percent = {
      {"typed", 50},                // Halide's integer types (u8 images, widening, narrowing)
      {"float", 20},                // ... and floats (implies typed)
      {"rfactor", 25},              // a reduction's rdom loop factored (TVM's rfactor)
      {"transform_layout", 10},     // a 2-D producer stored y-innermost (reorder_storage)
      {"storage_align", 10},        // a producer's rows aligned (align_storage)
      {"reverse_compute_at", 20},   // the output computed at a loop of a root producer
      {"cache_read", 20},           // the output reads a producer through a cache block
      {"cache_write", 15},          // a root producer writes through a cache block
      {"decompose_reduction", 30},  // a reduction's init made a block of its own
      {"split_unpredicated", 10},   // the output's x split without a predicate, by a factor that divides it
      {"blockize", 10},             // the output's innermost loop made a block
      {"loop_partition", 10},       // a loop of the output partitioned in two
  };
  void set(const std::string& assignment);  // NAME=PERCENT; InputError for an unknown name or percent
  nlohmann::json to_json() const;
  int operator[](const std::string& name) const { return percent.at(name); }
};

rc::Shrinkable<Program> generate_tvm_case(const CaseSeed& s, const TvmGenWeights& w);

}  // namespace halo::fuzz

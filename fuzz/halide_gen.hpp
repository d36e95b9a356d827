// The case generator of `halo fuzz --target halide` (issue 17): programs as Halide users
// write them and schedules where Halide's known miscompilations live, instead of the
// semantics generator's corners (big integers, scatters, error values) that Halide either
// cannot represent in Int32 or rejects.
//
// Besides, shapes where bugs fixed in Halide after 21.0.0 live (bench/recall/bugs.json):
// pyramids of five or six funcs, reads at negative strides and transposed, the output's
// whole x vectorized at a width of 1 to 8 lanes, two funcs of a chain computed at one loop
// with different storage levels, and storage hoisted with hoist_storage.
//
// A case is a chain of stencils over shared x, y (each func reads the previous one, and
// sometimes the one before, at small offsets, through a downsample x / 2 or an upsample
// 2 * x now and then), some funcs with an update reducing over an rdom (with predicates),
// a window up to 64 points per dimension, and a schedule drawn pattern by pattern from the
// output down: the consumer's x and y split (factors 1 to 8, every tail strategy, Halide's
// predicate tails included), tiled by a swap, its inner variables vectorized or unrolled,
// the producer computed at the inner or outer split variable or at root and stored at
// root, at an outer loop or where it is computed (sliding windows), fold_storage and async
// on such producers, the update split, vectorized and rfactor'ed, and the same again one
// and two levels down (chains three deep). Every constant and intermediate stays inside
// Int32 by construction (small constants, sums of a few reads, no product of two func
// values), and rdom extents are positive, so almost no case is out of Halide's model or
// has a reference error.
//
// A typed case (docs/types.md) is what image and ML pipelines are: the first func a u8,
// u16 or i16 image, each stencil widening its reads (a cast, widening_add, widening_mul),
// computing in the wider type, then narrowing back (saturating_cast, a shift right or a
// rounding shift right and a cast) or keeping the wide type for the next stage; absd,
// averages (halving and rounding-halving adds) and bool masks under select; split factors
// of 16 to 64 for vector lanes of narrow types.
//
// The generator draws with RapidCheck, so each case shrinks, and each feature's choice
// shrinks towards leaving the feature out; the fig. 2.11 part of the schedule is made
// valid by dropping what halo's rules reject (fuzz/schedule_tree.hpp, keep_valid), while
// Halide's own directives are kept for Halide to judge.
#pragma once

#include "fuzz/case_gen.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace halo::fuzz {

// How often each pattern is drawn, in percent (a chance per opportunity). Tunable from the
// command line (`halo fuzz --target halide --weight NAME=PERCENT`) and recorded in every
// finding's JSON record.
struct HalideGenWeights {
  std::map<std::string, int> percent = {
      {"two_d", 80},           // funcs over (x, y) rather than (x)
      {"second_read", 30},     // a func also reads the func two steps back
      {"resample", 12},        // a read through x / 2 or 2 * x
      {"update", 35},          // a func gets an update with an rdom
      {"predicate", 30},       // an update has a predicate
      {"split", 85},           // a consumer's x is split
      {"split_y", 45},         // its y is split too
      {"tile", 50},            // both split: yi swapped inside xo
      {"predicate_tail", 35},  // a split uses one of Halide's own tails (predicate*, auto)
      {"vectorize", 25},       // an inner split variable is vectorized
      {"unroll", 15},          // an inner split variable is unrolled
      {"parallel", 10},        // an outer loop is parallel
      {"compute_inline", 15},  // a producer without an update is inlined (Halide's default)
      {"compute_root", 20},    // a producer stays at root
      {"compute_inner", 55},   // a producer is computed at the innermost split variable
      {"store_root", 35},      // a producer computed at a loop is stored at root
      {"store_outer", 35},     // ... at an outer loop of the consumer (a sliding window)
      {"fold_storage", 15},    // a producer stored above its compute level is folded
      {"async", 10},           // a producer computed at a loop is async
      {"async_folded", 0},     // ... also when its storage is folded: the known hang halide/Halide#3293
      {"update_split", 50},    // an update's pure x is split
      {"rfactor", 30},         // an update's rdom loop is rfactor'ed
      {"compute_with", 8},     // two sibling producers of one consumer are fused (compute_with)
      {"specialize", 10},      // the output is specialized on a parameter
      // Shapes of bugs known from Halide's history (bench/recall/): issue 32.
      {"long_chain", 20},      // a chain of 5 or 6 funcs, half its reads down- or upsampled (a pyramid)
      {"flip", 10},            // a read at a negative stride (c - x): flipped, reversed vector loads
      {"transpose", 8},        // a 2-D read with x and y exchanged
      {"vectorize_whole", 35}, // the output's x, when not split, bounded to 1..8 points and vectorized (one-lane, odd widths)
      {"shared_level", 25},    // a producer computed at the same loop as its consumer (both in the consumer's
                               // consumer), stored at another level: the sliding-window chains of Halide #8140
      {"hoist_storage", 12},   // a producer's storage hoisted (hoist_storage) to an outer loop of its consumer
      // Halide's calls that never change values, drawn after everything else (a seed's case
      // only gains them): the rest of Halide's scheduling API, issue 32.
      {"update_order_dependent", 15},  // an update written f = g(x + r, y) - f: its value depends on the reduction order
      {"update_at_r", 15},     // an update written at r, f(r, y) = f(r, y) + g(r, y): a scatter over the rdom's range
      {"implicit_pure", 40},   // a func whose update is f[x, y] + e (or f[r, y] + e) has no pure stage (Halide's implicit one, f = 0)
      {"compute_with_update", 40},  // the compute_with of two siblings names an update stage of one or both
      {"fuse_far", 20},        // two loops of a func with others between them are fused (Halide's fuse moves loops)
      {"prefetch", 15},        // a consumer prefetches a root producer at one of its loops
      {"memoize", 15},         // a root producer is memoized
      {"atomic", 20},          // an update stage is atomic
      {"atomic_vectorize", 50},  // ... and its reduction loop r vectorized (a vector reduction)
      {"store_in", 12},        // a producer computed at a loop lives in auto, heap or stack memory
      {"hoist_storage_root", 8},  // ... its storage hoisted to the root
      {"reorder_storage", 12},  // a 2-D producer stored y-innermost
      {"align_storage", 12},    // a producer's storage dimension aligned to 2..16
      {"bound_storage", 8},     // a producer's allocation bounded (Halide checks the bound at run time)
      {"align_extent", 12},     // the extent a producer is computed on rounded up to a multiple of 2..5
      {"ring_buffer", 30},      // a producer's hoisted storage made a ring buffer of 2..3 copies (Halide 18+)
      {"partition", 15},        // a loop of the output never or always partitioned (Halide 17+)
      {"specialize_fail", 15},  // the specialized output's default specialization fails
      {"wrapper", 20},          // a root producer read through Halide's wrapper (in, or clone_in a quarter of the time)
      // Halide's types: a u8/u16/i16 image, widened, computed, narrowed back. Off by default
      // so that the seeds and fuzzer inputs of earlier campaigns still denote their cases
      // (`--weight typed=50` draws half the cases typed).
      {"typed", 0},
      // Halide's floats (docs/floats.md): a typed case whose stages compute in float (an
      // 8-bit image normalized, polynomial curves, resampling at float coordinates, min,
      // max, rounding, sqrt, %, lerp, division, and back to u8 or u16). Off by default for
      // the same reason (`--weight float=50`), and drawn after typed, which it implies.
      {"float", 0},
      {"wide_vector", 40},     // in a typed case, the output's x split by 16, 32 or 64 (vector lanes of narrow types)
      // The drawn schedule replaced by one of Halide's four autoschedulers (docs/halide.md,
      // "Autoschedulers"). Off by default for the same reason as typed, and drawn last:
      // `--weight autoscheduler=5` keeps every other draw of a seed.
      {"autoscheduler", 0},
  };
  // Sets NAME=PERCENT; throws InputError naming the weights when NAME is unknown or the
  // percent is outside 0..100.
  void set(const std::string& assignment);
  nlohmann::json to_json() const;
  int operator[](const std::string& name) const { return percent.at(name); }
};

struct HalideGenConfig {
  HalideGenWeights weights;
  int max_funcs = 4;        // a chain of 2..max_funcs
  int max_window = 64;      // points per dimension
  int max_points = 2048;    // points of the whole window
  int max_factor = 8;       // split factors 1..max_factor
};
// The configuration of a case of the given size (campaign sizes 0..kMaxCaseSize): longer
// chains and larger windows as the size grows.
HalideGenConfig halide_case_config(int size, const HalideGenWeights& w);

rc::Gen<Program> gen_halide_case(HalideGenConfig cfg);
// The case a seed denotes under these weights, with its shrink tree.
rc::Shrinkable<Program> generate_halide_case(const CaseSeed& s, const HalideGenWeights& w);

}  // namespace halo::fuzz

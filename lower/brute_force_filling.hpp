// A testing helper: a concrete completion of a Tgt? program for ONE input, found by brute
// force rather than by bounds inference.
//
// Why it exists: Lemma 2.12 says every completion P' ∈ BI(L(P)) is confluent with P. To
// test that property on random programs we need completions that satisfy the bounds
// query B(T) (fig. 2.10a) for the given input, including programs with data-dependent
// indices (scatters, clamped reads of computed values), where no symbolic engine is
// reliable. Here the holes are filled with constants that cover what the run actually
// touches, so the check exercises lowering alone and not any bounds engine.
//
// How: a least fixpoint. Starting with every cpu interval empty, the program is run with
// the current filling on an *instrumented* interpreter whose buffers are unbounded and
// sparse (so no access can fail); every read is recorded under its func-reference label.
// The demand on a compute hole ?cpu<f, j, i, x> is then
//   * the points read through the label f^{i,j} (for the last stage, the shared label,
//     plus R(z) when f is the output), and
//   * the demand on stage i+1 of the same specialization, because a point stage i+1 does
//     not overwrite must already be right after stage i (Halide computes the union too);
// projected on dimension x. Intervals only grow; the run is repeated until no interval
// changes, at which point the last run is exactly what the filled program executes.
// Every allocation hole then gets the hull of every point of f read or written in that
// run, of f's compute intervals and (for the output) of R(z), so the completion is also
// memory safe. Both kinds of interval may be widened by caller-chosen margins, which
// exercises overcompute and overallocation (any covering completion must work).
//
// Values read while the intervals are still too small are ε_mem, and every operation is
// strict, so a non-error value is always the one the algorithm defines; the fixpoint
// therefore only ever over-approximates the demand.
#pragma once

#include "interp/input.hpp"
#include "semantics/tgt.hpp"

#include <functional>
#include <optional>
#include <utility>

namespace halo {

struct BruteForceOptions {
  // Points added (below, above) a non-empty interval; called with the hole's min label.
  // Cpu margins make the program overcompute, mem margins overallocate.
  std::function<std::pair<int64_t, int64_t>(const HoleLabel&)> margin;
  uint64_t max_steps = 2'000'000;  // statements executed, summed over all runs
  int64_t max_extent = 4096;       // widest interval accepted
  int max_rounds = 64;
};

struct BruteForceFilling {
  HoleFilling filling;  // every hole of the program, each a constant
  // How the filled program ends: the run reaches a for loop with a negative length (an rdom
  // failure) or an `assert 0`, and stops there; or an error value reaches a loop bound, a
  // condition or an index (the small-step machine gets stuck there; never happens for a
  // lowered program, whose reads all hit computed points).
  bool rdom_failure = false;
  bool assertion_failure = false;
  bool error_in_control = false;
  // The output func on R(z), as the last run computed it (err_mem where never written).
  OutputBuffer output;
  int rounds = 0;
};

// nullopt when it gives up: the step budget is spent, an interval would be wider than
// max_extent, a coordinate does not fit in 64 bits, or no fixpoint within max_rounds.
// `t` must have holes only in the shapes lowering produces (Def. 2.14): mem holes in
// `allocate f` (one per dimension, in order), cpu holes anywhere.
std::optional<BruteForceFilling> brute_force_filling(const TgtProgram& t, const Input& in,
                                                     const BruteForceOptions& opt = {});

}  // namespace halo

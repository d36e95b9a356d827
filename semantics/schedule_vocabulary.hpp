// Halide's scheduling vocabulary as sugar over fig. 2.11's directives (docs/halide-users.md).
//
// Halide users write `tile`, `reorder`, `vectorize(x, 8)`, `unroll`, `parallel` and
// `compute_root`; the formal model has split, swap, traverse and compute_at. Each call of
// the vocabulary expands, where it is written, into the directives it means, computed from
// the loops the stage has at that point of the schedule. The expansion needs those loops'
// names and order, so this file keeps a model of them: the nest L(P) builds (fig. 2.9: a
// stage's pure loops outside its rdom loops, the first variable of each innermost), changed
// by the loop directives written before the call. tests/test_vocabulary.cpp checks the
// model against lower_pipeline and the schedule rewrites.
//
// Each expanded directive keeps the call as written (Directive::sugar) and its location, so
// an error in an expansion points at the call, and `halo schedule --steps` can say where a
// step came from.
#pragma once

#include "semantics/ast.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace halo {

// One call of the vocabulary, parsed but not expanded.
struct VocabularyCall {
  std::string word;            // tile, reorder, vectorize, unroll, parallel, compute_root, store_root
  Name func;                   // the func whose stage is scheduled
  std::optional<int64_t> spec, stage;  // <f, j, i>; absent: stage 0 of every specialization
  std::vector<Name> names;     // variable names, in order
  std::vector<Expr> factors;   // split factors, in order
  std::optional<TailStrategy> tail;
  std::string text;            // the call as written (normalized spacing)
  SourceLoc loc;
};

// The vocabulary's words, which are not reserved: a func or variable may still use them.
bool is_vocabulary_word(std::string_view word);
// "vectorize(f, x, n[, tail])" and what it expands into, for usage and error messages.
std::string vocabulary_usage(std::string_view word);
std::string vocabulary_expansion(std::string_view word);
const std::vector<std::string_view>& vocabulary_words();

using ScheduleItem = std::variant<Directive, VocabularyCall>;

// The schedule as halo applies it: every call expanded where it stands (written order), then
// every directive in fig. 2.11's phase order (stable: directives of one phase keep their
// written order), which is halo's business and not the writer's. Throws InputError at a
// call that names a func, stage or loop that does not exist at that point.
//
// In ScheduleMode::Halide (`schedule halide { }`, docs/halide-users.md "Halide's defaults")
// the schedule means what Halide means, and the expansion adds what Halide adds, each added
// directive marked (Directive::default_note): compute_inline for an unplaced func Halide
// inlines; compute_at and store_at at the innermost loop of its consumer for an unplaced func
// with updates (Halide realizes it around each of the consumer's stores); store_at at the
// compute_at level when no storage is written. Every `auto` tail, the vocabulary's default
// there, is resolved as Halide's Stage::split resolves it (Directive::tail_auto, tail_note).
// The outer loop of tile's 4-name form and of vectorize, unroll and parallel with a factor
// keeps the name of the loop split, as in Halide: halo gives it a fresh name (§2.8.2) and
// reads the old name, in later calls and directives, as that loop.
std::vector<Directive> expand_schedule(const Pipeline& p, const std::vector<ScheduleItem>& items,
                                       const std::string& file, ScheduleMode mode = ScheduleMode::Thesis);

// Halide's record of one stage's splits (Func.cpp, Stage::split, alike in Halide 14, 19 and
// 21), which decides what `auto` means and where an update may round: the loops that come
// from the inner loop of an earlier split, those that come from the outer loop of a
// ShiftInwards split (with its factor), and the reduction loops (whose splits are exact).
class HalideSplitHistory {
 public:
  HalideSplitHistory(const FuncDef& f, size_t stage);
  // A split as applied (its tail resolved); a fuse of `outer` with `inner`, the loop inside it.
  void record_split(const Directive& d);
  void record_fuse(const std::string& outer, const std::string& inner, const std::string& fused);
  // Halide's inner_vars: RoundUp on an update may recompute points, so Halide refuses it there.
  bool from_inner(const std::string& loop) const { return inner_.count(loop) > 0; }
  // What Halide picks for TailStrategy::Auto on split d of this stage, and why.
  TailStrategy resolve_auto(const Directive& d, std::string& why) const;

 private:
  bool update_;
  std::set<std::string> inner_, rvars_;
  std::map<std::string, Expr> shift_outer_;
};

// Whether split d of prog's schedule splits a loop of an update stage that Halide counts as
// coming from the inner loop of an earlier split of that stage (where round is unsafe).
bool splits_halide_inner_loop(const Program& prog, const Directive& d);

// The names of the loops of stage i of func f, outermost first, as L(P) nests them before
// any directive (initial_stage_loops of ast.hpp): the model the expansion starts from.
std::vector<std::string> initial_loop_names(const FuncDef& f, size_t stage);

// The closest of the names to `word` (edit distance at most 3), if any.
std::optional<std::string> closest_word(std::string_view word, const std::vector<std::string>& names);

}  // namespace halo

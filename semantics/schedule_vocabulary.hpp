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

#include <optional>
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
std::vector<Directive> expand_schedule(const Pipeline& p, const std::vector<ScheduleItem>& items,
                                       const std::string& file);

// The names of the loops of stage i of func f, outermost first, as L(P) nests them before
// any directive (initial_stage_loops of ast.hpp): the model the expansion starts from.
std::vector<std::string> initial_loop_names(const FuncDef& f, size_t stage);

// The closest of the names to `word` (edit distance at most 3), if any.
std::optional<std::string> closest_word(std::string_view word, const std::vector<std::string>& names);

}  // namespace halo

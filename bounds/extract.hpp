// Query extraction B(T) of thesis fig. 2.10a: the predicate that a completion of a Tgt?
// program must satisfy (Def. 2.15), plus its printed and JSON forms.
//
// B is defined statement by statement. Besides the whole query, this header exposes the
// part of B that a single statement contributes at its own position (`local_conjuncts`):
// the dynamic check (query_check.hpp) runs the program and evaluates exactly those
// conjuncts at each statement, so that the extraction rules exist once, here.
// docs/bounds-query.md maps every rule of the figure to the code and records the one
// deviation from the literal figure: stage-to-stage coverage (docs/semantics-decisions.md,
// item 9).
#pragma once

#include "bounds/query.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace halo {

// What extraction needs to know about the program's holes (Def. 2.14): each func's
// dimension names (from the mem holes of its `allocate`, else from its cpu holes in order
// of appearance) and its compute-hole tuples (stage, spec) — from the cpu holes present
// and from the labels of its stores and references, which name the tuple they are checked
// against.
struct QueryShape {
  std::string file;
  std::string output;
  std::map<std::string, std::vector<std::string>> dims;
  std::map<std::string, std::set<std::pair<int64_t, int64_t>>> cpu_tuples;
  HoleRef mem(const std::string& f) const;
  HoleRef cpu(const std::string& f, int64_t stage, int64_t spec) const;
  // The tuple of the output's last stage (shared): what the window must be covered by.
  HoleRef output_cpu() const;
  // Every cpu tuple of f, ordered by (stage, spec).
  std::vector<HoleRef> cpu_of(const std::string& f) const;
};
QueryShape query_shape(const TgtProgram& t);

// B(T).
Query extract_query(const TgtProgram& t);

// The conjuncts statement `s` contributes itself, outside its sub-statements' B: assert →
// its condition; let, if → B_cpu of the value / condition; for → e_len >= 0; a store → its
// whole (quantifier-free) B; `label f.s<i>` → the stage-coverage Covers; anything else →
// true. B(s) is assembled from these and the sub-statements' B, so the two always agree.
// `copies` maps each func to the specialization whose copy (`label f.j<k>`) encloses `s`:
// a shared last stage with no loop of its own is covered in that copy only (semantics
// decision 18); callers walking the program top-down keep it (enter_copy).
Query local_conjuncts(const Stmt& s, const QueryShape& shape, const std::map<std::string, int64_t>* copies = nullptr);
// If `s` is a specialization copy `label f.j<k>`: (f, k).
std::optional<std::pair<std::string, int64_t>> copy_label(const Stmt& s);
// The pipeline rule's last conjunct: [x_min, x_len]... ∈ ?cpu f (f the output).
Query window_conjunct(const TgtProgram& t, const QueryShape& shape);

// Readable form with the figure's symbols (∀ ∃ ⇒ ∧ ∈), one node per line, two spaces per
// level of nesting; `with_origins` appends each leaf's origin as `  # ...`.
std::string print_query(const Query& q, bool with_origins = false);
// One line for a leaf (Pred, Member, Cover, True): what the dynamic check names.
std::string print_conjunct(const Query& q);

// The JSON form of docs/bounds-query.md. The one-argument form has the query tree and its
// hole tuples; given the program, each hole also gets its lexical scope (hole_scopes) and
// the document gets the pipeline's name, parameters and window.
nlohmann::json query_to_json(const Query& q);
nlohmann::json query_to_json(const Query& q, const TgtProgram& t);

}  // namespace halo

// A RapidCheck generator of schedules drawn from the schedule-tree view (seed 004, "An
// Autoscheduler for Halide", after Ragan-Kelley's thesis ch. 7): a schedule is a tree of
// loop, storage and compute nodes. Random proposals of single directives (schedule_gen.hpp)
// rarely hit a valid compute_at or store_at; generating a well-formed tree first and then
// emitting its directives in the phase order of fig. 2.11 reaches deep placements often.
//
// The tree, in halo's terms (SEMANTICS.md "Scheduling directives"):
//  * loop nodes: the loops of each stage <f, spec, stage> (a chain, outermost first),
//    obtained from L(P)'s loops by split / fuse / swap / traverse transformers, which
//    respect purity (Def. 2.16) as the rewrites do;
//  * compute nodes: f's whole labelled computation (every stage and specialization) hangs
//    under the root or under a loop node of another func (compute_at);
//  * storage nodes: f's allocation hangs under the root or under a loop on the path from
//    the root to f's compute node (store_at).
// Well-formedness (seed 004's two criteria, in halo's form): the path from f's compute node
// to the root contains f's storage node; and every stage that reads f lies inside f's
// compute loop and after it (Lemma 2.5, dominance) — so a producer is placed only after
// its readers, consumers first. Halo adds one rule: a func computed inside a `parallel`
// loop is stored inside it too.
//
// The emitted schedule replays directive by directive through schedule/ (apply_directive),
// and a directive the rewrites reject is dropped, so the result is valid by construction
// even where the tree's model and the rewrites' rules differ; `TreeStats` counts such
// drops so a test can require that the model agrees with the rules.
#pragma once

#include "semantics/ast.hpp"

#include <rapidcheck.h>

#include <string>
#include <vector>

namespace halo::fuzz {

struct ScheduleTreeConfig {
  int max_loop_transforms = 4;  // split / fuse / swap / traverse nodes rewritten
  int max_split_factor = 4;
  int specialize_percent = 15;  // chance that a func is specialized
  int compute_percent = 70;     // chance that a producer is computed below the root
  int store_percent = 60;       // chance that a moved producer is stored below the root too
  int bounds_percent = 20;      // chance of a bounds directive (bound, bound_extent, align_bounds)
};

// What the emitted schedule did when replayed; `rejected` lists the directives that the
// rewrites refused (with their messages), which the tree model expected to be valid.
struct TreeStats {
  int emitted = 0;
  std::vector<std::string> rejected;
};

// `prog` with schedule `ds`, less every directive that the rules reject (validity.cpp, then
// the rewrites replaying the whole formal schedule, so later directives are seen as Halide
// and schedule/ see them); Halide's own directives (outside fig. 2.11) are checked by
// validity only. Directives are told apart by their (unique) locations.
Program keep_valid(Program prog, std::vector<Directive> ds, TreeStats* stats = nullptr);

// A copy of `prog` (valid, with a realization) whose schedule section comes from a random
// well-formed schedule tree. When `stats` is given it receives what the replay did.
rc::Gen<Program> gen_tree_scheduled(const Program& prog, ScheduleTreeConfig cfg = {}, TreeStats* stats = nullptr);

}  // namespace halo::fuzz

// A dynamic check of one completed run against the bounds query B(T) (fig. 2.10a).
//
// Why: B(T) quantifies over every input and mentions buffer contents (a read inside an
// index or in a stored value), so it cannot be decided in general; but for one input z and
// one filling Γ it can be evaluated exactly, by running [Γ]T. The oracle and the tests use
// this to say *which* conjunct a candidate filling breaks, not only that its run fails.
//
// How: an instrumented execution of T with every hole read through Γ (evaluated in the
// current environment, as [Γ]T would). At each statement, before executing it, the
// conjuncts B places at that statement (`local_conjuncts`, the very code of the
// extraction) are evaluated with the current variables Σ and buffers σ — ∀ over a loop is
// its iterations, `e ⇒ B(s)` is the branch taken, `let` is the binding, and reads in the
// query see the values the program computed so far. After the body, the pipeline's window
// conjunct is checked. The first false conjunct is returned.
//
// What it sees: exactly one input (the unbounded ∀ over parameters and window is
// instantiated by `in` only) and the executed branches and iterations. It cannot see the
// conjuncts under branches not taken, memberships that hold only by luck of this input, or
// conditions on holes that no executed statement mentions. Buffers are unbounded and
// sparse, so the check itself never fails on memory: an unwritten point reads as err_mem.
// One default: a cpu hole that T does not contain (a stage that iterates no loop over a
// dimension of its func) and that Γ leaves out takes the value of the previous stage's
// hole for that dimension — the stage computes wherever its predecessor did.
// See docs/bounds-query.md.
#pragma once

#include "interp/input.hpp"
#include "semantics/tgt.hpp"

#include <optional>
#include <string>

namespace halo {

struct QueryViolation {
  std::string conjunct;  // the conjunct as print_conjunct prints it
  std::string origin;    // why B has it (QueryNode::origin)
  SourceLoc loc;         // where in the program
  std::string detail;    // the values: point, hole values, loop variables
};

// nullopt when every conjunct evaluated in this run holds. Also a violation: an error
// value where the query needs an integer (an index, a condition, a hole's value), since
// the conjunct then has no truth value (the run would be stuck there). Throws InputError
// when a hole is not filled or a variable is unbound, ResourceLimit past `lim`.
std::optional<QueryViolation> check_run_against_query(const TgtProgram& t, const HoleFilling& g, const Input& in,
                                                      const Limits& lim);

}  // namespace halo

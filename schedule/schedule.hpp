// Scheduling (thesis §2.8, fig. 2.11; fig. 2.12 was lost, SEMANTICS.md gives the reading):
// each directive is a rewrite S(s, T) of a Tgt? program that keeps loop naming (Lemma 2.4)
// and dominance (Lemma 2.5). A schedule is applied to the lowered program directive by
// directive, in the written order (which must respect the phase order; validity.cpp checks
// it before anything runs).
//
// Every rewrite checks its own restrictions first and throws InputError located at the
// directive, naming the rule it breaks, so an invalid schedule never produces a program.
#pragma once

#include "semantics/ast.hpp"
#include "semantics/tgt.hpp"

#include <optional>
#include <string>
#include <vector>

namespace halo {

// S(d, T) for one directive of `prog`'s schedule.
TgtProgram apply_directive(const TgtProgram& t, const Directive& d, const Program& prog);

// S(s_n, ... S(s_1, L(P))): lowers `prog` and applies its schedule. When `steps` is given it
// receives L(P) followed by the program after each directive.
TgtProgram schedule_pipeline(const Program& prog, std::vector<TgtProgram>* steps = nullptr);

// The title of step k+1 of `halo schedule --steps` and `halo explain`: "after DIRECTIVE",
// with the call of Halide's vocabulary it came from (semantics/schedule_vocabulary.hpp)
// and, when fig. 2.11's phase order moved it, where it was written.
std::string schedule_step_title(const Program& prog, size_t k);

// The part of a schedule that fig. 2.11 describes, for candidates that run Halide's own
// directives (docs/halide.md, "Halide-only directives"): those directives dropped, and a
// split with one of Halide's tails read as a guard split (the same loops vo and vi). halo
// checks this part with its own rules; the candidate is judged on the whole schedule.
Program formal_part(const Program& prog);
// Halide's tails that predicate loads or stores (predicate, predicate_loads,
// predicate_stores): `auto` is Halide's too but picks one of the unpredicated strategies.
bool is_predicating(TailStrategy t);
// schedule_pipeline(formal_part(prog)), and the loops Halide's own directives name
// (rfactor, compute_with, hoist_storage) checked where each stands in the schedule: a loop
// that does not exist there (split away, or never made) is an InputError at the directive.
TgtProgram schedule_formal_part(const Program& prog);

// ---- the rewrites, one file each (schedule/loops.cpp, schedule/placement.cpp) ----------
// Loops phase (§2.8.2): the loop named d.loop in T.
TgtProgram apply_split(const TgtProgram& t, const Directive& d, const Program& prog);
TgtProgram apply_fuse(const TgtProgram& t, const Directive& d, const Program& prog);
TgtProgram apply_swap(const TgtProgram& t, const Directive& d, const Program& prog);
TgtProgram apply_traverse(const TgtProgram& t, const Directive& d, const Program& prog);
// Specialization (§2.8.1), compute (§2.8.3) and storage (§2.8.4) phases.
TgtProgram apply_specialize(const TgtProgram& t, const Directive& d, const Program& prog);
TgtProgram apply_compute_at(const TgtProgram& t, const Directive& d, const Program& prog);
TgtProgram apply_store_at(const TgtProgram& t, const Directive& d, const Program& prog);
// Halide's default placement (schedule/inline.cpp): f's allocation and computation removed,
// each read of f replaced by f's pure definition at the point read.
TgtProgram apply_compute_inline(const TgtProgram& t, const Directive& d, const Program& prog);
// Bounds phase (§2.8.5; schedule/bounds_directives.cpp).
TgtProgram apply_bound(const TgtProgram& t, const Directive& d, const Program& prog);
TgtProgram apply_bound_extent(const TgtProgram& t, const Directive& d, const Program& prog);
TgtProgram apply_align_bounds(const TgtProgram& t, const Directive& d, const Program& prog);

// ---- shared by the rewrites ----------------------------------------------------------
// The loop named d.loop in T; rejects d (InputError), listing the func's loops, when there is none.
const ForStmt& find_loop(const TgtProgram& t, const Directive& d, const Program& prog);
// The restriction `e cmp 0` on a startup expression `e` of directive d (`what` names it in
// the message): decided now when e is a constant — InputError if it fails — otherwise
// returned as the assertion to run first, as Halide checks such conditions at startup.
std::optional<Expr> startup_check(const Expr& e, Op cmp, const Program& prog, const Directive& d,
                                  const std::string& what);
// `body` preceded by `assert c` for each check (none: body itself).
Stmt with_startup_checks(const std::vector<Expr>& checks, Stmt body, SourceLoc at);

}  // namespace halo

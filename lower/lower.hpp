// The lowering function L : Alg → Tgt? of thesis §2.6 (fig. 2.9): the default, eager
// schedule of an algorithm as an imperative program whose loop bounds and buffer sizes
// are labelled holes. It is the first step of compilation (fig. 2.4): every scheduling
// directive rewrites its result, and bounds inference fills its holes, so the shapes it
// produces — loop names, labels, holes, func-reference labels — are the contract the rest
// of the pipeline relies on. docs/lowering.md maps each equation of fig. 2.9 to the code
// and records the readings taken (SEMANTICS.md, "Lowering").
#pragma once

#include "semantics/ast.hpp"
#include "semantics/tgt.hpp"

#include <string>
#include <utility>
#include <vector>

namespace halo {

// The labelled bounds holes of Def. 2.14. `x` names the dimension by the func's pure
// variable. `spec` is the specialization, or FuncLabel::kShared for the last stage, whose
// cpu hole all specializations share and consumers demand.
HoleLabel mem_hole(const std::string& f, const std::string& x, bool is_len);
HoleLabel cpu_hole(const std::string& f, int64_t spec, int64_t stage, const std::string& x, bool is_len);
// The (min, len) pair of hole expressions: ?mem f_x and ?cpu f_x^{stage,spec} of fig. 2.9.
std::pair<Expr, Expr> mem_interval(const std::string& f, const std::string& x);
std::pair<Expr, Expr> cpu_interval(const std::string& f, int64_t spec, int64_t stage, const std::string& x);

// The label of stage `stage` of `f` in an unspecialized program: specialization 0, except
// the last stage, which is kShared (Def. 2.14). Stores, cpu holes and func references all
// use it, so a reference's label always names the hole its point is checked against.
FuncLabel stage_label(const FuncDef& f, size_t stage);

// The output window variables `<x>_min`, `<x>_len` per pure variable of the output func,
// each made fresh by appending `_` until it clashes with no parameter, no pure or
// reduction variable of any func, and no window variable chosen before it.
std::vector<std::pair<std::string, std::string>> window_variables(const Pipeline& p);

// The startup checks of §2.9: `assert len >= 0` for the length of every reduction variable
// of p (in program order) that is not a non-negative constant. lower_pipeline puts them
// first in L(P).
std::vector<Stmt> rdom_startup_checks(const Pipeline& p);

// L(P) (fig. 2.9) for a valid program (validity.hpp); the realization is copied. A
// self-reference in a pure stage or a reference to an unknown func — impossible in a
// valid program — throws std::logic_error.
TgtProgram lower_pipeline(const Program& prog);

}  // namespace halo

// The printer of the target language's text format: the inverse of tgt_parser.hpp.
//
// Every tool that shows a lowered, scheduled or completed program (halo lower, schedule,
// bounds, run --trace) prints it with these functions, so that what users read is what
// they can write, and so that parse_tgt(print_tgt(p)) = p can be tested. Expressions are
// printed by print_expr (printer.hpp), holes and labelled accesses included.
//
// Well-formed trees print to text that parses back to the same tree (same_tgt): names
// are identifiers that are not reserved words, labels are such identifiers joined by
// `.`, func labels and hole indices are non-negative (or FuncLabel::kShared for a
// specialization), constants are integers, and sequences were built by make_seq.
#pragma once

#include "semantics/tgt.hpp"

#include <string>

namespace halo {

// The canonical layout: two spaces per level, one statement per line, a block holding a
// single simple statement (nop, assert, allocate, store) kept on its line.
std::string print_tgt(const TgtProgram& p);
// The statement's lines, each indented by `indent` levels of two spaces and ending in '\n'.
std::string print_stmt(const Stmt& s, int indent = 0);
// A loop's name <f, spec, stage, x> (Lemma 2.4), as messages and reports show it.
std::string print_loop_name(const ForStmt& f);

}  // namespace halo

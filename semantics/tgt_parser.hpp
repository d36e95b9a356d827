// The parser of the target language's text format (docs/target-syntax.md): Tgt and Tgt?
// programs (thesis fig. 2.7) written as `target pipeline f(p) over (x_min, x_len) { ... }`.
//
// It exists so that lowered and scheduled programs can be written to files, read back,
// compared in tests and handed to other tools, and so that programs of the small-step
// machine can be written by hand. It shares the lexer and the whole expression grammar of
// the .halo parser (lexer.hpp's ParserCore), with holes and labelled accesses switched on.
// Errors are InputErrors located like the .halo parser's; nothing crashes on any input.
#pragma once

#include "semantics/tgt.hpp"

#include <string>
#include <string_view>

namespace halo {

TgtProgram parse_tgt(std::string_view source, const std::string& file);
// Reads a file and parses it; a file that cannot be read is an InputError at 0:0.
TgtProgram parse_tgt_file(const std::string& path);
// One Tgt? expression (holes and labelled accesses allowed), the whole source.
Expr parse_tgt_expr(std::string_view source, const std::string& file);

// Whether the source is a target program rather than a .halo algorithm: its first token,
// after blanks and comments, is the word `target`. Never throws: a source that does not
// even lex is not a target program (the .halo parser then reports what is wrong).
bool looks_like_tgt(std::string_view source);

}  // namespace halo

// The vocabulary of the .halo format (LANGUAGE.md §1): tokens, reserved words, operator
// precedence and the argument shapes of the schedule directives.
//
// The parser and the printer are inverses of each other, so everything both of them must
// agree on lives here, once: if the printer used its own precedence table or its own idea
// of a directive's arguments, parse(print(p)) = p would only hold by coincidence.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "semantics/ast.hpp"
#include "semantics/diagnostics.hpp"

namespace halo {

enum class TokenKind : uint8_t {
  Identifier,  // [A-Za-z_][A-Za-z0-9_]* that is not reserved
  Keyword,     // a reserved word (see is_reserved_word)
  Integer,     // an unsigned decimal literal; the sign is an operator
  Symbol,      // punctuation and operators
  End,         // end of input; its location is just past the last byte
};

struct Token {
  TokenKind kind;
  std::string_view text;  // a view into the source, which must outlive the tokens
  SourceLoc loc;          // 1-based line and byte column of the first byte
};

// Longer literals are rejected: parsing n digits into a big integer costs O(n^2), and no
// program needs a constant with more digits than this.
inline constexpr size_t kMaxLiteralDigits = 10000;

// Splits the whole source into tokens, the last one of kind End. Throws InputError at the
// first byte that cannot start a token (NUL bytes are rejected even inside comments).
std::vector<Token> lex(std::string_view source, const std::string& file);

// Section keywords, `rdom`/`in`/`if`, the built-ins and the directive names: none of them
// can name a func, a variable or a parameter.
bool is_reserved_word(std::string_view word);

// ---------------------------------------------------------------- precedence
// Binding strength, loosest first. Every binary level is left-associative.
enum class Precedence : int { Or = 1, And, Compare, Additive, Multiplicative, Unary, Primary };

// The binary operator spelled `symbol` (e.g. "<=" is Op::Le), if any.
std::optional<Op> infix_op(std::string_view symbol);
// The built-in operator spelled `name` ("select", "min", "max"), if any.
std::optional<Op> builtin_op(std::string_view name);
bool is_builtin(Op op);
// Primary for built-ins (they print as calls), Unary for `-` and `!`.
Precedence precedence(Op op);

// ---------------------------------------------------------------- directives
// What each argument of a directive is, and so which field of Directive it fills.
enum class DirectiveArg : uint8_t {
  Func,         // a func name -> func
  Loop,         // <f, spec, stage, var> -> loop
  Name,         // a variable name -> names (in order)
  Expression,   // an expression -> exprs (in order)
  Expressions,  // one or more expressions, the rest of the arguments -> exprs
  Tail,         // guard | shift | round -> tail
  Order,        // serial | parallel | vectorized | unrolled -> order
};

struct DirectiveParam {
  DirectiveArg arg;
  const char* placeholder;  // how the usage line names it, e.g. "factor"
};

struct DirectiveSyntax {
  DirectiveKind kind;
  std::span<const DirectiveParam> params;
};

const DirectiveSyntax& directive_syntax(DirectiveKind kind);
std::optional<DirectiveKind> directive_kind(std::string_view name);
std::span<const DirectiveSyntax> all_directives();  // in the phase order of fig. 2.11
// e.g. "split(<f, j, i, v>, vo, vi, factor, guard|shift|round)"
std::string directive_usage(DirectiveKind kind);

std::optional<TailStrategy> tail_strategy(std::string_view name);
std::optional<Traversal> traversal(std::string_view name);

}  // namespace halo

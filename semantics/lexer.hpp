// The vocabulary of the .halo format (LANGUAGE.md §1) and of the target-language text
// format (docs/target-syntax.md): tokens, reserved words, operator precedence, the
// argument shapes of the schedule directives, and the parser core both parsers share.
//
// The parser and the printer are inverses of each other, so everything both of them must
// agree on lives here, once: if the printer used its own precedence table or its own idea
// of a directive's arguments, parse(print(p)) = p would only hold by coincidence. The same
// goes for the two languages: target programs reuse the algorithm's expressions, so the
// target parser reuses the algorithm parser's expression grammar rather than copying it.
// This header is internal to the syntax implementation (parser.cpp, tgt_parser.cpp,
// printer.cpp, tgt_printer.cpp, tgt_json.cpp); parser.hpp is the public interface.
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "semantics/ast.hpp"
#include "support/diagnostics.hpp"

namespace halo {

enum class TokenKind : uint8_t {
  Identifier,  // [A-Za-z_][A-Za-z0-9_]* that is not reserved
  Keyword,     // a reserved word (see is_reserved_word)
  Integer,     // an unsigned decimal literal; the sign is an operator
  Float,       // 1.5, 2.5e-3, 1e6 (a C++ double), 1.5f (a C++ float): docs/floats.md
  Symbol,      // punctuation and operators
  String,      // "text": a file name in the realize section; no escapes, no line break
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

// The value of a Float token (lex checked it is in range): a binary32 for a literal with the
// `f` suffix, read as C++ reads `1.5f`, else a binary64, as C++ reads `1.5`; negated when
// `negative`. Both correctly rounded.
Value float_literal_value(const Token& t, bool negative);

// A number given on the command line (--param NAME=VALUE): an integer, or a float as C++
// reads a double literal (1.5, 2e-3), or inf, -inf, nan; nullopt for anything else. A float
// becomes its parameter's type where the parameter is resolved.
std::optional<Value> parse_number_text(std::string_view text);

// Splits the whole source into tokens, the last one of kind End. Throws InputError at the
// first byte that cannot start a token (NUL bytes are rejected even inside comments).
std::vector<Token> lex(std::string_view source, const std::string& file);
// Only the first token (End for a source of blanks and comments), for telling the two
// languages apart without lexing a whole file. Throws like lex.
Token first_token(std::string_view source, const std::string& file);

// Section keywords, `rdom`/`in`/`if`, the built-ins and the directive names: none of them
// can name a func, a variable or a parameter. The statement words of the target language
// (`target`, `nop`, `for`, `label`, ...) are deliberately not reserved: they are keywords
// only where a statement or a program starts, so that every name an algorithm may use
// still names the same func or variable once the algorithm is lowered.
bool is_reserved_word(std::string_view word);
// A token the lexer would make an Identifier: [A-Za-z_][A-Za-z0-9_]*, not reserved.
bool is_identifier(std::string_view word);

// ---------------------------------------------------------------- precedence
// Binding strength, loosest first. Every binary level is left-associative.
// C's (and so Halide's C++) levels: | ^ & between && and the comparisons, shifts between
// the comparisons and + -.
enum class Precedence : int { Or = 1, And, BitOr, BitXor, BitAnd, Compare, Shift, Additive, Multiplicative, Unary, Primary };

// The binary operator spelled `symbol` (e.g. "<=" is Op::Le), if any.
std::optional<Op> infix_op(std::string_view symbol);
// The built-in operator spelled `name` ("select", "min", "max"), if any.
std::optional<Op> builtin_op(std::string_view name);
// The prefix operator spelled `symbol` ("-" is Op::Neg, "!" is Op::Not), if any.
std::optional<Op> prefix_op(std::string_view symbol);
// Halide's operator called `name` (absd, widening_add, ..., lerp), if any: not reserved
// words, since funcs are accessed with brackets and `name(` can be nothing else.
std::optional<Op> halide_named_op(std::string_view name);
bool is_builtin(Op op);
// Halide's transcendental functions (exp, log, pow, sin, ..., the fast_ variants), which
// halo refuses by name (docs/floats.md): Halide computes them with its own approximations.
bool is_transcendental(std::string_view name);
// Primary for built-ins (they print as calls), Unary for `-` and `!`.
Precedence precedence(Op op);

// ---------------------------------------------------------------- directives
// What each argument of a directive is, and so which field of Directive it fills.
enum class DirectiveArg : uint8_t {
  Func,         // a func name -> func
  Loop,         // <f, spec, stage, var> -> loop
  With,         // a second loop <g, spec, stage, var> -> with (compute_with)
  Stage,        // a stage <f, spec, stage> -> loop, whose var stays empty (atomic)
  Name,         // a variable name -> names (in order)
  Names,        // one or more variable names, the rest of the arguments -> names
  Text,         // a string literal -> message (specialize_fail)
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
// A directive whose name is not reserved (a word only where a directive stands).
bool is_contextual_directive(DirectiveKind k);
std::span<const DirectiveSyntax> all_directives();  // in the phase order of fig. 2.11
// e.g. "split(<f, j, i, v>, vo, vi, factor, guard|shift|round)"
std::string directive_usage(DirectiveKind kind);

std::optional<TailStrategy> tail_strategy(std::string_view name);
std::optional<Traversal> traversal(std::string_view name);

// ---------------------------------------------------------------- the parser core
// What the .halo parser (parser.cpp) and the target-language parser (tgt_parser.cpp) have
// in common: the token cursor, located error messages, names, intervals, loop names,
// traversal orders, the realize section and the whole expression grammar. Each parser
// derives from it and adds its own top-level rules. The methods are defined in parser.cpp.

// Which expressions are accepted: the algorithm language's, or those of Tgt? (fig. 2.7),
// which add holes ?mem<f, x>.min and labelled accesses f^(stage, spec)[...]. The algorithm
// parser rejects both with a message saying they belong to target programs.
enum class Dialect : uint8_t { Algorithm, Target };

// An expression and its nesting depth: 0 for a leaf, else one more than its deepest part,
// where parentheses count as a part.
struct ParsedExpr {
  Expr expr;
  int depth = 0;
};

class ParserCore {
 public:
  ParserCore(std::string_view source, std::string file, Dialect dialect);
  // A whole source that is one expression.
  Expr lone_expr();

 protected:
  std::string file_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int open_ = 0;  // constructs the parser is currently inside (it recurses once for each)
  Dialect dialect_;
  bool saw_types_ = false;
  // Halide's inline reductions (sum, product, maximum, minimum over an rdom) become funcs
  // of their own, as Halide makes them (src/InlineReductions.cpp): while a func's body is
  // parsed, `enclosing_` is that func, and each reduction is lifted into `lifted_`, which
  // the pipeline rule puts before the func (docs/syntax.md, "Inline reductions").
  const FuncDef* enclosing_ = nullptr;
  std::vector<FuncDef> lifted_;
  ParsedExpr inline_reduction();
  RVar rvar();
  // Target programs only: the loops and lets around the current statement, innermost last,
  // as (the name a reader writes, the variable bound): a plain name x refers to the
  // innermost of them that a reader calls x, so `x` inside `for <f, 0, 0, x>` is the loop's
  // qualified variable <f, 0, 0, x> (docs/target-syntax.md, "Variables").
  std::vector<std::pair<std::string, std::string>> scope_;
  std::string resolve(const std::string& name) const;

  // Marks one level of recursion for as long as it lives.
  class Nest {
   public:
    Nest(ParserCore& p, SourceLoc where);
    ~Nest() { --p_.open_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    ParserCore& p_;
  };

  static std::string loc_text(SourceLoc l);  // "LINE:COL"
  static std::vector<Expr> exprs_of(const std::vector<ParsedExpr>& ps);

  // ---------------------------------------------------------------- tokens
  const Token& peek(size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  const Token& advance() {
    const Token& t = peek();
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  // A symbol or reserved word.
  bool at(std::string_view text, size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return (t.kind == TokenKind::Symbol || t.kind == TokenKind::Keyword) && t.text == text;
  }
  // An identifier acting as a keyword where it stands (`mem`, `serial`, `nop`, ...).
  bool at_word(std::string_view word, size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return t.kind == TokenKind::Identifier && t.text == word;
  }
  bool at_end() const { return peek().kind == TokenKind::End; }
  bool accept(std::string_view text) {
    if (!at(text)) return false;
    advance();
    return true;
  }

  // ---------------------------------------------------------------- errors
  [[noreturn]] void fail(SourceLoc loc, std::string message) const;
  [[noreturn]] void fail_expected(std::string_view what) const;  // "expected WHAT, found TOKEN"
  [[noreturn]] void unclosed(const Token& open, std::string_view what) const;
  [[noreturn]] void too_deep(SourceLoc loc) const;
  [[noreturn]] void list_not_closed(const Token& open, std::string_view close) const;
  const Token& expect(std::string_view text, std::string_view context);
  void expect_close(std::string_view close, const Token& open);

  // item (',' item)* up to `close`, the opening token already consumed; may be empty.
  template <typename F>
  auto comma_list(const Token& open, std::string_view close, F item) {
    std::vector<decltype(item())> items;
    if (accept(close)) return items;
    while (true) {
      items.push_back(item());
      if (accept(",")) continue;
      if (accept(close)) return items;
      list_not_closed(open, close);
    }
  }

  // ---------------------------------------------------------------- shared rules
  Name name(std::string_view what);
  std::vector<Name> names_in_parens(std::string_view after, std::string_view what);
  // `: TYPE` after a func signature or a parameter: one of Halide's integer types.
  Type type_annotation(std::string_view owner);
  // `(p1 [: T1], p2, ...)` after a pipeline's name: each parameter and its written type.
  struct ParamDecl {
    Name name;
    std::optional<Type> type;
  };
  std::vector<ParamDecl> param_list();
  // NAME(v1, ..., vn) [: TYPE] of a func or an input (`owner`), its variables named `var_kind`.
  struct Signature {
    Name name;
    std::vector<Name> vars;
    std::optional<Type> declared;
  };
  Signature signature(std::string_view owner, std::string_view var_kind);
  // Whether the text parsed so far wrote one of Halide's types (docs/types.md).
  bool saw_types() const { return saw_types_; }
  LoopName loop_name(bool every_spec = false);  // every_spec: `*` may stand for the specialization
  LoopName stage_name(std::string_view directive);  // <f, j, i>
  LoopName stage_prefix(std::string_view what, std::string_view in, bool every_spec, const Token*& open);
  // A non-negative integer literal fitting in 64 bits: the `what` (e.g. "stage index") of
  // the `owner` (e.g. "loop name"); `alternatives` says what may stand there.
  int64_t index(std::string_view what, std::string_view owner, std::string_view alternatives = "an integer");
  // A specialization index, or `*` for FuncLabel::kShared.
  int64_t spec_or_shared(std::string_view owner);
  Traversal order(std::string_view placeholder);
  Realization realization();
  std::vector<Interval> constant_box(std::string_view what);
  InputBinding input_binding();

  struct SignedLiteral {
    Value value;
    SourceLoc loc;
  };
  // An optionally negated integer literal (or, where floats_allowed, a float literal).
  SignedLiteral signed_literal(std::string_view what, bool floats_allowed = false);
  // A float literal token (negated when `negative`): a float constant `1.5f`, or `1.5`, an
  // untyped constant holding the double, which takes a type where it is used (typing.hpp).
  Expr float_literal(const Token& t, bool negative, SourceLoc loc = {});

  // (min, len) with each bound parsed by `bound`.
  template <typename F>
  auto interval(F bound) {
    const Token& open = expect("(", "to start the interval (min, len)");
    auto min = bound();
    expect(",", "between the min and the length of the interval (min, len)");
    auto len = bound();
    expect_close(")", open);
    return std::tuple{open.loc, std::move(min), std::move(len)};
  }

  // ---------------------------------------------------------------- expressions
  ParsedExpr expr() { return binary_rest(unary(), Precedence::Or); }
  ParsedExpr binary_rest(ParsedExpr lhs, Precedence min);
  ParsedExpr unary();
  ParsedExpr primary();
  ParsedExpr access_or_var();  // an identifier, possibly followed by a label and [args]
  ParsedExpr buffer_geometry(const Token& input);  // img.dim(k).min() and the like, at the '.'
  // `let t = e in body` (docs/syntax.md, "let"): t names e within body, which reads e
  // wherever it reads t; `lets_` holds the names in scope, innermost last.
  ParsedExpr let_expr();
  std::vector<std::pair<std::string, ParsedExpr>> lets_;
  // The values of lets that read no variable, func or input (literals and operators only):
  // in a typed program they are Int(32), as Halide types `Expr c = 200;` (parser.cpp).
  std::set<const ExprNode*> let_constants_;
  FuncLabel func_label();      // ^(stage, spec), the '^' already consumed
  ParsedExpr hole();
  ParsedExpr builtin(Op op);
  bool negative_literal_ahead() const;
  ParsedExpr negative_literal();
  ParsedExpr group();
  std::vector<ParsedExpr> expr_list(const Token& open, std::string_view close);
  ParsedExpr with_depth(Expr e, int depth, SourceLoc loc) const;
  ParsedExpr op_node(Op op, const std::vector<ParsedExpr>& parts, SourceLoc loc);
  ParsedExpr sugar_call();  // clamp(e, lo, hi), abs(e)
  // cast<T>(e), saturating_cast<T>(e), T(e) for a type name, and Halide's named operators
  // (absd, widening_add, ..., lerp): nullopt when the identifier ahead is none of them.
  std::optional<ParsedExpr> halide_call();
  void note_types(SourceLoc loc);  // the program is typed
};

// The whole content of a file; a file that cannot be read is an InputError at 0:0 saying
// `cannot read file:` and the system's reason. Only regular files are read (a directory
// is "is a directory"; a device, FIFO or socket such as /dev/zero is refused, since it may
// never end), and at most kMaxInputFileBytes of them: every input halo reads (programs,
// fills, manifests, query documents, fuzzer inputs) goes through here. "-" is standard
// input, read up to the same cap.
inline constexpr size_t kMaxInputFileBytes = size_t{64} << 20;
std::string read_source_file(const std::string& path);

// ---------------------------------------------------------------- the printers
// The realize section as printed at the end of both kinds of program (with its newline).
std::string print_realization(const Realization& r);

}  // namespace halo

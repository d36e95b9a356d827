// The recursive-descent parser of parser.hpp, one function per rule of the grammar in
// docs/syntax.md.
//
// Two things shape it beyond the grammar. Every error is an InputError that says, in
// words, what was expected and what was found, at the location of the offending token.
// And no input may exhaust the stack: every construct that makes the parser recurse
// counts against kMaxNesting on the way down, and every tree node built counts its own
// height, so that a long left-associative chain (which the parser builds in a loop) cannot
// produce a tree that would overflow the recursion of later passes either.
#include "semantics/parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <variant>

#include "semantics/lexer.hpp"

namespace halo {

namespace {

// An expression and its nesting depth: 0 for a leaf, else one more than its deepest part,
// where parentheses count as a part.
struct Parsed {
  Expr expr;
  int depth = 0;
};

// A stage before we know whether it stands where it is allowed.
using Stage = std::variant<Expr, UpdateStage>;

std::string loc_text(SourceLoc l) { return fmt::format("{}:{}", l.line, l.col); }

std::string describe(const Token& t) {
  constexpr size_t kShown = 24;  // keep messages readable when a literal is huge
  if (t.kind == TokenKind::End) return "end of file";
  std::string text =
      t.text.size() > kShown ? fmt::format("{}...", t.text.substr(0, kShown)) : std::string(t.text);
  if (t.kind == TokenKind::Keyword) return fmt::format("reserved word '{}'", text);
  if (t.text == "<-") return "'<-' (to compare with a negative number, write '< -')";
  return fmt::format("'{}'", text);
}

std::vector<Expr> exprs_of(const std::vector<Parsed>& ps) {
  std::vector<Expr> es;
  es.reserve(ps.size());
  for (const auto& p : ps) es.push_back(p.expr);
  return es;
}

int deepest(const std::vector<Parsed>& ps) {
  int d = 0;
  for (const auto& p : ps) d = std::max(d, p.depth);
  return d;
}

Precedence tighter(Precedence p) { return static_cast<Precedence>(static_cast<int>(p) + 1); }

Value literal_value(const Token& t, bool negative) {
  // The lexer only makes Integer tokens of at least one digit, so this cannot fail.
  return *Value::parse(negative ? fmt::format("-{}", t.text) : std::string(t.text));
}

class Parser {
 public:
  Parser(std::string_view source, std::string file) : file_(std::move(file)), toks_(lex(source, file_)) {}

  Program program();
  Expr lone_expr();

 private:
  std::string file_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int open_ = 0;  // constructs the parser is currently inside (it recurses once for each)

  // Marks one level of recursion for as long as it lives.
  class Nest {
   public:
    Nest(Parser& p, SourceLoc where) : p_(p) {
      if (++p_.open_ > kMaxNesting) p_.too_deep(where);
    }
    ~Nest() { --p_.open_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    Parser& p_;
  };

  // ---------------------------------------------------------------- tokens
  const Token& peek(size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  const Token& advance() {
    const Token& t = peek();
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool at(std::string_view text, size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return (t.kind == TokenKind::Symbol || t.kind == TokenKind::Keyword) && t.text == text;
  }
  bool at_end() const { return peek().kind == TokenKind::End; }
  bool accept(std::string_view text) {
    if (!at(text)) return false;
    advance();
    return true;
  }

  // ---------------------------------------------------------------- errors
  [[noreturn]] void fail(SourceLoc loc, std::string message) const {
    throw InputError(Diagnostic{file_, loc, std::move(message)});
  }
  [[noreturn]] void fail_expected(std::string_view what) const {
    fail(peek().loc, fmt::format("expected {}, found {}", what, describe(peek())));
  }
  [[noreturn]] void unclosed(const Token& open, std::string_view what) const {
    fail(peek().loc,
         fmt::format("unexpected end of file: the {} opened at {} is not closed", what, loc_text(open.loc)));
  }
  [[noreturn]] void too_deep(SourceLoc loc) const {
    fail(loc, fmt::format("expression nested too deeply (limit {})", kMaxNesting));
  }

  const Token& expect(std::string_view text, std::string_view context) {
    if (!at(text)) fail_expected(fmt::format("'{}' {}", text, context));
    return advance();
  }
  void expect_close(std::string_view close, const Token& open) {
    if (!accept(close))
      fail_expected(fmt::format("'{}' to close '{}' opened at {}", close, open.text, loc_text(open.loc)));
  }

  // item (',' item)* up to `close`, the opening token already consumed; may be empty.
  template <typename F>
  auto comma_list(const Token& open, std::string_view close, F item) {
    std::vector<decltype(item())> items;
    if (accept(close)) return items;
    while (true) {
      items.push_back(item());
      if (accept(",")) continue;
      if (accept(close)) return items;
      fail_expected(
          fmt::format("',' or '{}' to close '{}' opened at {}", close, open.text, loc_text(open.loc)));
    }
  }

  Name name(std::string_view what) {
    if (peek().kind != TokenKind::Identifier) fail_expected(what);
    const Token& t = advance();
    return Name{std::string(t.text), t.loc};
  }
  std::vector<Name> names_in_parens(std::string_view after, std::string_view what) {
    const Token& open = expect("(", after);
    return comma_list(open, ")", [&] { return name(what); });
  }

  // ---------------------------------------------------------------- sections
  void sections(Program& p);
  Pipeline pipeline();
  FuncDef func();
  void add_stage(FuncDef& f, Stage stage, SourceLoc start) const;
  Stage stage();
  bool starts_lhs_list() const;
  UpdateStage update_with_rdom();
  UpdateStage update_rest(UpdateStage u);
  RVar rvar();
  std::vector<Directive> schedule();
  Directive directive();
  void directive_arg(Directive& d, const DirectiveParam& param);
  [[noreturn]] void wrong_arity(DirectiveKind kind, SourceLoc loc) const;
  LoopName loop_name();
  int64_t loop_index(std::string_view what);
  Realization realization();

  struct SignedLiteral {
    Value value;
    SourceLoc loc;
  };
  SignedLiteral signed_literal(std::string_view what);

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
  Parsed expr() { return binary_rest(unary(), Precedence::Or); }
  Parsed binary_rest(Parsed lhs, Precedence min);
  Parsed unary();
  Parsed primary();
  Parsed access_or_var();
  Parsed builtin(Op op);
  bool negative_literal_ahead() const;
  Parsed negative_literal();
  Parsed group();
  std::vector<Parsed> expr_list(const Token& open, std::string_view close);
  Parsed with_depth(Expr e, int depth, SourceLoc loc) const {
    if (depth > kMaxNesting) too_deep(loc);
    return Parsed{std::move(e), depth};
  }
  Parsed op_node(Op op, const std::vector<Parsed>& parts, SourceLoc loc) const {
    return with_depth(make_op(op, exprs_of(parts), loc), 1 + deepest(parts), loc);
  }
};

// ---------------------------------------------------------------- sections
Program Parser::program() {
  Program p;
  p.file = file_;
  if (!at("pipeline")) fail_expected("'pipeline' at the start of the program");
  p.pipeline = pipeline();
  sections(p);
  return p;
}

void Parser::sections(Program& p) {
  std::optional<SourceLoc> schedule_at;
  while (!at_end()) {
    SourceLoc here = peek().loc;
    if (at("schedule")) {
      if (schedule_at)
        fail(here, fmt::format("a program has at most one schedule section (the first is at {})",
                               loc_text(*schedule_at)));
      if (p.realize) fail(here, "the schedule section must come before the realize section");
      schedule_at = here;
      p.schedule = schedule();
    } else if (at("realize")) {
      if (p.realize)
        fail(here, fmt::format("a program has at most one realize section (the first is at {})",
                               loc_text(p.realize->loc)));
      p.realize = realization();
    } else if (at("pipeline")) {
      fail(here, "a program has exactly one pipeline");
    } else if (p.realize) {
      fail_expected("end of file after the realize section");
    } else if (p.schedule) {
      fail_expected("'realize' or end of file after the schedule");
    } else {
      fail_expected("'schedule', 'realize' or end of file after the pipeline");
    }
  }
}

Pipeline Parser::pipeline() {
  Pipeline pl;
  pl.loc = advance().loc;
  pl.name = name("the name of the pipeline (its output func)");
  pl.params = names_in_parens("after the pipeline name", "a parameter name");
  const Token& open = expect("{", "to start the pipeline body");
  while (!at("}")) {
    if (at_end()) unclosed(open, "pipeline body");
    if (!at("fun"))
      fail_expected(fmt::format("'fun' or '}}' to close the pipeline body opened at {}", loc_text(open.loc)));
    pl.funcs.push_back(func());
    accept(";");  // the thesis separates definitions with `;` (D ::= D; F): tolerate it
  }
  if (pl.funcs.empty()) fail(peek().loc, "a pipeline must define at least one func");
  advance();
  return pl;
}

FuncDef Parser::func() {
  FuncDef f;
  f.loc = advance().loc;
  f.name = name("a func name");
  f.vars = names_in_parens("after the func name", "a variable name");
  expect("=", fmt::format("after the signature of func {}", f.name.text));
  const Token& open = expect("{", fmt::format("to start the body of func {}", f.name.text));
  while (true) {
    SourceLoc start = peek().loc;
    add_stage(f, stage(), start);
    if (accept(";") && !at("}")) continue;
    if (accept("}")) return f;
    if (at_end()) unclosed(open, fmt::format("body of func {}", f.name.text));
    fail_expected("';' or '}' after the stage");
  }
}

void Parser::add_stage(FuncDef& f, Stage stage, SourceLoc start) const {
  bool is_update = std::holds_alternative<UpdateStage>(stage);
  if (!f.pure) {
    if (is_update)
      fail(start, fmt::format("the first stage of func {} must be its pure definition (an expression), "
                              "not an update",
                              f.name.text));
    f.pure = std::get<Expr>(std::move(stage));
    return;
  }
  if (!is_update) fail(start, "every stage after the first must be an update: (e1, ..., en) <- value");
  f.updates.push_back(std::get<UpdateStage>(std::move(stage)));
}

// `(x) <- e` is an update while `(x) + 1` is a pure stage, and only the token after the
// closing parenthesis tells them apart: so a stage that opens with '(' is read as a
// parenthesised list first, then either becomes a left-hand side or the first operand of
// the pure expression.
Stage Parser::stage() {
  if (at("rdom")) return update_with_rdom();
  if (at("<-")) fail(peek().loc, "'<-' needs a left-hand side: (e1, ..., en) <- value");
  Parsed pure;
  if (starts_lhs_list()) {
    const Token& open = advance();
    std::vector<Parsed> items = expr_list(open, ")");
    if (at("<-")) {
      UpdateStage u;
      u.loc = open.loc;
      u.explicit_rdom = false;
      u.lhs = exprs_of(items);
      return update_rest(std::move(u));
    }
    if (items.size() != 1)
      fail_expected(fmt::format("'<-' after the left-hand side opened at {}", loc_text(open.loc)));
    pure = binary_rest(with_depth(items[0].expr, items[0].depth + 1, open.loc), Precedence::Or);
  } else {
    pure = expr();
  }
  if (at("<-")) fail(peek().loc, "the left-hand side of '<-' must be in parentheses: (e1, ..., en) <- value");
  return pure.expr;
}

// A `(-5)` not followed by `<-` is the negative constant, not a one-element list.
bool Parser::starts_lhs_list() const { return at("(") && !(negative_literal_ahead() && !at("<-", 4)); }

UpdateStage Parser::update_with_rdom() {
  UpdateStage u;
  u.loc = advance().loc;
  u.explicit_rdom = true;
  const Token& open = expect("(", "after 'rdom'");
  u.rdom = comma_list(open, ")", [&] { return rvar(); });
  expect("in", "after the rdom");
  const Token& lhs = expect("(", "to start the left-hand side (e1, ..., en) of the update");
  u.lhs = exprs_of(expr_list(lhs, ")"));
  if (!at("<-")) fail_expected("'<-' after the left-hand side of the update");
  return update_rest(std::move(u));
}

UpdateStage Parser::update_rest(UpdateStage u) {
  advance();  // <-
  u.value = expr().expr;
  if (accept("if")) u.predicate = expr().expr;
  return u;
}

RVar Parser::rvar() {
  RVar r;
  r.name = name("a reduction variable name");
  expect("=", fmt::format("after the reduction variable {}", r.name.text));
  auto [loc, min, len] = interval([&] { return expr().expr; });
  r.min = std::move(min);
  r.len = std::move(len);
  return r;
}

std::vector<Directive> Parser::schedule() {
  advance();
  const Token& open = expect("{", "after 'schedule'");
  std::vector<Directive> ds;
  while (!accept("}")) {
    if (at_end()) unclosed(open, "schedule");
    ds.push_back(directive());
    if (accept(";") || at("}")) continue;
    if (at_end()) unclosed(open, "schedule");
    fail_expected("';' after the directive");
  }
  return ds;
}

Directive Parser::directive() {
  const Token& t = peek();
  auto kind = t.kind == TokenKind::Keyword ? directive_kind(t.text) : std::nullopt;
  if (!kind) {
    std::string known;
    for (const auto& d : all_directives())
      known += fmt::format("{}{}", known.empty() ? "" : ", ", directive_name(d.kind));
    if (t.kind == TokenKind::Identifier)
      fail(t.loc, fmt::format("unknown directive '{}'; the directives are {}", t.text, known));
    fail_expected(fmt::format("a directive ({})", known));
  }
  advance();
  Directive d;
  d.kind = *kind;
  d.loc = t.loc;
  const Token& open = expect("(", fmt::format("after '{}'", t.text));
  bool first = true;
  for (const auto& param : directive_syntax(d.kind).params) {
    if (at(")")) wrong_arity(d.kind, peek().loc);
    if (!first) expect(",", fmt::format("between the arguments of {}", t.text));
    first = false;
    directive_arg(d, param);
  }
  if (at(",")) wrong_arity(d.kind, peek().loc);
  expect_close(")", open);
  return d;
}

void Parser::directive_arg(Directive& d, const DirectiveParam& param) {
  switch (param.arg) {
    case DirectiveArg::Func: d.func = name("a func name"); return;
    case DirectiveArg::Loop: d.loop = loop_name(); return;
    case DirectiveArg::Name: d.names.push_back(name("a variable name")); return;
    case DirectiveArg::Expression: d.exprs.push_back(expr().expr); return;
    case DirectiveArg::Expressions:
      do d.exprs.push_back(expr().expr);
      while (accept(","));
      return;
    case DirectiveArg::Tail:
      if (auto tail = tail_strategy(peek().text); tail && peek().kind == TokenKind::Identifier) {
        advance();
        d.tail = *tail;
        return;
      }
      fail_expected(fmt::format("a tail strategy ({})", param.placeholder));
    case DirectiveArg::Order:
      if (auto order = traversal(peek().text); order && peek().kind == TokenKind::Identifier) {
        advance();
        d.order = *order;
        return;
      }
      fail_expected(fmt::format("a traversal order ({})", param.placeholder));
  }
}

void Parser::wrong_arity(DirectiveKind kind, SourceLoc loc) const {
  const auto& params = directive_syntax(kind).params;
  bool variadic = !params.empty() && params.back().arg == DirectiveArg::Expressions;
  fail(loc, fmt::format("{} takes {}{} argument{}: {}", directive_name(kind), variadic ? "at least " : "",
                        params.size(), params.size() == 1 ? "" : "s", directive_usage(kind)));
}

LoopName Parser::loop_name() {
  if (!at("<")) fail_expected("a loop name <f, j, i, v>");
  const Token& open = advance();
  LoopName l;
  l.loc = open.loc;
  constexpr std::string_view kIn = "in the loop name <f, j, i, v>";
  l.func = name("a func name");
  expect(",", kIn);
  l.spec = loop_index("specialization index");
  expect(",", kIn);
  l.stage = loop_index("stage index");
  expect(",", kIn);
  l.var = name("a loop variable name");
  expect_close(">", open);
  return l;
}

int64_t Parser::loop_index(std::string_view what) {
  auto [value, loc] = signed_literal(fmt::format("the {} of the loop name (an integer)", what));
  if (value.sign() < 0)
    fail(loc, fmt::format("the {} of a loop name must be non-negative, found {}", what, value.to_string()));
  auto small = value.as_int64();
  if (!small) fail(loc, fmt::format("the {} of a loop name is too large (it must fit in 64 bits)", what));
  return *small;
}

Realization Parser::realization() {
  Realization r;
  r.loc = advance().loc;
  const Token& open = expect("(", "after 'realize' (the parameter values, e.g. realize (w = 1))");
  r.params = comma_list(open, ")", [&] {
    ParamBinding b;
    b.name = name("a parameter name");
    expect("=", fmt::format("after the parameter {}", b.name.text));
    b.value = signed_literal("an integer").value;
    return b;
  });
  if (!accept("over")) return r;
  do {
    auto [loc, min, len] = interval([&] { return signed_literal("an integer").value; });
    r.window.push_back(Interval{std::move(min), std::move(len), loc});
  } while (accept(","));
  if (at("(")) fail_expected("',' between the intervals of the window");
  return r;
}

Parser::SignedLiteral Parser::signed_literal(std::string_view what) {
  SourceLoc loc = peek().loc;
  bool negative = accept("-");
  if (peek().kind != TokenKind::Integer) fail_expected(what);
  return SignedLiteral{literal_value(advance(), negative), loc};
}

// ---------------------------------------------------------------- expressions
Parsed Parser::binary_rest(Parsed lhs, Precedence min) {
  while (peek().kind == TokenKind::Symbol) {
    auto op = infix_op(peek().text);
    if (!op || precedence(*op) < min) break;
    const Token& t = advance();
    Parsed rhs = binary_rest(unary(), tighter(precedence(*op)));
    lhs = op_node(*op, {lhs, rhs}, t.loc);
  }
  return lhs;
}

Parsed Parser::unary() {
  if (!at("-") && !at("!")) return primary();
  const Token& t = advance();
  Parsed operand;
  {
    Nest nest(*this, t.loc);
    operand = unary();
  }
  return op_node(t.text == "-" ? Op::Neg : Op::Not, {operand}, t.loc);
}

Parsed Parser::primary() {
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::Integer: advance(); return Parsed{make_const(literal_value(t, false), t.loc), 0};
    case TokenKind::Identifier: return access_or_var();
    case TokenKind::Keyword:
      if (auto op = builtin_op(t.text)) return builtin(*op);
      break;
    case TokenKind::Symbol:
      if (t.text == "(") return negative_literal_ahead() ? negative_literal() : group();
      break;
    case TokenKind::End: break;
  }
  fail_expected("an expression");
}

Parsed Parser::access_or_var() {
  const Token& name = advance();
  if (at("(")) fail(peek().loc, fmt::format("func accesses use brackets: write {}[...]", name.text));
  if (!at("[")) return Parsed{make_var(std::string(name.text), name.loc), 0};
  std::vector<Parsed> args = expr_list(advance(), "]");
  return with_depth(make_call(std::string(name.text), exprs_of(args), name.loc), 1 + deepest(args), name.loc);
}

Parsed Parser::builtin(Op op) {
  const Token& name = advance();
  if (at("["))
    fail(peek().loc,
         fmt::format("'{}' is a built-in operator, not a func: write {}(...)", name.text, name.text));
  std::vector<Parsed> args = expr_list(expect("(", fmt::format("after the built-in '{}'", name.text)), ")");
  if (std::ssize(args) != op_arity(op))
    fail(name.loc, fmt::format("{} expects {} arguments, found {}", name.text, op_arity(op), args.size()));
  return op_node(op, args, name.loc);
}

// `(-5)` is how the printer writes a negative constant, while `-5` is the negation of 5:
// both evaluate alike, but the tree must survive printing and parsing unchanged.
bool Parser::negative_literal_ahead() const {
  return at("(") && at("-", 1) && peek(2).kind == TokenKind::Integer && at(")", 3);
}

Parsed Parser::negative_literal() {
  SourceLoc loc = advance().loc;
  advance();  // -
  Value v = literal_value(advance(), true);
  advance();  // )
  return Parsed{make_const(std::move(v), loc), 0};
}

Parsed Parser::group() {
  const Token& open = advance();
  Parsed inner;
  {
    Nest nest(*this, open.loc);
    inner = expr();
  }
  expect_close(")", open);
  return with_depth(inner.expr, inner.depth + 1, open.loc);
}

std::vector<Parsed> Parser::expr_list(const Token& open, std::string_view close) {
  Nest nest(*this, open.loc);
  return comma_list(open, close, [&] { return expr(); });
}

Expr Parser::lone_expr() {
  Parsed e = expr();
  if (!at_end()) fail_expected("end of input after the expression");
  return e.expr;
}

}  // namespace

Program parse_program(std::string_view source, const std::string& file) {
  return Parser(source, file).program();
}

Expr parse_expr(std::string_view source, const std::string& file) { return Parser(source, file).lone_expr(); }

Program parse_file(const std::string& path) {
  auto cannot_read = [&](int err) {
    return InputError(Diagnostic{path, {}, fmt::format("cannot read file: {}", std::strerror(err))});
  };
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw cannot_read(errno);
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) text.append(buf, n);
  if (std::ferror(f.get())) throw cannot_read(errno);
  return parse_program(text, path);
}

}  // namespace halo

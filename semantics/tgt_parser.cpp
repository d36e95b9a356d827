// The target-language parser of tgt_parser.hpp: the statement and program rules of the
// grammar in docs/target-syntax.md, on top of the parser core shared with the .halo parser
// (tokens, errors, expressions, loop names, the realize section).
//
// The statement words (`target`, `nop`, `assert`, `allocate`, `for`, `let`, `label`,
// `else`) are identifiers that act as keywords only where a statement starts, and only
// when no `^` or `[` follows (which would make them the func of a store): reserving them
// would make algorithms that use such names impossible to lower and print.
//
// Statements nest through blocks, and the parser recurses once per block: the block depth
// is held to kMaxStatementNesting (parser.hpp: deep enough for all halo prints), so that
// no input exhausts the (big) stack here or in the passes that later walk the tree.
#include "semantics/tgt_parser.hpp"

#include <fmt/format.h>

#include "semantics/lexer.hpp"
#include "semantics/parser.hpp"
#include "semantics/typing.hpp"

namespace halo {

namespace {

constexpr std::string_view kStatements =
    "a statement (nop, assert, allocate, a store f^(stage, spec)[...] <- e, if, for, let or label)";

class TgtParser : public ParserCore {
 public:
  TgtParser(std::string_view source, std::string file) : ParserCore(source, std::move(file), Dialect::Target) {}

  TgtProgram program();

 private:
  Stmt block(int depth, std::string_view what);
  Stmt stmt(int depth);
  Stmt store();
  Stmt allocate(const Token& keyword);
  Stmt if_stmt(int depth);
  Stmt for_stmt(const Token& keyword, int depth);
  Stmt let_stmt(const Token& keyword, int depth);
  Stmt label_stmt(const Token& keyword, int depth);
  std::string label_name();
  void end_of_statement(std::string_view what) { expect(";", fmt::format("after {}", what)); }
};

TgtProgram TgtParser::program() {
  TgtProgram p;
  p.file = file_;
  if (!at_word("target")) fail_expected("'target pipeline' at the start of a target program");
  p.loc = advance().loc;
  expect("pipeline", "after 'target'");
  p.name = name("the name of the pipeline (its output func)").text;
  std::vector<ParamDecl> declared = param_list();
  for (const ParamDecl& d : declared) p.params.push_back(d.name.text);
  if (accept("over")) {
    do {
      auto [loc, min, len] = interval([&] { return name("a window variable name").text; });
      p.window.emplace_back(std::move(min), std::move(len));
    } while (accept(","));
    if (at("(")) fail_expected("',' between the intervals of the window");
  }
  while (at_word("input")) {  // input img(x, y) : u8
    advance();
    TgtInput in;
    in.name = name("an input name").text;
    for (const Name& v : names_in_parens("after the input name", "a dimension name")) in.vars.push_back(v.text);
    if (at(":")) in.type = type_annotation(fmt::format("of the values of input {}", in.name));
    p.inputs.push_back(std::move(in));
  }
  p.body = block(0, "pipeline body");
  if (at("realize")) p.realize = realization();
  if (!at_end())
    fail_expected(p.realize ? "end of file after the realize section"
                            : "'realize' or end of file after the pipeline body");
  // A type written anywhere makes the program typed (docs/types.md, "Typed target programs").
  p.typed = saw_types();
  if (p.typed) {
    for (const ParamDecl& d : declared) p.param_types.push_back(d.type.value_or(Type::int_(32)));
    for (TgtInput& in : p.inputs)
      if (in.type == Type::z()) in.type = Type::int_(32);
    type_target(p);
  }
  return p;
}

// `{ s1 ... sn }`: nop when empty, the statement itself when alone, else a sequence
// located at the brace. `depth` counts the blocks around this one, the pipeline's not
// included.
Stmt TgtParser::block(int depth, std::string_view what) {
  const Token& open = expect("{", fmt::format("to start the {}", what));
  if (depth > kMaxStatementNesting)
    fail(open.loc, fmt::format("statements nested too deeply (limit {})", kMaxStatementNesting));
  std::vector<Stmt> stmts;
  while (!accept("}")) {
    if (at_end()) unclosed(open, what);
    stmts.push_back(stmt(depth));
  }
  return make_seq(std::move(stmts), open.loc);
}

Stmt TgtParser::stmt(int depth) {
  const Token& t = peek();
  if (at("if")) return if_stmt(depth);
  if (t.kind != TokenKind::Identifier) fail_expected(kStatements);
  if (at("^", 1) || at("[", 1)) return store();
  if (t.text == "nop") {
    advance();
    end_of_statement("'nop'");
    return make_nop(t.loc);
  }
  if (t.text == "assert") {
    advance();
    Expr cond = expr().expr;
    end_of_statement("the assertion");
    return make_assert(std::move(cond), t.loc);
  }
  if (t.text == "allocate") return allocate(advance());
  if (t.text == "for") return for_stmt(advance(), depth);
  if (t.text == "let") return let_stmt(advance(), depth);
  if (t.text == "label") return label_stmt(advance(), depth);
  fail_expected(kStatements);
}

// f^(stage, spec)[e1, ..., en] <- e: the left-hand side is read as the access expression
// it looks like, so labels and arguments follow the expression rules exactly.
Stmt TgtParser::store() {
  Expr lhs = access_or_var().expr;  // an identifier followed by '^' or '[': always a call
  const auto& call = as<CallNode>(lhs);
  if (!at("<-"))
    fail_expected(fmt::format("'<-' after {}[...] (a store is f^(stage, spec)[e1, ..., en] <- e)", call.func));
  advance();
  Expr value = expr().expr;
  end_of_statement("the store");
  return make_store(call.func, call.label, call.args, std::move(value), lhs->loc);
}

Stmt TgtParser::allocate(const Token& keyword) {
  std::string func = name("the name of the func to allocate").text;
  const Token& open = expect("(", fmt::format("after 'allocate {}' (one interval (min, len) per dimension)", func));
  auto bounds = comma_list(open, ")", [&] {
    auto [loc, min, len] = interval([&] { return expr().expr; });
    return std::pair{std::move(min), std::move(len)};
  });
  Type type = at(":") ? type_annotation(fmt::format("of the values of buffer {}", func)) : Type::z();
  end_of_statement("the allocation");
  return make_allocate(std::move(func), std::move(bounds), keyword.loc, type);
}

Stmt TgtParser::if_stmt(int depth) {
  const Token& keyword = advance();
  const Token& open = expect("(", "after 'if' (the condition is in parentheses)");
  Expr cond = expr().expr;
  expect_close(")", open);
  Stmt then_case = block(depth + 1, "then branch");
  Stmt else_case;
  if (at_word("else") && !at("^", 1) && !at("[", 1)) {
    advance();
    else_case = block(depth + 1, "else branch");
  }
  return make_if(std::move(cond), std::move(then_case), std::move(else_case), keyword.loc);
}

Stmt TgtParser::for_stmt(const Token& keyword, int depth) {
  LoopName l = loop_name();
  expect("in", "after the loop name");
  auto [loc, min, len] = interval([&] { return expr().expr; });
  Traversal o = order("serial|parallel|vectorized|unrolled");
  scope_.emplace_back(l.var.text, qualified_var(l));  // the loop binds its name (ast.hpp)
  Stmt body = block(depth + 1, "loop body");
  scope_.pop_back();
  return make_for(l.func.text, l.spec, l.stage, l.var.text, std::move(min), std::move(len), o, std::move(body),
                  keyword.loc);
}

// let x = e in { s } or let <f, j, i, x> = e in { s }: the second rebinds a loop's qualified
// variable, as split and fuse do; a reader calls it x inside the body.
Stmt TgtParser::let_stmt(const Token& keyword, int depth) {
  std::string var = at("<") ? qualified_var(loop_name()) : name("a variable name").text;
  expect("=", fmt::format("after 'let {}'", var));
  Expr value = expr().expr;
  expect("in", fmt::format("after the value of {}", var));
  scope_.emplace_back(short_var(var), var);
  Stmt body = block(depth + 1, "body of the let");
  scope_.pop_back();
  return make_let(std::move(var), std::move(value), std::move(body), keyword.loc);
}

Stmt TgtParser::label_stmt(const Token& keyword, int depth) {
  std::string label = label_name();
  expect(":", fmt::format("after the label {}", label));
  Stmt body = block(depth + 1, "labelled block");
  return make_label(std::move(label), std::move(body), keyword.loc);
}

// f, f.s0, f.s0.b: the names lowering gives a func's computation and its stages.
std::string TgtParser::label_name() {
  std::string label = name("a label name (e.g. f or f.s0)").text;
  while (accept(".")) label += "." + name("a name after '.' in the label").text;
  return label;
}

}  // namespace

TgtProgram parse_tgt(std::string_view source, const std::string& file) { return TgtParser(source, file).program(); }

TgtProgram parse_tgt_file(const std::string& path) { return parse_tgt(read_source_file(path), path); }

Expr parse_tgt_expr(std::string_view source, const std::string& file) { return TgtParser(source, file).lone_expr(); }

bool looks_like_tgt(std::string_view source) {
  try {
    Token t = first_token(source, "");
    return t.kind == TokenKind::Identifier && t.text == "target";
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace halo

// Tests of the target language's text and JSON forms (docs/target-syntax.md): the trees the
// parser builds for every statement form, holes and labelled accesses, the canonical
// printer, locations, error messages and the malformed corpus tests/invalid/tgt_*.tgt, the
// sample programs tests/tgt/*.tgt, the JSON shape and its error paths, and the properties
// that printing then parsing, and writing then reading JSON, give the same program back and
// that no input — bytes, tokens or damaged JSON — crashes either reader.
#include <rapidcheck/catch.h>

#include <catch2/catch.hpp>
#include "tests/support.hpp"
#include "support/big_stack.hpp"
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "semantics/lexer.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_json.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/tgt_printer.hpp"

using namespace halo;
using halo::test::where;
using nlohmann::json;

namespace {

const char* const kSample = R"(# a comment
target pipeline f(w) over (x_min, x_len), (y_min, y_len) {
  allocate g((?mem<g, x>.min, ?mem<g, x>.len), (?mem<g, y>.min, ?mem<g, y>.len));
  label g: {
    label g.s0: {
      for <g, 0, 0, y> in (?cpu<g, 0, 0, y>.min, ?cpu<g, 0, 0, y>.len) serial {
        for <g, 0, 0, x> in (?cpu<g, 0, 0, x>.min, ?cpu<g, 0, 0, x>.len) serial {
          if (1) { g^(0, 0)[x, y] <- x * 3 + y % 7; }
        }
      }
    }
  }
  let t = x_min + 1 in { assert t > 0; }
  if (w > 0) { nop; } else { nop; }
}
realize (w = 1) over (0, 16), (0, 12)
)";

// The canonical printout of kSample: no comment, no `else { nop; }`, a blank line before
// the realize section.
const char* const kSamplePrinted = R"(target pipeline f(w) over (x_min, x_len), (y_min, y_len) {
  allocate g((?mem<g, x>.min, ?mem<g, x>.len), (?mem<g, y>.min, ?mem<g, y>.len));
  label g: {
    label g.s0: {
      for <g, 0, 0, y> in (?cpu<g, 0, 0, y>.min, ?cpu<g, 0, 0, y>.len) serial {
        for <g, 0, 0, x> in (?cpu<g, 0, 0, x>.min, ?cpu<g, 0, 0, x>.len) serial {
          if (1) { g^(0, 0)[x, y] <- x * 3 + y % 7; }
        }
      }
    }
  }
  let t = x_min + 1 in { assert t > 0; }
  if (w > 0) { nop; }
}

realize (w = 1) over (0, 16), (0, 12)
)";

Expr C(int64_t v) { return make_const(v); }
Expr V(const std::string& n) { return make_var(n); }
Expr O(Op op, std::vector<Expr> args) { return make_op(op, std::move(args)); }
Expr mem(const std::string& f, const std::string& x, bool len) {
  return make_hole(HoleLabel{HoleKind::Mem, len, f, x, FuncLabel::kNone, FuncLabel::kNone});
}
Expr cpu(const std::string& f, int64_t spec, int64_t stage, const std::string& x, bool len) {
  return make_hole(HoleLabel{HoleKind::Cpu, len, f, x, stage, spec});
}


std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The program whose body is `body` (statements, without the braces).
std::string with_body(const std::string& body) { return "target pipeline p(n) over (a, b) {\n" + body + "\n}\n"; }
Stmt body_of(const std::string& body) { return parse_tgt(with_body(body), "t.tgt").body; }

void tgt_error(const std::string& src, const std::string& at, const std::string& message) {
  test::require_error([](const std::string& s) { parse_tgt(s, "t.tgt"); }, src, "t.tgt", at, message);
}
void body_error(const std::string& body, const std::string& at, const std::string& message) {
  tgt_error(with_body(body), at, message);
}

// Reading `j` fails with a message containing `message` (which names the JSON pointer).
template <typename Read>
void json_error(Read read, const json& j, const std::string& message) {
  INFO("json: " << j.dump().substr(0, 200));
  try {
    read(j);
    FAIL("read without error");
  } catch (const InputError& e) {
    INFO(e.what());
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(where(e.diagnostics()[0].loc) == "0:0");
    CHECK(e.diagnostics()[0].file == "t.json");
    CHECK_THAT(e.diagnostics()[0].message, Catch::Contains(message));
  }
}
void program_json_error(const json& j, const std::string& message) {
  json_error([](const json& x) { tgt_from_json(x, "t.json"); }, j, message);
}

// Text and JSON both give `p` back, and printing is idempotent.
void require_round_trips(const TgtProgram& p) {
  std::string text = print_tgt(p);
  INFO(text);
  TgtProgram q = parse_tgt(text, "printed");
  REQUIRE(same_tgt(q, p));
  REQUIRE(print_tgt(q) == text);
  json j = tgt_to_json(p);
  REQUIRE(same_tgt(tgt_from_json(j, "t.json"), p));
  REQUIRE(same_tgt(tgt_from_json(json::parse(j.dump()), "t.json"), p));
}

// ---------------------------------------------------------------- generators
// Names include the words that are keywords only where a statement starts: they must
// stay usable as names of funcs and variables.
const std::vector<std::string> kNames = {"x",   "y",   "f",      "g",     "w",        "_t0",
                                         "nop", "for", "let",    "label", "else",     "target",
                                         "mem", "cpu", "assert", "len",   "allocate", "serial"};

std::string gen_name() { return *rc::gen::elementOf(kNames); }

// A variable of an expression or a let. Well-formed trees (docs/target-syntax.md) never read
// a plain variable inside a loop or qualified let that a reader calls by the same name (the
// text would mean the loop's variable), so plain names here end in _v, which no loop
// variable does; qualified variables <f, j, i, x> may be read anywhere.
std::string gen_var() {
  if (*rc::gen::inRange(0, 3) == 0)
    return qualified_var(gen_name(), *rc::gen::inRange<int64_t>(0, 3), *rc::gen::inRange<int64_t>(0, 3), gen_name());
  return gen_name() + "_v";
}

Value gen_value() {
  switch (*rc::gen::inRange(0, 5)) {
    case 0: return Value(*rc::gen::arbitrary<int64_t>());
    case 1: return Value(*rc::gen::element(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
    case 2: {  // beyond 64 bits, either sign
      BigInt big = BigInt(1) << *rc::gen::inRange(64, 200);
      return Value::from_big(*rc::gen::arbitrary<bool>() ? big : -big - 1);
    }
    default: return Value(int64_t(*rc::gen::inRange(-3, 20)));
  }
}

int64_t gen_index() { return *rc::gen::element<int64_t>(0, 1, 2, 7, std::numeric_limits<int64_t>::max()); }
int64_t gen_spec() { return *rc::gen::element<int64_t>(0, 1, 3, FuncLabel::kShared); }

HoleLabel gen_hole() {
  HoleLabel h;
  h.kind = *rc::gen::element(HoleKind::Mem, HoleKind::Cpu);
  h.is_len = *rc::gen::arbitrary<bool>();
  h.func = gen_name();
  h.var = gen_name();
  if (h.kind == HoleKind::Cpu) {
    h.stage = gen_index();
    h.spec = gen_spec();
  }
  return h;
}

FuncLabel gen_func_label() {
  if (*rc::gen::inRange(0, 4) == 0) return FuncLabel{};  // an unlabelled access
  return FuncLabel{gen_index(), gen_spec()};
}

const std::vector<Op> kOps = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Mod, Op::Lt,  Op::Gt,     Op::Eq,  Op::Le,
                              Op::Ge,  Op::Ne,  Op::And, Op::Or,  Op::Not, Op::Neg, Op::Select, Op::Min, Op::Max};

Expr gen_expr(int depth) {
  switch (*rc::gen::inRange(0, depth > 0 ? 6 : 3)) {
    case 0: return make_const(gen_value());
    case 1: return make_var(gen_var());
    case 2: return make_hole(gen_hole());
    case 3: {
      std::vector<Expr> args(*rc::gen::inRange(0, 3));
      for (auto& a : args) a = gen_expr(depth - 1);
      return make_call(gen_name(), std::move(args), {}, gen_func_label());
    }
    default: {
      Op op = *rc::gen::elementOf(kOps);
      std::vector<Expr> args(op_arity(op));
      for (auto& a : args) a = gen_expr(depth - 1);
      return make_op(op, std::move(args));
    }
  }
}

Expr gen_small_expr() { return gen_expr(*rc::gen::inRange(0, 3)); }

std::string gen_label() {
  std::string l = gen_name();
  for (int i = *rc::gen::inRange(0, 3); i > 0; --i) l += "." + *rc::gen::element<std::string>("s0", "s1", "b", "nop");
  return l;
}

Stmt gen_stmt(int depth) {
  switch (*rc::gen::inRange(0, depth > 0 ? 9 : 4)) {
    case 0: return make_nop();
    case 1: return make_assert(gen_small_expr());
    case 2: {
      std::vector<std::pair<Expr, Expr>> bounds(*rc::gen::inRange(0, 3));
      for (auto& b : bounds) b = {gen_small_expr(), gen_small_expr()};
      return make_allocate(gen_name(), std::move(bounds));
    }
    case 3: {
      std::vector<Expr> args(*rc::gen::inRange(0, 3));
      for (auto& a : args) a = gen_small_expr();
      return make_store(gen_name(), gen_func_label(), std::move(args), gen_small_expr());
    }
    case 4: {
      std::vector<Stmt> stmts(*rc::gen::inRange(2, 4));
      for (auto& s : stmts) s = gen_stmt(depth - 1);
      return make_seq(std::move(stmts));
    }
    case 5:
      return make_if(gen_small_expr(), gen_stmt(depth - 1),
                     *rc::gen::arbitrary<bool>() ? gen_stmt(depth - 1) : nullptr);
    case 6:
      return make_for(
          gen_name(), gen_index(), gen_index(), gen_name(), gen_small_expr(), gen_small_expr(),
          *rc::gen::element(Traversal::Serial, Traversal::Parallel, Traversal::Vectorized, Traversal::Unrolled),
          gen_stmt(depth - 1));
    case 7: return make_let(gen_var(), gen_small_expr(), gen_stmt(depth - 1));
    default: return make_label(gen_label(), gen_stmt(depth - 1));
  }
}

TgtProgram gen_program() {
  TgtProgram p;
  p.name = gen_name();
  p.params.resize(*rc::gen::inRange(0, 3));
  for (auto& q : p.params) q = gen_name();
  p.window.resize(*rc::gen::inRange(0, 3));
  for (auto& [mn, ln] : p.window) mn = gen_name(), ln = gen_name();
  p.body = gen_stmt(*rc::gen::inRange(0, 4));
  if (*rc::gen::arbitrary<bool>()) {
    Realization r;
    r.params.resize(*rc::gen::inRange(0, 3));
    for (auto& b : r.params) b = ParamBinding{Name{gen_name(), {}}, gen_value()};
    r.window.resize(*rc::gen::inRange(0, 3));
    for (auto& i : r.window) i = Interval{gen_value(), gen_value(), {}};
    p.realize = std::move(r);
  }
  return p;
}

// Text made of the target language's tokens: it gets past the lexer into the parser.
std::string gen_token_soup() {
  static const std::vector<std::string> vocabulary = {
      "target", "pipeline", "over",   "realize", "nop", "assert", "allocate", "if",  "else", "for", "let",
      "in",     "label",    "serial", "?",       "mem", "cpu",    ".",        "min", "len",  "^",   "*",
      ":",      "f",        "x",      "0",       "-1",  "(",      ")",        "{",   "}",    "[",   "]",
      "<",      ">",        ",",      ";",       "<-",  "=",      "+",        "\n",  "#c\n"};
  auto words = *rc::gen::container<std::vector<std::string>>(rc::gen::elementOf(vocabulary));
  std::string s = *rc::gen::arbitrary<bool>() ? "target pipeline f(x) {" : "";
  for (const auto& w : words) s += w + " ";
  return s;
}

// Every JSON pointer in a document, containers included.
void pointers(const json& j, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
  out.push_back(at);
  if (j.is_object())
    for (const auto& [k, v] : j.items()) pointers(v, at / k, out);
  if (j.is_array())
    for (size_t i = 0; i < j.size(); ++i) pointers(j[i], at / i, out);
}

}  // namespace

// ---------------------------------------------------------------- trees
TEST_CASE("tgt: the sample program", "[tgt]") {
  TgtProgram p = parse_tgt(kSample, "sample.tgt");
  CHECK(p.file == "sample.tgt");
  CHECK(p.name == "f");
  CHECK(p.params == std::vector<std::string>{"w"});
  CHECK(p.window == std::vector<std::pair<std::string, std::string>>{{"x_min", "x_len"}, {"y_min", "y_len"}});
  REQUIRE(p.realize);
  CHECK(p.realize->params.at(0).name.text == "w");
  CHECK(p.realize->params.at(0).value == Value(1));
  CHECK(p.realize->window == std::vector<Interval>{{0, 16, {}}, {0, 12, {}}});

  REQUIRE(p.body->kind == StmtKind::Seq);
  const auto& top = as<SeqStmt>(p.body).stmts;
  REQUIRE(top.size() == 4);

  REQUIRE(top[0]->kind == StmtKind::Allocate);
  const auto& alloc = as<AllocateStmt>(top[0]);
  CHECK(alloc.func == "g");
  REQUIRE(alloc.bounds.size() == 2);
  CHECK(same_expr(alloc.bounds[0].first, mem("g", "x", false)));
  CHECK(same_expr(alloc.bounds[0].second, mem("g", "x", true)));
  CHECK(same_expr(alloc.bounds[1].second, mem("g", "y", true)));

  // label g: label g.s0: for y: for x: if (1) store — each block of one statement is it.
  // Inside the loops, x and y are the loops' qualified variables (docs/target-syntax.md).
  const std::string gx = qualified_var("g", 0, 0, "x"), gy = qualified_var("g", 0, 0, "y");
  Stmt expected = make_label(
      "g", make_label("g.s0",
                      make_for("g", 0, 0, "y", cpu("g", 0, 0, "y", false), cpu("g", 0, 0, "y", true), Traversal::Serial,
                               make_for("g", 0, 0, "x", cpu("g", 0, 0, "x", false), cpu("g", 0, 0, "x", true),
                                        Traversal::Serial,
                                        make_if(C(1), make_store("g", FuncLabel{0, 0}, {V(gx), V(gy)},
                                                                 O(Op::Add, {O(Op::Mul, {V(gx), C(3)}),
                                                                             O(Op::Mod, {V(gy), C(7)})})))))));
  CHECK(same_stmt(top[1], expected));
  CHECK(same_stmt(top[2], make_let("t", O(Op::Add, {V("x_min"), C(1)}), make_assert(O(Op::Gt, {V("t"), C(0)})))));
  CHECK(same_stmt(top[3], make_if(O(Op::Gt, {V("w"), C(0)}), make_nop(), make_nop())));
}

TEST_CASE("tgt: the canonical layout", "[tgt]") {
  TgtProgram p = parse_tgt(kSample, "t");
  CHECK(print_tgt(p) == kSamplePrinted);
  require_round_trips(p);
  CHECK(print_stmt(as<SeqStmt>(p.body).stmts[2], 2) == "    let t = x_min + 1 in { assert t > 0; }\n");
  // A compound statement or a sequence in a block opens it over several lines; an else
  // branch follows the closing brace.
  Stmt s = body_of("if (n) { nop; nop; } else { for <f, 0, 0, x> in (0, n) parallel { nop; } }");
  CHECK(print_stmt(s) ==
        "if (n) {\n"
        "  nop;\n"
        "  nop;\n"
        "} else {\n"
        "  for <f, 0, 0, x> in (0, n) parallel { nop; }\n"
        "}\n");
  // Zero dimensions, zero parameters, an empty body, no realize section.
  CHECK(print_tgt(parse_tgt("target pipeline f() { }", "t")) == "target pipeline f() {\n  nop;\n}\n");
}

TEST_CASE("tgt: every statement form", "[tgt]") {
  CHECK(same_stmt(body_of("nop;"), make_nop()));
  CHECK(same_stmt(body_of(""), make_nop()));
  CHECK(same_stmt(body_of("assert n != 0 || 1;"), make_assert(O(Op::Or, {O(Op::Ne, {V("n"), C(0)}), C(1)}))));
  CHECK(same_stmt(body_of("allocate f();"), make_allocate("f", {})));
  CHECK(same_stmt(body_of("allocate f((0, n), (a - 1, b * 2));"),
                  make_allocate("f", {{C(0), V("n")}, {O(Op::Sub, {V("a"), C(1)}), O(Op::Mul, {V("b"), C(2)})}})));
  CHECK(same_stmt(body_of("f^(1, 2)[x, y + 1] <- f^(0, 2)[x, y];"),
                  make_store("f", FuncLabel{1, 2}, {V("x"), O(Op::Add, {V("y"), C(1)})},
                             make_call("f", {V("x"), V("y")}, {}, FuncLabel{0, 2}))));
  CHECK(same_stmt(body_of("f^(3, *)[] <- g[0];"),
                  make_store("f", FuncLabel{3, FuncLabel::kShared}, {}, make_call("g", {C(0)}))));
  // An unlabelled store, which lowering never makes, still has a spelling.
  CHECK(same_stmt(body_of("f[x] <- 1;"), make_store("f", FuncLabel{}, {V("x")}, C(1))));
  CHECK(same_stmt(body_of("if (n) { nop; }"), make_if(V("n"), make_nop())));
  CHECK(same_stmt(body_of("if (n) { } else { assert 0; }"), make_if(V("n"), make_nop(), make_assert(C(0)))));
  for (auto [text, order] :
       {std::pair{"serial", Traversal::Serial}, std::pair{"parallel", Traversal::Parallel},
        std::pair{"vectorized", Traversal::Vectorized}, std::pair{"unrolled", Traversal::Unrolled}}) {
    INFO(text);
    CHECK(same_stmt(body_of(std::string("for <f, 2, 1, xi> in (a, b) ") + text + " { nop; }"),
                    make_for("f", 2, 1, "xi", V("a"), V("b"), order, make_nop())));
  }
  CHECK(same_stmt(body_of("let v = (-3) in { nop; nop; }"), make_let("v", C(-3), make_seq({make_nop(), make_nop()}))));
  CHECK(same_stmt(body_of("label f.s0.b: { }"), make_label("f.s0.b", make_nop())));
  CHECK(same_stmt(body_of("label f : { nop; }"), make_label("f", make_nop())));
  // A block of several statements is one flat sequence.
  Stmt seq = body_of("nop; assert 1; nop;");
  REQUIRE(seq->kind == StmtKind::Seq);
  CHECK(as<SeqStmt>(seq).stmts.size() == 3);
  // A 0-dimensional output has no `over`.
  TgtProgram p = parse_tgt("target pipeline f() { f^(0, *)[] <- 1; }", "t");
  CHECK(p.window.empty());
  CHECK(p.params.empty());
  CHECK_FALSE(p.realize);
  require_round_trips(p);
}

TEST_CASE("tgt: statement words are keywords only where a statement starts", "[tgt]") {
  // A func or a variable may be called like a statement word: `^` or `[` after the word
  // makes it a store, and anywhere else a name is expected it is a name.
  Stmt s = body_of(
      "nop^(0, 0)[for] <- let;\n"
      "else^(0, *)[label] <- target[mem];\n"
      "let let = for in { for <for, 0, 0, let> in (nop, else) serial { nop; } }\n"
      "label else.label: { if (label) { nop; } else { else[nop] <- cpu; } }\n"
      "allocate allocate((serial, len));");
  std::string text = print_stmt(s);
  INFO(text);
  CHECK(same_stmt(parse_tgt(with_body(text), "t").body, s));
  const auto& stmts = as<SeqStmt>(s).stmts;
  REQUIRE(stmts.size() == 5);
  CHECK(as<StoreStmt>(stmts[0]).func == "nop");
  CHECK(as<StoreStmt>(stmts[1]).func == "else");
  CHECK(as<LetStmt>(stmts[2]).var == "let");
  CHECK(as<ForStmt>(as<LetStmt>(stmts[2]).body).func == "for");
  CHECK(as<LabelStmt>(stmts[3]).label == "else.label");
  const auto& branch = as<IfStmt>(as<LabelStmt>(stmts[3]).body);
  CHECK(as<StoreStmt>(branch.else_case).func == "else");
  CHECK(as<AllocateStmt>(stmts[4]).func == "allocate");
  // A store to `else` right after an if is not its else branch.
  Stmt t = body_of("if (1) { nop; }\nelse^(0, 0)[] <- 1;");
  REQUIRE(t->kind == StmtKind::Seq);
  CHECK(as<IfStmt>(as<SeqStmt>(t).stmts[0]).else_case->kind == StmtKind::Nop);
  CHECK(print_stmt(t) == "if (1) { nop; }\nelse^(0, 0)[] <- 1;\n");
  // And `target` only starts a program; in an algorithm it is an ordinary name.
  CHECK(parse_program("pipeline target(nop) { fun target(label) = { label + nop } }", "t").pipeline.name.text ==
        "target");
}

TEST_CASE("tgt: holes and labelled accesses", "[tgt]") {
  auto e = [](const std::string& s) { return parse_tgt_expr(s, "t.tgt"); };
  CHECK(same_expr(e("?mem<f, x>.min"), mem("f", "x", false)));
  CHECK(same_expr(e("?mem<f, y>.len"), mem("f", "y", true)));
  CHECK(same_expr(e("?cpu<f, 2, 1, x>.min"), cpu("f", 2, 1, "x", false)));
  CHECK(same_expr(e("?cpu<f, *, 0, x>.len"), cpu("f", FuncLabel::kShared, 0, "x", true)));
  CHECK(same_expr(e("?cpu<f,*,0,x> . len"), cpu("f", FuncLabel::kShared, 0, "x", true)));  // tokens, not a word
  CHECK(same_expr(e("-?mem<f, x>.min * 2"), O(Op::Mul, {O(Op::Neg, {mem("f", "x", false)}), C(2)})));
  CHECK(
      same_expr(e("f^(1, 0)[x, ?mem<g, x>.len]"), make_call("f", {V("x"), mem("g", "x", true)}, {}, FuncLabel{1, 0})));
  CHECK(same_expr(e("f^(0, *)[]"), make_call("f", {}, {}, FuncLabel{0, FuncLabel::kShared})));
  CHECK(same_expr(e("f[x]"), make_call("f", {V("x")})));
  CHECK(same_expr(e("f^(9223372036854775807, 0)[]"),
                  make_call("f", {}, {}, FuncLabel{std::numeric_limits<int64_t>::max(), 0})));
  // Printing uses the same spellings (print_expr, HoleLabel::to_string).
  for (const char* s :
       {"?mem<f, x>.min", "?cpu<f, *, 3, y>.len", "f^(1, *)[x + 1, ?cpu<g, 0, 0, x>.min]", "min(?mem<f, x>.min, 0)"})
    CHECK(print_expr(e(s)) == s);

  // The algorithm language has neither.
  auto alg_error = [](const std::string& src, const std::string& at, const std::string& message) {
    test::require_error([](const std::string& s) { parse_expr(s, "t.tgt"); }, src, "t.tgt", at, message);
  };
  alg_error("x + ?mem<f, x>.min", "1:5", "holes (?mem<f, x>.min, ?cpu<f, j, i, x>.len) exist only in target programs");
  alg_error("f^(0, 0)[x]", "1:2",
            "'^' labels a func access f^(stage, spec)[...], which exists only in target programs");
  // `x ^ y` is Halide's exclusive or (docs/types.md); a label-shaped `^(` is not.
  alg_error("x ^ (0, 0)", "1:3", "exists only in target programs");
  test::require_error([](const std::string& s) { parse_program(s, "t.tgt"); },
                      "pipeline p() { fun p(x) = { ?cpu<p, 0, 0, x>.min } }", "t.tgt", "1:29",
                      "exist only in target programs");
}

TEST_CASE("tgt: locations", "[tgt]") {
  TgtProgram p = parse_tgt(kSample, "t");
  CHECK(where(p.loc) == "2:1");
  CHECK(where(p.body->loc) == "2:58");  // the sequence: its block's brace
  const auto& top = as<SeqStmt>(p.body).stmts;
  CHECK(where(top[0]->loc) == "3:3");
  CHECK(where(as<AllocateStmt>(top[0]).bounds[0].first->loc) == "3:15");  // a hole: its '?'
  CHECK(where(top[1]->loc) == "4:3");
  const auto& stage = as<LabelStmt>(top[1]).body;
  CHECK(where(stage->loc) == "5:5");
  const auto& outer = as<LabelStmt>(stage).body;
  CHECK(where(outer->loc) == "6:7");
  const auto& inner = as<ForStmt>(outer).body;
  CHECK(where(inner->loc) == "7:9");
  const auto& guard = as<ForStmt>(inner).body;
  CHECK(where(guard->loc) == "8:11");
  const auto& store = as<IfStmt>(guard).then_case;
  CHECK(where(store->loc) == "8:20");                       // the func name
  CHECK(where(as<StoreStmt>(store).value->loc) == "8:44");  // the '+'
  CHECK(where(top[2]->loc) == "13:3");
  CHECK(where(as<LetStmt>(top[2]).body->loc) == "13:26");  // the assert: a block of one
  CHECK(where(top[3]->loc) == "14:3");
  CHECK(where(as<IfStmt>(top[3]).else_case->loc) == "14:30");
  CHECK(where(p.realize->loc) == "16:1");
  // An empty block's nop is located at its brace.
  CHECK(where(as<IfStmt>(body_of("if (1) { }")).then_case->loc) == "2:8");
}

// ---------------------------------------------------------------- errors
TEST_CASE("tgt: error messages and locations", "[tgt]") {
  tgt_error("", "1:1", "expected 'target pipeline' at the start of a target program, found end of file");
  tgt_error("pipeline f() { fun f() = { 1 } }", "1:1",
            "expected 'target pipeline' at the start of a target program, found reserved word 'pipeline'");
  tgt_error("target f() { }", "1:8", "expected 'pipeline' after 'target', found 'f'");
  tgt_error("target pipeline f(w { }", "1:21", "expected ',' or ')' to close '(' opened at 1:18, found '{'");
  tgt_error("target pipeline f() over { }", "1:26", "expected '(' to start the interval (min, len), found '{'");
  tgt_error("target pipeline f() over (a, 1) { }", "1:30", "expected a window variable name, found '1'");
  tgt_error("target pipeline f() over (a, b) (c, d) { }", "1:33", "expected ',' between the intervals of the window");
  tgt_error("target pipeline f() nop;", "1:21", "expected '{' to start the pipeline body, found 'nop'");
  tgt_error("target pipeline f() {\n  nop;\n", "3:1",
            "unexpected end of file: the pipeline body opened at 1:21 is not closed");
  tgt_error("target pipeline f() { } nop;", "1:25",
            "expected 'realize' or end of file after the pipeline body, found 'nop'");
  tgt_error("target pipeline f() { } realize () realize ()", "1:36", "expected end of file after the realize section");
  tgt_error("target pipeline f() { } realize (w = x)", "1:38", "expected a number, found 'x'");

  // Positions below are in with_body's second line: the body starts at column 1.
  body_error("nop", "3:1", "expected ';' after 'nop', found '}'");
  body_error("nop nop;", "2:5", "expected ';' after 'nop', found 'nop'");
  body_error("skip;", "2:1",
             "expected a statement (nop, assert, allocate, a store f^(stage, spec)[...] <- e, if, for, let or label), "
             "found 'skip'");
  body_error("else { nop; }", "2:1", "expected a statement");
  body_error("3 <- 4;", "2:1", "expected a statement");
  body_error("{ nop; }", "2:1", "expected a statement");
  body_error("assert;", "2:7", "expected an expression, found ';'");
  body_error("assert 1 2;", "2:10", "expected ';' after the assertion, found '2'");
  body_error("allocate f;", "2:11",
             "expected '(' after 'allocate f' (one interval (min, len) per dimension), found ';'");
  body_error("allocate f(0, 1);", "2:12", "expected '(' to start the interval (min, len), found '0'");
  body_error("allocate f((0, 1)) nop;", "2:20", "expected ';' after the allocation, found 'nop'");
  body_error("allocate 3();", "2:10", "expected the name of the func to allocate, found '3'");
  body_error("f^(0, 0)[x] = 1;", "2:13",
             "expected '<-' after f[...] (a store is f^(stage, spec)[e1, ..., en] <- e), found '='");
  body_error("f^(0, 0) <- 1;", "2:10", "expected '[' after the label of the access to f, found '<-'");
  body_error("f^(0)[x] <- 1;", "2:5",
             "expected ',' between the stage and the specialization of the func label (stage, spec), found ')'");
  body_error("f^(-1, 0)[x] <- 1;", "2:4", "the stage index of a func label must be non-negative, found -1");
  body_error("f^(0, -2)[x] <- 1;", "2:7", "the specialization index of a func label must be non-negative, found -2");
  body_error(
      "f^(0, y)[x] <- 1;", "2:7",
      "expected the specialization index of the func label (an integer, or '*' for the last stage's), found 'y'");
  body_error("f^(*, 0)[x] <- 1;", "2:4", "expected the stage index of the func label (an integer), found '*'");
  body_error("f^(99999999999999999999, 0)[x] <- 1;", "2:4",
             "the stage index of a func label is too large (it must fit in 64 bits)");
  body_error("f^[x] <- 1;", "2:3", "expected '(' after '^' (a func label is ^(stage, spec)), found '['");
  body_error("f[x] <- 1", "3:1", "expected ';' after the store, found '}'");
  body_error("if n { nop; }", "2:4", "expected '(' after 'if' (the condition is in parentheses), found 'n'");
  body_error("if (n nop; }", "2:7", "expected ')' to close '(' opened at 2:4, found 'nop'");
  body_error("if (n) nop;", "2:8", "expected '{' to start the then branch, found 'nop'");
  body_error("if (n) { } else nop;", "2:17", "expected '{' to start the else branch, found 'nop'");
  body_error("if (n) { } else if (m) { }", "2:17", "expected '{' to start the else branch, found reserved word 'if'");
  body_error("if (n) { nop;", "4:1", "unexpected end of file: the pipeline body opened at 1:34 is not closed");
  tgt_error("target pipeline f() { if (n) { nop;", "1:36", "unexpected end of file: the then branch opened at 1:30 is not closed");
  body_error("for x in (0, n) serial { }", "2:5", "expected a loop name <f, j, i, v>, found 'x'");
  body_error("for <f, 0, x> in (0, n) serial { }", "2:12",
             "expected the stage index of the loop name (an integer), found 'x'");
  body_error("for <f, 0, 0, x> (0, n) serial { }", "2:18", "expected 'in' after the loop name, found '('");
  body_error("for <f, 0, 0, x> in (0; n) serial { }", "2:23",
             "expected ',' between the min and the length of the interval (min, len), found ';'");
  body_error("for <f, 0, 0, x> in (0, n) { }", "2:28",
             "expected a traversal order (serial|parallel|vectorized|unrolled), found '{'");
  body_error("for <f, 0, 0, x> in (0, n) sideways { }", "2:28", "expected a traversal order");
  body_error("let x in { }", "2:7", "expected '=' after 'let x', found reserved word 'in'");
  body_error("let x = 1 { }", "2:11", "expected 'in' after the value of x, found '{'");
  body_error("let min = 1 in { }", "2:5", "expected a variable name, found reserved word 'min'");
  body_error("label { }", "2:7", "expected a label name (e.g. f or f.s0), found '{'");
  body_error("label f { }", "2:9", "expected ':' after the label f, found '{'");
  body_error("label f.: { }", "2:9", "expected a name after '.' in the label, found ':'");
  body_error("label f.1: { }", "2:9", "expected a name after '.' in the label, found '1'");

  // Holes.
  body_error("assert ?;", "2:9",
             "expected 'mem' or 'cpu' after '?' (a hole is ?mem<f, x>.min or ?cpu<f, j, i, x>.len), found ';'");
  body_error("assert ?mem(f, x).min;", "2:12", "expected '<' to start the label <f, x> of the hole, found '('");
  body_error("assert ?mem<f, 0, 0, x>.min;", "2:16",
             "expected a dimension name (a pure variable of the func), found '0'");
  body_error("assert ?cpu<f, x>.min;", "2:16",
             "expected the specialization index of the hole (an integer, or '*' for the last stage's), found 'x'");
  body_error("assert ?cpu<f, 0, *, x>.min;", "2:19", "expected the stage index of the hole (an integer), found '*'");
  body_error("assert ?cpu<f, 0, 0, x>;", "2:24", "expected '.' after the hole label (then 'min' or 'len'), found ';'");
  body_error("assert ?mem<f, x>.max;", "2:19",
             "expected 'min' or 'len' after the hole label, found reserved word 'max'");
  body_error("assert ?mem<f, x.min;", "2:17", "expected '>' to close '<' opened at 2:12, found '.'");

  // The expression rules are the algorithm's, messages included.
  body_error("assert f(x);", "2:9", "func accesses use brackets: write f[...]");
  body_error("assert x @ y;", "2:10", "unexpected character '@'");
}

TEST_CASE("tgt: nesting limit", "[tgt]") {
  auto nested = [](int n, const std::string& inner = "nop;") {
    std::string s;
    for (int i = 0; i < n; ++i) s += "if (1) { ";
    s += inner;
    for (int i = 0; i < n; ++i) s += " }";
    return s;
  };
  // Statements admit kMaxStatementNesting blocks (deeper than expressions: halo's own
  // lowering of a 200-variable rdom nests that deep); the CLI parses on the big stack.
  const std::string msg = "statements nested too deeply (limit 2000)";
  run_on_big_stack([&] {
    CHECK_NOTHROW(body_of(nested(kMaxStatementNesting)));
    // The 2001st block opens at column 9 * 2000 + 8 of the body's line.
    body_error(nested(kMaxStatementNesting + 1), "2:18008", msg);
    body_error(nested(100000), "2:18008", msg);
    body_error(std::string(100000, '{'), "2:1", "expected a statement");
  });
  // Expressions keep their own limit, counted afresh in each statement.
  std::string deep(kMaxNesting, '('), close(kMaxNesting, ')');
  CHECK_NOTHROW(body_of(nested(kMaxNesting, "assert " + deep + "1" + close + ";")));
  body_error("assert " + deep + "(1)" + close + ";", "2:208", "expression nested too deeply (limit 200)");
}

TEST_CASE("tgt: telling target programs from algorithms", "[tgt]") {
  CHECK(looks_like_tgt("target pipeline f() { }"));
  CHECK(looks_like_tgt("# comment\n\n  \t# another\ntarget"));
  CHECK(looks_like_tgt("target @@@"));  // the first token decides; the parser reports the rest
  CHECK_FALSE(looks_like_tgt("pipeline f() { fun f() = { 1 } }"));
  CHECK_FALSE(looks_like_tgt(""));
  CHECK_FALSE(looks_like_tgt("# only a comment"));
  CHECK_FALSE(looks_like_tgt("targets"));
  CHECK_FALSE(looks_like_tgt("@target"));
  CHECK_FALSE(looks_like_tgt(std::string("# \0 NUL\ntarget", 15)));
  CHECK_FALSE(looks_like_tgt("\xff"));
}

// ---------------------------------------------------------------- files
TEST_CASE("tgt: files", "[tgt]") {
  SECTION("an unreadable file is an error at 0:0") {
    try {
      parse_tgt_file("/nonexistent/dir/x.tgt");
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(where(e.diagnostics()[0].loc) == "0:0");
      CHECK_THAT(e.diagnostics()[0].message, Catch::StartsWith("cannot read file: "));
      CHECK(e.diagnostics()[0].file == "/nonexistent/dir/x.tgt");
    }
  }
  SECTION("every sample program parses, prints canonically and survives JSON") {
    namespace fs = std::filesystem;
    int count = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(HALO_SOURCE_DIR) / "tests" / "tgt")) {
      if (entry.path().extension() != ".tgt") continue;
      ++count;
      INFO(entry.path().string());
      std::string text = read_text(entry.path());
      CHECK(looks_like_tgt(text));
      TgtProgram p = parse_tgt_file(entry.path().string());
      CHECK(p.file == entry.path().string());
      require_round_trips(p);
    }
    CHECK(count >= 4);
  }
  SECTION("the hand-filled programs have no holes; the lowered ones have the holes lowering makes") {
    auto dir = std::string(HALO_SOURCE_DIR) + "/tests/tgt/";
    for (const char* name : {"blur.tgt", "thesis_2_2_filled.tgt"}) {
      INFO(name);
      CHECK(hole_scopes(parse_tgt_file(dir + name)).empty());
    }
    auto holes = hole_scopes(parse_tgt_file(dir + "thesis_2_2_lowered.tgt"));
    CHECK(holes.size() == 8);  // mem and cpu, min and len, for g and f
    HoleLabel g_cpu{HoleKind::Cpu, false, "g", "x", 0, FuncLabel::kShared};
    REQUIRE(holes.count(g_cpu));
    CHECK(holes.at(g_cpu) == std::vector<std::string>{"x_min", "x_len"});
  }
}

TEST_CASE("tgt: the malformed corpus reports the expected locations", "[tgt]") {
  namespace fs = std::filesystem;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(HALO_SOURCE_DIR) / "tests" / "invalid")) {
    std::string name = entry.path().filename().string();
    if (!name.starts_with("tgt_") || entry.path().extension() != ".tgt") continue;
    ++count;
    INFO(name);
    std::string text = read_text(entry.path());
    const std::string tag = "# expect: ";
    REQUIRE(text.starts_with(tag));
    std::string expected = text.substr(tag.size(), text.find('\n') - tag.size());
    // Every file but the one without any token says it is a target program; a caller that
    // dispatches on looks_like_tgt sends that one to the .halo parser, which reports the
    // same location (the end of the file).
    if (name != "tgt_01_empty_file.tgt") CHECK(looks_like_tgt(text));
    try {
      // On the big stack, as every halo command parses: the deepest file nests 2,000 blocks,
      // more than a sanitizer build's frames fit in the default 8 MiB.
      run_on_big_stack([&] { parse_tgt_file(entry.path().string()); });
      FAIL("parsed without error");
    } catch (const InputError& e) {
      INFO(e.what());
      CHECK(where(e.diagnostics().at(0).loc) == expected);
      CHECK(e.diagnostics().at(0).file == entry.path().string());
    }
  }
  CHECK(count >= 10);
}

// ---------------------------------------------------------------- JSON
TEST_CASE("tgt: the JSON shape", "[tgt]") {
  TgtProgram p = parse_tgt(
      "target pipeline f(w) over (x_min, x_len) {\n"
      "  allocate f((?mem<f, x>.min, ?mem<f, x>.len));\n"
      "  label f.s0: {\n"
      "    for <f, 0, 1, x> in (?cpu<f, 0, 1, x>.min, ?cpu<f, *, 1, x>.len) parallel {\n"
      "      if (x > -w) { f^(1, *)[x] <- f^(0, 0)[x] + 123456789012345678901234567890; } else { assert 0; }\n"
      "    }\n"
      "  }\n"
      "  let t = (-1) in { f[t] <- select(1, 2, 3); }\n"
      "}\n"
      "realize (w = -2) over (0, 99999999999999999999)\n",
      "t");
  json expected = json::parse(R"({
    "name": "f", "params": ["w"], "window": [{"min": "x_min", "len": "x_len"}],
    "body": {"stmt": "seq", "stmts": [
      {"stmt": "allocate", "func": "f", "bounds": [
        {"min": {"hole": {"kind": "mem", "bound": "min", "func": "f", "var": "x"}},
         "len": {"hole": {"kind": "mem", "bound": "len", "func": "f", "var": "x"}}}]},
      {"stmt": "label", "label": "f.s0", "body":
        {"stmt": "for", "loop": {"func": "f", "spec": 0, "stage": 1, "var": "x"},
         "min": {"hole": {"kind": "cpu", "bound": "min", "func": "f", "var": "x", "stage": 1, "spec": 0}},
         "len": {"hole": {"kind": "cpu", "bound": "len", "func": "f", "var": "x", "stage": 1, "spec": "*"}},
         "order": "parallel",
         "body": {"stmt": "if",
           "cond": {"op": ">", "args": [{"var": {"func": "f", "spec": 0, "stage": 1, "var": "x"}}, {"op": "-", "args": [{"var": "w"}]}]},
           "then": {"stmt": "store", "func": "f", "label": {"stage": 1, "spec": "*"}, "args": [{"var": {"func": "f", "spec": 0, "stage": 1, "var": "x"}}],
                    "value": {"op": "+", "args": [
                      {"call": "f", "label": {"stage": 0, "spec": 0}, "args": [{"var": {"func": "f", "spec": 0, "stage": 1, "var": "x"}}]},
                      {"const": "123456789012345678901234567890"}]}},
           "else": {"stmt": "assert", "cond": {"const": "0"}}}}},
      {"stmt": "let", "var": "t", "value": {"const": "-1"}, "body":
        {"stmt": "store", "func": "f", "args": [{"var": "t"}],
         "value": {"op": "select", "args": [{"const": "1"}, {"const": "2"}, {"const": "3"}]}}}]},
    "realize": {"params": [{"name": "w", "value": "-2"}], "window": [{"min": "0", "len": "99999999999999999999"}]}
  })");
  json j = tgt_to_json(p);
  INFO(j.dump(2));
  CHECK(j == expected);
  CHECK(same_tgt(tgt_from_json(expected, "t.json"), p));
  CHECK(tgt_from_json(expected, "t.json").file == "t.json");

  // An absent else is nop; integers may be JSON numbers when written by hand; error values
  // (which machine states may hold) are constants too.
  json k = expected;
  k["body"]["stmts"][1]["body"]["body"].erase("else");
  k["realize"]["params"][0]["value"] = -2;
  k["realize"]["window"][0]["len"] = 18446744073709551615u;
  TgtProgram q = tgt_from_json(k, "t.json");
  CHECK(as<IfStmt>(as<ForStmt>(as<LabelStmt>(as<SeqStmt>(q.body).stmts[1]).body).body).else_case->kind ==
        StmtKind::Nop);
  CHECK(q.realize->params[0].value == Value(-2));
  CHECK(q.realize->window[0].len == *Value::parse("18446744073709551615"));
  CHECK(same_expr(expr_from_json(json{{"const", "err_mem"}}, "t"), make_const(Value::err_mem())));
  CHECK(expr_to_json(make_const(Value::err_rdom())) == json{{"const", "err_rdom"}});
  // Sequences are normalized as make_seq does.
  CHECK(same_stmt(stmt_from_json(json::parse(R"({"stmt": "seq", "stmts": []})"), "t"), make_nop()));
  CHECK(same_stmt(stmt_from_json(json::parse(R"({"stmt": "seq", "stmts": [{"stmt": "seq", "stmts": [
                    {"stmt": "nop"}, {"stmt": "assert", "cond": {"var": "x"}}]}, {"stmt": "nop"}]})"),
                                 "t"),
                  make_seq({make_nop(), make_assert(V("x")), make_nop()})));
  // Holes alone, as bounds engines name them.
  HoleLabel h{HoleKind::Cpu, true, "g", "y", 2, FuncLabel::kShared};
  CHECK(hole_to_json(h) == json::parse(R"({"kind": "cpu", "bound": "len", "func": "g", "var": "y",
                                          "stage": 2, "spec": "*"})"));
  CHECK(hole_from_json(hole_to_json(h), "t") == h);
  // Every operator is spelled as in the text; '-' and '!' with one operand are prefix.
  for (Op op : kOps) {
    std::vector<Expr> args(op_arity(op), V("a"));
    Expr e = make_op(op, args);
    CHECK(expr_to_json(e)["op"] == op_name(op));
    CHECK(same_expr(expr_from_json(expr_to_json(e), "t"), e));
  }
}

TEST_CASE("tgt: malformed JSON names the offending value", "[tgt]") {
  json good = tgt_to_json(parse_tgt(kSample, "t"));
  auto with = [&](const std::string& pointer, json value) {
    json j = good;
    j[json::json_pointer(pointer)] = std::move(value);
    return j;
  };
  auto without = [&](const std::string& pointer, const std::string& key) {
    json j = good;
    j[json::json_pointer(pointer)].erase(key);
    return j;
  };
  program_json_error(json::array(), "malformed target program JSON at the top level: expected an object, found array");
  program_json_error(without("", "body"), "at the top level: missing field 'body'");
  program_json_error(with("/extra", 1), "at /extra: unknown field 'extra'");
  program_json_error(with("/name", "a b"), "at /name: 'a b' is not a name (an identifier that is not a reserved word)");
  program_json_error(with("/name", "min"), "at /name: 'min' is not a name");
  program_json_error(with("/params/0", 7), "at /params/0: expected a string, found number");
  program_json_error(with("/window/1", json::array({"y_min", "y_len"})),
                     "at /window/1: expected an object, found array");
  program_json_error(with("/body/stmts/0/stmt", "alloc"), "at /body/stmts/0/stmt: unknown statement kind 'alloc'");
  program_json_error(without("/body/stmts/0", "stmt"), "at /body/stmts/0: missing field 'stmt'");
  program_json_error(with("/body/stmts/0/bounds/1/min", json{{"hole", {{"kind", "gpu"}}}}),
                     "at /body/stmts/0/bounds/1/min/hole/kind: expected \"mem\" or \"cpu\", found \"gpu\"");
  program_json_error(with("/body/stmts/0/bounds/1/min/hole/stage", 0),
                     "at /body/stmts/0/bounds/1/min/hole/stage: unknown field 'stage'");
  program_json_error(with("/body/stmts/0/bounds/1/min/hole/bound", "max"),
                     "at /body/stmts/0/bounds/1/min/hole/bound: expected \"min\" or \"len\", found \"max\"");
  std::string loop = "/body/stmts/1/body/body";
  program_json_error(with(loop + "/loop/spec", -1),
                     "at " + loop + "/loop/spec: expected a non-negative index, found -1");
  program_json_error(with(loop + "/loop/stage", 1.5),
                     "at " + loop + "/loop/stage: expected a non-negative integer, found number");
  program_json_error(with(loop + "/loop/stage", 18446744073709551615u),
                     "at " + loop + "/loop/stage: index 18446744073709551615 too large (it must fit in 64 bits)");
  program_json_error(with(loop + "/order", "sideways"), "at " + loop + "/order: 'sideways' is not a traversal order");
  program_json_error(with(loop + "/min/hole/spec", "all"),
                     "at " + loop + "/min/hole/spec: expected a specialization index or \"*\"");
  std::string store = loop + "/body/body/then";
  program_json_error(with(store + "/label", json{{"stage", 0}}), "at " + store + "/label: missing field 'spec'");
  program_json_error(with(store + "/value", json{{"const", "12ab"}}),
                     "at " + store + "/value/const: '12ab' is not a decimal integer");
  program_json_error(with(store + "/value", json{{"const", 1.5}}),
                     "at " + store + "/value/const: expected a string, found number");
  program_json_error(with(store + "/value", json{{"const", std::string(kMaxLiteralDigits + 2, '7')}}),
                     "integer too long");
  program_json_error(with(store + "/value", json{{"op", "**"}, {"args", json::array()}}),
                     "at " + store + "/value/op: unknown operator '**'");
  program_json_error(with(store + "/value", json{{"op", "select"}, {"args", json::array({json{{"var", "x"}}})}}),
                     "at " + store + "/value/args: 'select' takes 3 operands, found 1");
  program_json_error(with(store + "/value", json{{"var", "x"}, {"const", "1"}}),
                     "at " + store + "/value: an expression has one of the fields 'const', 'var', 'op', 'call', 'hole', not both 'const' and 'var'");
  program_json_error(with(store + "/value", json::object()),
                     "at " + store + "/value: an expression needs one of the fields");
  program_json_error(with(store + "/args", json{{"var", "x"}}),
                     "at " + store + "/args: expected an array, found object");
  program_json_error(with("/body/stmts/2/stmt", "label"), "at /body/stmts/2: missing field 'label'");
  program_json_error(with("/body/stmts/1/label", "g..s0"), "at /body/stmts/1/label: 'g..s0' is not a label");
  program_json_error(with("/realize/window/0/len", "sixteen"),
                     "at /realize/window/0/len: 'sixteen' is not a decimal integer");

  // Nesting: the text format's limits, so that reading never exhausts the stack.
  json deep = json{{"var", "x"}};
  for (int i = 0; i < kMaxNesting + 1; ++i) deep = json{{"op", "-"}, {"args", json::array({deep})}};
  json_error([](const json& x) { expr_from_json(x, "t.json"); }, deep, "expression nested too deeply (limit 200)");
  run_on_big_stack([&] {
    json stmts = json{{"stmt", "nop"}};
    for (int i = 0; i < kMaxStatementNesting + 1; ++i)
      stmts = json{{"stmt", "let"}, {"var", "x"}, {"value", {{"const", "1"}}}, {"body", stmts}};
    json_error([](const json& x) { stmt_from_json(x, "t.json"); }, stmts,
               "statements nested too deeply (limit 2000)");
    json seqs = json{{"stmt", "nop"}};
    for (int i = 0; i < 2 * kMaxStatementNesting; ++i) seqs = json{{"stmt", "seq"}, {"stmts", json::array({seqs})}};
    json_error([](const json& x) { stmt_from_json(x, "t.json"); }, seqs,
               "statements nested too deeply (limit 2000)");
  });
  json_error([](const json& x) { hole_from_json(x, "t.json"); }, json{{"kind", "mem"}, {"bound", "min"}, {"func", "f"}},
             "malformed hole JSON at the top level: missing field 'var'");
}

// ---------------------------------------------------------------- properties
TEST_CASE("tgt: printing then parsing is the identity", "[tgt]") {
  rc::prop("programs", [] {
    TgtProgram p = gen_program();
    std::string text = print_tgt(p);
    RC_LOG() << text;
    TgtProgram q = parse_tgt(text, "t");
    RC_ASSERT(same_tgt(q, p));
    RC_ASSERT(print_tgt(q) == text);
  });
  rc::prop("expressions", [] {
    Expr e = gen_expr(*rc::gen::inRange(0, 6));
    RC_LOG() << print_expr(e);
    RC_ASSERT(same_expr(parse_tgt_expr(print_expr(e), "t"), e));
  });
}

TEST_CASE("tgt: writing then reading JSON is the identity", "[tgt]") {
  rc::prop("programs", [] {
    TgtProgram p = gen_program();
    json j = tgt_to_json(p);
    RC_LOG() << j.dump();
    RC_ASSERT(same_tgt(tgt_from_json(j, "t"), p));
    RC_ASSERT(same_tgt(tgt_from_json(json::parse(j.dump()), "t"), p));
  });
  rc::prop("statements, expressions and holes", [] {
    Stmt s = gen_stmt(3);
    RC_ASSERT(same_stmt(stmt_from_json(stmt_to_json(s), "t"), s));
    Expr e = gen_expr(4);
    RC_ASSERT(same_expr(expr_from_json(expr_to_json(e), "t"), e));
    HoleLabel h = gen_hole();
    RC_ASSERT(hole_from_json(hole_to_json(h), "t") == h);
  });
}

TEST_CASE("tgt: no input crashes the readers", "[tgt]") {
  auto must_not_crash = [](const std::string& s) {
    try {
      TgtProgram p = parse_tgt(s, "t");
      RC_ASSERT(same_tgt(parse_tgt(print_tgt(p), "t"), p));
    } catch (const InputError& e) {
      RC_ASSERT(e.diagnostics().size() == 1u);
    }
    try {
      parse_tgt_expr(s, "t");
    } catch (const InputError&) {
    }
    (void)looks_like_tgt(s);
  };
  rc::prop("random bytes", [&] { must_not_crash(*rc::gen::container<std::string>(rc::gen::arbitrary<char>())); });
  rc::prop("random strings", [&] { must_not_crash(*rc::gen::arbitrary<std::string>()); });
  rc::prop("random tokens", [&] { must_not_crash(gen_token_soup()); });
  rc::prop("a printed program, cut short", [&] {
    std::string text = print_tgt(gen_program());
    must_not_crash(text.substr(0, *rc::gen::inRange<size_t>(0, text.size() + 1)));
  });
  rc::prop("damaged JSON", [] {
    json j = tgt_to_json(gen_program());
    std::vector<json::json_pointer> all;
    pointers(j, json::json_pointer(), all);
    const auto& at = *rc::gen::elementOf(all);
    static const std::vector<json> junk = {nullptr,
                                           0,
                                           -1,
                                           1.5,
                                           true,
                                           "",
                                           "*",
                                           "x",
                                           "min",
                                           json::array(),
                                           json::object(),
                                           json{{"stmt", "nop"}},
                                           json{{"var", "x"}},
                                           18446744073709551615u};
    if (at.empty() || *rc::gen::arbitrary<bool>()) {
      j[at] = *rc::gen::elementOf(junk);
    } else {
      json& parent = j[at.parent_pointer()];
      if (parent.is_object())
        parent.erase(at.back());
      else
        parent.erase(parent.begin() + std::stoi(at.back()));
    }
    try {
      TgtProgram p = tgt_from_json(j, "t");
      RC_ASSERT(same_tgt(tgt_from_json(tgt_to_json(p), "t"), p));
    } catch (const InputError& e) {
      RC_ASSERT(e.diagnostics().size() == 1u);
    }
  });
}

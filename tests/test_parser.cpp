// Tests of the lexer, parser and printer: the trees the parser builds (LANGUAGE.md's
// example, precedence, stage forms, directives, realize), the locations it records, its
// error messages, the nesting limit, the parse-error corpus tests/invalid/syntax_*.halo,
// and the properties that printing then parsing is the identity and that no input,
// however malformed, crashes the parser.
#include <rapidcheck/catch.h>

#include <catch2/catch.hpp>
#include "tests/support.hpp"
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "semantics/lexer.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"

using namespace halo;
using halo::test::where;

namespace {

const char* const kExample = R"(# Separable blur with a parameterised window (comments run to end of line).
pipeline out(w) {
  fun f(x, y) = { x * 3 + y % 7 }
  fun g(x, y) = {
    0;
    rdom(r = (0 - w, 2 * w + 1)) in (x, y) <- g[x, y] + f[x + r, y]
  }
  fun out(x, y) = {
    0;
    rdom(r = (0 - w, 2 * w + 1)) in (x, y) <- out[x, y] + g[x, y + r]
  }
}

schedule {
  split(<out, 0, 1, y>, yo, yi, 8, guard);
  compute_at(g, <out, 0, 1, yo>);
  store_at(g, <out, 0, 1, yo>);
}

realize (w = 1) over (0, 16), (0, 12)
)";

// Shorthands for expected trees.
Expr C(int64_t v) { return make_const(v); }
Expr V(const std::string& n) { return make_var(n); }
Expr O(Op op, std::vector<Expr> args) { return make_op(op, std::move(args)); }


void require_tree(const std::string& src, const Expr& expected) {
  INFO(src << "  parsed as  " << print_expr(parse_expr(src, "t")));
  REQUIRE(same_expr(parse_expr(src, "t"), expected));
}

// Parsing `src` fails at `at` with a message containing `message`.
void program_error(const std::string& src, const std::string& at, const std::string& message) {
  test::require_error([](const std::string& s) { parse_program(s, "t.halo"); }, src, "t.halo", at, message);
}
void expr_error(const std::string& src, const std::string& at, const std::string& message) {
  test::require_error([](const std::string& s) { parse_expr(s, "t.halo"); }, src, "t.halo", at, message);
}

// A program whose single func is `p(x)` defined by `body` (the text between the braces).
std::string with_body(const std::string& body) {
  return "pipeline p() {\n  fun p(x) = { " + body + " }\n}\n";
}
std::string with_schedule(const std::string& directives) {
  return "pipeline p() {\n  fun p(x) = { x }\n}\nschedule {\n" + directives + "\n}\n";
}

void require_round_trip(const Program& p) {
  std::string text = print_program(p);
  INFO(text);
  Program q = parse_program(text, "printed");
  REQUIRE(same_program(q, p));
  REQUIRE(print_program(q) == text);  // the layout is canonical: printing is idempotent
}

// ---------------------------------------------------------------- generators
Value random_value() {
  switch (*rc::gen::inRange(0, 4)) {
    case 0: return Value(*rc::gen::inRange<int64_t>(-20, 100));
    case 1: return Value(*rc::gen::arbitrary<int64_t>());
    case 2:
      return Value(
          *rc::gen::element(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
    default: {  // beyond 64 bits in either direction
      auto digits =
          *rc::gen::container<std::string>(*rc::gen::inRange<size_t>(20, 60), rc::gen::inRange('0', ':'));
      return *Value::parse((*rc::gen::arbitrary<bool>() ? "-" : "") + digits);
    }
  }
}

const std::vector<Op> kAllOps = {Op::Add, Op::Sub, Op::Mul, Op::Div,    Op::Mod, Op::Lt,
                                 Op::Gt,  Op::Eq,  Op::Le,  Op::Ge,     Op::Ne,  Op::And,
                                 Op::Or,  Op::Not, Op::Neg, Op::Select, Op::Min, Op::Max};

Expr random_expr(int depth) {
  int kind = *rc::gen::inRange(0, depth > 0 ? 5 : 2);
  switch (kind) {
    case 0: return make_const(random_value());
    case 1: return make_var(*rc::gen::element<std::string>("x", "y", "r", "w", "_t0", "Xy_9"));
    case 2: {
      std::vector<Expr> args(*rc::gen::inRange(0, 3));
      for (auto& a : args) a = random_expr(depth - 1);
      return make_call(*rc::gen::element<std::string>("f", "g", "out"), std::move(args));
    }
    default: {  // operators are twice as likely as accesses: they are what precedence is about
      Op op = *rc::gen::elementOf(kAllOps);
      std::vector<Expr> args(op_arity(op));
      for (auto& a : args) a = random_expr(depth - 1);
      return make_op(op, std::move(args));
    }
  }
}

Name random_name() {
  return Name{*rc::gen::element<std::string>("a", "b", "x", "y", "r", "f", "g", "out"), {}};
}

std::vector<Name> random_names(int max) {
  std::vector<Name> ns(*rc::gen::inRange(0, max + 1));
  for (auto& n : ns) n = random_name();
  return ns;
}

std::vector<Expr> random_exprs(int max) {
  std::vector<Expr> es(*rc::gen::inRange(0, max + 1));
  for (auto& e : es) e = random_expr(2);
  return es;
}

LoopName random_loop() {
  return LoopName{random_name(),
                  *rc::gen::inRange<int64_t>(0, 3),
                  *rc::gen::element<int64_t>(0, 1, std::numeric_limits<int64_t>::max()),
                  random_name(),
                  {}};
}

UpdateStage random_update() {
  UpdateStage u;
  u.rdom.resize(*rc::gen::inRange(0, 3));
  for (auto& r : u.rdom) r = RVar{random_name(), random_expr(2), random_expr(2)};
  // A parsed program never has reduction variables without `rdom(...) in`.
  u.explicit_rdom = !u.rdom.empty() || *rc::gen::arbitrary<bool>();
  u.lhs = random_exprs(3);
  u.value = random_expr(3);
  if (*rc::gen::arbitrary<bool>()) u.predicate = random_expr(2);
  return u;
}

// Only the fields the directive's kind uses are filled: the others are not printed.
Directive random_directive() {
  Directive d;
  d.kind = *rc::gen::elementOf(std::vector<DirectiveKind>{
      DirectiveKind::Specialize, DirectiveKind::Split, DirectiveKind::Fuse, DirectiveKind::Swap,
      DirectiveKind::Traverse, DirectiveKind::ComputeAt, DirectiveKind::StoreAt, DirectiveKind::Bound,
      DirectiveKind::BoundExtent, DirectiveKind::AlignBounds, DirectiveKind::Rfactor, DirectiveKind::ComputeWith,
      DirectiveKind::FoldStorage, DirectiveKind::Async, DirectiveKind::HoistStorage, DirectiveKind::Atomic,
      DirectiveKind::StoreIn, DirectiveKind::ReorderStorage, DirectiveKind::AlignStorage, DirectiveKind::BoundStorage,
      DirectiveKind::AlignExtent, DirectiveKind::RingBuffer, DirectiveKind::Partition, DirectiveKind::Unscheduled,
      DirectiveKind::AllowRaceConditions, DirectiveKind::SpecializeFail});
  for (const auto& param : directive_syntax(d.kind).params) {
    switch (param.arg) {
      case DirectiveArg::Func: d.func = random_name(); break;
      case DirectiveArg::Loop:
        d.loop = random_loop();
        if (d.kind == DirectiveKind::ComputeAt && *rc::gen::arbitrary<bool>()) d.loop.spec = LoopName::kEverySpec;
        break;
      case DirectiveArg::With: d.with = random_loop(); break;
      case DirectiveArg::Stage:
        d.loop = random_loop();
        d.loop.var = Name{};
        break;
      case DirectiveArg::Name:
        // The words of store_in and partition are checked by the parser.
        if (d.kind == DirectiveKind::StoreIn)
          d.names.push_back(Name{*rc::gen::element<std::string>("auto", "heap", "stack", "register"), {}});
        else if (d.kind == DirectiveKind::Partition)
          d.names.push_back(Name{*rc::gen::element<std::string>("auto", "never", "always"), {}});
        else
          d.names.push_back(random_name());
        break;
      case DirectiveArg::Names:
        d.names = random_names(2);
        d.names.push_back(random_name());
        break;
      case DirectiveArg::Text:
        d.message = *rc::gen::nonEmpty(rc::gen::container<std::string>(rc::gen::element('a', 'Z', ' ', '.', '0', '\\')));
        break;
      case DirectiveArg::Expression: d.exprs.push_back(random_expr(2)); break;
      case DirectiveArg::Expressions:
        d.exprs = random_exprs(2);
        d.exprs.push_back(random_expr(2));
        break;
      case DirectiveArg::Tail:
        d.tail = *rc::gen::element(TailStrategy::Guard, TailStrategy::Shift, TailStrategy::Round, TailStrategy::Predicate,
                                   TailStrategy::PredicateLoads, TailStrategy::PredicateStores, TailStrategy::Auto);
        break;
      case DirectiveArg::Order:
        d.order = *rc::gen::element(Traversal::Serial, Traversal::Parallel, Traversal::Vectorized,
                                    Traversal::Unrolled);
        break;
    }
  }
  return d;
}

// Syntactically well-formed, not necessarily valid: validity is not the parser's business.
Program random_program() {
  Program p;
  p.pipeline.name = random_name();
  p.pipeline.params = random_names(2);
  p.pipeline.funcs.resize(*rc::gen::inRange(1, 4));
  for (auto& f : p.pipeline.funcs) {
    f.name = random_name();
    f.vars = random_names(3);
    f.pure = random_expr(3);
    f.updates.resize(*rc::gen::inRange(0, 3));
    for (auto& u : f.updates) u = random_update();
  }
  if (*rc::gen::arbitrary<bool>()) {
    p.schedule.emplace(*rc::gen::inRange(0, 5));
    for (auto& d : *p.schedule) d = random_directive();
    // The parser returns a schedule in fig. 2.11's phase order (LANGUAGE.md): the identity
    // holds on schedules already in it.
    std::stable_sort(p.schedule->begin(), p.schedule->end(), [](const Directive& a, const Directive& b) {
      return directive_phase(a.kind) < directive_phase(b.kind);
    });
  }
  if (*rc::gen::arbitrary<bool>()) {
    Realization r;
    r.params.resize(*rc::gen::inRange(0, 3));
    for (auto& b : r.params) b = ParamBinding{random_name(), random_value()};
    r.window.resize(*rc::gen::inRange(0, 3));
    for (auto& i : r.window) i = Interval{random_value(), random_value(), {}};
    p.realize = std::move(r);
  }
  return p;
}

// Text made of the language's own tokens in random order: unlike random bytes it gets
// past the lexer and deep into the parser's error paths.
std::string random_token_soup() {
  static const std::vector<std::string> vocabulary = {
      "pipeline", "fun", "rdom",  "in",   "if",         "schedule", "realize",    "over",  "select",
      "min",      "max", "split", "swap", "compute_at", "bound",    "specialize", "guard", "serial",
      "p",        "x",   "f",     "0",    "7",          "-1",       "(",          ")",     "{",
      "}",        "[",   "]",     ",",    ";",          "=",        "<",          ">",     "<-",
      "<=",       ">=",  "==",    "!=",   "&&",         "||",       "!",          "+",     "-",
      "*",        "/",   "%",     "\n",   "#c\n"};
  auto words = *rc::gen::container<std::vector<std::string>>(rc::gen::elementOf(vocabulary));
  std::string s;
  for (const auto& w : words) s += w + " ";
  return s;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

// ---------------------------------------------------------------- trees
TEST_CASE("parser: the LANGUAGE.md example", "[parser]") {
  Program p = parse_program(kExample, "blur.halo");
  CHECK(p.file == "blur.halo");
  const Pipeline& pl = p.pipeline;
  CHECK(pl.name.text == "out");
  REQUIRE(pl.params.size() == 1);
  CHECK(pl.params[0].text == "w");
  REQUIRE(pl.funcs.size() == 3);
  CHECK(pl.funcs[0].name.text == "f");
  CHECK(pl.funcs[1].name.text == "g");
  CHECK(pl.funcs[2].name.text == "out");
  for (const auto& f : pl.funcs) CHECK(f.vars == std::vector<Name>{{"x", {}}, {"y", {}}});
  CHECK(pl.funcs[0].stage_count() == 1);
  CHECK(same_expr(pl.funcs[0].pure, O(Op::Add, {O(Op::Mul, {V("x"), C(3)}), O(Op::Mod, {V("y"), C(7)})})));

  const FuncDef& g = pl.funcs[1];
  REQUIRE(g.stage_count() == 2);
  CHECK(same_expr(g.pure, C(0)));
  const UpdateStage& u = g.updates[0];
  CHECK(u.explicit_rdom);
  REQUIRE(u.rdom.size() == 1);
  CHECK(u.rdom[0].name.text == "r");
  CHECK(same_expr(u.rdom[0].min, O(Op::Sub, {C(0), V("w")})));
  CHECK(same_expr(u.rdom[0].len, O(Op::Add, {O(Op::Mul, {C(2), V("w")}), C(1)})));
  REQUIRE(u.lhs.size() == 2);
  CHECK(same_expr(u.lhs[0], V("x")));
  CHECK(same_expr(u.value, O(Op::Add, {make_call("g", {V("x"), V("y")}),
                                       make_call("f", {O(Op::Add, {V("x"), V("r")}), V("y")})})));
  CHECK(u.predicate == nullptr);

  REQUIRE(p.schedule);
  const auto& s = *p.schedule;
  REQUIRE(s.size() == 3);
  CHECK(s[0].kind == DirectiveKind::Split);
  CHECK(s[0].loop == LoopName{{"out", {}}, 0, 1, {"y", {}}, {}});
  CHECK(s[0].names == std::vector<Name>{{"yo", {}}, {"yi", {}}});
  REQUIRE(s[0].exprs.size() == 1);
  CHECK(same_expr(s[0].exprs[0], C(8)));
  CHECK(s[0].tail == TailStrategy::Guard);
  CHECK(s[1].kind == DirectiveKind::ComputeAt);
  CHECK(s[1].func.text == "g");
  CHECK(s[1].loop == LoopName{{"out", {}}, 0, 1, {"yo", {}}, {}});
  CHECK(s[2].kind == DirectiveKind::StoreAt);

  REQUIRE(p.realize);
  REQUIRE(p.realize->params.size() == 1);
  CHECK(p.realize->params[0].name.text == "w");
  CHECK(p.realize->params[0].value == Value(1));
  CHECK(p.realize->window == std::vector<Interval>{{0, 16, {}}, {0, 12, {}}});
}

TEST_CASE("parser: precedence and associativity", "[parser]") {
  require_tree("1 + 2 * 3", O(Op::Add, {C(1), O(Op::Mul, {C(2), C(3)})}));
  require_tree("(1 + 2) * 3", O(Op::Mul, {O(Op::Add, {C(1), C(2)}), C(3)}));
  require_tree("a - b - c", O(Op::Sub, {O(Op::Sub, {V("a"), V("b")}), V("c")}));
  require_tree("a / b % c * d", O(Op::Mul, {O(Op::Mod, {O(Op::Div, {V("a"), V("b")}), V("c")}), V("d")}));
  require_tree("a || b && c", O(Op::Or, {V("a"), O(Op::And, {V("b"), V("c")})}));
  require_tree("a && b || c", O(Op::Or, {O(Op::And, {V("a"), V("b")}), V("c")}));
  require_tree("a < b == c", O(Op::Eq, {O(Op::Lt, {V("a"), V("b")}), V("c")}));
  require_tree("a + 1 <= b * 2", O(Op::Le, {O(Op::Add, {V("a"), C(1)}), O(Op::Mul, {V("b"), C(2)})}));
  require_tree("a >= b != c > d", O(Op::Gt, {O(Op::Ne, {O(Op::Ge, {V("a"), V("b")}), V("c")}), V("d")}));
  require_tree("a == 1 && b != 2", O(Op::And, {O(Op::Eq, {V("a"), C(1)}), O(Op::Ne, {V("b"), C(2)})}));
  require_tree("-x * y", O(Op::Mul, {O(Op::Neg, {V("x")}), V("y")}));
  require_tree("!a && b", O(Op::And, {O(Op::Not, {V("a")}), V("b")}));
  require_tree("- -x", O(Op::Neg, {O(Op::Neg, {V("x")})}));
  require_tree("x - -1", O(Op::Sub, {V("x"), O(Op::Neg, {C(1)})}));
  require_tree("select(a < b, min(a, b), max(a, f[b]))",
               O(Op::Select, {O(Op::Lt, {V("a"), V("b")}), O(Op::Min, {V("a"), V("b")}),
                              O(Op::Max, {V("a"), make_call("f", {V("b")})})}));
  require_tree("f[]", make_call("f", {}));
  // Halide's multi-way select nests from the left pair out.
  require_tree("select(a, 1, b, 2, 3)", O(Op::Select, {V("a"), C(1), O(Op::Select, {V("b"), C(2), C(3)})}));
  require_tree("select(a, 1, b, 2, c, 3, 4)",
               O(Op::Select, {V("a"), C(1), O(Op::Select, {V("b"), C(2), O(Op::Select, {V("c"), C(3), C(4)})})}));
  expr_error("select(a, 1, b, 2)", "1:1", "select expects 3 arguments (or an odd number, Halide's multi-way");
}

TEST_CASE("parser: negative literals", "[parser]") {
  // `-5` is the negation of the literal 5, so that it prints back as written...
  require_tree("-5", O(Op::Neg, {C(5)}));
  // ...and `(-5)` is the negative constant, the printer's spelling of one.
  require_tree("(-5)", C(-5));
  require_tree("(- 5)", C(-5));
  require_tree("-(-5)", O(Op::Neg, {C(-5)}));
  require_tree("((-5))", C(-5));
  require_tree("(-5 + 1)", O(Op::Add, {O(Op::Neg, {C(5)}), C(1)}));
  require_tree("(-x)", O(Op::Neg, {V("x")}));
  auto huge = *Value::parse("123456789012345678901234567890");
  REQUIRE(same_expr(parse_expr("123456789012345678901234567890", "t"), make_const(huge)));
  CHECK(print_expr(make_const(Value(-3))) == "(-3)");
  CHECK(print_expr(O(Op::Neg, {C(3)})) == "-3");
  CHECK(print_expr(O(Op::Neg, {O(Op::Neg, {C(3)})})) == "- -3");
  CHECK(print_expr(O(Op::Neg, {C(-3)})) == "-(-3)");
}

TEST_CASE("parser: the printer uses the fewest parentheses", "[parser]") {
  auto canon = [](const std::string& s) { return print_expr(parse_expr(s, "t")); };
  CHECK(canon("((a + b))") == "a + b");
  CHECK(canon("(a + b) + c") == "a + b + c");
  CHECK(canon("a + (b + c)") == "a + (b + c)");
  CHECK(canon("a - (b - c)") == "a - (b - c)");
  CHECK(canon("(a * b) + (c * d)") == "a * b + c * d");
  CHECK(canon("(a + b) * c") == "(a + b) * c");
  CHECK(canon("(a < b) < c") == "a < b < c");
  CHECK(canon("a < (b < c)") == "a < (b < c)");
  CHECK(canon("(a || b) && c") == "(a || b) && c");
  CHECK(canon("-(a + b)") == "-(a + b)");
  CHECK(canon("!(a < b)") == "!(a < b)");
  CHECK(canon("(-a) * b") == "-a * b");
  CHECK(canon("-(-(a))") == "- -a");
  CHECK(canon("min((a), select(c,(1),2))") == "min(a, select(c, 1, 2))");
  CHECK(canon("f[(x + 1), y]") == "f[x + 1, y]");
  CHECK(print_expr(make_const(Value::err_rdom())) == "err_rdom");
  CHECK(print_expr(make_const(Value::err_mem())) == "err_mem");
}

TEST_CASE("parser: stage forms", "[parser]") {
  SECTION("a parenthesised pure stage is an expression, not a left-hand side") {
    Program p = parse_program(with_body("(x) * 2"), "t");
    CHECK(same_expr(p.pipeline.funcs[0].pure, O(Op::Mul, {V("x"), C(2)})));
    p = parse_program(with_body("(x + 1) < (2) || x"), "t");
    CHECK(same_expr(p.pipeline.funcs[0].pure,
                    O(Op::Or, {O(Op::Lt, {O(Op::Add, {V("x"), C(1)}), C(2)}), V("x")})));
    p = parse_program(with_body("(-1) * x"), "t");
    CHECK(same_expr(p.pipeline.funcs[0].pure, O(Op::Mul, {C(-1), V("x")})));
  }
  SECTION("an update without rdom, with an empty rdom, with a predicate") {
    Program p = parse_program(with_body("0; (x) <- p[x] + 1; rdom() in (x) <- 2 if x > 0;"), "t");
    const FuncDef& f = p.pipeline.funcs[0];
    REQUIRE(f.updates.size() == 2);
    CHECK_FALSE(f.updates[0].explicit_rdom);
    CHECK(f.updates[0].rdom.empty());
    CHECK(f.updates[0].predicate == nullptr);
    CHECK(same_expr(f.updates[0].lhs[0], V("x")));
    CHECK(f.updates[1].explicit_rdom);
    CHECK(f.updates[1].rdom.empty());
    CHECK(same_expr(f.updates[1].predicate, O(Op::Gt, {V("x"), C(0)})));
    require_round_trip(p);
  }
  SECTION("a one-element left-hand side that is a negative literal") {
    Program p = parse_program(with_body("0; (-1) <- 3; ((-1)) <- 4"), "t");
    const FuncDef& f = p.pipeline.funcs[0];
    CHECK(same_expr(f.updates[0].lhs[0], O(Op::Neg, {C(1)})));
    CHECK(same_expr(f.updates[1].lhs[0], C(-1)));
    require_round_trip(p);
  }
  SECTION("several reduction variables") {
    Program p = parse_program(
        "pipeline h(n) { fun h(i) = { 0; rdom(rx = (0, n), ry = (-1, 3)) in (f[rx, ry] % n) <- h[f[rx, ry] % "
        "n] + 1 }"
        " fun f(x, y) = { x + y } }",
        "t");
    const UpdateStage& u = p.pipeline.funcs[0].updates[0];
    REQUIRE(u.rdom.size() == 2);
    CHECK(u.rdom[1].name.text == "ry");
    CHECK(same_expr(u.rdom[1].min, O(Op::Neg, {C(1)})));
    require_round_trip(p);
  }
  SECTION("zero dimensions and zero parameters") {
    Program p = parse_program("pipeline f() { fun f() = { 3 } fun g() = { 0; () <- g[] + f[] } }", "t");
    CHECK(p.pipeline.params.empty());
    CHECK(p.pipeline.funcs[0].vars.empty());
    CHECK(p.pipeline.funcs[1].updates[0].lhs.empty());
    require_round_trip(p);
  }
  SECTION("definitions may be separated by ';' as in the thesis") {
    Program p = parse_program("pipeline g() { fun f(x) = { x }; fun g(x) = { f[x] }; }", "t");
    CHECK(p.pipeline.funcs.size() == 2);
  }
}

TEST_CASE("parser: every directive", "[parser]") {
  Program p = parse_program(with_schedule(R"(
    specialize(p, w > 0, w == 1);
    split(<p, 1, 0, x>, xo, xi, 4 * w, shift);
    fuse(<p, 0, 2, xo>, t);
    swap(<p, 0, 0, x>);
    traverse(<p, 2, 0, x>, vectorized);
    compute_at(f, <p, 0, 0, x>);
    store_at(f, <p, 0, 0, x>);
    bound(p, x, 0 - 1, 16);
    bound_extent(p, x, 8);
    align_bounds(p, x, 4, 1))"),
                            "t");
  const auto& s = *p.schedule;
  REQUIRE(s.size() == 10);
  CHECK(s[0].kind == DirectiveKind::Specialize);
  CHECK(s[0].func.text == "p");
  CHECK(s[0].exprs.size() == 2);
  CHECK(s[1].loop.spec == 1);
  CHECK(s[1].tail == TailStrategy::Shift);
  CHECK(same_expr(s[1].exprs[0], O(Op::Mul, {C(4), V("w")})));
  CHECK(s[2].kind == DirectiveKind::Fuse);
  CHECK(s[2].loop.stage == 2);
  CHECK(s[2].names.at(0).text == "t");
  CHECK(s[3].kind == DirectiveKind::Swap);
  CHECK(s[4].order == Traversal::Vectorized);
  CHECK(s[5].func.text == "f");
  CHECK(s[6].kind == DirectiveKind::StoreAt);
  CHECK(s[7].kind == DirectiveKind::Bound);
  CHECK(s[7].names.at(0).text == "x");
  CHECK(s[7].exprs.size() == 2);
  CHECK(s[8].exprs.size() == 1);
  CHECK(s[9].kind == DirectiveKind::AlignBounds);
  CHECK(print_directive(s[1]) == "split(<p, 1, 0, x>, xo, xi, 4 * w, shift)");
  CHECK(print_loop_name(s[4].loop) == "<p, 2, 0, x>");
  require_round_trip(p);

  // Loop-name indices are literals, with a sign only so that -1 gets a precise error.
  CHECK(
      parse_program(with_schedule("swap(<p, 0, 9223372036854775807, x>)"), "t").schedule->at(0).loop.stage ==
      INT64_MAX);
  CHECK(parse_program(with_schedule(""), "t").schedule->empty());
}

TEST_CASE("parser: the realize section", "[parser]") {
  auto realize = [](const std::string& r) {
    return *parse_program("pipeline p(a, b) { fun p(x, y) = { x } }\n" + r, "t").realize;
  };
  Realization r = realize("realize (a = -3, b = 99999999999999999999999) over (-2, 4), (0, 1)");
  CHECK(r.params[0].value == Value(-3));
  CHECK(r.params[1].value == *Value::parse("99999999999999999999999"));
  CHECK(r.window == std::vector<Interval>{{-2, 4, {}}, {0, 1, {}}});
  CHECK(realize("realize ()").window.empty());
  CHECK(realize("realize (a = 1)").params.size() == 1);
  CHECK(realize("realize () over (0, 4)").window.size() == 1);
  Program p = parse_program("pipeline p(a) { fun p() = { a } }\nrealize (a = -1)", "t");
  require_round_trip(p);
}

TEST_CASE("parser: locations", "[parser]") {
  Program p = parse_program(kExample, "t");
  const Pipeline& pl = p.pipeline;
  CHECK(where(pl.loc) == "2:1");
  CHECK(where(pl.name.loc) == "2:10");
  CHECK(where(pl.params[0].loc) == "2:14");
  CHECK(where(pl.funcs[0].loc) == "3:3");
  CHECK(where(pl.funcs[0].name.loc) == "3:7");
  CHECK(where(pl.funcs[0].vars[1].loc) == "3:12");
  // A binary operator is located at its operator token.
  const Expr& pure = pl.funcs[0].pure;  // x * 3 + y % 7
  CHECK(where(pure->loc) == "3:25");
  CHECK(where(as<OpNode>(pure).args[0]->loc) == "3:21");
  CHECK(where(as<OpNode>(as<OpNode>(pure).args[0]).args[0]->loc) == "3:19");
  const UpdateStage& u = pl.funcs[1].updates[0];
  CHECK(where(u.loc) == "6:5");
  CHECK(where(u.rdom[0].name.loc) == "6:10");
  CHECK(where(u.value->loc) == "6:55");                      // the '+'
  CHECK(where(as<OpNode>(u.value).args[1]->loc) == "6:57");  // the call: its func name
  const Directive& split = p.schedule->at(0);
  CHECK(where(split.loc) == "15:3");
  CHECK(where(split.loop.loc) == "15:9");
  CHECK(where(split.names[1].loc) == "15:29");
  CHECK(where(p.realize->loc) == "20:1");
  CHECK(where(p.realize->window[1].loc) == "20:31");
  // Unary operators, built-ins and groups.
  Expr e = parse_expr("  -min(a, (b))", "t");
  CHECK(where(e->loc) == "1:3");
  CHECK(where(as<OpNode>(e).args[0]->loc) == "1:4");
  CHECK(where(as<OpNode>(as<OpNode>(e).args[0]).args[1]->loc) == "1:12");  // b, not its '('
  CHECK(where(parse_expr("\n\t(-7)", "t")->loc) == "2:2");
}

// ---------------------------------------------------------------- errors
TEST_CASE("parser: error messages and locations", "[parser]") {
  expr_error("(a + b;", "1:7", "expected ')' to close '(' opened at 1:1, found ';'");
  expr_error("a +", "1:4", "expected an expression, found end of file");
  expr_error("a + }", "1:5", "expected an expression, found '}'");
  expr_error("f[x, y", "1:7", "expected ',' or ']' to close '[' opened at 1:2, found end of file");
  expr_error("a b", "1:3", "expected end of input after the expression, found 'b'");
  expr_error("x<-1", "1:2", "write '< -'");
  expr_error("min(1)", "1:1", "min expects 2 arguments, found 1");
  expr_error("select(1, 2, 3, 4)", "1:1", "select expects 3 arguments (or an odd number, Halide's multi-way select(c0, v0, c1, v1, ..., default)), found 4");
  expr_error("select[1]", "1:7", "'select' is a built-in operator, not a func");
  expr_error("max", "1:4", "expected '(' after the built-in 'max'");
  expr_error("g(x)", "1:2", "func accesses use brackets: write g[...]");
  expr_error("a @ b", "1:3", "unexpected character '@'");
  expr_error("a \x01", "1:3", "unexpected character '\\x01'");
  expr_error("a \xff", "1:3", "unexpected character '\\xFF'");
  // `|` alone is Halide's bitwise or since typed programs (docs/types.md); `$` is nothing.
  expr_error("a $ b", "1:3", "unexpected character '$'");
  expr_error("3x", "1:1", "malformed integer literal '3x'");
  expr_error(std::string(kMaxLiteralDigits + 1, '7'), "1:1", "integer literal too long");
  expr_error("in + 1", "1:1", "expected an expression, found reserved word 'in'");
  expr_error(std::string("x # comment \0 with NUL", 22), "1:13", "unexpected character '\\x00'");

  program_error("", "1:1", "expected 'pipeline' at the start of the program, found end of file");
  program_error("pipeline p() {\n  fun p(x) = { x }\n", "3:1",
                "unexpected end of file: the pipeline body opened at 1:14 is not closed");
  program_error("pipeline p() { fun p(x) = { x } x }", "1:33",
                "expected 'fun', 'input' or '}' to close the pipeline body");
  program_error("pipeline p() { fun p(x) { x } }", "1:25",
                "expected '=' after the signature of func p, found '{'");
  program_error("pipeline p() { fun p(x) = { x y } }", "1:31",
                "expected ';' or '}' after the stage, found 'y'");
  program_error("pipeline p() { fun p(x) = { } }", "1:29", "expected an expression, found '}'");
  program_error("pipeline p() { fun p(x) = { 0; (x, 1) + 2 } }", "1:39",
                "expected '<-' after the left-hand side");
  program_error("pipeline p() { fun p(x) = { 0; rdom(r = (0, 1)) (x) <- 1 } }", "1:49",
                "expected 'in' after the rdom");
  program_error("pipeline p() { fun p(x) = { 0; rdom(r = (0, 1)) in x <- 1 } }", "1:52",
                "expected '(' to start the left-hand side");
  program_error("pipeline p() { fun p(x) = { 0; rdom(r = (0, 1)) in (x) = 1 } }", "1:56",
                "expected '<-' after the left-hand side of the update");
  program_error("pipeline p() { fun p(x) = { 0; (x) <- 1 if } }", "1:44", "expected an expression");
  program_error("pipeline p(a,) { fun p(x) = { 0 } }", "1:14", "expected a parameter name, found ')'");
  program_error("pipeline p() { fun min(x) = { 0 } }", "1:20",
                "expected a func name, found reserved word 'min'");
  program_error("pipeline p() { fun p(split) = { 0 } }", "1:22", "reserved word 'split'");
  program_error("pipeline p() { fun p(x) = { 0 } } pipeline", "1:35", "a program has exactly one pipeline");
  program_error("pipeline p() { fun p(x) = { 0 } } schedule { } x", "1:48",
                "expected 'realize' or end of file after the schedule, found 'x'");
  program_error("pipeline p() { fun p(x) = { 0 } } realize () realize ()", "1:46",
                "at most one realize section (the first is at 1:35)");
  program_error("pipeline p() { fun p(x) = { 0 } } realize (a = b)", "1:48",
                "expected a number, found 'b'");
  program_error("pipeline p() { fun p(x) = { 0 } } realize () over", "1:50",
                "expected '(' to start the interval");
  program_error("pipeline p() { fun p(x) = { 0 } } realize () over (0, 1, 2)", "1:56",
                "expected ')' to close '(' opened at 1:51, found ','");

  program_error(with_schedule("swap(<p, 0, 0, x>) swap(<p, 0, 0, x>)"), "5:20",
                "expected ';' after the directive");
  program_error(with_schedule("swap(p)"), "5:6", "expected a loop name <f, j, i, v>, found 'p'");
  program_error(with_schedule("swap(<p, 0, x>)"), "5:13",
                "expected the stage index of the loop name (an integer), found 'x'");
  program_error(with_schedule("swap(<p, 0, 0, x)"), "5:17", "expected '>' to close '<' opened at 5:6");
  program_error(with_schedule("swap(<p, -2, 0, x>)"), "5:10",
                "specialization index of a loop name must be non-negative");
  program_error(with_schedule("split(<p, 0, 0, x>, xo, xi, 8)"), "5:30",
                "split takes 5 arguments: split(<f, j, i, v>, vo, vi, factor, guard|shift|round)");
  program_error(with_schedule("specialize(p)"), "5:13",
                "specialize takes at least 2 arguments: specialize(f, c1, ..., cn)");
  program_error(with_schedule("traverse(<p, 0, 0, x>, sideways)"), "5:24", "expected a traversal order");
  program_error(with_schedule("compute_at(<p, 0, 0, x>, p)"), "5:12", "expected a func name, found '<'");
  program_error(with_schedule("fuse(<p, 0, 0, x> t)"), "5:19",
                "expected ',' between the arguments of fuse, found 't'");
  program_error(with_schedule("; swap(<p, 0, 0, x>)"), "5:1", "expected a directive");
}

TEST_CASE("parser: files", "[parser]") {
  SECTION("an unreadable file is an error at 0:0") {
    try {
      parse_file("/nonexistent/dir/x.halo");
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(where(e.diagnostics()[0].loc) == "0:0");
      CHECK_THAT(e.diagnostics()[0].message, Catch::StartsWith("cannot read file: "));
      CHECK(e.diagnostics()[0].file == "/nonexistent/dir/x.halo");
    }
    CHECK_THROWS_AS(parse_file(HALO_SOURCE_DIR "/tests"), InputError);  // a directory
  }
  SECTION("the program remembers its file") {
    auto path = std::filesystem::temp_directory_path() / "halo_test_parser_file.halo";
    std::ofstream(path, std::ios::binary) << "pipeline p() { fun p() = { 1 } }\r\n";
    CHECK(parse_file(path.string()).file == path.string());
    std::filesystem::remove(path);
  }
}

// ---------------------------------------------------------------- nesting
TEST_CASE("parser: nesting limit", "[parser]") {
  auto nested = [](int n, const std::string& open, const std::string& inner, const std::string& close) {
    std::string s;
    for (int i = 0; i < n; ++i) s += open;
    s += inner;
    for (int i = 0; i < n; ++i) s += close;
    return s;
  };
  const std::string msg = "expression nested too deeply (limit 200)";
  CHECK_NOTHROW(parse_expr(nested(kMaxNesting, "(", "x", ")"), "t"));
  expr_error(nested(kMaxNesting + 1, "(", "x", ")"), "1:201", msg);
  expr_error(nested(100000, "(", "x", ")"), "1:201", msg);
  CHECK_NOTHROW(parse_expr(nested(kMaxNesting, "-", "x", ""), "t"));
  expr_error(nested(100000, "!", "x", ""), "1:201", msg);
  expr_error(nested(1000, "f[", "x", "]"), "1:402", msg);  // at the 201st '['
  expr_error(nested(1000, "min(0, ", "x", ")"), "1:1404", msg);
  // A long chain is built by a loop, not by recursion, but its tree is as deep as it is
  // long: it is held to the same limit so that later passes cannot overflow either.
  std::string sum = "x";
  for (int i = 0; i < kMaxNesting; ++i) sum += "+x";
  CHECK_NOTHROW(parse_expr(sum, "t"));
  expr_error(sum + "+x", "1:402", msg);
  // 150 groups and 150 operators: the operator of depth 201 is the 50th '+'.
  expr_error(nested(150, "(x+", "x", ")"), "1:150", msg);
  // Every top-level expression starts afresh; the parentheses of a left-hand side count.
  std::string deep = nested(kMaxNesting, "(", "0", ")");
  CHECK_NOTHROW(parse_program("pipeline p() { fun p(x) = { " + deep + "; " +
                                  nested(kMaxNesting, "(", "0", ")") + " <- " + deep + " if " + deep + " } }",
                              "t"));
}

// ---------------------------------------------------------------- corpus and examples
TEST_CASE("parser: the parse-error corpus reports the expected locations", "[parser]") {
  namespace fs = std::filesystem;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(HALO_SOURCE_DIR) / "tests" / "invalid")) {
    std::string name = entry.path().filename().string();
    if (!name.starts_with("syntax_") || entry.path().extension() != ".halo") continue;
    ++count;
    INFO(name);
    std::string text = read_file(entry.path());
    const std::string tag = "# expect: ";
    REQUIRE(text.starts_with(tag));
    std::string expected = text.substr(tag.size(), text.find('\n') - tag.size());
    try {
      parse_file(entry.path().string());
      FAIL("parsed without error");
    } catch (const InputError& e) {
      INFO(e.what());
      CHECK(where(e.diagnostics().at(0).loc) == expected);
    }
  }
  CHECK(count >= 18);
}

TEST_CASE("parser: every example round-trips", "[parser]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(HALO_SOURCE_DIR) / "examples";
  int count = 0;
  if (fs::is_directory(dir)) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() != ".halo") continue;
      ++count;
      INFO(entry.path().string());
      require_round_trip(parse_file(entry.path().string()));
    }
  }
  if (count == 0) WARN("no examples/*.halo yet");
  require_round_trip(parse_program(kExample, "t"));
}

// ---------------------------------------------------------------- properties
TEST_CASE("parser: printing then parsing is the identity", "[parser]") {
  rc::prop("expressions", [] {
    Expr e = random_expr(*rc::gen::inRange(0, 6));
    std::string text = print_expr(e);
    RC_LOG() << text;
    RC_ASSERT(same_expr(parse_expr(text, "t"), e));
  });
  rc::prop("whole programs", [] {
    Program p = random_program();
    std::string text = print_program(p);
    RC_LOG() << text;
    Program q = parse_program(text, "t");
    RC_ASSERT(same_program(q, p));
    RC_ASSERT(print_program(q) == text);
  });
  rc::prop("expressions as pure stages and left-hand sides", [] {
    Expr e = random_expr(*rc::gen::inRange(0, 4));
    Program p = parse_program("pipeline p() { fun p(x) = { 0; (x) <- 0 } }", "t");
    p.pipeline.funcs[0].pure = e;
    p.pipeline.funcs[0].updates[0].lhs = {e};
    p.pipeline.funcs[0].updates[0].value = e;
    std::string text = print_program(p);
    RC_LOG() << text;
    RC_ASSERT(same_program(parse_program(text, "t"), p));
  });
}

TEST_CASE("parser: no input crashes the parser", "[parser]") {
  auto must_not_crash = [](const std::string& s) {
    try {
      Program p = parse_program(s, "t");
      RC_ASSERT(same_program(parse_program(print_program(p), "t"), p));
    } catch (const InputError& e) {
      RC_ASSERT(e.diagnostics().size() == 1u);
    }
    try {
      parse_expr(s, "t");
    } catch (const InputError&) {
    }
  };
  rc::prop("random bytes",
           [&] { must_not_crash(*rc::gen::container<std::string>(rc::gen::arbitrary<char>())); });
  rc::prop("random strings", [&] { must_not_crash(*rc::gen::arbitrary<std::string>()); });
  rc::prop("random tokens", [&] { must_not_crash(random_token_soup()); });
}

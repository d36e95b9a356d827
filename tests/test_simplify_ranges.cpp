// simplify_with_ranges (bounds/simplify.hpp): the presentation simplifier `halo explain`
// shows β0's holes through. Named rewrites (one per rule, with the edge cases: negative
// ranges, Euclidean division of negative numerators, empty ranges, decided selects), the
// tiled blur's hole in its short form, a property that the result evaluates like the
// input under random (negative, zero, large) values, and the explain page's use of it.
#include "bounds/simplify.hpp"
#include "report/explain.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/validity.hpp"

#include <catch2/catch.hpp>
#include <rapidcheck.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace halo;

namespace {

// An evaluator independent of both simplifiers (apply_op is the operators' semantics).
Value eval(const Expr& e, const std::map<std::string, Value>& env) {
  switch (e->kind) {
    case ExprKind::Const: return as<ConstNode>(e).value;
    case ExprKind::Var: return env.at(as<VarNode>(e).name);
    case ExprKind::Op: {
      std::vector<Value> vs;
      for (const Expr& a : as<OpNode>(e).args) vs.push_back(eval(a, env));
      return apply_op(as<OpNode>(e).op, vs);
    }
    default: throw std::logic_error("eval: hole or func access");
  }
}

void vars_of(const Expr& e, std::set<std::string>& out) {
  if (e->kind == ExprKind::Var) out.insert(as<VarNode>(e).name);
  if (e->kind == ExprKind::Op)
    for (const Expr& a : as<OpNode>(e).args) vars_of(a, out);
}

Expr c(int64_t v) { return make_const(Value(v)); }
Expr v(const std::string& n) { return make_var(n); }
Expr op(Op o, std::vector<Expr> args) { return make_op(o, std::move(args)); }
Expr parse(const std::string& s) { return parse_expr(s, "<test>"); }
std::string sr(const std::string& s) { return print_expr(simplify_with_ranges(parse(s))); }

// Values a variable takes in the property: small ones (negative, zero, positive) and large
// ones, beyond 32 and 64 bits' reach in intermediate results.
rc::Gen<int64_t> gen_value() {
  return rc::gen::oneOf(rc::gen::inRange<int64_t>(-12, 13),
                        rc::gen::elementOf(std::vector<int64_t>{0, 1, -1, 3, -3, 4, -4, 1000003, -1000003,
                                                                int64_t{1} << 40, -(int64_t{1} << 40),
                                                                INT64_MAX, INT64_MIN}),
                        rc::gen::arbitrary<int64_t>());
}

// Bounds-like expressions: + - * by a constant, / and % by a constant (zero and negative
// ones included), min, max, select over comparisons (with constants or each other) and &&.
rc::Gen<Expr> gen_bounds_expr(std::vector<std::string> vars, int depth);

rc::Gen<Expr> gen_cond(std::vector<std::string> vars, int depth) {
  return rc::gen::exec([vars, depth] {
    auto cmp = [&] {
      Op o = *rc::gen::elementOf(std::vector<Op>{Op::Lt, Op::Gt, Op::Le, Op::Ge, Op::Eq, Op::Ne});
      Expr a = *gen_bounds_expr(vars, depth - 1);
      Expr b = *rc::gen::weightedOneOf<Expr>(
          {{3, rc::gen::map(rc::gen::inRange<int64_t>(-6, 7), [](int64_t k) { return c(k); })},
           {1, gen_bounds_expr(vars, depth - 1)}});
      return *rc::gen::arbitrary<bool>() ? op(o, {a, b}) : op(o, {b, a});
    };
    int shape = *rc::gen::inRange(0, 7);
    if (shape >= 4) {  // shared parts, so that absorption has something to do
      Expr a = cmp(), b = cmp();
      if (shape == 4) return op(Op::Or, {op(Op::And, {a, b}), *rc::gen::elementOf(std::vector<Expr>{a, b})});
      if (shape == 5) return op(Op::And, {*rc::gen::elementOf(std::vector<Expr>{a, b}), op(Op::Or, {b, a})});
      return op(Op::And, {op(Op::And, {a, b}), a});
    }
    if (shape == 0) return op(Op::And, {cmp(), cmp()});
    if (shape == 1) return op(Op::Or, {cmp(), cmp()});
    if (shape == 2) return op(Op::Not, {cmp()});
    return cmp();
  });
}

rc::Gen<Expr> gen_bounds_expr(std::vector<std::string> vars, int depth) {
  auto leaf = rc::gen::oneOf(rc::gen::map(rc::gen::inRange<int64_t>(-5, 6), [](int64_t k) { return c(k); }),
                             rc::gen::map(rc::gen::elementOf(vars), [](const std::string& n) { return v(n); }));
  if (depth <= 0) return leaf;
  return rc::gen::oneOf(leaf, leaf, rc::gen::exec([vars, depth] {
    auto sub = [&] { return *gen_bounds_expr(vars, depth - 1); };
    auto k = [] { return c(*rc::gen::inRange<int64_t>(-5, 6)); };
    switch (*rc::gen::inRange(0, 10)) {
      case 0: return op(Op::Add, {sub(), sub()});
      case 1: return op(Op::Sub, {sub(), sub()});
      case 2: return op(Op::Mul, {sub(), k()});
      case 3: return op(Op::Div, {sub(), k()});
      case 4: return op(Op::Mod, {sub(), k()});
      case 5: return op(Op::Min, {sub(), sub()});
      case 6: return op(Op::Max, {sub(), sub()});
      case 7: return op(Op::Neg, {sub()});
      case 8: return op(Op::Add, {sub(), k()});
      default: return op(Op::Select, {*gen_cond(vars, depth - 1), sub(), sub()});
    }
  }));
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("simplify_with_ranges: the tiled blur's hole reads short", "[simplify]") {
  const std::string hole =
      "select((max(y_len + 1, 1) + 1) / 3 > 0 && (max(x_len + 1, 1) + 2) / 4 > 0, max((max(x_len + 1, 1) + 2) / 4 * "
      "4, 0), 0)";
  CHECK(sr(hole) == "select(y_len >= 1 && x_len >= 1, (x_len + 3) / 4 * 4, 0)");
  CHECK(sr("select((max(y_len + 1, 1) + 1) / 3 > 0 && (max(x_len + 1, 1) + 2) / 4 > 0, "
           "max((max(y_len + 1, 1) + 1) / 3 * 3 + 2, 0), 0)") ==
        "select(y_len >= 1 && x_len >= 1, (y_len + 2) / 3 * 3 + 2, 0)");
  CHECK(sr("select(x_len > 0 && y_len > 0, x_len, 0)") == "select(x_len >= 1 && y_len >= 1, x_len, 0)");
  // blur.halo's, with a guard that repeats a conjunct and a max over y_min-shifted operands.
  CHECK(sr("select(y_len >= 1 && x_len >= 1 && y_len >= 1 && w >= 0 || x_len >= 1 && y_len >= 1 && "
           "max((max(y_len + 1, 1) + 6) / 8 * 8 + y_min, y_len + y_min) - y_min >= 1, "
           "max(max((max(y_len + 1, 1) + 6) / 8 * 8 + y_min, y_len + y_min) - y_min, 0), 0)") ==
        "select(x_len >= 1 && y_len >= 1, (y_len + 7) / 8 * 8, 0)");
  // simplify alone (what β0 returns) keeps it as it is.
  CHECK(print_expr(simplify(parse(hole))) == hole);
}

TEST_CASE("simplify_with_ranges: one rule at a time", "[simplify]") {
  SECTION("ranges decide max, min and comparisons") {
    CHECK(sr("max(x % 4, 0)") == "x % 4");
    CHECK(sr("min(x % 4, 3)") == "x % 4");
    CHECK(sr("min(x % 4, 2)") == "min(x % 4, 2)");
    CHECK(sr("max(x % 4, -1)") == "x % 4");
    CHECK(sr("x % 4 < 4") == "1");
    CHECK(sr("x % 4 >= 4") == "0");
    CHECK(sr("x % -4 < 4") == "1");  // Euclidean: 0 <= x % k < |k|
    CHECK(sr("max(min(x, -3), -2)") == "(-2)");  // min(x, -3) <= -3 < -2
    CHECK(sr("min(max(x, 5), 5 - 1)") == "4");
    CHECK(sr("max(x / 0, x % 0)") == "0");  // x / 0 = x % 0 = 0
    CHECK(sr("(x % 3) % 7") == "x % 3");
    CHECK(sr("(x % 3) / 3") == "0");
  }
  SECTION("division by a constant of negative numerators") {
    // x % 4 - 4 is in [-4, -1], so (x % 4 - 4) / 4 = -1 (floor; Euclidean for a positive divisor).
    CHECK(sr("(x % 4 - 4) / 4") == "(-1)");
    CHECK(sr("(x % 4 - 4) / -4") == "1");  // Euclidean: a / -k = -(a / k)
    CHECK(sr("(x % 4 - 5) / 4") == "(x % 4 - 5) / 4");  // [-5, -2] / 4 is [-2, -1]
    CHECK(sr("(x % 4 - 5) / 4 <= -1") == "1");
    // e / c > k ⟺ e >= (k + 1)·c, also for negative k.
    CHECK(sr("x / 3 > -2") == "x >= (-3)");
    CHECK(sr("x / 3 >= -2") == "x >= (-6)");
    CHECK(sr("x / 3 < -2") == "x <= (-7)");
    CHECK(sr("x / 3 <= -2") == "x <= (-4)");
    CHECK(sr("-1 < x / 3") == "x >= 0");
  }
  SECTION("comparisons with constants are normalized") {
    CHECK(sr("x + 3 > 5") == "x >= 3");
    CHECK(sr("x - 3 < 5") == "x <= 7");
    CHECK(sr("5 <= x + 1") == "x >= 4");
    CHECK(sr("max(x, 1) >= 2") == "x >= 2");
    CHECK(sr("max(x, 3) >= 2") == "1");
    CHECK(sr("min(x, 3) >= 2") == "x >= 2");
    CHECK(sr("min(x, 1) >= 2") == "0");
    CHECK(sr("max(x, 3) <= 2") == "0");
    CHECK(sr("min(x, 1) <= 2") == "1");
    CHECK(sr("-x >= 2") == "x <= (-2)");
    CHECK(sr("2 * x >= 5") == "x >= 3");
    CHECK(sr("2 * x <= 5") == "x <= 2");
    CHECK(sr("-2 * x >= 5") == "x <= (-3)");
    CHECK(sr("2 * x == 5") == "0");
    CHECK(sr("2 * x != 5") == "1");
    CHECK(sr("2 * x + 2 * y == 4") == "x + y == 2");
    CHECK(sr("x / 4 * 4 >= 1") == "x >= 4");
    CHECK(sr("!(x > 3)") == "x <= 3");
    CHECK(sr("x < y") == "x < y");  // no constant side: kept
  }
  SECTION("facts from select conditions") {
    CHECK(sr("select(x >= 1, max(x, 0), 0)") == "select(x >= 1, x, 0)");
    CHECK(sr("select(x >= 1, 0, max(x, 0))") == "0");  // false branch: x <= 0, so max(x, 0) = 0
    CHECK(sr("select(x >= 1, 1, max(x, 0))") == "select(x >= 1, 1, 0)");
    CHECK(sr("select(x >= 1, 0, min(x, 0))") == "select(x >= 1, 0, x)");  // false branch: x <= 0
    CHECK(sr("select(x > 0 || y > 0, 7, max(x, 0) + min(y, 1))") == "select(x >= 1 || y >= 1, 7, y)");
    CHECK(sr("select(x == 3, x + 1, 4)") == "4");  // in the true branch x is 3
    CHECK(sr("select(x >= 2 && x <= 2, x * 5, 10)") == "10");
    // Nested: the inner condition is decided by the outer fact.
    CHECK(sr("select(x >= 5, select(x >= 3, x, 0), 1)") == "select(x >= 5, x, 1)");
    // The facts of the outer select narrow the inner one's branches.
    CHECK(sr("select(x >= 0, select(y >= 0, max(x + y, 0), 2), 3)") == "select(x >= 0, select(y >= 0, x + y, 2), 3)");
  }
  SECTION("differences: common terms cancel, e / c * c is e - e % c") {
    CHECK(sr("max((y + 7) / 8 * 8, y)") == "(y + 7) / 8 * 8");  // (y + 7) / 8 * 8 - y is in [0, 7]
    CHECK(sr("min((y + 7) / 8 * 8, y + 7)") == "(y + 7) / 8 * 8");
    CHECK(sr("max(y / 4 * 4, y - 4)") == "y / 4 * 4");
    CHECK(sr("max(y / 4 * 4, y - 3)") == "y / 4 * 4");
    CHECK(sr("max(y / 4 * 4, y - 2)") == "max(y / 4 * 4, y - 2)");  // y = 3: 0 < 1
    CHECK(sr("y / -4 * -4 <= y") == "1");  // Euclidean: y = y / c * c + y % c, 0 <= y % c
    CHECK(sr("(y + 7) / 8 * 8 >= y") == "1");
    CHECK(sr("(y + 7) / 8 * 8 > y") == "(y + 7) / 8 * 8 > y");
    // A term all operands share comes out of min and max.
    CHECK(sr("max(x + y_min, z + y_min) - y_min") == "max(x, z)");
    CHECK(sr("max(max((y + 7) / 8 * 8 + m, y + m) - m, 0)") == "max((y + 7) / 8 * 8, 0)");
    CHECK(sr("select(y >= 1, max(max((y + 7) / 8 * 8 + m, y + m) - m, 0), 0)") == "select(y >= 1, (y + 7) / 8 * 8, 0)");
  }
  SECTION("&& and ||: the right operand is read where the left one is true (&&) or false (||)") {
    CHECK(sr("y >= 1 && x >= 1 && y >= 1 && w >= 0") == "y >= 1 && x >= 1 && w >= 0");
    CHECK(sr("x >= 1 && max(x, 0) + 1 >= 2") == "x >= 1");
    CHECK(sr("x >= 3 && x <= 2") == "0");
    CHECK(sr("x >= 3 || x >= 1") == "x >= 1");  // absorption: x >= 3 implies x >= 1
    CHECK(sr("x <= 2 || x >= 3") == "1");
    CHECK(sr("x <= 2 || min(x, 1) >= 1") == "1");  // x >= 3 there: min(x, 1) = 1
    CHECK(sr("x <= 2 || min(x, 5) >= 4") == "x <= 2 || x >= 4");
    // Absorption: a && b && c || b && a is b && a; (a || b) && a is a.
    CHECK(sr("y >= 1 && x >= 1 && w >= 0 || x >= 1 && y >= 1") == "x >= 1 && y >= 1");
    CHECK(sr("(x == 1 || y == 2) && x == 1") == "x == 1");
    CHECK(sr("z == 3 && (x == 1 || y == 2) && x == 1") == "z == 3 && x == 1");
  }
  SECTION("empty ranges: a branch whose facts contradict the context is never taken") {
    CHECK(sr("select(x >= 5, select(x <= 2, 7, 8), 9)") == "select(x >= 5, 8, 9)");
    CHECK(sr("select(x <= 2, 1, select(x <= 4, select(x >= 5, 6, x), 0))") ==
          "select(x <= 2, 1, select(x <= 4, x, 0))");
  }
  SECTION("selects, logic") {
    CHECK(sr("select(x % 3 < 3, a, b)") == "a");
    CHECK(sr("select(max(x, 1) > 0, a, b)") == "a");
    CHECK(sr("select(x % 2 == 2, a, b)") == "b");
    CHECK(sr("max(x, 0) >= 0 && y > 1") == "y >= 2");
    CHECK(sr("x < 0 || x % 4 > 3 || y > 1") == "x <= (-1) || y >= 2");
    CHECK(sr("x && 1") == "x && 1");  // x may be 5: x && 1 is 1 then, not x
  }
}

TEST_CASE("simplify_with_ranges: evaluates like its input", "[simplify]") {
  const std::vector<std::string> vars = {"x", "y", "z"};
  REQUIRE(rc::check("simplify_with_ranges(e) = e under every assignment", [&] {
    Expr e = *gen_bounds_expr(vars, *rc::gen::inRange(1, 6));
    Expr s = simplify_with_ranges(e);
    // Every small assignment (where guards flip), then random ones, large ones included.
    for (int64_t a = -3; a <= 3; ++a)
      for (int64_t b = -3; b <= 3; ++b)
        for (int64_t d = -3; d <= 3; ++d) {
          std::map<std::string, Value> env = {{"x", Value(a)}, {"y", Value(b)}, {"z", Value(d)}};
          RC_ASSERT(eval(s, env) == eval(e, env));
        }
    for (int k = 0; k < 8; ++k) {
      std::map<std::string, Value> env;
      for (const auto& n : vars) env[n] = Value(*gen_value());
      RC_ASSERT(eval(s, env) == eval(e, env));
    }
  }));
  // Selects over a tiled schedule's shapes: guards on lengths and rounded-up extents.
  REQUIRE(rc::check("on guards and rounded lengths", [&] {
    int64_t t = *rc::gen::inRange<int64_t>(1, 6);
    Expr len = v(*rc::gen::elementOf(vars));
    Expr rounded = op(Op::Div, {op(Op::Add, {op(Op::Max, {op(Op::Add, {len, c(*rc::gen::inRange<int64_t>(-2, 3))}),
                                                           c(*rc::gen::inRange<int64_t>(-2, 3))}),
                                             c(t - 1)}),
                                c(t)});
    Expr e = op(Op::Select, {op(Op::And, {op(Op::Gt, {rounded, c(*rc::gen::inRange<int64_t>(-2, 3))}), *gen_cond(vars, 2)}),
                             op(Op::Max, {op(Op::Mul, {rounded, c(t)}), c(*rc::gen::inRange<int64_t>(-3, 4))}),
                             *gen_bounds_expr(vars, 2)});
    Expr s = simplify_with_ranges(e);
    for (int k = 0; k < 8; ++k) {
      std::map<std::string, Value> env;
      for (const auto& n : vars) env[n] = Value(*gen_value());
      RC_ASSERT(eval(s, env) == eval(e, env));
    }
  }));
}

TEST_CASE("simplify_with_ranges: the explain page shows the short form", "[simplify]") {
  const std::string path = std::string(HALO_SOURCE_DIR) + "/examples/tiled_blur.halo";
  const std::string src = read(path);
  Program p = parse_program(src, path);
  check_program(p);
  explain::Explanation e = explain::explain_program(p, src, {});
  REQUIRE_FALSE(e.filling.empty());
  int shorter = 0;
  for (const auto& h : e.filling) {
    INFO(h.hole << ": " << h.expression << " -> " << h.simplified);
    Expr raw = parse_tgt_expr(h.expression, "<raw>"), simp = parse_tgt_expr(h.simplified, "<simplified>");
    CHECK(h.simplified == print_expr(simplify_with_ranges(raw)));
    std::set<std::string> names;
    vars_of(raw, names);
    vars_of(simp, names);
    for (int64_t a : {-7, -1, 0, 1, 2, 3, 4, 5, 9, 100}) {
      std::map<std::string, Value> env;
      int64_t k = 0;
      for (const auto& n : names) {
        ++k;
        env[n] = Value(a * (k % 2 ? 1 : -1) + k);
      }
      CHECK(eval(simp, env) == eval(raw, env));
    }
    if (h.simplified.size() < h.expression.size()) ++shorter;
    if (h.hole == "?mem<bx, x>.len") CHECK(h.simplified == "select(y_len >= 1 && x_len >= 1, (x_len + 3) / 4 * 4, 0)");
  }
  CHECK(shorter > 0);
}

// `let t = e in body` (docs/syntax.md, "let"): the body reads e wherever it reads t, so a
// program with lets computes exactly what the program with each use written out computes,
// at every type's edges; names are scoped and shadow as in Halide's Let; a let chain that
// would write out a huge tree is refused at the let.
#include "interp/fast_eval.hpp"
#include "semantics/printer.hpp"
#include "support.hpp"
#include "typed_edges.hpp"

#include <fmt/format.h>

namespace halo {
namespace {

OutputBuffer eval_text(const std::string& src) {
  Program p = test::parse_valid(src);
  return evaluate_fast(p.pipeline, resolve_input(p, {}), Limits{});
}

}  // namespace

TEST_CASE("let: every operator at every type's edges computes what the written-out expression computes", "[let]") {
  for (const test::EdgeType& t : test::edge_types()) {
    test::EdgeTable table = test::edge_table(t);
    for (const std::string& op : test::edge_ops()) {
      CAPTURE(t.name, op);
      auto program = [&](const std::string& body) {
        return fmt::format(R"(pipeline out({0}) {{
  fun a(x) : {1} = {{ {2} }}
  fun out(x, y) = {{ {3} }}
}}
realize ({4}) over (0, {5}), (0, {5}))",
                           table.params, t.name, table.table, body, table.binds, table.size);
      };
      std::string with_lets = "let ta = a[x] in let tb = a[y] in " + test::edge_op(op, t, "ta", "tb");
      std::string written_out = test::edge_op(op, t, "a[x]", "a[y]");
      // An operator Halide rejects at this type (widening a 64-bit value) is rejected either way.
      std::string refused;
      OutputBuffer plain;
      try {
        plain = eval_text(program(written_out));
      } catch (const InputError& e) {
        refused = e.diagnostics().at(0).message;
      }
      if (!refused.empty()) {
        CHECK_THROWS_WITH(eval_text(program(with_lets)), Catch::Contains(refused));
        continue;
      }
      OutputBuffer lets = eval_text(program(with_lets));
      REQUIRE(lets.values.size() == table.size * table.size);
      CHECK(lets.values == plain.values);
    }
  }
}

TEST_CASE("let: scopes, shadowing, a let of literals is Int(32) as in Halide, and the size limit", "[let][parser]") {
  // The inner let shadows the outer; a let may rebind a func's variable, its value reading
  // the variable it shadows; lets nest inside operands and other lets' values.
  OutputBuffer out = eval_text(R"(pipeline out() {
  fun out(x) = { let t = x + 1 in (let t = t * 10 in t + 1) + t + (let x = x * 100 in x) }
}
realize () over (-2, 4))");
  for (int64_t i = 0; i < 4; ++i) {
    int64_t x = i - 2, t = x + 1;
    CHECK(out.values[size_t(i)] == Value(t * 10 + 1 + t + x * 100));
  }
  // The body reads the value itself: the program prints written out.
  Program p = test::parse_valid(R"(pipeline out() {
  fun g(x) : u8 = { u8(x) }
  fun out(x) : u8 = { let d = g[x] in d * d + let e = d + 1 in e }
}
realize () over (0, 4))");
  CHECK_THAT(print_program(p), Catch::Contains("g[x] * g[x] + (g[x] + 1)"));
  CHECK(p.pipeline.output().type == Type::uint(8));
  // A let of literals alone is Int(32) wherever it is read, as Halide types `Expr c = 200;`
  // (so u8(x) + c does not wrap), where the literal written in place takes u8's type.
  Program lit = test::parse_valid(R"(pipeline out() {
  fun out(x) = { let c = 200 in u8(x) + c }
}
realize () over (98, 3))");
  CHECK(lit.pipeline.output().type == Type::int_(32));
  CHECK_THAT(print_program(lit), Catch::Contains("u8(x) + i32(200)"));
  OutputBuffer wide = evaluate_fast(lit.pipeline, resolve_input(lit, {}), Limits{});
  CHECK(wide.values == std::vector<Value>{Value(298), Value(299), Value(300)});
  Program in_place = test::parse_valid("pipeline out() {\n  fun out(x) = { u8(x) + 200 }\n}\nrealize () over (98, 3)\n");
  CHECK(in_place.pipeline.output().type == Type::uint(8));
  // In a program without types nothing is cast: the value stays in ℤ.
  Program z = test::parse_valid("pipeline out() {\n  fun out(x) = { let c = 2 * 1099511627776 in x + c }\n}\nrealize () over (0, 1)\n");
  CHECK_FALSE(z.pipeline.typed);
  CHECK(evaluate_fast(z.pipeline, resolve_input(z, {}), Limits{}).values[0] == Value(int64_t{2199023255552}));
  // The name ends with the body.
  test::require_error([](const std::string& s) { check_program(parse_program(s, "<test>")); }, R"(pipeline out() {
  fun out(x) = { (let t = 1 in t) + t }
}
realize () over (0, 4))",
                      "<test>", "2:37", "t");
  test::require_error([](const std::string& s) { test::parse_valid(s); }, R"(pipeline out() {
  fun out(x) = { let t = 1 t }
}
realize () over (0, 4))",
                      "<test>", "2:28", "'in' after the value of 'let t'");
  // Each use copies the value: 25 doublings would write out 2^25 nodes.
  std::string chain = "let t0 = x in ";
  for (int k = 1; k <= 25; ++k) chain += fmt::format("let t{} = t{} + t{} in ", k, k - 1, k - 1);
  std::string huge = "pipeline out() {\n  fun out(x) = { " + chain + "t25 }\n}\nrealize () over (0, 4)";
  test::require_error([](const std::string& s) { test::parse_valid(s); }, huge, "<test>",
                      test::position_of(huge, "let t25"), "more than 1000000 nodes");
  // `let` is no reserved word: a func or a variable may still be called so.
  OutputBuffer named = eval_text(R"(pipeline out() {
  fun let(x) = { x * 2 }
  fun out(x) = { let[x] + 1 }
}
realize () over (0, 3))");
  CHECK(named.values[2] == Value(5));
}

}  // namespace halo

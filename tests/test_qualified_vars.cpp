// Qualified loop variables (docs/semantics-decisions.md, "Qualified loop variables"): a loop
// <f, j, i, x> binds the variable <f, j, i, x>, so Halide-style programs whose funcs all
// use x and y schedule without renaming. These tests pin what lowering and scheduling
// make of shared names, the text and JSON forms of qualified variables, and run the
// schedules the old shadowing rule rejected end to end (β0, both theorems, and Halide).
#include "bounds/beta0.hpp"
#include "interp/input.hpp"
#include "interp/small_step.hpp"
#include "lower/lower.hpp"
#include "oracle/theorems.hpp"
#include "schedule/schedule.hpp"
#include "semantics/parser.hpp"
#include "semantics/tgt_json.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/tgt_printer.hpp"

#include <catch2/catch.hpp>
#include "tests/cli_support.hpp"
#include "tests/support.hpp"

using namespace halo;
using halo::test::parse_valid;

namespace {

// Schedules p, completes it with β0 and checks both theorems on its realize input.
TgtProgram check_end_to_end(const Program& p) {
  TgtProgram t = schedule_pipeline(p);
  Beta0Completion c = complete_with_beta0(t);
  INFO("scheduled:\n" << print_tgt(t) << "β0: " << c.reason);
  REQUIRE(c.ok);
  Input in = resolve_input(p, {});
  OracleVerdict v = check_theorems(p, c.program, in, Limits{});
  INFO(v.detail);
  CHECK(v.holds());
  CHECK_FALSE(v.assertion_failed);
  return t;
}

// The text and JSON forms give the program back.
void check_round_trips(const TgtProgram& t) {
  std::string text = print_tgt(t);
  INFO(text);
  TgtProgram back = parse_tgt(text, "<printed>");
  CHECK(same_tgt(back, t));
  CHECK(print_tgt(back) == text);
  CHECK(same_tgt(tgt_from_json(tgt_to_json(t), "<json>"), t));
}

const std::string kThesis = R"(
pipeline f() {
  fun g(x) = { x * x + 1 }
  fun f(x) = { g[x] + g[x + 1] }
}
)";

}  // namespace

TEST_CASE("qualified variables: lowering binds each loop's name and substitutes it in the stage", "[qualified]") {
  Program p = parse_valid(R"(
pipeline f(n) {
  fun f(x) = { x; rdom(r = (0, n)) in (x) <- f[x] + r if x > r }
}
realize (n = 3) over (0, 4)
)");
  TgtProgram t = lower_pipeline(p);
  std::string json = tgt_to_json(t).dump();
  // Stage 1's store reads f^(0, *) at <f, 0, 1, x>, and its predicate mentions the rdom
  // loop's variable <f, 0, 1, r>: each stage binds its own variables.
  CHECK_THAT(json, Catch::Contains(R"({"var":{"func":"f","spec":0,"stage":1,"var":"x"}})"));
  CHECK_THAT(json, Catch::Contains(R"({"var":{"func":"f","spec":0,"stage":1,"var":"r"}})"));
  CHECK_THAT(json, Catch::Contains(R"({"var":{"func":"f","spec":0,"stage":0,"var":"x"}})"));
  // The readable text uses the short names: nothing clashes.
  CHECK_THAT(print_tgt(t), Catch::Contains("if (x > r) { f^(1, *)[x] <- f^(0, 0)[x] + r; }"));
  check_round_trips(t);
  auto scopes = hole_scopes(t);
  HoleLabel h{HoleKind::Cpu, false, "f", "x", 0, 0};
  REQUIRE(scopes.count(h));
  CHECK(scopes.at(h) == std::vector<std::string>{"n", "x_min", "x_len"});
}

TEST_CASE("qualified variables: a producer and its consumer may share variable names", "[qualified][schedule]") {
  SECTION("compute_at at the consumer's loop over the same x") {
    TgtProgram t = check_end_to_end(
        parse_valid(kThesis + "schedule { compute_at(g, <f, 0, 0, x>); }\nrealize () over (0, 6)\n"));
    check_round_trips(t);
    std::string text = print_tgt(t);
    // g's loop binds <g, 0, 0, x>; f's x, read after g's loop ends, is still f's.
    CHECK_THAT(text, Catch::Contains("if (1) { g^(0, *)[x] <- x * x + 1; }"));
    CHECK_THAT(text, Catch::Contains("if (1) { f^(0, *)[x] <- g^(0, *)[x] + g^(0, *)[x + 1]; }"));
  }
  SECTION("compute_at and store_at at an inner split variable, both funcs over x") {
    TgtProgram t = check_end_to_end(parse_valid(
        kThesis + "schedule { split(<f, 0, 0, x>, xo, xi, 3, guard); compute_at(g, <f, 0, 0, xi>); "
                  "store_at(g, <f, 0, 0, xo>); }\nrealize () over (0, 7)\n"));
    check_round_trips(t);
  }
  SECTION("a producer inside the consumer's x loop whose fill mentions the consumer's x") {
    // β0 fills g's cpu hole with f's <f, 0, 0, x>, printed in full inside g's own loop
    // over x, where a plain x would mean g's.
    TgtProgram t = schedule_pipeline(
        parse_valid(kThesis + "schedule { compute_at(g, <f, 0, 0, x>); }\nrealize () over (0, 6)\n"));
    Beta0Completion c = complete_with_beta0(t);
    REQUIRE(c.ok);
    std::string text = print_tgt(c.program);
    INFO(text);
    CHECK_THAT(text, Catch::Contains("for <g, 0, 0, x> in ("));
    check_round_trips(c.program);
  }
}

TEST_CASE("qualified variables: the tiled blur example, as Halide users write it", "[qualified][schedule]") {
  Program p = parse_file(std::string(HALO_SOURCE_DIR) + "/examples/tiled_blur.halo");
  TgtProgram t = check_end_to_end(p);
  check_round_trips(t);
  // bx is computed at out's xi and stored at root: its allocation stays at the top level.
  std::string text = print_tgt(t);
  CHECK(text.find("allocate bx(") < text.find("for <out, 0, 0, yo>"));
  CHECK(text.find("for <out, 0, 0, xi>") < text.find("label bx:"));
}

TEST_CASE("qualified variables: split and fuse names live in their func's and stage's namespace", "[qualified][schedule]") {
  SECTION("xo, xi in every func and in both stages of a func") {
    check_end_to_end(parse_valid(R"(
pipeline f(n) {
  fun g(x) = { x * 2; (x) <- g[x] + 1 }
  fun f(x) = { g[x] + g[x + 1] }
}
schedule {
  split(<g, 0, 0, x>, xo, xi, 2, guard);
  split(<g, 0, 1, x>, xo, xi, 3, guard);
  split(<f, 0, 0, x>, xo, xi, 2, guard);
  compute_at(g, <f, 0, 0, xo>);
}
realize (n = 1) over (0, 7)
)"));
  }
  SECTION("a split may name its outer loop like another func's pure variable") {
    // `co` is the filter's pure variable and the name of the conv's split.
    check_end_to_end(parse_valid(R"(
pipeline conv() {
  fun filter(co) = { co * 3 - 1 }
  fun conv(x) = { filter[x % 4] * x }
}
schedule {
  split(<conv, 0, 0, x>, co, ci, 4, guard);
  compute_at(filter, <conv, 0, 0, co>);
}
realize () over (0, 9)
)"));
  }
  SECTION("fuse names too") {
    check_end_to_end(parse_valid(R"(
pipeline f() {
  fun g(x, y) = { x + 10 * y }
  fun f(x, y) = { g[x, y] + g[x + 1, y] }
}
schedule {
  fuse(<g, 0, 0, y>, t);
  fuse(<f, 0, 0, y>, t);
}
realize () over (0, 3), (0, 2)
)"));
  }
  SECTION("names still must be new within the stage") {
    auto schedule = [](const std::string& directives) { schedule_pipeline(parse_valid(kThesis + directives)); };
    CHECK_THROWS_WITH(
        schedule("schedule { split(<f, 0, 0, x>, xo, xi, 2, guard); split(<f, 0, 0, xi>, xo, xii, 2, guard); }\n"),
        Catch::Contains("'xo' is not a fresh name, it is already the variable of loop <f, 0, 0, xo>"));
    CHECK_THROWS_WITH(
        schedule("schedule { split(<f, 0, 0, x>, xo, xi, 2, guard); split(<f, 0, 0, xo>, x, xoi, 2, guard); }\n"),
        Catch::Contains("'x' is not a fresh name, it is already a pure variable of func 'f'"));
  }
}

TEST_CASE("qualified variables: specialize renames each copy's variables", "[qualified][schedule]") {
  Program p = parse_valid(R"(
pipeline f(n) {
  fun g(x) = { x * 2 }
  fun f(x) = { g[x] + g[x + 1] }
}
schedule {
  specialize(g, n > 3);
  split(<g, 1, 0, x>, xo, xi, 2, guard);
  split(<g, 0, 0, x>, xo, xi, 3, guard);
  compute_at(g, <f, 0, 0, x>);
}
realize (n = 5) over (0, 6)
)");
  TgtProgram t = check_end_to_end(p);
  check_round_trips(t);
  std::string json = tgt_to_json(t).dump();
  CHECK_THAT(json, Catch::Contains(R"({"var":{"func":"g","spec":1,"stage":0,"var":"xi"}})"));
  CHECK_THAT(json, Catch::Contains(R"({"var":{"func":"g","spec":0,"stage":0,"var":"xi"}})"));
}

TEST_CASE("qualified variables: the text form", "[qualified][tgt]") {
  // A plain name means the innermost loop or let a reader calls so; the full name reaches
  // an outer loop of the same short name.
  TgtProgram t = parse_tgt(R"(
target pipeline out() over (x_min, x_len) {
  allocate out((x_min, x_len));
  for <out, 0, 0, x> in (x_min, x_len) serial {
    for <g, 0, 0, x> in (x, 1) serial {
      out^(0, *)[<out, 0, 0, x>] <- x * 10 + <out, 0, 0, x>;
    }
    let <out, 0, 0, y> = x in { assert y == <out, 0, 0, x>; }
  }
}
realize () over (2, 3)
)",
                           "<test>");
  std::string json = tgt_to_json(t).dump();
  CHECK_THAT(json, Catch::Contains(R"("var":{"func":"g","spec":0,"stage":0,"var":"x"})"));
  CHECK_THAT(json, Catch::Contains(R"("var":{"func":"out","spec":0,"stage":0,"var":"x"})"));
  CHECK_THAT(json, Catch::Contains(R"("var":{"func":"out","spec":0,"stage":0,"var":"y"})"));
  std::string text = print_tgt(t);
  CHECK_THAT(text, Catch::Contains("out^(0, *)[<out, 0, 0, x>] <- x * 10 + <out, 0, 0, x>;"));
  CHECK_THAT(text, Catch::Contains("let <out, 0, 0, y> = x in { assert y == x; }"));
  check_round_trips(t);
  RunResult r = run_tgt(t, resolve_input("<test>", t.name, t.params, t.window.size(), t.realize, {}), Limits{});
  CHECK(r.status == RunStatus::Ok);
  CHECK(r.output.values == std::vector<Value>{Value(22), Value(33), Value(44)});
}

TEST_CASE("qualified variables: halo oracle --target halide runs the tiled blur without renaming",
          "[qualified][halide][cli]") {
  test::CliResult r =
      test::run_halo({"oracle", std::string(HALO_SOURCE_DIR) + "/examples/tiled_blur.halo", "--target", "halide"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out + r.err, Catch::Contains("pass"));
}

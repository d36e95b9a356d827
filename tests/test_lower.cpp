// Lowering (thesis §2.6, fig. 2.9) on hand-checked programs. Every example in examples/
// is compared with a target program written by hand in tests/lowered/; small programs
// below pin down one reading each (loop order, absent pure dimensions, labels of self- and
// other-func references, the shared hole of the last stage, predicates, zero dimensions,
// fresh window names, hole scopes). Each expected program was derived from fig. 2.9 by
// hand, equation by equation; docs/lowering.md explains the readings.
#include "interp/fast_eval.hpp"
#include "interp/small_step.hpp"
#include "lower/brute_force_filling.hpp"
#include "lower/lower.hpp"
#include "semantics/parser.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/tgt_printer.hpp"
#include "semantics/validity.hpp"

#include <catch2/catch.hpp>
#include "tests/support.hpp"

#include <filesystem>
#include <map>

using namespace halo;
using halo::test::parse_valid;

namespace {

const std::string kSource = HALO_SOURCE_DIR;


// L(P) must be exactly the hand-written target program.
void check_lowers_to(const Program& p, const TgtProgram& expected) {
  TgtProgram got = lower_pipeline(p);
  INFO("lowered:\n" << print_tgt(got) << "expected:\n" << print_tgt(expected));
  CHECK(same_tgt(got, expected));
}
void check_lowers_to(const std::string& halo, const std::string& tgt) {
  check_lowers_to(parse_valid(halo), parse_tgt(tgt, "<expected>"));
}

// The top-level scope: parameters then window variables (what every hole of a freshly
// lowered program sees, SEMANTICS.md "Lowering").
std::vector<std::string> top_scope(const TgtProgram& t) {
  std::vector<std::string> s = t.params;
  for (const auto& [mn, ln] : t.window) s.push_back(mn), s.push_back(ln);
  return s;
}

}  // namespace

TEST_CASE("lower: every example lowers to its hand-written program in tests/lowered", "[lower]") {
  // Lowering ignores the schedule (fig. 2.4 applies it to L(P) afterwards), so examples
  // that differ only in their schedule share one expected program.
  const std::map<std::string, std::string> same_algorithm = {
      {"thesis_2_2_round4", "thesis_2_2"}, {"thesis_2_2_tile3", "thesis_2_2"}, {"sched_bound", "thesis_2_2"},
      {"sched_bound_extent", "thesis_2_2"}, {"sched_align_bounds", "thesis_2_2"}};
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "/examples")) {
    if (entry.path().extension() != ".halo") continue;
    std::string name = entry.path().stem().string();
    auto alias = same_algorithm.find(name);
    std::string expected = kSource + "/tests/lowered/" + (alias == same_algorithm.end() ? name : alias->second) + ".tgt";
    SECTION(name) {
      INFO("example " << entry.path() << ", expected " << expected);
      REQUIRE(std::filesystem::exists(expected));
      Program p = parse_file(entry.path().string());
      check_program(p);
      check_lowers_to(p, parse_tgt_file(expected));
    }
    ++seen;
  }
  CHECK(seen >= 6);
}

TEST_CASE("lower: the hole and label helpers spell Def. 2.14's labels", "[lower]") {
  CHECK(mem_hole("g", "x", false).to_string() == "?mem<g, x>.min");
  CHECK(cpu_hole("f", FuncLabel::kShared, 1, "y", true).to_string() == "?cpu<f, *, 1, y>.len");
  CHECK(cpu_hole("f", 0, 0, "x", false).to_string() == "?cpu<f, 0, 0, x>.min");
  Program p = parse_valid("pipeline f() { fun f(x) = { x; (x) <- f[x] + 1 } } realize () over (0, 1)");
  const FuncDef& f = p.pipeline.funcs[0];
  CHECK(stage_label(f, 0) == FuncLabel{0, 0});
  CHECK(stage_label(f, 1) == FuncLabel{1, FuncLabel::kShared});
}

TEST_CASE("lower: x1 is the innermost pure loop and r1 the innermost rdom loop, inside them", "[lower]") {
  check_lowers_to(R"(pipeline f() { fun f(x, y) = { 0; rdom(r = (0, 2), s = (1, 3)) in (x, y) <- f[x, y] + r * s } }
                     realize () over (0, 2), (0, 2))",
                  R"(target pipeline f() over (x_min, x_len), (y_min, y_len) {
                       allocate f((?mem<f, x>.min, ?mem<f, x>.len), (?mem<f, y>.min, ?mem<f, y>.len));
                       label f: {
                         label f.s0: {
                           for <f, 0, 0, y> in (?cpu<f, 0, 0, y>.min, ?cpu<f, 0, 0, y>.len) serial {
                             for <f, 0, 0, x> in (?cpu<f, 0, 0, x>.min, ?cpu<f, 0, 0, x>.len) serial {
                               if (1) { f^(0, 0)[x, y] <- 0; } } } }
                         label f.s1: {
                           for <f, 0, 1, y> in (?cpu<f, *, 1, y>.min, ?cpu<f, *, 1, y>.len) serial {
                             for <f, 0, 1, x> in (?cpu<f, *, 1, x>.min, ?cpu<f, *, 1, x>.len) serial {
                               for <f, 0, 1, s> in (1, 3) serial {
                                 for <f, 0, 1, r> in (0, 2) serial {
                                   if (1) { f^(1, *)[x, y] <- f^(0, 0)[x, y] + r * s; } } } } } } } }
                     realize () over (0, 2), (0, 2))");
}

TEST_CASE("lower: pure dimensions absent from a stage get no loop and no hole", "[lower]") {
  // Stage 1 is pure in x only (y is a reduction dimension: its left-hand side is r);
  // stage 2 is pure in y only.
  std::string src = R"(pipeline f() { fun f(x, y) = {
                         x + y;
                         rdom(r = (0, 3)) in (x, r) <- f[x, r] * 2;
                         rdom(r = (1, 2)) in (r, y) <- f[r, y] - 1 } }
                       realize () over (0, 2), (0, 2))";
  check_lowers_to(src, R"(target pipeline f() over (x_min, x_len), (y_min, y_len) {
                            allocate f((?mem<f, x>.min, ?mem<f, x>.len), (?mem<f, y>.min, ?mem<f, y>.len));
                            label f: {
                              label f.s0: {
                                for <f, 0, 0, y> in (?cpu<f, 0, 0, y>.min, ?cpu<f, 0, 0, y>.len) serial {
                                  for <f, 0, 0, x> in (?cpu<f, 0, 0, x>.min, ?cpu<f, 0, 0, x>.len) serial {
                                    if (1) { f^(0, 0)[x, y] <- x + y; } } } }
                              label f.s1: {
                                for <f, 0, 1, x> in (?cpu<f, 0, 1, x>.min, ?cpu<f, 0, 1, x>.len) serial {
                                  for <f, 0, 1, r> in (0, 3) serial {
                                    if (1) { f^(1, 0)[x, r] <- f^(0, 0)[x, r] * 2; } } } }
                              label f.s2: {
                                for <f, 0, 2, y> in (?cpu<f, *, 2, y>.min, ?cpu<f, *, 2, y>.len) serial {
                                  for <f, 0, 2, r> in (1, 2) serial {
                                    if (1) { f^(2, *)[r, y] <- f^(1, 0)[r, y] - 1; } } } } } }
                          realize () over (0, 2), (0, 2))");
  auto scopes = hole_scopes(lower_pipeline(parse_valid(src)));
  CHECK(scopes.count(cpu_hole("f", 0, 1, "x", false)) == 1);
  CHECK(scopes.count(cpu_hole("f", 0, 1, "y", false)) == 0);
  CHECK(scopes.count(cpu_hole("f", FuncLabel::kShared, 2, "x", false)) == 0);
}

TEST_CASE("lower: a self-reference names the previous stage, the store and holes name its own", "[lower]") {
  // Three stages: stage 1 reads f^(0, 0), stage 2 reads f^(1, 0); only stage 2, the last,
  // uses the shared hole and label. Another func's references name its last stage, g^(2, *).
  check_lowers_to(R"(pipeline f() {
                       fun g(x) = { x; (x) <- g[x] + 1; (x) <- g[x] * 2 }
                       fun f(x) = { g[x] + g[x - 1] } }
                     realize () over (0, 3))",
                  R"(target pipeline f() over (x_min, x_len) {
                       allocate g((?mem<g, x>.min, ?mem<g, x>.len));
                       label g: {
                         label g.s0: {
                           for <g, 0, 0, x> in (?cpu<g, 0, 0, x>.min, ?cpu<g, 0, 0, x>.len) serial {
                             if (1) { g^(0, 0)[x] <- x; } } }
                         label g.s1: {
                           for <g, 0, 1, x> in (?cpu<g, 0, 1, x>.min, ?cpu<g, 0, 1, x>.len) serial {
                             if (1) { g^(1, 0)[x] <- g^(0, 0)[x] + 1; } } }
                         label g.s2: {
                           for <g, 0, 2, x> in (?cpu<g, *, 2, x>.min, ?cpu<g, *, 2, x>.len) serial {
                             if (1) { g^(2, *)[x] <- g^(1, 0)[x] * 2; } } } }
                       allocate f((?mem<f, x>.min, ?mem<f, x>.len));
                       label f: {
                         label f.s0: {
                           for <f, 0, 0, x> in (?cpu<f, *, 0, x>.min, ?cpu<f, *, 0, x>.len) serial {
                             if (1) { f^(0, *)[x] <- g^(2, *)[x] + g^(2, *)[x - 1]; } } } } }
                     realize () over (0, 3))");
}

TEST_CASE("lower: the predicate guards the store and its accesses are labelled too", "[lower]") {
  // Also: references inside indices (a data-dependent read) and in the predicate.
  check_lowers_to(R"(pipeline f() {
                       fun g(x) = { x % 3 }
                       fun f(x) = { 0; rdom(r = (0, 4)) in (x) <- f[x] + g[g[r]] if g[r] > f[x] } }
                     realize () over (0, 3))",
                  R"(target pipeline f() over (x_min, x_len) {
                       allocate g((?mem<g, x>.min, ?mem<g, x>.len));
                       label g: {
                         label g.s0: {
                           for <g, 0, 0, x> in (?cpu<g, *, 0, x>.min, ?cpu<g, *, 0, x>.len) serial {
                             if (1) { g^(0, *)[x] <- x % 3; } } } }
                       allocate f((?mem<f, x>.min, ?mem<f, x>.len));
                       label f: {
                         label f.s0: {
                           for <f, 0, 0, x> in (?cpu<f, 0, 0, x>.min, ?cpu<f, 0, 0, x>.len) serial {
                             if (1) { f^(0, 0)[x] <- 0; } } }
                         label f.s1: {
                           for <f, 0, 1, x> in (?cpu<f, *, 1, x>.min, ?cpu<f, *, 1, x>.len) serial {
                             for <f, 0, 1, r> in (0, 4) serial {
                               if (g^(0, *)[r] > f^(0, 0)[x]) {
                                 f^(1, *)[x] <- f^(0, 0)[x] + g^(0, *)[g^(0, *)[r]]; } } } } } }
                     realize () over (0, 3))");
}

TEST_CASE("lower: zero-dimensional funcs have no loops and an empty window", "[lower]") {
  // The output has no pure variable, so the pipeline has no window variables; c's only
  // stage is its last, so its store is shared.
  check_lowers_to(R"(pipeline f() { fun c() = { 3 } fun f() = { 0; rdom(r = (0, 3)) in () <- f[] + r + c[] } }
                     realize ())",
                  R"(target pipeline f() {
                       allocate c();
                       label c: { label c.s0: { if (1) { c^(0, *)[] <- 3; } } }
                       allocate f();
                       label f: {
                         label f.s0: { if (1) { f^(0, 0)[] <- 0; } }
                         label f.s1: {
                           for <f, 0, 1, r> in (0, 3) serial {
                             if (1) { f^(1, *)[] <- f^(0, 0)[] + r + c^(0, *)[]; } } } } }
                     realize ())");
}

TEST_CASE("lower: window variables are made fresh when they clash with program names", "[lower]") {
  // x_min is a parameter, x_len a pure variable of g and x_len_ a reduction variable:
  // the window becomes (x_min_, x_len__), and y's window has no clash.
  Program p = parse_valid(R"(pipeline f(x_min) {
                               fun g(x_len) = { x_len }
                               fun f(x, y) = { 0; rdom(x_len_ = (0, 2)) in (x, y) <- f[x, y] + g[x_len_] + x_min } }
                             realize (x_min = 1) over (0, 2), (0, 1))");
  using W = std::vector<std::pair<std::string, std::string>>;
  CHECK(window_variables(p.pipeline) == W{{"x_min_", "x_len__"}, {"y_min", "y_len"}});
  TgtProgram t = lower_pipeline(p);
  CHECK(t.window == W{{"x_min_", "x_len__"}, {"y_min", "y_len"}});
  CHECK(t.params == std::vector<std::string>{"x_min"});
  for (const auto& [hole, scope] : hole_scopes(t)) CHECK(scope == std::vector<std::string>{"x_min", "x_min_", "x_len__", "y_min", "y_len"});
}

TEST_CASE("lower: every hole of a lowered example is bound at the top level", "[lower]") {
  // SEMANTICS.md: a hole's scope is the parameters, the window variables and the loop and
  // let variables enclosing its binding statement. Lowering puts every `allocate` and
  // `label f` at the top level, so before scheduling that is parameters and window only.
  Program p = parse_file(kSource + "/examples/thesis_2_2.halo");
  TgtProgram t = lower_pipeline(p);
  std::vector<HoleLabel> holes;
  for (const auto& [hole, scope] : hole_scopes(t)) {
    CHECK(scope == top_scope(t));
    holes.push_back(hole);
  }
  // Exactly fig. 2.1b's holes: ?mem g_x, ?cpu g_x, ?mem f_x, ?cpu f_x, as (min, len) pairs.
  const int64_t S = FuncLabel::kShared;
  std::vector<HoleLabel> expected = {mem_hole("f", "x", false),       mem_hole("f", "x", true),
                                     cpu_hole("f", S, 0, "x", false), cpu_hole("f", S, 0, "x", true),
                                     mem_hole("g", "x", false),       mem_hole("g", "x", true),
                                     cpu_hole("g", S, 0, "x", false), cpu_hole("g", S, 0, "x", true)};
  CHECK(holes == expected);
  for (const char* ex : {"blur", "histogram", "matmul"}) {
    TgtProgram u = lower_pipeline(parse_file(kSource + "/examples/" + ex + ".halo"));
    for (const auto& [hole, scope] : hole_scopes(u)) CHECK(scope == top_scope(u));
  }
}

TEST_CASE("lower: the tight brute-force completion of thesis §2.2 is fig. 2.1's", "[lower]") {
  // §2.2: "bounds inference could efficiently fill ?mem f_x with [x_min, x_min + x_len)
  // and ?cpu g_x and ?mem g_x with [x_min, x_min + x_len + 1)": for the window (0, 6),
  // f on (0, 6) and g on (0, 7). Without margins the brute-force filling is that one.
  Program p = parse_file(kSource + "/examples/thesis_2_2.halo");
  auto bf = brute_force_filling(lower_pipeline(p), resolve_input(p, {}));
  REQUIRE(bf);
  auto value = [&](const HoleLabel& h) { return as<ConstNode>(bf->filling.at(h)).value; };
  const int64_t S = FuncLabel::kShared;
  CHECK(value(cpu_hole("f", S, 0, "x", false)) == Value(0));
  CHECK(value(cpu_hole("f", S, 0, "x", true)) == Value(6));
  CHECK(value(mem_hole("f", "x", true)) == Value(6));
  CHECK(value(cpu_hole("g", S, 0, "x", false)) == Value(0));
  CHECK(value(cpu_hole("g", S, 0, "x", true)) == Value(7));
  CHECK(value(mem_hole("g", "x", false)) == Value(0));
  CHECK(value(mem_hole("g", "x", true)) == Value(7));
}

TEST_CASE("lower: every example's brute-force completion runs and matches the big-step result", "[lower]") {
  // Lemma 2.12 on each example, with one unit of overcompute and overallocation on each
  // side of every interval (the completion need not be tight to be confluent).
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "/examples")) {
    if (entry.path().extension() != ".halo") continue;
    SECTION(entry.path().stem().string()) {
      Program p = parse_file(entry.path().string());
      check_program(p);
      Input in = resolve_input(p, {});
      TgtProgram t = lower_pipeline(p);
      BruteForceOptions opt;
      opt.margin = [](const HoleLabel&) { return std::pair<int64_t, int64_t>{1, 1}; };
      auto bf = brute_force_filling(t, in, opt);
      REQUIRE(bf);
      CHECK_FALSE(bf->rdom_failure);
      CHECK_FALSE(bf->error_in_control);
      std::vector<HoleLabel> unfilled;
      TgtProgram filled = fill_holes(t, bf->filling, &unfilled);
      CHECK(unfilled.empty());
      RunResult run = run_tgt(filled, in, Limits{});
      INFO(run.message);
      REQUIRE(run.status == RunStatus::Ok);
      OutputBuffer ref = evaluate_fast(p.pipeline, in, Limits{});
      CHECK(run.output.values == ref.values);
      CHECK(bf->output.values == ref.values);
    }
  }
}

TEST_CASE("lower: the rdom order is r1 fastest when the lowered program runs", "[lower]") {
  // The update is not commutative, so the order is observable: r1 fastest gives the
  // digits 0, 1, ..., 5 (test_fast_eval.cpp's case). Random programs rarely have such
  // updates, so this case stands guard over the loop nesting of L_R.
  Program p = parse_valid(R"(pipeline f() { fun f(x) = { 0; rdom(r = (0, 3), s = (0, 2)) in (x) <- f[x] * 10 + r + s * 3 } }
                             realize () over (0, 1))");
  Input in = resolve_input(p, {});
  TgtProgram t = lower_pipeline(p);
  auto bf = brute_force_filling(t, in);
  REQUIRE(bf);
  RunResult run = run_tgt(fill_holes(t, bf->filling), in, Limits{});
  REQUIRE(run.status == RunStatus::Ok);
  CHECK(run.output.values == std::vector<Value>{Value(12345)});
}

TEST_CASE("lower: an update's compute interval must be covered by the previous stage's", "[lower]") {
  // Why brute_force_filling makes stage i-1's demand include stage i's. Stage 1 writes
  // only f(0) and f(1) and reads nothing, so fig. 2.10a's B(T), read literally, puts no
  // constraint on stage 0's hole ?cpu<f, 0, 0, x>: the completion below satisfies it, yet
  // f(2) and f(3) are never computed. Lemma 2.7's proof assumes the values in the compute
  // bounds are right "just before s runs"; that needs ?cpu f^{i-1} ⊇ ?cpu f^i (Halide
  // computes earlier stages over the union) — a constraint for the bounds query to add.
  Program p = parse_valid(R"(pipeline f() { fun f(x) = { x; rdom(r = (0, 2)) in (r) <- 7 } }
                             realize () over (0, 4))");
  Input in = resolve_input(p, {});
  TgtProgram t = lower_pipeline(p);
  HoleFilling literal = {{cpu_hole("f", 0, 0, "x", false), make_const(Value(0))},
                         {cpu_hole("f", 0, 0, "x", true), make_const(Value(0))},
                         {mem_hole("f", "x", false), make_const(Value(0))},
                         {mem_hole("f", "x", true), make_const(Value(4))}};
  RunResult run = run_tgt(fill_holes(t, literal), in, Limits{});
  REQUIRE(run.status == RunStatus::Ok);
  CHECK(run.output.values == std::vector<Value>{Value(7), Value(7), Value::err_mem(), Value::err_mem()});
  auto bf = brute_force_filling(t, in);
  REQUIRE(bf);
  CHECK(as<ConstNode>(bf->filling.at(cpu_hole("f", 0, 0, "x", true))).value == Value(4));
  RunResult good = run_tgt(fill_holes(t, bf->filling), in, Limits{});
  CHECK(good.output.values == evaluate_fast(p.pipeline, in, Limits{}).values);
  CHECK(good.output.values == std::vector<Value>{Value(7), Value(7), Value(2), Value(3)});
}

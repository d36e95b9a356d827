// β1, the second built-in engine (docs/beta1.md): Halide-level interval rules over the same
// query. A property holds it to β0 (wherever β0 completes, β1 completes, and both
// completions satisfy Theorems 2.1/2.2 and B(T)); examples show what only β1 completes
// (clamped and data-dependent scatters) against the big-step reference.
#include "bounds/beta0.hpp"
#include "candidates/engines/engine.hpp"
#include "bounds/extract.hpp"
#include "bounds/interval.hpp"
#include "bounds/query_check.hpp"
#include "bounds/simplify.hpp"
#include "fuzz/program_gen.hpp"
#include "lower/lower.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <fstream>
#include <sstream>

using namespace halo;
using namespace halo::test;

namespace {

// The completion of t by one built-in engine, judged against P(z); asserted inside a
// property (RC_ASSERT) or an example (CHECK) through `ok`.
struct Judged {
  Beta0Result bounds;
  OracleVerdict verdict;
  std::optional<QueryViolation> violation;
};

Judged judge(const Program& p, const TgtProgram& t, BoundsEngine e, const Input& in, const Limits& lim) {
  Judged j;
  j.bounds = run_builtin_engine(extract_query(t), t, e);
  Beta0Completion c = complete_with_beta0(j.bounds, t);
  j.verdict = check_theorems(p, c.program, in, lim);
  if (j.bounds.ok && j.verdict.run.status == RunStatus::Ok) j.violation = check_run_against_query(t, j.bounds.filling, in, lim);
  return j;
}

Judged judge_example(const std::string& src, BoundsEngine e) {
  Program p = parse_valid(src);
  TgtProgram t = schedule_pipeline(p);
  Judged j = judge(p, t, e, resolve_input(p, {}), Limits{});
  INFO("scheduled:\n" << print_tgt(t) << "engine: " << j.bounds.why_failed << "\nverdict: " << j.verdict.detail);
  REQUIRE(j.bounds.ok);
  CHECK(j.verdict.holds());
  CHECK(j.verdict.run.status == RunStatus::Ok);  // a real pass: the output was computed and compared
  CHECK_FALSE(j.violation.has_value());
  return j;
}

}  // namespace

TEST_CASE("property: wherever β0 completes, β1 completes, and both satisfy the theorems and B(T)",
          "[beta1][property]") {
  rc::prop("β1 is at least β0 on lowered random programs", [] {
    Program p = *fuzz::gen_program();
    TgtProgram t = lower_pipeline(p);
    RC_LOG() << print_program(p);
    Input in = resolve_input(p, {});
    Limits lim;
    lim.max_steps = 5'000'000;
    Judged j0, j1;
    try {
      j0 = judge(p, t, BoundsEngine::Beta0, in, lim);
      j1 = judge(p, t, BoundsEngine::Beta1, in, lim);
    } catch (const ResourceLimit&) {
      RC_DISCARD("too large for a property test");
    }
    for (const Judged* j : {&j0, &j1}) {
      RC_LOG() << j->bounds.why_failed << " / " << j->verdict.detail << "\n";
      RC_ASSERT(j->verdict.memory_safe);
      RC_ASSERT(j->verdict.confluent);
      RC_ASSERT(!j->violation.has_value());
    }
    if (j0.bounds.ok) RC_ASSERT(j1.bounds.ok);
    RC_CLASSIFY(!j0.bounds.ok, "beta0 gave up");
    RC_CLASSIFY(!j1.bounds.ok, "beta1 gave up");
  });
}

TEST_CASE("beta1: clamps through min/max bound an unbounded operand", "[beta1]") {
  IntervalRules rules;
  rules.half_bounded = true;
  IntervalEnv env;
  env.rules = &rules;
  env.vars["u"] = SymInterval::everything();  // stands for a func value
  auto clamp = make_op(Op::Max, {make_const(Value(0)), make_op(Op::Min, {make_const(Value(4)), make_var("u")})});
  SymInterval i = interval_of(clamp, env);
  REQUIRE_FALSE(i.unbounded);
  CHECK(const_value(i.min) == Value(0));
  CHECK(const_value(i.len) == Value(5));
  // β0 on the same: unbounded (the figure's (min, len) cannot say min(4, u) <= 4).
  IntervalEnv env0 = env;
  env0.rules = nullptr;
  CHECK(interval_of(clamp, env0).unbounded);
  // A half-bounded interval keeps its known side through + and * by a constant.
  SymInterval h = interval_of(make_op(Op::Mul, {make_op(Op::Add, {make_op(Op::Min, {make_var("u"), make_const(Value(3))}), make_const(Value(1))}), make_const(Value(-2))}), env);
  REQUIRE(h.unbounded);
  CHECK(h.upper == nullptr);
  REQUIRE(h.lower != nullptr);
  CHECK(const_value(h.lower) == Value(-8));
}

TEST_CASE("beta1: the canonical clamped histogram completes and agrees with the reference", "[beta1]") {
  const char* src = R"(pipeline hist() {
  fun inp(x) = { (x * 7) % 11 - 3 }
  fun hist(b) = { 0; rdom(r = (0, 30)) in (max(0, min(4, inp[r]))) <- hist[max(0, min(4, inp[r]))] + 1 }
}
realize () over (0, 5))";
  judge_example(src, BoundsEngine::Beta1);
  Program p = parse_valid(src);
  TgtProgram t = schedule_pipeline(p);
  CHECK_FALSE(run_beta0(extract_query(t), t).ok);  // β0 cannot: the figure's limit
}

TEST_CASE("beta1: the histogram, scan and scatter examples complete and agree with the reference", "[beta1]") {
  for (const char* name : {"histogram.halo"}) {
    std::ifstream in(std::string(HALO_SOURCE_DIR) + "/examples/" + name);
    std::stringstream ss;
    ss << in.rdbuf();
    INFO(name);
    judge_example(ss.str(), BoundsEngine::Beta1);
  }
  // The scan (a prefix sum) and the scatter into an rdom of issue 15.
  judge_example(R"(pipeline out() {
  fun s(x) = { x; rdom(r = (1, 9)) in (r) <- s[r] + s[r - 1] }
  fun out(x) = { s[x] }
}
realize () over (0, 10))", BoundsEngine::Beta1);
  judge_example(R"(pipeline out() {
  fun f(x) = { x + 100; rdom(r = (0, 3)) in (r) <- f[r] * 2 }
  fun out(x) = { f[x] + 1 }
}
realize () over (0, 8))", BoundsEngine::Beta1);
}

TEST_CASE("beta1: selected by name wherever an engine is", "[beta1]") {
  Program p = parse_valid(R"(pipeline f() {
  fun g(x) = { x * x + 1 }
  fun f(x) = { g[x] + g[x + 1] }
}
realize () over (0, 6))");
  TgtProgram t = schedule_pipeline(p);
  EngineResult r = run_engine("beta1", extract_query(t), t);
  CHECK(r.kind == EngineResult::Kind::Filled);
  CHECK(builtin_engine("beta0") == BoundsEngine::Beta0);
  CHECK_FALSE(builtin_engine("./my-engine").has_value());
}

TEST_CASE("beta1: a func value is bounded at the point read, over the intervals of the read's arguments", "[beta1]") {
  // f's values over its whole domain are unbounded (y is), so Halide cannot bound the read
  // and neither could β1 before; at the point (p - 1, p - 2) they lie in
  // [min(p - 2, 0), max(p - 2, 4)].
  const char* src = R"(pipeline out(p) {
  fun f(x, y) = { select(x > 100, y, y % 5) }
  fun g(x) = { x * 3 }
  fun out(x) = { g[f[p - 1, p - 2]] + x }
}
realize (p = 9) over (0, 4))";
  judge_example(src, BoundsEngine::Beta1);
  Program p = parse_valid(src);
  TgtProgram t = schedule_pipeline(p);
  CHECK_FALSE(run_beta0(extract_query(t), t).ok);
}

TEST_CASE("beta1: a func value is bounded through pointwise updates and scatters", "[beta1]") {
  // Four executions of f[x] * 2 + 1 at the point 2 take it through 5, 11, 23 and 47:
  // β1 iterates the update exactly as often as its rdom has points.
  judge_example(R"(pipeline out() {
  fun f(x) = { x; rdom(r = (0, 4)) in (x) <- f[x] * 2 + 1 }
  fun g(x) = { x - 1 }
  fun out(x) = { g[f[2]] + x }
}
realize () over (0, 3))", BoundsEngine::Beta1);
  // With a parameter count the upper side does not settle and is widened away; the lower
  // side stays, so a clamp from above bounds the read.
  judge_example(R"(pipeline out(p) {
  fun f(x) = { x; rdom(r = (0, p)) in (x) <- f[x] * 2 + 1 }
  fun g(x) = { x - 1 }
  fun out(x) = { g[min(f[2], 10)] + x }
}
realize (p = 3) over (0, 3))", BoundsEngine::Beta1);
  // A scatter may write the point read: its values join the bound.
  judge_example(R"(pipeline out() {
  fun f(x) = { x % 4; rdom(r = (0, 3)) in (r * 10) <- 100 }
  fun g(x) = { x }
  fun out(x) = { g[f[x % 4 + 20]] + x }
}
realize () over (0, 6))", BoundsEngine::Beta1);
}

TEST_CASE("beta1: a widened value bound that one more round leaves is dropped", "[beta1]") {
  // f[x - 1] reads another point of f, so the bound anywhere in f is a fixpoint over the
  // whole domain: the upper side grows each round and is widened, and the lower side
  // (max(f[x - 1], 0) >= 0) is kept only because one more round stays inside it.
  judge_example(R"(pipeline out() {
  fun f(x) = { 0; rdom(r = (1, 5)) in (r) <- max(f[r - 1], 0) + 1 }
  fun g(x) = { x }
  fun out(x) = { g[min(f[x], 9)] }
}
realize () over (0, 6))", BoundsEngine::Beta1);
}

// β0 on empty ranges and on the programs it used to give up on without cause (issue 15;
// docs/semantics-decisions.md, decisions 12, 14, 15): each counterexample is kept here as a
// regression test. Every case must complete (no `assert 0`), run to the end and satisfy
// Theorems 2.1 and 2.2 against the big-step reference, with no filled length negative.
#include "bounds/beta0.hpp"
#include "bounds/extract.hpp"
#include "fuzz/program_gen.hpp"
#include "interp/small_step.hpp"
#include "lower/lower.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

using namespace halo;
using namespace halo::test;

namespace {

struct Completed {
  Beta0Result beta0;
  Beta0Completion completion;
  OracleVerdict verdict;
};

// β0's completion of the scheduled program, judged by the oracle on the realization.
Completed complete_and_judge(const std::string& src, InputOverrides over = {}) {
  Program p = parse_valid(src);
  TgtProgram t = schedule_pipeline(p);
  Completed r;
  r.beta0 = run_beta0(extract_query(t), t);
  r.completion = complete_with_beta0(r.beta0, t);
  INFO("scheduled:\n" << print_tgt(t) << "beta0: " << r.completion.reason);
  r.verdict = check_theorems(p, r.completion.program, resolve_input(p, over), Limits{});
  INFO("completed:\n" << print_tgt(r.completion.program) << "verdict: " << r.verdict.detail);
  CHECK(r.verdict.holds());
  return r;
}

// The case must be a real pass: β0 completes and the completion runs to the end.
void require_computes(const Completed& r) {
  INFO("beta0: " << r.completion.reason << "\ncompleted:\n" << print_tgt(r.completion.program));
  REQUIRE(r.completion.ok);
  CHECK(r.verdict.run.status == RunStatus::Ok);
}

Value eval_at(const Expr& e, const std::map<std::string, int64_t>& env) {
  switch (e->kind) {
    case ExprKind::Const: return as<ConstNode>(e).value;
    case ExprKind::Var: return Value(env.at(as<VarNode>(e).name));
    case ExprKind::Op: {
      std::vector<Value> vs;
      for (const Expr& a : as<OpNode>(e).args) vs.push_back(eval_at(a, env));
      return apply_op(as<OpNode>(e).op, vs);
    }
    default: throw std::logic_error("a filled expression with a hole or a func access");
  }
}

// The value of a filled expression under `env` (the parameters and the window).
int64_t filled_len(const Completed& r, const std::string& hole, const std::map<std::string, int64_t>& env) {
  for (const auto& [h, e] : r.beta0.filling) {
    if (h.to_string() != hole) continue;
    INFO(hole << " = " << print_expr(e));
    Value v = eval_at(e, env);
    REQUIRE(v.as_int64());
    return *v.as_int64();
  }
  FAIL("no hole " << hole);
  return 0;
}

}  // namespace

TEST_CASE("beta0: g[2*x] realized over an empty window fills no negative length", "[beta0][empty]") {
  auto r = complete_and_judge(R"(pipeline f() {
  fun g(x) = { x * 3 }
  fun f(x) = { g[2 * x] }
}
realize () over (0, 0))");
  require_computes(r);
  CHECK(filled_len(r, "?cpu<g, *, 0, x>.len", {{"x_min", 0}, {"x_len", 0}}) == 0);
  CHECK(filled_len(r, "?mem<g, x>.len", {{"x_min", 0}, {"x_len", 0}}) == 0);
  CHECK(filled_len(r, "?cpu<g, *, 0, x>.len", {{"x_min", 0}, {"x_len", 4}}) == 7);
}

TEST_CASE("beta0: g[3*r] with r over (0, 0) makes g empty", "[beta0][empty]") {
  auto r = complete_and_judge(R"(pipeline f() {
  fun g(x) = { x + 1 }
  fun f(x) = { 0; rdom(r = (0, 0)) in (x) <- f[x] + g[3 * r] }
}
realize () over (0, 4))");
  require_computes(r);
  CHECK(filled_len(r, "?cpu<g, *, 0, x>.len", {{"x_min", 0}, {"x_len", 4}}) == 0);
}

TEST_CASE("beta0: g[r + r] with an rdom (0, n) and n = 0 makes g empty", "[beta0][empty]") {
  const char* src = R"(pipeline f(n) {
  fun g(x) = { x + 1 }
  fun f(x) = { 0; rdom(r = (0, n)) in (x) <- f[x] + g[r + r] }
}
realize (n = 0) over (0, 4))";
  auto r = complete_and_judge(src);
  require_computes(r);
  CHECK(filled_len(r, "?cpu<g, *, 0, x>.len", {{"n", 0}, {"x_min", 0}, {"x_len", 4}}) == 0);
  CHECK(filled_len(r, "?cpu<g, *, 0, x>.len", {{"n", 3}, {"x_min", 0}, {"x_len", 4}}) == 5);
  require_computes(complete_and_judge(src, InputOverrides{{"n=3"}, {}}));
}

TEST_CASE("beta0: every range empty, every region empty (the thesis example over (0, 0))", "[beta0][empty]") {
  auto r = complete_and_judge(R"(pipeline f() {
  fun g(x) = { x * x + 1 }
  fun f(x) = { g[x] + g[x + 1] }
}
realize () over (0, 0))");
  require_computes(r);
  for (const char* h : {"?cpu<g, *, 0, x>.len", "?mem<g, x>.len", "?cpu<f, *, 0, x>.len", "?mem<f, x>.len"})
    CHECK(filled_len(r, h, {{"x_min", 0}, {"x_len", 0}}) == 0);
  CHECK(filled_len(r, "?mem<g, x>.len", {{"x_min", 0}, {"x_len", 6}}) == 7);
}

TEST_CASE("beta0: a compute hole in no loop is bound by label f (scatter into an rdom)", "[beta0][scope]") {
  require_computes(complete_and_judge(R"(pipeline out() {
  fun f(x) = { x + 100; rdom(r = (0, 3)) in (r) <- f[r] * 2 }
  fun out(x) = { f[x] + 1 }
}
realize () over (0, 8))"));
}

TEST_CASE("beta0: a compute hole in no loop is bound by label f (prefix sum)", "[beta0][scope]") {
  require_computes(complete_and_judge(R"(pipeline out() {
  fun s(x) = { x; rdom(r = (1, 9)) in (r) <- s[r] + s[r - 1] }
  fun out(x) = { s[x] }
}
realize () over (0, 10))"));
}

TEST_CASE("beta0: a compute hole in no loop is bound by label f (constant left-hand side)", "[beta0][scope]") {
  require_computes(complete_and_judge(R"(pipeline out() {
  fun g(x) = { x; (5) <- 100 }
  fun out(x) = { g[x] }
}
realize () over (0, 8))"));
}

TEST_CASE("beta0: a func nothing reads gets the empty interval (decision 12)", "[beta0][empty]") {
  auto r = complete_and_judge(R"(pipeline out() {
  fun h(x) = { x * 2 }
  fun out(x) = { x + 1 }
}
realize () over (0, 8))");
  require_computes(r);
  CHECK(filled_len(r, "?cpu<h, *, 0, x>.len", {{"x_min", 0}, {"x_len", 8}}) == 0);
  CHECK(filled_len(r, "?mem<h, x>.len", {{"x_min", 0}, {"x_len", 8}}) == 0);
}

TEST_CASE("beta0: a shared last stage with no loop is covered in its own copy only", "[beta0][query]") {
  const char* src = R"(pipeline out(n) {
  fun g(x) = { x + n; (5) <- 100 }
  fun out(x) = { g[x] }
}
schedule {
  specialize(g, n > 3);
}
realize (n = 5) over (0, 8))";
  require_computes(complete_and_judge(src));
  require_computes(complete_and_judge(src, InputOverrides{{"n=1"}, {}}));
}

TEST_CASE("beta0: a data-dependent scatter still gives up, with its reason", "[beta0]") {
  Program p = parse_valid(R"(pipeline hist() {
  fun inp(x) = { (x * 7) % 11 - 3 }
  fun hist(b) = { 0; rdom(r = (0, 30)) in (max(0, min(4, inp[r]))) <- hist[max(0, min(4, inp[r]))] + 1 }
}
realize () over (0, 5))");
  TgtProgram t = schedule_pipeline(p);
  Beta0Result b = run_beta0(extract_query(t), t);
  CHECK_FALSE(b.ok);
  CHECK(b.gave_up == "data-dependent");
  CHECK(b.why_failed.find("?mem<hist>") != std::string::npos);
}

TEST_CASE("property: β0 never fills a negative length, on empty, single-point and wider windows",
          "[beta0][empty][property]") {
  rc::prop("every filled length is >= 0 at the realization's parameters, for windows of length 0, 1 and 5", [] {
    Program p = *fuzz::gen_program();
    TgtProgram t = lower_pipeline(p);
    Beta0Result r = run_beta0(extract_query(t), t);
    RC_CLASSIFY(!r.ok, "beta0 gave up");
    if (!r.ok) return;
    Input in = resolve_input(p, {});
    const int64_t window_len = *rc::gen::element<int64_t>(0, 1, 5);
    const int64_t window_min = *rc::gen::inRange<int64_t>(-3, 4);
    std::map<std::string, int64_t> env;
    for (size_t i = 0; i < t.params.size(); ++i)
      if (auto v = in.params[i].as_int64()) env[t.params[i]] = *v;
    for (const auto& [mn, ln] : t.window) env[mn] = window_min, env[ln] = window_len;
    RC_LOG() << print_program(p) << "window (" << window_min << ", " << window_len << ")\n";
    for (const auto& [h, e] : r.filling) {
      if (!h.is_len) continue;
      Value v = [&, &e = e] {  // a structured binding is captured by name only from clang 16
        try {
          return eval_at(e, env);
        } catch (const std::out_of_range&) {  // a parameter beyond 64 bits: not this property's case
          RC_DISCARD("a parameter beyond 64 bits");
        }
      }();
      RC_LOG() << h.to_string() << " = " << print_expr(e) << " = " << v.to_string() << "\n";
      // In ℤ: a length beyond 64 bits (a literal index of 2^63 makes one) is still a length.
      RC_ASSERT(!v.is_error());
      RC_ASSERT(v.sign() >= 0);
    }
  });
}

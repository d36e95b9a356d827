// The fast evaluator on hand-checked programs: each case names the fig. 2.6 behaviour
// it exercises and states the expected values computed by hand.
#include "interp/fast_eval.hpp"
#include "support/big_stack.hpp"
#include "semantics/parser.hpp"
#include "semantics/validity.hpp"

#include <catch2/catch.hpp>

using namespace halo;

namespace {
std::vector<Value> eval_text(const std::string& src) {
  Program p = parse_program(src, "<test>");
  check_program(p);
  return evaluate_fast(p.pipeline, resolve_input(p, {}), Limits{}).values;
}
std::vector<Value> ints(std::initializer_list<int64_t> xs) { return {xs.begin(), xs.end()}; }
}  // namespace

TEST_CASE("fast: thesis §2.2 program", "[fast]") {
  // g(x) = x*x + 1: 1 2 5 10 17 26 37; f(x) = g(x) + g(x+1).
  CHECK(eval_text(R"(pipeline f() { fun g(x) = { x * x + 1 } fun f(x) = { g[x] + g[x + 1] } }
                     realize () over (0, 6))") == ints({3, 7, 15, 27, 43, 63}));
}

TEST_CASE("fast: rdom order is r1 fastest", "[fast]") {
  // f(x) = 0; then for s in 0..1, r in 0..2: f = f*10 + r + 3s. Digits: 0 1 2 3 4 5.
  CHECK(eval_text(R"(pipeline f() { fun f(x) = { 0; rdom(r = (0, 3), s = (0, 2)) in (x) <- f[x] * 10 + r + s * 3 } }
                     realize () over (0, 1))") == ints({12345}));
}

TEST_CASE("fast: a predicate filters updates but is evaluated strictly", "[fast]") {
  // Sum of even r in 0..9 = 0+2+4+6+8 = 20, plus x.
  CHECK(eval_text(R"(pipeline f() { fun f(x) = { x; rdom(r = (0, 10)) in (x) <- f[x] + r if r % 2 == 0 } }
                     realize () over (0, 3))") == ints({20, 21, 22}));
}

TEST_CASE("fast: a histogram scatters into a reduction dimension", "[fast]") {
  // image = 0 1 2 0 1 2 0 1 (r % 3 for r < 8): three 0s, three 1s, two 2s.
  CHECK(eval_text(R"(pipeline h() { fun image(x) = { x % 3 }
                       fun h(b) = { 0; rdom(r = (0, 8)) in (image[r]) <- h[image[r]] + 1 } }
                     realize () over (-1, 5))") == ints({0, 3, 3, 2, 0}));
}

TEST_CASE("fast: a negative rdom extent makes the func ε_rdom everywhere", "[fast]") {
  auto v = eval_text(R"(pipeline f(n) { fun g(x) = { x; rdom(r = (0, n)) in (x) <- g[x] + 1 }
                          fun f(x) = { g[x] * 0 + 7 } }
                        realize (n = -1) over (0, 2))");
  CHECK(v == std::vector<Value>{Value::err_rdom(), Value::err_rdom()});
  // A zero extent is no update at all.
  CHECK(eval_text(R"(pipeline f(n) { fun g(x) = { x; rdom(r = (0, n)) in (x) <- g[x] + 1 }
                       fun f(x) = { g[x] * 0 + 7 } }
                     realize (n = 0) over (0, 2))") == ints({7, 7}));
}

TEST_CASE("fast: UPDATE-EVAL is strict: an error read by a false update still propagates", "[fast]") {
  // bad is ε_rdom; the update never writes (predicate 0) but reads bad: select is strict.
  auto v = eval_text(R"(pipeline f() { fun bad(x) = { 0; rdom(r = (0, -1)) in (x) <- 1 }
                          fun f(x) = { x; rdom(r = (0, 2)) in (x) <- bad[x] if 0 } }
                        realize () over (0, 2))");
  CHECK(v == std::vector<Value>{Value::err_rdom(), Value::err_rdom()});
}

TEST_CASE("fast: strictness reaches the whole slice of a scatter", "[fast]") {
  // The update writes only h[0], but its value reads an ε_rdom func: every point of the
  // (single) slice of h, written or not, becomes ε_rdom.
  auto v = eval_text(R"(pipeline h() { fun bad(x) = { 0; rdom(r = (0, -1)) in (x) <- 1 }
                          fun h(b) = { b; rdom(r = (0, 1)) in (0) <- bad[r] } }
                        realize () over (0, 3))");
  CHECK(v == std::vector<Value>(3, Value::err_rdom()));
}

TEST_CASE("fast: an error argument makes the access an error (Def. 2.6)", "[fast]") {
  auto v = eval_text(R"(pipeline f() { fun bad(x) = { 0; rdom(r = (0, -1)) in (x) <- 1 }
                          fun g(x) = { 5 }
                          fun f(x) = { g[bad[x]] } }
                        realize () over (0, 1))");
  CHECK(v == std::vector<Value>{Value::err_rdom()});
}

TEST_CASE("fast: division by zero is zero, overflow promotes", "[fast]") {
  auto v = eval_text(R"(pipeline f() { fun f(x) = { 7 / x + 7 % x + x * 9223372036854775807 } }
                        realize () over (0, 2))");
  CHECK(v[0] == Value(0));
  CHECK(v[1].to_string() == "9223372036854775814");  // 7 + 0 + 9223372036854775807
}

TEST_CASE("fast: a slice keeps updates of different pure coordinates apart", "[fast]") {
  // f(x, y): dimension y is a reduction dimension in the update (y does not occur);
  // dimension x is pure. Each x column gets its own scatter: f[x, r % 2] += x.
  auto v = eval_text(R"(pipeline f() { fun f(x, y) = { 0; rdom(r = (0, 5)) in (x, r % 2) <- f[x, r % 2] + x + 1 } }
                        realize () over (0, 2), (0, 3))");
  // r = 0..4 -> y = 0,1,0,1,0: y=0 gets 3 updates, y=1 gets 2, y=2 none.
  CHECK(v == ints({3, 6, 2, 4, 0, 0}));
}

TEST_CASE("fast: the examples evaluate", "[fast][examples]") {
  auto load = [](const char* name) {
    Program p = parse_file(std::string(HALO_SOURCE_DIR) + "/examples/" + name);
    check_program(p);
    return evaluate_fast(p.pipeline, resolve_input(p, {}), Limits{});
  };
  CHECK(load("thesis_2_2.halo").values == ints({3, 7, 15, 27, 43, 63}));
  // 200 pixels into 8 buckets: the counts sum to 200.
  auto h = load("histogram.halo");
  int64_t total = 0;
  for (const auto& v : h.values) total += v.small();
  CHECK(total == 200);
  // matmul: C[0, 0] = sum_k a(k, 0) * b(0, k) with a(k,0) = 7k%256-128, b(0,k) = (11k+3)%256-128.
  auto c = load("matmul.halo");
  int64_t expect = 0;
  for (int64_t k = 0; k < 16; ++k) expect += ((k * 7) % 256 - 128) * ((k * 11 + 3) % 256 - 128);
  CHECK(c.values[0] == Value(expect));
  auto b = load("blur.halo");
  CHECK(b.values.size() == 48);
}

TEST_CASE("fast: a runaway rdom stops at the step limit", "[fast][limits]") {
  Program p = parse_program(R"(pipeline f() { fun f(x) = { 0; rdom(r = (0, 1000000000000)) in (x) <- f[x] + 1 } }
                               realize () over (0, 1))", "<test>");
  Limits lim;
  lim.max_steps = 100000;
  CHECK_THROWS_AS(evaluate_fast(p.pipeline, resolve_input(p, {}), lim), ResourceLimit);
}

namespace {
std::string chain(int n) {
  std::string src = "pipeline f" + std::to_string(n - 1) + "() {\n  fun f0(x) = { x }\n";
  for (int i = 1; i < n; ++i)
    src += "  fun f" + std::to_string(i) + "(x) = { f" + std::to_string(i - 1) + "[x] + 1 }\n";
  return src + "}\nrealize () over (0, 2)\n";
}
}  // namespace

TEST_CASE("fast: long chains of funcs neither crash nor overflow the stack", "[fast][limits]") {
  int n = std::min(20000, kMaxEvalNesting / 2);
  CHECK(eval_text(chain(n)) == ints({n - 1, n}));
  CHECK_THROWS_AS(eval_text(chain(kMaxEvalNesting + 10)), ResourceLimit);
}

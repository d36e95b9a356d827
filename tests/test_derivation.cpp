// The derivation evaluator (interp/derivation.hpp) against fig. 2.6: one test per rule
// (REALIZE, CONST-EVAL, FUNC-ARG-EVAL, OP-EVAL, FUNC-SKIP, FUNC-EVAL, UPDATE-EVAL,
// RDOM-ERR, RDOM-EVAL, and the project's FUNC-ARG-ERR), each asserting the value and that
// the rule occurs in the derivation; then the readings the semantics depends on (r1
// fastest, strict select, error propagation, zero extents, total division), the printer
// and JSON output, and resource limits. Every expected value is computed by hand in a
// comment next to it.
#include "interp/derivation.hpp"
#include "semantics/parser.hpp"
#include "semantics/validity.hpp"

#include <catch2/catch.hpp>
#include "tests/support.hpp"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <unordered_set>

using namespace halo;
using halo::test::parse_valid;

namespace {


Value ev(const std::string& src, std::vector<Value> point, std::vector<Value> params = {}) {
  Program p = parse_valid(src);
  DerivationEvaluator e(p.pipeline, Input{params, {}}, Limits{}, false);
  return e.eval_point(point);
}

DerivationPtr derive(const std::string& src, std::vector<Value> point, std::vector<Value> params = {}) {
  Program p = parse_valid(src);
  DerivationEvaluator e(p.pipeline, Input{params, {}}, Limits{}, true);
  auto d = e.derive_point(point);
  REQUIRE(d);
  // Both entry points agree.
  DerivationEvaluator plain(p.pipeline, Input{params, {}}, Limits{}, false);
  CHECK(plain.eval_point(point) == d->value);
  return d;
}

// Every node of the derivation (shared nodes once).
std::vector<const Derivation*> nodes(const Derivation& root) {
  std::vector<const Derivation*> out, todo{&root};
  std::unordered_set<const Derivation*> seen{&root};
  while (!todo.empty()) {
    const Derivation* d = todo.back();
    todo.pop_back();
    out.push_back(d);
    for (const auto& p : d->premises)
      if (p && seen.insert(p.get()).second) todo.push_back(p.get());
  }
  return out;
}

bool has_rule(const Derivation& d, const std::string& rule) {
  for (const Derivation* n : nodes(d))
    if (n->rule == rule) return true;
  return false;
}

size_t count_rule(const Derivation& d, const std::string& rule) {
  size_t k = 0;
  for (const Derivation* n : nodes(d)) k += n->rule == rule;
  return k;
}

// Every node's value is consistent with its premises for the single-premise rules.
void check_well_formed(const Derivation& d) {
  for (const Derivation* n : nodes(d)) {
    if (n->rule == "FUNC-SKIP" || n->rule == "FUNC-EVAL" || n->rule == "UPDATE-EVAL") {
      REQUIRE(n->premises.size() == 1);
      CHECK(n->premises[0]->value == n->value);
    }
    if (n->rule == "CONST-EVAL" || n->rule == "FUNC-ARG-ERR") CHECK(n->premises.empty());
    if (n->rule != "REALIZE") CHECK(n->judgment.find("⇓ " + n->value.to_string()) != std::string::npos);
  }
}

const Value kErr = Value::err_rdom();

}  // namespace

TEST_CASE("[REALIZE] substitutes parameters into D and derives each point", "[bigstep]") {
  const char* src = R"(pipeline f(w) { fun f(x) = { x * w } })";
  // w = 3: [3/w](D; f[2]) = f[2] with body x * 3, so f[2] = 2 * 3 = 6.
  auto d = derive(src, {2}, {3});
  CHECK(d->rule == "REALIZE");
  CHECK(d->value == Value(6));
  CHECK(d->judgment.find("w = 3") != std::string::npos);
  REQUIRE(d->premises.size() == 1);
  CHECK(d->premises[0]->judgment.find("f[2] ⇓ 6") != std::string::npos);
  check_well_formed(*d);

  // The whole window: f(x) = 3x on (-1, 4) is -3, 0, 3, 6.
  Program p = parse_valid(src);
  auto out = evaluate_by_derivation(p.pipeline, Input{{3}, {Interval{-1, 4, {}}}}, Limits{});
  CHECK(out.func == "f");
  CHECK(out.values == std::vector<Value>{-3, 0, 3, 6});

  // Two dimensions, first dimension fastest: g(x, y) = 10x + y on (0,2) x (5,2):
  // (0,5)=5, (1,5)=15, (0,6)=6, (1,6)=16.
  Program q = parse_valid(R"(pipeline g() { fun g(x, y) = { 10 * x + y } })");
  auto out2 = evaluate_by_derivation(q.pipeline, Input{{}, {Interval{0, 2, {}}, Interval{5, 2, {}}}}, Limits{});
  CHECK(out2.values == std::vector<Value>{5, 15, 6, 16});
}

TEST_CASE("[CONST-EVAL] c evaluates to c", "[bigstep]") {
  // f[0] = 7 by FUNC-EVAL, whose premise ⟨⟩; 7 ⇓ 7 is CONST-EVAL.
  auto d = derive(R"(pipeline f() { fun f(x) = { 7 } })", {0});
  CHECK(d->value == Value(7));
  CHECK(has_rule(*d, "CONST-EVAL"));
  const auto& fe = d->premises.at(0);
  CHECK(fe->rule == "FUNC-EVAL");
  CHECK(fe->premises.at(0)->rule == "CONST-EVAL");
  CHECK(fe->premises.at(0)->judgment == "⟨⟩; 7 ⇓ 7");
  check_well_formed(*d);
}

TEST_CASE("[OP-EVAL] evaluates operands then applies the operator", "[bigstep]") {
  // [2/x](x * 3 + 1) = 2 * 3 + 1 = 7.
  auto d = derive(R"(pipeline f() { fun f(x) = { x * 3 + 1 } })", {2});
  CHECK(d->value == Value(7));
  CHECK(count_rule(*d, "OP-EVAL") == 2);  // + and *
  check_well_formed(*d);
  // Logical operators return 1 for true; min/max/select: select(2 > 1, min(4, 9), 0) = 4,
  // plus (0 || 5) = 1, plus !3 = 0: 4 + 1 + 0 = 5.
  CHECK(ev(R"(pipeline f() { fun f(x) = { select(x > 1, min(4, 9), 0) + (0 || 5) + !3 } })", {2}) == Value(5));
}

TEST_CASE("[OP-EVAL] division and modulo by zero are 0 and Euclidean", "[bigstep]") {
  const char* src = R"(pipeline f() { fun f(x) = { 7 / x + 7 % x } })";
  CHECK(ev(src, {0}) == Value(0));   // 7/0 + 7%0 = 0 + 0
  CHECK(ev(src, {2}) == Value(4));   // 3 + 1
  CHECK(ev(src, {-2}) == Value(-2)); // 7 = (-3)(-2) + 1: -3 + 1
  CHECK(ev(R"(pipeline f() { fun f(x) = { (0 - 7) / x * 10 + (0 - 7) % x } })", {2}) == Value(-39));
  // -7 = (-4)(2) + 1: -4 * 10 + 1 = -39.
}

TEST_CASE("[FUNC-EVAL] the thesis §2.2 program g(x) = x * x, f(x) = g[x] + g[x+1]", "[bigstep]") {
  const char* src = R"(
pipeline f() {
  fun g(x) = { x * x }
  fun f(x) = { g[x] + g[x + 1] }
})";
  // f[2] = g[2] + g[3] = 4 + 9 = 13.
  auto d = derive(src, {2});
  CHECK(d->value == Value(13));
  CHECK(has_rule(*d, "FUNC-EVAL"));
  CHECK(count_rule(*d, "FUNC-EVAL") == 3);  // f[2], g[2], g[3]
  check_well_formed(*d);
  // f's FUNC-EVAL evaluates [2/x](g[x] + g[x + 1]) in D without f.
  const auto& f2 = d->premises.at(0);
  CHECK(f2->judgment == "⟨g, f: s0⟩; f[2] ⇓ 13");
  CHECK(f2->premises.at(0)->judgment.rfind("⟨g: s0⟩; ", 0) == 0);
  // On the window (0, 6): x^2 + (x+1)^2 = 1, 5, 13, 25, 41, 61.
  Program p = parse_valid(src);
  auto out = evaluate_by_derivation(p.pipeline, Input{{}, {Interval{0, 6, {}}}}, Limits{});
  CHECK(out.values == std::vector<Value>{1, 5, 13, 25, 41, 61});
}

TEST_CASE("[FUNC-ARG-EVAL] evaluates non-constant arguments first", "[bigstep]") {
  // f[2] = g[2 + 1] = g[3] = 30.
  auto d = derive(R"(pipeline f() { fun g(x) = { x * 10 } fun f(x) = { g[x + 1] } })", {2});
  CHECK(d->value == Value(30));
  CHECK(has_rule(*d, "FUNC-ARG-EVAL"));
  for (const Derivation* n : nodes(*d))
    if (n->rule == "FUNC-ARG-EVAL") {
      REQUIRE(n->premises.size() == 2);  // 2 + 1 ⇓ 3, then g[3] ⇓ 30
      CHECK(n->premises[0]->value == Value(3));
      CHECK(n->premises[1]->judgment.find("g[3] ⇓ 30") != std::string::npos);
    }
  check_well_formed(*d);
}

TEST_CASE("[FUNC-SKIP] drops the funcs defined after the one accessed", "[bigstep]") {
  const char* src = R"(
pipeline f() {
  fun g(x) = { x + 1 }
  fun h(x) = { x * 2 }
  fun f(x) = { g[x] }
})";
  // f[5] = g[5] = 6; g[5] is looked up in ⟨g, h⟩, so h is skipped.
  auto d = derive(src, {5});
  CHECK(d->value == Value(6));
  REQUIRE(has_rule(*d, "FUNC-SKIP"));
  for (const Derivation* n : nodes(*d))
    if (n->rule == "FUNC-SKIP") CHECK(n->judgment == "⟨g, h: s0⟩; g[5] ⇓ 6");
  check_well_formed(*d);
}

TEST_CASE("[UPDATE-EVAL] a point update is a strict select over the previous stages", "[bigstep]") {
  // f[3] = select(3 == 3 && 1, f[3] * 2, f[3]) with f[3] = 3 in s0: 6.
  auto d = derive(R"(pipeline f() { fun f(x) = { x; (x) <- f[x] * 2 } })", {3});
  CHECK(d->value == Value(6));
  REQUIRE(has_rule(*d, "UPDATE-EVAL"));
  check_well_formed(*d);

  // Predicate: f(x) = 0, then 5 where x > 2: f[3] = 5, f[1] = 0.
  const char* pred = R"(pipeline f() { fun f(x) = { 0; (x) <- 5 if x > 2 } })";
  CHECK(ev(pred, {3}) == Value(5));
  CHECK(ev(pred, {1}) == Value(0));

  // A point update at a constant point: rdom(r = (2, 1)) unrolls to (2) <- 100.
  // f[2] = 100, f[3] = select(2 == 3 && 1, 100, 3) = 3.
  const char* point = R"(pipeline f() { fun f(x) = { x; rdom(r = (2, 1)) in (r) <- 100 } })";
  CHECK(ev(point, {2}) == Value(100));
  CHECK(ev(point, {3}) == Value(3));
}

TEST_CASE("[UPDATE-EVAL] select is strict: an unselected error still propagates", "[bigstep]") {
  const char* src = R"(
pipeline f() {
  fun e(x) = { 0; rdom(r = (0, -1)) in (x) <- 1 }
  fun f(x) = { 0; (x) <- e[x] if 0 }
})";
  // The predicate is false, so the select would pick f[x] = 0, but e[x] = ε_rdom is an
  // operand, and OP-EVAL evaluates all three: f[4] = ε_rdom.
  auto d = derive(src, {4});
  CHECK(d->value == kErr);
  CHECK(has_rule(*d, "UPDATE-EVAL"));
  CHECK(has_rule(*d, "RDOM-ERR"));
  check_well_formed(*d);
}

TEST_CASE("[RDOM-ERR] a negative extent makes the func ε_rdom", "[bigstep]") {
  // f = 1 then an rdom of length -1: f[0] = ε_rdom.
  auto d = derive(R"(pipeline f() { fun f(x) = { 1; rdom(r = (0, -1)) in (x) <- f[x] + 1 } })", {0});
  CHECK(d->value == kErr);
  REQUIRE(has_rule(*d, "RDOM-ERR"));
  for (const Derivation* n : nodes(*d))
    if (n->rule == "RDOM-ERR") CHECK(n->premises.size() == 2);  // e_min ⇓ 0, e_len ⇓ -1
  check_well_formed(*d);

  // Any variable's length counts, even when another length is 0: (r: -1, s: 0) is ε_rdom.
  CHECK(ev(R"(pipeline f() { fun f(x) = { 1; rdom(r = (0, -1), s = (0, 0)) in (x) <- 2 } })", {0}) == kErr);
  // A parameter can make the length negative: n = -3.
  CHECK(ev(R"(pipeline f(n) { fun f(x) = { 1; rdom(r = (0, n)) in (x) <- 2 } })", {0}, {-3}) == kErr);
  CHECK(ev(R"(pipeline f(n) { fun f(x) = { 1; rdom(r = (0, n)) in (x) <- 2 } })", {0}, {3}) == Value(2));
}

TEST_CASE("[RDOM-ERR] an error in an earlier stage or func propagates", "[bigstep]") {
  // Stage 1 fails, stage 2 writes 7: select(x == x && 1, 7, f[x]) is strict in f[x] = ε_rdom.
  const char* src = R"(
pipeline g() {
  fun f(x) = { 1; rdom(r = (0, -1)) in (x) <- 5; (x) <- 7 }
  fun g(x) = { f[x] + 1 }
})";
  auto d = derive(src, {0});
  CHECK(d->value == kErr);
  CHECK(has_rule(*d, "RDOM-ERR"));
  CHECK(has_rule(*d, "UPDATE-EVAL"));
  check_well_formed(*d);
}

TEST_CASE("[RDOM-EVAL] unrolls the outermost variable, r1 varies fastest", "[bigstep]") {
  const char* src = R"(
pipeline f() {
  fun f(x) = { 0; rdom(r = (0, 3), s = (0, 2)) in (x) <- f[x] * 10 + r + s * 3 }
})";
  // r fastest: (r, s) = (0,0) (1,0) (2,0) (0,1) (1,1) (2,1) add r + 3s = 0,1,2,3,4,5 as
  // successive decimal digits: 0, 1, 12, 123, 1234, 12345. (s fastest would give 31425.)
  auto d = derive(src, {7});
  CHECK(d->value == Value(12345));
  REQUIRE(has_rule(*d, "RDOM-EVAL"));
  CHECK(count_rule(*d, "UPDATE-EVAL") == 6);
  // s is unrolled once (one cell), then each of its two cells unrolls r.
  CHECK(count_rule(*d, "RDOM-EVAL") == 3);
  check_well_formed(*d);
  // The context after unrolling names the stage and the fixed variables.
  bool saw = false;
  for (const Derivation* n : nodes(*d))
    saw |= n->judgment.find("⟨f: s0 + 4 stages from s1, last s1[r=2, s=1]⟩") != std::string::npos;
  CHECK(saw);
}

TEST_CASE("[RDOM-EVAL] a zero extent unrolls to nothing", "[bigstep]") {
  // rdom(r = (5, 0)) has no point: f[1] = 1 + 4 = 5.
  auto d = derive(R"(pipeline f() { fun f(x) = { x + 4; rdom(r = (5, 0)) in (x) <- 99 } })", {1});
  CHECK(d->value == Value(5));
  CHECK(has_rule(*d, "RDOM-EVAL"));
  CHECK_FALSE(has_rule(*d, "UPDATE-EVAL"));
  check_well_formed(*d);
  // The outer variable empty, the inner one not: still nothing.
  CHECK(ev(R"(pipeline f() { fun f(x) = { x; rdom(r = (0, 3), s = (0, 0)) in (x) <- 99 } })", {1}) == Value(1));
}

TEST_CASE("[RDOM-EVAL] histogram-style update with a data-dependent point", "[bigstep]") {
  const char* src = R"(
pipeline h() {
  fun data(x) = { x % 3 }
  fun h(b) = { 0; rdom(r = (0, 7)) in (data[r]) <- h[data[r]] + 1 }
})";
  // data[0..6] = 0,1,2,0,1,2,0: bucket 0 gets 3, bucket 1 gets 2, bucket 2 gets 2, 3 gets 0.
  CHECK(ev(src, {0}) == Value(3));
  CHECK(ev(src, {1}) == Value(2));
  CHECK(ev(src, {2}) == Value(2));
  CHECK(ev(src, {3}) == Value(0));
}

TEST_CASE("[FUNC-ARG-ERR] an error argument is the access's value, f is not looked up", "[bigstep]") {
  const char* src = R"(
pipeline f() {
  fun e(x) = { 0; rdom(r = (0, -1)) in (x) <- 1 }
  fun h(x) = { 42 }
  fun f(x) = { h[e[x]] }
})";
  // e[0] = ε_rdom, so h[ε_rdom] = ε_rdom (Def. 2.6), although h is constant 42.
  auto d = derive(src, {0});
  CHECK(d->value == kErr);
  REQUIRE(has_rule(*d, "FUNC-ARG-ERR"));
  for (const Derivation* n : nodes(*d)) {
    if (n->rule == "FUNC-ARG-ERR") CHECK(n->judgment.find("h[err_rdom] ⇓ err_rdom") != std::string::npos);
    // h is never evaluated.
    if (n->rule == "FUNC-EVAL") CHECK(n->judgment.find("; h[") == std::string::npos);
  }
  CHECK(print_derivation(*d).find("[FUNC-ARG-ERR] (Def. 2.6)") != std::string::npos);
  check_well_formed(*d);
}

TEST_CASE("derivations print as indented trees and as JSON, sharing repeated judgments", "[bigstep]") {
  const char* src = R"(
pipeline f() {
  fun g(x) = { x * x }
  fun f(x) = { g[x] + g[x] }
})";
  // f[3] = 9 + 9 = 18; the judgment ⟨g: s0⟩; g[3] ⇓ 9 is derived once and shared.
  auto d = derive(src, {3});
  CHECK(d->value == Value(18));
  std::string text = print_derivation(*d);
  INFO(text);
  CHECK(text.rfind("pipeline f() = D; realize ⇓ f(3) := 18   [REALIZE]\n", 0) == 0);
  CHECK(text.find("  ⟨g, f: s0⟩; f[3] ⇓ 18   [FUNC-EVAL]\n") != std::string::npos);
  CHECK(text.find("⟨g: s0⟩; g[3] ⇓ 9   [FUNC-EVAL]  #1") != std::string::npos);
  CHECK(text.find("⟨g: s0⟩; g[3] ⇓ 9   (derived above: #1)") != std::string::npos);

  std::string capped = print_derivation(*d, 2);
  CHECK(capped.find("more lines; raise --derivation-lines or use a smaller program)") != std::string::npos);
  CHECK(std::count(capped.begin(), capped.end(), '\n') == 3);

  auto j = nlohmann::json::parse(derivation_to_json(*d));
  CHECK(j["rule"] == "REALIZE");
  CHECK(j["value"] == 18);
  CHECK(j["premises"][0]["rule"] == "FUNC-EVAL");
  CHECK(derivation_to_json(*d).find("\"ref\":1") != std::string::npos);

  // Errors print as in `halo eval --json`.
  auto e = derive(R"(pipeline f() { fun f(x) = { 1; rdom(r = (0, -1)) in (x) <- 2 } })", {0});
  CHECK(nlohmann::json::parse(derivation_to_json(*e))["value"] == "err_rdom");
}

TEST_CASE("the derivation evaluator stops on resource limits instead of hanging", "[bigstep]") {
  Program p = parse_valid(R"(pipeline f() { fun f(x) = { 0; rdom(r = (0, 1000000000000)) in (x) <- f[x] + 1 } })");
  Limits lim;
  lim.max_steps = 100000;
  DerivationEvaluator e(p.pipeline, Input{{}, {}}, lim, false);
  CHECK_THROWS_AS(e.eval_point({0}), ResourceLimit);
  CHECK_THROWS_AS(evaluate_by_derivation(p.pipeline, Input{{}, {Interval{0, 1, {}}}}, lim), ResourceLimit);

  Limits mem;
  mem.max_memory_bytes = 1 << 20;
  DerivationEvaluator m(p.pipeline, Input{{}, {}}, mem, true);
  CHECK_THROWS_AS(m.derive_point({0}), ResourceLimit);
}

TEST_CASE("long unrolls do not exhaust the C++ stack", "[bigstep]") {
  // 20000 point updates, each adding 1: f[0] = 20000. The derivation is ~60000 levels deep.
  Program p = parse_valid(R"(pipeline f() { fun f(x) = { 0; rdom(r = (0, 20000)) in (x) <- f[x] + 1 } })");
  DerivationEvaluator e(p.pipeline, Input{{}, {}}, Limits{}, true);
  auto d = e.derive_point({0});
  CHECK(d->value == Value(20000));
  std::string text = print_derivation(*d, 50);
  CHECK(text.find("more lines") != std::string::npos);
  CHECK_THROWS_AS(derivation_to_json(*d), ResourceLimit);
}

TEST_CASE("a point with the wrong number of coordinates is bad input", "[bigstep]") {
  Program p = parse_valid(R"(pipeline f() { fun f(x) = { x } })");
  DerivationEvaluator e(p.pipeline, Input{{}, {}}, Limits{}, false);
  CHECK_THROWS_AS(e.eval_point({1, 2}), InputError);
  CHECK_THROWS_AS(e.derive_point({1}), std::logic_error);  // not recording
}

// The oracle of one case (Def. 2.3, Theorems 2.1 and 2.2) on completions built by hand,
// so that each verdict is known in advance.
#include "lower/brute_force_filling.hpp"
#include "lower/lower.hpp"
#include "oracle/theorems.hpp"
#include "semantics/parser.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/validity.hpp"

#include <catch2/catch.hpp>

using namespace halo;

namespace {
Program thesis() {
  Program p = parse_file(std::string(HALO_SOURCE_DIR) + "/examples/thesis_2_2.halo");
  check_program(p);
  return p;
}

// The thesis §2.2 completion, with g's buffer `g_len` long and f computed on `f_len` points.
TgtProgram filled(const Program& p, const std::string& g_len, const std::string& f_expr = "") {
  TgtProgram t = lower_pipeline(p);
  HoleFilling g;
  auto e = [](const std::string& s) { return parse_tgt_expr(s, "<test>"); };
  g[mem_hole("g", "x", false)] = e("x_min");
  g[mem_hole("g", "x", true)] = e(g_len);
  g[cpu_hole("g", FuncLabel::kShared, 0, "x", false)] = e("x_min");
  g[cpu_hole("g", FuncLabel::kShared, 0, "x", true)] = e("x_len + 1");
  g[mem_hole("f", "x", false)] = e("x_min");
  g[mem_hole("f", "x", true)] = e("x_len");
  g[cpu_hole("f", FuncLabel::kShared, 0, "x", false)] = e("x_min");
  g[cpu_hole("f", FuncLabel::kShared, 0, "x", true)] = e("x_len");
  return fill_holes(t, g);
}
}  // namespace

TEST_CASE("oracle: a correct completion satisfies both theorems", "[oracle]") {
  Program p = thesis();
  OracleVerdict v = check_theorems(p, filled(p, "x_len + 1"), resolve_input(p, {}), Limits{});
  CHECK(v.holds());
  CHECK(v.memory_safe);
  CHECK(v.confluent);
  CHECK_FALSE(v.assertion_failed);
  CHECK_FALSE(v.reference_has_error);
  CHECK(verdict_to_json(v)["verdict"] == "holds");
}

TEST_CASE("oracle: an allocation one point short violates Theorem 2.1", "[oracle]") {
  Program p = thesis();
  OracleVerdict v = check_theorems(p, filled(p, "x_len"), resolve_input(p, {}), Limits{});
  CHECK_FALSE(v.holds());
  CHECK_FALSE(v.memory_safe);
  CHECK(v.detail.find("Theorem 2.1") != std::string::npos);
  CHECK(v.detail.find("g") != std::string::npos);
  CHECK(verdict_to_json(v)["verdict"] == "violated");
}

TEST_CASE("oracle: a failed assertion is allowed by Def. 2.3", "[oracle]") {
  Program p = thesis();
  TgtProgram t = filled(p, "x_len + 1");
  t.body = make_assert(make_const(Value(0)));
  OracleVerdict v = check_theorems(p, t, resolve_input(p, {}), Limits{});
  CHECK(v.assertion_failed);
  CHECK(v.holds());
}

TEST_CASE("oracle: a wrong value violates Theorem 2.2 and names the point", "[oracle]") {
  Program p = thesis();
  // g computed on one point too few: f(5) reads g(6), never written: ε_mem ≠ 63.
  TgtProgram t = lower_pipeline(p);
  HoleFilling g;
  auto e = [](const std::string& s) { return parse_tgt_expr(s, "<test>"); };
  g[mem_hole("g", "x", false)] = e("x_min");
  g[mem_hole("g", "x", true)] = e("x_len + 1");
  g[cpu_hole("g", FuncLabel::kShared, 0, "x", false)] = e("x_min");
  g[cpu_hole("g", FuncLabel::kShared, 0, "x", true)] = e("x_len");
  g[mem_hole("f", "x", false)] = e("x_min");
  g[mem_hole("f", "x", true)] = e("x_len");
  g[cpu_hole("f", FuncLabel::kShared, 0, "x", false)] = e("x_min");
  g[cpu_hole("f", FuncLabel::kShared, 0, "x", true)] = e("x_len");
  OracleVerdict v = check_theorems(p, fill_holes(t, g), resolve_input(p, {}), Limits{});
  CHECK(v.memory_safe);
  CHECK_FALSE(v.confluent);
  CHECK(v.detail.find("at (5)") != std::string::npos);
  CHECK(v.detail.find("err_mem") != std::string::npos);
}

TEST_CASE("oracle: a reference error makes any completion confluent", "[oracle]") {
  Program p = parse_program(R"(pipeline f(n) { fun g(x) = { x; rdom(r = (0, n)) in (x) <- g[x] + 1 }
                                 fun f(x) = { g[x] } }
                               realize (n = -1) over (0, 2))",
                            "<test>");
  check_program(p);
  Input in = resolve_input(p, {});
  auto bf = brute_force_filling(lower_pipeline(p), in);
  REQUIRE(bf);
  OracleVerdict v = check_theorems(p, fill_holes(lower_pipeline(p), bf->filling), in, Limits{});
  CHECK(v.reference_has_error);
  CHECK(v.holds());
}

TEST_CASE("oracle: every example's brute-force completion satisfies both theorems", "[oracle]") {
  for (const char* name : {"thesis_2_2.halo", "blur.halo", "histogram.halo", "matmul.halo"}) {
    INFO(name);
    Program p = parse_file(std::string(HALO_SOURCE_DIR) + "/examples/" + name);
    check_program(p);
    Input in = resolve_input(p, {});
    TgtProgram t = lower_pipeline(p);
    auto bf = brute_force_filling(t, in);
    REQUIRE(bf);
    CHECK(check_theorems(p, fill_holes(t, bf->filling), in, Limits{}).holds());
  }
}

TEST_CASE("oracle: an rdom failure is a failed check only when P has a negative extent", "[oracle]") {
  // Found by the β0 property: a dead zero-dimensional func whose rdom has a negative
  // extent. Its rdom loop has no pure loop around it, so every completion reaches it and
  // gets stuck, while the reference has no error value in R(z). Read literally, Def. 2.3
  // would call this a violation of Theorem 2.2; the reading of docs/semantics-decisions.md
  // (item 13) counts it as the startup check of §2.9.
  Program p = parse_program(R"(pipeline f2() {
                                 fun f1() = { 5; rdom(r = (-2, -1)) in () <- 7 }
                                 fun f2(x) = { x }
                               }
                               realize () over (0, 3))",
                            "<test>");
  check_program(p);
  Input in = resolve_input(p, {});
  CHECK(has_negative_rdom_extent(p, in));
  TgtProgram t = lower_pipeline(p);
  auto bf = brute_force_filling(t, in);
  REQUIRE(bf);
  // Since reading 14, L(P) stops earlier, at the startup check of r's extent.
  OracleVerdict checked = check_theorems(p, fill_holes(t, bf->filling), in, Limits{});
  CHECK(checked.run.status == RunStatus::AssertionFailure);
  CHECK_THAT(checked.run.message, Catch::Contains("`assert -1 >= 0`"));
  CHECK(checked.holds());
  // Without that check (a hand-written completion), the run is stuck at the rdom loop.
  REQUIRE(t.body->kind == StmtKind::Seq);
  std::vector<Stmt> rest = as<SeqStmt>(t.body).stmts;
  REQUIRE(rest.front()->kind == StmtKind::Assert);
  rest.erase(rest.begin());
  t.body = make_seq(std::move(rest));
  OracleVerdict v = check_theorems(p, fill_holes(t, bf->filling), in, Limits{});
  CHECK(v.run.status == RunStatus::RdomFailure);
  CHECK_FALSE(v.reference_has_error);
  CHECK(v.assertion_failed);
  CHECK(v.holds());

  // Without a negative extent in P, getting stuck on one is a violation: a hand-written
  // completion whose loop length went wrong.
  Program q = thesis();
  TgtProgram bad = filled(q, "x_len + 1");
  bad.body = make_seq({make_for("g", 0, 0, "x", make_const(Value(0)), make_const(Value(-1)), Traversal::Serial,
                                make_nop()),
                       bad.body});
  OracleVerdict w = check_theorems(q, bad, resolve_input(q, {}), Limits{});
  CHECK(w.run.status == RunStatus::RdomFailure);
  CHECK_FALSE(w.assertion_failed);
  CHECK_FALSE(w.confluent);
}

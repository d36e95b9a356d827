// The small-step machine (interp/small_step) against fig. 2.8 rule by rule: each test
// runs a small Tgt program, checks through the trace that the rule fired on the expected
// redex, and checks the rule's effect on Σ or σ through the output. Expected values and
// step counts are worked out by hand in the comments.
#include "interp/fast_eval.hpp"
#include "interp/small_step.hpp"
#include "semantics/parser.hpp"
#include "semantics/tgt_parser.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <fstream>
#include <random>
#include <sstream>

using namespace halo;

namespace {

struct Step {
  std::string rule, redex;
};

struct Recorder : TraceSink {
  std::vector<Step> steps;
  void rule(const char* r, const std::string& redex) override { steps.push_back({r, redex}); }
  // Position of the first step with this rule and redex, or -1.
  int find(const std::string& rule, const std::string& redex) const {
    for (size_t i = 0; i < steps.size(); ++i)
      if (steps[i].rule == rule && steps[i].redex == redex) return int(i);
    return -1;
  }
  bool has(const std::string& rule, const std::string& redex) const { return find(rule, redex) >= 0; }
  size_t count(const std::string& rule) const {
    size_t n = 0;
    for (const auto& s : steps) n += s.rule == rule;
    return n;
  }
  std::vector<std::string> rules() const {
    std::vector<std::string> out;
    for (const auto& s : steps) out.push_back(s.rule);
    return out;
  }
};

Input input(std::vector<int64_t> params, std::vector<std::pair<int64_t, int64_t>> window) {
  Input in;
  for (int64_t p : params) in.params.push_back(Value(p));
  for (auto [mn, len] : window) in.window.push_back(Interval{Value(mn), Value(len), {}});
  return in;
}

RunResult run_text(const std::string& src, const Input& in, Recorder* rec = nullptr, Limits lim = {}) {
  return run_tgt(parse_tgt(src, "<test>"), in, lim, rec);
}

// A one-dimensional output `out` over (0, 1) after `body`: the common shape of the tests.
std::string out1(const std::string& body) {
  return "target pipeline out() over (x_min, x_len) {\n  allocate out((0, 1));\n" + body + "\n}\n";
}

// out1(body) run on the window (0, 1).
RunResult run_body(const std::string& body, Recorder* rec = nullptr, Limits lim = {}) {
  return run_text(out1(body), input({}, {{0, 1}}), rec, lim);
}

std::vector<Value> ints(std::initializer_list<int64_t> xs) { return {xs.begin(), xs.end()}; }

}  // namespace

// ---------------------------------------------------------------- a whole trace
TEST_CASE("smallstep: [REDUCE] a whole run, step by step: each step is one axiom at the redex of its context", "[smallstep]") {
  // REALIZE; allocate: VAR x_min, VAR x_len, ALLOC; NOP; loop bounds: VAR, VAR;
  // per iteration FOR-ITER, VAR x (right-hand side), VAR x (index), ASSN, NOP (x is the
  // loop's qualified variable <out, 0, 0, x>, docs/target-syntax.md);
  // FOR-STOP; END. With two iterations: 1 + 3 + 1 + 2 + 2*5 + 1 + 1 = 19 steps.
  const char* src = R"(target pipeline out() over (x_min, x_len) {
    allocate out((x_min, x_len));
    for <out, 0, 0, x> in (x_min, x_len) serial { out^(0, 0)[x] <- x; }
  })";
  Recorder rec;
  RunResult r = run_text(src, input({}, {{0, 2}}), &rec);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.output.values == ints({0, 1}));
  CHECK(r.steps == 19);
  std::vector<Step> expect = {
      {"REALIZE", "pipeline out(x_min, x_len): …; realize(0, 2)"},
      {"VAR", "x_min"},
      {"VAR", "x_len"},
      {"ALLOC", "allocate out((0, 2))"},
      {"NOP", "nop; …"},
      {"VAR", "x_min"},
      {"VAR", "x_len"},
      {"FOR-ITER", "for <out, 0, 0, x> in (0, 2) serial { … }"},
      {"VAR", "<out, 0, 0, x>"},
      {"VAR", "<out, 0, 0, x>"},
      {"ASSN", "out^(0, 0)[0] <- 0"},
      {"NOP", "nop; …"},
      {"FOR-ITER", "for <out, 0, 0, x> in (1, 1) serial { … }"},
      {"VAR", "<out, 0, 0, x>"},
      {"VAR", "<out, 0, 0, x>"},
      {"ASSN", "out^(0, 0)[1] <- 1"},
      {"NOP", "nop; …"},
      {"FOR-STOP", "for <out, 0, 0, x> in (2, 0) serial { … }"},
      {"END", "pipeline out(x_min, x_len): nop"},
  };
  REQUIRE(rec.steps.size() == expect.size());
  for (size_t i = 0; i < expect.size(); ++i) {
    INFO("step " << i);
    CHECK(rec.steps[i].rule == expect[i].rule);
    CHECK(rec.steps[i].redex == expect[i].redex);
  }
  // Tracing only observes: the same run without a sink takes the same steps.
  RunResult quiet = run_text(src, input({}, {{0, 2}}));
  CHECK(quiet.steps == r.steps);
  CHECK(quiet.output.values == r.output.values);
}

// ---------------------------------------------------------------- one test per rule
TEST_CASE("smallstep: [REALIZE] binds the parameters and the window variables", "[smallstep]") {
  // out[0] = n * 100 + x_min * 10 + x_len = 7*100 + 3*10 + 1 = 731.
  const char* src = R"(target pipeline out(n) over (x_min, x_len) {
    allocate out((x_min, x_len));
    out^(0, 0)[x_min] <- n * 100 + x_min * 10 + x_len;
  })";
  Recorder rec;
  RunResult r = run_text(src, input({7}, {{3, 1}}), &rec);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.output.values == ints({731}));
  REQUIRE(!rec.steps.empty());
  CHECK(rec.steps.front().rule == "REALIZE");
  CHECK(rec.steps.front().redex == "pipeline out(n, x_min, x_len): …; realize(7, 3, 1)");
  CHECK(rec.count("REALIZE") == 1);
}

TEST_CASE("smallstep: [END] returns the output func's buffer on R(z)", "[smallstep]") {
  // The buffer is (0, 4) holding 10 11 12 13; R(z) = (1, 2) shows 11 12.
  const char* src = R"(target pipeline out() over (x_min, x_len) {
    allocate out((0, 4));
    for <out, 0, 0, x> in (0, 4) serial { out^(0, 0)[x] <- x + 10; }
  })";
  Recorder rec;
  RunResult r = run_text(src, input({}, {{1, 2}}), &rec);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.output.func == "out");
  CHECK(r.output.values == ints({11, 12}));
  CHECK(r.message.empty());
  CHECK(rec.steps.back().rule == "END");
  CHECK(rec.count("END") == 1);
}

TEST_CASE("smallstep: [VAR] reads Σ", "[smallstep]") {
  Recorder rec;
  RunResult r = run_body("let y = 5 in { out^(0, 0)[0] <- y; }", &rec);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.output.values == ints({5}));
  CHECK(rec.has("VAR", "y"));
  CHECK(rec.count("VAR") == 1);  // the constants 0 and 5 are already values: no step
}

TEST_CASE("smallstep: [NOP] once per sequence s1 then s2, whatever the nesting", "[smallstep]") {
  // allocate; nop; nop; store — a sequence of 4 statements has 3 `;`: 3 NOP steps.
  // Steps: REALIZE, ALLOC, NOP, NOP, NOP, ASSN, END = 7.
  Recorder rec;
  RunResult r = run_body("nop; nop; out^(0, 0)[0] <- 1;", &rec);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(rec.count("NOP") == 3);
  CHECK(r.steps == 7);
  CHECK(rec.rules() == std::vector<std::string>{"REALIZE", "ALLOC", "NOP", "NOP", "NOP", "ASSN", "END"});
  // A nested sequence (a block inside `let`) steps the same as a flat one: the NOP
  // after the let's body is the one of the outer `;`.
  Recorder rec2;
  RunResult r2 = run_body("let a = 1 in { nop; nop; } out^(0, 0)[0] <- a;", &rec2);
  REQUIRE(r2.status == RunStatus::Ok);
  // ALLOC; NOP; LET; NOP (nop; nop → nop); NOP (nop; store → store); VAR a; ASSN.
  CHECK(rec2.rules() == std::vector<std::string>{"REALIZE", "ALLOC", "NOP", "LET", "NOP", "NOP", "VAR", "ASSN", "END"});
}

TEST_CASE("smallstep: [ASSERT-TRUE] on a non-zero condition", "[smallstep]") {
  Recorder rec;
  RunResult r = run_body("assert 3 > 2; assert 0 - 4; out^(0, 0)[0] <- 1;", &rec);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(rec.has("EVAL", "3 > 2"));
  CHECK(rec.has("ASSERT-TRUE", "assert 1"));
  CHECK(rec.has("EVAL", "0 - 4"));
  CHECK(rec.has("ASSERT-TRUE", "assert (-4)"));  // any c ≠ 0, negatives included
  CHECK(rec.count("ASSERT-TRUE") == 2);
}

TEST_CASE("smallstep: [LET] adds a binding to the flat Σ", "[smallstep]") {
  // let x = 2 * 3: EVAL then LET with the constant 6.
  Recorder rec;
  RunResult r = run_body("let x = 2 * 3 in { out^(0, 0)[0] <- x; }", &rec);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.output.values == ints({6}));
  CHECK(rec.has("EVAL", "2 * 3"));
  CHECK(rec.has("LET", "let x = 6 in { … }"));
  CHECK(rec.find("EVAL", "2 * 3") < rec.find("LET", "let x = 6 in { … }"));

  // Σ is the figure's flat map: LET's rewrite leaves only the body, and nothing removes
  // x afterwards, so the binding outlives the let's block.
  RunResult after = run_body("let x = 6 in { nop; } out^(0, 0)[0] <- x;");
  REQUIRE(after.status == RunStatus::Ok);
  CHECK(after.output.values == ints({6}));

  // A second let of the same name replaces the binding (Σ[x = c]).
  RunResult again = run_body("let x = 1 in { let x = x + 1 in { out^(0, 0)[0] <- x * 10; } }");
  REQUIRE(again.status == RunStatus::Ok);
  CHECK(again.output.values == ints({20}));
}

TEST_CASE("smallstep: [FOR-ITER] binds x and leaves s, for x in (c+1, l-1)", "[smallstep]") {
  // out[x] = x * x over (3, 3): 9 16 25. Three FOR-ITER from (3, 3) down to (5, 1).
  const char* src = R"(target pipeline out() over (x_min, x_len) {
    allocate out((3, 3));
    for <out, 0, 0, x> in (3, 3) serial { out^(0, 0)[x] <- x * x; }
  })";
  Recorder rec;
  RunResult r = run_text(src, input({}, {{3, 3}}), &rec);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.output.values == ints({9, 16, 25}));
  CHECK(rec.count("FOR-ITER") == 3);
  CHECK(rec.has("FOR-ITER", "for <out, 0, 0, x> in (3, 3) serial { … }"));
  CHECK(rec.has("FOR-ITER", "for <out, 0, 0, x> in (4, 2) serial { … }"));
  CHECK(rec.has("FOR-ITER", "for <out, 0, 0, x> in (5, 1) serial { … }"));
  CHECK(rec.has("EVAL", "4 * 4"));
  CHECK(rec.has("FOR-STOP", "for <out, 0, 0, x> in (6, 0) serial { … }"));
}

TEST_CASE("smallstep: [FOR-STOP] removes x from Σ", "[smallstep]") {
  // A loop of length 0 takes FOR-STOP at once and runs no body.
  Recorder rec;
  RunResult r = run_body("out^(0, 0)[0] <- 4; for <out, 0, 0, x> in (7, 0) serial { out^(0, 0)[0] <- 5; }", &rec);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.output.values == ints({4}));
  CHECK(rec.has("FOR-STOP", "for <out, 0, 0, x> in (7, 0) serial { … }"));
  CHECK(rec.count("FOR-ITER") == 0);

  // Σ \ {x}: after the loop x is unbound...
  RunResult gone = run_body("for <out, 0, 0, x> in (0, 2) serial { nop; } out^(0, 0)[0] <- x;");
  CHECK(gone.status == RunStatus::UnboundVariable);
  CHECK_THAT(gone.message, Catch::Contains("x"));
  // ...even when a let bound the loop's variable before the loop: the figure removes x, it
  // does not restore the outer binding.
  RunResult shadow = run_body(
      "let <out, 0, 0, x> = 5 in { for <out, 0, 0, x> in (0, 2) serial { nop; } out^(0, 0)[0] <- x; }");
  CHECK(shadow.status == RunStatus::UnboundVariable);
  // The loop binds its qualified variable <out, 0, 0, x> (docs/semantics-decisions.md,
  // "Qualified loop variables"): a plain x bound outside it is another variable, which
  // FOR-STOP leaves alone.
  RunResult outer = run_body("let x = 5 in { for <out, 0, 0, x> in (0, 2) serial { nop; } out^(0, 0)[0] <- x; }");
  CHECK(outer.status == RunStatus::Ok);
  CHECK(outer.output.values == ints({5}));
}

TEST_CASE("smallstep: [IF-T] and [IF-F]", "[smallstep]") {
  Recorder t;
  RunResult rt = run_body("if (2) { out^(0, 0)[0] <- 1; } else { out^(0, 0)[0] <- 2; }", &t);
  REQUIRE(rt.status == RunStatus::Ok);
  CHECK(rt.output.values == ints({1}));
  CHECK(t.has("IF-T", "if (2) { … } else { … }"));
  CHECK(t.count("IF-F") == 0);

  Recorder f;
  RunResult rf = run_body("if (1 - 1) { out^(0, 0)[0] <- 1; } else { out^(0, 0)[0] <- 2; }", &f);
  REQUIRE(rf.status == RunStatus::Ok);
  CHECK(rf.output.values == ints({2}));
  CHECK(f.has("IF-F", "if (0) { … } else { … }"));
  CHECK(f.count("IF-T") == 0);

  // Without an else the else branch is nop.
  RunResult none = run_body("out^(0, 0)[0] <- 3; if (0) { out^(0, 0)[0] <- 1; }");
  REQUIRE(none.status == RunStatus::Ok);
  CHECK(none.output.values == ints({3}));
}

TEST_CASE("smallstep: [ASSN] evaluates the right-hand side before the target's indices", "[smallstep]") {
  // E's productions `a <- E` then `E <- c`: b * 2 is reduced first, then a + 1 - 1.
  Recorder rec;
  RunResult r = run_body("let a = 0 in { let b = 5 in { out^(0, 0)[a + 1 - 1] <- b * 2; } }", &rec);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.output.values == ints({10}));
  int vb = rec.find("VAR", "b"), rhs = rec.find("EVAL", "5 * 2"), va = rec.find("VAR", "a"),
      idx = rec.find("EVAL", "0 + 1"), assn = rec.find("ASSN", "out^(0, 0)[0] <- 10");
  REQUIRE(vb >= 0);
  REQUIRE(assn >= 0);
  CHECK(vb < rhs);
  CHECK(rhs < va);
  CHECK(va < idx);
  CHECK(idx < assn);
  // The target is a location: no READ of out happens.
  CHECK(rec.count("READ") == 0);
  CHECK(r.stats.at("out").stores == 1);
  CHECK(r.stats.at("out").loads == 0);
}

TEST_CASE("smallstep: indices and operands are evaluated left to right", "[smallstep]") {
  // f[c1, ..., E, ..., en] and op(c1, ..., E, ..., ek).
  Recorder rec;
  RunResult r = run_text(R"(target pipeline out() over (x_min, x_len), (y_min, y_len) {
      allocate out((0, 1), (0, 1));
      let p = 0 in { let q = 0 in { out^(0, 0)[p, q] <- p - q; } }
    })",
                         input({}, {{0, 1}, {0, 1}}), &rec);
  REQUIRE(r.status == RunStatus::Ok);
  std::vector<std::string> vars;
  for (const auto& s : rec.steps)
    if (s.rule == "VAR") vars.push_back(s.redex);
  CHECK(vars == std::vector<std::string>{"p", "q", "p", "q"});
}

TEST_CASE("smallstep: [ALLOC] makes a buffer of ε_mem with the given bounds", "[smallstep]") {
  // Reading an allocated but unwritten point is ε_mem, not a stuck state.
  Recorder rec;
  RunResult r = run_body("allocate g((0, 2), (5, 3)); out^(0, 0)[0] <- g^(0, 0)[1, 7];", &rec);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.output.values == std::vector<Value>{Value::err_mem()});
  CHECK(rec.has("ALLOC", "allocate g((0, 2), (5, 3))"));
  CHECK(rec.has("READ", "g^(0, 0)[1, 7]"));
  REQUIRE(r.stats.at("g").allocations.size() == 1);
  CHECK(r.stats.at("g").allocations[0].first ==
        std::vector<std::pair<Value, Value>>{{Value(0), Value(2)}, {Value(5), Value(3)}});
  CHECK(r.stats.at("g").allocations[0].second == 1);
}

TEST_CASE("smallstep: re-[ALLOC] replaces the buffer", "[smallstep]") {
  // The 7 written before the second allocation is gone: ε_mem again.
  RunResult r = run_body("allocate g((0, 2)); g^(0, 0)[0] <- 7; allocate g((0, 2)); out^(0, 0)[0] <- g^(0, 0)[0];");
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.output.values == std::vector<Value>{Value::err_mem()});
  REQUIRE(r.stats.at("g").allocations.size() == 1);
  CHECK(r.stats.at("g").allocations[0].second == 2);  // the same box twice

  // And its bounds: after re-allocating g on (5, 1), the point 0 is out of bounds.
  RunResult moved = run_body("allocate g((0, 2)); g^(0, 0)[0] <- 7; allocate g((5, 1)); out^(0, 0)[0] <- g^(0, 0)[0];");
  CHECK(moved.status == RunStatus::MemoryError);
  CHECK_THAT(moved.message, Catch::Contains("(5, 1)"));
  CHECK(moved.stats.at("g").allocations.size() == 2);

  // Re-allocation inside a loop (store_at) does not accumulate memory: 1000 boxes of
  // 10^5 points would be 3.2 GB if each were charged, under a 64 MiB limit.
  Limits lim;
  lim.max_memory_bytes = 64ull << 20;
  RunResult loop = run_body("for <out, 0, 0, i> in (0, 1000) serial { allocate g((0, 100000)); }", nullptr, lim);
  CHECK(loop.status == RunStatus::Ok);
  CHECK(loop.stats.at("g").allocations[0].second == 1000);
}

TEST_CASE("smallstep: [READ] and [EVAL]", "[smallstep]") {
  // g = 10 20 30; out = g[1] + g[2] = 50.
  Recorder rec;
  RunResult r = run_body(R"(allocate g((0, 3));
      g^(0, 0)[0] <- 10; g^(0, 0)[1] <- 20; g^(0, 0)[2] <- 30;
      out^(0, 0)[0] <- g^(0, 0)[1] + g^(0, 0)[2];)",
                         &rec);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.output.values == ints({50}));
  CHECK(rec.has("READ", "g^(0, 0)[1]"));
  CHECK(rec.has("READ", "g^(0, 0)[2]"));
  CHECK(rec.has("EVAL", "20 + 30"));
  CHECK(r.stats.at("g").loads == 2);
  CHECK(r.stats.at("g").stores == 3);

  // EVAL on an error operand gives the error (Def. 2.6), and ASSN stores it: values in
  // memory may be errors. ε_mem + 1 = ε_mem; select is strict.
  Recorder e;
  RunResult re = run_body("allocate g((0, 1)); out^(0, 0)[0] <- select(1, 4, g^(0, 0)[0] + 1);", &e);
  REQUIRE(re.status == RunStatus::Ok);
  CHECK(re.output.values == std::vector<Value>{Value::err_mem()});
  CHECK(e.has("EVAL", "err_mem + 1"));
  CHECK(e.has("EVAL", "select(1, 4, err_mem)"));
  CHECK(e.has("ASSN", "out^(0, 0)[0] <- err_mem"));
}

// ---------------------------------------------------------------- stuck states
TEST_CASE("smallstep: assertion failure (Def. 2.11)", "[smallstep]") {
  RunResult r = run_body("out^(0, 0)[0] <- 1;\nassert 1 > 2;");
  CHECK(r.status == RunStatus::AssertionFailure);
  CHECK(std::string(run_status_name(r.status)) == "assertion_failure");
  CHECK_THAT(r.message, Catch::Contains("assert 1 > 2"));
  CHECK(r.loc.line == 4);
  CHECK(r.output.values.empty());
  // Steps up to the stuck state: REALIZE, ALLOC, NOP, ASSN, NOP, EVAL = 6.
  CHECK(r.steps == 6);
}

TEST_CASE("smallstep: rdom failure (Def. 2.12)", "[smallstep]") {
  RunResult r = run_body("for <out, 0, 1, r> in (2, 0 - 3) serial { nop; }");
  CHECK(r.status == RunStatus::RdomFailure);
  CHECK(std::string(run_status_name(r.status)) == "rdom_failure");
  CHECK_THAT(r.message, Catch::Contains("<out, 0, 1, r>") && Catch::Contains("-3"));
}

TEST_CASE("smallstep: memory errors (Def. 2.13) name the access, func, point and bounds", "[smallstep]") {
  auto memory_error = [](const std::string& src, const std::string& what, const std::string& bounds) {
    RunResult r = run_text(src, input({}, {{0, 1}}));
    CHECK(r.status == RunStatus::MemoryError);
    CHECK(std::string(run_status_name(r.status)) == "memory_error");
    CHECK_THAT(r.message, Catch::Contains(what) && Catch::Contains(bounds));
  };
  memory_error(out1("allocate g((0, 4)); out^(0, 0)[0] <- g^(0, 0)[5];"), "read of g at (5)", "((0, 4))");
  memory_error(out1("allocate g((0, 4), (0 - 2, 2)); g^(0, 0)[1, 0] <- 3;"), "write to g at (1, 0)",
               "((0, 4), (-2, 2))");
  memory_error(out1("out^(0, 0)[0] <- h^(0, 0)[0];"), "read of h at (0)", "never allocated");
  // The wrong number of coordinates: InBounds cannot hold.
  memory_error(out1("allocate g((0, 4)); g^(0, 0)[1, 1] <- 3;"), "write to g at (1, 1)", "1 dimension(s) ((0, 4))");
  // A negative allocation length is an empty buffer.
  memory_error(out1("allocate g((0, 0 - 1)); g^(0, 0)[0] <- 3;"), "((0, -1))", "empty");
  // The output never allocated: END's premise σ(f) = ⟨f̂, …⟩ fails.
  memory_error("target pipeline out() over (x_min, x_len) { nop; }", "output out", "never allocated");
}

TEST_CASE("smallstep: an error value where an integer is required", "[smallstep]") {
  // g is allocated but unwritten: g[0] is ε_mem.
  auto stuck = [](const std::string& body, const std::string& where) {
    RunResult r = run_body("allocate g((0, 1));\n" + body);
    CHECK(r.status == RunStatus::ErrorInControl);
    CHECK(std::string(run_status_name(r.status)) == "error_in_control");
    CHECK_THAT(r.message, Catch::Contains(where) && Catch::Contains("err_mem"));
  };
  stuck("if (g^(0, 0)[0]) { nop; }", "condition of `if`");
  stuck("assert g^(0, 0)[0];", "condition of `assert`");
  stuck("for <out, 0, 0, x> in (0, g^(0, 0)[0]) serial { nop; }", "length of loop <out, 0, 0, x>");
  stuck("for <out, 0, 0, x> in (g^(0, 0)[0], 2) serial { nop; }", "minimum of loop <out, 0, 0, x>");
  stuck("out^(0, 0)[g^(0, 0)[0]] <- 1;", "coordinate 1 of the write to out");
  stuck("out^(0, 0)[0] <- g^(0, 0)[g^(0, 0)[0]];", "coordinate 1 of the read of g");
  stuck("allocate h((0, g^(0, 0)[0]));", "length of dimension 1 of `allocate h`");
}

TEST_CASE("smallstep: an unbound variable", "[smallstep]") {
  RunResult r = run_body("out^(0, 0)[0] <- zz + 1;");
  CHECK(r.status == RunStatus::UnboundVariable);
  CHECK(std::string(run_status_name(r.status)) == "unbound_variable");
  CHECK_THAT(r.message, Catch::Contains("zz"));
}

// ---------------------------------------------------------------- τ, limits, input
TEST_CASE("smallstep: parallel, vectorized and unrolled loops run exactly like serial ones", "[smallstep]") {
  auto prog = [](const char* order) {
    return fmt::format(R"(target pipeline out() over (x_min, x_len) {{
      allocate out((x_min, x_len));
      for <out, 0, 0, x> in (x_min, x_len) {} {{ out^(0, 0)[x] <- x * 3 + 1; }}
    }})",
                       order);
  };
  Recorder serial;
  RunResult rs = run_text(prog("serial"), input({}, {{2, 5}}), &serial);
  REQUIRE(rs.status == RunStatus::Ok);
  CHECK(rs.output.values == ints({7, 10, 13, 16, 19}));
  for (const char* order : {"parallel", "vectorized", "unrolled"}) {
    Recorder other;
    RunResult ro = run_text(prog(order), input({}, {{2, 5}}), &other);
    CHECK(ro.output.values == rs.output.values);
    CHECK(ro.steps == rs.steps);
    CHECK(other.rules() == serial.rules());
    CHECK(other.has("FOR-ITER", fmt::format("for <out, 0, 0, x> in (2, 5) {} {{ … }}", order)));
  }
}

TEST_CASE("smallstep: resource limits stop runaway programs", "[smallstep]") {
  Limits lim;
  lim.max_steps = 10000;
  CHECK_THROWS_AS(run_body("for <out, 0, 0, x> in (0, 1000000000000000) serial { nop; }", nullptr, lim), ResourceLimit);
  // 10^12 points: refused before any memory is touched.
  CHECK_THROWS_AS(run_body("allocate g((0, 1000000), (0, 1000000));"), ResourceLimit);
  // A length beyond int64 as well.
  CHECK_THROWS_AS(run_body("allocate g((0, 100000000000000000000000000000));"), ResourceLimit);
  // But a box with an empty dimension holds nothing, however long the others.
  RunResult empty = run_body("allocate g((0, 100000000000000000000000000000), (0, 0)); out^(0, 0)[0] <- 1;");
  CHECK(empty.status == RunStatus::Ok);
}

TEST_CASE("smallstep: integers never wrap, loop bounds included", "[smallstep]") {
  // x runs over 2^63 - 2, 2^63 - 1, 2^63: the last is a big integer. out = x - (2^63 - 2).
  const char* src = R"(target pipeline out() over (x_min, x_len) {
    allocate out((9223372036854775806, 3));
    for <out, 0, 0, x> in (9223372036854775806, 3) serial { out^(0, 0)[x] <- x - 9223372036854775806; }
  })";
  Input in;
  in.window = {Interval{*Value::parse("9223372036854775806"), Value(3), {}}};
  RunResult big = run_text(src, in);
  REQUIRE(big.status == RunStatus::Ok);
  CHECK(big.output.values == ints({0, 1, 2}));
}

TEST_CASE("smallstep: R(z) partly outside the output's allocation is reported", "[smallstep]") {
  RunResult r = run_text(R"(target pipeline out() over (x_min, x_len) {
      allocate out((0, 2)); out^(0, 0)[0] <- 4; out^(0, 0)[1] <- 5;
    })",
                         input({}, {{1, 3}}));
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.output.values == std::vector<Value>{Value(5), Value::err_mem(), Value::err_mem()});
  CHECK_THAT(r.message, Catch::Contains("2 point(s)") && Catch::Contains("((0, 2))"));
}

TEST_CASE("smallstep: a zero-dimensional output", "[smallstep]") {
  Recorder rec;
  RunResult r = run_text("target pipeline out(n) { allocate out(); out^(0, 0)[] <- n + 1; }", input({41}, {}), &rec);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.output.values == ints({42}));
  CHECK(rec.has("ALLOC", "allocate out()"));
  CHECK(rec.has("ASSN", "out^(0, 0)[] <- 42"));
}

TEST_CASE("smallstep: programs that cannot run are input errors", "[smallstep]") {
  // A hole: the message names it.
  try {
    run_body("out^(0, 0)[0] <- ?mem<out, x>.min;");
    FAIL("no InputError");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()) + e.diagnostics().at(0).message, Catch::Contains("?mem<out, x>.min"));
  }
  // The input does not fit the program.
  CHECK_THROWS_AS(run_text(out1("nop;"), input({3}, {{0, 1}})), InputError);
  CHECK_THROWS_AS(run_text(out1("nop;"), input({}, {})), InputError);
  CHECK_THROWS_AS(run_text(out1("nop;"), input({}, {{0, -1}})), InputError);

  // Hand-built trees: an operator with the wrong arity, a missing subtree.
  TgtProgram p;
  p.name = "out";
  p.body =
      make_seq({make_allocate("out", {}), make_store("out", FuncLabel{0, 0}, {}, make_op(Op::Add, {make_const(1)}))});
  CHECK_THROWS_AS(run_tgt(p, Input{}, Limits{}), InputError);
  p.body = make_seq({make_allocate("out", {}), make_store("out", FuncLabel{0, 0}, {}, nullptr)});
  CHECK_THROWS_AS(run_tgt(p, Input{}, Limits{}), InputError);
  p.body = nullptr;
  CHECK_THROWS_AS(run_tgt(p, Input{}, Limits{}), InputError);
  p.body = make_let("x", make_const(1), nullptr);
  CHECK_THROWS_AS(run_tgt(p, Input{}, Limits{}), InputError);
}

TEST_CASE("smallstep: hand-built trees: empty sequences, labels, error constants", "[smallstep]") {
  TgtProgram p;
  p.name = "out";
  // An empty SeqStmt is nop; a label is transparent (no step); an error constant is a value.
  // (SeqStmt is built directly: make_seq would flatten the empty sequence away.)
  p.body = std::make_shared<SeqStmt>(
      std::vector<Stmt>{make_allocate("out", {}), std::make_shared<SeqStmt>(std::vector<Stmt>{}, SourceLoc{}),
                        make_label("out", make_store("out", FuncLabel{0, 0}, {}, make_const(Value::err_rdom())))},
      SourceLoc{});
  Recorder rec;
  RunResult r = run_tgt(p, Input{}, Limits{}, &rec);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.output.values == std::vector<Value>{Value::err_rdom()});
  CHECK(rec.rules() == std::vector<std::string>{"REALIZE", "ALLOC", "NOP", "NOP", "ASSN", "END"});
}

TEST_CASE("smallstep: the lowered blur computes what the big-step semantics computes", "[smallstep]") {
  std::ifstream f(std::string(HALO_SOURCE_DIR) + "/tests/tgt/blur.tgt");
  std::stringstream ss;
  ss << f.rdbuf();
  TgtProgram t = parse_tgt(ss.str(), "blur.tgt");
  REQUIRE(t.realize);
  Input in;
  for (const auto& b : t.realize->params) in.params.push_back(b.value);
  in.window = t.realize->window;
  RunResult r = run_tgt(t, in, Limits{});
  REQUIRE(r.status == RunStatus::Ok);

  std::ifstream h(std::string(HALO_SOURCE_DIR) + "/examples/blur.halo");
  std::stringstream hs;
  hs << h.rdbuf();
  Program prog = parse_program(hs.str(), "blur.halo");
  OutputBuffer ref = evaluate_fast(prog.pipeline, in, Limits{});
  CHECK(r.output.values == ref.values);
  // Every func is allocated once and every store lands in bounds.
  for (const char* fn : {"f", "g", "h"}) CHECK(r.stats.at(fn).allocations.size() == 1);
}

TEST_CASE("smallstep: the thesis §2.2 program, filled, matches its algorithm", "[smallstep]") {
  std::ifstream f(std::string(HALO_SOURCE_DIR) + "/tests/tgt/thesis_2_2_filled.tgt");
  std::stringstream ss;
  ss << f.rdbuf();
  // g(x) = x*x + 1 on (0, 7): 1 2 5 10 17 26 37; f(x) = g(x) + g(x + 1) on (0, 6).
  RunResult r = run_tgt(parse_tgt(ss.str(), "thesis_2_2_filled.tgt"), input({}, {{0, 6}}), Limits{});
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.output.values == ints({3, 7, 15, 27, 43, 63}));
  CHECK(r.stats.at("g").stores == 7);
  CHECK(r.stats.at("g").loads == 12);
  CHECK(r.stats.at("f").stores == 6);
}

// ---------------------------------------------------------------- robustness
namespace {
// Random trees, well- and ill-formed: unbound names, funcs never allocated, wrong
// dimensions, negative and huge bounds, error constants, operators of the wrong arity.
struct RandomTgt {
  std::mt19937_64 rng;
  explicit RandomTgt(uint64_t seed) : rng(seed) {}
  int pick(int n) { return int(rng() % uint64_t(n)); }

  Expr expr(int depth) {
    switch (depth <= 0 ? pick(2) : pick(6)) {
      case 0: {
        int k = pick(20);
        if (k == 0) return make_const(Value::err_mem());
        if (k == 1) return make_const(Value::err_rdom());
        if (k == 2) return make_const(*Value::parse("123456789012345678901234567890"));
        return make_const(Value(int64_t(pick(9)) - 3));
      }
      case 1: return make_var(std::string(1, "xynzi"[pick(5)]));
      case 2:
      case 3: {
        std::vector<Expr> args;
        for (int i = pick(3); i > 0; --i) args.push_back(expr(depth - 1));
        return make_call(pick(2) ? "f" : "g", std::move(args), {}, FuncLabel{0, 0});
      }
      default: {
        Op op = Op(pick(int(Op::Max) + 1));
        int n = pick(40) == 0 ? pick(4) : op_arity(op);  // now and then the wrong arity
        std::vector<Expr> args;
        for (int i = 0; i < n; ++i) args.push_back(expr(depth - 1));
        return make_op(op, std::move(args));
      }
    }
  }

  Stmt stmt(int depth) {
    switch (depth <= 0 ? pick(3) : pick(9)) {
      case 0: return make_nop();
      case 1: {
        std::vector<Expr> idx;
        for (int i = pick(3); i > 0; --i) idx.push_back(expr(1));
        return make_store(pick(3) ? "f" : "g", FuncLabel{0, 0}, std::move(idx), expr(2));
      }
      case 2: {
        std::vector<std::pair<Expr, Expr>> b;
        for (int i = pick(3); i > 0; --i) b.emplace_back(expr(1), expr(1));
        return make_allocate(pick(3) ? "f" : "g", std::move(b));
      }
      case 3: return make_assert(expr(2));
      case 4: return make_seq({stmt(depth - 1), stmt(depth - 1), stmt(depth - 1)});
      case 5: return make_if(expr(2), stmt(depth - 1), pick(2) ? stmt(depth - 1) : nullptr);
      case 6:
        return make_for("f", 0, 0, std::string(1, "xyi"[pick(3)]), expr(1), expr(1), Traversal(pick(4)),
                        stmt(depth - 1));
      case 7: return make_let(std::string(1, "xyz"[pick(3)]), expr(2), stmt(depth - 1));
      default: return make_label("f", stmt(depth - 1));
    }
  }
};
}  // namespace

TEST_CASE("smallstep: random programs end in a classified result, never a crash", "[smallstep]") {
  Limits lim;
  lim.max_steps = 20000;
  lim.max_memory_bytes = 1 << 20;
  int ok = 0, stuck = 0, input_errors = 0, limits = 0;
  for (uint64_t seed = 1; seed <= 3000; ++seed) {
    RandomTgt g(seed);
    TgtProgram p;
    p.name = "f";
    p.params = {"n"};
    p.window = {{"x_min", "x_len"}};
    p.body = make_seq({g.pick(2) ? make_allocate("f", {{make_const(0), make_const(4)}}) : make_nop(), g.stmt(4)});
    Input in = input({int64_t(g.pick(5))}, {{0, 3}});
    INFO("seed " << seed);
    try {
      Recorder rec;
      RunResult traced = run_tgt(p, in, lim, &rec);
      RunResult quiet = run_tgt(p, in, lim);
      CHECK(quiet.status == traced.status);
      CHECK(quiet.steps == traced.steps);
      CHECK(rec.steps.size() == traced.steps);
      if (traced.status == RunStatus::Ok) {
        ++ok;
        CHECK(traced.output.values.size() == 3);
        CHECK(quiet.output.values == traced.output.values);
      } else {
        ++stuck;
        CHECK(!traced.message.empty());
      }
    } catch (const InputError&) { ++input_errors; } catch (const ResourceLimit&) {
      ++limits;
    }
  }
  // The generator reaches every kind of ending (3000 seeds: about 400 ok, 2500 stuck,
  // 90 input errors, and a step limit now and then).
  CHECK(ok > 0);
  CHECK(stuck > 0);
  CHECK(input_errors > 0);
  CHECK(ok + stuck + input_errors + limits == 3000);
}

// The bounds phase of the schedule (SEMANTICS.md "Scheduling directives": bound,
// bound_extent, align_bounds; schedule/bounds_directives.cpp) and the dynamic race check
// of parallel loops (interp/race_check.hpp). Each rewrite is compared with a target program
// derived by hand from the reading in docs/schedule-bounds.md; each restriction has one
// rejected use; the completed programs are judged by the oracle, including the case where
// the chosen region is too small (a failed assertion, allowed by Def. 2.3).
#include "bounds/beta0.hpp"
#include "interp/small_step.hpp"
#include "oracle/theorems.hpp"
#include "schedule/schedule.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/tgt_printer.hpp"

#include <catch2/catch.hpp>

#include "tests/support.hpp"

using namespace halo;
using test::check_schedules_to;
using test::parse_valid;

namespace {

const std::string kThesis = R"(pipeline f() {
  fun g(x) = { x * x + 1 }
  fun f(x) = { g[x] + g[x + 1] }
}
)";
std::string thesis(const std::string& directives, const std::string& realize = "realize () over (0, 6)\n") {
  return kThesis + "schedule {\n" + directives + "\n}\n" + realize;
}

// The stores [ASSN] made into f's buffer by β0's completion, which must hold.
uint64_t stores_of(const std::string& halo, const std::string& f) {
  Program p = parse_valid(halo);
  OracleVerdict v = test::scheduled_oracle(p, resolve_input(p, {}));
  return v.run.stats.at(f).stores;
}

OracleVerdict oracle_of(const std::string& halo, const InputOverrides& over = {}) {
  Program p = parse_valid(halo);
  return test::scheduled_oracle(p, resolve_input(p, over));
}

}  // namespace

TEST_CASE("bound: the stage loops run over the chosen region and the demand is asserted to fit", "[schedule][bounds]") {
  check_schedules_to(thesis("bound(g, x, 0, 8);"), R"(
target pipeline f() over (x_min, x_len) {
  allocate g((?mem<g, x>.min, ?mem<g, x>.len));
  label g: {
    label g.s0: {
      assert ?cpu<g, *, 0, x>.len <= 0 || 0 <= ?cpu<g, *, 0, x>.min && ?cpu<g, *, 0, x>.min + ?cpu<g, *, 0, x>.len <= 8;
      for <g, 0, 0, x> in (0, 8) serial {
        if (1) { g^(0, *)[x] <- x * x + 1; }
      }
    }
  }
  allocate f((?mem<f, x>.min, ?mem<f, x>.len));
  label f: {
    label f.s0: {
      for <f, 0, 0, x> in (?cpu<f, *, 0, x>.min, ?cpu<f, *, 0, x>.len) serial {
        if (1) { f^(0, *)[x] <- g^(0, *)[x] + g^(0, *)[x + 1]; }
      }
    }
  }
}
realize () over (0, 6)
)");
  // g is computed on exactly (0, 8): 8 stores, one more than the 7 points f demands.
  CHECK(stores_of(thesis("bound(g, x, 0, 8);"), "g") == 8);
  CHECK(stores_of(thesis("bound(g, x, 0, 7);"), "g") == 7);
}

TEST_CASE("bound: a region smaller than the demand fails its assertion, which Def. 2.3 allows", "[schedule][bounds]") {
  OracleVerdict v = oracle_of(thesis("bound(g, x, 0, 5);"));
  CHECK(v.assertion_failed);
  CHECK(v.run.status == RunStatus::AssertionFailure);
  // The same schedule is fine for a window whose demand fits.
  OracleVerdict small = oracle_of(thesis("bound(g, x, 0, 5);", "realize () over (0, 4)\n"));
  CHECK_FALSE(small.assertion_failed);
  CHECK(small.run.stats.at("g").stores == 5);
}

TEST_CASE("bound on the output: the window must fit the chosen region", "[schedule][bounds]") {
  CHECK(oracle_of(thesis("bound(f, x, 0, 6);")).run.stats.at("f").stores == 6);
  CHECK(oracle_of(thesis("bound(f, x, 1, 6);")).assertion_failed);
  CHECK(oracle_of(thesis("bound(f, x, 0, 4);")).assertion_failed);
}

TEST_CASE("bound_extent: the length is pinned and the minimum follows the demand", "[schedule][bounds]") {
  check_schedules_to(thesis("split(<f, 0, 0, x>, xo, xi, 3, guard);\nbound_extent(f, x, 7);"), R"(
target pipeline f() over (x_min, x_len) {
  allocate g((?mem<g, x>.min, ?mem<g, x>.len));
  label g: {
    label g.s0: {
      for <g, 0, 0, x> in (?cpu<g, *, 0, x>.min, ?cpu<g, *, 0, x>.len) serial {
        if (1) { g^(0, *)[x] <- x * x + 1; }
      }
    }
  }
  allocate f((?mem<f, x>.min, ?mem<f, x>.len));
  label f: {
    label f.s0: {
      assert ?cpu<f, *, 0, x>.len <= 7;
      for <f, 0, 0, xo> in (0, (7 + 3 - 1) / 3) serial {
        for <f, 0, 0, xi> in (0, 3) serial {
          let <f, 0, 0, x> = ?cpu<f, *, 0, x>.min + xo * 3 + xi in {
            if (x < ?cpu<f, *, 0, x>.min + 7) {
              if (1) { f^(0, *)[x] <- g^(0, *)[x] + g^(0, *)[x + 1]; }
            }
          }
        }
      }
    }
  }
}
realize () over (0, 6)
)");
  // f is computed on (0, 7): one point past the window, so g is demanded on (0, 8).
  OracleVerdict v = oracle_of(thesis("bound_extent(f, x, 7);"));
  CHECK(v.run.stats.at("f").stores == 7);
  CHECK(v.run.stats.at("g").stores == 8);
  CHECK(oracle_of(thesis("bound_extent(f, x, 5);")).assertion_failed);
}

TEST_CASE("align_bounds: the region widens to a multiple of the modulus starting at the remainder", "[schedule][bounds]") {
  check_schedules_to(thesis("align_bounds(g, x, 4, 1);"), R"(
target pipeline f() over (x_min, x_len) {
  allocate g((?mem<g, x>.min, ?mem<g, x>.len));
  label g: {
    label g.s0: {
      for <g, 0, 0, x> in (?cpu<g, *, 0, x>.min - (?cpu<g, *, 0, x>.min - 1) % 4,
                           (?cpu<g, *, 0, x>.min + ?cpu<g, *, 0, x>.len - (?cpu<g, *, 0, x>.min - (?cpu<g, *, 0, x>.min - 1) % 4) + 4 - 1) / 4 * 4) serial {
        if (1) { g^(0, *)[x] <- x * x + 1; }
      }
    }
  }
  allocate f((?mem<f, x>.min, ?mem<f, x>.len));
  label f: {
    label f.s0: {
      for <f, 0, 0, x> in (?cpu<f, *, 0, x>.min, ?cpu<f, *, 0, x>.len) serial {
        if (1) { f^(0, *)[x] <- g^(0, *)[x] + g^(0, *)[x + 1]; }
      }
    }
  }
}
realize () over (0, 6)
)");
  // Demand (0, 7) → aligned to start at -3 (≡ 1 mod 4) and end at 9: 12 points.
  CHECK(stores_of(thesis("align_bounds(g, x, 4, 1);"), "g") == 12);
  // Per tile of 3 with g computed at xo: demands (0,4), (3,4) → (-3,8), (1,8): 16 stores.
  CHECK(stores_of(thesis("split(<f, 0, 0, x>, xo, xi, 3, guard);\ncompute_at(g, <f, 0, 0, xo>);\n"
                         "align_bounds(g, x, 4, 1);"),
                  "g") == 16);
}

TEST_CASE("bounds directives with parameters are checked at startup", "[schedule][bounds]") {
  const std::string src = R"(pipeline f(n, k) {
  fun g(x) = { x * 3 }
  fun f(x) = { g[x] + g[x + 1] }
}
schedule {
  bound(g, x, -5, n);
  align_bounds(f, x, k, 0);
}
)";
  Program p = parse_valid(src + "realize (n = 40, k = 2) over (0, 6)\n");
  TgtProgram t = schedule_pipeline(p);
  // The first statements are the startup checks (the last directive's outermost).
  REQUIRE(t.body->kind == StmtKind::Seq);
  const auto& seq = as<SeqStmt>(t.body);
  REQUIRE(seq.stmts.size() >= 3);
  CHECK(print_stmt(seq.stmts[0]) == "assert k > 0;\n");
  CHECK(print_stmt(seq.stmts[1]) == "assert n >= 0;\n");
  // β0's interval for an alignment by a parameter is loose (it cannot know k), so the
  // bound on g leaves it room: -5 and 40 points.
  CHECK_FALSE(oracle_of(src + "realize (n = 40, k = 2) over (0, 6)\n").assertion_failed);
  CHECK(oracle_of(src + "realize (n = -1, k = 2) over (0, 0)\n").assertion_failed);
  CHECK(oracle_of(src + "realize (n = 7, k = 0) over (0, 6)\n").assertion_failed);
}

TEST_CASE("bounds phase: every restriction rejects the directive, located and named", "[schedule][bounds]") {
  auto rejected = [](const std::string& directives, const std::string& needle, const std::string& message) {
    std::string src = thesis(directives);
    test::check_schedule_rejected(src, test::position_of(src, needle), message);
  };
  rejected("bound(g, y, 0, 8);", "bound", "'y' is not a dimension of 'g'");
  rejected("bound(g, x, 0, 8);\nbound_extent(g, x, 8);", "bound(", "has more than one bounds directive");
  rejected("bound(g, x, 0, 0 - 1);", "bound", "the length 0 - 1 is -1, but it must be >= 0");
  rejected("bound_extent(g, x, -2);", "bound_extent", "the length -2 is -2, but it must be >= 0");
  rejected("align_bounds(g, x, 0, 1);", "align_bounds", "the modulus 0 is 0, but it must be > 0");
  // Phase order is halo's to keep (the parser applies the schedule in it); startup
  // expressions are a validity rule (semantics/validity.cpp).
  Program late = test::parse_valid(thesis("bound(g, x, 0, 8);\nsplit(<f, 0, 0, x>, xo, xi, 2, guard);"));
  CHECK(late.schedule->front().kind == DirectiveKind::Split);
  std::string dyn = thesis("bound(g, x, 0, f[0]);");
  test::require_error([](const std::string& s) { check_program(parse_program(s, "<test>")); }, dyn, "<test>",
                      test::position_of(dyn, "f[0]"), "startup");
}

TEST_CASE("a reduction func: bound pins the pure loops of every stage", "[schedule][bounds]") {
  const std::string src = R"(pipeline f(n) {
  fun h(x) = {
    x + 1;
    rdom(r = (0, n)) in (x) <- h[x] * 2 + r
  }
  fun f(x) = { h[x] - h[x + 2] }
}
schedule { bound(h, x, -1, 10); }
realize (n = 3) over (0, 6)
)";
  OracleVerdict v = oracle_of(src);
  // Both stages of h run over (-1, 10); the update runs 3 times per point.
  CHECK(v.run.stats.at("h").stores == 10 + 3 * 10);
}

// ---------------------------------------------------------------- races
namespace {
RunResult run_text(const std::string& tgt) {
  TgtProgram t = parse_tgt(tgt, "<race>");
  return run_tgt(t, Input{{}, {Interval{Value(0), Value(4), {}}}}, Limits{});
}
std::string loop_around(const std::string& body) {
  return "target pipeline f() over (x_min, x_len) {\n  allocate g((0, 8));\n  allocate f((x_min, x_len));\n"
         "  for <f, 0, 0, x> in (x_min, x_len) parallel {\n" +
         body + "\n  }\n}\n";
}
}  // namespace

TEST_CASE("parallel loops: a read of a point another iteration writes is a race", "[smallstep][race]") {
  RunResult r = run_text(loop_around("g^(0, *)[0] <- x;\n f^(0, *)[x] <- g^(0, *)[0];"));
  CHECK(r.status == RunStatus::Ok);  // fig. 2.8 runs the loop serially...
  REQUIRE(r.race);                   // ...but iterations 0 and 1 share g(0)
  CHECK_THAT(r.race->message, Catch::Contains("the iteration x = 1 writes g(0), which the iteration x = 0 reads"));
}

TEST_CASE("parallel loops: two iterations writing different values is a race, the same value is not",
          "[smallstep][race]") {
  RunResult diff = run_text(loop_around("g^(0, *)[x / 2] <- x;\n f^(0, *)[x] <- 0;"));
  REQUIRE(diff.race);
  CHECK_THAT(diff.race->message, Catch::Contains("writes g(0) = 1, but the iteration x = 0 writes it = 0"));
  RunResult same = run_text(loop_around("g^(0, *)[x / 2] <- 7;\n f^(0, *)[x] <- 0;"));
  CHECK_FALSE(same.race);
  // Each iteration reading and writing only its own points is no race; nor is a serial loop.
  CHECK_FALSE(run_text(loop_around("g^(0, *)[x] <- x;\n f^(0, *)[x] <- g^(0, *)[x];")).race);
  std::string serial = loop_around("g^(0, *)[0] <- x;\n f^(0, *)[x] <- g^(0, *)[0];");
  serial.replace(serial.find("parallel"), 8, "serial");
  CHECK_FALSE(run_text(serial).race);
}

TEST_CASE("parallel loops: a buffer allocated inside the iteration is private to it", "[smallstep][race]") {
  RunResult r = run_text(
      "target pipeline f() over (x_min, x_len) {\n  allocate f((x_min, x_len));\n"
      "  for <f, 0, 0, x> in (x_min, x_len) parallel {\n    allocate g((0, 1));\n"
      "    g^(0, *)[0] <- x;\n    f^(0, *)[x] <- g^(0, *)[0];\n  }\n}\n");
  CHECK(r.status == RunStatus::Ok);
  CHECK_FALSE(r.race);
}

TEST_CASE("parallel loops: the oracle reports a race as a finding", "[oracle][race]") {
  // A parallel shifted split recomputes the tail with the same values: no race.
  OracleVerdict ok = oracle_of(thesis("split(<f, 0, 0, x>, xo, xi, 4, shift);\ntraverse(<f, 0, 0, xo>, parallel);"));
  CHECK(ok.race_free);
  // A hand-written completion that shares a scratch point across iterations races.
  Program p = parse_valid(thesis("traverse(<f, 0, 0, x>, parallel);"));
  TgtProgram racy = parse_tgt(R"(target pipeline f() over (x_min, x_len) {
  allocate g((-10, 20));
  allocate f((x_min, x_len));
  for <f, 0, 0, x> in (x_min, x_len) parallel {
    g^(0, *)[0] <- x * x + 1;
    g^(0, *)[1] <- (x + 1) * (x + 1) + 1;
    f^(0, *)[x] <- g^(0, *)[0] + g^(0, *)[1];
  }
}
)", "<racy>");
  OracleVerdict v = check_theorems(p, racy, resolve_input(p, {}), Limits{});
  CHECK(v.memory_safe);
  CHECK(v.confluent);
  CHECK_FALSE(v.race_free);
  CHECK_FALSE(v.holds());
  CHECK_THAT(v.detail, Catch::Contains("data race in parallel loop <f, 0, 0, x>"));
  CHECK(verdict_to_json(v)["verdict"] == "violated");
}

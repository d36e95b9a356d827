// The loops phase of scheduling (thesis §2.8.2; SEMANTICS.md "Scheduling directives";
// schedule/loops.cpp, docs/schedule-loops.md). For each directive: the rewrite of a small
// lowered program against a target program derived by hand from SEMANTICS.md; one
// rejected use per restriction (location and message); and end to end, the scheduled
// program completed by β0 and judged by the oracle (Def. 2.3, Theorems 2.1/2.2).
#include "bounds/beta0.hpp"
#include "interp/input.hpp"
#include "oracle/theorems.hpp"
#include "schedule/schedule.hpp"
#include "semantics/parser.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/tgt_printer.hpp"
#include "semantics/validity.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>
#include "tests/support.hpp"

#include <filesystem>

using namespace halo;
using halo::test::parse_valid;
using halo::test::where;

namespace {

const std::string kSource = HALO_SOURCE_DIR;


using test::check_schedules_to;
OracleVerdict oracle(const Program& p, const Input& in) { return test::scheduled_oracle(p, in); }
OracleVerdict oracle(const std::string& halo) {
  Program p = parse_valid(halo);
  return oracle(p, resolve_input(p, {}));
}

// ---- the programs
const std::string kThesis = R"(pipeline f() {
  fun g(x) = { x * x + 1 }
  fun f(x) = { g[x] + g[x + 1] }
}
)";
const std::string kThesisRealize = "realize () over (0, 6)\n";

// g of thesis §2.2 as lowered (every expected program below starts with it).
const std::string kThesisG = R"(target pipeline f() over (x_min, x_len) {
  allocate g((?mem<g, x>.min, ?mem<g, x>.len));
  label g: {
    label g.s0: {
      for <g, 0, 0, x> in (?cpu<g, *, 0, x>.min, ?cpu<g, *, 0, x>.len) serial {
        if (1) { g^(0, *)[x] <- x * x + 1; }
      }
    }
  }
  allocate f((?mem<f, x>.min, ?mem<f, x>.len));
)";

const std::string kPlane = R"(pipeline f() {
  fun f(x, y) = { x + 10 * y }
}
)";
const std::string kPlaneRealize = "realize () over (0, 5), (0, 3)\n";
const std::string kPlaneHead = R"(target pipeline f() over (x_min, x_len), (y_min, y_len) {
  allocate f((?mem<f, x>.min, ?mem<f, x>.len), (?mem<f, y>.min, ?mem<f, y>.len));
)";

const std::string kBlur = R"(pipeline h(w) {
  fun f(x, y) = { select((x + y) % 16 < 8, (x + y) % 16, 16 - (x + y) % 16) - 4 }
  fun g(x, y) = {
    0;
    rdom(r = (0 - w, 2 * w + 1)) in (x, y) <- g[x, y] + f[x + r, y]
  }
  fun h(x, y) = {
    0;
    rdom(r = (0 - w, 2 * w + 1)) in (x, y) <- h[x, y] + g[x, y + r]
  }
}
)";
const std::string kBlurRealize = "realize (w = 1) over (0, 8), (0, 6)\n";

// Two reduction variables in one stage: loops x { s { r { ... } } }.
const std::string kTwoR = R"(pipeline f() {
  fun f(x) = {
    x;
    rdom(r = (0, 2), s = (0, 3)) in (x) <- f[x] + r * s
  }
}
)";
const std::string kTwoRRealize = "realize () over (0, 4)\n";

std::string sched(const std::string& directives) { return "schedule {\n" + directives + "\n}\n"; }

}  // namespace

// ---------------------------------------------------------------- rewrites
TEST_CASE("split: guard, shift and round rewrite thesis §2.2's f as SEMANTICS.md says", "[schedule]") {
  const std::string m = "?cpu<f, *, 0, x>.min", l = "?cpu<f, *, 0, x>.len";
  const std::string store = "if (1) { f^(0, *)[x] <- g^(0, *)[x] + g^(0, *)[x + 1]; }";
  SECTION("guard") {
    check_schedules_to(kThesis + sched("split(<f, 0, 0, x>, xo, xi, 3, guard);") + kThesisRealize,
                       kThesisG + "  label f: { label f.s0: {\n"
                                  "    for <f, 0, 0, xo> in (0, (" + l + " + 3 - 1) / 3) serial {\n"
                                  "      for <f, 0, 0, xi> in (0, 3) serial {\n"
                                  "        let <f, 0, 0, x> = " + m + " + xo * 3 + xi in {\n"
                                  "          if (x < " + m + " + " + l + ") { " + store + " }\n"
                                  "        }\n"
                                  "      }\n"
                                  "    }\n"
                                  "  } }\n}\n" + kThesisRealize);
  }
  SECTION("shift") {
    check_schedules_to(kThesis + sched("split(<f, 0, 0, x>, xo, xi, 4, shift);") + kThesisRealize,
                       kThesisG + "  label f: { label f.s0: {\n"
                                  "    for <f, 0, 0, xo> in (0, (" + l + " + 4 - 1) / 4) serial {\n"
                                  "      for <f, 0, 0, xi> in (0, 4) serial {\n"
                                  "        let <f, 0, 0, x> = min(" + m + " + xo * 4, " + m + " + " + l + " - 4) + xi in { " +
                                  store + " }\n"
                                  "      }\n"
                                  "    }\n"
                                  "  } }\n}\n" + kThesisRealize);
  }
  SECTION("round") {
    check_schedules_to(kThesis + sched("split(<f, 0, 0, x>, xo, xi, 4, round);") + kThesisRealize,
                       kThesisG + "  label f: { label f.s0: {\n"
                                  "    for <f, 0, 0, xo> in (0, (" + l + " + 4 - 1) / 4) serial {\n"
                                  "      for <f, 0, 0, xi> in (0, 4) serial {\n"
                                  "        let <f, 0, 0, x> = " + m + " + xo * 4 + xi in { " + store + " }\n"
                                  "      }\n"
                                  "    }\n"
                                  "  } }\n}\n" + kThesisRealize);
  }
}

TEST_CASE("split: the let and guard go below the stage's innermost loop", "[schedule]") {
  const std::string my = "?cpu<f, *, 0, y>.min", ly = "?cpu<f, *, 0, y>.len";
  check_schedules_to(kPlane + sched("split(<f, 0, 0, y>, yo, yi, 2, guard);") + kPlaneRealize,
                     kPlaneHead + "  label f: { label f.s0: {\n"
                                  "    for <f, 0, 0, yo> in (0, (" + ly + " + 2 - 1) / 2) serial {\n"
                                  "      for <f, 0, 0, yi> in (0, 2) serial {\n"
                                  "        for <f, 0, 0, x> in (?cpu<f, *, 0, x>.min, ?cpu<f, *, 0, x>.len) serial {\n"
                                  "          let <f, 0, 0, y> = " + my + " + yo * 2 + yi in {\n"
                                  "            if (y < " + my + " + " + ly + ") {\n"
                                  "              if (1) { f^(0, *)[x, y] <- x + 10 * y; }\n"
                                  "            }\n"
                                  "          }\n"
                                  "        }\n"
                                  "      }\n"
                                  "    }\n"
                                  "  } }\n}\n" + kPlaneRealize);
}

TEST_CASE("split: splitting a split loop binds the newer let outside the older", "[schedule]") {
  const std::string m = "?cpu<f, *, 0, x>.min", l = "?cpu<f, *, 0, x>.len";
  check_schedules_to(
      kThesis + sched("split(<f, 0, 0, x>, xo, xi, 2, guard);\nsplit(<f, 0, 0, xo>, xoo, xoi, 3, round);") +
          kThesisRealize,
      kThesisG + "  label f: { label f.s0: {\n"
                 "    for <f, 0, 0, xoo> in (0, ((" + l + " + 2 - 1) / 2 + 3 - 1) / 3) serial {\n"
                 "      for <f, 0, 0, xoi> in (0, 3) serial {\n"
                 "        for <f, 0, 0, xi> in (0, 2) serial {\n"
                 "          let <f, 0, 0, xo> = 0 + xoo * 3 + xoi in {\n"
                 "            let <f, 0, 0, x> = " + m + " + xo * 2 + xi in {\n"
                 "              if (x < " + m + " + " + l + ") {\n"
                 "                if (1) { f^(0, *)[x] <- g^(0, *)[x] + g^(0, *)[x + 1]; }\n"
                 "              }\n"
                 "            }\n"
                 "          }\n"
                 "        }\n"
                 "      }\n"
                 "    }\n"
                 "  } }\n}\n" + kThesisRealize);
}

TEST_CASE("split: a factor that is not a constant is asserted positive first", "[schedule]") {
  const std::string l = "?cpu<f, *, 0, x>.len", m = "?cpu<f, *, 0, x>.min";
  check_schedules_to(
      "pipeline f(k) { fun f(x) = { x } }\n" + sched("split(<f, 0, 0, x>, xo, xi, k + 1, guard);") +
          "realize (k = 2) over (0, 7)\n",
      "target pipeline f(k) over (x_min, x_len) {\n"
      "  assert k + 1 > 0;\n"
      "  allocate f((?mem<f, x>.min, ?mem<f, x>.len));\n"
      "  label f: { label f.s0: {\n"
      "    for <f, 0, 0, xo> in (0, (" + l + " + (k + 1) - 1) / (k + 1)) serial {\n"
      "      for <f, 0, 0, xi> in (0, k + 1) serial {\n"
      "        let <f, 0, 0, x> = " + m + " + xo * (k + 1) + xi in {\n"
      "          if (x < " + m + " + " + l + ") { if (1) { f^(0, *)[x] <- x; } }\n"
      "        }\n"
      "      }\n"
      "    }\n"
      "  } }\n}\nrealize (k = 2) over (0, 7)\n");
}

TEST_CASE("fuse, swap, traverse: rewrites of a two-dimensional func", "[schedule]") {
  const std::string mx = "?cpu<f, *, 0, x>.min", lx = "?cpu<f, *, 0, x>.len";
  const std::string my = "?cpu<f, *, 0, y>.min", ly = "?cpu<f, *, 0, y>.len";
  const std::string store = "if (1) { f^(0, *)[x, y] <- x + 10 * y; }";
  SECTION("fuse") {
    check_schedules_to(kPlane + sched("fuse(<f, 0, 0, y>, t);") + kPlaneRealize,
                       kPlaneHead + "  label f: { label f.s0: {\n"
                                    "    for <f, 0, 0, t> in (0, " + ly + " * " + lx + ") serial {\n"
                                    "      let <f, 0, 0, y> = " + my + " + t / " + lx + " in {\n"
                                    "        let <f, 0, 0, x> = " + mx + " + t % " + lx + " in { " + store + " }\n"
                                    "      }\n"
                                    "    }\n"
                                    "  } }\n}\n" + kPlaneRealize);
  }
  SECTION("swap") {
    check_schedules_to(kPlane + sched("swap(<f, 0, 0, y>);") + kPlaneRealize,
                       kPlaneHead + "  label f: { label f.s0: {\n"
                                    "    for <f, 0, 0, x> in (" + mx + ", " + lx + ") serial {\n"
                                    "      for <f, 0, 0, y> in (" + my + ", " + ly + ") serial { " + store + " }\n"
                                    "    }\n"
                                    "  } }\n}\n" + kPlaneRealize);
  }
  SECTION("traverse") {
    check_schedules_to(kPlane + sched("traverse(<f, 0, 0, y>, parallel);\ntraverse(<f, 0, 0, x>, vectorized);") +
                           kPlaneRealize,
                       kPlaneHead + "  label f: { label f.s0: {\n"
                                    "    for <f, 0, 0, y> in (" + my + ", " + ly + ") parallel {\n"
                                    "      for <f, 0, 0, x> in (" + mx + ", " + lx + ") vectorized { " + store + " }\n"
                                    "    }\n"
                                    "  } }\n}\n" + kPlaneRealize);
  }
  SECTION("swap keeps each loop's traversal") {
    check_schedules_to(kPlane + sched("traverse(<f, 0, 0, y>, parallel);\nswap(<f, 0, 0, y>);") + kPlaneRealize,
                       kPlaneHead + "  label f: { label f.s0: {\n"
                                    "    for <f, 0, 0, x> in (" + mx + ", " + lx + ") serial {\n"
                                    "      for <f, 0, 0, y> in (" + my + ", " + ly + ") parallel { " + store + " }\n"
                                    "    }\n"
                                    "  } }\n}\n" + kPlaneRealize);
  }
}

TEST_CASE("swap and fuse: a pure loop with a reduction loop, and two reduction loops fused", "[schedule]") {
  const std::string l = "?cpu<f, *, 1, x>.len", m = "?cpu<f, *, 1, x>.min";
  const std::string head = R"(target pipeline f() over (x_min, x_len) {
  allocate f((?mem<f, x>.min, ?mem<f, x>.len));
  label f: {
    label f.s0: {
      for <f, 0, 0, x> in (?cpu<f, 0, 0, x>.min, ?cpu<f, 0, 0, x>.len) serial { if (1) { f^(0, 0)[x] <- x; } }
    }
)";
  const std::string store = "if (1) { f^(1, *)[x] <- f^(0, 0)[x] + r * s; }";
  SECTION("swap x with s") {
    check_schedules_to(kTwoR + sched("swap(<f, 0, 1, x>);") + kTwoRRealize,
                       head + "    label f.s1: {\n"
                              "      for <f, 0, 1, s> in (0, 3) serial {\n"
                              "        for <f, 0, 1, x> in (" + m + ", " + l + ") serial {\n"
                              "          for <f, 0, 1, r> in (0, 2) serial { " + store + " }\n"
                              "        }\n"
                              "      }\n"
                              "    }\n  }\n}\n" + kTwoRRealize);
  }
  SECTION("fuse s with r") {
    check_schedules_to(kTwoR + sched("fuse(<f, 0, 1, s>, sr);") + kTwoRRealize,
                       head + "    label f.s1: {\n"
                              "      for <f, 0, 1, x> in (" + m + ", " + l + ") serial {\n"
                              "        for <f, 0, 1, sr> in (0, 3 * 2) serial {\n"
                              "          let <f, 0, 1, s> = 0 + sr / 2 in { let <f, 0, 1, r> = 0 + sr % 2 in { " + store + " } }\n"
                              "        }\n"
                              "      }\n"
                              "    }\n  }\n}\n" + kTwoRRealize);
  }
}

// ---------------------------------------------------------------- restrictions
namespace {
// Rejected at the start of `needle` (a directive, or the name the error is about).
void rejected_at(const std::string& src, const std::string& needle, const std::string& message) {
  test::check_schedule_rejected(src, test::position_of(src, needle), message);
}
}  // namespace

TEST_CASE("loops phase: every restriction rejects the directive, located and named", "[schedule]") {
  auto thesis = [](const std::string& d) { return kThesis + sched(d) + kThesisRealize; };
  auto plane = [](const std::string& d) { return kPlane + sched(d) + kPlaneRealize; };
  auto blur = [](const std::string& d) { return kBlur + sched(d) + kBlurRealize; };
  auto twor = [](const std::string& d) { return kTwoR + sched(d) + kTwoRRealize; };
  SECTION("the loop must exist; the message lists the func's loops") {
    rejected_at(thesis("split(<f, 0, 0, y>, yo, yi, 2, guard);"), "split", "names loop <f, 0, 0, y>, which does not exist");
    rejected_at(thesis("swap(<f, 0, 1, x>);"), "swap", "func 'f' has the loops <f, 0, 0, x>");
    rejected_at(thesis("traverse(<g, 0, 0, y>, parallel);"), "traverse", "func 'g' has the loops <g, 0, 0, x>");
    rejected_at(thesis("fuse(<f, 0, 0, xo>, t);"), "fuse", "does not exist");
  }
  SECTION("new names must be fresh") {
    rejected_at(plane("split(<f, 0, 0, x>, y, xi, 2, guard);"), "y, xi",
                "'y' is not a fresh name, it is already a pure variable of func 'f'");
    rejected_at(plane("split(<f, 0, 0, x>, xo, xo, 2, guard);"), "split", "both 'xo'");
    rejected_at(blur("split(<h, 0, 0, x>, xo, w, 2, guard);"), "w, 2, guard", "a parameter of the pipeline");
    rejected_at(blur("split(<h, 0, 0, x>, xo, r, 2, guard);"), "r, 2, guard", "a reduction variable of func 'h'");
    rejected_at(plane("split(<f, 0, 0, x>, xo, x_min, 2, guard);"), "x_min, 2", "a window variable");
    rejected_at(plane("split(<f, 0, 0, x>, xo, xi, 2, guard);\nfuse(<f, 0, 0, y>, xi);"), "xi);",
                "the variable of loop <f, 0, 0, xi>");
    rejected_at(thesis("split(<f, 0, 0, x>, xo, xi, 2, guard);\nsplit(<f, 0, 0, xi>, xio, xo, 2, guard);"), "xo, 2",
                "'xo' is not a fresh name, it is already the variable of loop <f, 0, 0, xo>");
    // A name rebound by a let of the stage (split's `let <f, 0, 0, xo> = ...`) is taken too.
    rejected_at(thesis("split(<f, 0, 0, x>, xo, xi, 2, guard);\nsplit(<f, 0, 0, xo>, xoo, xoi, 2, guard);\n"
                       "split(<f, 0, 0, xi>, xo, xii, 2, guard);"),
                "xo, xii", "'xo' is not a fresh name, it is already bound by a let in its stage");
  }
  SECTION("names are fresh within their <func, spec, stage> only, as in Halide") {
    // Every func and stage may use xo, xi; a split may reuse another func's pure variable.
    CHECK_NOTHROW(schedule_pipeline(parse_valid(thesis("split(<f, 0, 0, x>, xo, xi, 2, guard);\n"
                                                       "split(<g, 0, 0, x>, xo, xi, 2, guard);"))));
    CHECK_NOTHROW(schedule_pipeline(parse_valid(blur("split(<h, 0, 0, x>, xo, xi, 2, guard);\n"
                                                     "split(<h, 0, 1, x>, xo, xi, 2, guard);\n"
                                                     "split(<g, 0, 1, r>, xo, xi, 2, guard);"))));
    CHECK_NOTHROW(schedule_pipeline(parse_valid(thesis("split(<f, 0, 0, x>, xo, xi, 2, guard);\n"
                                                       "fuse(<f, 0, 0, xo>, xo2);\n"
                                                       "split(<g, 0, 0, x>, xo2, y, 2, guard);"))));
  }
  SECTION("a constant split factor must be positive") {
    rejected_at(thesis("split(<f, 0, 0, x>, xo, xi, 0, guard);"), "split", "the factor 0 is 0, but it must be > 0");
    rejected_at(thesis("split(<f, 0, 0, x>, xo, xi, 1 - 3, guard);"), "split", "the factor 1 - 3 is -2, but it must be > 0");
  }
  SECTION("shift and round only on pure stages (docs/semantics-decisions.md, reading 15)") {
    rejected_at(blur("split(<g, 0, 1, x>, xo, xi, 2, shift);"), "split",
                "tail strategy 'shift' is allowed only on pure stages");
    rejected_at(blur("split(<h, 0, 1, y>, yo, yi, 2, round);"), "split",
                "but loop <h, 0, 1, y> belongs to update stage 1 of 'h'; use 'guard'");
    // The pure stage of a func with updates takes any tail strategy.
    for (const char* tail : {"shift", "round"})
      CHECK_NOTHROW(schedule_pipeline(
          test::parse_valid(blur(std::string("split(<g, 0, 0, x>, xo, xi, 2, ") + tail + ");"))));
  }
  SECTION("fuse: the loop immediately inside, both pure or both reduction") {
    rejected_at(plane("fuse(<f, 0, 0, x>, t);"), "fuse", "to have exactly one loop of the same stage as its body");
    rejected_at(blur("fuse(<g, 0, 1, x>, t);"), "fuse",
                "loop <g, 0, 1, x> (pure) and loop <g, 0, 1, r> (reduction): both loops must be pure or both "
                "reduction");
    rejected_at(twor("split(<f, 0, 1, s>, so, si, 2, guard);\nfuse(<f, 0, 1, x>, t);"), "fuse",
                "(pure) and loop <f, 0, 1, so> (reduction)");
  }
  SECTION("swap: the loop immediately inside, not both reduction loops") {
    rejected_at(plane("swap(<f, 0, 0, x>);"), "swap", "to have exactly one loop of the same stage as its body");
    rejected_at(twor("swap(<f, 0, 1, s>);"), "swap", "loops <f, 0, 1, s> and <f, 0, 1, r>: both are reduction loops");
    // Derived names keep their purity (Def. 2.16): ro and ri come from the reduction r.
    rejected_at(blur("split(<g, 0, 1, r>, ro, ri, 2, guard);\nswap(<g, 0, 1, ro>);"), "swap",
                "both are reduction loops");
  }
  SECTION("traverse: parallel and vectorized only on pure loops") {
    rejected_at(blur("traverse(<g, 0, 1, r>, parallel);"), "traverse",
                "'traverse' of loop <g, 0, 1, r> as parallel: it is a reduction loop");
    rejected_at(blur("traverse(<h, 0, 1, r>, vectorized);"), "traverse", "as vectorized: it is a reduction loop");
    rejected_at(blur("split(<g, 0, 1, r>, ro, ri, 2, guard);\ntraverse(<g, 0, 1, ri>, parallel);"), "traverse",
                "<g, 0, 1, ri> as parallel: it is a reduction loop");
    CHECK_NOTHROW(schedule_pipeline(parse_valid(blur("traverse(<g, 0, 1, r>, unrolled);"))));
    CHECK_NOTHROW(schedule_pipeline(parse_valid(blur("split(<g, 0, 1, x>, xo, xi, 2, guard);\n"
                                                     "traverse(<g, 0, 1, xi>, parallel);"))));
  }
}

TEST_CASE("swap and fuse: the inner loop's bounds may not mention the outer variable", "[schedule]") {
  // Lowering never builds such a nest; a hand-written Tgt? program does.
  Program p = parse_valid(kPlane + sched("swap(<f, 0, 0, y>);\nfuse(<f, 0, 0, y>, t);") + kPlaneRealize);
  TgtProgram t = parse_tgt(kPlaneHead + R"(  label f: { label f.s0: {
    for <f, 0, 0, y> in (0, 3) serial {
      for <f, 0, 0, x> in (0, y + 1) serial { if (1) { f^(0, *)[x, y] <- x + 10 * y; } }
    }
  } }
}
)",
                           "<t>");
  const auto& ds = *p.schedule;
  try {
    apply_swap(t, ds[0], p);
    FAIL("swapped");
  } catch (const InputError& e) {
    CHECK(where(e.diagnostics()[0].loc) == "5:1");
    CHECK_THAT(e.diagnostics()[0].message, Catch::Contains("mention the outer variable 'y'"));
  }
  try {
    apply_fuse(t, ds[1], p);
    FAIL("fused");
  } catch (const InputError& e) {
    CHECK(where(e.diagnostics()[0].loc) == "6:1");
    CHECK_THAT(e.diagnostics()[0].message, Catch::Contains("mention the outer variable 'y'"));
  }
}

// ---------------------------------------------------------------- end to end
TEST_CASE("loops phase end to end: thesis §2.2 with split, completed by β0, satisfies the theorems", "[schedule]") {
  SECTION("split by 3, guard (fig. 2.2)") {
    OracleVerdict v = oracle(kThesis + sched("split(<f, 0, 0, x>, xo, xi, 3, guard);") + kThesisRealize);
    CHECK(v.run.stats["f"].stores == 6);
    CHECK(v.run.stats["g"].stores == 7);
  }
  SECTION("split by 4, round (fig. 2.3): f computed on (0, 8), g allocated on (0, 9)") {
    OracleVerdict v = oracle(kThesis + sched("split(<f, 0, 0, x>, xo, xi, 4, round);") + kThesisRealize);
    FuncStats& f = v.run.stats["f"];
    FuncStats& g = v.run.stats["g"];
    CHECK(f.stores == 8);  // f's loop covers (0, 8)
    REQUIRE(f.allocations.size() == 1);
    auto [fmin, flen] = f.allocations[0].first[0];
    CHECK(fmin.small() <= 0);
    CHECK(fmin.small() + flen.small() >= 8);
    REQUIRE(g.allocations.size() == 1);
    auto [gmin, glen] = g.allocations[0].first[0];
    CHECK(gmin.small() <= 0);
    CHECK(gmin.small() + glen.small() >= 9);
    CHECK(g.stores >= 7);
  }
  SECTION("split by 4, shift: the last tile recomputes, nothing overcomputed") {
    OracleVerdict v = oracle(kThesis + sched("split(<f, 0, 0, x>, xo, xi, 4, shift);") + kThesisRealize);
    CHECK(v.run.stats["f"].stores == 8);  // 2 tiles of 4, the second shifted to (2, 4)
  }
  SECTION("split of a split, and a factor larger than the window") {
    oracle(kThesis + sched("split(<f, 0, 0, x>, xo, xi, 2, guard);\nsplit(<f, 0, 0, xo>, xoo, xoi, 2, round);") +
           kThesisRealize);
    oracle(kThesis + sched("split(<f, 0, 0, x>, xo, xi, 10, guard);\nsplit(<g, 0, 0, x>, go, gi, 3, round);") +
           kThesisRealize);
  }
}

TEST_CASE("loops phase end to end: a non-constant factor runs, or fails its assertion", "[schedule]") {
  Program p = parse_valid("pipeline f(k) { fun f(x) = { x } }\n" + sched("split(<f, 0, 0, x>, xo, xi, k, guard);") +
                          "realize (k = 2) over (0, 7)\n");
  OracleVerdict ok = oracle(p, resolve_input(p, {}));
  CHECK_FALSE(ok.assertion_failed);
  Input zero = resolve_input(p, {});
  zero.params[0] = Value(0);
  OracleVerdict v = oracle(p, zero);
  CHECK(v.assertion_failed);
}

TEST_CASE("loops phase end to end: blur with split, swap, fuse and traverse", "[schedule]") {
  const char* schedules[] = {
      "split(<h, 0, 1, y>, yo, yi, 4, guard);\nswap(<h, 0, 1, yi>);",
      "fuse(<h, 0, 0, y>, t);\ntraverse(<h, 0, 0, t>, parallel);",
      "split(<g, 0, 1, x>, xo, xi, 3, guard);\nswap(<g, 0, 1, y>);\ntraverse(<g, 0, 1, xo>, parallel);",
      "split(<g, 0, 1, r>, ro, ri, 2, guard);\nfuse(<g, 0, 1, ro>, rr);\ntraverse(<g, 0, 1, rr>, unrolled);",
      "split(<f, 0, 0, x>, xo, xi, 4, round);\ntraverse(<f, 0, 0, xi>, vectorized);\nswap(<f, 0, 0, y>);",
      "split(<f, 0, 0, y>, yo, yi, 4, shift);\nfuse(<f, 0, 0, yi>, t);\ntraverse(<f, 0, 0, yo>, parallel);",
      "fuse(<g, 0, 1, y>, t);\nsplit(<g, 0, 1, t>, to, ti, 5, guard);\nswap(<g, 0, 1, ti>);\n"
      "traverse(<g, 0, 1, to>, parallel);",
      "split(<h, 0, 1, x>, xo, xi, w + 2, guard);\nswap(<h, 0, 1, y>);\nfuse(<h, 0, 1, xo>, t);",
  };
  for (const char* s : schedules) {
    SECTION(s) { oracle(kBlur + sched(s) + kBlurRealize); }
  }
}

TEST_CASE("loops phase: the sched_* examples schedule and satisfy the theorems", "[schedule]") {
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "/examples")) {
    std::string name = entry.path().stem().string();
    if (entry.path().extension() != ".halo" || name.rfind("sched_", 0) != 0) continue;
    SECTION(name) {
      Program p = parse_file(entry.path().string());
      check_program(p);
      oracle(p, resolve_input(p, {}));
    }
    ++seen;
  }
  CHECK(seen >= 6);
}

TEST_CASE("loops phase: each specialization is scheduled on its own, with the same names", "[schedule]") {
  const std::string src = "pipeline f(k) { fun f(x) = { x + k } }\n" +
                          sched("specialize(f, k > 0);\nsplit(<f, 0, 0, x>, xo, xi, 2, guard);\n"
                                "split(<f, 1, 0, x>, xo, xi, 3, round);\ntraverse(<f, 1, 0, xo>, parallel);") +
                          "realize (k = 1) over (0, 5)\n";
  Program p = parse_valid(src);
  oracle(p, resolve_input(p, {}));
  Input other = resolve_input(p, {});
  other.params[0] = Value(0);
  oracle(p, other);
  // Within one specialization the names are still taken.
  rejected_at("pipeline f(k) { fun f(x) = { x + k } }\n" +
                  sched("specialize(f, k > 0);\nsplit(<f, 0, 0, x>, xo, xi, 2, guard);\n"
                        "split(<f, 0, 0, xi>, xo, yi, 2, guard);") +
                  "realize (k = 1) over (0, 5)\n",
              "xo, yi", "the variable of loop <f, 0, 0, xo>");
}

// The specialization, compute and storage phases of the schedule (thesis §2.8.1, §2.8.3,
// §2.8.4; SEMANTICS.md "Scheduling directives"; schedule/placement.cpp). Each rewrite is
// compared with a target program derived by hand from SEMANTICS.md's reading; each
// restriction (Lemma 2.5 dominance, the output func, unknown loops, a loop that exists in
// only one specialization of the consumer (TARGETS.md), at most one specialize per func,
// computing inside a parallel loop without storing inside it) has one rejected use; and
// scheduled programs are completed with β0 and checked by the oracle end to end.
#include "bounds/beta0.hpp"
#include "interp/input.hpp"
#include "interp/small_step.hpp"
#include "lower/lower.hpp"
#include "oracle/theorems.hpp"
#include "schedule/schedule.hpp"
#include "semantics/parser.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/tgt_printer.hpp"
#include "semantics/validity.hpp"

#include <catch2/catch.hpp>
#include "tests/support.hpp"
#include "tests/cli_support.hpp"

using namespace halo;
using halo::test::parse_valid;

namespace {


using test::check_schedules_to;

// The schedule must be rejected by directive number `k` (1-based line of the schedule is
// not known here, so we check the message and that it is located at that directive).
void check_rejected(const std::string& halo, size_t k, const std::string& message) {
  Program p = parse_valid(halo);
  REQUIRE(p.schedule);
  REQUIRE(k < p.schedule->size());
  test::require_error([](const std::string& src) { schedule_pipeline(parse_valid(src)); }, halo, "<test>",
                      test::where((*p.schedule)[k].loc), message);
}

// Schedule, complete with β0, check both theorems on the program's realize input; returns
// the small-step run of the completed program.
RunResult end_to_end(const Program& p, const InputOverrides& over = {}) {
  TgtProgram t = schedule_pipeline(p);
  Beta0Completion c = complete_with_beta0(t);
  INFO("scheduled:\n" << print_tgt(t) << "β0: " << c.reason);
  REQUIRE(c.ok);
  Input in = resolve_input(p, over);
  OracleVerdict v = check_theorems(p, c.program, in, Limits{});
  INFO(v.detail);
  CHECK(v.holds());
  return run_tgt(c.program, in, Limits{});
}

uint64_t allocation_count(const RunResult& r, const std::string& f) {
  uint64_t n = 0;
  auto it = r.stats.find(f);
  if (it != r.stats.end())
    for (const auto& a : it->second.allocations) n += a.second;
  return n;
}

const std::string kThesis = R"(
pipeline f() {
  fun g(x) = { x * x + 1 }
  fun f(x) = { g[x] + g[x + 1] }
}
)";
}  // namespace

TEST_CASE("compute_at moves the producer's label to the start of the consumer's loop", "[schedule]") {
  check_schedules_to(kThesis + "schedule { compute_at(g, <f, 0, 0, x>); }\nrealize () over (0, 6)\n", R"(
target pipeline f() over (x_min, x_len) {
  allocate g((?mem<g, x>.min, ?mem<g, x>.len));
  allocate f((?mem<f, x>.min, ?mem<f, x>.len));
  label f: {
    label f.s0: {
      for <f, 0, 0, x> in (?cpu<f, *, 0, x>.min, ?cpu<f, *, 0, x>.len) serial {
        label g: {
          label g.s0: {
            for <g, 0, 0, x> in (?cpu<g, *, 0, x>.min, ?cpu<g, *, 0, x>.len) serial {
              if (1) { g^(0, *)[x] <- x * x + 1; }
            }
          }
        }
        if (1) { f^(0, *)[x] <- g^(0, *)[x] + g^(0, *)[x + 1]; }
      }
    }
  }
}
realize () over (0, 6)
)");
}

TEST_CASE("store_at moves the producer's allocate to the start of the consumer's loop", "[schedule]") {
  check_schedules_to(kThesis +
                         "schedule { compute_at(g, <f, 0, 0, x>); store_at(g, <f, 0, 0, x>); }\n"
                         "realize () over (0, 6)\n",
                     R"(
target pipeline f() over (x_min, x_len) {
  allocate f((?mem<f, x>.min, ?mem<f, x>.len));
  label f: {
    label f.s0: {
      for <f, 0, 0, x> in (?cpu<f, *, 0, x>.min, ?cpu<f, *, 0, x>.len) serial {
        allocate g((?mem<g, x>.min, ?mem<g, x>.len));
        label g: {
          label g.s0: {
            for <g, 0, 0, x> in (?cpu<g, *, 0, x>.min, ?cpu<g, *, 0, x>.len) serial {
              if (1) { g^(0, *)[x] <- x * x + 1; }
            }
          }
        }
        if (1) { f^(0, *)[x] <- g^(0, *)[x] + g^(0, *)[x + 1]; }
      }
    }
  }
}
realize () over (0, 6)
)");
}

// A two-stage func: stage 0 is not the last, so its loops, holes, store and the update's
// self-reference take the copy's index; stage 1 (the last) keeps the shared `*`.
const std::string kTwoStage = R"(
pipeline f(n) {
  fun g(x) = { x; (x) <- g[x] * 2 }
  fun f(x) = { g[x] + 1 }
}
)";

TEST_CASE("specialize copies the computation, one copy per condition plus the default", "[schedule]") {
  check_schedules_to(kTwoStage + "schedule { specialize(g, n > 3, n == 0); }\nrealize (n = 5) over (0, 4)\n", R"(
target pipeline f(n) over (x_min, x_len) {
  allocate g((?mem<g, x>.min, ?mem<g, x>.len));
  label g: {
    if (n > 3) {
      label g.j1: {
        label g.s0: {
          for <g, 1, 0, x> in (?cpu<g, 1, 0, x>.min, ?cpu<g, 1, 0, x>.len) serial {
            if (1) { g^(0, 1)[x] <- x; }
          }
        }
        label g.s1: {
          for <g, 1, 1, x> in (?cpu<g, *, 1, x>.min, ?cpu<g, *, 1, x>.len) serial {
            if (1) { g^(1, *)[x] <- g^(0, 1)[x] * 2; }
          }
        }
      }
    } else {
      if (n == 0) {
        label g.j2: {
          label g.s0: {
            for <g, 2, 0, x> in (?cpu<g, 2, 0, x>.min, ?cpu<g, 2, 0, x>.len) serial {
              if (1) { g^(0, 2)[x] <- x; }
            }
          }
          label g.s1: {
            for <g, 2, 1, x> in (?cpu<g, *, 1, x>.min, ?cpu<g, *, 1, x>.len) serial {
              if (1) { g^(1, *)[x] <- g^(0, 2)[x] * 2; }
            }
          }
        }
      } else {
        label g.j0: {
          label g.s0: {
            for <g, 0, 0, x> in (?cpu<g, 0, 0, x>.min, ?cpu<g, 0, 0, x>.len) serial {
              if (1) { g^(0, 0)[x] <- x; }
            }
          }
          label g.s1: {
            for <g, 0, 1, x> in (?cpu<g, *, 1, x>.min, ?cpu<g, *, 1, x>.len) serial {
              if (1) { g^(1, *)[x] <- g^(0, 0)[x] * 2; }
            }
          }
        }
      }
    }
  }
  allocate f((?mem<f, x>.min, ?mem<f, x>.len));
  label f: {
    label f.s0: {
      for <f, 0, 0, x> in (?cpu<f, *, 0, x>.min, ?cpu<f, *, 0, x>.len) serial {
        if (1) { f^(0, *)[x] <- g^(1, *)[x] + 1; }
      }
    }
  }
}
realize (n = 5) over (0, 4)
)");
}

// ---------------------------------------------------------------- rejected uses

const std::string kThree = R"(
pipeline f(n) {
  fun h(x) = { x + n }
  fun g(x) = { h[x] * 2 }
  fun f(x) = { g[x] + h[x] }
}
)";

TEST_CASE("compute_at and store_at reject a loop that does not exist, listing the func's loops", "[schedule]") {
  check_rejected(kThesis + "schedule { compute_at(g, <f, 0, 0, y>); }\n", 0,
                 "names loop <f, 0, 0, y>, which does not exist in the program (Lemma 2.4");
  check_rejected(kThesis + "schedule { store_at(g, <f, 0, 0, y>); }\n", 0, "the loops of 'f' are <f, 0, 0, x>");
}

TEST_CASE("compute_at and store_at reject moving the output func", "[schedule]") {
  check_rejected(kThesis + "schedule { compute_at(f, <g, 0, 0, x>); }\n", 0, "it is the output func");
  check_rejected(kThesis + "schedule { store_at(f, <g, 0, 0, x>); }\n", 0, "it is the output func");
}

TEST_CASE("compute_at rejects a move that leaves an access to the producer before its computation", "[schedule]") {
  // f reads h outside g's loop, where h would now be computed.
  check_rejected(kThree + "schedule { compute_at(h, <g, 0, 0, x>); }\n", 0,
                 "the read of 'h' in 'f' (inside loop <f, 0, 0, x>) would not be preceded by the computation of 'h'");
  // g's computation inside its own loop.
  check_rejected(kThesis + "schedule { compute_at(g, <g, 0, 0, x>); }\n", 0, "part of 'g''s own computation");
}

TEST_CASE("store_at rejects an allocation that no longer precedes the computation", "[schedule]") {
  // g is still computed at the top level, before f's loop where its allocation would go.
  check_rejected(kThesis + "schedule { store_at(g, <f, 0, 0, x>); }\n", 0,
                 "the write of 'g' in 'g' (inside loop <g, 0, 0, x>) would not be preceded by 'allocate g'");
  // Stored inside the loop but computed at a deeper loop is fine; stored deeper than computed is not.
}

TEST_CASE("compute_at rejects a loop that exists in only one specialization of the consumer (TARGETS.md)",
          "[schedule]") {
  // x is split in copy 1 only: xo exists in one specialization, and copy 0 still reads h.
  const std::string src = R"(
pipeline f(n) {
  fun h(x) = { x + n }
  fun g(x) = { h[x] * 2 }
  fun f(x) = { g[x] }
}
schedule { specialize(g, n > 0); split(<g, 1, 0, x>, xo, xi, 2, guard); compute_at(h, <g, 1, 0, xo>); }
)";
  check_rejected(src, 2, "loop <g, 1, 0, xo> exists in only one specialization of 'g'");
  // <g, *, 0, xo> asks for the loop in every copy, and says which copy lacks it.
  std::string every = src;
  every.replace(every.find("<g, 1, 0, xo>)"), 13, "<g, *, 0, xo>");
  check_rejected(every, 2, "<g, 0, 0, xo> does not exist, so the loop is not in every specialization of 'g'");
}

// A loop in every specialization (semantics decision 19): the program of the test above
// with x split in both copies, so <g, *, 0, xo> exists and h is computed in each copy.
const std::string kEverySpec = R"(
pipeline f(n) {
  fun h(x) = { x + n }
  fun g(x) = { h[x] * 2 }
  fun f(x) = { g[x] }
}
)";

TEST_CASE("compute_at at one copy of a loop every specialization has suggests <g, *, i, v>", "[schedule]") {
  check_rejected(kEverySpec + "schedule { specialize(g, n > 0); compute_at(h, <g, 1, 0, x>); }\n", 1,
                 "write <g, *, 0, x> to compute 'h' in each of them, as Halide's LoopLevel(g, x) does");
}

TEST_CASE("compute_at(f, <g, *, i, v>) computes f in every specialization of g, each copy its own", "[schedule]") {
  Program p = parse_valid(kEverySpec + R"(
schedule {
  specialize(g, n > 0);
  split(<g, 1, 0, x>, xo, xi, 2, guard);
  split(<g, 0, 0, x>, xo, xi, 3, guard);
  compute_at(h, <g, *, 0, xo>);
}
realize (n = 4) over (0, 7)
)");
  TgtProgram t = schedule_pipeline(p);
  std::string text = print_tgt(t);
  INFO(text);
  // One computation of h per copy of g, at the start of that copy's xo loop; copy j's
  // holes, stores and the reads of g's copy j all carry specialization j (none is shared).
  CHECK(text.find("?cpu<h, 1, 0, x>.min") != std::string::npos);
  CHECK(text.find("?cpu<h, 0, 0, x>.min") != std::string::npos);
  CHECK(text.find("?cpu<h, *") == std::string::npos);
  CHECK(text.find("h^(0, 1)[x]") != std::string::npos);
  CHECK(text.find("h^(0, 0)[x]") != std::string::npos);
  CHECK(text.find("h^(0, *)") == std::string::npos);
  // Both specializations run, recompute h per strip and agree with the algorithm.
  for (int64_t n : {4, -2}) {
    RunResult r = end_to_end(p, InputOverrides{{"n=" + std::to_string(n)}, {}});
    CHECK(r.status == RunStatus::Ok);
    CHECK(allocation_count(r, "h") == 1);  // stored at root: one buffer for every strip
    CHECK(r.stats.at("h").stores >= 7);
  }
}

TEST_CASE("copies in every specialization compose: chains, nesting and any directive order", "[schedule]") {
  const std::string pipe = R"(
pipeline f(n) {
  fun a(x) = { x * 3 + n }
  fun h(x) = { a[x - 1] + a[x + 1] }
  fun g(x) = { h[x] * 2 + a[x] }
  fun f(x) = { g[x] }
}
)";
  // a is read by both h and g: computed per copy beside h, listed before or after it.
  for (const char* order : {"compute_at(a, <g, *, 0, xo>); compute_at(h, <g, *, 0, xo>);",
                            "compute_at(h, <g, *, 0, xo>); compute_at(a, <g, *, 0, xo>);",
                            // a inside h's loop, h copied afterwards: a is copied with it
                            "compute_at(a, <h, 0, 0, x>); compute_at(h, <g, *, 0, xo>);"}) {
    INFO(order);
    std::string src = pipe + "schedule { specialize(g, n > 0); split(<g, 1, 0, x>, xo, xi, 2, guard); "
                             "split(<g, 0, 0, x>, xo, xi, 4, round); " +
                      order + " }\nrealize (n = 2) over (-3, 9)\n";
    Program p = parse_valid(src);
    if (std::string(order).find("<h, 0, 0, x>") != std::string::npos) {
      // g reads a outside h's loop, so a in h's loop does not dominate g's read.
      check_rejected(src, 3, "would not be preceded by the computation of 'a'");
      continue;
    }
    for (int64_t n : {2, -1}) end_to_end(p, InputOverrides{{"n=" + std::to_string(n)}, {}});
  }
  // Nesting: h in every copy of g, then a at h's loop in every copy of h.
  Program nested = parse_valid(pipe + R"(
schedule {
  specialize(g, n > 0);
  split(<g, 1, 0, x>, xo, xi, 2, guard);
  split(<g, 0, 0, x>, xo, xi, 4, guard);
  compute_at(h, <g, *, 0, xo>);
  compute_at(a, <g, *, 0, xo>);
}
realize (n = 2) over (0, 9)
)");
  for (int64_t n : {2, -1}) end_to_end(nested, InputOverrides{{"n=" + std::to_string(n)}, {}});
}

TEST_CASE("'*' is a loop in every specialization for compute_at only, and the copied func may not be specialized",
          "[schedule]") {
  test::require_error([](const std::string& s) { parse_valid(s); },
                      kEverySpec + "schedule { split(<g, *, 0, x>, xo, xi, 2, guard); }\n", "<test>", "7:18",
                      "'*' (the loop in every specialization) is accepted only by compute_at");
  check_rejected(kEverySpec + "schedule { specialize(g, n > 0); specialize(h, n > 1); compute_at(h, <g, *, 0, x>); }\n",
                 2, "'h' (or a func computed inside it) is specialized itself");
  // Without a specialization, <g, *, i, v> is the loop of copy 0.
  Program p = parse_valid(kEverySpec + "schedule { compute_at(h, <g, *, 0, x>); }\nrealize (n = 1) over (0, 5)\n");
  end_to_end(p);
}

TEST_CASE("specialize rejects a second specialization of the same func", "[schedule]") {
  check_rejected(kTwoStage + "schedule { specialize(g, n > 3); specialize(g, n > 4); }\n", 1,
                 "'g' is specialized a second time");
}

TEST_CASE("compute_at rejects computing inside a parallel loop without storing inside it", "[schedule]") {
  // traverse is written elsewhere (schedule/loops.cpp); the parallel loop is given by hand.
  Program p = parse_valid(kThesis + "schedule { compute_at(g, <f, 0, 0, x>); }\n");
  TgtProgram t = lower_pipeline(p);
  std::string text = print_tgt(t);
  auto at = text.find("serial", text.find("<f, 0, 0, x>"));
  REQUIRE(at != std::string::npos);
  text.replace(at, 6, "parallel");
  TgtProgram par = parse_tgt(text, "<test>");
  try {
    apply_compute_at(par, (*p.schedule)[0], p);
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.diagnostics()[0].message, Catch::Contains("computed inside the parallel loop <f, 0, 0, x> but "
                                                           "stored outside it"));
  }
  // With a later store_at of g at that loop, compute_at is accepted, and so is the store_at.
  Program q = parse_valid(kThesis + "schedule { compute_at(g, <f, 0, 0, x>); store_at(g, <f, 0, 0, x>); }\n");
  TgtProgram c = apply_compute_at(par, (*q.schedule)[0], q);
  TgtProgram s = apply_store_at(c, (*q.schedule)[1], q);
  CHECK(print_tgt(s).find("parallel {\n        allocate g") != std::string::npos);
}

// ---------------------------------------------------------------- end to end (β0 + oracle)

TEST_CASE("compute_at and store_at per iteration of f: β0 completion satisfies both theorems", "[schedule]") {
  Program p = parse_valid(kThesis +
                          "schedule { compute_at(g, <f, 0, 0, x>); store_at(g, <f, 0, 0, x>); }\n"
                          "realize () over (0, 6)\n");
  RunResult r = end_to_end(p);
  REQUIRE(r.status == RunStatus::Ok);
  // g is allocated once per iteration of f's loop over (0, 6).
  CHECK(allocation_count(r, "g") == 6);
  CHECK(allocation_count(r, "f") == 1);
  // The same output as the default schedule.
  Program d = parse_valid(kThesis + "realize () over (0, 6)\n");
  RunResult rd = end_to_end(d);
  CHECK(r.output.values == rd.output.values);
}

TEST_CASE("compute_at without store_at: g recomputed per iteration into one buffer", "[schedule]") {
  Program p = parse_valid(kThesis + "schedule { compute_at(g, <f, 0, 0, x>); }\nrealize () over (0, 6)\n");
  RunResult r = end_to_end(p);
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(allocation_count(r, "g") == 1);
}

TEST_CASE("specialize end to end: every specialization agrees with the algorithm", "[schedule]") {
  Program p = parse_valid(kTwoStage + "schedule { specialize(g, n > 3, n == 0); }\nrealize (n = 5) over (0, 4)\n");
  for (int64_t n : {5, 0, 2}) {
    InputOverrides over;
    over.params.push_back("n=" + std::to_string(n));
    INFO("n = " << n);
    RunResult r = end_to_end(p, over);
    CHECK(r.status == RunStatus::Ok);
  }
}

TEST_CASE("a specialized producer moves whole: compute_at and store_at after specialize", "[schedule]") {
  // All copies of g (the whole `label g`) move into f's loop (SEMANTICS.md: "all stages and
  // specializations").
  Program p = parse_valid(kTwoStage +
                          "schedule { specialize(g, n > 3); compute_at(g, <f, 0, 0, x>); store_at(g, <f, 0, 0, x>); }\n"
                          "realize (n = 5) over (0, 4)\n");
  for (const char* n : {"n=5", "n=1"}) {
    INFO(n);
    RunResult r = end_to_end(p, InputOverrides{{n}, {}});
    REQUIRE(r.status == RunStatus::Ok);
    CHECK(allocation_count(r, "g") == 4);
  }
}

TEST_CASE("placement does not depend on the order of compute_at directives", "[schedule]") {
  // h is read by g, g by f. Listing h's compute_at first used to be rejected (g, still at
  // the root, read h before h's new place); dominance is now checked on the schedule as a
  // whole, and the funcs computed at one loop are kept in pipeline order.
  const std::string src = R"(
pipeline f() {
  fun h(x) = { x + 1 }
  fun g(x) = { h[x] * 2 }
  fun f(x) = { g[x] + g[x + 1] }
}
)";
  const std::string realize = "realize () over (0, 5)\n";
  Program producer_first =
      parse_valid(src + "schedule { compute_at(h, <f, 0, 0, x>); compute_at(g, <f, 0, 0, x>); }\n" + realize);
  Program consumer_first =
      parse_valid(src + "schedule { compute_at(g, <f, 0, 0, x>); compute_at(h, <f, 0, 0, x>); }\n" + realize);
  TgtProgram a = schedule_pipeline(producer_first), b = schedule_pipeline(consumer_first);
  INFO(print_tgt(a) << "\n" << print_tgt(b));
  CHECK(same_tgt(a, b));
  std::string text = print_tgt(a);
  CHECK(text.find("label h:") < text.find("label g:"));
  end_to_end(producer_first);
  // Nested the other way round (h at g's loop, g at f's) in either order, too.
  Program nested = parse_valid(src + "schedule { compute_at(h, <g, 0, 0, x>); compute_at(g, <f, 0, 0, x>); }\n" +
                               realize);
  end_to_end(nested);
}

TEST_CASE("an invalid placement names the directive to move", "[schedule]") {
  // f reads h at its own loop, but h is computed inside g's loop: h's compute_at (the
  // first directive) is the one to change, whichever directive is checked last.
  const std::string src = R"(
pipeline f() {
  fun h(x) = { x + 1 }
  fun g(x) = { h[x] * 2 }
  fun f(x) = { g[x] + h[x] }
}
schedule { compute_at(h, <g, 0, 0, x>); compute_at(g, <f, 0, 0, x>); }
)";
  check_rejected(src, 0,
                 "compute_at(h, <g, 0, 0, x>) breaks dominance in the schedule as a whole (Lemma 2.5: f's "
                 "computation must precede every access to f outside it): the read of 'h' in 'f'");
  check_rejected(src, 0, "Move this directive to a loop that encloses every use of 'h'");
}

TEST_CASE("halo oracle --target halide@all: a producer computed at a loop of every specialization",
          "[schedule][halide][cli]") {
  // Halide accepts bx.compute_at(out, yo) when every specialization of out has yo; halo's
  // <out, *, 0, yo> is that placement, run in each installed Halide for both branches.
  for (const char* w : {"w=10", "w=3"}) {
    test::CliResult r = test::run_halo({"oracle", std::string(HALO_SOURCE_DIR) + "/examples/specialized_blur.halo",
                                        "--target", "halide@all", "--param", w});
    INFO(w << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("verdict: holds"));
    CHECK_THAT(r.out, Catch::Contains("14.0.0    pass"));
  }
}

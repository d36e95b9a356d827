// The Halide target (candidates/halide, docs/halide.md): the translation of every
// directive, the Int(32) model, the isolated child and its classification of every way
// Halide can fail, the memory check of intermediates, failure signatures, the CLI, and every
// bundled example run through the real Halide 14 compiler.
#include "fuzz/campaign.hpp"
#include "candidates/halide/emit_cpp.hpp"
#include "candidates/halide/candidate.hpp"
#include "fuzz/candidate_campaign.hpp"
#include "candidates/halide/halide_oracle.hpp"
#include "oracle/int32_model.hpp"
#include "support/isolate.hpp"
#include "candidates/halide/plan.hpp"
#include "candidates/halide/protocol.hpp"
#include "candidates/halide/versions.hpp"
#include "interp/fast_eval.hpp"
#include "schedule/schedule.hpp"
#include "support.hpp"
#include "tests/cli_support.hpp"

#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <unistd.h>

namespace halo {
namespace {

using halide::HalideOutcome;

}  // namespace

// Every directive of fig. 2.11 at once, valid in halo, and fine for Halide (also compiled
// as a reproducer by test_halide_repro.cpp).
extern const char* const kHalideAllDirectives;
const char* const kHalideAllDirectives = R"(pipeline out(n) {
  fun f(x, y) = { x * 3 + y }
  fun g(x, y) = {
    f[x, y] + n;
    rdom(r = (0, 3)) in (x, y) <- g[x, y] + f[x + r, y]
  }
  fun k(u) = { u * 2 }
  fun out(x, y) = { g[x, y] + g[x + 1, y] + k[x] }
}

schedule {
  specialize(g, n > 3);
  split(<out, 0, 0, x>, xo, xi, 4, round);
  split(<out, 0, 0, y>, yo, yi, 2, shift);
  swap(<out, 0, 0, yi>);
  traverse(<out, 0, 0, yi>, parallel);
  fuse(<out, 0, 0, xo>, t);
  traverse(<out, 0, 0, xi>, vectorized);
  traverse(<g, 1, 1, r>, unrolled);
  split(<g, 0, 1, x>, xo, xi, 2, guard);
  traverse(<out, 0, 0, yo>, serial);
  compute_at(k, <out, 0, 0, yo>);
  store_at(k, <out, 0, 0, yo>);
  bound(f, x, 0, 20);
  align_bounds(f, y, 2, 0);
  bound_extent(k, u, 16);
}

realize (n = 5) over (0, 10), (0, 5)
)";

namespace {
const char* const kAllDirectives = kHalideAllDirectives;

// g is bounded to (0, 4) but f needs it on (0, 7): Halide's runtime check fails, and so
// does halo's own completed program (bound's assertion).
const char* const kBoundTooSmall = R"(pipeline f() {
  fun g(x) = { x * x + 1 }
  fun f(x) = { g[x] + g[x + 1] }
}
schedule {
  bound(g, x, 0, 4);
}
realize () over (0, 6)
)";

// The outcomes these tests expect are Halide 14's (Debian's package, always installed);
// tests/test_halide_versions.cpp covers the other versions.
halide::HalideOptions fast_options() {
  halide::HalideOptions o;
  o.version = 14;
  o.timeout_seconds = 60;
  return o;
}

// The same, through the candidate interface (campaigns and `halo oracle --target`).
CandidateOptions fast_candidate_options() {
  CandidateOptions o;
  o.version = "14";
  o.timeout_seconds = 60;
  return o;
}

halide::HalideVerdict run_case(const Program& p, const halide::HalideOptions& o = fast_options()) {
  Input in = resolve_input(p, {});
  halide::HalideVerdict v = halide::run_halide_case(p, in, o);
  INFO(halide::describe_halide_verdict(v));
  return v;
}

halide::HalidePlan plan_of(const Program& p) {
  auto r = halide::translate_to_halide(p, resolve_input(p, {}));
  REQUIRE(std::holds_alternative<halide::HalidePlan>(r));
  return std::get<halide::HalidePlan>(r);
}

std::string emitted(const Program& p) {
  Input in = resolve_input(p, {});
  return halide::emit_reproducer_cpp(plan_of(p), evaluate_fast(p.pipeline, in, {}), {});
}

TEST_CASE("Halide translation: every directive maps to its Halide call, after the explicit default", "[halide]") {
  Program p = test::parse_valid(kAllDirectives);
  schedule_pipeline(p);  // halo accepts the schedule
  std::string cpp = emitted(p);
  INFO(cpp);
  // The formal default, stated for every func but the output (always root in Halide).
  for (const char* f : {"f_f", "f_g", "f_k"}) {
    CHECK_THAT(cpp, Catch::Contains(std::string(f) + ".compute_root();"));
    CHECK_THAT(cpp, Catch::Contains(std::string(f) + ".store_root();"));
  }
  CHECK_THAT(cpp, !Catch::Contains("f_out.compute_root()"));
  // specialize: every stage of g, with the same condition (Halide specializes per stage).
  CHECK_THAT(cpp, Catch::Contains("Stage s_g_1_0 = f_g.specialize((p_n > Expr(3)));"));
  CHECK_THAT(cpp, Catch::Contains("Stage s_g_1_1 = f_g.update(0).specialize((p_n > Expr(3)));"));
  // split with each tail strategy.
  CHECK_THAT(cpp, Catch::Contains("f_out.split(v_x, v_xo, v_xi, Expr(4), TailStrategy::RoundUp);"));
  CHECK_THAT(cpp, Catch::Contains("f_out.split(v_y, v_yo, v_yi, Expr(2), TailStrategy::ShiftInwards);"));
  CHECK_THAT(cpp, Catch::Contains("f_g.update(0).split(v_x, v_xo, v_xi, Expr(2), TailStrategy::GuardWithIf);"));
  // swap: the named loop becomes the inner of the two (after the splits the nest is
  // xi, xo, yi, yo innermost first, so yi's inner neighbour is xo).
  CHECK_THAT(cpp, Catch::Contains("f_out.reorder(v_yi, v_xo);"));
  // fuse: Halide takes (inner, outer, fused); its fused loop would inherit the inner
  // loop's parallel type, halo's is serial.
  CHECK_THAT(cpp, Catch::Contains("f_out.fuse(v_yi, v_xo, v_t);\n    f_out.serial(v_t);"));
  CHECK_THAT(cpp, Catch::Contains("f_out.parallel(v_yi);"));
  CHECK_THAT(cpp, Catch::Contains("f_out.vectorize(v_xi);"));
  CHECK_THAT(cpp, Catch::Contains("s_g_1_1.unroll(r_g_1[0]);"));  // r1 is the RDom's dimension 0
  CHECK_THAT(cpp, Catch::Contains("f_out.serial(v_yo);"));
  CHECK_THAT(cpp, Catch::Contains("f_k.compute_at(LoopLevel(f_out, v_yo));"));
  CHECK_THAT(cpp, Catch::Contains("f_k.store_at(LoopLevel(f_out, v_yo));"));
  CHECK_THAT(cpp, Catch::Contains("f_f.bound(v_x, Expr(0), Expr(20));"));
  CHECK_THAT(cpp, Catch::Contains("f_f.align_bounds(v_y, Expr(2), Expr(0));"));
  CHECK_THAT(cpp, Catch::Contains("f_k.bound_extent(v_u, Expr(16));"));
  // Each schedule call sits under the halo directive it comes from.
  CHECK_THAT(cpp, Catch::Contains("// halo: swap(<out, 0, 0, yi>)\n    f_out.reorder"));
  // And the whole thing runs on Halide with the reference's output.
  halide::HalideVerdict v = run_case(p);
  CHECK(v.outcome == HalideOutcome::Pass);
  CHECK(v.mem.loads > 0);
  CHECK(v.mem.out_of_bounds == 0);
}

TEST_CASE("Halide translation: integer semantics, predicates and the rdom's dimension order", "[halide]") {
  // Comparisons and logical operators are Bool in Halide and 0/1 integers in halo; a
  // predicate without reduction variables has no RDom::where.
  Program p = test::parse_valid(R"(pipeline f(a) {
  fun g(x) = { select(x % 3, (x < a) + (x == 2), !(x > 1) || a) }
  fun f(x) = {
    x / (x - 2);
    (x) <- f[x] * 2 if x > 3;
    rdom(r1 = (0, 2), r2 = (1, 3)) in (x) <- f[x] * 10 + r1 - r2 + g[x] if r1 < r2
  }
}
realize (a = 4) over (-3, 10)
)");
  std::string cpp = emitted(p);
  INFO(cpp);
  CHECK_THAT(cpp, Catch::Contains("select(((v_x % Expr(3)) != 0), (cast<int32_t>((v_x < p_a)) + "
                                  "cast<int32_t>((v_x == Expr(2)))), cast<int32_t>(((!(v_x > Expr(1))) || "
                                  "(p_a != 0))))"));
  CHECK_THAT(cpp, Catch::Contains("f_f(v_x) = select((v_x > Expr(3)), (f_f(v_x) * Expr(2)), f_f(v_x));"));
  CHECK_THAT(cpp, Catch::Contains("RDom r_f_2({{Expr(0), Expr(2)}, {Expr(1), Expr(3)}}, \"r1\");  // r1, r2"));
  CHECK_THAT(cpp, Catch::Contains("r_f_2.where((r_f_2[0] < r_f_2[1]));"));
  CHECK_THAT(cpp, Catch::Contains("(((f_f(v_x) * Expr(10)) + r_f_2[0]) - r_f_2[1])"));
  // Euclidean division by zero and negative operands: Halide agrees with halo.
  halide::HalideVerdict v = run_case(p);
  CHECK(v.outcome == HalideOutcome::Pass);
}

TEST_CASE("Halide: the Int(32) model keeps only cases whose every value fits", "[halide]") {
  auto model = [](const std::string& src) {
    Program p = test::parse_valid(src);
    return check_int32_model(p, resolve_input(p, {}));
  };
  auto in = model("pipeline f() { fun f(x) = { x * 65536 * 2 } } realize () over (0, 100)");
  CHECK(in.in_model);
  // The product leaves Int(32) in the middle of the expression, though not every operand does.
  auto mid = model("pipeline f() { fun f(x) = { x * 65536 * 65536 / 65536 } } realize () over (0, 100)");
  CHECK_FALSE(mid.in_model);
  CHECK_THAT(mid.why, Catch::Contains("x * 65536 * 65536"));
  // Accumulation: 10 updates of f * 10 + 1 stay below 2^31, twelve do not.
  auto acc = [&](int n) {
    return model(fmt::format("pipeline f() {{ fun f(x) = {{ 1; rdom(r = (0, {})) in (x) <- f[x] * 10 + 1 }} }} "
                             "realize () over (0, 2)",
                             n));
  };
  CHECK(acc(8).in_model);
  CHECK_FALSE(acc(12).in_model);
  // A func read beyond the window: its region is what the consumer's split may overcompute.
  auto split = [&](int factor) {
    return model(fmt::format("pipeline f() {{ fun g(x) = {{ x * 1000000 }} fun f(x) = {{ g[x] }} }} "
                             "schedule {{ split(<f, 0, 0, x>, xo, xi, {}, round); }} realize () over (0, 2140)",
                             factor));
  };
  CHECK(split(2).in_model);
  CHECK_FALSE(split(16).in_model);
  // INT32_MIN % -1 traps in hardware although its value, 0, fits.
  auto trap = model("pipeline f() { fun f(x) = { (0 - 2147483647 - 1) % (x - 1) } } realize () over (0, 1)");
  CHECK_FALSE(trap.in_model);
  // Out-of-model cases are never run, and say why.
  Program big = test::parse_valid("pipeline f() { fun f(x) = { x + 1099511627776 } } realize () over (0, 4)");
  halide::HalideVerdict v = run_case(big);
  CHECK(v.outcome == HalideOutcome::OutOfModel);
  CHECK_THAT(v.message, Catch::Contains("1099511627776"));
  CHECK(v.halide_target.empty());
  CHECK_FALSE(v.finding());
}

TEST_CASE("Halide: the isolated child reports crashes, hangs and exhausted memory", "[halide]") {

  IsolatedRun ok = run_isolated([](int fd) { return write_all(fd, "hello") ? 7 : 1; }, 10, 0);
  CHECK(ok.end == IsolatedRun::End::Exited);
  CHECK(ok.exit_code == 7);
  CHECK(ok.report == "hello");
  IsolatedRun crash = run_isolated(
      [](int) {
        std::raise(SIGSEGV);
        return 0;
      },
      10, 0);
  CHECK(crash.end == IsolatedRun::End::Signaled);
  CHECK(crash.signal == SIGSEGV);
  CHECK_THAT(signal_description(crash.signal), Catch::Contains("SIGSEGV"));
  IsolatedRun hang = run_isolated(
      [](int) {
        for (volatile bool forever = true; forever;) {
        }
        return 0;
      },
      0.2, 0);
  CHECK(hang.end == IsolatedRun::End::TimedOut);
  CHECK(hang.seconds < 5);
  IsolatedRun chatty = run_isolated(
      [](int) {
        std::fprintf(stderr, "the compiler says something\n");
        return 0;
      },
      10, 0);
  CHECK_THAT(chatty.output_tail, Catch::Contains("the compiler says something"));
}

TEST_CASE("Halide: each way Halide can fail is a classified outcome", "[halide]") {
  SECTION("a loop Halide cannot vectorize is not expressible, not a finding") {
    Program p = test::parse_valid(
        "pipeline f() { fun f(x) = { x * 2 } } schedule { traverse(<f, 0, 0, x>, vectorized); } "
        "realize () over (0, 8)");
    halide::HalideVerdict v = run_case(p);
    CHECK(v.outcome == HalideOutcome::NotExpressible);
    CHECK_THAT(v.detail, Catch::Contains("constant"));
    CHECK_FALSE(v.finding());
  }
  SECTION("a func computed inside a vectorized loop and stored outside it is not expressible") {
    // Found by a campaign (seed 2, case 117): Halide treats vectorized loops as parallel.
    Program p = test::parse_valid(
        "pipeline f1() { fun f0(x0) = { 0 } fun f1(x1) = { f0[0] } } "
        "schedule { traverse(<f1, 0, 0, x1>, vectorized); compute_at(f0, <f1, 0, 0, x1>); } realize () over (0, 1)");
    halide::HalideVerdict v = run_case(p);
    CHECK(v.outcome == HalideOutcome::NotExpressible);
    CHECK_THAT(v.detail, Catch::Contains("vectorized loop like a parallel one"));
    CHECK_FALSE(v.finding());
  }
  SECTION("a hang: Halide killed at the time limit") {
    Program p = test::parse_valid(kBoundTooSmall);
    halide::HalideOptions o = fast_options();
    o.timeout_seconds = 0.001;
    halide::HalideVerdict v = run_case(p, o);
    CHECK(v.outcome == HalideOutcome::Hang);
    CHECK(v.finding());
    CHECK_THAT(v.signature, Catch::StartsWith("hang:"));
  }
  SECTION("a failed runtime check that halo's own program fails too") {
    Program p = test::parse_valid(kBoundTooSmall);
    halide::HalideVerdict v = run_case(p);
    CHECK(v.outcome == HalideOutcome::AgreedAssertion);
    CHECK_THAT(v.message, Catch::Contains("do not cover required region"));
    CHECK_FALSE(v.finding());
  }
  SECTION("a bound on the output that does not contain R(z): both sides fail their check") {
    // The bounds query answers the bound's region; realized on R(z) (not assumed), Halide's
    // own check of the bound fails, as halo's does.
    Program p = test::parse_valid(
        "pipeline f() { fun f(x) = { x } } schedule { bound(f, x, 0, 1); } realize () over (0, 2)");
    halide::HalideVerdict v = run_case(p);
    CHECK(v.outcome == HalideOutcome::AgreedAssertion);
    CHECK_THAT(v.message, Catch::Contains("do not cover required region"));
    REQUIRE(!v.notes.empty());
    CHECK_THAT(v.notes.back(), Catch::Contains("realized on a buffer over R(z) instead"));
  }
  SECTION("a bound on a func stored outside the loop it is computed in is not expressible") {
    // halo bounds the region computed per iteration of x; Halide would bound the storage.
    Program p = test::parse_valid(
        "pipeline f() { fun g(x) = { x } fun f(x) = { g[x] } } "
        "schedule { compute_at(g, <f, 0, 0, x>); bound_extent(g, x, 1); } realize () over (0, 4)");
    halide::HalideVerdict v = run_case(p);
    CHECK(v.outcome == HalideOutcome::NotExpressible);
    CHECK(v.phase == "translate");
    CHECK_THAT(v.message, Catch::Contains("stored on"));
  }
  SECTION("an error value in P(z): nothing to compare") {
    Program p = test::parse_valid(
        "pipeline f() { fun f(x) = { 0; rdom(r = (0, 0 - 1)) in (x) <- f[x] + r } } realize () over (0, 3)");
    halide::HalideVerdict v = run_case(p);
    CHECK(v.outcome == HalideOutcome::ReferenceError);
  }
}

TEST_CASE("Halide: the memory check sees an access outside the realized region", "[halide]") {
  // Compiled without Halide's runtime assertions, the too-small bound is no longer
  // caught by Halide: f reads g outside the region realized for it (Theorem 2.1).
  Program p = test::parse_valid(kBoundTooSmall);
  halide::HalideOptions o = fast_options();
  o.target = "host-no_asserts";
  halide::HalideVerdict v = run_case(p, o);
  REQUIRE(v.outcome == HalideOutcome::MemoryViolation);
  CHECK(halide::is_violation(v.outcome));
  CHECK(v.mem.out_of_bounds > 0);
  REQUIRE_FALSE(v.mem.out_of_bounds_examples.empty());
  CHECK_THAT(v.mem.out_of_bounds_examples.front(), Catch::Contains("load of g at (4)"));
  CHECK_THAT(v.mem.out_of_bounds_examples.front(), Catch::Contains("[0, 3]"));
  CHECK_THAT(v.signature, Catch::StartsWith("memory_violation:memcheck_run:bound"));
  // Vector stores of 6 lanes: Halide pads each coordinate vector of a trace event to 8
  // lanes (docs/findings/halide14-trace-coordinates-padded.cpp); read as documented, these
  // stores would look out of bounds.
  Program vec = test::parse_valid(
      "pipeline g() { fun f(x, y) = { x; (x, y) <- f[x, y] + 1 } fun g(x) = { f[0, 4] + f[0, 9] } } "
      "schedule { traverse(<f, 0, 1, y>, vectorized); } realize () over (0, 1)");
  halide::HalideVerdict vv = run_case(vec);
  CHECK(vv.outcome == HalideOutcome::Pass);
  CHECK(vv.mem.stores >= 12);
  CHECK(vv.mem.out_of_bounds == 0);
  // Without the traced run, nothing sees it: the check is what finds it.
  o.memcheck = false;
  halide::HalideVerdict plain = run_case(p, o);
  CHECK(plain.outcome != HalideOutcome::MemoryViolation);
}

TEST_CASE("Halide: failure signatures group cases that fail the same way", "[halide]") {
  auto sig = [](const std::string& src) { return run_case(test::parse_valid(src)).signature; };
  std::string a = sig("pipeline f() { fun f(x) = { x * 2 } } schedule { traverse(<f, 0, 0, x>, vectorized); } "
                      "realize () over (0, 8)");
  std::string b = sig("pipeline out() { fun g(y) = { y } fun out(z) = { g[z] + 1 } } "
                      "schedule { traverse(<out, 0, 0, z>, vectorized); } realize () over (0, 16)");
  std::string c = sig("pipeline f() { fun f(x) = { x * 2 } } schedule { traverse(<f, 0, 0, x>, unrolled); } "
                      "realize () over (0, 8)");
  CHECK(a == b);
  CHECK(a != c);
  CHECK_THAT(a, Catch::StartsWith("not_expressible:compile:"));
}

TEST_CASE("Halide: every bundled example equals the reference or is a documented finding", "[halide]") {
  // Examples whose schedule Halide cannot express, with why (docs/halide.md).
  const std::map<std::string, HalideOutcome> documented = {
      // traverse(<g, 0, 1, r>, unrolled): r's extent 2w + 1 is not a constant for Halide.
      {"sched_traverse.halo", HalideOutcome::NotExpressible},
  };
  int ran = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(HALO_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() != ".halo") continue;
    std::string name = entry.path().filename().string();
    INFO(name);
    Program p = parse_file(entry.path().string());
    check_program(p);
    halide::HalideVerdict v = run_case(p);
    auto it = documented.find(name);
    CHECK(outcome_name(v.outcome) ==
          std::string(outcome_name(it == documented.end() ? HalideOutcome::Pass : it->second)));
    CHECK_FALSE(v.finding());
    ++ran;
  }
  CHECK(ran >= 10);
}

TEST_CASE("Halide: a short fixed-seed campaign, and every finding reproduces from its files", "[halide]") {
  // Findings in Halide are expected, not failures of this test; each must reproduce when
  // its minimized case is run again, from the files the campaign wrote.
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("halo_halide_campaign_" + std::to_string(getpid()));
  fuzz::CampaignOptions opts;
  opts.target = "halide";
  opts.seed = 20261121;
  // Two generated cases, and two of seed 1 that Halide 14 fails (case 7 segfaults in the
  // bounds query, case 110 computes a wrong output; docs/findings), so that the campaign
  // surely has findings to shrink, write, triage and reproduce.
  opts.inputs = {fuzz::campaign_case(20261121, 0), fuzz::campaign_case(20261121, 1), fuzz::campaign_case(1, 7),
                 fuzz::campaign_case(1, 110)};
  opts.cases = opts.inputs.size();
  opts.out_dir = dir.string();
  opts.shrink = fuzz::ShrinkBudget{8, 10};
  CandidateOptions ho = fast_candidate_options();
  const Candidate& halide_c = halide::halide_candidate();
  Limits lim = fuzz::default_case_limits();
  opts.complete_finding = [&](fuzz::FindingReport& f, const std::function<bool()>& stop) {
    fuzz::complete_candidate_finding(f, halide_c, ho, stop);
  };
  opts.complete_record_keys = {"signature"};
  fuzz::CampaignSummary s = fuzz::run_campaign(
      opts, [&](const Program& p) { return fuzz::check_candidate_case(halide_c, p, lim, ho); });
  CHECK(s.incomplete == 0);
  std::string text;
  nlohmann::json triage = fuzz::group_candidate_findings(s, true, text);
  INFO(text);
  CHECK(s.cases == 4);
  REQUIRE(s.findings.size() >= 2);
  CHECK(triage.size() >= 2);  // a crash and a wrong output are two signatures
  CHECK(triage.size() <= s.findings.size());
  bool crash = false, wrong_output = false;
  for (const fuzz::FindingReport& f : s.findings) {
    INFO(f.kind << ": " << f.detail);
    crash = crash || f.kind.rfind("halide-crash:", 0) == 0;
    wrong_output = wrong_output || f.kind.rfind("halide-wrong_output:", 0) == 0;
    CHECK(f.record["reproduced"] == true);
    CHECK(f.record["signature"].get<std::string>().rfind("unreproduced", 0) != 0);
    REQUIRE(std::filesystem::exists(f.halo_file));
    CHECK(std::filesystem::exists(std::filesystem::path(f.halo_file).replace_extension(".cpp")));
    Program again = parse_file(f.halo_file);
    check_program(again);
    CHECK(fuzz::check_candidate_case(halide_c, again, lim, ho).kind == f.kind);
  }
  CHECK(crash);
  CHECK(wrong_output);

  // A second campaign (another seed, the two failing cases again) writes into the same
  // directory: the directory's triage counts each signature once, with both campaigns.
  fuzz::CampaignOptions again_opts = opts;
  again_opts.seed = 7;
  again_opts.inputs = {fuzz::campaign_case(1, 7), fuzz::campaign_case(1, 110)};
  again_opts.cases = again_opts.inputs.size();
  fuzz::CampaignSummary s2 = fuzz::run_campaign(
      again_opts, [&](const Program& p) { return fuzz::check_candidate_case(halide_c, p, lim, ho); });
  std::string text2;
  nlohmann::json triage2 = fuzz::group_candidate_findings(s2, true, text2);
  std::string dir_text;
  nlohmann::json shared = fuzz::triage_findings_directory(dir.string(), dir_text);
  INFO(dir_text);
  CHECK(shared.size() == triage.size());
  size_t both = 0;
  for (const auto& g : shared) {
    INFO(g.dump());
    if (g["campaigns"].size() == 2) {
      ++both;
      CHECK(g["count"].get<size_t>() >= 2);
      CHECK(std::filesystem::exists(dir / g["representative"].get<std::string>()));
    }
  }
  CHECK(both == triage2.size());
  CHECK(std::filesystem::exists(dir / "triage.json"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("Halide: every finding in docs/findings still reproduces", "[halide]") {
  // Each documented Halide 14 finding, with the outcome and phase it was filed with.
  const std::map<std::string, std::string> documented = {
      {"halide14-bounds-query-segfault-rdom-predicate.halo", "halide-crash:bounds_query"},
      {"halide14-compile-segfault-zero-bound-extent-fused-update.halo", "halide-crash:compile"},
      {"halide14-internal-error-rdom-predicate-reads-producer.halo", "halide-internal_error:compile"},
      {"halide14-internal-error-compute-at-self-predicate.halo", "halide-internal_error:compile"},
      {"halide14-tracing-internal-error-unused-producer.halo", "halide-internal_error:memcheck_compile"},
      {"halide14-guaranteed-bound-failure-silent-1.halo", "halide-wrong_output:run"},
      {"halide14-guaranteed-bound-failure-silent-2.halo", "halide-wrong_output:run"},
      {"halide14-nonpositive-split-factor-parameter.halo", "halide-wrong_output:run"},
      {"halide14-nested-round-splits-output-too-small.halo", "halide-runtime_assertion:run"},
      {"halide-max-update-trimmed-loop.halo", "halide-wrong_output:run"},
      {"halide14-rfactor-split-update-wrong-output.halo", "halide-wrong_output:run"},
      {"halide14-sliding-window-inner-split-wrong-output.halo", "halide-wrong_output:run"},
      {"halide14-compute-with-siblings-wrong-output.halo", "halide-wrong_output:run"},
      {"halide-shift-pure-stage-of-updated-func-wrong-output.halo", "halide-wrong_output:run"},
      {"halide-predicate-stores-producer-overread.halo", "halide-memory_violation:memcheck_run"},
      {"halide-mul-shift-right-64-internal-error.halo", "halide-internal_error:compile"},
      {"halide-atomic-mutex-array-foreign-free.halo", "halide-memory_violation:run"},  // Li2018's schedule
      {"halide-simplifier-introduces-int32-overflow.halo", "halide-wrong_output:run"},
      {"halide-traced-vectorized-compute-at-wrong-output.halo", "halide-wrong_output:memcheck_run"},
      {"halide-atomic-traced-scatter-repeated-name.halo", "halide-internal_error:memcheck_compile"},
      {"halide-specialize-fail-rfactor-segfault.halo", "halide-crash:compile"},
      {"halide-bound-storage-unchecked-overrun.halo", "halide-wrong_output:run"},
      {"halide-prefetch-unused-func-internal-error.halo", "halide-internal_error:compile"},
      {"halide-atomic-vector-reduce-modulo-internal-error.halo", "halide-internal_error:compile"},
      {"halide-lerp-equal-values-strict-float-wrong-output.halo", "halide-wrong_output:run"},
      {"halide-signed-zero-constants-merged-wrong-output.halo", "halide-wrong_output:run"},
      // Not a finding in Halide 14 or 19: "newer:" checks it in the newest Halide installed.
      {"halide21-float-mod-not-strict-wrong-output.halo", "newer:halide-wrong_output:run"},
      // Halide 14 refuses both (constant folding); Halide 21 miscomputes the first.
      {"halide21-abs-select-int64-min-wrong-output.halo", "halide-rejected:compile"},
      {"halide-rounding-mul-shift-right-zero-shift-rejected.halo", "halide-rejected:compile"},
      // Not a finding in Halide 14: "newer:" checks it in the newest Halide installed.
      {"halide-abs-shift-left-63-rejected.halo", "newer:halide-rejected:compile"},
      {"halide-traced-saturating-abs-int64-wrong-output.halo", "newer:halide-wrong_output:memcheck_run"},
      {"halide-traced-lerp-pos-inf-handle-rejected.halo", "newer:halide-rejected:memcheck_compile"},
      {"halide-predicate-stores-round-producer-heap-overrun.halo", "newer:halide-memory_violation:run"},
      {"halide-ring-buffer-update-stage-wrong-output.halo", "newer:halide-wrong_output:run"},
      {"halide-fused-guarded-split-rdom-predicate-heap-overrun.halo", "newer:halide-memory_violation:run"},
      // Halide reads one loop past the end of a vector: a crash, or a garbage loop name.
      {"halide-ring-buffer-unit-inner-loop-crash.halo", "newer:halide-crash:compile|halide-internal_error:compile"},
  };
  Limits lim = fuzz::default_case_limits();
  CandidateOptions ho = fast_candidate_options();
  const Candidate& halide_c = halide::halide_candidate();
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(HALO_SOURCE_DIR) + "/docs/findings")) {
    if (entry.path().extension() != ".halo") continue;
    std::string name = entry.path().filename().string();
    INFO(name);
    auto it = documented.find(name);
    REQUIRE(it != documented.end());  // every finding file is listed here
    CHECK(std::filesystem::exists(std::filesystem::path(entry.path()).replace_extension(".cpp")));
    Program p = parse_file(entry.path().string());
    check_program(p);
    std::string expected = it->second;
    CandidateOptions o = ho;
    if (expected.rfind("newer:", 0) == 0) {
      expected = expected.substr(6);
      if (halide::newest_halide_version().major < 19) {
        WARN(name << " is a finding of Halide 19 and later, none of which is installed");
        ++seen;
        continue;
      }
      o.version = std::to_string(halide::newest_halide_version().major);
    }
    fuzz::CaseResult r = fuzz::check_candidate_case(halide_c, p, lim, o);
    INFO(r.detail);
    CHECK(r.is_finding());
    // "a|b": a finding whose outcome varies from run to run (an out-of-bounds read in Halide).
    bool as_documented = false;
    for (size_t from = 0; from <= expected.size();) {
      size_t bar = std::min(expected.find('|', from), expected.size());
      as_documented |= r.kind.rfind(expected.substr(from, bar - from), 0) == 0;
      from = bar + 1;
    }
    INFO(r.kind << " is not " << expected);
    CHECK(as_documented);
    ++seen;
  }
  CHECK(seen == int(documented.size()));
}

TEST_CASE("halo oracle --target halide: text, JSON and exit status", "[halide][cli]") {
  auto run = [](std::vector<std::string> args, std::string& out) {
    test::CliResult r = test::run_halo(std::move(args));
    out = r.out + r.err;
    return r.status;
  };
  std::string ex = std::string(HALO_SOURCE_DIR) + "/examples/thesis_2_2_tile3.halo";
  std::string out;
  CHECK(run({"oracle", ex, "--target", "halide"}, out) == 0);
  CHECK_THAT(out, Catch::Contains("pass"));
  CHECK(run({"oracle", ex, "--target", "halide", "--json", "--window", "0,9"}, out) == 0);
  auto j = nlohmann::json::parse(out.substr(0, out.find('\n')));
  CHECK(j["outcome"] == "pass");
  CHECK(j["verdict"] == "holds");
  CHECK(j["memcheck"]["loads"].get<int>() > 0);
  // A finding exits with 1 and names it.
  std::filesystem::path tmp = std::filesystem::temp_directory_path() / "halo_test_bound_too_small.halo";
  {
    std::ofstream f(tmp);
    f << kBoundTooSmall;
  }
  CHECK(run({"oracle", tmp.string(), "--target", "halide", "--halide-target", "host-no_asserts"}, out) == 1);
  CHECK_THAT(out, Catch::Contains("memory_violation"));
  // The reproducer goes to stdout with --emit-cpp -.
  CHECK(run({"oracle", ex, "--target", "halide", "--no-memcheck", "--emit-cpp", "-"}, out) == 0);
  CHECK_THAT(out, Catch::Contains("#include \"Halide.h\""));
  CHECK_THAT(out, Catch::Contains("f_g.compute_at(LoopLevel(f_f, v_xo));"));
  std::filesystem::remove(tmp);

  // Usage errors, not findings: a target string Halide does not know, and Halide flags
  // without --target halide (they would be ignored).
  CHECK(run({"oracle", ex, "--target", "halide", "--halide-target", "bogus"}, out) == 2);
  CHECK_THAT(out, Catch::Contains("not a Halide target string"));
  CHECK(run({"fuzz", "--target", "halide", "--halide-target", "x86-64-nosuchos", "--cases", "1"}, out) == 2);
  CHECK(run({"oracle", ex, "--emit-cpp", "-"}, out) == 2);
  CHECK_THAT(out, Catch::Contains("needs --target halide"));
  CHECK(run({"fuzz", "--cases", "1", "--triage"}, out) == 2);
  CHECK(run({"oracle", ex, "--no-memcheck"}, out) == 2);
}

TEST_CASE("halo oracle --target halide --no-memcheck: points equal to the fill value are said to be unjudged",
          "[halide][cli][types]") {
  // Half the points are 222, the byte the plain run fills the u8 output with: without the
  // traced run (its fill byte differs) they cannot be told from points Halide never wrote.
  std::filesystem::path tmp = std::filesystem::temp_directory_path() / "halo_test_fill_value.halo";
  std::ofstream(tmp) << "pipeline f() {\n  fun f(x) : u8 = { u8(222 - x % 2) }\n}\nrealize () over (0, 6)\n";
  test::CliResult fast = test::run_halo({"oracle", tmp.string(), "--target", "halide", "--no-memcheck", "--json"});
  INFO(fast.out << fast.err);
  REQUIRE(fast.status == 0);
  nlohmann::json j = nlohmann::json::parse(fast.out);
  REQUIRE(j["notes"].size() == 1);
  CHECK_THAT(j["notes"][0].get<std::string>(), Catch::StartsWith("3 output point(s) hold 222") &&
                                                    Catch::Contains("not judged"));
  test::CliResult full = test::run_halo({"oracle", tmp.string(), "--target", "halide", "--json"});
  REQUIRE(full.status == 0);
  CHECK(nlohmann::json::parse(full.out)["notes"].empty());
  std::filesystem::remove(tmp);
}

TEST_CASE("halo oracle --target halide --emit-cpp: a case with no Halide program keeps its verdict", "[halide][cli]") {
  // 2^40 does not fit Int(32): out of the model, which is not a finding, nor a verdict on
  // Halide (exit 5, "not run"); there is no reproducer to write, and halo says so instead
  // of failing.
  std::filesystem::path tmp = std::filesystem::temp_directory_path() / "halo_test_out_of_model.halo";
  {
    std::ofstream f(tmp);
    f << "pipeline f() { fun f(x) = { x + 1099511627776 } }\nrealize () over (0, 2)\n";
  }
  std::filesystem::path cpp = std::filesystem::temp_directory_path() / "halo_test_out_of_model.cpp";
  std::filesystem::remove(cpp);
  test::CliResult r = test::run_halo({"oracle", tmp.string(), "--target", "halide", "--emit-cpp", cpp.string()});
  CHECK(r.status == 5);
  CHECK_THAT(r.out, Catch::Contains("out_of_model"));
  CHECK_THAT(r.out, Catch::Contains("verdict: not run: Halide did not run the case"));
  CHECK_THAT(r.out, !Catch::Contains("holds"));
  CHECK_THAT(r.err, Catch::Contains("no reproducer written"));
  // Every version: the matrix says none ran, in text and JSON, with the same status.
  test::CliResult all = test::run_halo({"oracle", tmp.string(), "--target", "halide@all"});
  CHECK(all.status == 5);
  CHECK_THAT(all.out, Catch::Contains("verdict: not run: no Halide version ran the case"));
  test::CliResult js = test::run_halo({"oracle", tmp.string(), "--target", "halide@all", "--json"});
  CHECK(js.status == 5);
  nlohmann::json j = nlohmann::json::parse(js.out);
  CHECK(j["verdict"] == "not_run");
  CHECK(j["not_run"].size() == j["matrix"].size());
  for (const auto& row : j["matrix"]) CHECK(row["verdict"] == "not_run");
  // halo check --target halide says it before anything runs (exit 2), and accepts the
  // same program for halo's own pipeline, which computes in ℤ.
  test::CliResult pre = test::run_halo({"check", tmp.string(), "--target", "halide"});
  CHECK(pre.status == 2);
  CHECK_THAT(pre.err, Catch::Contains("Halide would not run this case as written (out_of_model)"));
  CHECK(test::run_halo({"check", tmp.string()}).status == 0);
  CHECK_FALSE(std::filesystem::exists(cpp));
  std::filesystem::remove(tmp);
}


TEST_CASE("Halide: a campaign minimizes the first findings of a signature and files the later ones as generated",
          "[halide]") {
  // Four programs that fail alike (the atomic scatter update Halide cannot compile traced,
  // docs/findings/halide-atomic-traced-scatter-repeated-name), each realizing a different
  // histogram size: one signature, four findings.
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("halo_halide_per_signature_" + std::to_string(getpid()));
  fuzz::CampaignOptions opts;
  opts.target = "halide";
  opts.cases = 4;
  opts.out_dir = dir.string();
  opts.shrink = fuzz::ShrinkBudget{4, 10, 2};
  int next = 0;
  opts.generator = [&](const fuzz::CaseSeed&) {
    return rc::shrinkable::just(test::parse_valid(fmt::format(R"(
pipeline hist(n) {{
  fun img(x) = {{ (x * 37 + 11) % 17 }}
  fun hist(b) = {{ 0; rdom(r = (0, n)) in (img[r] % 8) <- hist[img[r] % 8] + 1 }}
}}
schedule {{ atomic(<hist, 0, 1>); }}
realize (n = {}) over (0, 8)
)",
                                                              20 + next++)));
  };
  CandidateOptions ho = fast_candidate_options();
  const Candidate& halide_c = halide::halide_candidate();
  Limits lim = fuzz::default_case_limits();
  // Completed as `halo fuzz` completes them: the first two re-run on every version.
  opts.complete_record_keys = {"signature"};
  opts.complete_finding = [&](fuzz::FindingReport& f, const std::function<bool()>& stop) {
    fuzz::complete_candidate_finding(f, halide_c, ho, stop);
  };
  fuzz::CampaignSummary s = fuzz::run_campaign(
      opts, [&](const Program& p) { return fuzz::check_candidate_case(halide_c, p, lim, ho); });
  REQUIRE(s.findings.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    const fuzz::FindingReport& f = s.findings[i];
    INFO(i << ": " << f.kind << ": " << f.detail);
    CHECK_THAT(f.kind, Catch::StartsWith("halide-internal_error:memcheck_compile"));
    CHECK(f.record["case_signature"] == s.findings[0].record["case_signature"]);
    std::ifstream in(f.halo_file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(f.record.contains("signature"));
    if (i < 2) {
      CHECK(f.not_minimized.empty());
      CHECK_FALSE(f.record["shrink"].contains("not_minimized"));
      CHECK(f.record.contains("history"));
      CHECK_FALSE(f.record.contains("completion"));
    } else {
      // Not re-run on the other versions: the first minimized finding's signature, said so.
      CHECK(f.record["signature"] == s.findings[0].record["signature"]);
      CHECK_FALSE(f.record.contains("history"));
      CHECK_THAT(f.record["completion"].get<std::string>(), Catch::Contains("not re-run on the other versions"));
      std::ifstream json(f.json_file);
      CHECK(nlohmann::json::parse(json)["signature"] == f.record["signature"]);
      CHECK(f.record["shrink"]["not_minimized"].get<std::string>().find("in cases 0, 1 (at most 2 per signature") !=
            std::string::npos);
      CHECK_THAT(text, Catch::Contains("not minimized: its signature was minimized already"));
      CHECK(f.record["shrink"]["steps"] == 0);
    }
  }
  // Every finding minimized: the budget's 0.
  std::filesystem::remove_all(dir);
  next = 0;
  opts.shrink.per_signature = 0;
  opts.shrink.max_tries = 1;
  s = fuzz::run_campaign(opts, [&](const Program& p) { return fuzz::check_candidate_case(halide_c, p, lim, ho); });
  for (const fuzz::FindingReport& f : s.findings) CHECK(f.not_minimized.empty());
  std::filesystem::remove_all(dir);
}

// A campaign's windows of one program (fuzz --windows) share one compile in the worker;
// only a pass is decided so, anything else again in a fresh process.
TEST_CASE("Halide: cases that differ only in their window share one compile, and a failure is decided afresh",
          "[halide]") {
  const std::string algorithm = R"(
pipeline out() {
  fun f(x, y) = { x * 3 + y }
  fun out(x, y) = { f[x, y] + f[x + 1, y] }
}
schedule { split(<out, 0, 0, x>, xo, xi, 4, guard); compute_at(f, <out, 0, 0, xo>); }
)";
  Program a = test::parse_valid(algorithm + "realize () over (0, 9), (0, 3)\n");
  Program b = test::parse_valid(algorithm + "realize () over (-7, 1), (2, 5)\n");
  Program c = test::parse_valid(algorithm + "realize () over (3, 0), (0, 2)\n");
  // The key: the same for the three windows; another schedule, a memoize or an
  // autoscheduler (whose estimates are the window) has another, or none.
  auto key = [](const Program& p) {
    return halide::compile_reuse_key(halide::CaseRequest{p, resolve_input(p, {}), true, "host"});
  };
  CHECK_FALSE(key(a).empty());
  CHECK(key(a) == key(b));
  CHECK(key(a) == key(c));
  CHECK(key(test::parse_valid(algorithm.substr(0, algorithm.find("schedule")) + "realize () over (0, 9), (0, 3)\n")) !=
        key(a));
  std::string with_memoize = algorithm;
  with_memoize.replace(with_memoize.find("compute_at"), 0, "memoize(f); ");
  CHECK(key(test::parse_valid(with_memoize + "realize () over (0, 9), (0, 3)\n")).empty());
  CHECK(key(test::parse_valid(algorithm.substr(0, algorithm.find("schedule")) +
                              "schedule autoscheduler Mullapudi2016 { }\nrealize () over (0, 9), (0, 3)\n"))
            .empty());
  // In the long-lived worker: the first compiles, the next windows realize its pipeline
  // and pass with its values, the empty window too.
  halide::HalideVerdict va = run_case(a), vb = run_case(b), vc = run_case(c);
  CHECK(va.outcome == halide::HalideOutcome::Pass);
  CHECK(vb.outcome == halide::HalideOutcome::Pass);
  CHECK(vc.outcome == halide::HalideOutcome::Pass);
  CHECK(vb.compile_reused);
  CHECK(vc.compile_reused);
  CHECK(vb.compile_seconds == 0);
  // A failing program (bound_storage's unchecked overrun, docs/findings) at a second window:
  // seen with the reused compile, decided again in a fresh process, and failing there too.
  Program first = parse_file(std::string(HALO_SOURCE_DIR) + "/docs/findings/halide-bound-storage-unchecked-overrun.halo");
  check_program(first);
  halide::HalideVerdict f1 = run_case(first);
  REQUIRE(f1.finding());
  Program second = first;
  second.realize->window[0] = Interval{Value(int64_t{0}), Value(int64_t{2}), {}};
  halide::HalideVerdict f2 = run_case(second);
  CHECK(f2.finding());
  CHECK_FALSE(f2.compile_reused);
  bool redecided = false;
  for (const std::string& n : f2.notes) redecided |= n.find("with the pipeline compiled for another window") != std::string::npos;
  CHECK(redecided);
}

}  // namespace
}  // namespace halo

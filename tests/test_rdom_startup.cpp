// Thesis §2.9, "Negative rdom extents": a negative extent is an error checked at program
// startup, "so that no scheduling transforms accidentally introduce" a loop that runs
// anyway. Without the check, fusing two reduction loops of extent -3 runs 9 iterations and
// splitting one of extent -3 by 4 runs none, where the unscheduled program gets stuck
// (Def. 2.12). Lowering therefore starts every program with `assert len >= 0` per
// reduction variable (lower/lower.cpp, rdom_startup_checks; docs/semantics-decisions.md,
// item 14), and a scheduled program fails exactly when its unscheduled form does.
#include "bounds/beta0.hpp"
#include "fuzz/program_gen.hpp"
#include "fuzz/schedule_gen.hpp"
#include "interp/small_step.hpp"
#include "lower/brute_force_filling.hpp"
#include "lower/lower.hpp"
#include "oracle/theorems.hpp"
#include "schedule/schedule.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_printer.hpp"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>
#include "tests/support.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

using namespace halo;

namespace {

const std::string kFuse = R"(pipeline f(n) {
  fun f(x) = {
    x;
    rdom(r = (0, n), s = (0, n)) in (x) <- f[x] + 1
  }
}
schedule {
  fuse(<f, 0, 1, s>, sr);
}
realize (n = -3) over (0, 1)
)";

const std::string kSplit = R"(pipeline f(n) {
  fun f(x) = {
    x;
    rdom(r = (0, n)) in (x) <- f[x] + 1
  }
}
schedule {
  split(<f, 0, 1, r>, ro, ri, 4, guard);
}
realize (n = -3) over (0, 1)
)";

// `t` completed by β0 (which must succeed) and run on `in`.
RunResult run_beta0(const TgtProgram& t, const Input& in) {
  Beta0Completion c = complete_with_beta0(t);
  INFO("program:\n" << print_tgt(t) << "beta0: " << c.reason);
  REQUIRE(c.ok);
  return run_tgt(c.program, in, Limits{});
}

// `t` without the assertions at the start of its body: what scheduling produced before the
// startup checks existed.
TgtProgram without_leading_asserts(TgtProgram t) {
  if (t.body->kind != StmtKind::Seq) return t;
  std::vector<Stmt> rest;
  bool leading = true;
  for (const Stmt& s : as<SeqStmt>(t.body).stmts) {
    if (leading && s->kind == StmtKind::Assert) continue;
    leading = false;
    rest.push_back(s);
  }
  t.body = make_seq(std::move(rest), t.body->loc);
  return t;
}

uint64_t stores_of(const RunResult& r) {
  uint64_t n = 0;
  for (const auto& [f, st] : r.stats) n += st.stores;
  return n;
}

// The unscheduled and the scheduled program stop at the same startup check, before any
// store; the oracle calls it a failed check (Def. 2.3). Returns the scheduled program
// without its checks, completed by β0.
TgtProgram check_stops_at_startup(const std::string& src) {
  Program p = test::parse_valid(src);
  Input in = resolve_input(p, {});
  REQUIRE(has_negative_rdom_extent(p, in));
  TgtProgram lowered = lower_pipeline(p);
  TgtProgram scheduled = schedule_pipeline(p);
  CHECK_THAT(print_tgt(lowered), Catch::Contains("  assert n >= 0;\n  allocate f("));
  CHECK_THAT(print_tgt(scheduled), Catch::Contains("  assert n >= 0;\n  allocate f("));
  RunResult u = run_beta0(lowered, in), s = run_beta0(scheduled, in);
  INFO("unscheduled: " << u.message << "\nscheduled: " << s.message);
  CHECK(u.status == RunStatus::AssertionFailure);
  CHECK(s.status == RunStatus::AssertionFailure);
  CHECK_THAT(s.message, Catch::Contains("`assert n >= 0`"));
  CHECK(s.message == u.message);
  CHECK(s.steps == u.steps);
  CHECK(stores_of(u) == 0);
  CHECK(stores_of(s) == 0);
  OracleVerdict v = check_theorems(p, complete_with_beta0(scheduled).program, in, Limits{});
  CHECK(v.assertion_failed);
  CHECK(v.holds());
  return without_leading_asserts(complete_with_beta0(scheduled).program);
}

}  // namespace

TEST_CASE("rdom startup check: a fuse of two negative extents does not run their product", "[schedule][rdom]") {
  TgtProgram unchecked = check_stops_at_startup(kFuse);
  // Without the check the fused loop runs (-3) * (-3) = 9 times: the hidden behaviour.
  Program p = test::parse_valid(kFuse);
  RunResult r = run_tgt(unchecked, resolve_input(p, {}), Limits{});
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.stats.at("f").stores == 1 + 9);  // the pure stage's point, then 9 updates
  // and the unscheduled program without the check is stuck at its rdom loop (Def. 2.12).
  RunResult u = run_tgt(without_leading_asserts(complete_with_beta0(lower_pipeline(p)).program),
                        resolve_input(p, {}), Limits{});
  CHECK(u.status == RunStatus::RdomFailure);
}

TEST_CASE("rdom startup check: a split of a negative extent does not run zero iterations", "[schedule][rdom]") {
  TgtProgram unchecked = check_stops_at_startup(kSplit);
  // Without the check the outer loop has length (-3 + 4 - 1) / 4 = 0: the update vanishes.
  Program p = test::parse_valid(kSplit);
  RunResult r = run_tgt(unchecked, resolve_input(p, {}), Limits{});
  REQUIRE(r.status == RunStatus::Ok);
  CHECK(r.stats.at("f").stores == 1);  // the pure stage only
  CHECK(r.output.values.at(0) == Value(0));
}

TEST_CASE("rdom startup check: one per reduction variable, none for a non-negative constant", "[lower][rdom]") {
  Program p = test::parse_valid(R"(pipeline g(n, m) {
  fun f(x) = { x; rdom(r = (0, 2), s = (1, n)) in (x) <- f[x] + r * s }
  fun g(x) = { f[x]; rdom(t = (n, 0 - 1)) in (x) <- g[x] + t; rdom(u = (0, m + 1)) in (x) <- g[x] + u }
}
realize (n = 2, m = 0) over (0, 2)
)");
  std::vector<Stmt> checks = rdom_startup_checks(p.pipeline);
  std::vector<std::string> texts;
  for (const Stmt& c : checks) texts.push_back(print_expr(as<AssertStmt>(c).cond));
  CHECK(texts == std::vector<std::string>{"n >= 0", "0 - 1 >= 0", "m + 1 >= 0"});
  // They come first, in that order, and the second one stops the run.
  RunResult r = run_beta0(lower_pipeline(p), resolve_input(p, {}));
  CHECK(r.status == RunStatus::AssertionFailure);
  CHECK_THAT(r.message, Catch::Contains("`assert 0 - 1 >= 0`"));
  CHECK(stores_of(r) == 0);
}

namespace {

// The assertions at the start of a program's body.
std::vector<std::string> leading_asserts(const TgtProgram& t) {
  std::vector<std::string> out;
  std::vector<Stmt> stmts = t.body->kind == StmtKind::Seq ? as<SeqStmt>(t.body).stmts : std::vector<Stmt>{t.body};
  for (const Stmt& s : stmts) {
    if (s->kind != StmtKind::Assert) break;
    out.push_back(print_expr(as<AssertStmt>(s).cond));
  }
  return out;
}

// A random valid program, half the time with one reduction variable's length made a
// negative constant (the generator's own negative extents are rare).
Program gen_with_negative_extent() {
  Program p = *fuzz::gen_program();
  std::vector<RVar*> rvars;
  for (auto& f : p.pipeline.funcs)
    for (auto& u : f.updates)
      for (auto& r : u.rdom) rvars.push_back(&r);
  if (!rvars.empty() && *rc::gen::arbitrary<bool>()) {
    RVar* r = rvars[*rc::gen::inRange<size_t>(0, rvars.size())];
    r->len = make_const(Value(int64_t(*rc::gen::inRange(-3, 0))));
  }
  return p;
}

// Half the time, a split (guard, factor 1 to 4) or a fuse of reduction loops of a random
// stage with an rdom, first in the loops phase: the generated schedules rarely touch them.
void with_reduction_split_or_fuse(Program& p) {
  std::vector<std::pair<const FuncDef*, size_t>> stages;  // (func, update index)
  for (const FuncDef& f : p.pipeline.funcs)
    for (size_t i = 0; i < f.updates.size(); ++i)
      if (!f.updates[i].rdom.empty()) stages.emplace_back(&f, i);
  if (stages.empty() || !*rc::gen::arbitrary<bool>()) return;
  auto [f, i] = *rc::gen::elementOf(stages);
  const std::vector<RVar>& rdom = f->updates[i].rdom;
  Directive d;
  d.loop.func = Name{f->name.text, {}};
  d.loop.stage = int64_t(i + 1);
  if (rdom.size() >= 2 && *rc::gen::arbitrary<bool>()) {
    d.kind = DirectiveKind::Fuse;  // the outermost rdom loop (L_R wraps r_1 first) with the one inside it
    d.loop.var = rdom.back().name;
    d.names = {Name{"neg_f", {}}};
  } else {
    d.kind = DirectiveKind::Split;
    d.loop.var = rdom[*rc::gen::inRange<size_t>(0, rdom.size())].name;
    d.names = {Name{"neg_o", {}}, Name{"neg_i", {}}};
    d.exprs = {make_const(Value(int64_t(*rc::gen::inRange(1, 5))))};
  }
  test::add_first_in_loops_phase(p, d);
}

// Completed by brute force for `in` (nullopt: too large) and run.
std::optional<RunResult> run_brute_force(const TgtProgram& t, const Input& in) {
  BruteForceOptions opt;
  opt.max_steps = 300'000;
  opt.max_extent = 512;
  auto bf = brute_force_filling(t, in, opt);
  if (!bf) return std::nullopt;
  Limits lim;
  lim.max_steps = 5'000'000;
  try {
    return run_tgt(fill_holes(t, bf->filling), in, lim);
  } catch (const ResourceLimit&) {
    return std::nullopt;
  }
}

}  // namespace

TEST_CASE("property: a scheduled program stops on a negative rdom extent exactly when L(P) does",
          "[schedule][rdom][property]") {
  rc::prop("random programs, random valid schedules, negative extents", [] {
    Program p = *fuzz::gen_scheduled(gen_with_negative_extent());
    with_reduction_split_or_fuse(p);
    RC_LOG() << print_program(p);
    RC_ASSERT(validate_program(p).empty());
    Input in = resolve_input(p, {});
    bool negative = has_negative_rdom_extent(p, in);
    TgtProgram lowered = lower_pipeline(p), scheduled = schedule_pipeline(p);

    // Scheduling keeps the startup checks, at startup: L(P) begins with them, and S(S, L(P))
    // begins with the schedule's own checks (split factors) followed by the same ones.
    std::vector<std::string> rdom_checks = leading_asserts(lowered), sched_checks = leading_asserts(scheduled);
    RC_ASSERT(rdom_checks.size() == rdom_startup_checks(p.pipeline).size());
    RC_ASSERT(sched_checks.size() >= rdom_checks.size());
    RC_ASSERT(std::equal(rdom_checks.begin(), rdom_checks.end(), sched_checks.end() - long(rdom_checks.size())));

    std::optional<RunResult> u = run_brute_force(lowered, in), s = run_brute_force(scheduled, in);
    if (!u || !s) RC_DISCARD("too large for brute force");
    RC_LOG() << "unscheduled: " << run_status_name(u->status) << " " << u->message << "\nscheduled: "
             << run_status_name(s->status) << " " << s->message << "\n";
    auto stopped_at_rdom_check = [&](const RunResult& r) {
      if (r.status != RunStatus::AssertionFailure) return false;
      for (const std::string& c : rdom_checks)
        if (r.message.find("`assert " + c + "`") != std::string::npos) return true;
      return false;
    };
    // Neither program ever reaches a loop with a negative length: the checks come first.
    RC_ASSERT(u->status != RunStatus::RdomFailure);
    RC_ASSERT(s->status != RunStatus::RdomFailure);
    // L(P) stops at a startup check exactly when P has a negative extent under z.
    RC_ASSERT(stopped_at_rdom_check(*u) == negative);
    if (negative) {
      // The scheduled program stops at startup too, before computing anything: at the same
      // check, unless one of the schedule's own startup checks fails before it.
      RC_ASSERT(s->status == RunStatus::AssertionFailure);
      RC_ASSERT(stores_of(*s) == 0);
      RC_ASSERT(stores_of(*u) == 0);
      if (stopped_at_rdom_check(*s)) RC_ASSERT(s->message == u->message);
      else RC_ASSERT(sched_checks.size() > rdom_checks.size());
    } else {
      RC_ASSERT(!stopped_at_rdom_check(*s));
    }
    bool reduction_loop_rescheduled = false;
    if (p.schedule)
      for (const Directive& d : *p.schedule)
        if ((d.kind == DirectiveKind::Split || d.kind == DirectiveKind::Fuse) && d.loop.stage > 0) {
          const FuncDef* f = p.pipeline.find(d.loop.func.text);
          for (const RVar& r : f->updates[size_t(d.loop.stage - 1)].rdom)
            reduction_loop_rescheduled |= r.name.text == d.loop.var.text;
        }
    RC_CLASSIFY(negative, "negative extent");
    RC_CLASSIFY(negative && reduction_loop_rescheduled, "negative extent, reduction loop split or fused");
  });
}

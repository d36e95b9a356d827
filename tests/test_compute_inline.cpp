// compute_inline(f) (schedule/inline.cpp, docs/semantics-decisions.md "compute_inline"):
// the rewrite removes f's storage and computation and substitutes its definition where it
// is read; the output is unchanged (by construction, and checked here against the
// big-step semantics on random programs); the restrictions are located errors; the Halide
// translation states no placement for f, so Halide inlines it itself.
#include "bounds/beta0.hpp"
#include "fuzz/program_gen.hpp"
#include "interp/input.hpp"
#include "candidates/halide/plan.hpp"
#include "oracle/theorems.hpp"
#include "schedule/schedule.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_printer.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

using namespace halo;
using halo::test::parse_valid;

namespace {

const std::string kChain = R"(pipeline out() {
  fun img(x, y) = { x * 5 - y * 3 + 7 }
  fun blur(x, y) = { img[x - 1, y] + img[x, y] * 2 + img[x + 1, y] }
  fun out(x, y) = { blur[x, y - 1] + blur[x, y + 1] }
}
)";

Program with(const std::string& schedule, const std::string& realize = "realize () over (0, 9), (0, 7)\n") {
  return parse_valid(kChain + "schedule {\n" + schedule + "\n}\n" + realize);
}

bool mentions(const TgtProgram& t, const std::string& text) { return print_tgt(t).find(text) != std::string::npos; }

}  // namespace

TEST_CASE("compute_inline: f's storage and computation go, its definition stands where it was read",
          "[compute_inline]") {
  Program p = with("compute_inline(blur);");
  TgtProgram t = schedule_pipeline(p);
  CHECK_FALSE(mentions(t, "allocate blur"));
  CHECK_FALSE(mentions(t, "label blur"));
  CHECK_FALSE(mentions(t, "blur^"));
  CHECK(mentions(t, "allocate img"));
  // out reads in at its own points now: img^(0, *)[<out, 0, 0, x> - 1, <out, 0, 0, y> - 1] ...
  CHECK(mentions(t, "img^(0, *)[x - 1, y - 1]"));
  OracleVerdict v = test::scheduled_oracle(p, resolve_input(p, {}));
  INFO(v.detail);
  CHECK(v.memory_safe);
  CHECK(v.confluent);
  // Inlining both producers, and inlining into a consumer computed inside a loop.
  for (const char* s : {"compute_inline(blur);\n  compute_inline(img);",
                        "split(<out, 0, 0, y>, yo, yi, 2, guard);\n  compute_inline(img);\n  compute_at(blur, <out, 0, "
                        "0, yo>);\n  store_at(blur, <out, 0, 0, yo>);"}) {
    Program q = with(s);
    OracleVerdict w = test::scheduled_oracle(q, resolve_input(q, {}));
    INFO(s << "\n" << w.detail);
    CHECK(w.memory_safe);
    CHECK(w.confluent);
  }
}

TEST_CASE("compute_inline: the restrictions are errors at the directive", "[compute_inline][errors]") {
  auto rejects = [](const std::string& src, const std::string& at, const std::string& message) {
    Program p = parse_program(src, "f.halo");
    try {
      schedule_pipeline(p);
      FAIL("scheduled without error");
    } catch (const InputError& e) {
      REQUIRE(e.diagnostics().size() == 1);
      CHECK(test::where(e.diagnostics()[0].loc) == at);
      CHECK_THAT(e.diagnostics()[0].message, Catch::Contains(message));
    }
  };
  rejects(kChain + "schedule { compute_inline(out); }\n", "6:27", "the output is always computed at the root");
  rejects(kChain + "schedule {\n  compute_inline(blur);\n  split(<blur, 0, 0, x>, xo, xi, 2, guard);\n}\n", "8:3",
          "'split' at 8:3 names blur, which is substituted into its consumers");
  rejects("pipeline g() {\n  fun f(x) = { x; rdom(r = (0, 2)) in (x) <- f[x] + r }\n  fun g(x) = { f[x] }\n}\n"
          "schedule { compute_inline(f); }\n",
          "5:27", "f has 1 update stage; only a func with a single pure stage");
}

TEST_CASE("compute_inline: the Halide translation leaves f to Halide's own inlining", "[compute_inline][halide-plan]") {
  Program p = with("compute_inline(blur);");
  auto translated = halide::translate_to_halide(p, resolve_input(p, {}));
  REQUIRE(std::holds_alternative<halide::HalidePlan>(translated));
  const halide::HalidePlan& plan = std::get<halide::HalidePlan>(translated);
  bool in_root = false, blur_placed = false;
  for (const auto& c : plan.schedule) {
    in_root |= c.kind == halide::HlCall::Kind::ComputeRoot && c.func == "img";
    blur_placed |= c.func == "blur";
  }
  CHECK(in_root);
  CHECK_FALSE(blur_placed);
  CHECK(plan.funcs.size() == 3);  // blur is still a Func: Halide inlines it
}

TEST_CASE("property: inlining every single-stage producer keeps the output (Theorems 2.1 and 2.2)",
          "[compute_inline][property]") {
  rc::prop("random programs, every eligible func inlined", [] {
    fuzz::ProgramGenConfig cfg;
    cfg.max_updates = 1;  // more producers with a single pure stage
    Program p = *fuzz::gen_program(cfg);
    p.schedule = std::vector<Directive>{};
    for (const auto& f : p.pipeline.funcs) {
      if (&f == &p.pipeline.output() || !f.updates.empty()) continue;
      Directive d;
      d.kind = DirectiveKind::ComputeInline;
      d.func = Name{f.name.text, {}};
      d.loc = SourceLoc{uint32_t(p.schedule->size() + 1), 1};
      p.schedule->push_back(d);
    }
    RC_CLASSIFY(p.schedule->empty(), "nothing to inline");
    if (p.schedule->empty()) return;  // a single func, or every producer has updates
    OracleVerdict v = test::require_beta0_theorems(p, schedule_pipeline(p));
    RC_ASSERT(v.memory_safe && v.confluent);
  });
}

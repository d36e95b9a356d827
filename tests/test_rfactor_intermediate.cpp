// rfactor's intermediate func, named and scheduled (docs/halide.md, "Halide-only
// directives"): `rfactor(<f, j, s, r>, u, intm)` names the Func Halide's rfactor returns,
// which later directives split, traverse and place. It exists in Halide only: the parser
// marks those directives (Directive::on_intermediate), the formal side leaves them out,
// halo's own lowering refuses them, the translation applies them to the intermediate, and
// every installed Halide runs the bundled example.
#include "candidates/halide/emit_cpp.hpp"
#include "candidates/halide/plan.hpp"
#include "candidates/halide/versions.hpp"
#include "interp/fast_eval.hpp"
#include "interp/input.hpp"
#include "schedule/schedule.hpp"
#include "semantics/lexer.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "tests/cli_support.hpp"
#include "tests/support.hpp"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

using namespace halo;

namespace {
const std::string kExample = std::string(HALO_SOURCE_DIR) + "/examples/halide/rfactor_intermediate.halo";

const std::string kSum = R"(pipeline total(n) {
  fun img(x, y) = { (x * 5 + y * 3) % 13 - 6 }
  fun total(y) = { 0; rdom(r = (0, n)) in (y) <- total[y] + img[r, y] }
}
)";

Program with_schedule(const std::string& schedule) {
  return test::parse_valid(kSum + "schedule {\n" + schedule + "}\nrealize (n = 45) over (0, 4)\n");
}

std::variant<halide::HalidePlan, halide::TranslationError> translate(const Program& p) {
  Input in = resolve_input(p, {});
  return halide::translate_to_halide(p, in);
}
}  // namespace

TEST_CASE("rfactor names its intermediate: the directives on it are marked, printed and read back", "[halide-only]") {
  Program p = parse_program(read_source_file(kExample), kExample);
  check_program(p);
  REQUIRE(p.schedule->size() == 5);
  const auto& ds = *p.schedule;
  CHECK(print_directive(ds[1]) == "rfactor(<total, 0, 1, ri>, u, partial)");
  CHECK(!ds[0].on_intermediate);
  CHECK(!ds[1].on_intermediate);  // the rfactor itself schedules total
  for (size_t k = 2; k < ds.size(); ++k) {
    INFO(print_directive(ds[k]));
    CHECK(ds[k].on_intermediate);
    CHECK(is_halide_only(ds[k]));
    CHECK(!in_formal_part(ds[k]));
  }
  Program again = parse_program(print_program(p), "<printed>");
  CHECK(same_program(p, again));
  for (size_t k = 0; k < ds.size(); ++k) CHECK((*again.schedule)[k].on_intermediate == ds[k].on_intermediate);
  // The formal side keeps only the split: it lowers and completes as any schedule.
  Program f = formal_part(p);
  REQUIRE(f.schedule->size() == 1);
  CHECK(f.schedule->front().kind == DirectiveKind::Split);
  CHECK_NOTHROW(schedule_formal_part(p));
  // The unnamed form is unchanged.
  Program u = with_schedule("  rfactor(<total, 0, 1, r>, u);\n");
  CHECK(print_directive(u.schedule->front()) == "rfactor(<total, 0, 1, r>, u)");
}

TEST_CASE("a directive on an rfactor intermediate is refused where it cannot mean anything", "[halide-only]") {
  const std::string split = "  split(<total, 0, 1, r>, ro, ri, 8, guard);\n  rfactor(<total, 0, 1, ri>, u, partial);\n";
  auto refused = [&](const std::string& more, const std::string& needle, const std::string& message) {
    std::string src = kSum + "schedule {\n" + split + more + "}\n";
    test::require_error([](const std::string& s) { test::parse_valid(s); }, src, "<test>",
                        test::position_of(src, needle), message);
  };
  refused("  fold_storage(partial, y, 2);\n", "fold_storage(partial",
          "'fold_storage' on 'partial', the func Halide's rfactor at 7:3 makes");
  refused("  compute_at(img, <partial, 0, 1, u>);\n", "compute_at(img",
          "nothing is computed inside it");
  refused("  traverse(<partial, 1, 1, u>, vectorized);\n", "<partial, 1",
          "partial has no specializations: its loops are <partial, 0, i, v>");
  // The name must be new.
  std::string clash = kSum + "schedule {\n  rfactor(<total, 0, 1, r>, u, img);\n}\n";
  test::require_error([](const std::string& s) { test::parse_valid(s); }, clash, "<test>",
                      test::position_of(clash, "img);"),
                      "the func rfactor makes needs a new name: 'img' is already a name of pipeline 'total'");
  // Before its rfactor, the intermediate is no func at all.
  std::string early = kSum + "schedule {\n  traverse(<partial, 0, 1, u>, vectorized);\n" + split + "}\n";
  test::require_error([](const std::string& s) { check_program(parse_program(s, "<test>")); }, early, "<test>",
                      test::position_of(early, "partial, 0, 1, u>, vec"), "unknown func 'partial'");
}

TEST_CASE("the translation schedules the Func rfactor returned, and checks the loops it names", "[halide-only]") {
  Program p = parse_program(read_source_file(kExample), kExample);
  auto r = translate(p);
  REQUIRE(std::holds_alternative<halide::HalidePlan>(r));
  const auto& plan = std::get<halide::HalidePlan>(r);
  Input in = resolve_input(p, {});
  std::string cpp = halide::emit_reproducer_cpp(plan, evaluate_fast(p.pipeline, in, {}), {});
  CHECK_THAT(cpp, Catch::Contains("Func f_partial = f_total.update(0).rfactor("));
  CHECK_THAT(cpp, Catch::Contains("f_partial.vectorize(v_u);"));
  CHECK_THAT(cpp, Catch::Contains("f_partial.update(0).vectorize(v_u);"));
  CHECK_THAT(cpp, Catch::Contains("f_partial.compute_at(LoopLevel(f_total, v_y));"));
  // The thesis's schedule places an unplaced intermediate at the root, as every func.
  auto storage = plan.schedule;
  bool store_root = std::any_of(storage.begin(), storage.end(), [](const halide::HlCall& c) {
    return c.kind == halide::HlCall::Kind::StoreRoot && c.func == "partial";
  });
  CHECK(store_root);
  // ro ran in the intermediate: the factored stage no longer has it.
  Program bad = with_schedule("  split(<total, 0, 1, r>, ro, ri, 8, guard);\n  rfactor(<total, 0, 1, ri>, u, partial);\n"
                              "  compute_at(partial, <total, 0, 1, ro>);\n");
  CHECK_THROWS_WITH(translate(bad), Catch::Contains("<total, 0, 1> has no loop 'ro'"));
  // So does a directive on the factored stage itself, which the formal side accepts.
  Program moved = with_schedule("  split(<total, 0, 1, r>, ro, ri, 8, guard);\n  rfactor(<total, 0, 1, ri>, u, partial);\n"
                                "  traverse(<total, 0, 1, ro>, unrolled);\n");
  CHECK_NOTHROW(schedule_formal_part(moved));
  CHECK_THROWS_WITH(translate(moved), Catch::Contains("<total, 0, 1> has no loop 'ro' (its loops, "
                                                      "innermost first: ri, y)"));
  Program stage = with_schedule("  rfactor(<total, 0, 1, r>, u, partial);\n  swap(<partial, 0, 2, u>);\n");
  CHECK_THROWS_WITH(translate(stage), Catch::Contains("partial has no stage 2"));
  Program loop = with_schedule("  rfactor(<total, 0, 1, r>, u, partial);\n  traverse(<partial, 0, 1, r>, parallel);\n");
  CHECK_THROWS_WITH(translate(loop), Catch::Contains("<partial, 0, 1> has no loop 'r' (its loops, innermost first: u, y)"));
}

TEST_CASE("halo's own lowering refuses a scheduled intermediate, and every Halide runs it and agrees",
          "[halide-only][halide][cli]") {
  test::CliResult own = test::run_halo({"run", kExample});
  CHECK(own.status == 2);
  CHECK_THAT(own.err, Catch::Contains("rfactor_intermediate.halo:14:3: error: 'rfactor' is one of Halide's own"));
  CHECK(test::run_halo({"check", kExample, "--target", "halide"}).status == 0);
  if (halide::installed_halide_versions().empty()) return;
  test::require_holds_on_every_halide(kExample);
}

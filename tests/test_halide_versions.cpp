// The Halide version matrix (candidates/halide/versions.hpp, docs/halide.md "Versions"):
// one worker executable per installed Halide, chosen by name; `halide@all` runs a case on
// every version. The wheels from PyPI are optional (scripts/setup.sh installs them): the
// checks that need one say so on stderr and in a warning when it is missing, never pass
// silently.
#include "candidates/halide/halide_oracle.hpp"
#include "candidates/halide/plan.hpp"
#include "semantics/parser.hpp"
#include "semantics/validity.hpp"
#include "candidates/halide/versions.hpp"
#include "support.hpp"
#include "cli_support.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace halo {
namespace {

using halide::HalideOutcome;

bool have_wheel() {
  for (const auto& v : halide::installed_halide_versions())
    if (v.origin == "pip") return true;
  std::fprintf(stderr, "SKIPPED: no Halide wheel from PyPI is installed (run scripts/setup.sh): only Debian's "
                       "Halide 14 is tested\n");
  WARN("no Halide wheel from PyPI installed: the checks of the newer versions are skipped");
  return false;
}

TEST_CASE("Halide versions: the registry names every installed version and resolves targets", "[halide]") {
  const auto& vs = halide::installed_halide_versions();
  REQUIRE(!vs.empty());
  REQUIRE(halide::find_halide_version(14) != nullptr);  // Debian's package, a build requirement
  CHECK(halide::find_halide_version(14)->origin == "debian");
  for (size_t i = 1; i < vs.size(); ++i) CHECK(vs[i - 1].major < vs[i].major);
  auto newest = halide::select_halide_versions("halide");
  CHECK(newest.error.empty());
  CHECK(newest.majors == std::vector<int>{vs.back().major});
  auto all = halide::select_halide_versions("halide@all");
  CHECK(all.all);
  CHECK(all.majors.size() == vs.size());
  CHECK(halide::select_halide_versions("halide@14").majors == std::vector<int>{14});
  for (const char* bad : {"halide@99", "halide@", "halide@x", "halide@-1"}) {
    auto s = halide::select_halide_versions(bad);
    CHECK(s.majors.empty());
    CHECK_THAT(s.error, Catch::Contains("installed: 14"));
  }
  CHECK(halide::valid_halide_target(14, "host-no_asserts"));
  CHECK_FALSE(halide::valid_halide_target(14, "x86-64-nosuchos"));
  std::string cmd = halide::find_halide_version(14)->compile_command("r.cpp", "r");
  CHECK_THAT(cmd, Catch::Contains("-I/usr/include/halide14"));
}

TEST_CASE("Halide versions: a finding's history in words", "[halide]") {
  CHECK(version_history_text({{"14.0.0", "wrong_output"}, {"19.0.0", "wrong_output"}, {"21.0.0", "pass"}}) ==
        "wrong_output in 14.0.0 and 19.0.0; pass in 21.0.0");
  CHECK(version_history_text({{"14.0.0", "crash"}}) == "crash in 14.0.0");
}

TEST_CASE("Halide versions: every installed Halide runs a case in its own worker", "[halide]") {
  Program p = test::parse_valid(
      "pipeline f() { fun g(x) = { x * 3 } fun f(x) = { g[x] + g[x + 1] } } "
      "schedule { split(<f, 0, 0, x>, xo, xi, 4, guard); compute_at(g, <f, 0, 0, xo>); } realize () over (-3, 10)");
  for (const auto& hv : halide::installed_halide_versions()) {
    halide::HalideOptions o;
    o.version = hv.major;
    halide::HalideVerdict v = halide::run_halide_case(p, resolve_input(p, {}), o);
    INFO(hv.version << ": " << halide::describe_halide_verdict(v));
    CHECK(v.outcome == HalideOutcome::Pass);
    CHECK(v.halide_version == hv.version);
    CHECK(v.mem.loads > 0);  // the traced run works with this version's trace layout
  }
  if (!have_wheel()) return;
  CHECK(halide::newest_halide_version().origin == "pip");
}

TEST_CASE("halo oracle --target halide@all prints the version matrix", "[halide][cli]") {
  std::string ex = std::string(HALO_SOURCE_DIR) + "/examples/thesis_2_2_tile3.halo";
  test::CliResult r = test::run_halo({"oracle", ex, "--target", "halide@all", "--no-memcheck"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  for (const auto& hv : halide::installed_halide_versions()) CHECK_THAT(r.out, Catch::Contains(hv.version + "  "));
  CHECK_THAT(r.out, Catch::Contains("verdict: holds"));
  r = test::run_halo({"oracle", ex, "--target", "halide@all", "--no-memcheck", "--json"});
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["matrix"].size() == halide::installed_halide_versions().size());
  CHECK(test::run_halo({"oracle", ex, "--target", "halide@13"}).status == 2);
  CHECK(test::run_halo({"fuzz", "--target", "halide@all", "--cases", "1"}).status == 2);
}

TEST_CASE("Halide: equal specialize conditions are one specialization, as in Halide", "[halide]") {
  // Stage::specialize returns the existing specialization for an equal condition; in
  // §2.8.1's chain the second copy never runs, so its directives are not translated.
  Program p = test::parse_valid(
      "pipeline f(n) { fun g(y) = { y + n } fun f(x) = { g[x] + 1 } } "
      "schedule { specialize(g, n > 3, n > 3); split(<g, 1, 0, y>, yo, yi, 2, guard); "
      "split(<g, 2, 0, y>, yo, yi, 3, guard); } realize (n = 5) over (0, 4)");
  auto r = halide::translate_to_halide(p, resolve_input(p, {}));
  REQUIRE(std::holds_alternative<halide::HalidePlan>(r));
  const auto& plan = std::get<halide::HalidePlan>(r);
  int specializations = 0;
  for (const auto& c : plan.schedule) specializations += c.kind == halide::HlCall::Kind::Specialize;
  CHECK(specializations == 1);
  REQUIRE(!plan.notes.empty());
  CHECK_THAT(plan.notes.back(), Catch::Contains("same condition as specialization 1"));
  halide::HalideOptions o;
  o.version = 14;
  o.memcheck = false;
  halide::HalideVerdict v = halide::run_halide_case(p, resolve_input(p, {}), o);
  INFO(halide::describe_halide_verdict(v));
  CHECK(v.outcome == HalideOutcome::Pass);
  // A compute_at into the copy that never runs has no Halide counterpart.
  Program q = test::parse_valid(
      "pipeline f(n) { fun h(y) = { y } fun g(y) = { h[y] + n } fun f(x) = { g[x] + 1 } } "
      "schedule { specialize(g, n > 3, n > 3); compute_at(h, <g, 2, 0, y>); } realize (n = 5) over (0, 4)");
  auto rq = halide::translate_to_halide(q, resolve_input(q, {}));
  REQUIRE(std::holds_alternative<halide::TranslationError>(rq));
  CHECK(std::get<halide::TranslationError>(rq).not_expressible);
}

TEST_CASE("Halide: a bounds query that does not cover R(z) is not trusted: the pipeline runs on R(z)", "[halide]") {
  // A split factor of 0 from a parameter (Halide #7938, fixed in 18): Halide 14's bounds
  // query answers a region without R(z); realized on R(z), it neither fails nor writes the
  // output where it should: a wrong output, not an assumed assertion.
  Program p = parse_file(std::string(HALO_SOURCE_DIR) + "/docs/findings/halide14-nonpositive-split-factor-parameter.halo");
  check_program(p);
  halide::HalideOptions o;
  o.version = 14;
  o.memcheck = false;
  halide::HalideVerdict v = halide::run_halide_case(p, resolve_input(p, {}), o);
  INFO(halide::describe_halide_verdict(v));
  CHECK(v.outcome == HalideOutcome::WrongOutput);
  // An empty window with a split: the answer is a negative extent; on the empty R(z)
  // Halide runs without error, which is what counts.
  Program e = parse_file(std::string(HALO_SOURCE_DIR) +
                         "/docs/findings/not-findings/halide14-empty-output-split-negative-extent.halo");
  check_program(e);
  v = halide::run_halide_case(e, resolve_input(e, {}), o);
  INFO(halide::describe_halide_verdict(v));
  CHECK(v.outcome == HalideOutcome::Pass);
  bool noted = false;
  for (const auto& n : v.notes) noted |= n.find("realized on a buffer over R(z) instead") != std::string::npos;
  CHECK(noted);
}

}  // namespace
}  // namespace halo

// Halide's autoschedulers as a schedule source (docs/halide.md, "Autoschedulers"): the
// `.halo` form `schedule autoscheduler NAME { }` and `--autoscheduler NAME`, each
// autoscheduler's schedule judged on every installed Halide (the reference does not depend
// on the schedule; the memory check traces the schedule it chose), the classification of a
// refusal, the generator's `autoscheduler` weight and its coverage, and the reproducer that
// pastes the chosen schedule (or applies the autoscheduler itself).
#include "candidates/halide/halide_oracle.hpp"
#include "candidates/halide/versions.hpp"
#include "fuzz/coverage.hpp"
#include "fuzz/halide_gen.hpp"
#include "schedule/schedule.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"

#include <catch2/catch.hpp>
#include <sys/wait.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli_support.hpp"
#include "tests/support.hpp"

using namespace halo;

namespace {

const std::string kExample = std::string(HALO_SOURCE_DIR) + "/examples/halide/autoscheduled_blur.halo";

// A separable blur, and a pipeline whose funcs have updates (a sum over an rdom, and a max),
// each with its schedule left to an autoscheduler.
std::string blur(const std::string& name) {
  return "pipeline by() {\n"
         "  fun f(x, y) = { (x * 7 + y * 3) % 17 }\n"
         "  fun bx(x, y) = { (f[x - 1, y] + f[x, y] + f[x + 1, y]) / 3 }\n"
         "  fun by(x, y) = { (bx[x, y - 1] + bx[x, y] + bx[x, y + 1]) / 3 }\n"
         "}\n\nschedule autoscheduler " +
         name + " { }\n\nrealize () over (0, 40), (0, 24)\n";
}
std::string with_update(const std::string& name) {
  return "pipeline out(n) {\n"
         "  fun g(x, y) = { x + y; rdom(r = (0, 5)) in (x, y) <- g[x, y] + (x * r) % 7 }\n"
         "  fun h(x, y) = { g[x, y] - 3; rdom(r = (0, n)) in (x, y) <- max(h[x, y], g[x + r, y]) }\n"
         "  fun out(x, y) = { h[x, y] + h[x, y + 1] }\n"
         "}\n\nschedule autoscheduler " +
         name + " { }\n\nrealize (n = 4) over (0, 33), (0, 9)\n";
}

}  // namespace

TEST_CASE("schedule autoscheduler NAME { } parses, prints back and names Halide's autoschedulers", "[autoscheduler]") {
  for (const std::string& name : halide_autoscheduler_names()) {
    Program p = test::parse_valid(blur(name));
    CHECK(p.schedule_mode == ScheduleMode::Autoscheduler);
    CHECK(p.autoscheduler == name);
    REQUIRE(p.schedule);
    CHECK(p.schedule->empty());
    CHECK_THAT(print_program(p), Catch::Contains("schedule autoscheduler " + name + " { }"));
    CHECK(same_program(p, parse_program(print_program(p), "<printed>")));
  }
  // The plugin's lower-case spelling reads as Halide's name.
  CHECK(test::parse_valid(blur("adams2019")).autoscheduler == "Adams2019");
  std::string text = blur("Adams2019");
  std::string unknown = text;
  unknown.replace(unknown.find("Adams2019"), 9, "Adams2020");
  test::require_error([](const std::string& s) { parse_program(s, "<test>"); }, unknown, "<test>", "7:24",
                      "'Adams2020' is not one of Halide's autoschedulers (Mullapudi2016, Li2018, Adams2019, "
                      "Anderson2021); did you mean 'Adams2019'?");
  std::string directive = text;
  directive.replace(directive.find("{ }"), 3, "{ compute_inline(bx); }");
  test::require_error([](const std::string& s) { parse_program(s, "<test>"); }, directive, "<test>", "7:36",
                      "the autoscheduler Adams2019 chooses the whole schedule");
}

TEST_CASE("halo's own lowering refuses an autoscheduled schedule at the schedule section", "[autoscheduler][cli]") {
  test::require_error([](const std::string& s) { schedule_pipeline(test::parse_valid(s)); }, blur("Li2018"), "<test>",
                      "7:1", "the schedule comes from Halide's autoscheduler Li2018, outside the formal model");
  // The formal side keeps the thesis's default, which the reference does not depend on.
  Program f = formal_part(test::parse_valid(blur("Li2018")));
  CHECK(f.schedule_mode == ScheduleMode::Thesis);
  CHECK_NOTHROW(schedule_pipeline(f));
  test::CliResult run = test::run_halo({"run", kExample});
  CHECK(run.status == 2);
  CHECK_THAT(run.err, Catch::Contains("autoscheduled_blur.halo:21:1: error: the schedule comes from Halide's "
                                      "autoscheduler Adams2019"));
  CHECK(test::run_halo({"check", kExample, "--target", "halide"}).status == 0);
  CHECK(test::run_halo({"eval", kExample}).status == 0);  // the reference needs no schedule
}

TEST_CASE("every autoscheduler's schedule of a blur and of updates holds on every Halide that has it",
          "[autoscheduler][halide][cli]") {
  test::Scratch dir("autoscheduler", "holds");
  for (const char* name : {"Mullapudi2016", "Li2018", "Adams2019"}) {
    for (const auto& [what, text] : {std::pair<const char*, std::string>{"blur", blur(name)},
                                     std::pair<const char*, std::string>{"update", with_update(name)}}) {
      INFO(name << " on the " << what);
      nlohmann::json j = test::require_holds_on_every_halide(dir.write(std::string(name) + what + ".halo", text));
      for (const auto& row : j["matrix"]) {
        INFO(row.dump());
        CHECK(row["autoscheduler"]["name"] == name);
        CHECK_THAT(row["autoscheduler"]["params"].get<std::string>(), Catch::Contains("parallelism=16"));
        CHECK(!row["autoscheduler"]["schedule_source"].get<std::string>().empty());
        CHECK(row["memcheck"]["loads"].get<uint64_t>() > 0);  // the traced run judged the chosen schedule
        for (const auto& note : row["notes"])  // and it was the plain run's schedule
          CHECK_THAT(note.get<std::string>(), !Catch::Contains("chose another schedule"));
      }
    }
  }
  test::require_holds_on_every_halide(kExample);
}

TEST_CASE("Anderson2021 is not expressible without a GPU, and where a version lacks it", "[autoscheduler][halide][cli]") {
  test::Scratch dir("autoscheduler", "anderson");
  test::CliResult r = test::run_halo(
      {"oracle", dir.write("a.halo", blur("Anderson2021")), "--target", "halide@all", "--json"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 5);  // no version ran it: no verdict
  const nlohmann::json parsed_r_out = nlohmann::json::parse(r.out);  // the loop's range must outlive it
  for (const auto& row : parsed_r_out["matrix"]) {
    INFO(row.dump());
    CHECK(row["outcome"] == "not_expressible");
    CHECK(row["phase"] == "autoschedule");
    bool lacks = row["halide_version"].get<std::string>().rfind("14.", 0) == 0;  // Debian ships no Anderson2021
    CHECK_THAT(row["detail"].get<std::string>(),
               Catch::Contains(lacks ? "has no autoscheduler Anderson2021" : "schedules for GPUs only"));
  }
}

TEST_CASE("an autoscheduler's refusal of what it documents as unsupported is not_expressible",
          "[autoscheduler][halide][cli]") {
  // g has an update, so it cannot be inlined, and out reads it at an index read from it:
  // no bounds inference bounds that. Li2018 says so in its own words ("We can only
  // schedule bounded accesses"); Adams2019 asserts it internally in 14 and 19; Halide
  // cannot compile the pipeline under any schedule either.
  test::Scratch dir("autoscheduler", "refusal");
  for (const char* name : {"Li2018", "Adams2019"}) {
    std::string text = std::string("pipeline out() {\n  fun g(x) = { x % 5; (x) <- g[x] + 1 }\n") +
                       "  fun out(x) = { g[g[x]] + 1 }\n}\n\nschedule autoscheduler " + name +
                       " { }\n\nrealize () over (0, 16)\n";
    test::CliResult r = test::run_halo({"oracle", dir.write(std::string(name) + ".halo", text), "--target",
                                        "halide@all", "--json"});
    INFO(r.out << r.err);
    CHECK(r.status == 5);  // no version ran it, and none has a finding
    const nlohmann::json parsed_r_out = nlohmann::json::parse(r.out);  // the loop's range must outlive it
    for (const auto& row : parsed_r_out["matrix"]) {
      INFO(row.dump());
      CHECK(row["outcome"] == "not_expressible");
      CHECK(row["phase"] == "autoschedule");
      if (std::string(name) == "Li2018")
        CHECK_THAT(row["detail"].get<std::string>(), Catch::Contains("We can only schedule bounded accesses"));
    }
  }
}

TEST_CASE("Halide refusing the schedule its own autoscheduler chose is autoscheduler_error", "[autoscheduler][halide][cli]") {
  // Found by `halo fuzz --target halide@21 --weight autoscheduler=100 --seed 1` (case 45):
  // Li2018 makes the max reduction's update atomic() under a GuardWithIf split, and
  // Halide 14 refuses to compile its own autoscheduler's schedule; 19 and 21 compile it
  // (and free the atomic update's mutex array through the wrong allocator:
  // docs/findings/halide-atomic-mutex-array-foreign-free).
  if (!halide::find_halide_version(14)) {
    WARN("SKIPPED: Halide 14 is not installed");
    return;
  }
  test::Scratch dir("autoscheduler", "error");
  std::string file = dir.write("max.halo",
                               "pipeline f1() {\n  fun f0(x) = { x * 0 }\n  fun f1(x) = {\n"
                               "    f0[x] * -1 + f0[x - 2] + f0[x - 2];\n"
                               "    rdom(r = (-1, 4)) in (x) <- max(f1[x], f0[x + r])\n  }\n}\n\n"
                               "schedule autoscheduler Li2018 { }\n\nrealize () over (-2, 51)\n");
  test::CliResult r = test::run_halo({"oracle", file, "--target", "halide@14", "--json"});
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  nlohmann::json v = nlohmann::json::parse(r.out);
  CHECK(v["outcome"] == "autoscheduler_error");
  CHECK(v["violation"] == true);
  CHECK(v["phase"] == "compile");
  CHECK_THAT(v["detail"].get<std::string>(),
             Catch::Contains("Halide refuses the schedule its own autoscheduler Li2018 chose (during compile): Atomic "
                             "predicated store is not supported"));
  CHECK(v["signature"] == "autoscheduler_error:compile:Atomic predicated store is not supported.");
  CHECK_THAT(v["autoscheduler"]["schedule_source"].get<std::string>(), Catch::Contains(".atomic()"));
  // The text report shows the schedule that failed.
  test::CliResult text = test::run_halo({"oracle", file, "--target", "halide@14"});
  CHECK_THAT(text.out, Catch::Contains("autoscheduler: Li2018"));
  CHECK_THAT(text.out, Catch::Contains("chose this schedule:"));
  CHECK_THAT(text.out, Catch::Contains(".atomic()"));
}

TEST_CASE("halo oracle with --autoscheduler replaces the file's schedule and every report says so", "[autoscheduler][halide][cli]") {
  std::string blur_file = std::string(HALO_SOURCE_DIR) + "/examples/blur.halo";
  test::CliResult j = test::run_halo({"oracle", blur_file, "--target", "halide@all", "--autoscheduler", "Adams2019",
                                      "--json"});
  INFO(j.out << j.err);
  REQUIRE(j.status == 0);
  const nlohmann::json parsed_j_out = nlohmann::json::parse(j.out);  // the loop's range must outlive it
  for (const auto& row : parsed_j_out["matrix"]) {
    CHECK(row["outcome"] == "pass");
    CHECK(row["autoscheduler"]["name"] == "Adams2019");
    REQUIRE(!row["notes"].empty());
    CHECK_THAT(row["notes"][0].get<std::string>(),
               Catch::Contains("the schedule written in " + blur_file +
                               " was replaced by Halide's autoscheduler Adams2019 (--autoscheduler)"));
  }
  // The example's own schedule is Adams2019's: another autoscheduler replaces it too.
  test::CliResult text = test::run_halo({"oracle", kExample, "--target", "halide", "--autoscheduler", "li2018"});
  INFO(text.out << text.err);
  CHECK(text.status == 0);
  CHECK_THAT(text.out, Catch::Contains("was replaced by Halide's autoscheduler Li2018"));
  CHECK_THAT(text.out, Catch::Contains("autoscheduler: Li2018"));
  // A name Halide does not know, and the flag without the Halide target: usage errors.
  CHECK(test::run_halo({"oracle", blur_file, "--target", "halide", "--autoscheduler", "Adams2020"}).status == 2);
  CHECK(test::run_halo({"oracle", blur_file, "--autoscheduler", "Adams2019"}).status == 2);
}

TEST_CASE("the generator's autoscheduler weight replaces the drawn schedule last, and coverage counts it",
          "[autoscheduler][fuzz][halide-gen]") {
  fuzz::HalideGenWeights off, on;
  CHECK(off["autoscheduler"] == 0);  // earlier seeds keep their cases
  on.set("autoscheduler=100");
  std::map<std::string, int> seen;
  fuzz::Coverage cov;
  for (int k = 0; k < 40; ++k) {
    fuzz::CaseSeed seed = fuzz::campaign_case(5, uint64_t(k));
    Program a = fuzz::generate_halide_case(seed, on).value();
    Program b = fuzz::generate_halide_case(seed, off).value();
    INFO(print_program(a));
    REQUIRE(a.schedule_mode == ScheduleMode::Autoscheduler);
    ++seen[a.autoscheduler];
    // Drawn last: the algorithm and the realization are the seed's case at weight 0.
    Program same = a;
    same.schedule_mode = b.schedule_mode;
    same.autoscheduler.clear();
    same.schedule = b.schedule;
    same.halide_roots = b.halide_roots;
    CHECK(same_program(same, b));
    CHECK(fuzz::combinations_in(a) == std::vector<std::string>{"autoscheduler." + a.autoscheduler});
    cov.add_case(a, {fuzz::kRanTag});
  }
  CHECK(seen.size() == halide_autoscheduler_names().size());
  CHECK(cov.combinations["autoscheduler.Adams2019"].cases == uint64_t(seen["Adams2019"]));
  CHECK(cov.combinations["autoscheduler.Adams2019"].ran == uint64_t(seen["Adams2019"]));
}

TEST_CASE("Li2018's recorded schedule is not C++: the reproducer applies Li2018 and keeps it as a comment",
          "[autoscheduler][halide]") {
  Program p = test::parse_valid(blur("Li2018"), "li2018.halo");
  Input in = resolve_input(p, {});
  halide::HalideVerdict v = halide::run_halide_case(p, in);
  REQUIRE(v.outcome == halide::HalideOutcome::Pass);
  REQUIRE(!v.schedule_source.empty());
  std::string cpp = halide::halide_reproducer(p, in, v);
  CHECK_THAT(cpp, Catch::Contains("is not C++ that compiles; as recorded:"));
  CHECK_THAT(cpp, Catch::Contains("load_plugin(plugins + \"/libautoschedule_li2018.so\")"));
  CHECK_THAT(cpp, Catch::Contains("pipeline.apply_autoscheduler(target, {\"Li2018\", {{\"parallelism\", \"16\"}}})"));
  CHECK_THAT(cpp, !Catch::Contains("pasted, so that"));
}

TEST_CASE("the reproducer of an autoscheduled case pastes the chosen schedule, or applies the autoscheduler",
          "[autoscheduler][halide][slow]") {
  Program p = test::parse_valid(with_update("Adams2019"), "autoscheduled.halo");
  Input in = resolve_input(p, {});
  halide::HalideVerdict v = halide::run_halide_case(p, in);
  REQUIRE(v.outcome == halide::HalideOutcome::Pass);
  REQUIRE(!v.schedule_source.empty());
  std::string pasted = halide::halide_reproducer(p, in, v);
  CHECK_THAT(pasted, Catch::Contains("pasted, so that this program runs that very"));
  halide::HalideVerdict unrecorded = v;
  unrecorded.schedule_source.clear();
  std::string applied = halide::halide_reproducer(p, in, unrecorded);
  CHECK_THAT(applied, Catch::Contains("load_plugin(plugins + \"/libautoschedule_adams2019.so\")"));

  test::Scratch dir("autoscheduler", "repro");
  const auto& versions = halide::installed_halide_versions();
  REQUIRE(!versions.empty());
  for (const halide::HalideVersion& hv : versions) {
    // The pasted schedule is the newest version's: a schedule is plain Halide C++, which
    // every version compiles. The autoscheduler applied again runs in each version.
    for (const auto& [kind, cpp] : {std::pair<const char*, std::string>{"pasted", pasted}, {"applied", applied}}) {
      if (std::string(kind) == "pasted" && hv.major != versions.back().major) continue;
      std::string src = dir.write(std::string(kind) + std::to_string(hv.major) + ".cpp", cpp);
      std::string exe = (dir.dir / (std::string(kind) + std::to_string(hv.major))).string();
      std::string out, compile = hv.compile_command(src, exe);
      compile.replace(0, 3, std::string(HALO_CXX) + " -O0 -w");  // "g++" → the build's compiler
      INFO(kind << " on Halide " << hv.version << "\n" << compile);
      int cc = test::run_command(compile, out);
      INFO(out);
      REQUIRE(cc == 0);
      int rc = test::run_command(exe, out);
      INFO(out);
      CHECK(rc == 0);
      CHECK_THAT(out, Catch::Contains("0 of 297 point(s) differ from halo's reference"));
      if (std::string(kind) == "applied") CHECK_THAT(out, Catch::Contains("the schedule the autoscheduler chose"));
    }
  }
}

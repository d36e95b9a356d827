// The candidate interface and its registry (oracle/candidate.hpp, candidates/registry.hpp):
// every compiler under test is found by name, selects its versions alike, reports the same
// verdict shape, and a campaign and the version matrix treat them alike.
#include "candidates/exo/candidate.hpp"
#include "candidates/halide/candidate.hpp"
#include "candidates/tvm/candidate.hpp"
#include "candidates/halide/versions.hpp"
#include "candidates/registry.hpp"
#include "fuzz/candidate_campaign.hpp"
#include "semantics/parser.hpp"
#include "semantics/validity.hpp"
#include "support/diagnostics.hpp"

#include "tests/support.hpp"

#include <catch2/catch.hpp>

using namespace halo;

namespace {

const char* kBlur = R"(
pipeline out(w) {
  fun g(x) = { x * w }
  fun out(x) = { g[x] + g[x + 1] }
}
realize (w = 4) over (0, 6)
)";

Program from_file(const std::string& name) {
  Program p = parse_file(std::string(HALO_SOURCE_DIR) + "/docs/findings/" + name);
  check_program(p);
  return p;
}

}  // namespace

TEST_CASE("Candidates: the registry names every candidate once, by --target", "[candidates]") {
  const auto& all = registered_candidates();
  REQUIRE(all.size() >= 2);
  std::set<std::string> names;
  for (const Candidate* c : all) CHECK(names.insert(c->name()).second);
  CHECK(find_candidate("halide") == &halide::halide_candidate());
  CHECK(find_candidate("halide@21") == &halide::halide_candidate());
  CHECK(find_candidate("halide@all") == &halide::halide_candidate());
  CHECK(find_candidate("exo") == &exo::exo_candidate());
  CHECK(find_candidate("self") == nullptr);
  CHECK(find_candidate("tvm") == &tvm::tvm_candidate());
  CHECK(find_candidate("tvm@all") == &tvm::tvm_candidate());
  CHECK(find_candidate("") == nullptr);
  CHECK_THAT(candidate_target_list(), Catch::Contains("halide[@V|@all]") && Catch::Contains("exo[@V|@all]") && Catch::Contains("tvm[@V|@all]"));
  CandidateTarget t = resolve_candidate_target("cuda@1");
  CHECK(t.candidate == nullptr);
  CHECK_THAT(t.selection.error, Catch::StartsWith("not a target: cuda@1"));
}

TEST_CASE("Candidates: versions are selected alike for every candidate", "[candidates]") {
  std::vector<CandidateVersion> installed = {{"14", "14.0.0", "debian"}, {"19", "19.0.0", "pip"}, {"21", "21.0.0", "pip"}};
  VersionSelection newest = select_versions("cc", "CC", installed, "cc");
  CHECK(newest.keys == std::vector<std::string>{"21"});
  CHECK_FALSE(newest.all);
  CHECK(newest.error.empty());
  VersionSelection all = select_versions("cc", "CC", installed, "cc@all");
  CHECK(all.keys == std::vector<std::string>{"14", "19", "21"});
  CHECK(all.all);
  CHECK(select_versions("cc", "CC", installed, "cc@19").keys == std::vector<std::string>{"19"});
  for (const char* bad : {"cc@20", "cc@", "cc@1", "cc@all2", "ccc", "dd@14"}) {
    VersionSelection s = select_versions("cc", "CC", installed, bad);
    INFO(bad);
    CHECK(s.keys.empty());
    CHECK(s.error == std::string(bad) + ": not an installed CC (installed: 14, 19, 21; cc = the newest, cc@all = every one)");
  }
  // A single installed version; none at all.
  CHECK(select_versions("cc", "CC", {installed[0]}, "cc@all").keys == std::vector<std::string>{"14"});
  VersionSelection none = select_versions("cc", "CC", {}, "cc");
  CHECK(none.keys.empty());
  CHECK(none.error == "no CC is installed here");
}

TEST_CASE("Candidates: the version matrix and a finding's history are the same for every candidate", "[candidates]") {
  CandidateVerdict a, b;
  a.version = "1.0";
  a.outcome = "pass";
  a.ran = true;
  b.version = "2.0";
  b.outcome = "wrong_output";
  b.phase = "run";
  b.finding = true;
  b.detail = std::string(200, 'd');
  b.signature = "wrong_output:run:split";
  std::string m = version_matrix_text("CC", {a, b});
  CHECK_THAT(m, Catch::StartsWith("CC        outcome            phase           what happened\n"));
  CHECK_THAT(m, Catch::Contains("1.0       pass               -               \n"));
  CHECK_THAT(m, Catch::Contains("2.0       wrong_output       run             " + std::string(157, 'd') + "...\n"));
  CHECK_THAT(m, Catch::Contains("signature in 2.0: wrong_output:run:split\n"));
  CHECK_THAT(m, Catch::EndsWith("verdict: violated\n"));
  CHECK_THAT(version_matrix_text("CC", {a}), Catch::EndsWith("verdict: holds\n"));
  // A version that never ran the case is no verdict: holds needs every version to have run.
  CandidateVerdict c;
  c.version = "3.0";
  c.outcome = "not_expressible";
  CHECK(matrix_verdict_word({a, c}) == std::string("not_run"));
  CHECK(versions_not_run({a, b, c}) == std::vector<std::string>{"3.0"});
  CHECK_THAT(version_matrix_text("CC", {a, c}),
             Catch::EndsWith("verdict: not run on 3.0: CC 3.0 did not run the case; the other versions ran it and "
                             "agreed\n"));
  CHECK_THAT(version_matrix_text("CC", {c}), Catch::EndsWith("verdict: not run: no CC version ran the case (3.0), so "
                                                             "nothing is checked\n"));
  CHECK(matrix_verdict_word({b, c}) == std::string("violated"));
  CHECK(version_history_text({{"1.0", "crash"}, {"2.0", "pass"}, {"3.0", "crash"}}) == "crash in 1.0 and 3.0; pass in 2.0");
  CHECK(version_history_text({}).empty());
}

TEST_CASE("Candidates: Halide reports its outputs, memory events, version and reproducer through the interface",
          "[candidates][halide]") {
  const Candidate& h = halide::halide_candidate();
  auto versions = h.versions();
  REQUIRE_FALSE(versions.empty());
  CHECK(h.unavailable_reason().empty());
  CHECK(versions.front().key == "14");  // Debian's, always installed
  CHECK(versions.front().version.rfind("14.", 0) == 0);
  CandidateOptions opt;
  opt.version = "14";
  opt.reuse_process = false;

  Program p = test::parse_valid(kBlur);
  CandidateVerdict pass = h.run_case(p, resolve_input(p, {}), opt);
  INFO(pass.text);
  CHECK(pass.candidate == "halide");
  CHECK(pass.version == versions.front().version);
  CHECK(pass.outcome == "pass");
  CHECK(pass.ran);
  CHECK_FALSE(pass.finding);
  CHECK_FALSE(pass.declined);
  CHECK(pass.mismatches == 0);
  CHECK(pass.record["outcome"] == "pass");
  CHECK(pass.record["verdict"] == "holds");
  CHECK(verdict_word(pass) == std::string("holds"));
  CHECK_THAT(pass.text, Catch::Contains("pass"));

  // A documented wrong output of Halide 14: expected beside actual values, and a reproducer.
  Program bad = from_file("halide14-sliding-window-inner-split-wrong-output.halo");
  Input in = resolve_input(bad, {});
  CandidateVerdict w = h.run_case(bad, in, opt);
  INFO(w.text);
  CHECK(w.outcome == "wrong_output");
  CHECK(w.finding);
  CHECK(w.record["verdict"] == "violated");
  CHECK(w.ran);
  CHECK(w.mismatches > 0);
  REQUIRE_FALSE(w.first_mismatches.empty());
  CHECK(w.first_mismatches.front().expected.to_string() != w.first_mismatches.front().actual);
  CHECK(w.shrink_kind.rfind("halide-wrong_output:", 0) == 0);
  CHECK_FALSE(w.signature.empty());
  std::string cpp = h.reproducer(bad, in, w, opt);
  CHECK_THAT(cpp, Catch::Contains("Halide.h"));
  CHECK(h.reproducer_extension() == ".cpp");

  // The campaign check sees the same verdict, tagged by the candidate's name.
  fuzz::CaseResult r = fuzz::check_candidate_case(h, bad, fuzz::default_case_limits(), opt);
  CHECK(r.is_finding());
  CHECK(r.kind == w.shrink_kind);
  CHECK(std::find(r.outcomes.begin(), r.outcomes.end(), "halide:wrong_output") != r.outcomes.end());
  CHECK(std::find(r.outcomes.begin(), r.outcomes.end(), fuzz::kRanTag) != r.outcomes.end());
}

TEST_CASE("Candidates: Exo declines a .halo case with its reason, never a guess", "[candidates][exo]") {
  const Candidate& e = exo::exo_candidate();
  CHECK(e.name() == "exo");
  Program p = test::parse_valid(kBlur);
  Input in = resolve_input(p, {});
  CandidateVerdict v = e.run_case(p, in, CandidateOptions{});
  CHECK(v.declined);
  CHECK_FALSE(v.finding);
  CHECK_FALSE(v.ran);
  CHECK(v.outcome == "declined");
  CHECK(verdict_word(v) == std::string("not_run"));  // never "holds": Exo ran nothing
  CHECK(v.record["verdict"] == "not_run");
  CHECK_THAT(v.detail, Catch::Contains("halo exo"));
  CHECK_THROWS_AS(e.preflight(p, in), InputError);  // `halo check --target exo` says so
  CHECK_THROWS_AS(e.reproducer(p, in, v, CandidateOptions{}), InputError);
  fuzz::CaseResult r = fuzz::check_candidate_case(e, p, fuzz::default_case_limits(), CandidateOptions{});
  CHECK_FALSE(r.is_finding());
  CHECK(std::find(r.outcomes.begin(), r.outcomes.end(), "exo:declined") != r.outcomes.end());
  CHECK(std::find(r.outcomes.begin(), r.outcomes.end(), fuzz::kRanTag) == r.outcomes.end());
  // Its version is exo-lang's where the project's .venv has it (the pinned 1.0.0), and none
  // otherwise. (Not tied to unavailable_reason(): each asks Python once, under a time limit
  // that a loaded machine can exceed for one and not the other.)
  auto versions = e.versions();
  if (!versions.empty()) {
    REQUIRE(versions.size() == 1);
    CHECK(versions.front().version == "1.0.0");
    CHECK(versions.front().key == "1.0.0");
  } else {
    WARN("exo-lang is not installed (or Python did not answer in time): the Exo candidate's version is not checked");
  }
}

// The pieces of a fuzzing campaign on their own (issue "fuzzing campaigns"): the
// schedule-tree generator emits schedules the rules of §2.8 accept, cases are determined
// by their seeds, the libFuzzer input format round-trips, shrinking reaches a minimal case,
// findings are written atomically, and a campaign reaches every directive and language
// feature with no finding (the theorems are proved, so a finding is a bug in halo).
#include "fuzz/campaign.hpp"
#include "fuzz/case_gen.hpp"
#include "fuzz/coverage.hpp"
#include "fuzz/program_gen.hpp"
#include "fuzz/schedule_tree.hpp"
#include "schedule/schedule.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/validity.hpp"
#include "tests/cli_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <rapidcheck/catch.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace halo;

namespace {
bool is_bounds_directive(const std::string& text) {
  return text.rfind("bound(", 0) == 0 || text.rfind("bound_extent(", 0) == 0 || text.rfind("align_bounds(", 0) == 0;
}
}  // namespace

TEST_CASE("property: schedule trees emit schedules that the rules of §2.8 accept", "[fuzz][property]") {
  rc::prop("well-formed trees over random programs", [] {
    fuzz::ProgramGenConfig pc;
    pc.distinct_names = *rc::gen::arbitrary<bool>();
    pc.live_percent = 85;
    Program base = *fuzz::gen_program(pc);
    fuzz::TreeStats stats;
    Program p = *fuzz::gen_tree_scheduled(base, {}, &stats);
    RC_LOG() << print_program(p);
    for (const std::string& r : stats.rejected) RC_LOG() << "rejected: " << r << "\n";
    // Valid by construction: it validates and replays.
    RC_ASSERT(validate_program(p).empty());
    schedule_pipeline(p);
    // The tree's model of the rules agrees with the rewrites: nothing it emits is refused,
    // except a bounds directive whose demand check the model leaves to the rewrite.
    for (const std::string& r : stats.rejected) RC_ASSERT(is_bounds_directive(r));
    RC_CLASSIFY(p.schedule && std::any_of(p.schedule->begin(), p.schedule->end(), [](const Directive& d) {
                  return d.kind == DirectiveKind::ComputeAt;
                }), "compute_at");
  });
}

TEST_CASE("fuzz: case k of seed S is the same case every time", "[fuzz]") {
  for (uint64_t k : {0, 1, 17, 49, 50}) {
    fuzz::CaseSeed a = fuzz::campaign_case(20261121, k), b = fuzz::campaign_case(20261121, k);
    std::string pa = print_program(fuzz::generate_case(a).value());
    CHECK(pa == print_program(fuzz::generate_case(b).value()));
    // The libFuzzer bytes of the case denote it too.
    std::vector<uint8_t> bytes = fuzz::encode_case_bytes(a);
    REQUIRE(bytes.size() == 33);
    fuzz::CaseSeed c = fuzz::decode_case_bytes(bytes.data(), bytes.size());
    CHECK(c.key == a.key);
    CHECK(c.size == a.size);
    CHECK(print_program(fuzz::generate_case(c).value()) == pa);
  }
  // Different cases differ (with overwhelming likelihood for a sound key derivation).
  std::set<std::string> distinct;
  for (uint64_t k = 0; k < 20; ++k) distinct.insert(print_program(fuzz::generate_case(fuzz::campaign_case(7, k)).value()));
  CHECK(distinct.size() >= 18);
  // Any byte string is a case: short inputs are zero-padded, long ones cut.
  uint8_t three[3] = {1, 2, 3};
  fuzz::CaseSeed s = fuzz::decode_case_bytes(three, 3);
  CHECK(s.key[0] == 0x030201u);
  CHECK(s.key[1] == 0);
  CHECK(s.size == fuzz::kMaxCaseSize / 2);
  std::vector<uint8_t> long_input(100, 0xff);
  CHECK(fuzz::decode_case_bytes(long_input.data(), long_input.size()).size == 0xff % (fuzz::kMaxCaseSize + 1));
  CHECK(fuzz::to_hex({0x00, 0xab, 0x10}) == "00ab10");
}

TEST_CASE("fuzz: shrinking keeps the failure and reaches a minimal case", "[fuzz]") {
  // A stand-in bug: "any case with an update stage fails". A minimal such case has one
  // update stage, no schedule, constant expressions and a one-point window (and one func,
  // or two when the update is a 0-dimensional func's: the output has a dimension).
  fuzz::CaseCheck check = [](const Program& p) {
    fuzz::CaseResult r;
    for (const FuncDef& f : p.pipeline.funcs)
      if (!f.updates.empty()) {
        r.verdict = fuzz::CaseResult::Verdict::Finding;
        r.kind = "has-update";
      }
    return r;
  };
  uint64_t found = 0;
  for (uint64_t k = 0; k < 200 && found < 3; ++k) {
    fuzz::CaseSeed cs = fuzz::campaign_case(5, k);
    rc::Shrinkable<Program> s = fuzz::generate_case(cs);
    fuzz::CaseResult first = check(s.value());
    if (!first.is_finding()) continue;
    ++found;
    Program original = s.value();
    fuzz::Minimized m = fuzz::minimize(s, first, check, fuzz::ShrinkBudget{500, 30});
    INFO(print_program(original) << "\nminimized to\n" << print_program(m.program));
    CHECK(m.result.kind == "has-update");
    CHECK(check(m.program).is_finding());
    CHECK(print_program(m.program).size() <= print_program(original).size());
    size_t updates = 0;
    for (const FuncDef& f : m.program.pipeline.funcs) updates += f.updates.size();
    CHECK(updates == 1);
    CHECK(m.program.pipeline.funcs.size() <= 2);
    CHECK(!m.program.schedule);
    CHECK(m.program.realize->window[0].len == Value(int64_t{1}));
    CHECK(print_program(m.program).size() <= 120);
    CHECK(m.tries >= m.steps);
  }
  CHECK(found == 3);
}

TEST_CASE("fuzz: findings are written atomically, self-contained and replayable", "[fuzz]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "halo_test_fuzz_findings";
  fs::remove_all(dir);
  // A stand-in bug: cases with a split fail.
  fuzz::CaseCheck check = [](const Program& p) {
    fuzz::CaseResult r;
    if (p.schedule)
      for (const Directive& d : *p.schedule)
        if (d.kind == DirectiveKind::Split) {
          r.verdict = fuzz::CaseResult::Verdict::Finding;
          r.kind = "has-split";
          r.detail = "a split";
        }
    return r;
  };
  fuzz::CampaignOptions o;
  o.seed = 3;
  o.cases = 200;
  o.out_dir = dir.string();
  o.max_findings = 2;
  o.reproduce = "halo fuzz --target self --replay {file}";
  fuzz::CampaignSummary s = fuzz::run_campaign(o, check);
  REQUIRE(s.findings.size() == 2);
  for (const fuzz::FindingReport& f : s.findings) {
    INFO(f.halo_file);
    REQUIRE(fs::exists(f.halo_file));
    REQUIRE(fs::exists(f.json_file));
    // The .halo file is the minimized case, parses as it is, and has its realization.
    Program p = parse_file(f.halo_file);
    CHECK(validate_program(p).empty());
    CHECK(same_program(p, f.minimized));
    REQUIRE(p.realize);
    REQUIRE(p.schedule);
    CHECK(p.schedule->size() == 1);  // the one split that fails
    std::ifstream in(f.json_file);
    nlohmann::json j = nlohmann::json::parse(in);
    CHECK(j["seed"] == 3);
    CHECK(j["case"] == f.index);
    CHECK(j["verdict"] == "has-split");
    CHECK(j["detail"] == "a split");
    CHECK(j["reproduce"].get<std::string>().find(f.halo_file) != std::string::npos);
    CHECK(j["fuzzer_input"].get<std::string>().size() == 66);
  }
  // No temporary file is left behind: the two findings (.halo and .json each) and the
  // campaign's progress record, which --resume reads (fuzz::campaign_progress_path).
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++files;
    if (e.path() == fs::path(fuzz::campaign_progress_path(o))) continue;
    CHECK(e.path().filename().string()[0] != '.');
  }
  CHECK(fs::exists(fuzz::campaign_progress_path(o)));
  CHECK(files == 5);
  fs::remove_all(dir);
}

TEST_CASE("fuzz: the fixed-seed campaign finds nothing and reaches every directive and feature", "[fuzz][campaign]") {
  // The campaign CI runs (tests/CMakeLists.txt runs it through the binary as well), here
  // without the per-case time limit, so that the counts do not depend on the machine's load.
  test::CliResult r = test::run_halo(
      {"fuzz", "--target", "self", "--cases", "300", "--seed", "20261121", "--case-timeout", "0", "--json"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["cases"] == 300);
  CHECK(j["findings"] == 0);
  CHECK(j["passed"].get<uint64_t>() + j["vacuous"].get<uint64_t>() + j["limits"].get<uint64_t>() == 300);
  CHECK(j["limits"].get<uint64_t>() <= 15);
  CHECK(j["cases_per_second"].get<double>() > 0);
  const nlohmann::json& cov = j["coverage"];
  CHECK(cov["not_reached"] == nlohmann::json::array());
  for (const std::string& d : fuzz::directive_coverage_names()) CHECK(cov["directives"][d].get<uint64_t>() > 0);
  for (const std::string& f : fuzz::feature_coverage_names()) CHECK(cov["features"][f].get<uint64_t>() > 0);
  // Most cases compute something: β0 succeeds and the run ends normally.
  CHECK(cov["outcomes"]["computed"].get<uint64_t>() >= 150);
}

TEST_CASE("fuzz: a case whose bounds inference runs away stops at the case deadline", "[fuzz][reliability]") {
  // Seed 11, case 540: β0's fills for a fused loop of a func with three rdom updates grow
  // until bounds inference alone took 145 s. The whole case shares one deadline (five
  // times --case-timeout), so it ends as a resource limit, not a stall of the campaign.
  Program p = parse_program(R"(pipeline f2() {
  fun f0(x) = { (x > x) / (x >= x) != (8 * x == (4 >= (-1))) }
  fun f1(x, y) = {
    f0[min(max(y >= y, (-1)), 0)];
    rdom(r10 = (2, 5)) in (x, y) <- f0[x + 1];
    rdom() in (x, y) <- f1[x, y] * 9 + (y < f0[x + 2])
  }
  fun f2(x, y) = {
    max(min(f1[y, y + 1], 9 != x), x);
    rdom(r10 = (2, 5)) in (x, y) <- f2[x, y] * 8 + f2[x, y];
    rdom(r20 = (1, 1), r21 = ((-2), 1)) in (x, y) <- f2[x, y] * 8 + f1[x + 1, y];
    rdom(r30 = (1, 5)) in (x, y) <- f2[x, y] * 9 + f1[r30, x - 1]
  }
}
schedule {
  traverse(<f1, 0, 1, r10>, serial);
  fuse(<f2, 0, 1, y>, yx);
  traverse(<f1, 0, 1, r10>, serial);
  align_bounds(f1, x, 4, 3);
  align_bounds(f2, y, 3, 1);
}
realize () over (-1, 1), (-3, 4)
)",
                            "<case-540>");
  Limits lim = fuzz::default_case_limits();
  lim.max_seconds = 0.5;
  auto t0 = std::chrono::steady_clock::now();
  fuzz::CaseResult r = fuzz::check_self(p, lim);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.detail);
  CHECK(r.verdict == fuzz::CaseResult::Verdict::Limit);
  CHECK(seconds < 30);  // 2.5 s of deadline; generous for sanitizer builds
}

TEST_CASE("fuzz: the combinations where Halide's bugs live are counted with how many ran", "[fuzz]") {
  Program p = parse_program(R"(pipeline out() {
  fun g(x, y) = { x + y }
  fun out(x, y) = { g[x, y] + g[x + 1, y] }
}
schedule {
  split(<out, 0, 0, x>, xo, xi, 4, predicate);
  traverse(<out, 0, 0, xi>, vectorized);
  compute_at(g, <out, 0, 0, xi>);
  async(g);
}
realize () over (0, 8), (0, 4)
)",
                            "<combinations>");
  std::vector<std::string> c = fuzz::combinations_in(p);
  CHECK(c == std::vector<std::string>{"async", "compute_at.split_variable", "sliding_window", "split.predicating_tail",
                                      "store_above_compute", "vectorize.split_variable"});
  // Stored where it is computed: no longer above it, no sliding window.
  Program q = parse_program(R"(pipeline out() {
  fun g(x) = { x }
  fun out(x) = { g[x] }
}
schedule {
  split(<out, 0, 0, x>, xo, xi, 4, guard);
  compute_at(g, <out, 0, 0, xo>);
  store_at(g, <out, 0, 0, xo>);
}
realize () over (0, 8)
)",
                            "<stored-at-compute>");
  CHECK(fuzz::combinations_in(q) == std::vector<std::string>{"compute_at.split_variable"});
  // `auto` is Halide's own tail but predicates nothing.
  Program a = q;
  (*a.schedule)[0].tail = TailStrategy::Auto;
  CHECK(fuzz::combinations_in(a) == std::vector<std::string>{"compute_at.split_variable"});
  (*a.schedule)[0].tail = TailStrategy::PredicateLoads;
  CHECK(fuzz::combinations_in(a) == std::vector<std::string>{"compute_at.split_variable", "split.predicating_tail"});
  fuzz::Coverage cov;
  cov.add_case(p, {"halide:pass", fuzz::kRanTag});
  cov.add_case(p, {"halide:not_expressible"});
  CHECK(cov.combinations["async"].cases == 2);
  CHECK(cov.combinations["async"].ran == 1);
  CHECK(cov.outcomes.count(fuzz::kRanTag) == 0);  // the tag feeds the combinations only
  CHECK(cov.to_json()["combinations"]["sliding_window"]["ran"] == 1);
}

// Campaigns on every core and within their time (issue 32): a campaign run as N jobs runs
// exactly the cases of one process and files the same findings once each; --time bounds
// the case in progress, shrinking and each finding's completion, not only the start of new
// cases; a campaign cut by its time or stopped mid-way resumes where each job stopped; the
// progress line says which case holds the campaign. Checks here are functions of the
// program (no candidate), so that the tests are about the campaign, not about Halide.
#include "fuzz/campaign.hpp"
#include "fuzz/case_gen.hpp"
#include "tests/support.hpp"
#include "fuzz/campaign_jobs.hpp"
#include "fuzz/candidate_campaign.hpp"
#include "semantics/parser.hpp"
#include "fuzz/coverage.hpp"
#include "semantics/printer.hpp"
#include "support/child_processes.hpp"
#include "tools/campaign_cli.hpp"
#include "tests/cli_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <rapidcheck/catch.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

using namespace halo;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool has_directive(const Program& p, const std::string& name) {
  for (const std::string& d : fuzz::directives_in(p))
    if (d == name) return true;
  return false;
}

// A finding for every case whose schedule has a compute_at: a property of the program, so
// shrinking keeps it, and the same minimized cases come out whichever process shrinks.
fuzz::CaseResult compute_at_is_a_finding(const Program& p) {
  fuzz::CaseResult r;
  if (has_directive(p, "compute_at")) {
    r.verdict = fuzz::CaseResult::Verdict::Finding;
    r.kind = "has-compute_at";
    r.detail = "a compute_at";
  }
  return r;
}

fuzz::CaseResult always_a_finding() {
  fuzz::CaseResult r;
  r.verdict = fuzz::CaseResult::Verdict::Finding;
  r.kind = "always";
  r.detail = "every case";
  return r;
}

// Waits like a candidate that hangs: until the campaign's deadline (or a stop) ends the wait.
fuzz::CaseResult hang_until_interrupted() {
  auto until = Clock::now() + std::chrono::seconds(120);
  while (Clock::now() < until && !candidate_waits_interrupted()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  fuzz::CaseResult r;
  r.verdict = fuzz::CaseResult::Verdict::Limit;
  r.detail = "interrupted";
  return r;
}

std::set<std::string> finding_keys(const fuzz::CampaignSummary& s) {
  std::set<std::string> keys;
  for (const auto& f : s.findings) keys.insert(f.kind + "\n" + print_program(f.minimized));
  return keys;
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("jobs: a campaign in three jobs runs the cases of one process and files the same findings once",
          "[fuzz][campaign][jobs]") {
  test::Scratch one("halo_jobs", "one"), three("halo_jobs", "three");
  fuzz::CampaignOptions opts;
  opts.seed = 5;
  opts.cases = 90;
  opts.shrink = fuzz::ShrinkBudget{40, 30};
  opts.out_dir = one.dir.string();
  fuzz::CampaignSummary straight = fuzz::run_campaign(opts, compute_at_is_a_finding);
  opts.out_dir = three.dir.string();
  fuzz::JobsOptions jobs;
  jobs.jobs = 3;
  fuzz::CampaignSummary split = fuzz::run_campaign_jobs(opts, jobs, compute_at_is_a_finding);
  REQUIRE(straight.findings.size() >= 1);
  CHECK(split.cases == straight.cases);
  CHECK(split.passed == straight.passed);
  CHECK(split.vacuous == straight.vacuous);
  CHECK(split.limits == straight.limits);
  CHECK(split.duplicates == straight.duplicates);
  CHECK(finding_keys(split) == finding_keys(straight));
  CHECK(split.coverage.to_json() == straight.coverage.to_json());
  // One file per distinct finding: a duplicate two jobs filed at once is removed.
  size_t halo_files = 0;
  for (const auto& e : fs::directory_iterator(three.dir)) halo_files += e.path().extension() == ".halo";
  CHECK(halo_files == split.findings.size());
  for (const auto& f : split.findings) {
    REQUIRE(fs::exists(f.halo_file));
    CHECK(read_json(f.json_file)["case"] == f.index);
  }
  // The progress record: one for the campaign, with every job's next case.
  size_t records = 0;
  for (const auto& [path, r] : fuzz::campaign_progress_records(three.dir.string())) {
    ++records;
    CHECK(r["jobs"] == 3);
    CHECK(r["finished"] == true);
  }
  CHECK(records == 1);
}

TEST_CASE("jobs: --time ends a case that hangs in one process and in jobs and leaves the case for --resume",
          "[fuzz][campaign][jobs][time]") {
  fuzz::CampaignOptions opts;
  opts.seed = 2;
  opts.seconds = 1;
  auto hang_on_second = [n = 0](const Program&) mutable {
    return ++n >= 2 ? hang_until_interrupted() : fuzz::CaseResult{};
  };
  auto t0 = Clock::now();
  fuzz::CampaignSummary s = fuzz::run_campaign(opts, hang_on_second);
  // The hang waits 120 s unless the deadline ends it; a loaded machine still ends far sooner.
  CHECK(seconds_since(t0) < 60);
  CHECK(s.cut_by_time);
  CHECK(s.cases == 1);  // the hung case is not counted
  CHECK_FALSE(s.interrupted);
  CHECK(s.next_case == 1);

  fuzz::JobsOptions jobs;
  jobs.jobs = 2;
  t0 = Clock::now();
  fuzz::CampaignSummary j = fuzz::run_campaign_jobs(opts, jobs, hang_on_second);
  CHECK(seconds_since(t0) < 60);
  CHECK(j.cut_by_time);
  CHECK(j.cases == 2);  // each job ran one case and hung on its second
}

TEST_CASE("jobs: --time bounds shrinking and a finding's completion and --resume completes the finding",
          "[fuzz][campaign][time]") {
  test::Scratch dir("halo_jobs", "completion");
  fuzz::CampaignOptions opts;
  opts.seed = 5;
  opts.cases = 40;
  opts.seconds = 1.5;
  opts.out_dir = dir.dir.string();
  opts.shrink = fuzz::ShrinkBudget{100000, 1000};
  opts.complete_record_keys = {"signature"};
  // A completion that takes until the campaign stops, as re-running a hang on every version does.
  bool patient = true;
  opts.complete_finding = [&](fuzz::FindingReport& f, const std::function<bool()>& stop) {
    while (patient && !stop()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (stop()) return;  // not done: the record keeps no signature
    f.record["signature"] = "sig";
    std::ofstream(f.json_file) << f.record.dump();
  };
  // Every case is a finding (the first one at once, however loaded the machine), and every
  // check is slow, so shrinking alone would take far longer than the campaign's time.
  auto slow = [](const Program&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return always_a_finding();
  };
  auto t0 = Clock::now();
  fuzz::CampaignSummary s = fuzz::run_campaign(opts, slow);
  CHECK(seconds_since(t0) < 60);
  REQUIRE(s.findings.size() == 1);
  CHECK(s.cut_by_time);
  CHECK(s.incomplete == 1);
  CHECK_FALSE(read_json(s.findings[0].json_file).contains("signature"));
  CHECK(s.next_case == s.findings[0].index + 1);  // the finding's case is done; its completion is not

  // Resumed with time to spare: the incomplete finding is redone and completed.
  patient = false;
  fuzz::CampaignOptions again = opts;
  again.seconds = 0;
  again.cases = s.next_case;  // nothing new: only the redo
  again.resume = true;
  again.first_case = s.next_case;
  again.shrink = fuzz::ShrinkBudget{5, 30};
  fuzz::CampaignSummary r = fuzz::run_campaign(again, [](const Program&) { return always_a_finding(); });
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].index == s.findings[0].index);
  CHECK(r.incomplete == 0);
  CHECK(read_json(r.findings[0].json_file)["signature"] == "sig");
}

TEST_CASE("jobs: a campaign stopped mid-way resumes each job where it stopped and finds what one straight run finds",
          "[fuzz][campaign][jobs][resume]") {
  test::Scratch straight_dir("halo_jobs", "straight"), dir("halo_jobs", "resumed");
  fuzz::CampaignOptions opts;
  opts.seed = 9;
  opts.cases = 60;
  // No shrinking: a shrink cut by the stop keeps a larger case than the straight run's, and
  // this test is about which cases run where, not about minimizing.
  opts.shrink = fuzz::ShrinkBudget{0, 30};
  opts.out_dir = straight_dir.dir.string();
  fuzz::CampaignSummary straight = fuzz::run_campaign(opts, compute_at_is_a_finding);

  opts.out_dir = dir.dir.string();
  fuzz::JobsOptions jobs;
  jobs.jobs = 2;
  // Stopped after a while (as a Ctrl-C would): the jobs keep what they did.
  auto t0 = Clock::now();
  auto stop = [&] { return seconds_since(t0) > 0.3; };
  auto slow = [](const Program& p) {
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
    return compute_at_is_a_finding(p);
  };
  fuzz::CampaignSummary first = fuzz::run_campaign_jobs(opts, jobs, slow, stop);
  auto records = fuzz::campaign_progress_records(dir.dir.string());
  REQUIRE(records.size() == 1);
  const nlohmann::json& rec = records.front().second;
  REQUIRE(rec["next_cases"].size() == 2);
  fuzz::JobsOptions resumed = jobs;
  for (const auto& n : rec["next_cases"])
    resumed.next_cases.push_back(n.is_null() ? std::nullopt : std::optional<uint64_t>(n.get<uint64_t>()));
  fuzz::CampaignOptions rest = opts;
  rest.resume = true;
  fuzz::CampaignSummary second = fuzz::run_campaign_jobs(rest, resumed, compute_at_is_a_finding);
  INFO("first part: " << first.cases << " cases, then " << second.cases);
  CHECK(first.cases + second.cases == straight.cases);
  std::set<std::string> found = finding_keys(first);
  for (const auto& k : finding_keys(second)) found.insert(k);
  CHECK(found == finding_keys(straight));
}

TEST_CASE("jobs: the coverage of several campaigns adds up", "[fuzz][campaign][jobs]") {
  fuzz::CampaignOptions opts;
  opts.seed = 3;
  opts.cases = 30;
  fuzz::CampaignSummary a = fuzz::run_campaign(opts, [](const Program&) { return fuzz::CaseResult{}; });
  fuzz::Coverage sum;
  sum.add_json(a.coverage.to_json());
  sum.add_json(a.coverage.to_json());
  for (const auto& [name, n] : a.coverage.directives) CHECK(sum.directives[name] == 2 * n);
  for (const auto& [name, n] : a.coverage.features) CHECK(sum.features[name] == 2 * n);
  CHECK(sum.not_reached() == a.coverage.not_reached());  // a zero stays unreached
}

TEST_CASE("jobs: the progress line says which case holds the campaign", "[fuzz][campaign][cli]") {
  fuzz::CampaignProgress p;
  p.cases = 120;
  p.seconds = 60;
  p.findings = 2;
  p.jobs = 2;
  std::string quiet = cli::progress_line("halo fuzz", p);
  CHECK(quiet.find("120 cases") != std::string::npos);
  CHECK(quiet.find("2.0 cases/s") != std::string::npos);
  CHECK(quiet.find("2 jobs") != std::string::npos);
  CHECK(quiet.find("running") == std::string::npos);
  p.working = true;
  p.current_case = 57;
  p.current_for = 12;
  p.phase = "case";
  CHECK(cli::progress_line("halo fuzz", p).find("case 57 running for 12 s") != std::string::npos);
  p.phase = "shrinking";
  CHECK(cli::progress_line("halo fuzz", p).find("shrinking case 57 for 12 s") != std::string::npos);
  p.phase = "completing";
  CHECK(cli::progress_line("halo fuzz", p).find("re-running case 57") != std::string::npos);
  p.current_for = 0.5;  // a moment: nothing said
  CHECK(cli::progress_line("halo fuzz", p).find("57") == std::string::npos);
}

TEST_CASE("jobs: halo fuzz --jobs N gives the summary of one process", "[fuzz][campaign][jobs][cli]") {
  auto campaign = [](const std::string& jobs) {
    test::CliResult r = test::run_halo({"fuzz", "--target", "self", "--cases", "40", "--seed", "4", "--jobs", jobs, "--json"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.out);
  };
  nlohmann::json a = campaign("1"), b = campaign("2");
  for (const char* key : {"cases", "passed", "vacuous", "limits", "findings", "coverage"}) {
    INFO(key);
    CHECK(a[key] == b[key]);
  }
  test::CliResult bad = test::run_halo({"fuzz", "--cases", "1", "--jobs", "0"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--jobs") != std::string::npos);
}

TEST_CASE("completing a finding: halo refusing its own case is an error of the re-run, not a stop", "[campaign]") {
  // A finding of kind internal-error is a case halo rejected although its generator made it
  // valid; re-running it at completion makes halo reject it again (an InputError). That is
  // recorded, and the campaign goes on: only a file that cannot be written stops it.
  struct Refusing : Candidate {
    std::string name() const override { return "refusing"; }
    std::string display_name() const override { return "Refusing"; }
    std::vector<CandidateVersion> versions() const override { return {}; }
    std::string unavailable_reason() const override { return ""; }
    CandidateVerdict run_case(const Program& p, const Input&, const CandidateOptions&) const override {
      throw InputError(Diagnostic{p.file, SourceLoc{12, 21}, "compute_at(w, <f, 0, 0, yo>): no loop 'yo'"});
    }
    std::string reproducer(const Program&, const Input&, const CandidateVerdict&,
                           const CandidateOptions&) const override {
      return "";
    }
    std::string reproducer_extension() const override { return ".cpp"; }
  } refusing;
  fuzz::FindingReport f;
  f.kind = "internal-error";
  f.minimized = parse_program("pipeline f() {\n  fun f(x) = { x }\n}\nrealize () over (0, 2)\n", "<case>");
  REQUIRE_NOTHROW(fuzz::complete_candidate_finding(f, refusing, CandidateOptions{}, nullptr));
  CHECK_THAT(f.record["rerun_error"].get<std::string>(), Catch::Contains("no loop 'yo'"));
  CHECK(f.record["reproduced"] == false);
  CHECK(f.record["signature"] == "unreproduced:internal-error");
}

// --windows: each program drawn runs on several output windows, each a case; a failure at
// one of them is the case's finding, shrunk and filed at that window.
TEST_CASE("windows: a program runs on its drawn window, then on others of its case, and fails at the one that fails",
          "[fuzz][campaign][jobs]") {
  test::Scratch dir("halo_windows", "w");
  std::set<std::string> kinds;  // the other windows' shapes the campaign met
  // A finding exactly when the window's first extent is a single point: a property of the
  // window, so the drawn window rarely has it and another window of the case often does.
  auto single_point_fails = [&](const Program& p) {
    fuzz::CaseResult r;
    const Interval& w = p.realize->window.at(0);
    if (w.len == Value(int64_t{0})) kinds.insert("empty");
    if (w.len == Value(int64_t{1})) kinds.insert("single");
    if (w.min.small() < 0) kinds.insert("negative");
    if (w.len == Value(int64_t{1})) {
      r.verdict = fuzz::CaseResult::Verdict::Finding;
      r.kind = "single-point";
      r.detail = "a window of one point";
    }
    return r;
  };
  fuzz::CampaignOptions opts;
  opts.seed = 9;
  opts.cases = 40;
  opts.windows = 4;
  opts.shrink = fuzz::ShrinkBudget{20, 30, 0};
  opts.out_dir = dir.dir.string();
  fuzz::CampaignSummary s = fuzz::run_campaign(opts, single_point_fails);
  CHECK(s.programs == 40);
  CHECK(s.cases > s.programs);
  CHECK(s.cases <= 4 * s.programs);
  CHECK(s.cases == s.passed + s.vacuous + s.limits + s.findings.size() + s.duplicates);
  CHECK(kinds == std::set<std::string>{"empty", "single", "negative"});
  size_t at_other_window = 0;
  for (const fuzz::FindingReport& f : s.findings) {
    INFO(f.index << " window " << f.window);
    CHECK(f.record["window"] == f.window);
    CHECK(f.minimized.realize->window.at(0).len == Value(int64_t{1}));
    if (f.window == 0) continue;
    ++at_other_window;
    CHECK(f.window < 4);
    std::ifstream in(f.halo_file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK_THAT(text, Catch::Contains(fmt::format("at its window {} (--windows)", f.window)));
    // The window filed is the case's own: the finding's program reads back as it was filed.
    CHECK(f.minimized.realize->window.size() == parse_program(text, f.halo_file).realize->window.size());
  }
  CHECK(at_other_window > 0);
  // The same campaign twice is the same campaign; in three jobs too.
  test::Scratch again("halo_windows", "again");
  opts.out_dir = again.dir.string();
  fuzz::CampaignSummary t = fuzz::run_campaign(opts, single_point_fails);
  CHECK(t.cases == s.cases);
  CHECK(finding_keys(t) == finding_keys(s));
  test::Scratch split_dir("halo_windows", "split");
  opts.out_dir = split_dir.dir.string();
  fuzz::JobsOptions jobs;
  jobs.jobs = 3;
  fuzz::CampaignSummary split = fuzz::run_campaign_jobs(opts, jobs, single_point_fails);
  CHECK(split.cases == s.cases);
  CHECK(split.programs == s.programs);
  // One window: one case per program, as before --windows.
  opts.windows = 1;
  opts.out_dir.clear();
  fuzz::CampaignSummary one = fuzz::run_campaign(opts, single_point_fails);
  CHECK(one.cases == one.programs);
}

TEST_CASE("windows: a case's other windows are its own, bounded, and reach the edges", "[fuzz][property]") {
  rc::prop("case_window", [](uint64_t seed, uint64_t index, uint8_t j0, bool two_d) {
    fuzz::CaseSeed cs = fuzz::campaign_case(seed, index);
    uint64_t j = 1 + j0 % 8;
    std::vector<Interval> drawn = {Interval{Value(int64_t{-3}), Value(int64_t{64}), {}}};
    if (two_d) drawn.push_back(Interval{Value(int64_t{2}), Value(int64_t{32}), {}});
    std::vector<Interval> w = fuzz::case_window(cs, j, drawn);
    RC_ASSERT(w.size() == drawn.size());
    RC_ASSERT(w == fuzz::case_window(cs, j, drawn));
    int64_t points = 1;
    for (const Interval& d : w) {
      RC_ASSERT(d.min.small() >= -9);
      RC_ASSERT(d.min.small() <= 9);
      RC_ASSERT(d.len.small() >= 0);
      RC_ASSERT(d.len.small() <= 2 * 64 + 4);
      points *= std::max<int64_t>(d.len.small(), 1);
    }
    RC_ASSERT(points <= 4096);
  });
  // Over a campaign's first cases, the other windows reach the edges: empty, a single point,
  // a negative minimum, and extents past the drawn one.
  std::set<std::string> reached;
  const std::vector<Interval> drawn = {Interval{Value(int64_t{0}), Value(int64_t{8}), {}}};
  for (uint64_t k = 0; k < 200; ++k)
    for (uint64_t j = 1; j < 4; ++j) {
      const Interval w = fuzz::case_window(fuzz::campaign_case(1, k), j, drawn).at(0);
      if (w.len == Value(int64_t{0})) reached.insert("empty");
      if (w.len == Value(int64_t{1})) reached.insert("single");
      if (w.min.small() < 0) reached.insert("negative");
      if (w.len.small() > 8) reached.insert("wider");
    }
  CHECK(reached == std::set<std::string>{"empty", "single", "negative", "wider"});
}

TEST_CASE("windows: a program that pins its output's region keeps its own window", "[fuzz]") {
  // bound(out, x, 2, 2) asks for out on [2, 4) only: another window is another request,
  // which Halide refuses with a runtime assertion that halo's own pipeline cannot match.
  const std::string pipe = "pipeline out() { fun g(x) = { x } fun out(x) = { g[x] + 1 } }\n";
  CHECK(fuzz::windows_are_free(test::parse_valid(pipe + "schedule { split(<out, 0, 0, x>, xo, xi, 2, guard); }")));
  CHECK(fuzz::windows_are_free(test::parse_valid(pipe + "schedule { bound(g, x, 0, 8); }")));
  CHECK_FALSE(fuzz::windows_are_free(test::parse_valid(pipe + "schedule { bound(out, x, 2, 2); }")));
  CHECK_FALSE(fuzz::windows_are_free(test::parse_valid(pipe + "schedule { bound_extent(out, x, 4); }")));
  CHECK_FALSE(fuzz::windows_are_free(test::parse_valid(pipe + "schedule { align_bounds(out, x, 4, 0); }")));
}

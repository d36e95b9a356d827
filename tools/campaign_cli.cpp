// Options, Ctrl-C, progress and summaries of `halo fuzz` and `halo comply`: see campaign_cli.hpp.
#include "tools/campaign_cli.hpp"
#include "fuzz/campaign_jobs.hpp"
#include "support/json_text.hpp"
#include "support/output_file.hpp"

#include "support/test_mutation.hpp"
#include "interp/input.hpp"
#include "schedule/schedule.hpp"
#include "support/child_processes.hpp"
#include "semantics/lexer.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/validity.hpp"
#include "tools/commands.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <optional>
#include <set>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <iostream>

namespace halo::cli {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void on_sigint(int sig) {
  if (!g_interrupted) {
    g_interrupted = 1;
    set_candidate_waits_interrupted(true);  // the case in progress ends now, not at its limit
    return;
  }
  kill_all_candidates();  // nothing a candidate started may outlive halo
  signal(sig, SIG_DFL);
  raise(sig);
}

// SIGINT sets a flag for the duration of a campaign; a second Ctrl-C kills the candidates
// and then the process as usual, for a user who does not want to wait for the current case.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted = 0;
    set_candidate_waits_interrupted(false);
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    installed_ = sigaction(SIGINT, &sa, &old_) == 0;
  }
  ~InterruptGuard() {
    if (installed_) sigaction(SIGINT, &old_, nullptr);
    set_candidate_waits_interrupted(false);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  bool interrupted() const { return g_interrupted != 0; }

 private:
  struct sigaction old_ {};
  bool installed_ = false;
};

// Redraws the progress line every quarter second from the newest report, so that a case,
// a shrink or a completion that runs long shows its time growing instead of a frozen line.
class ProgressTicker {
 public:
  ProgressTicker(std::string name, std::ostream& err) : name_(std::move(name)), err_(err) {
    thread_ = std::thread([this] { loop(); });
  }
  ~ProgressTicker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
    err_ << "\r\033[K" << std::flush;
  }
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;
  void update(const fuzz::CampaignProgress& p) {
    std::lock_guard<std::mutex> lock(mutex_);
    latest_ = p;
    heard_ = std::chrono::steady_clock::now();
    have_ = true;
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!done_) {
      wake_.wait_for(lock, std::chrono::milliseconds(250));
      if (done_ || !have_) continue;
      fuzz::CampaignProgress p = latest_;
      double since = std::chrono::duration<double>(std::chrono::steady_clock::now() - heard_).count();
      p.seconds += since;
      if (p.working) p.current_for += since;
      err_ << "\r" << progress_line(name_, p) << "\033[K" << std::flush;
    }
  }
  std::string name_;
  std::ostream& err_;
  std::mutex mutex_;
  std::condition_variable wake_;
  fuzz::CampaignProgress latest_;
  std::chrono::steady_clock::time_point heard_;
  bool have_ = false, done_ = false;
  std::thread thread_;
};

std::string outcome_list(const std::map<std::string, uint64_t>& m) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : m) parts.push_back(fmt::format("{} {}", k, v));
  return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", "));
}

void print_summary(const fuzz::CampaignSummary& s, const CampaignCommand& c, int jobs, std::ostream& out) {
  out << fmt::format("halo {} (target {}): {} cases{}, seed {}, shard {}/{}, {:.1f} s, {:.1f} cases/s{}{}\n", c.name,
                     s.target, s.cases,
                     s.programs != s.cases ? fmt::format(" ({} programs, each on up to several windows: --windows)", s.programs) : "",
                     s.seed, s.shard, s.shards, s.seconds, s.cases_per_second(),
                     jobs > 1 ? fmt::format(" ({} jobs)", jobs) : "", s.interrupted ? " (interrupted)" : "");
  if (s.cut_by_time)
    out << "  --time ran out in the middle of work: the case in progress was left for --resume, a shrink kept its "
           "smallest case so far\n";
  if (s.dropped_beyond_max)
    out << fmt::format("  {} more finding(s), filed by other jobs at the same moment, dropped: --max-findings {}\n",
                       s.dropped_beyond_max, s.findings.size() + s.earlier_findings);
  if (s.incomplete)
    out << fmt::format("  {} finding(s) not completed (re-run on every version, reproducer) before the campaign "
                       "stopped: --resume DIR completes them\n",
                       s.incomplete);
  if (!s.write_error.empty())
    out << fmt::format("  stopped: a file of the campaign could not be written: {}\n", s.write_error);
  out << fmt::format("  {} finding(s); {} passed, {} vacuous (the engine gave up: `assert 0`), {} stopped by a "
                     "resource limit (not findings){}\n",
                     s.findings.size(), s.passed, s.vacuous, s.limits,
                     s.duplicates ? fmt::format(", {} duplicate finding(s)", s.duplicates) : "");
  nlohmann::json cov = s.coverage.to_json();
  out << fmt::format("  coverage: directives {}, language features {}", cov["directives_reached"].get<std::string>(),
                     cov["features_reached"].get<std::string>());
  // The semantics generator must reach every directive and feature; a target's own generator
  // (the Halide one) leaves the semantics' corners out on purpose, so its misses say nothing.
  auto missing = s.coverage.not_reached();
  out << (missing.empty() || c.generator ? "\n" : fmt::format(" (not reached: {})\n", fmt::join(missing, ", ")));
  out << "  outcomes: " << outcome_list(s.coverage.outcomes) << "\n";
  std::vector<std::string> combos;  // cases with the combination, of which the candidate ran
  for (const std::string& n : fuzz::combination_coverage_names()) {
    auto it = s.coverage.combinations.find(n);
    if (it != s.coverage.combinations.end()) combos.push_back(fmt::format("{} {} ({} ran)", n, it->second.cases, it->second.ran));
  }
  if (!combos.empty()) out << "  combinations: " << fmt::format("{}", fmt::join(combos, ", ")) << "\n";
  if (!s.coverage.types.empty()) {
    out << "  types (cases): " << outcome_list(s.coverage.types) << "\n";
    out << "  Halide operators (cases): " << outcome_list(s.coverage.operators) << "\n";
  }
  for (size_t i = 0; i < s.findings.size(); ++i) {
    const fuzz::FindingReport& f = s.findings[i];
    out << fmt::format("\nfinding {}: case {} (size {}): {}\n  {}\n", i + 1, f.index, f.seed.size, f.kind, f.detail);
    if (f.kind == "generator") continue;
    out << fmt::format("  minimized in {} steps ({} candidates checked), {} → {} characters\n", f.shrink_steps,
                       f.shrink_tries, f.original_chars, f.minimized_chars);
    if (!f.halo_file.empty()) {
      out << "  written to " << f.halo_file << " and " << f.json_file << "\n";
      if (f.record.contains("reproduce")) out << "  reproduce: " << f.record["reproduce"].get<std::string>() << "\n";
    } else {
      out << "  the minimized case (write it with --out DIR):\n" << print_program(f.minimized);
    }
  }
}

// --replay: the same check on cases from files (a finding, a corpus, a hand-written case).
int replay(const CampaignCliOptions& o, const CampaignCommand& c, const Limits& lim, std::ostream& out) {
  nlohmann::json results = nlohmann::json::array();
  int findings = 0;
  // A --out folder that cannot be made is refused before any case runs, not at the first finding.
  if (o.shrink && !o.out_dir.empty()) create_output_directory(o.out_dir);
  for (const std::string& file : o.replay) {
    Program p = parse_file(file);
    check_program(p);
    // A schedule that breaks a rule of §2.8 is bad input, as for `halo check`; Halide's own
    // directives are Halide's to judge (the loops they name are checked where they stand).
    if (c.candidate_directives) schedule_formal_part(p);
    else schedule_pipeline(p);
    resolve_input(p, {});  // a case needs its realization: a missing parameter is bad input
    fuzz::CaseResult r = c.check(p, lim);
    std::string shrunk_file;
    if (o.shrink && r.is_finding()) {
      // Only the structural reductions apply: a file has no RapidCheck choices to shrink.
      auto shrink_check = c.shrink_check ? c.shrink_check(r) : c.check;
      fuzz::Minimized m = fuzz::minimize(rc::shrinkable::just(p), r, [&](const Program& q) { return shrink_check(q, lim); },
                                         fuzz::ShrinkBudget{o.shrink_tries, o.shrink_seconds});
      std::filesystem::path src(file);
      std::filesystem::path dir = o.out_dir.empty() ? src.parent_path() : std::filesystem::path(o.out_dir);
      if (!o.out_dir.empty()) create_output_directory(dir.string());
      shrunk_file = (dir / (src.stem().string() + ".shrunk.halo")).string();
      write_file_atomically(shrunk_file, print_program(m.program) +
                                                   fmt::format("\n# shrunk again from {} in {} steps ({} candidates "
                                                               "checked); still: {}: {}\n",
                                                               file, m.steps, m.tries, m.result.kind,
                                                               m.result.detail.substr(0, 300)));
      r = m.result;
    }
    const char* verdict = r.is_finding() ? "finding" : r.verdict == fuzz::CaseResult::Verdict::Limit ? "limit" : "pass";
    findings += r.is_finding();
    if (o.json) {
      results.push_back({{"file", file}, {"verdict", verdict}, {"kind", r.kind}, {"detail", r.detail},
                         {"outcomes", r.outcomes}});
      if (!shrunk_file.empty()) results.back()["shrunk"] = shrunk_file;
    } else if (r.is_finding()) {
      out << fmt::format("{}: finding: {}: {}\n", file, r.kind, r.detail);
      if (!shrunk_file.empty()) out << fmt::format("  shrunk: {}\n", shrunk_file);
    } else if (r.verdict == fuzz::CaseResult::Verdict::Limit) {
      out << fmt::format("{}: stopped by a resource limit (not a finding): {}\n", file, r.detail);
    } else {
      out << fmt::format("{}: pass ({})\n", file, fmt::join(r.outcomes, ", "));
    }
  }
  if (o.json) out << nlohmann::json{{"replayed", results}, {"findings", findings}}.dump(-1, ' ', false, kReplaceInvalidUtf8) << "\n";
  return findings ? kExitFinding : kExitOk;
}

}  // namespace

void with_campaign_progress(const std::string& name, std::ostream& err,
                            const std::function<void(const fuzz::ProgressFn&, const std::function<bool()>&)>& body) {
  std::optional<ProgressTicker> ticker;
  if (&err == &std::cerr && isatty(STDERR_FILENO)) ticker.emplace(name, err);
  InterruptGuard guard;
  body([&](const fuzz::CampaignProgress& p) {
         if (ticker) ticker->update(p);
       },
       [&] { return guard.interrupted(); });
}

std::string progress_line(const std::string& command, const fuzz::CampaignProgress& p) {
  std::string line = fmt::format("{}: {} cases, {:.1f} cases/s, {} finding(s), {} limit(s), {:.0f} s", command, p.cases,
                                 p.cases_per_second(), p.findings, p.limits, p.seconds);
  if (p.jobs > 1) line += fmt::format(", {} jobs", p.jobs);
  // A moment is what a typical case takes; past it, the line says what holds the campaign.
  if (p.working && p.current_for >= 2) {
    if (p.phase == "shrinking") line += fmt::format("; shrinking case {} for {:.0f} s", p.current_case, p.current_for);
    else if (p.phase == "completing")
      line += fmt::format("; re-running case {} on every version for {:.0f} s", p.current_case, p.current_for);
    else line += fmt::format("; case {} running for {:.0f} s", p.current_case, p.current_for);
  }
  return line;
}

std::pair<uint64_t, uint64_t> parse_shard(const std::string& s) {
  size_t slash = s.find('/');
  try {
    if (slash != std::string::npos) {
      size_t used = 0;
      uint64_t i = std::stoull(s.substr(0, slash), &used);
      if (used == slash) {
        std::string rest = s.substr(slash + 1);
        uint64_t n = std::stoull(rest, &used);
        if (used == rest.size() && n > 0 && i < n && s[0] != '-' && rest[0] != '-') return {i, n};
      }
    }
  } catch (const std::exception&) {
  }
  throw InputError(Diagnostic{"--shard", {}, fmt::format("expects I/N with 0 <= I < N (this machine's share of N), "
                                                         "got '{}'", s)});
}

namespace {

// An option's values as the record keeps them: as given, else its default (none: absent).
std::optional<std::vector<std::string>> option_values(const CLI::App* app, const std::string& name) {
  const CLI::Option* opt = app->get_option_no_throw(name);
  if (!opt) return std::nullopt;
  if (opt->count() > 0) return opt->results();
  std::string d = opt->get_default_str();
  if (d.empty()) return std::nullopt;
  return std::vector<std::string>{d};
}

std::string values_text(const std::vector<std::string>& v) { return fmt::format("{}", fmt::join(v, " ")); }

// Given and recorded values agree: the same text, or the same number (`--case-timeout 2`
// and a recorded default "2.000000").
bool same_values(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.size() != b.size()) return false;
  auto number = [](const std::string& s, double& x) {
    char* end = nullptr;
    x = std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size();
  };
  for (size_t i = 0; i < a.size(); ++i) {
    double x = 0, y = 0;
    if (a[i] != b[i] && !(number(a[i], x) && number(b[i], y) && x == y)) return false;
  }
  return true;
}

// The options a progress record holds; a record written before options were recorded has
// target, seed and shard only.
nlohmann::json record_options(const nlohmann::json& r, const std::string& command) {
  if (r.contains("options") && r["options"].is_object()) return r["options"];
  nlohmann::json o = nlohmann::json::object();
  if (r["seed"].is_number_unsigned()) o["--seed"] = {std::to_string(r["seed"].get<uint64_t>())};
  if (r["shard"].is_number_unsigned() && r["shards"].is_number_unsigned())
    o["--shard"] = {fmt::format("{}/{}", r["shard"].get<uint64_t>(), r["shards"].get<uint64_t>())};
  if (command == "fuzz" && r["target"].is_string()) o["--target"] = {r["target"].get<std::string>()};
  return o;
}

std::string record_summary(const nlohmann::json& r, const nlohmann::json& options) {
  std::vector<std::string> parts;
  for (const auto& [name, v] : options.items())
    if (v.is_array()) parts.push_back(name + " " + values_text(v.get<std::vector<std::string>>()));
  return fmt::format("{}", fmt::join(parts, " ")) +
         (r["next_case"].is_number_unsigned() ? fmt::format(" (next case {})", r["next_case"].get<uint64_t>()) : "");
}

}  // namespace

void resume_recorded_campaign(CampaignCliOptions& o, const std::string& command) {
  if (o.resume_dir.empty()) return;
  if (!o.out_dir.empty() && o.out_dir != o.resume_dir)
    throw InputError(Diagnostic{"--resume", {}, "--resume DIR writes its findings to DIR; drop --out or give the same directory"});
  std::error_code ec;
  if (!std::filesystem::is_directory(o.resume_dir, ec))
    throw InputError(Diagnostic{o.resume_dir, {}, "no campaign to resume: not a directory (run the campaign with --out DIR first)"});
  struct Recorded {
    std::string path;
    nlohmann::json record, options;
  };
  std::vector<Recorded> all, matching;
  for (auto& [path, r] : fuzz::campaign_progress_records(o.resume_dir)) {
    bool comply_record = r.value("target", std::string()) == "engine";
    if (comply_record != (command == "comply")) continue;
    if (!r["next_case"].is_number_unsigned() || !r["seed"].is_number_unsigned()) continue;
    all.push_back({path, r, record_options(r, command)});
  }
  if (all.empty())
    throw InputError(Diagnostic{o.resume_dir, {}, fmt::format("no halo {} campaign to resume here (no progress file "
                                                              ".halo-campaign-*.progress: run it with --out DIR)",
                                                              command)});
  // A flag given explicitly selects the campaigns recorded with the same value.
  std::vector<std::vector<std::string>> contradictions(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    const Recorded& r = all[i];
    for (const std::string& name : o.identity_options) {
      const CLI::Option* opt = o.app->get_option_no_throw(name);
      if (!opt || opt->count() == 0) continue;
      // Not in the record: not given then (its default), or, in a record from before options
      // were recorded, unknown.
      if (!r.options.contains(name) && !r.record.contains("options")) continue;
      std::vector<std::string> recorded;
      if (r.options.contains(name)) recorded = r.options[name].get<std::vector<std::string>>();
      else if (!opt->get_default_str().empty()) recorded = {opt->get_default_str()};
      if (same_values(opt->results(), recorded)) continue;
      contradictions[i].push_back(fmt::format("{} {} contradicts the campaign recorded in {} ({})", name,
                                              values_text(opt->results()), r.path,
                                              recorded.empty() ? name + " not given" : name + " " + values_text(recorded)));
    }
    if (contradictions[i].empty()) matching.push_back(r);
  }
  // None matches, one comes closest: what contradicts it.
  if (matching.empty()) {
    size_t best = 0, ties = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      if (contradictions[i].size() < contradictions[best].size()) best = i, ties = 0;
      else if (i != best && contradictions[i].size() == contradictions[best].size()) ++ties;
    }
    if (ties == 0)
      throw InputError(Diagnostic{"--resume", {}, fmt::format("{}: drop the flag{} to continue it",
                                                              fmt::join(contradictions[best], "; "),
                                                              contradictions[best].size() > 1 ? "s" : "")});
  }
  if (matching.size() != 1) {
    const std::vector<Recorded>& listed_records = matching.empty() ? all : matching;
    // Only what tells them apart.
    std::set<std::string> differing;
    for (const Recorded& a : listed_records)
      for (const auto& [name, v] : a.options.items())
        for (const Recorded& b : listed_records)
          if (!b.options.contains(name) || b.options[name] != v) differing.insert(name);
    std::vector<std::string> listed;
    for (const Recorded& r : listed_records) {
      nlohmann::json shown = nlohmann::json::object();
      for (const std::string& name : differing)
        if (r.options.contains(name)) shown[name] = r.options[name];
      listed.push_back("  " + record_summary(r.record, shown));
    }
    throw InputError(Diagnostic{
        o.resume_dir, {},
        fmt::format("{} campaigns recorded here {}; say which with the options that tell them apart:\n{}",
                    listed_records.size(),
                    matching.empty() ? "and none matches the options given" : "match the options given",
                    fmt::join(listed, "\n"))});
  }
  const Recorded& r = matching.front();
  // Every recorded option not given explicitly takes its recorded value.
  for (const auto& [name, values] : r.options.items()) {
    CLI::Option* opt = o.app->get_option_no_throw(name);
    if (!opt || opt->count() > 0 || !values.is_array()) continue;
    std::vector<std::string> v = values.get<std::vector<std::string>>();
    if (v.size() == 1 && v.front() == opt->get_default_str()) continue;  // the default already
    try {
      opt->clear();
      for (const std::string& x : v) opt->add_result(x);
      opt->run_callback();
    } catch (const CLI::Error& e) {
      throw InputError(Diagnostic{r.path, {}, fmt::format("the recorded {} {} is not valid: {}", name, values_text(v), e.what())});
    }
  }
  o.resumed_record = r.record;
  o.resumed_path = r.path;
}

nlohmann::json campaign_identity(const CampaignCliOptions& o, uint64_t effective_cases) {
  nlohmann::json id = nlohmann::json::object();
  if (!o.app) return id;
  for (const std::string& name : o.identity_options)
    if (auto v = option_values(o.app, name)) id[name] = *v;
  // --cases has no default of its own (1000 unless --time is given): the cases it means.
  if (effective_cases) id["--cases"] = {std::to_string(effective_cases)};
  else id.erase("--cases");
  return id;
}

void add_campaign_options(CLI::App* cmd, CampaignCliOptions& o) {
  o.app = cmd;
  o.identity_options = {"--seed",         "--cases",     "--time",      "--shard",       "--max-findings",
                        "--shrink-tries", "--shrink-time", "--max-steps", "--case-timeout",
                        "--minimize-per-signature", "--windows"};
  cmd->add_option("--cases", o.cases, "run this many cases (default 1000 unless --time is given)")
      ->check(unsigned_integer() & CLI::PositiveNumber);
  cmd->add_option("--windows", o.windows,
                  "run each program on N output windows, the one drawn and N-1 others of its case (each a case; "
                  "the others after a pass; default: the target's, 4 for Halide, which compiles once for all)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--time", o.seconds, "run cases for this many seconds (with --cases: whichever ends first)")
      ->check(seconds_value() & CLI::PositiveNumber);
  cmd->add_option("--seed", o.seed, "the campaign seed: the same seed gives the same cases")
      ->check(unsigned_integer())
      ->capture_default_str();
  cmd->add_option("--out", o.out_dir, "write each finding here: a minimized .halo case and a JSON record");
  cmd->add_flag("--json", o.json, "print the summary as JSON on stdout");
  cmd->add_option("--shard", o.shard, "run only cases k with k mod N = I (I/N), to split a campaign across machines")
      ->capture_default_str();
  cmd->add_option("--max-findings", o.max_findings, "stop after this many distinct findings (0: no limit)")
      ->check(unsigned_integer())
      ->capture_default_str();
  cmd->add_option("--shrink-tries", o.shrink_tries, "check at most this many smaller candidates per finding")
      ->check(unsigned_integer())
      ->capture_default_str();
  cmd->add_option("--shrink-time", o.shrink_seconds, "shrink each finding for at most this many seconds")
      ->check(seconds_value())
      ->capture_default_str();
  cmd->add_option("--minimize-per-signature", o.minimize_per_signature,
                  "minimize at most this many findings of one candidate failure signature per process; later ones "
                  "are filed as generated and not re-run on the other versions, their record naming the minimized "
                  "cases and taking the first one's signature (0: minimize and re-run every finding)")
      ->check(unsigned_integer())
      ->capture_default_str();
  cmd->add_option("--max-steps", o.max_steps, "per case: stop an evaluation after this many steps (not a finding)")
      ->check(unsigned_integer())
      ->capture_default_str();
  cmd->add_option("--case-timeout", o.case_timeout, "per case: stop an evaluation after this many seconds (not a finding)")
      ->check(seconds_value())
      ->capture_default_str();
  cmd->add_option("--resume", o.resume_dir,
                  "continue the campaign whose findings are in DIR after its last finished case (same seed and "
                  "shard; --cases and --time bound the continuation)");
  cmd->add_option("--jobs", o.jobs,
                  fmt::format("run the campaign as N processes, each a shard of it, into one findings directory "
                              "(default: every core, {} here); the cases are the same whatever N is",
                              fuzz::available_cores()))
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--replay", o.replay, "check these .halo files instead of generating cases (repeatable)");
  cmd->add_flag("--shrink", o.shrink,
                "with --replay: shrink each file that is a finding again (structural reductions, the shrink budget), "
                "writing NAME.shrunk.halo beside it or into --out");
  cmd->add_option("--fuzzer-input", o.fuzzer_inputs,
                  "run the cases these libFuzzer inputs decode to (fuzz/libfuzzer/), shrinking and writing findings "
                  "as a campaign does (repeatable)");
}

int run_campaign_command(const CampaignCliOptions& o, const CampaignCommand& c, std::ostream& out, std::ostream& err) {
  Limits lim = fuzz::default_case_limits();
  lim.max_steps = o.max_steps;
  lim.max_seconds = o.case_timeout;
  if (!active_test_mutation().empty())
    err << fmt::format("halo {}: note: the test mutation HALO_MUTATION={} is on: halo breaks one of its own rules "
                       "on purpose (support/test_mutation.hpp)\n",
                       c.name, active_test_mutation());
  if (!o.replay.empty()) return replay(o, c, lim, out);

  auto [shard, shards] = parse_shard(o.shard);
  fuzz::CampaignOptions opts;
  opts.target = c.target;
  opts.seed = o.seed;
  opts.cases = o.cases;
  opts.windows = o.windows > 0 ? o.windows : c.windows;
  opts.seconds = o.seconds;
  if (opts.cases == 0 && opts.seconds <= 0) opts.cases = 1000;
  opts.shard = shard;
  opts.shards = shards;
  opts.out_dir = o.out_dir;
  opts.max_findings = o.max_findings;
  opts.shrink = fuzz::ShrinkBudget{o.shrink_tries, o.shrink_seconds, o.minimize_per_signature};
  opts.reproduce = c.reproduce;
  opts.record_extra = c.record_extra;
  opts.generator = c.generator;
  opts.complete_finding = c.complete_finding;
  opts.complete_record_keys = c.complete_record_keys;
  opts.identity = campaign_identity(o, opts.cases);
  if (!o.resumed_record.is_null()) {
    // resume_recorded_campaign has set every recorded option: this is the recorded campaign.
    const nlohmann::json& j = o.resumed_record;
    opts.resume = true;
    opts.first_case = j["next_case"].get<uint64_t>();
    opts.out_dir = o.resume_dir;
    opts.progress_path = o.resumed_path;
    if (j.contains("options")) opts.identity = j["options"];
    // Nothing left in this shard (a record of jobs says so per job: JobsOptions below).
    if (j.value("finished", false) && !j.contains("next_cases")) opts.cases = opts.first_case;
  }
  // The jobs: a resumed campaign keeps the division it was recorded with (the cases are the
  // same whatever it is; which job is where is not); replays and fuzzer inputs run here.
  fuzz::JobsOptions jobs;
  jobs.jobs = o.jobs > 0 ? o.jobs : fuzz::available_cores();
  if (!o.resumed_record.is_null()) {
    const nlohmann::json& j = o.resumed_record;
    int recorded = j.contains("next_cases") && j["next_cases"].is_array() ? int(j["next_cases"].size()) : 1;
    if (o.jobs > 0 && o.jobs != recorded)
      err << fmt::format("halo {}: note: continuing as the {} job(s) the campaign was recorded with (--jobs {} "
                         "ignored)\n",
                         c.name, recorded, o.jobs);
    jobs.jobs = recorded;
    if (recorded > 1)
      for (const auto& n : j["next_cases"])
        jobs.next_cases.push_back(n.is_number_unsigned() ? std::optional<uint64_t>(n.get<uint64_t>()) : std::nullopt);
  }
  if (!opts.inputs.empty()) jobs.jobs = 1;
  // The jobs' shards are I + N·j of N·J: a division that does not fit in 64 bits runs here.
  uint64_t job_shards = 0;
  if (__builtin_mul_overflow(opts.shards, uint64_t(jobs.jobs), &job_shards)) jobs.jobs = 1;
  for (const std::string& file : o.fuzzer_inputs) {
    std::string text = read_source_file(file);  // refuses directories and devices
    std::vector<uint8_t> bytes(text.begin(), text.end());
    opts.inputs.push_back(fuzz::decode_case_bytes(bytes.data(), bytes.size()));
  }

  auto check = [&](const Program& p) { return c.check(p, lim); };
  if (c.shrink_check)
    opts.shrink_check = [&](const fuzz::CaseResult& found) -> fuzz::CaseCheck {
      auto candidate = c.shrink_check(found);
      return [candidate, &lim](const Program& p) { return candidate(p, lim); };
    };
  fuzz::CampaignSummary s;
  with_campaign_progress("halo " + c.name, err, [&](const fuzz::ProgressFn& show, const std::function<bool()>& stop) {
    auto progress = [&](const fuzz::CampaignProgress& p) {
      fuzz::CampaignProgress shown = p;
      shown.jobs = jobs.jobs;
      show(shown);
    };
    s = jobs.jobs > 1 ? fuzz::run_campaign_jobs(opts, jobs, check, stop, progress)
                      : fuzz::run_campaign(opts, check, stop, progress);
  });
  if (s.interrupted) err << fmt::format("halo {}: interrupted; {} finding(s) kept\n", c.name, s.findings.size());
  nlohmann::json extra_json = nlohmann::json::object();
  std::string extra_text;
  // After a write failure the disk is full: the summary is printed, no more files written.
  if (c.finish && !s.write_failure) {
    try {
      c.finish(s, extra_json, extra_text);
    } catch (const InputError& e) {  // a reproducer or completed record that cannot be written
      s.write_error = e.what();
      s.write_failure = std::current_exception();
    }
  }
  if (o.json) {
    nlohmann::json j = s.to_json();
    for (const auto& [k, v] : extra_json.items()) j[k] = v;
    out << j.dump(-1, ' ', false, kReplaceInvalidUtf8) << "\n";
  } else {
    print_summary(s, c, jobs.jobs, out);
    out << extra_text;
  }
  // A finding or the progress could not be written: the summary above says what is on disk;
  // the error (with the system's reason) ends the command with status 2.
  if (s.write_failure) {
    out << std::flush;
    err << fmt::format("halo {}: stopped: a file of the campaign could not be written; every finding listed is on "
                       "disk complete, and --resume {} redoes the case that failed\n",
                       c.name, opts.out_dir);
    std::rethrow_exception(s.write_failure);
  }
  return s.findings.empty() ? kExitOk : kExitFinding;
}

}  // namespace halo::cli

// A campaign as several processes: see campaign_jobs.hpp.
#include "fuzz/campaign_jobs.hpp"

#include "semantics/parser.hpp"
#include "support/child_processes.hpp"
#include "support/json_text.hpp"
#include "support/output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace halo::fuzz {

namespace {

using Clock = std::chrono::steady_clock;

// A job that outlives the deadline by this much is killed: the deadline already ended its
// candidate's wait, so only a stretch of halo's own work that does not poll can hold it.
constexpr double kJobGraceSeconds = 15;

volatile std::sig_atomic_t g_job_stop = 0;

// The campaign asks a job to stop (its stop() or enough findings): as a first Ctrl-C would.
extern "C" void on_job_stop(int) {
  g_job_stop = 1;
  set_candidate_waits_interrupted(true);
}

void write_all(int fd, const std::string& text) {
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the campaign is gone: the job's pdeath signal ends it
    p += n;
    left -= size_t(n);
  }
}

nlohmann::json error_json(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const InputError& x) {
    nlohmann::json ds = nlohmann::json::array();
    for (const Diagnostic& d : x.diagnostics())
      ds.push_back({{"file", d.file}, {"line", d.loc.line}, {"col", d.loc.col}, {"message", d.message}});
    return {{"type", "input"}, {"diagnostics", ds}};
  } catch (const ResourceLimit& x) {
    return {{"type", "limit"}, {"message", x.what()}};
  } catch (const std::bad_alloc&) {
    return {{"type", "memory"}};
  } catch (const std::exception& x) {
    return {{"type", "internal"}, {"message", x.what()}};
  } catch (...) {
    return {{"type", "internal"}, {"message", "unknown exception"}};
  }
}

std::exception_ptr error_from_json(const nlohmann::json& j) {
  std::string type = j.value("type", std::string());
  if (type == "input") {
    std::vector<Diagnostic> ds;
    for (const auto& d : j["diagnostics"])
      ds.push_back(Diagnostic{d.value("file", std::string()),
                              SourceLoc{d.value("line", uint32_t(0)), d.value("col", uint32_t(0))},
                              d.value("message", std::string())});
    return std::make_exception_ptr(InputError(std::move(ds)));
  }
  if (type == "limit") return std::make_exception_ptr(ResourceLimit(j.value("message", std::string())));
  if (type == "memory") return std::make_exception_ptr(std::bad_alloc());
  return std::make_exception_ptr(std::runtime_error(j.value("message", std::string("a job failed"))));
}

// The job's side: its shard of the campaign, its progress and its summary down the pipe.
[[noreturn]] void run_job(int j, int fd, pid_t campaign, const CampaignOptions& opts, const JobsOptions& jobs,
                          const CaseCheck& check, const std::function<bool()>& stop) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != campaign) _exit(1);  // the campaign died before the line above
  struct sigaction sa {};
  sa.sa_handler = on_job_stop;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, nullptr);
  CampaignOptions o = opts;
  o.shard = opts.shard + opts.shards * uint64_t(j);
  o.shards = opts.shards * uint64_t(jobs.jobs);
  o.write_progress = false;
  o.progress_path.clear();
  if (!jobs.next_cases.empty()) {
    // A job whose shard is finished still starts: it redoes its findings that a kill left
    // incomplete, and nothing else.
    o.resume = true;
    o.first_case = jobs.next_cases[size_t(j)] ? *jobs.next_cases[size_t(j)] : opts.cases;
  }
  auto job_stop = [&] { return g_job_stop != 0 || (stop && stop()); };
  auto job_progress = [&](const CampaignProgress& p) {
    write_all(fd, nlohmann::json{{"progress", p.to_json()}}.dump() + "\n");
  };
  nlohmann::json end;
  try {
    CampaignSummary s = run_campaign(o, check, job_stop, job_progress);
    end = {{"final", s.to_json()}, {"next_case", s.next_case}};
    if (s.write_failure) end["write_failure"] = error_json(s.write_failure);
  } catch (...) {
    end = {{"error", error_json(std::current_exception())}};
  }
  write_all(fd, end.dump(-1, ' ', false, kReplaceInvalidUtf8) + "\n");
  kill_all_candidates();
  _exit(0);
}

struct Job {
  pid_t pid = -1;
  int fd = -1;
  std::string pending;  // a line not yet complete
  CampaignProgress progress;
  Clock::time_point heard;  // when `progress` arrived
  nlohmann::json final, error, write_failure;
  std::optional<uint64_t> next;  // the job's next case (nullopt: its shard is finished)
  bool open = true;
};


// A finding as its job's record describes it (the record is what the job wrote to disk).
FindingReport finding_from_record(const nlohmann::json& r, const CampaignOptions& opts) {
  namespace fs = std::filesystem;
  FindingReport f;
  f.index = r.value("case", uint64_t(0));
  f.seed.size = r.value("size", 0);
  f.kind = r.value("verdict", std::string());
  f.detail = r.value("detail", std::string());
  f.original_detail = r.value("original_detail", std::string());
  if (r.contains("shrink")) {
    f.shrink_steps = r["shrink"].value("steps", 0);
    f.shrink_tries = r["shrink"].value("tries", 0);
    f.original_chars = r["shrink"].value("original_chars", size_t(0));
    f.minimized_chars = r["shrink"].value("minimized_chars", size_t(0));
  }
  std::string stem = finding_stem(opts, f.index);
  if (!opts.out_dir.empty()) {
    if (r.contains("halo")) f.halo_file = (fs::path(opts.out_dir) / r["halo"].get<std::string>()).string();
    f.json_file = (fs::path(opts.out_dir) / (stem + ".json")).string();
  }
  if (r.contains("program") && r["program"].is_string()) {
    try {
      f.minimized = parse_program(r["program"].get<std::string>(), f.halo_file.empty() ? stem : f.halo_file);
    } catch (const std::exception&) {
      // Printed by halo, so it parses; if it ever did not, the record still names the file.
    }
  }
  f.record = r;
  return f;
}

// The finding records of this campaign on disk (TARGET-SEED-K.json), by case.
std::map<uint64_t, nlohmann::json> finding_records_on_disk(const CampaignOptions& opts) {
  namespace fs = std::filesystem;
  std::map<uint64_t, nlohmann::json> out;
  std::string prefix = fmt::format("{}-{}-", opts.target, opts.seed);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(opts.out_dir, ec)) {
    std::string stem = entry.path().stem().string();
    if (entry.path().extension() != ".json" || stem.rfind(prefix, 0) != 0) continue;
    std::string number = stem.substr(prefix.size());
    if (number.empty() || number.size() > 19 || number.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    nlohmann::json r = nlohmann::json::parse(in, nullptr, false);
    if (r.is_object()) out[std::stoull(number)] = std::move(r);
  }
  return out;
}

void remove_duplicate_findings(const CampaignOptions& opts) {
  std::set<std::string> seen;
  for (const auto& [k, r] : finding_records_on_disk(opts))
    if (!seen.insert(finding_key_of_record(r)).second) remove_finding_files(opts, k);
}

CampaignProgress merged_progress(const std::vector<Job>& jobs, double seconds) {
  CampaignProgress m;
  m.jobs = int(jobs.size());
  m.seconds = seconds;
  Clock::time_point now = Clock::now();
  for (const Job& job : jobs) {
    const CampaignProgress& p = job.progress;
    m.cases += p.cases;
    m.programs += p.programs;
    m.findings += p.findings;
    m.limits += p.limits;
    if (!job.open || !p.working) continue;
    double for_now = p.current_for + std::chrono::duration<double>(now - job.heard).count();
    if (!m.working || for_now > m.current_for) {
      m.working = true;
      m.current_case = p.current_case;
      m.current_for = for_now;
      m.phase = p.phase;
    }
  }
  return m;
}

}  // namespace

int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? int(n) : 1;
}

std::string campaign_jobs_progress_text(const CampaignOptions& opts,
                                        const std::vector<std::optional<uint64_t>>& next_cases) {
  nlohmann::json next = nlohmann::json::array();
  uint64_t smallest = UINT64_MAX;
  bool finished = true;
  for (const auto& n : next_cases) {
    next.push_back(n ? nlohmann::json(*n) : nlohmann::json(nullptr));
    if (n) smallest = std::min(smallest, *n), finished = false;
  }
  return nlohmann::json{{"target", opts.target}, {"seed", opts.seed},   {"shard", opts.shard},
                        {"shards", opts.shards}, {"cases", opts.cases}, {"options", opts.identity},
                        {"jobs", next_cases.size()}, {"next_cases", next}, {"next_case", smallest},
                        {"finished", finished}}
             .dump() +
         "\n";
}

CampaignSummary run_campaign_jobs(const CampaignOptions& opts, const JobsOptions& jo, const CaseCheck& check,
                                  const std::function<bool()>& stop, const ProgressFn& progress) {
  namespace fs = std::filesystem;
  if (!opts.out_dir.empty()) {
    create_output_directory(opts.out_dir);
    remove_stale_temporaries(opts.out_dir);
  }
  // Resumed after a kill: the jobs may have filed the same minimized case before the merge
  // that keeps one (below) could run; the duplicates with the higher case numbers go now.
  if (!jo.next_cases.empty() && !opts.out_dir.empty()) remove_duplicate_findings(opts);
  const size_t n = size_t(jo.jobs);
  std::vector<Job> jobs(n);
  // A job's shard is finished when its next case is past the campaign's cases.
  auto shard_done = [&](uint64_t next) { return next == UINT64_MAX || (opts.cases && next >= opts.cases); };
  for (size_t j = 0; j < n; ++j) {
    jobs[j].next = jo.next_cases.empty() ? std::optional<uint64_t>(opts.shard + opts.shards * j) : jo.next_cases[j];
    if (jobs[j].next && shard_done(*jobs[j].next)) jobs[j].next.reset();
  }
  Clock::time_point t0 = Clock::now();
  pid_t campaign = ::getpid();
  for (size_t j = 0; j < n; ++j) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("cannot start the campaign's jobs: {}", std::strerror(errno)));
    pid_t pid = ::fork();
    if (pid < 0) {
      ::close(fds[0]);
      ::close(fds[1]);
      for (Job& job : jobs)
        if (job.pid > 0) ::kill(job.pid, SIGKILL);
      throw std::runtime_error(fmt::format("cannot start the campaign's jobs: {}", std::strerror(errno)));
    }
    if (pid == 0) {
      ::close(fds[0]);
      for (size_t i = 0; i < j; ++i)
        if (jobs[i].fd >= 0) ::close(jobs[i].fd);
      run_job(int(j), fds[1], campaign, opts, jo, check, stop);
    }
    ::close(fds[1]);
    jobs[j].pid = pid;
    jobs[j].fd = fds[0];
    jobs[j].heard = Clock::now();
  }

  std::string progress_file = opts.out_dir.empty() || !opts.inputs.empty() || !opts.write_progress ? std::string()
                              : !opts.progress_path.empty() ? opts.progress_path
                                                            : campaign_progress_path(opts);
  std::string write_error;
  std::exception_ptr write_failure;
  std::vector<std::optional<uint64_t>> recorded;
  auto record_progress = [&] {
    std::vector<std::optional<uint64_t>> next;
    for (const Job& job : jobs) next.push_back(job.next);
    if (progress_file.empty() || next == recorded || write_failure) return;
    try {
      write_file_atomically(progress_file, campaign_jobs_progress_text(opts, next));
      recorded = next;
    } catch (const InputError& e) {
      write_error = e.what();
      write_failure = std::current_exception();
    }
  };
  bool asked_to_stop = false, killed = false;
  auto ask_jobs_to_stop = [&] {
    if (asked_to_stop) return;
    asked_to_stop = true;
    for (Job& job : jobs)
      if (job.open) ::kill(job.pid, SIGUSR1);
  };
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<size_t> which;
    for (size_t j = 0; j < n; ++j)
      if (jobs[j].open) fds.push_back({jobs[j].fd, POLLIN, 0}), which.push_back(j);
    if (fds.empty()) break;
    int ready = ::poll(fds.data(), fds.size(), 250);
    if (ready < 0 && errno != EINTR) break;
    for (size_t i = 0; ready > 0 && i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Job& job = jobs[which[i]];
      char buf[65536];
      ssize_t got = ::read(job.fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        job.open = false;
        ::close(job.fd);
        job.fd = -1;
        continue;
      }
      job.pending.append(buf, size_t(got));
      for (size_t eol; (eol = job.pending.find('\n')) != std::string::npos;) {
        std::string line = job.pending.substr(0, eol);
        job.pending.erase(0, eol + 1);
        nlohmann::json m = nlohmann::json::parse(line, nullptr, false);
        if (m.is_discarded() || !m.is_object()) continue;
        if (m.contains("progress")) {
          job.progress = CampaignProgress::from_json(m["progress"]);
          job.heard = Clock::now();
          job.next = shard_done(job.progress.next_case) ? std::nullopt : std::optional<uint64_t>(job.progress.next_case);
        }
        if (m.contains("final")) {
          job.final = m["final"];
          uint64_t next = m.value("next_case", uint64_t(UINT64_MAX));
          job.next = shard_done(next) ? std::nullopt : std::optional<uint64_t>(next);
          if (m.contains("write_failure")) job.write_failure = m["write_failure"];
        }
        if (m.contains("error")) job.error = m["error"];
      }
    }
    uint64_t findings = 0;
    for (const Job& job : jobs) findings += job.final.is_object() ? job.final.value("findings", uint64_t(0)) : job.progress.findings;
    if ((stop && stop()) || (opts.max_findings && findings >= opts.max_findings)) ask_jobs_to_stop();
    for (const Job& job : jobs)
      if (!job.write_failure.is_null() || !job.error.is_null()) ask_jobs_to_stop();
    if (opts.seconds > 0 && seconds() > opts.seconds + kJobGraceSeconds && !killed) {
      killed = true;
      for (Job& job : jobs)
        if (job.open) ::kill(job.pid, SIGKILL);
    }
    record_progress();  // when a job's next case changed: a kill loses no finished case
    if (progress) progress(merged_progress(jobs, seconds()));
  }
  std::vector<std::string> lost;
  for (size_t j = 0; j < n; ++j) {
    Job& job = jobs[j];
    if (job.pid <= 0) continue;
    int status = 0;
    while (::waitpid(job.pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (job.final.is_null() && job.error.is_null() && !killed)
      lost.push_back(WIFSIGNALED(status) ? fmt::format("job {} was killed by signal {}", j, WTERMSIG(status))
                                         : fmt::format("job {} exited with status {}", j, WEXITSTATUS(status)));
  }
  record_progress();
  // A job's own error (bad input, a limit) is the campaign's: the first one, as it was thrown.
  for (const Job& job : jobs)
    if (!job.error.is_null()) std::rethrow_exception(error_from_json(job.error));
  if (!lost.empty())
    throw std::runtime_error(fmt::format("the campaign lost a job before its summary ({}); its findings are on disk, "
                                         "and --resume continues it",
                                         fmt::join(lost, "; ")));

  CampaignSummary s;
  s.target = opts.target;
  s.seed = opts.seed;
  s.shard = opts.shard;
  s.shards = opts.shards;
  s.cut_by_time = killed;
  std::vector<nlohmann::json> records;
  for (Job& job : jobs) {
    const nlohmann::json& f = job.final;
    if (!f.is_object()) {  // killed at the deadline: what its last progress said
      s.cases += job.progress.cases;
      s.programs += job.progress.programs;
      s.limits += job.progress.limits;
      continue;
    }
    s.cases += f.value("cases", uint64_t(0));
    s.programs += f.value("programs", uint64_t(0));
    s.passed += f.value("passed", uint64_t(0));
    s.vacuous += f.value("vacuous", uint64_t(0));
    s.limits += f.value("limits", uint64_t(0));
    s.duplicates += f.value("duplicates", uint64_t(0));
    s.incomplete += f.value("incomplete", uint64_t(0));
    s.interrupted = s.interrupted || f.value("interrupted", false);
    s.cut_by_time = s.cut_by_time || f.value("cut_by_time", false);
    if (f.contains("coverage")) s.coverage.add_json(f["coverage"]);
    if (f.contains("time_split")) {
      s.case_seconds += f["time_split"].value("cases", 0.0);
      s.shrink_seconds += f["time_split"].value("shrinking", 0.0);
      s.completion_seconds += f["time_split"].value("completing", 0.0);
    }
    if (f.contains("resumed")) {
      s.first_case = s.resumed ? std::min(s.first_case, f["resumed"].value("first_case", uint64_t(0)))
                               : f["resumed"].value("first_case", uint64_t(0));
      s.resumed = true;
      s.earlier_findings = std::max(s.earlier_findings, f["resumed"].value("earlier_findings", uint64_t(0)));
    }
    if (!job.write_failure.is_null() && !s.write_failure) {
      s.write_error = f.value("write_error", std::string());
      s.write_failure = error_from_json(job.write_failure);
    }
    if (f.contains("finding_records"))
      for (const auto& r : f["finding_records"]) records.push_back(r);
  }
  if (!write_error.empty() && !s.write_failure) {
    s.write_error = write_error;
    s.write_failure = write_failure;
  }
  // The same minimized case filed by two jobs at once: kept once, the lower case number.
  std::sort(records.begin(), records.end(),
            [](const auto& a, const auto& b) { return a.value("case", uint64_t(0)) < b.value("case", uint64_t(0)); });
  std::set<std::string> seen;
  auto remove_files = [&](uint64_t k) {
    if (!opts.out_dir.empty()) remove_finding_files(opts, k);
  };
  for (const nlohmann::json& r : records) {
    if (!seen.insert(finding_key_of_record(r)).second) {
      ++s.duplicates;
      remove_files(r.value("case", uint64_t(0)));
      continue;
    }
    // --max-findings N: jobs that filed findings at the same moment can exceed N between
    // them; the lowest case numbers are kept, as one process would have found them first.
    if (opts.max_findings && s.findings.size() + s.earlier_findings >= opts.max_findings) {
      ++s.dropped_beyond_max;
      remove_files(r.value("case", uint64_t(0)));
      continue;
    }
    s.findings.push_back(finding_from_record(r, opts));
  }
  s.seconds = seconds();
  return s;
}

}  // namespace halo::fuzz

// `halo fuzz --target exo`: a campaign against the Exo compiler (exo_campaign.hpp).
#include "fuzz/exo_campaign.hpp"

#include "candidates/exo/exo_kernel.hpp"
#include "fuzz/campaign.hpp"
#include "fuzz/exo_reproducer.hpp"
#include "support/diagnostics.hpp"
#include "support/output_file.hpp"
#include "support/run_process.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

namespace halo::fuzz {

namespace fs = std::filesystem;

ExoCaseOutcome check_exo_case(const ExoKernelCase& c, double timeout) {
  WorkDir dir("halo-exo-case");
  std::string script = dir.file("case.py"), spec = dir.file("case.halo");
  // Checked writes: a case that could not be written (a full disk) stops the campaign; it
  // must not reach Exo half written and come back as a finding.
  write_file_atomically(script, exo_case_script(c));
  write_file_atomically(spec, exo_case_spec(c));
  ExoBinding b;
  b.spec = spec;
  b.inits = exo_case_inits(c);
  KernelOptions o;
  o.timeout_seconds = timeout;
  o.timeout_flag = "--case-timeout";
  o.max_memory_mib = 2048;
  auto first_lines = [](const std::string& s) { return s.substr(0, std::min<size_t>(s.size(), 2000)); };
  try {
    ExoKernelReport r = check_exo_kernel(script, "scheduled", b, o, timeout, "--case-timeout");
    const KernelReport& k = r.kernel;
    auto out = [&](std::string kind, std::string detail, bool finding) {
      return ExoCaseOutcome{std::move(kind), std::move(detail), finding, r.log};
    };
    if (k.holds()) return out("holds", "", false);
    if (!k.memory_safe) {
      for (const auto& f : k.findings)
        if (f.memory) return out("memory", f.kind + ": " + first_lines(f.message), true);
      return out("memory", "", true);
    }
    if (k.mismatches > 0 && k.first_mismatch)
      return out("wrong-value",
                 fmt::format("{} of {} elements differ; first {}[{}]: expected {}, got {}", k.mismatches, k.compared,
                             k.first_mismatch->arg, fmt::join(k.first_mismatch->index, ", "),
                             k.first_mismatch->expected, k.first_mismatch->actual),
                 true);
    if (!k.findings.empty()) return out(k.findings[0].kind, first_lines(k.findings[0].message), true);
    return out("incomplete", "the kernel did not complete", true);
  } catch (const InputError& e) {
    std::string what = e.what();
    if (what.find("Exo did not finish within") != std::string::npos) return {"limit", first_lines(what), false, ""};
    // An exception from inside a primitive, not a refusal (fuzz/exo_steps.py tells them apart)
    for (const auto& l : exo_step_log(what))
      if (l.status == "crashed") return {"internal-error", l.primitive + " | " + l.call + " | " + l.reason, true, what};
    if (what.find("Exo did not produce C") != std::string::npos) return {"exo-rejected", first_lines(what), false, what};
    return {"harness-error", first_lines(what), true, ""};  // halo wrote a case it cannot bind: a bug of the generator
  } catch (const ResourceLimit& e) {
    return {"limit", e.what(), false, ""};
  }
}

namespace {

// Per primitive of the program family: drawn, applied, rejected, skipped, crashed.
void count_coverage(const ExoKernelCase& c, const ExoCaseOutcome& o, nlohmann::json& coverage) {
  if (c.family != ExoFamily::Program) return;
  for (const auto& [prim, seed] : c.draws) {
    auto& e = coverage[prim];
    if (e.is_null()) e = {{"drawn", 0}, {"applied", 0}, {"rejected", 0}, {"skipped", 0}, {"crashed", 0}};
    e["drawn"] = e["drawn"].get<uint64_t>() + 1;
  }
  for (const auto& l : exo_step_log(o.log)) {
    auto& e = coverage[l.primitive];
    if (e.is_null() || !e.contains(l.status)) continue;
    e[l.status] = e[l.status].get<uint64_t>() + 1;
  }
}

// The same failure: the same kind, and for an internal error the same primitive raising
// the same exception at the same place in Exo ("PRIM | CALL | TYPE at FILE:LINE: ...").
bool same_failure(const ExoCaseOutcome& a, const ExoCaseOutcome& b) {
  if (a.kind != b.kind) return false;
  if (a.kind != "internal-error") return true;
  auto signature = [](const std::string& log) {
    for (const auto& l : exo_step_log(log))
      if (l.status == "crashed") return l.primitive + "|" + l.reason.substr(0, l.reason.find(": "));
    return std::string();
  };
  return signature(a.log) == signature(b.log);
}

// Greedy: the first smaller variant that fails the same way replaces the case, until none does.
// c and its outcome o shrink in place: o stays the outcome of the case c is, so the
// smallest case is never run again to learn it.
void shrink(ExoKernelCase& c, ExoCaseOutcome& o, double timeout, int max_tries, double max_seconds, int& tries) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  bool progress = true;
  while (progress && tries < max_tries && elapsed() < max_seconds) {
    progress = false;
    for (const auto& d : exo_case_shrinks(c)) {
      if (tries >= max_tries || elapsed() >= max_seconds) break;
      ++tries;
      ExoCaseOutcome od = check_exo_case(d, timeout);
      if (same_failure(od, o)) {
        c = d;
        o = std::move(od);
        progress = true;
        break;
      }
    }
  }
}

// The findings the earlier part of a resumed campaign left: how many are complete (their
// record written last), and the cases whose files a kill left incomplete (redone).
std::pair<uint64_t, std::vector<uint64_t>> earlier_exo_findings(const ExoCampaignOptions& opt) {
  std::string prefix = fmt::format("exo-{}-", opt.seed);
  std::set<uint64_t> complete, started;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(opt.out_dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    size_t dash = name.find('-', prefix.size());
    std::string number = name.substr(prefix.size(), dash == std::string::npos ? std::string::npos : dash - prefix.size());
    if (number.empty() || number.size() > 19 || number.find_first_not_of("0123456789") != std::string::npos) continue;
    uint64_t k = std::stoull(number);
    if (k % opt.shards != opt.shard || k >= opt.first_case) continue;
    (entry.path().extension() == ".json" ? complete : started).insert(k);
  }
  std::vector<uint64_t> redo;
  for (uint64_t k : started)
    if (!complete.count(k)) redo.push_back(k);
  return {complete.size(), redo};
}

}  // namespace

nlohmann::json run_exo_campaign(const ExoCampaignOptions& opt, const ExoProgress& progress,
                                const std::function<bool()>& stop, std::exception_ptr* write_failure) {
  uint64_t cases = opt.cases ? opt.cases : (opt.seconds > 0 ? UINT64_MAX : 1000);
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::map<std::string, uint64_t> outcomes, families;
  nlohmann::json coverage = nlohmann::json::object();
  nlohmann::json findings = nlohmann::json::array();
  uint64_t ran = 0, earlier = 0;
  std::vector<uint64_t> redo;
  std::string write_error;
  bool interrupted = false;
  CampaignOptions progress_of;  // names the progress file as every campaign does
  progress_of.target = "exo";
  progress_of.seed = opt.seed;
  progress_of.shard = opt.shard;
  progress_of.shards = opt.shards;
  progress_of.out_dir = opt.out_dir;
  progress_of.identity = opt.identity;
  progress_of.cases = opt.cases;
  if (!opt.out_dir.empty()) {
    create_output_directory(opt.out_dir);
    remove_stale_temporaries(opt.out_dir);
    if (opt.resume) std::tie(earlier, redo) = earlier_exo_findings(opt);
  }
  // Writes a file of the campaign; false (the reason kept) when it cannot.
  auto write = [&](const std::string& path, const std::string& text) {
    try {
      write_file_atomically(path, text);
      return true;
    } catch (const std::exception& e) {
      write_error = e.what();
      if (write_failure) *write_failure = std::make_exception_ptr(InputError(Diagnostic{path, {}, e.what()}));
      return false;
    }
  };
  auto enough = [&] { return opt.max_findings && findings.size() + earlier >= opt.max_findings; };
  CampaignProgress shown;
  auto report = [&](uint64_t i, bool working, const char* phase) {
    if (!progress) return;
    shown.cases = shown.programs = ran;
    shown.findings = findings.size();
    shown.limits = outcomes.count("limit") ? outcomes["limit"] : 0;
    shown.seconds = elapsed();
    shown.working = working;
    shown.current_case = i;
    shown.current_for = 0;
    shown.phase = phase;
    progress(shown);
  };
  // Case i: false when the campaign must stop (a write failed).
  auto run_case = [&](uint64_t i) {
    report(i, true, "case");
    std::mt19937_64 rng(opt.seed * 0x9E3779B97F4A7C15ull + i);
    ExoKernelCase c = generate_exo_case(rng, opt.seed, opt.weights);
    ExoCaseOutcome o;
    try {
      o = check_exo_case(c, opt.timeout);
    } catch (const std::exception& e) {  // the case's own files could not be written
      write_error = e.what();
      if (write_failure) *write_failure = std::make_exception_ptr(InputError(Diagnostic{"exo case", {}, e.what()}));
      return false;
    }
    ++ran;
    ++outcomes[o.kind];
    ++families[exo_family_name(c.family)];
    count_coverage(c, o, coverage);
    report(i, o.finding, o.finding ? "shrinking" : "case");
    if (!o.finding) return true;
    int tries = 0;
    ExoKernelCase small = c;
    ExoCaseOutcome so = o;
    try {
      shrink(small, so, opt.timeout, opt.shrink_tries, opt.shrink_seconds, tries);
    } catch (const std::exception& e) {
      write_error = e.what();
      if (write_failure) *write_failure = std::make_exception_ptr(InputError(Diagnostic{"exo case", {}, e.what()}));
      return false;
    }
    std::string stem = fmt::format("exo-{}-{}-{}", opt.seed, i, o.kind);
    std::string base = opt.out_dir.empty() ? stem : (fs::path(opt.out_dir) / stem).string();
    std::string rerun = fmt::format("halo exo {}.py scheduled --spec {}.halo", base, base);
    for (const auto& [n, f] : exo_case_inits(small)) rerun += fmt::format(" --init {}={}", n, f);
    nlohmann::json rec = {{"target", "exo"},      {"case", i},          {"seed", opt.seed},         {"kind", o.kind},
                          {"family", exo_family_name(c.family)},  {"detail", so.detail},
                          {"steps", small.steps}, {"original_steps", c.steps}, {"shrink_tries", tries},
                          {"reproduce", rerun}};
    std::string repro;
    if (small.family == ExoFamily::Program && !small.draws.empty()) {
      // the same program without its schedule: a rewrite's bug, or Exo's C printer's
      ExoKernelCase bare = small;
      bare.draws.clear();
      ExoCaseOutcome bo = check_exo_case(bare, opt.timeout);
      rec["unscheduled"] = bo.kind;
    }
    if (small.family == ExoFamily::Program) {
      // the schedule as the literal calls Exo applied (and the one it crashed in)
      std::vector<std::string> calls = exo_applied_calls(so.log);
      nlohmann::json draws = nlohmann::json::array();
      for (const auto& [prim, seed] : small.draws) draws.push_back({prim, seed});
      rec["draws"] = draws;
      rec["steps"] = calls;
      rec["original_draws"] = c.draws.size();
      try {
        repro = exo_program_reproducer(small, calls, fmt::format("{}: {}", so.kind, so.detail));
      } catch (const std::exception& e) {  // the spec could not be evaluated: say so, keep the finding
        rec["reproducer_error"] = e.what();
      }
    }
    if (opt.out_dir.empty()) {  // not written: the summary carries the case
      rec["script_text"] = exo_case_script(small);
      if (!repro.empty()) rec["reproducer_text"] = repro;
      rec["spec_text"] = exo_case_spec(small);
      findings.push_back(rec);
      return true;
    }
    rec["script"] = base + ".py";
    rec["spec"] = base + ".halo";
    if (!repro.empty()) rec["reproducer"] = base + ".repro.py";
    // The record last: a record on disk always names complete files. A finding is on disk
    // whole or not at all.
    bool ok = write(base + ".py", exo_case_script(small)) && write(base + ".halo", exo_case_spec(small)) &&
              (repro.empty() || write(base + ".repro.py", repro)) && write(base + ".json", rec.dump(1) + "\n");
    if (!ok) {
      std::error_code ignored;
      for (const char* ext : {".py", ".halo", ".repro.py", ".json"}) fs::remove(base + ext, ignored);
      return false;
    }
    findings.push_back(rec);
    return true;
  };
  bool go_on = true;
  for (uint64_t i : redo) {
    if (stop && stop()) {
      interrupted = true;
      go_on = false;
      break;
    }
    // What the kill left of it goes first: a redo that finds nothing leaves nothing behind.
    std::string prefix = fmt::format("exo-{}-{}-", opt.seed, i);
    std::error_code ec;
    std::vector<fs::path> left;
    for (const auto& entry : fs::directory_iterator(opt.out_dir, ec))
      if (entry.path().filename().string().rfind(prefix, 0) == 0) left.push_back(entry.path());
    for (const fs::path& p : left) fs::remove(p, ec);
    if (!(go_on = run_case(i))) break;
  }
  uint64_t i = opt.shard;
  if (opt.first_case > i) i += (opt.first_case - opt.shard + opt.shards - 1) / opt.shards * opt.shards;
  std::string progress_file = opt.out_dir.empty()            ? std::string()
                              : !opt.progress_path.empty() ? opt.progress_path
                                                           : campaign_progress_path(progress_of);
  for (; go_on && i < cases && i >= opt.shard; i += opt.shards) {  // i >= shard: stops at the wrap past 2^64
    if (opt.seconds > 0 && elapsed() >= opt.seconds) break;
    if (enough()) break;
    if (stop && stop()) {
      interrupted = true;
      break;
    }
    if (!run_case(i)) break;  // not done: a resume redoes it
    if (!progress_file.empty() && !write(progress_file, campaign_progress_text(progress_of, i))) break;
  }
  double secs = elapsed();
  nlohmann::json summary = {{"target", "exo"},
                            {"seed", opt.seed},
                            {"shard", fmt::format("{}/{}", opt.shard, opt.shards)},
                            {"cases", ran},
                            {"seconds", secs},
                            {"cases_per_second", secs > 0 ? double(ran) / secs : 0.0},
                            {"outcomes", outcomes},
                            {"families", families},
                            {"coverage", coverage},
                            {"weights", opt.weights.to_json()},
                            {"findings", findings},
                            {"interrupted", interrupted}};
  if (opt.resume) summary["resumed"] = {{"first_case", opt.first_case}, {"earlier_findings", earlier}};
  if (!write_error.empty()) summary["write_error"] = write_error;
  return summary;
}

}  // namespace halo::fuzz

// `halo fuzz --target exo`: a campaign against the Exo compiler (exo_campaign.hpp).
#include "fuzz/exo_campaign.hpp"

#include "candidates/exo/exo_kernel.hpp"
#include "fuzz/campaign.hpp"
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
    if (k.holds()) return {"holds", "", false};
    if (!k.memory_safe) {
      for (const auto& f : k.findings)
        if (f.memory) return {"memory", f.kind + ": " + first_lines(f.message), true};
      return {"memory", "", true};
    }
    if (k.mismatches > 0 && k.first_mismatch)
      return {"wrong-value",
              fmt::format("{} of {} elements differ; first {}[{}]: expected {}, got {}", k.mismatches, k.compared,
                          k.first_mismatch->arg, fmt::join(k.first_mismatch->index, ", "), k.first_mismatch->expected,
                          k.first_mismatch->actual),
              true};
    if (!k.findings.empty()) return {k.findings[0].kind, first_lines(k.findings[0].message), true};
    return {"incomplete", "the kernel did not complete", true};
  } catch (const InputError& e) {
    std::string what = e.what();
    if (what.find("Exo did not finish within") != std::string::npos) return {"limit", first_lines(what), false};
    if (what.find("Exo did not produce C") != std::string::npos) return {"exo-rejected", first_lines(what), false};
    return {"harness-error", first_lines(what), true};  // halo wrote a case it cannot bind: a bug of the generator
  } catch (const ResourceLimit& e) {
    return {"limit", e.what(), false};
  }
}

namespace {

// Greedy: the first smaller variant that fails the same way replaces the case, until none does.
ExoKernelCase shrink(ExoKernelCase c, const ExoCaseOutcome& o, double timeout, int max_tries, double max_seconds,
                     int& tries) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  bool progress = true;
  while (progress && tries < max_tries && elapsed() < max_seconds) {
    progress = false;
    for (const auto& d : exo_case_shrinks(c)) {
      if (tries >= max_tries || elapsed() >= max_seconds) break;
      ++tries;
      if (check_exo_case(d, timeout).kind == o.kind) {
        c = d;
        progress = true;
        break;
      }
    }
  }
  return c;
}

}  // namespace

namespace {

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
  // Case i: false when the campaign must stop (a write failed).
  auto run_case = [&](uint64_t i) {
    std::mt19937_64 rng(opt.seed * 0x9E3779B97F4A7C15ull + i);
    ExoKernelCase c = generate_exo_case(rng, opt.seed);
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
    if (progress) progress(i, elapsed(), o.kind);
    if (!o.finding) return true;
    int tries = 0;
    ExoKernelCase small;
    ExoCaseOutcome so;
    try {
      small = shrink(c, o, opt.timeout, opt.shrink_tries, opt.shrink_seconds, tries);
      so = check_exo_case(small, opt.timeout);
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
    if (opt.out_dir.empty()) {  // not written: the summary carries the case
      rec["script_text"] = exo_case_script(small);
      rec["spec_text"] = exo_case_spec(small);
      findings.push_back(rec);
      return true;
    }
    rec["script"] = base + ".py";
    rec["spec"] = base + ".halo";
    // The record last: a record on disk always names complete files. A finding is on disk
    // whole or not at all.
    bool ok = write(base + ".py", exo_case_script(small)) && write(base + ".halo", exo_case_spec(small)) &&
              write(base + ".json", rec.dump(1) + "\n");
    if (!ok) {
      std::error_code ignored;
      for (const char* ext : {".py", ".halo", ".json"}) fs::remove(base + ext, ignored);
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
                            {"findings", findings},
                            {"interrupted", interrupted}};
  if (opt.resume) summary["resumed"] = {{"first_case", opt.first_case}, {"earlier_findings", earlier}};
  if (!write_error.empty()) summary["write_error"] = write_error;
  return summary;
}

}  // namespace halo::fuzz

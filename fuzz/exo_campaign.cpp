// `halo fuzz --target exo`: a campaign against the Exo compiler (exo_campaign.hpp).
#include "fuzz/exo_campaign.hpp"

#include "candidates/exo/exo_kernel.hpp"
#include "support/diagnostics.hpp"
#include "support/output_file.hpp"
#include "support/run_process.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

namespace halo::fuzz {

namespace fs = std::filesystem;

ExoCaseOutcome check_exo_case(const ExoKernelCase& c, double timeout) {
  WorkDir dir("halo-exo-case");
  std::string script = dir.file("case.py"), spec = dir.file("case.halo");
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

nlohmann::json run_exo_campaign(const ExoCampaignOptions& opt, const ExoProgress& progress,
                                const std::function<bool()>& stop) {
  uint64_t cases = opt.cases ? opt.cases : (opt.seconds > 0 ? UINT64_MAX : 1000);
  std::string out_dir = opt.out_dir.empty() ? "halo-exo-findings" : opt.out_dir;
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::map<std::string, uint64_t> outcomes, families;
  nlohmann::json findings = nlohmann::json::array();
  uint64_t ran = 0;
  for (uint64_t i = 0; i < cases; ++i) {
    if (opt.seconds > 0 && elapsed() >= opt.seconds) break;
    if (opt.max_findings && findings.size() >= opt.max_findings) break;
    if (stop && stop()) break;
    std::mt19937_64 rng(opt.seed * 0x9E3779B97F4A7C15ull + i);
    ExoKernelCase c = generate_exo_case(rng, opt.seed);
    ExoCaseOutcome o = check_exo_case(c, opt.timeout);
    ++ran;
    ++outcomes[o.kind];
    ++families[exo_family_name(c.family)];
    if (progress) progress(i, elapsed(), o.kind);
    if (!o.finding) continue;
    int tries = 0;
    ExoKernelCase small = shrink(c, o, opt.timeout, opt.shrink_tries, opt.shrink_seconds, tries);
    ExoCaseOutcome so = check_exo_case(small, opt.timeout);
    create_output_directory(out_dir);
    std::string base = (fs::path(out_dir) / fmt::format("exo-{}-{}-{}", opt.seed, i, o.kind)).string();
    write_file_atomically(base + ".py", exo_case_script(small));
    write_file_atomically(base + ".halo", exo_case_spec(small));
    std::string rerun = fmt::format("halo exo {}.py scheduled --spec {}.halo", base, base);
    for (const auto& [n, f] : exo_case_inits(small)) rerun += fmt::format(" --init {}={}", n, f);
    nlohmann::json rec = {{"case", i},          {"seed", opt.seed},         {"kind", o.kind},
                          {"family", exo_family_name(c.family)},  {"detail", so.detail},
                          {"steps", small.steps}, {"original_steps", c.steps}, {"shrink_tries", tries},
                          {"script", base + ".py"}, {"spec", base + ".halo"}, {"reproduce", rerun}};
    write_file_atomically(base + ".json", rec.dump(1) + "\n");
    findings.push_back(rec);
  }
  double secs = elapsed();
  return {{"target", "exo"},
          {"seed", opt.seed},
          {"cases", ran},
          {"seconds", secs},
          {"cases_per_second", secs > 0 ? double(ran) / secs : 0.0},
          {"outcomes", outcomes},
          {"families", families},
          {"findings", findings}};
}

}  // namespace halo::fuzz

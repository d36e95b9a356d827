// `halo fuzz --target exo`: a campaign against the Exo compiler (fuzz/exo_gen.hpp,
// docs/kernels.md "Fuzzing Exo"). Each case is a kernel of the family, written as an Exo
// script with a random schedule and as its .halo spec; `halo exo`'s check
// (oracle/exo_candidate.hpp) compiles it with Exo, runs the C on the Gemmini simulator or
// under SIMDe and AddressSanitizer, and compares it with the reference. A script Exo
// rejects is counted, not a finding; wrong values, memory errors, crashes and C that does
// not compile are findings. Each finding is shrunk (steps dropped, sizes reduced) and
// written as SCRIPT.py and SPEC.halo side by side, with the command that re-runs it.
#include "fuzz/exo_gen.hpp"
#include "oracle/exo_candidate.hpp"
#include "oracle/kernel_process.hpp"
#include "tools/campaign_cli.hpp"
#include "tools/commands.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

namespace halo::cli {

namespace fs = std::filesystem;

namespace {

struct ExoCaseOutcome {
  std::string kind;    // holds, exo-rejected, limit; findings: wrong-value, memory, compile-error, crash, ...
  std::string detail;
  bool finding = false;
};

ExoCaseOutcome check_exo_case(const fuzz::ExoKernelCase& c, double timeout) {
  WorkDir dir("halo-exo-case");
  std::string script = dir.file("case.py"), spec = dir.file("case.halo");
  std::ofstream(script) << fuzz::exo_case_script(c);
  std::ofstream(spec) << fuzz::exo_case_spec(c);
  ExoBinding b;
  b.spec = spec;
  b.inits = fuzz::exo_case_inits(c);
  KernelOptions o;
  o.timeout_seconds = timeout;
  o.max_memory_mib = 2048;
  auto first_lines = [](const std::string& s) { return s.substr(0, std::min<size_t>(s.size(), 2000)); };
  try {
    ExoKernelReport r = check_exo_kernel(script, "scheduled", b, o);
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

// Greedy: the first smaller variant that fails the same way replaces the case, until none does.
fuzz::ExoKernelCase shrink(fuzz::ExoKernelCase c, const ExoCaseOutcome& o, double timeout, int max_tries,
                           double max_seconds, int& tries) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  bool progress = true;
  while (progress && tries < max_tries && elapsed() < max_seconds) {
    progress = false;
    for (const auto& d : fuzz::exo_case_shrinks(c)) {
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

int run_exo_fuzz(const CampaignCliOptions& opt, std::ostream& out, std::ostream& err) {
  if (!opt.replay.empty() || !opt.fuzzer_inputs.empty())
    throw InputError(Diagnostic{"<command line>", {}, "--target exo replays a finding with `halo exo SCRIPT.py "
                                                      "scheduled --spec SPEC.halo` (the command is in the script)"});
  std::string missing = exo_unavailable_reason();
  if (!missing.empty()) throw InputError(Diagnostic{"<command line>", {}, "--target exo: " + missing});
  uint64_t cases = opt.cases ? opt.cases : (opt.seconds > 0 ? UINT64_MAX : 1000);
  std::string out_dir = opt.out_dir.empty() ? "halo-exo-findings" : opt.out_dir;
  // Exo itself takes seconds per case (several on a loaded machine): its own deadline, and the
  // kernel's, are generous; a case that still runs out of time is a limit, not a finding.
  double timeout = std::max(120.0, opt.case_timeout);
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  bool show_progress = &err == &std::cerr && isatty(STDERR_FILENO);

  std::map<std::string, uint64_t> outcomes, families;
  nlohmann::json findings = nlohmann::json::array();
  uint64_t ran = 0;
  for (uint64_t i = 0; i < cases; ++i) {
    if (opt.seconds > 0 && elapsed() >= opt.seconds) break;
    if (opt.max_findings && findings.size() >= opt.max_findings) break;
    std::mt19937_64 rng(opt.seed * 0x9E3779B97F4A7C15ull + i);
    fuzz::ExoKernelCase c = fuzz::generate_exo_case(rng, opt.seed);
    ExoCaseOutcome o = check_exo_case(c, timeout);
    ++ran;
    ++outcomes[o.kind];
    ++families[fuzz::exo_family_name(c.family)];
    if (show_progress)
      err << fmt::format("\r[exo] case {} ({:.0f} s): {}             ", i, elapsed(), o.kind) << std::flush;
    if (!o.finding) continue;
    int tries = 0;
    fuzz::ExoKernelCase small = shrink(c, o, timeout, opt.shrink_tries, opt.shrink_seconds, tries);
    ExoCaseOutcome so = check_exo_case(small, timeout);
    fs::create_directories(out_dir);
    std::string base = (fs::path(out_dir) / fmt::format("exo-{}-{}-{}", opt.seed, i, o.kind)).string();
    std::ofstream(base + ".py") << fuzz::exo_case_script(small);
    std::ofstream(base + ".halo") << fuzz::exo_case_spec(small);
    std::string rerun = fmt::format("halo exo {}.py scheduled --spec {}.halo", base, base);
    for (const auto& [n, f] : fuzz::exo_case_inits(small)) rerun += fmt::format(" --init {}={}", n, f);
    nlohmann::json rec = {{"case", i},          {"seed", opt.seed},         {"kind", o.kind},
                          {"family", fuzz::exo_family_name(c.family)},  {"detail", so.detail},
                          {"steps", small.steps}, {"original_steps", c.steps}, {"shrink_tries", tries},
                          {"script", base + ".py"}, {"spec", base + ".halo"}, {"reproduce", rerun}};
    std::ofstream(base + ".json") << rec.dump(1) << "\n";
    findings.push_back(rec);
  }
  if (show_progress) err << "\n";
  double secs = elapsed();
  nlohmann::json summary = {{"target", "exo"},
                            {"seed", opt.seed},
                            {"cases", ran},
                            {"seconds", secs},
                            {"cases_per_second", secs > 0 ? double(ran) / secs : 0.0},
                            {"outcomes", outcomes},
                            {"families", families},
                            {"findings", findings}};
  if (opt.json) {
    out << summary.dump() << "\n";
  } else {
    out << fmt::format("exo campaign (seed {}): {} cases in {:.1f} s ({:.2f} cases/s)\n", opt.seed, ran, secs,
                       secs > 0 ? double(ran) / secs : 0.0);
    for (const auto& [k, n] : outcomes) out << fmt::format("  {:<14} {}\n", k, n);
    for (const auto& f : findings)
      out << fmt::format("finding ({}): {}\n  re-run: {}\n", f["kind"].get<std::string>(),
                         f["detail"].get<std::string>(), f["reproduce"].get<std::string>());
  }
  return findings.empty() ? kExitOk : kExitFinding;
}

}  // namespace halo::cli

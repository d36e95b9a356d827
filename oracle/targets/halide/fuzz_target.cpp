// The Halide target of `halo fuzz` (fuzz_target.hpp).
#include "oracle/targets/halide/fuzz_target.hpp"

#include "fuzz/coverage.hpp"
#include "interp/input.hpp"
#include "oracle/targets/halide/versions.hpp"
#include "semantics/diagnostics.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace halo::halide {

std::string shrink_kind(const HalideVerdict& v) {
  std::string base = fmt::format("halide-{}:{}", outcome_name(v.outcome), v.phase);
  switch (v.outcome) {
    case HalideOutcome::WrongOutput:
    case HalideOutcome::MemoryViolation:
    case HalideOutcome::Hang:
    case HalideOutcome::OutOfMemory:
      return base;
    default: {
      // The signature's message part: everything after "OUTCOME:PHASE:".
      size_t colon = v.signature.find(':', v.signature.find(':') + 1);
      return colon == std::string::npos ? base : base + v.signature.substr(colon);
    }
  }
}

fuzz::CaseResult check_halide_case(const Program& prog, const Limits& lim, const HalideOptions& opt) {
  HalideOptions o = opt;
  o.reference_limits = lim;
  fuzz::CaseResult r = fuzz::guarded([&](fuzz::CaseResult& r) {
    HalideVerdict v = run_halide_case(prog, resolve_input(prog, {}), o);
    r.outcomes.push_back(std::string("halide:") + outcome_name(v.outcome));
    // A hole in the memory check, counted so that a campaign says how often it opened.
    if (v.mem.unjudged_vector_lanes > 0) r.outcomes.push_back("halide:memcheck-unjudged-vector-lanes");
    switch (v.outcome) {  // Halide compiled the case and ran it
      case HalideOutcome::Pass: case HalideOutcome::WrongOutput: case HalideOutcome::MemoryViolation:
      case HalideOutcome::AgreedAssertion: case HalideOutcome::RuntimeAssertion:
        r.outcomes.push_back(fuzz::kRanTag);
        break;
      default: break;
    }
    if (!v.finding()) return r;
    r.verdict = fuzz::CaseResult::Verdict::Finding;
    r.kind = shrink_kind(v);
    r.detail = fmt::format("{} (signature {})", v.detail, v.signature);
    return r;
  });
  if (r.verdict == fuzz::CaseResult::Verdict::Limit) r.outcomes.push_back("halide:limit");
  return r;
}

nlohmann::json finish_halide_campaign(fuzz::CampaignSummary& s, const HalideOptions& opt, bool triage,
                                      std::string& text) {
  namespace fs = std::filesystem;
  struct Group {
    std::vector<size_t> findings;
  };
  std::map<std::string, Group> groups;
  for (size_t i = 0; i < s.findings.size(); ++i) {
    fuzz::FindingReport& f = s.findings[i];
    if (f.kind == "generator") {
      groups["generator"].findings.push_back(i);
      continue;
    }
    HalideVerdict v;
    std::string signature = "unreproduced:" + f.kind;
    bool reproduced = false;
    try {
      Input in = resolve_input(f.minimized, {});
      v = run_halide_case(f.minimized, in, opt);
      reproduced = v.finding() && shrink_kind(v) == f.kind;
      if (reproduced) {
        // Its history: the same case on every installed version; the signature names the
        // versions where it reproduces — the same outcome in the same phase (Halide's
        // messages change between versions).
        std::vector<std::pair<std::string, std::string>> history;
        std::vector<std::string> where;
        nlohmann::json versions = nlohmann::json::object();
        const HalideVersion& own = halide_version_for(opt);
        for (const HalideVersion& hv : installed_halide_versions()) {
          HalideOptions other = opt;
          other.version = hv.major;
          HalideVerdict w = hv.major == own.major ? v : run_halide_case(f.minimized, in, other);
          bool same = w.outcome == v.outcome && w.phase == v.phase;
          versions[hv.version] = {{"outcome", outcome_name(w.outcome)}, {"reproduces", same}};
          history.emplace_back(hv.version, outcome_name(w.outcome));
          if (same) where.push_back(std::to_string(hv.major));
        }
        signature = fmt::format("{} @{}", v.signature, fmt::join(where, ","));
        f.record["versions"] = versions;
        f.record["history"] = version_history_text(history);
      }
      if (!f.halo_file.empty() && v.finding()) {
        std::string cpp = fs::path(f.halo_file).replace_extension(".cpp").string();
        fuzz::write_file_atomically(cpp, halide_reproducer(f.minimized, in, v, opt));
        f.record["cpp"] = fs::path(cpp).filename().string();
      }
    } catch (const std::exception& e) {
      f.record["rerun_error"] = e.what();
    }
    f.record["signature"] = signature;
    f.record["reproduced"] = reproduced;
    f.record["outcome"] = outcome_name(v.outcome);
    if (!f.json_file.empty()) fuzz::write_file_atomically(f.json_file, f.record.dump(2) + "\n");
    groups[signature].findings.push_back(i);
  }
  nlohmann::json out = nlohmann::json::array();
  text.clear();
  if (triage && !s.findings.empty())
    text += fmt::format("\ntriage: {} failure signature(s) among {} finding(s)\n", groups.size(), s.findings.size());
  for (const auto& [sig, g] : groups) {
    // The representative: the smallest minimized case.
    size_t best = g.findings.front();
    for (size_t i : g.findings)
      if (s.findings[i].minimized_chars < s.findings[best].minimized_chars) best = i;
    const fuzz::FindingReport& rep = s.findings[best];
    std::vector<uint64_t> cases;
    for (size_t i : g.findings) cases.push_back(s.findings[i].index);
    out.push_back({{"signature", sig},
                   {"count", g.findings.size()},
                   {"cases", cases},
                   {"representative", rep.halo_file.empty() ? nlohmann::json(rep.index) : nlohmann::json(rep.halo_file)}});
    if (!triage) continue;
    std::string where = rep.halo_file.empty() ? fmt::format("case {}", rep.index) : rep.halo_file;
    text += fmt::format("  [{}] {}\n      representative: {}{}\n", g.findings.size(), sig, where,
                        g.findings.size() > 1 ? fmt::format(" (cases {})", fmt::join(cases, ", ")) : "");
  }
  return out;
}

nlohmann::json triage_findings_directory(const std::string& dir, std::string& text) {
  namespace fs = std::filesystem;
  struct Group {
    std::vector<std::string> findings;   // record file names
    std::set<std::string> campaigns;     // "TARGET seed S"
    std::string representative;          // the .halo of the smallest minimized case
    uint64_t chars = UINT64_MAX;
  };
  std::map<std::string, Group> groups;
  size_t records = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const fs::path& p = entry.path();
    if (p.extension() != ".json" || p.filename() == "triage.json") continue;
    nlohmann::json r;
    try {
      std::ifstream in(p);
      r = nlohmann::json::parse(in);
    } catch (const std::exception&) {
      continue;  // not a finding record (or one being written by another campaign)
    }
    if (!r.is_object() || !r.contains("signature")) continue;
    ++records;
    Group& g = groups[r["signature"].get<std::string>()];
    g.findings.push_back(p.filename().string());
    g.campaigns.insert(fmt::format("{} seed {}", r.value("target", std::string("?")), r.value("seed", uint64_t(0))));
    uint64_t chars = r.contains("shrink") ? r["shrink"].value("minimized_chars", UINT64_MAX) : UINT64_MAX;
    if (g.representative.empty() || chars < g.chars) {
      g.chars = chars;
      g.representative = r.value("halo", p.filename().string());
    }
  }
  nlohmann::json out = nlohmann::json::array();
  if (groups.empty()) return out;
  std::set<std::string> all_campaigns;
  for (const auto& [sig, g] : groups) all_campaigns.insert(g.campaigns.begin(), g.campaigns.end());
  text += fmt::format("\ntriage of {}: {} failure signature(s) among {} finding(s) of {} campaign(s)\n", dir,
                      groups.size(), records, all_campaigns.size());
  for (auto& [sig, g] : groups) {
    std::sort(g.findings.begin(), g.findings.end());
    out.push_back({{"signature", sig},
                   {"count", g.findings.size()},
                   {"campaigns", g.campaigns},
                   {"findings", g.findings},
                   {"representative", g.representative}});
    text += fmt::format("  [{}] {}\n      representative: {}{}\n", g.findings.size(), sig,
                        (fs::path(dir) / g.representative).string(),
                        g.campaigns.size() > 1 ? fmt::format(" (found by {})", fmt::join(g.campaigns, ", ")) : "");
  }
  fuzz::write_file_atomically((fs::path(dir) / "triage.json").string(), out.dump(2) + "\n");
  return out;
}

}  // namespace halo::halide

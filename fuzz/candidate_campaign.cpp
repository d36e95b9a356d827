// Any candidate as a target of `halo fuzz` (candidate_campaign.hpp).
#include "fuzz/candidate_campaign.hpp"

#include "fuzz/coverage.hpp"
#include "interp/input.hpp"
#include "support/diagnostics.hpp"
#include "support/json_text.hpp"
#include "support/output_file.hpp"

#include <fmt/format.h>
#include <stdexcept>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace halo::fuzz {

CaseResult check_candidate_case(const Candidate& c, const Program& prog, const Limits& lim,
                                const CandidateOptions& opt) {
  CandidateOptions o = opt;
  o.reference_limits = lim;
  CaseResult r = guarded([&](CaseResult& r) {
    CandidateVerdict v = c.run_case(prog, resolve_input(prog, {}), o);
    r.outcomes.push_back(c.name() + ":" + v.outcome);
    r.outcomes.insert(r.outcomes.end(), v.coverage.begin(), v.coverage.end());
    if (v.ran) r.outcomes.push_back(kRanTag);
    if (!v.finding) return r;
    r.verdict = CaseResult::Verdict::Finding;
    r.kind = v.shrink_kind;
    r.detail = fmt::format("{} (signature {})", v.detail, v.signature);
    r.signature = v.signature;
    return r;
  });
  if (r.verdict == CaseResult::Verdict::Limit) r.outcomes.push_back(c.name() + ":limit");
  return r;
}

void complete_candidate_finding(FindingReport& f, const Candidate& c, const CandidateOptions& opt,
                                const std::function<bool()>& stop) {
  namespace fs = std::filesystem;
  if (f.kind == "generator") return;
  CandidateVerdict v;
  std::string signature = "unreproduced:" + f.kind;
  bool reproduced = false;
  auto write_record = [&] {
    if (!f.json_file.empty()) write_file_atomically(f.json_file, f.record.dump(2, ' ', false, kReplaceInvalidUtf8) + "\n");
  };
  try {
    Input in = resolve_input(f.minimized, {});
    try {
      v = c.run_case(f.minimized, in, opt);
    } catch (const InputError& e) {
      // halo itself refuses the case (a finding of kind internal-error: halo rejected a case
      // its generator made valid): an error of the re-run, below, not a file that cannot be
      // written, so the campaign goes on.
      throw std::runtime_error(e.what());
    }
    reproduced = v.finding && v.shrink_kind == f.kind;
    if (reproduced) {
      // Its history: the same case on every installed version; the signature names the
      // versions where it reproduces: the same outcome in the same phase (a compiler's
      // messages change between versions).
      std::vector<std::pair<std::string, std::string>> history;
      std::vector<std::string> where;
      nlohmann::json versions = nlohmann::json::object();
      for (const CandidateVersion& cv : c.versions()) {
        if (stop && stop()) throw ResourceLimit("stopped");
        CandidateOptions other = opt;
        other.version = cv.key;
        CandidateVerdict w = cv.version == v.version ? v : c.run_case(f.minimized, in, other);
        bool same = w.outcome == v.outcome && w.phase == v.phase;
        versions[cv.version] = {{"outcome", w.outcome}, {"reproduces", same}};
        history.emplace_back(cv.version, w.outcome);
        if (same) where.push_back(cv.key);
      }
      signature = fmt::format("{} @{}", v.signature, fmt::join(where, ","));
      f.record["versions"] = versions;
      f.record["history"] = version_history_text(history);
    }
    // What the candidate chose for the case itself (the schedule Halide's autoscheduler
    // chose), so that the finding shows what failed.
    if (v.record.contains("autoscheduler") && !v.record["autoscheduler"].is_null())
      f.record["autoscheduler"] = v.record["autoscheduler"];
    if (!f.halo_file.empty() && v.finding) {
      std::string file = fs::path(f.halo_file).replace_extension(c.reproducer_extension()).string();
      write_file_atomically(file, c.reproducer(f.minimized, in, v, opt));
      f.record["cpp"] = fs::path(file).filename().string();
    }
  } catch (const InputError&) {
    throw;  // a file that cannot be written: the campaign stops
  } catch (const std::exception& e) {
    // Stopped (a Ctrl-C, or --time: a candidate's wait ends as a limit): what was not run
    // is not guessed; the finding stays incomplete, and --resume completes it.
    if (stop && stop()) {
      f.record.erase("versions");
      f.record.erase("history");
      f.record["completion"] = "not done: the campaign was stopped (--time or Ctrl-C) while re-running it; "
                               "--resume completes it";
      write_record();
      return;
    }
    f.record["rerun_error"] = e.what();
  }
  f.record["signature"] = signature;
  f.record["reproduced"] = reproduced;
  f.record["outcome"] = v.outcome.empty() ? std::string("pass") : v.outcome;
  write_record();
}

nlohmann::json group_candidate_findings(const CampaignSummary& s, bool triage, std::string& text) {
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < s.findings.size(); ++i) {
    const FindingReport& f = s.findings[i];
    groups[f.kind == "generator"            ? std::string("generator")
           : f.record.contains("signature") ? f.record["signature"].get<std::string>()
                                            : std::string("incomplete (--resume completes it)")]
        .push_back(i);
  }
  nlohmann::json out = nlohmann::json::array();
  text.clear();
  if (triage && !s.findings.empty())
    text += fmt::format("\ntriage: {} failure signature(s) among {} finding(s)\n", groups.size(), s.findings.size());
  for (const auto& [sig, members] : groups) {
    // The representative: the smallest minimized case.
    size_t best = members.front();
    for (size_t i : members)
      if (s.findings[i].minimized_chars < s.findings[best].minimized_chars) best = i;
    const FindingReport& rep = s.findings[best];
    std::vector<uint64_t> cases;
    for (size_t i : members) cases.push_back(s.findings[i].index);
    out.push_back({{"signature", sig},
                   {"count", members.size()},
                   {"cases", cases},
                   {"representative", rep.halo_file.empty() ? nlohmann::json(rep.index) : nlohmann::json(rep.halo_file)}});
    if (!triage) continue;
    std::string where = rep.halo_file.empty() ? fmt::format("case {}", rep.index) : rep.halo_file;
    text += fmt::format("  [{}] {}\n      representative: {}{}\n", members.size(), sig, where,
                        members.size() > 1 ? fmt::format(" (cases {})", fmt::join(cases, ", ")) : "");
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
  write_file_atomically((fs::path(dir) / "triage.json").string(), out.dump(2) + "\n");
  return out;
}

}  // namespace halo::fuzz

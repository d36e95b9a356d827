// What every candidate shares once: version selection, the version matrix and a finding's
// version history (candidate.hpp).
#include "oracle/candidate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace halo {

VersionSelection select_versions(const std::string& name, const std::string& display_name,
                                 const std::vector<CandidateVersion>& installed, const std::string& target) {
  VersionSelection s;
  if (installed.empty()) {
    s.error = fmt::format("no {} is installed here", display_name);
    return s;
  }
  if (target == name) {
    s.keys.push_back(installed.back().key);
    return s;
  }
  if (target == name + "@all") {
    s.all = true;
    for (const CandidateVersion& v : installed) s.keys.push_back(v.key);
    return s;
  }
  std::string prefix = name + "@";
  if (target.rfind(prefix, 0) == 0) {
    std::string key = target.substr(prefix.size());
    for (const CandidateVersion& v : installed)
      if (v.key == key) {
        s.keys.push_back(key);
        return s;
      }
  }
  std::vector<std::string> keys;
  for (const CandidateVersion& v : installed) keys.push_back(v.key);
  s.error = fmt::format("{}: not an installed {} (installed: {}; {} = the newest, {}@all = every one)", target,
                        display_name, fmt::join(keys, ", "), name, name);
  return s;
}

const char* verdict_word(bool finding, bool ran) { return finding ? "violated" : ran ? "holds" : "not_run"; }

const char* matrix_verdict_word(const std::vector<CandidateVerdict>& verdicts) {
  bool any_finding = false, all_ran = true;
  for (const CandidateVerdict& v : verdicts) any_finding |= v.finding, all_ran &= v.ran;
  return verdict_word(any_finding, all_ran);
}

std::vector<std::string> versions_not_run(const std::vector<CandidateVerdict>& verdicts) {
  std::vector<std::string> out;
  for (const CandidateVerdict& v : verdicts)
    if (!v.ran && !v.finding) out.push_back(v.version);
  return out;
}

std::string version_matrix_text(const std::string& display_name, const std::vector<CandidateVerdict>& verdicts) {
  size_t width = std::max<size_t>(8, display_name.size());  // the widest version ("0.27.0.post1")
  for (const CandidateVerdict& v : verdicts) width = std::max(width, v.version.size());
  std::string s = fmt::format("{:<{}}  {:<17}  {:<14}  {}\n", display_name, width, "outcome", "phase", "what happened");
  for (const CandidateVerdict& v : verdicts) {
    std::string what = v.detail;
    if (what.size() > 160) what = what.substr(0, 157) + "...";
    s += fmt::format("{:<{}}  {:<17}  {:<14}  {}\n", v.version, width, v.outcome, v.phase.empty() ? "-" : v.phase, what);
  }
  for (const CandidateVerdict& v : verdicts)
    if (v.finding) s += fmt::format("signature in {}: {}\n", v.version, v.signature);
  std::string word = matrix_verdict_word(verdicts);
  std::vector<std::string> skipped = versions_not_run(verdicts);
  if (word == std::string("not_run") && skipped.size() == verdicts.size())
    s += fmt::format("verdict: not run: no {} version ran the case ({}), so nothing is checked\n", display_name,
                     fmt::join(skipped, ", "));
  else if (word == std::string("not_run"))
    s += fmt::format("verdict: not run on {0}: {1} {0} did not run the case; the other versions ran it and agreed\n",
                     fmt::join(skipped, ", "), display_name);
  else
    s += fmt::format("verdict: {}\n", word);
  return s;
}

std::string version_history_text(const std::vector<std::pair<std::string, std::string>>& outcomes) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const auto& [version, outcome] : outcomes) {
    auto it = std::find_if(groups.begin(), groups.end(), [&o = outcome](const auto& g) { return g.first == o; });
    if (it == groups.end()) groups.push_back({outcome, {version}});
    else it->second.push_back(version);
  }
  std::vector<std::string> parts;
  for (const auto& [outcome, versions] : groups) {
    std::string list = versions.size() == 1 ? versions.front()
                                            : fmt::format("{} and {}",
                                                          fmt::join(versions.begin(), versions.end() - 1, ", "),
                                                          versions.back());
    parts.push_back(fmt::format("{} in {}", outcome, list));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

RelaxedFloatTolerance relaxed_float_tolerance(Type t) {
  return t.bits() == 32 ? RelaxedFloatTolerance{1e-6, 1e-4} : RelaxedFloatTolerance{1e-12, 1e-9};
}

bool relaxed_agree(Type t, const Value& want, const Value& got) {
  if (!want.is_float() || !got.is_float()) return false;
  double w = want.as_double(), g = got.as_double();
  if (!std::isfinite(w)) return true;
  RelaxedFloatTolerance tol = relaxed_float_tolerance(t);
  return std::abs(g - w) <= tol.absolute + tol.relative * std::abs(w);
}

}  // namespace halo

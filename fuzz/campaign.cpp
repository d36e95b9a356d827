// The campaign driver, shrinking and finding files: see campaign.hpp.
#include "fuzz/campaign.hpp"
#include "support/json_text.hpp"

#include "fuzz/reduce.hpp"
#include "semantics/printer.hpp"
#include "support/child_processes.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace halo::fuzz {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool same_failure(const CaseResult& r, const CaseResult& failure) {
  return r.is_finding() && r.kind == failure.kind;
}

std::string replace_all(std::string s, const std::string& what, const std::string& with) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size()))
    s.replace(at, what.size(), with);
  return s;
}

}  // namespace

Minimized minimize(const rc::Shrinkable<Program>& start, const CaseResult& failure, const CaseCheck& check,
                   const ShrinkBudget& budget, const std::function<bool()>& stop) {
  Minimized m{start.value(), failure, 0, 0};
  Clock::time_point t0 = Clock::now();
  auto spent = [&] {
    return m.tries >= budget.max_tries || since(t0) >= budget.max_seconds || (stop && stop());
  };
  // The RapidCheck shrink tree: each candidate is the generator re-run with smaller
  // choices, so it is a valid case by construction. Smaller choices can still print
  // longer (one more directive accepted), so a candidate must not be longer to be adopted.
  rc::Shrinkable<Program> current = start;
  size_t length = print_program(m.program).size();
  for (bool adopted = true; adopted && !spent();) {
    adopted = false;
    rc::Seq<rc::Shrinkable<Program>> shrinks = current.shrinks();
    while (auto next = shrinks.next()) {
      if (spent()) break;
      Program candidate;
      try {
        candidate = next->value();
      } catch (const std::exception&) {
        continue;  // the generator gave up on this shrink (rc::GenerationFailure)
      }
      size_t candidate_length = print_program(candidate).size();
      if (candidate_length > length) continue;
      ++m.tries;
      CaseResult r = check(candidate);
      if (!same_failure(r, failure)) continue;
      current = *next;
      length = candidate_length;
      m.program = std::move(candidate);
      m.result = std::move(r);
      ++m.steps;
      adopted = true;
      break;
    }
  }
  // Then structural reduction (fuzz/reduce.hpp): whole funcs, stages, directives and
  // subexpressions, as long as a smaller valid case fails the same way.
  for (bool adopted = true; adopted && !spent();) {
    adopted = false;
    auto measure = case_measure(m.program);
    for_each_simpler_variant(m.program, [&](Program v) {
      if (spent()) return true;
      if (!(case_measure(v) < measure) || !is_valid_case(v)) return false;
      ++m.tries;
      CaseResult r = check(v);
      if (!same_failure(r, failure)) return false;
      m.program = std::move(v);
      m.result = std::move(r);
      ++m.steps;
      adopted = true;
      return true;
    });
  }
  return m;
}

std::string finding_text(const FindingReport& f, const CampaignOptions& opts) {
  // The program comes first, exactly as print_program prints it, so that the locations in
  // the finding's detail (computed on that text) are the file's own.
  std::string out = print_program(f.minimized);
  out += fmt::format("\n# halo {} finding: {}\n", opts.target == "engine" ? "comply" : "fuzz", f.kind);
  std::string at_window = f.window ? fmt::format(" at its window {} (--windows)", f.window) : "";
  if (f.not_minimized.empty())
    out += fmt::format("# seed {}, case {} (size {}){}; minimized in {} steps ({} candidates checked)\n", opts.seed,
                       f.index, f.seed.size, at_window, f.shrink_steps, f.shrink_tries);
  else
    out += fmt::format("# seed {}, case {} (size {}){}; not minimized: {}\n", opts.seed, f.index, f.seed.size,
                       at_window, f.not_minimized);
  out += "# " + replace_all(f.detail, "\n", "\n# ") + "\n";
  if (!opts.reproduce.empty())
    out += "# reproduce: " + replace_all(opts.reproduce, "{file}", f.halo_file.empty() ? "THIS_FILE" : f.halo_file) +
           "\n";
  return out;
}

nlohmann::json CampaignSummary::to_json() const {
  nlohmann::json records = nlohmann::json::array();
  for (const FindingReport& f : findings) records.push_back(f.record);
  nlohmann::json j = {{"target", target},
          {"seed", seed},
          {"shard", fmt::format("{}/{}", shard, shards)},
          {"cases", cases},
          {"programs", programs},
          {"passed", passed},
          {"vacuous", vacuous},
          {"findings", findings.size()},
          {"limits", limits},
          {"duplicates", duplicates},
          {"interrupted", interrupted},
          {"cut_by_time", cut_by_time},
          {"incomplete", incomplete},
          {"time_split", {{"cases", case_seconds}, {"shrinking", shrink_seconds}, {"completing", completion_seconds}}},
          {"seconds", seconds},
          {"cases_per_second", cases_per_second()},
          {"coverage", coverage.to_json()},
          {"finding_records", records}};
  if (resumed) j["resumed"] = {{"first_case", first_case}, {"earlier_findings", earlier_findings}};
  if (!write_error.empty()) j["write_error"] = write_error;
  if (dropped_beyond_max) j["dropped_beyond_max_findings"] = dropped_beyond_max;
  return j;
}

nlohmann::json CampaignProgress::to_json() const {
  return {{"cases", cases},     {"programs", programs},        {"findings", findings},        {"limits", limits},
          {"seconds", seconds}, {"working", working},          {"current_case", current_case},
          {"current_for", current_for}, {"phase", phase},      {"jobs", jobs},
          {"next_case", next_case}};
}

CampaignProgress CampaignProgress::from_json(const nlohmann::json& j) {
  CampaignProgress p;
  p.cases = j.value("cases", uint64_t(0));
  p.programs = j.value("programs", uint64_t(0));
  p.findings = j.value("findings", uint64_t(0));
  p.limits = j.value("limits", uint64_t(0));
  p.seconds = j.value("seconds", 0.0);
  p.working = j.value("working", false);
  p.current_case = j.value("current_case", uint64_t(0));
  p.current_for = j.value("current_for", 0.0);
  p.phase = j.value("phase", std::string());
  p.jobs = j.value("jobs", 1);
  p.next_case = j.value("next_case", uint64_t(0));
  return p;
}

CampaignProgress progress_of(const CampaignSummary& s) {
  CampaignProgress p;
  p.cases = s.cases;
  p.programs = s.programs;
  p.findings = s.findings.size();
  p.limits = s.limits;
  p.seconds = s.seconds;
  p.working = s.working;
  p.current_case = s.current_case;
  p.current_for = s.working ? s.seconds - s.current_since : 0;
  p.phase = s.current_phase;
  p.next_case = s.next_case;
  return p;
}

namespace {

// FNV-1a: a digest that is the same on every machine and with every compiler (std::hash is
// not), for the names of progress files.
uint64_t stable_digest(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// A finding's key for duplicate detection: kind and minimized case (or, for the generator, the detail).
std::string finding_key(const std::string& kind, const std::string& program_or_detail) {
  return kind + "\n" + program_or_detail;
}

// What the output directory holds of the earlier part of a resumed campaign: the keys of its
// complete findings with the case that filed each (another job's shard included), and the
// cases of this shard whose finding is incomplete (to be redone).
struct EarlierFindings {
  std::map<std::string, uint64_t> keys;
  std::map<std::string, std::vector<uint64_t>> minimized;  // candidate signature -> the cases minimized
  std::vector<uint64_t> redo;
};

EarlierFindings earlier_findings(const CampaignOptions& opts) {
  namespace fs = std::filesystem;
  EarlierFindings e;
  std::string prefix = fmt::format("{}-{}-", opts.target, opts.seed);
  std::set<uint64_t> incomplete, complete;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(opts.out_dir, ec)) {
    std::string name = entry.path().filename().string();
    std::string ext = entry.path().extension().string();
    if (name.rfind(prefix, 0) != 0 || (ext != ".json" && ext != ".halo")) continue;
    std::string number = entry.path().stem().string().substr(prefix.size());
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) continue;  // .shrunk, .cpp, ...
    uint64_t k = 0;
    try {
      k = std::stoull(number);
    } catch (const std::exception&) {
      continue;
    }
    // Another shard's finding (a job of the same `--jobs` campaign, or another machine's
    // shard in the same folder) is not redone here, but a complete one is known: the same
    // minimized case found again is a duplicate.
    bool own = k % opts.shards == opts.shard;
    if (own && k >= opts.first_case) continue;  // redone anyway
    if (ext == ".halo") {
      if (!own) continue;
      // A .halo file without its record: the campaign was killed between the two writes.
      if (!fs::exists(fs::path(opts.out_dir) / (prefix + number + ".json"), ec)) incomplete.insert(k);
      continue;
    }
    nlohmann::json r;
    try {
      std::ifstream in(entry.path(), std::ios::binary);
      r = nlohmann::json::parse(in);
    } catch (const std::exception&) {
      incomplete.insert(k);
      continue;
    }
    bool ok = r.is_object() && r["verdict"].is_string() && r["detail"].is_string();
    bool generator = ok && r["verdict"] == "generator";
    if (ok && !generator)
      ok = r["program"].is_string() && r["halo"].is_string() &&
           fs::is_regular_file(fs::path(opts.out_dir) / r["halo"].get<std::string>(), ec);
    for (const std::string& key : opts.complete_record_keys) ok = ok && r.contains(key);
    if (!ok) {
      if (own) incomplete.insert(k);
      continue;
    }
    if (own) complete.insert(k);
    if (own && r.contains("case_signature") && r["case_signature"].is_string() && !r["shrink"].contains("not_minimized"))
      e.minimized[r["case_signature"].get<std::string>()].push_back(k);
    auto [at, fresh] = e.keys.emplace(finding_key_of_record(r), k);
    if (!fresh) at->second = std::min(at->second, k);
  }
  for (uint64_t k : incomplete)
    if (!complete.count(k)) e.redo.push_back(k);
  return e;
}

}  // namespace

std::string campaign_progress_text(const CampaignOptions& opts, uint64_t done) {
  uint64_t next = done;
  bool last = __builtin_add_overflow(done, opts.shards, &next);
  return nlohmann::json{{"target", opts.target}, {"seed", opts.seed},         {"shard", opts.shard},
                        {"shards", opts.shards}, {"cases", opts.cases},       {"options", opts.identity},
                        {"next_case", next},     {"finished", last}}
             .dump() +
         "\n";
}

std::string campaign_progress_path(const CampaignOptions& opts) {
  nlohmann::json id = {{"target", opts.target}, {"seed", opts.seed}, {"shard", opts.shard},
                       {"shards", opts.shards}, {"options", opts.identity}};
  return (std::filesystem::path(opts.out_dir) /
          fmt::format(".halo-campaign-{}-{}-{}-of-{}-{:08x}.progress", opts.target, opts.seed, opts.shard, opts.shards,
                      stable_digest(id.dump()) & 0xffffffffu))
      .string();
}

std::vector<std::pair<std::string, nlohmann::json>> campaign_progress_records(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, nlohmann::json>> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(".halo-campaign-", 0) != 0 || entry.path().extension() != ".progress") continue;
    try {
      std::ifstream in(entry.path(), std::ios::binary);
      nlohmann::json j = nlohmann::json::parse(in);
      if (j.is_object()) out.emplace_back(entry.path().string(), std::move(j));
    } catch (const std::exception&) {
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

std::string finding_stem(const CampaignOptions& opts, uint64_t k) { return fmt::format("{}-{}-{}", opts.target, opts.seed, k); }

std::string finding_key_of_record(const nlohmann::json& r) {
  std::string verdict = r.value("verdict", std::string());
  return finding_key(verdict, verdict == "generator" ? r.value("detail", std::string()) : r.value("program", std::string()));
}

void remove_finding_files(const CampaignOptions& opts, uint64_t k) {
  namespace fs = std::filesystem;
  std::string stem = finding_stem(opts, k);
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(opts.out_dir, ec))
    if (entry.path().stem() == stem) files.push_back(entry.path());
  for (const fs::path& p : files) fs::remove(p, ec);
}

void remove_stale_temporaries(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    size_t at = name.rfind(".tmp.");
    if (name.empty() || name[0] != '.' || at == std::string::npos) continue;
    std::string pid_text = name.substr(at + 5);
    if (pid_text.empty() || pid_text.size() > 9 || pid_text.find_first_not_of("0123456789") != std::string::npos)
      continue;
    pid_t pid = pid_t(std::stol(pid_text));
    // Our own PID cannot have written it yet (this runs before the campaign writes): a
    // process of an earlier boot or container that had the same number.
    bool running = pid != ::getpid() && pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
    if (!running) fs::remove(entry.path(), ec);
  }
}

CampaignSummary run_campaign(const CampaignOptions& opts, const CaseCheck& check, const std::function<bool()>& stop,
                             const ProgressFn& progress) {
  namespace fs = std::filesystem;
  if (!opts.out_dir.empty()) {
    create_output_directory(opts.out_dir);
    remove_stale_temporaries(opts.out_dir);
  }
  CampaignSummary s;
  s.target = opts.target;
  s.seed = opts.seed;
  s.shard = opts.shard;
  s.shards = opts.shards;
  // Kind + minimized case of every finding so far, with the case that filed it.
  std::map<std::string, uint64_t> seen;
  std::map<std::string, std::vector<uint64_t>> minimized_by_signature;
  std::vector<uint64_t> redo;  // earlier cases whose finding is incomplete on disk
  if (opts.resume && !opts.out_dir.empty()) {
    EarlierFindings e = earlier_findings(opts);
    seen = std::move(e.keys);
    minimized_by_signature = std::move(e.minimized);
    redo = std::move(e.redo);
    s.resumed = true;
    s.first_case = opts.first_case;
    s.earlier_findings = seen.size();
  }
  Clock::time_point t0 = Clock::now();
  // --time bounds the whole campaign: the case in progress (a candidate's wait ends at the
  // deadline), its shrinking and its completion, not only the start of new cases.
  int64_t deadline_ns = opts.seconds > 0 ? monotonic_now_ns() + int64_t(opts.seconds * 1e9) : 0;
  struct DeadlineScope {
    explicit DeadlineScope(int64_t ns) { set_candidate_waits_deadline(ns); }
    ~DeadlineScope() { set_candidate_waits_deadline(0); }
    DeadlineScope(const DeadlineScope&) = delete;
    DeadlineScope& operator=(const DeadlineScope&) = delete;
  } deadline_scope(deadline_ns);
  auto time_up = [&] { return deadline_ns > 0 && monotonic_now_ns() >= deadline_ns; };
  auto halt = [&] { return (stop && stop()) || time_up(); };
  // Why work was cut: a Ctrl-C (interrupted) or the deadline.
  auto note_halt = [&] {
    if (stop && stop()) s.interrupted = true;
    else s.cut_by_time = true;
  };
  auto report = [&](const char* phase) {
    s.current_phase = phase;
    s.seconds = since(t0);
    if (progress) progress(progress_of(s));
  };
  bool abandoned = false;  // the case in progress was cut before it was decided
  bool wrapped = false;  // k + shards past 2^64 - 1 ends the shard (--shard 5/18446744073709551615: one case)
  uint64_t k0 = opts.shard;
  if (opts.first_case > k0) {  // the first case of this shard at or after first_case
    uint64_t steps = (opts.first_case - opts.shard) / opts.shards + ((opts.first_case - opts.shard) % opts.shards != 0);
    wrapped = __builtin_mul_overflow(steps, opts.shards, &k0) || __builtin_add_overflow(k0, opts.shard, &k0);
  }
  s.next_case = k0;
  std::string progress_file = opts.out_dir.empty() || !opts.inputs.empty() || !opts.write_progress ? std::string()
                              : !opts.progress_path.empty()                ? opts.progress_path
                                                                           : campaign_progress_path(opts);
  // Writes a file of the campaign; on failure (a full disk) records why and returns false.
  auto write = [&](const std::string& path, const std::string& text) {
    try {
      write_file_atomically(path, text);
      return true;
    } catch (const InputError& e) {
      s.write_error = e.what();
      s.write_failure = std::current_exception();
      return false;
    } catch (const std::exception& e) {  // bad input (exit 2) too, whatever the writer throws
      s.write_error = e.what();
      s.write_failure = std::make_exception_ptr(InputError(Diagnostic{path, {}, std::string("cannot write: ") + e.what()}));
      return false;
    }
  };
  // Runs case k; false when the campaign must stop (a write failed, or enough findings).
  auto run_case = [&](uint64_t k) {
    s.working = true;
    s.current_case = k;
    s.current_since = since(t0);
    report("case");
    CaseSeed cs = opts.inputs.empty() ? campaign_case(opts.seed, k) : opts.inputs[k];
    rc::Shrinkable<Program> shrinkable = opts.generator ? opts.generator(cs) : generate_case(cs);
    Program prog;
    CaseResult r;
    try {
      prog = shrinkable.value();
    } catch (const std::exception& e) {
      // A generator that fails is a bug of fuzz/: reported like any finding, without a case.
      r.verdict = CaseResult::Verdict::Finding;
      r.kind = "generator";
      r.detail = std::string("the case generator failed: ") + e.what();
    }
    auto count = [&](const CaseResult& c) {
      ++s.cases;
      if (c.verdict == CaseResult::Verdict::Pass) ++(c.vacuous ? s.vacuous : s.passed);
      if (c.verdict == CaseResult::Verdict::Limit) ++s.limits;
    };
    uint64_t window = 0;  // which of the program's windows decided the case (--windows)
    if (r.kind != "generator") {
      const Program drawn = prog;
      const rc::Shrinkable<Program> drawn_shrinkable = shrinkable;
      CaseResult passed;  // the last window's pass
      for (uint64_t j = 0; j < std::max<uint64_t>(opts.windows, 1); ++j) {
        if (j > 0) {
          // The program's other windows run after a pass on its own, each a case (a
          // candidate may realize them with one compile): a failure is the case's finding,
          // and is shrunk at the window that failed.
          if (r.verdict != CaseResult::Verdict::Pass || !drawn.realize || !windows_are_free(drawn) || halt() ||
              (opts.seconds > 0 && since(t0) >= opts.seconds))
            break;
          passed = std::move(r);
          auto at_window = [w = case_window(cs, j, drawn.realize->window)](Program p) {
            for (size_t d = 0; d < p.realize->window.size() && d < w.size(); ++d) p.realize->window[d] = w[d];
            return p;
          };
          prog = at_window(drawn);
          shrinkable = rc::shrinkable::map(drawn_shrinkable, at_window);
          window = j;
        }
        Clock::time_point case_start = Clock::now();
        r = check(prog);
        s.case_seconds += since(case_start);
        // Interrupted while a candidate worked on it (a Ctrl-C or the deadline abandons the
        // Halide worker's case at once): the case was not decided, is not counted, and
        // --resume runs it again; at a later window, the case ends with the windows decided.
        if (r.verdict == CaseResult::Verdict::Limit && halt()) {
          note_halt();
          if (j > 0) {
            r = std::move(passed);
            break;
          }
          abandoned = true;
          s.working = false;
          return false;
        }
        s.coverage.add_case(prog, r.outcomes);
        count(r);
      }
    } else {
      count(r);
    }
    ++s.programs;
    if (r.is_finding()) {
      FindingReport f;
      f.index = k;
      f.window = window;
      f.seed = cs;
      f.original_detail = r.detail;
      if (r.kind == "generator") {
        f.kind = r.kind;
        f.detail = r.detail;
      } else if (std::vector<uint64_t>& done = minimized_by_signature[r.signature];
                 !r.signature.empty() && opts.shrink.per_signature > 0 && done.size() >= size_t(opts.shrink.per_signature)) {
        f.kind = r.kind;
        f.detail = r.detail;
        f.minimized = prog;
        f.original_chars = f.minimized_chars = print_program(prog).size();
        f.not_minimized = fmt::format("its signature was minimized already, in case{} {} (at most {} per signature and "
                                      "process: --minimize-per-signature)",
                                      done.size() == 1 ? "" : "s", fmt::join(done, ", "), opts.shrink.per_signature);
      } else {
        if (!r.signature.empty()) done.push_back(k);
        report("shrinking");
        Clock::time_point shrink_start = Clock::now();
        Minimized m = minimize(shrinkable, r, opts.shrink_check ? opts.shrink_check(r) : check, opts.shrink, halt);
        s.shrink_seconds += since(shrink_start);
        if (time_up()) s.cut_by_time = true;
        f.kind = m.result.kind;
        f.detail = m.result.detail;
        f.minimized = m.program;
        f.shrink_steps = m.steps;
        f.shrink_tries = m.tries;
        f.original_chars = print_program(prog).size();
        f.minimized_chars = print_program(m.program).size();
      }
      std::string key = finding_key(f.kind, f.kind == "generator" ? f.detail : print_program(f.minimized));
      auto known = seen.find(key);
      // Filed before by a higher case of another job's shard (a kill came before the merge
      // that keeps the lowest): this case files it instead, as one process would have.
      bool supersedes = known != seen.end() && known->second > k && known->second % opts.shards != opts.shard &&
                        !opts.out_dir.empty();
      if (known != seen.end() && !supersedes) {
        ++s.duplicates;
      } else {
        if (supersedes) {
          remove_finding_files(opts, known->second);
          ++s.duplicates;
          if (s.earlier_findings) --s.earlier_findings;
        }
        seen[key] = k;
        std::string stem = finding_stem(opts, k);
        if (!opts.out_dir.empty()) {
          if (f.kind != "generator") f.halo_file = (fs::path(opts.out_dir) / (stem + ".halo")).string();
          f.json_file = (fs::path(opts.out_dir) / (stem + ".json")).string();
        }
        f.record = {{"target", opts.target},
                    {"seed", opts.seed},
                    {"case", k},
                    {"size", cs.size},
                    {"verdict", f.kind},
                    {"detail", f.detail},
                    {"original_detail", f.original_detail},
                    {"fuzzer_input", to_hex(encode_case_bytes(cs))},
                    {"window", f.window},
                    {"shrink", {{"steps", f.shrink_steps},
                                {"tries", f.shrink_tries},
                                {"original_chars", f.original_chars},
                                {"minimized_chars", f.minimized_chars}}}};
        if (!f.not_minimized.empty()) f.record["shrink"]["not_minimized"] = f.not_minimized;
        if (!r.signature.empty()) f.record["case_signature"] = r.signature;
        for (const auto& [key2, val] : opts.record_extra.items()) f.record[key2] = val;
        if (f.kind != "generator") {
          f.record["program"] = print_program(f.minimized);
          if (!f.halo_file.empty()) f.record["halo"] = fs::path(f.halo_file).filename().string();
          if (!opts.reproduce.empty()) f.record["reproduce"] = replace_all(opts.reproduce, "{file}", f.halo_file.empty() ? "FILE" : f.halo_file);
        }
        // The .halo file first: a record on disk always names a complete case. A finding is
        // on disk whole or not at all: when its record cannot be written, its case goes too.
        if (!f.halo_file.empty() && !write(f.halo_file, finding_text(f, opts))) return false;
        if (!f.json_file.empty() &&
            !write(f.json_file, f.record.dump(2, ' ', false, kReplaceInvalidUtf8) + "\n")) {
          std::error_code ignored;
          if (!f.halo_file.empty()) fs::remove(f.halo_file, ignored);
          return false;
        }
        // A later finding of a signature minimized already (--minimize-per-signature) is not
        // re-run on every version either: its record takes the completed signature of the
        // first minimized finding of that signature and says so. A repeat's completion was a
        // third of a campaign's time when the same failure came again and again.
        const FindingReport* first = nullptr;
        if (opts.complete_finding && !f.not_minimized.empty())
          for (const FindingReport& g : s.findings)
            if (g.index == minimized_by_signature[r.signature].front() && g.record.contains("signature")) first = &g;
        if (first) {
          f.record["signature"] = first->record["signature"];
          f.record["completion"] = fmt::format(
              "not re-run on the other versions: its failure signature is case {}'s, whose signature and history "
              "these are (--minimize-per-signature 0 re-runs every finding)",
              first->index);
          if (!f.json_file.empty() && !write(f.json_file, f.record.dump(2, ' ', false, kReplaceInvalidUtf8) + "\n")) {
            std::error_code ignored;
            if (!f.halo_file.empty()) fs::remove(f.halo_file, ignored);
            return false;
          }
        } else if (opts.complete_finding) {
          report("completing");
          Clock::time_point completion_start = Clock::now();
          struct AddTime {
            double& to;
            Clock::time_point from;
            ~AddTime() { to += since(from); }
          } add_time{s.completion_seconds, completion_start};
          try {
            opts.complete_finding(f, halt);
          } catch (const InputError& e) {  // its record or reproducer could not be written
            s.write_error = e.what();
            s.write_failure = std::current_exception();
            s.findings.push_back(std::move(f));
            return false;
          }
          for (const std::string& key2 : opts.complete_record_keys)
            if (!f.record.contains(key2)) {
              ++s.incomplete;
              if (halt()) note_halt();
              break;
            }
        }
        s.findings.push_back(std::move(f));
      }
    }
    s.working = false;
    report("case");
    return !(opts.max_findings && s.findings.size() + s.earlier_findings >= opts.max_findings);
  };
  bool go_on = true;
  for (uint64_t k : redo) {  // first the earlier cases whose finding a kill left incomplete
    if (stop && stop()) {
      s.interrupted = true;
      go_on = false;
      break;
    }
    // What the kill left of it goes first, so that a redo that files nothing (a duplicate
    // now) leaves nothing half written either.
    remove_finding_files(opts, k);
    if (!(go_on = run_case(k))) break;
  }
  if (opts.max_findings && s.findings.size() + s.earlier_findings >= opts.max_findings) go_on = false;
  for (uint64_t k = k0; go_on && !wrapped; wrapped = __builtin_add_overflow(k, opts.shards, &k)) {
    if (opts.cases && k >= opts.cases) break;
    if (!opts.inputs.empty() && k >= opts.inputs.size()) break;
    if (opts.seconds > 0 && since(t0) >= opts.seconds) break;
    if (stop && stop()) {
      s.interrupted = true;
      break;
    }
    go_on = run_case(k);
    if (!s.write_error.empty() || abandoned) break;  // this case is not done: a resume redoes it
    s.next_case = k;
    bool last = __builtin_add_overflow(k, opts.shards, &s.next_case);
    if (last) s.next_case = UINT64_MAX;
    if (!progress_file.empty() && !write(progress_file, campaign_progress_text(opts, k))) break;
    if (s.interrupted) break;
  }
  s.seconds = since(t0);
  return s;
}

}  // namespace halo::fuzz

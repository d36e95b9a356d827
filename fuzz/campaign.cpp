// The campaign driver, shrinking and finding files: see campaign.hpp.
#include "fuzz/campaign.hpp"
#include "support/json_text.hpp"

#include "fuzz/reduce.hpp"
#include "semantics/printer.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
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

void write_file_atomically(const std::string& path, const std::string& contents) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path tmp = target.parent_path() / fmt::format(".{}.tmp.{}", target.filename().string(), ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << contents;
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(tmp, ignored);  // a full disk must not leave half a finding behind
      throw InputError(Diagnostic{tmp.string(), {}, "cannot write the finding file"});
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw InputError(Diagnostic{path, {}, "cannot write the finding file: " + ec.message()});
  }
}

std::string finding_text(const FindingReport& f, const CampaignOptions& opts) {
  // The program comes first, exactly as print_program prints it, so that the locations in
  // the finding's detail (computed on that text) are the file's own.
  std::string out = print_program(f.minimized);
  out += fmt::format("\n# halo {} finding: {}\n", opts.target == "engine" ? "comply" : "fuzz", f.kind);
  out += fmt::format("# seed {}, case {} (size {}); minimized in {} steps ({} candidates checked)\n", opts.seed,
                     f.index, f.seed.size, f.shrink_steps, f.shrink_tries);
  out += "# " + replace_all(f.detail, "\n", "\n# ") + "\n";
  if (!opts.reproduce.empty())
    out += "# reproduce: " + replace_all(opts.reproduce, "{file}", f.halo_file.empty() ? "THIS_FILE" : f.halo_file) +
           "\n";
  return out;
}

nlohmann::json CampaignSummary::to_json() const {
  nlohmann::json records = nlohmann::json::array();
  for (const FindingReport& f : findings) records.push_back(f.record);
  return {{"target", target},
          {"seed", seed},
          {"shard", fmt::format("{}/{}", shard, shards)},
          {"cases", cases},
          {"passed", passed},
          {"vacuous", vacuous},
          {"findings", findings.size()},
          {"limits", limits},
          {"duplicates", duplicates},
          {"interrupted", interrupted},
          {"seconds", seconds},
          {"cases_per_second", cases_per_second()},
          {"coverage", coverage.to_json()},
          {"finding_records", records}};
}

std::string campaign_progress_path(const std::string& out_dir, uint64_t shard, uint64_t shards) {
  return (std::filesystem::path(out_dir) / fmt::format(".halo-campaign-{}-of-{}.progress", shard, shards)).string();
}

CampaignSummary run_campaign(const CampaignOptions& opts, const CaseCheck& check, const std::function<bool()>& stop,
                             const ProgressFn& progress) {
  namespace fs = std::filesystem;
  if (!opts.out_dir.empty()) {
    std::error_code ec;
    fs::create_directories(opts.out_dir, ec);
    if (ec || !fs::is_directory(opts.out_dir, ec))
      throw InputError(Diagnostic{opts.out_dir, {}, "cannot create the output directory: " + ec.message()});
  }
  CampaignSummary s;
  s.target = opts.target;
  s.seed = opts.seed;
  s.shard = opts.shard;
  s.shards = opts.shards;
  std::set<std::string> seen;  // kind + minimized case of every finding so far
  Clock::time_point t0 = Clock::now();
  bool wrapped = false;  // k + shards past 2^64 - 1 ends the shard (--shard 5/18446744073709551615: one case)
  uint64_t k0 = opts.shard;
  if (opts.first_case > k0) {  // the first case of this shard at or after first_case
    uint64_t steps = (opts.first_case - opts.shard) / opts.shards + ((opts.first_case - opts.shard) % opts.shards != 0);
    wrapped = __builtin_mul_overflow(steps, opts.shards, &k0) || __builtin_add_overflow(k0, opts.shard, &k0);
  }
  std::string progress_file = opts.out_dir.empty() || !opts.inputs.empty()
                                  ? std::string()
                                  : campaign_progress_path(opts.out_dir, opts.shard, opts.shards);
  for (uint64_t k = k0; !wrapped; wrapped = __builtin_add_overflow(k, opts.shards, &k)) {
    if (opts.cases && k >= opts.cases) break;
    if (!opts.inputs.empty() && k >= opts.inputs.size()) break;
    if (opts.seconds > 0 && since(t0) >= opts.seconds) break;
    if (stop && stop()) {
      s.interrupted = true;
      break;
    }
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
    if (r.kind != "generator") {
      r = check(prog);
      // Interrupted while a candidate worked on it (a Ctrl-C abandons the Halide worker's
      // case at once): the case was not decided, is not counted, and --resume runs it again.
      if (r.verdict == CaseResult::Verdict::Limit && stop && stop()) {
        s.interrupted = true;
        break;
      }
      s.coverage.add_case(prog, r.outcomes);
    }
    ++s.cases;
    if (r.verdict == CaseResult::Verdict::Pass) ++(r.vacuous ? s.vacuous : s.passed);
    if (r.verdict == CaseResult::Verdict::Limit) ++s.limits;
    if (r.is_finding()) {
      FindingReport f;
      f.index = k;
      f.seed = cs;
      f.original_detail = r.detail;
      if (r.kind == "generator") {
        f.kind = r.kind;
        f.detail = r.detail;
      } else {
        Minimized m = minimize(shrinkable, r, check, opts.shrink, stop);
        f.kind = m.result.kind;
        f.detail = m.result.detail;
        f.minimized = m.program;
        f.shrink_steps = m.steps;
        f.shrink_tries = m.tries;
        f.original_chars = print_program(prog).size();
        f.minimized_chars = print_program(m.program).size();
      }
      std::string key = f.kind + "\n" + (f.kind == "generator" ? f.detail : print_program(f.minimized));
      if (!seen.insert(key).second) {
        ++s.duplicates;
      } else {
        std::string stem = fmt::format("{}-{}-{}", opts.target, opts.seed, k);
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
                    {"shrink", {{"steps", f.shrink_steps},
                                {"tries", f.shrink_tries},
                                {"original_chars", f.original_chars},
                                {"minimized_chars", f.minimized_chars}}}};
        for (const auto& [key2, val] : opts.record_extra.items()) f.record[key2] = val;
        if (f.kind != "generator") {
          f.record["program"] = print_program(f.minimized);
          if (!f.halo_file.empty()) f.record["halo"] = fs::path(f.halo_file).filename().string();
          if (!opts.reproduce.empty()) f.record["reproduce"] = replace_all(opts.reproduce, "{file}", f.halo_file.empty() ? "FILE" : f.halo_file);
        }
        // The .halo file first: a record on disk always names a complete case.
        if (!f.halo_file.empty()) write_file_atomically(f.halo_file, finding_text(f, opts));
        if (!f.json_file.empty()) write_file_atomically(f.json_file, f.record.dump(2, ' ', false, kReplaceInvalidUtf8) + "\n");
        s.findings.push_back(std::move(f));
      }
    }
    s.seconds = since(t0);
    if (progress) progress(s);
    if (!progress_file.empty()) {
      uint64_t next = k;
      bool last = __builtin_add_overflow(k, opts.shards, &next);
      write_file_atomically(progress_file, nlohmann::json{{"target", opts.target},
                                                          {"seed", opts.seed},
                                                          {"shard", opts.shard},
                                                          {"shards", opts.shards},
                                                          {"next_case", next},
                                                          {"finished", last}}
                                                   .dump() +
                                               "\n");
    }
    if (opts.max_findings && s.findings.size() >= opts.max_findings) break;
  }
  s.seconds = since(t0);
  return s;
}

}  // namespace halo::fuzz

// Running and judging a case on TVM: see tvm_oracle.hpp.
#include "candidates/tvm/tvm_oracle.hpp"

#include "candidates/tvm/translate.hpp"
#include "interp/fast_eval.hpp"
#include "oracle/candidate.hpp"
#include "oracle/int32_model.hpp"
#include "support/candidate_unavailable.hpp"
#include "support/isolate.hpp"
#include "support/run_process.hpp"
#include "support/worker_process.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#ifndef HALO_TVM_DIR
#define HALO_TVM_DIR ".venv/tvm"
#endif
#ifndef HALO_TVM_WORKER
#define HALO_TVM_WORKER "candidates/tvm/tvm_worker.py"
#endif
#ifndef HALO_TVM_PYTHON
#define HALO_TVM_PYTHON "python3"
#endif

namespace fs = std::filesystem;

namespace halo::tvm {

namespace {

constexpr const char* kInstallHint = "run scripts/setup.sh, which installs the pinned apache-tvm wheels into .venv/tvm/";

std::string env_or(const char* name, const char* built) {
  const char* v = std::getenv(name);
  return v && *v ? v : built;
}

std::string python_path() {
  std::string p = env_or("HALO_TVM_PYTHON", HALO_TVM_PYTHON);
  std::error_code ec;
  if (p.find('/') != std::string::npos && fs::exists(p, ec)) return p;
  return find_program("python3");
}

// "0.27.0.post1" -> "0.27".
std::string version_key(const std::string& v) {
  size_t a = v.find('.');
  size_t b = a == std::string::npos ? a : v.find('.', a + 1);
  return b == std::string::npos ? v : v.substr(0, b);
}

std::string first_lines(const std::string& s, size_t lines = 3) {
  size_t at = 0;
  for (size_t k = 0; k < lines && at != std::string::npos; ++k) {
    at = s.find('\n', at);
    if (at != std::string::npos) ++at;
  }
  return at == std::string::npos ? s : s.substr(0, at - 1);
}

// The words of TVM's message that do not change from one case to the next: the first line
// that says what went wrong, without numbers and names.
std::string message_key(const std::string& message) {
  std::string line;
  for (size_t at = 0; at < message.size();) {
    size_t end = message.find('\n', at);
    std::string l = message.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (l.find("Error") != std::string::npos || l.find("error") != std::string::npos || l.find("Check failed") != std::string::npos) {
      line = l;
      break;
    }
    if (line.empty() && !l.empty()) line = l;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  std::string out;
  for (char c : line) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (out.empty() || out.back() != '#') out += '#';
    } else {
      out += c;
    }
  }
  if (out.size() > 160) out.resize(160);
  return out;
}

// A worker with TVM imported, ready for requests.
std::unique_ptr<Worker> start_worker(const TvmVersion& v) {
  std::string python = python_path();
  if (python.empty()) throw CandidateUnavailable(Diagnostic{"", {}, "no python3 to run the TVM worker"});
  auto w = std::make_unique<Worker>(python, std::vector<std::string>{env_or("HALO_TVM_WORKER", HALO_TVM_WORKER)},
                                    "the TVM worker",
                                    std::vector<std::string>{"PYTHONPATH=" + v.dir, "PYTHONDONTWRITEBYTECODE=1",
                                                             "PYTHONNOUSERSITE=1"});
  IsolatedRun ready = w->call_within_deadline("", 120, 0);  // TVM's import
  if (ready.end != IsolatedRun::End::Exited)
    throw CandidateUnavailable(Diagnostic{
        "", {}, fmt::format("the TVM {} worker did not start: {}", v.version, first_lines(ready.output_tail, 8))});
  return w;
}

// One warm worker per version, for campaigns. A worker dies with the thread that started
// it (support/worker_process.cpp: where no PID namespace can be made it is the thread's
// PR_SET_PDEATHSIG), so a worker started by another thread, which may be gone or going,
// is replaced rather than trusted.
class WorkerPool {
 public:
  IsolatedRun call(const TvmVersion& v, const std::string& request, double timeout, uint64_t memory) {
    std::lock_guard<std::mutex> lock(mutex_);
    Slot& slot = workers_[v.key];
    if (slot.worker && (!slot.worker->alive() || slot.thread != std::this_thread::get_id())) slot.worker.reset();
    if (!slot.worker) {
      slot.worker = start_worker(v);
      slot.thread = std::this_thread::get_id();
    }
    // The worker kills a case's child at `timeout`; the call waits a little longer for its word.
    IsolatedRun r = slot.worker->call_within_deadline(request, timeout + 15, memory);
    if (r.end != IsolatedRun::End::Exited) slot.worker.reset();
    return r;
  }
  void stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    workers_.clear();
  }

 private:
  struct Slot {
    std::unique_ptr<Worker> worker;
    std::thread::id thread;
  };
  std::mutex mutex_;
  std::map<std::string, Slot> workers_;
};

// One case in a worker of its own, which ends after it (`halo oracle`: nothing to keep warm).
IsolatedRun call_fresh(const TvmVersion& v, const std::string& request, double timeout, uint64_t memory) {
  std::unique_ptr<Worker> w = start_worker(v);
  return w->call_within_deadline(request, timeout + 15, memory);
}

WorkerPool& pool() {
  static WorkerPool p;
  return p;
}

const TvmVersion& version_for(const TvmOptions& opt) {
  const auto& all = installed_tvm_versions();
  if (all.empty()) throw CandidateUnavailable(Diagnostic{"", {}, tvm_unavailable_reason()});
  if (opt.version.empty()) return all.back();
  for (const TvmVersion& v : all)
    if (v.key == opt.version || v.version == opt.version) return v;
  std::vector<std::string> keys;
  for (const TvmVersion& v : all) keys.push_back(v.key);
  throw InputError(Diagnostic{"", {}, fmt::format("TVM {} is not installed (installed: {})", opt.version,
                                                  fmt::join(keys, ", "))});
}

nlohmann::json encode(Type t, const Value& v) {
  if (v.is_float()) return v.float_bits();
  if (!v.is_small()) return uint64_t(v.to_big_ref());
  return v.small();
}

Value decode(Type t, const nlohmann::json& j) {
  if (t.is_float()) {
    uint64_t bits = j.get<uint64_t>();
    return Value::from_float_bits(t.bits(), uint64_t(bits));
  }
  if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX)) return Value::from_big(BigInt(j.get<uint64_t>()));
  return Value(j.get<int64_t>());
}

std::string request_text(const TvmCase& c, bool memcheck, double timeout) {
  nlohmann::json args = nlohmann::json::array();
  for (const TvmBuffer& a : c.args) {
    nlohmann::json values = nullptr;
    if (!a.is_output) {
      values = nlohmann::json::array();
      for (const Value& v : a.values) values.push_back(encode(a.type, v));
    }
    args.push_back({{"name", a.name}, {"dtype", tvm_dtype(a.type)}, {"shape", a.shape()}, {"values", values}});
  }
  nlohmann::json r = {{"script", c.script()}, {"args", args}, {"memcheck", memcheck}, {"guard_bytes", 4096},
                      {"timeout", timeout}};
  return r.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool reference_has_error(const OutputBuffer& ref) {
  return std::any_of(ref.values.begin(), ref.values.end(),
                     [](const Value& v) { return v.is_error() && v.kind() != Value::Kind::ErrUndef; });
}

void judge_outputs(TvmVerdict& v, const TvmCase& c, const OutputBuffer& ref, const nlohmann::json& rep, bool relaxed) {
  const TvmBuffer& out = c.args.back();
  const nlohmann::json& got = rep["outputs"][out.name];
  const nlohmann::json* second = rep.contains("outputs2") && rep["outputs2"].contains(out.name)
                                     ? &rep["outputs2"][out.name]
                                     : nullptr;
  uint64_t sentinel_points = 0;
  for (uint64_t k = 0; k < ref.values.size(); ++k) {
    std::vector<int64_t> p;
    for (const Value& c : window_point(ref.window, k)) p.push_back(c.small());
    size_t at = 0, stride = 1;
    for (size_t j = 0; j < p.size(); ++j) {
      at += size_t(p[j] - out.box[j].first) * stride;
      stride *= size_t(out.box[j].second);
    }
    const Value& want = ref.values[k];
    if (want.kind() == Value::Kind::ErrUndef) {
      ++v.undefined;
      continue;
    }
    ++v.compared;
    Value have = decode(out.type, got.at(at));
    if (second && (*second).at(at) != got.at(at)) ++sentinel_points;
    if (have == want) continue;
    if (relaxed && out.type.is_float() && relaxed_agree(out.type, want, have)) continue;
    if (v.mismatches++ < 8) v.first_mismatches.push_back({p, want, have});
  }
  if (sentinel_points > 0)
    v.memory_events.push_back(fmt::format("{} point(s) of R(z) changed with the guard zones' sentinel: they read "
                                          "outside a buffer or were never written",
                                          sentinel_points));
}

std::string point_text(const std::vector<int64_t>& p) { return fmt::format("({})", fmt::join(p, ", ")); }

}  // namespace

const std::vector<TvmVersion>& installed_tvm_versions() {
  static const std::vector<TvmVersion> all = [] {
    std::vector<TvmVersion> vs;
    std::error_code ec;
    fs::path root = env_or("HALO_TVM_DIR", HALO_TVM_DIR);
    if (!fs::is_directory(root, ec)) return vs;
    for (const auto& e : fs::directory_iterator(root, ec))
      if (fs::exists(e.path() / "tvm" / "__init__.py", ec))
        vs.push_back({version_key(e.path().filename().string()), e.path().filename().string(), e.path().string()});
    std::sort(vs.begin(), vs.end(), [](const TvmVersion& a, const TvmVersion& b) {
      auto parts = [](const std::string& s) {
        std::vector<int> n;
        for (size_t at = 0; at < s.size();) {
          size_t end = s.find('.', at);
          std::string p = s.substr(at, end == std::string::npos ? std::string::npos : end - at);
          n.push_back(std::isdigit(static_cast<unsigned char>(p[0])) ? std::atoi(p.c_str()) : 0);
          if (end == std::string::npos) break;
          at = end + 1;
        }
        return n;
      };
      return parts(a.version) < parts(b.version);
    });
    return vs;
  }();
  return all;
}

std::string tvm_unavailable_reason() {
  if (installed_tvm_versions().empty())
    return fmt::format("Apache TVM is not installed: no apache-tvm wheel under '{}'; {}",
                       env_or("HALO_TVM_DIR", HALO_TVM_DIR), kInstallHint);
  if (python_path().empty()) return "no python3 to run the TVM worker";
  return "";
}

void stop_tvm_workers() { pool().stop(); }

bool TvmVerdict::finding() const {
  return outcome == "wrong_output" || outcome == "memory_violation" || outcome == "crash" || outcome == "hang" ||
         outcome == "compile_error" || outcome == "run_error" || outcome == "internal_error" ||
         outcome == "translation_error";  // halo's own bug: shown and shrunk like a finding, fixed in halo
}
bool TvmVerdict::ran() const { return outcome == "pass" || outcome == "wrong_output" || outcome == "memory_violation"; }
bool TvmVerdict::declined() const { return outcome == "not_expressible" || outcome == "out_of_model"; }

TvmVerdict run_tvm_case(const Program& prog, const Input& in, const TvmOptions& opt) {
  TvmVerdict v;
  const TvmVersion& version = version_for(opt);
  v.version = version.version;
  auto finish = [&](TvmVerdict& r) -> TvmVerdict {
    std::string key = r.outcome + ":" + r.phase;
    if (r.outcome == "compile_error" || r.outcome == "run_error" || r.outcome == "crash" || r.outcome == "internal_error" ||
        r.outcome == "translation_error")
      key += ":" + message_key(r.message);
    r.signature = "tvm-" + key;
    if (r.detail.empty()) r.detail = r.message;
    return r;
  };
  OutputBuffer ref = evaluate_fast(prog.pipeline, in, opt.reference_limits);
  uint64_t undefined = uint64_t(std::count_if(ref.values.begin(), ref.values.end(),
                                              [](const Value& x) { return x.kind() == Value::Kind::ErrUndef; }));
  if (undefined > 0 && undefined == ref.values.size()) {
    v.outcome = "out_of_model";
    v.phase = "reference";
    v.detail = fmt::format("{} is undefined (err_undef) on every point of R(z), e.g. a signed 32-bit overflow",
                           prog.pipeline.name.text);
    return finish(v);
  }
  if (reference_has_error(ref)) {
    v.outcome = "reference_error";
    v.phase = "reference";
    v.detail = "P(z) has an error value in R(z) (a read outside an input buffer or a negative rdom extent): TVM has "
               "no startup check to compare, so it is not run";
    return finish(v);
  }
  auto translated = translate_to_tvm(prog, in);
  if (auto* err = std::get_if<TvmTranslationError>(&translated)) {
    v.outcome = err->not_expressible ? "not_expressible" : "out_of_model";
    v.phase = "translate";
    v.message = err->message;
    v.detail = (err->not_expressible ? "not expressible in TVM: " : "outside the model: ") + err->message;
    return finish(v);
  }
  const TvmCase& c = std::get<TvmCase>(translated);
  v.notes = c.notes;
  v.primitives = c.primitives;
  if (!prog.pipeline.typed) {
    Int32ModelResult model = check_int32_model(prog, in);
    if (!model.in_model && !model.unbounded_region) {
      v.outcome = "out_of_model";
      v.phase = "translate";
      v.detail = "outside the Int(32) model: " + model.why;
      return finish(v);
    }
  }
  if (undefined > 0)
    v.notes.push_back(fmt::format("{} of {} point(s) of R(z) are undefined in the reference and not compared",
                                  undefined, ref.values.size()));
  std::string request = request_text(c, opt.memcheck, opt.timeout_seconds);
  // bench/tvm_overhead.py replays exactly these requests into a worker of its own: TVM's
  // time alone on the same cases.
  if (const char* dump = std::getenv("HALO_TVM_DUMP"); dump && *dump) {
    static std::atomic<uint64_t> n{0};
    std::ofstream(fmt::format("{}/request-{:06}.json", dump, n++)) << request;
  }
  IsolatedRun run = opt.reuse_process ? pool().call(version, request, opt.timeout_seconds, opt.max_memory_bytes)
                                      : call_fresh(version, request, opt.timeout_seconds, opt.max_memory_bytes);
  if (run.end != IsolatedRun::End::Exited) {
    v.outcome = "crash";
    v.phase = "worker";
    v.message = fmt::format("the TVM worker itself ended ({}): {}",
                            run.end == IsolatedRun::End::TimedOut ? "timed out" : signal_description(run.signal),
                            first_lines(run.output_tail, 6));
    return finish(v);
  }
  nlohmann::json rep;
  size_t brace = run.report.find('{');
  try {
    rep = nlohmann::json::parse(brace == std::string::npos ? run.report : run.report.substr(brace));
  } catch (const std::exception& e) {
    v.outcome = "translation_error";
    v.phase = "worker";
    v.message = fmt::format("the TVM worker's report is not JSON ({}): {}", e.what(), first_lines(run.report, 4));
    return finish(v);
  }
  std::string outcome = rep.value("outcome", "");
  v.phase = rep.value("phase", "");
  v.message = rep.value("message", "");
  if (rep.contains("seconds")) v.seconds = rep["seconds"];
  if (outcome == "schedule_error") {
    // The worker's message starts with the exception's type: TVM's refusal (ScheduleError,
    // or a ValueError/TypeError of its Python layer) is counted; halo's own words for a loop
    // TVM made otherwise (HaloNotExpressible, a missing loop) make the case not expressible;
    // TVM's internal errors inside a primitive are its bug; anything else is halo's.
    auto starts = [&](const char* w) { return v.message.rfind(w, 0) == 0; };
    if (starts("HaloNotExpressible") || starts("KeyError")) {
      v.outcome = "not_expressible";
      v.detail = "not expressible in TVM: a loop or buffer the schedule names is one TVM made otherwise: " +
                 first_lines(v.message);
    } else if (starts("ScheduleError") || starts("ValueError") || starts("TypeError") || starts("AssertionError")) {
      v.outcome = "refused";
      v.detail = "TVM refuses the schedule: " + message_key(v.message);
    } else if (starts("InternalError") || starts("TVMError") || starts("RuntimeError") || starts("IndexError")) {
      v.outcome = "internal_error";
      v.detail = "a TVM schedule primitive failed with an internal error instead of a ScheduleError: " +
                 first_lines(v.message, 4);
    } else {
      v.outcome = "translation_error";
      v.detail = "halo's schedule script failed (a bug of halo's translation): " + first_lines(v.message, 4);
    }
    return finish(v);
  }
  if (outcome == "bad_request") {
    v.outcome = "translation_error";
    v.detail = "halo's TVM script does not run (a bug of halo's translation): " + first_lines(v.message, 6);
    return finish(v);
  }
  if (outcome == "timeout") {
    v.outcome = "hang";
    v.detail = fmt::format("TVM did not finish within {} s (during {})", opt.timeout_seconds, v.phase);
    return finish(v);
  }
  if (outcome == "out_of_memory") {
    v.outcome = "out_of_model";
    v.detail = "TVM ran out of the memory limit (during " + v.phase + ")";
    return finish(v);
  }
  if (outcome == "crash") {
    v.outcome = "crash";
    int sig = rep.value("signal", 0);
    v.message = sig ? signal_description(sig) : v.message;
    v.detail = fmt::format("TVM's process died during {}: {}", v.phase, v.message);
    return finish(v);
  }
  if (outcome == "compile_error" || outcome == "run_error") {
    v.outcome = outcome;
    v.detail = fmt::format("TVM accepted the schedule and then failed to {} it: {}",
                           outcome == "compile_error" ? "build" : "run", first_lines(v.message, 4));
    return finish(v);
  }
  if (outcome != "pass") {
    v.outcome = "translation_error";
    v.detail = "the TVM worker answered '" + outcome + "': " + v.message;
    return finish(v);
  }
  v.phase = "run";
  judge_outputs(v, c, ref, rep, opt.relaxed_floats);
  if (opt.relaxed_floats && c.args.back().type.is_float())
    v.notes.push_back("float outputs judged in the relaxed mode (--float-mode relaxed), not bit for bit");
  for (const auto& g : rep.value("guard", nlohmann::json::array()))
    v.memory_events.push_back(fmt::format("{} element {} {} the buffer written (run {})", g.value("buffer", "?"),
                                          g.value("offset", 0), g.value("side", "") == "before" ? "before" : "after",
                                          g.value("run", 1)));
  for (const auto& b : rep.value("input_changed", nlohmann::json::array()))
    v.memory_events.push_back(fmt::format("input {} was written", b.get<std::string>()));
  if (v.mismatches > 0) {
    v.outcome = "wrong_output";
    v.detail = fmt::format("{} of {} compared point(s) of R(z) differ from halo's reference", v.mismatches, v.compared);
  } else if (!v.memory_events.empty()) {
    v.outcome = "memory_violation";
    v.detail = "TVM accessed memory outside the buffers it was given: " + v.memory_events.front();
  } else {
    v.outcome = "pass";
    v.detail = opt.memcheck ? fmt::format("all {} compared point(s) of R(z) agree with halo's reference; no access "
                                          "outside the guarded buffers",
                                          v.compared)
                            : fmt::format("all {} compared point(s) of R(z) agree with halo's reference (no memory "
                                          "check: --no-memcheck)",
                                          v.compared);
  }
  return finish(v);
}

nlohmann::json tvm_verdict_to_json(const TvmVerdict& v) {
  nlohmann::json mism = nlohmann::json::array();
  for (const auto& m : v.first_mismatches)
    mism.push_back({{"point", m.point}, {"expected", m.expected.to_string()}, {"got", m.got.to_string()}});
  return {{"target", "tvm"},          {"tvm_version", v.version}, {"outcome", v.outcome},
          {"phase", v.phase},         {"finding", v.finding()},   {"signature", v.signature},
          {"detail", v.detail},       {"message", v.message},     {"notes", v.notes},
          {"primitives", v.primitives}, {"compared", v.compared}, {"mismatches", v.mismatches},
          {"undefined", v.undefined}, {"first_mismatches", mism}, {"memory_events", v.memory_events},
          {"seconds", v.seconds}};
}

std::string describe_tvm_verdict(const TvmVerdict& v) {
  std::string s = fmt::format("TVM {}: {}{}\n  {}\n", v.version, v.outcome, v.phase.empty() ? "" : " (" + v.phase + ")",
                              v.detail);
  for (const auto& m : v.first_mismatches)
    s += fmt::format("  at {}: expected {}, TVM computed {}\n", point_text(m.point), m.expected.display(),
                     m.got.display());
  for (size_t k = 0; k < v.memory_events.size() && k < 5; ++k) s += "  memory: " + v.memory_events[k] + "\n";
  for (const std::string& n : v.notes) s += "  note: " + n + "\n";
  return s;
}

}  // namespace halo::tvm

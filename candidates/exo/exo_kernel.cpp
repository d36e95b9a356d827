// The Exo candidate (exo_kernel.hpp): running Exo through its Python helper, and
// binding a compiled procedure's signature to a .halo spec as a kernel manifest.
#include "candidates/exo/exo_kernel.hpp"

#include "support/command_budget.hpp"
#include "support/output_file.hpp"
#include "support/run_process.hpp"
#include "semantics/lexer.hpp"
#include "semantics/parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#ifndef HALO_EXO_PYTHON
#define HALO_EXO_PYTHON ""
#endif
#ifndef HALO_EXO_HELPER
#define HALO_EXO_HELPER ""
#endif

namespace halo {

namespace fs = std::filesystem;

namespace {

const char* const kInstallHint = "run scripts/setup.sh (it installs exo-lang==1.0.0 into the project's .venv/)";
// What candidates/exo/exo_compile.py says, with exit status 3, when it cannot import exo.
const char* const kNotImportable = "exo-lang is not importable by";
constexpr uint64_t kExoFileBytes = uint64_t{256} << 20;

// A user's path made absolute for a manifest read elsewhere; as given when the working
// directory is gone (std::filesystem::absolute would throw).
std::string absolute_path(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  return ec ? path : p.string();
}

[[noreturn]] void bad(const std::string& origin, const std::string& message) {
  throw InputError(Diagnostic{origin, {}, message});
}

// A value from the command line: a boolean, an integer, a number, or the name of a spec parameter.
nlohmann::json cli_value(const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  char* end = nullptr;
  errno = 0;
  long long i = std::strtoll(v.c_str(), &end, 10);
  if (!v.empty() && end && *end == '\0' && errno == 0) return int64_t(i);
  double d = std::strtod(v.c_str(), &end);
  if (!v.empty() && end && *end == '\0') return d;
  return v;
}

// The helper's signature.json, checked for what halo reads from it: a script that exits
// 0 without it, or replaces it, is the script's failure (Rejected), never an exception.
void read_signature(const std::string& outdir, ExoCompileResult& res) {
  std::string path = (fs::path(outdir) / "signature.json").string();
  auto malformed = [&](const std::string& why) {
    res.status = ExoCompileResult::Status::Rejected;
    res.message = fmt::format("Exo's run of the script ended with status 0 but left no usable signature ({}): {}",
                              path, why);
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return malformed("the file is missing (did the script end the process itself?)");
  nlohmann::json sig = nlohmann::json::parse(in, nullptr, false);
  if (sig.is_discarded()) return malformed("not JSON");
  auto is_string = [&](const nlohmann::json& j, const char* key) { return j.contains(key) && j[key].is_string(); };
  if (!sig.is_object() || !is_string(sig, "function") || !is_string(sig, "source") || !is_string(sig, "platform") ||
      !sig.contains("args") || !sig["args"].is_array())
    return malformed("it needs the strings \"function\", \"source\", \"platform\" and the array \"args\"");
  for (const auto& a : sig["args"]) {
    if (!a.is_object() || !is_string(a, "name") || !is_string(a, "kind") || !a.contains("read") ||
        !a["read"].is_boolean() || !a.contains("written") || !a["written"].is_boolean() ||
        (a.contains("mem") && !a["mem"].is_string()) || (a.contains("ctype") && !a["ctype"].is_string()) ||
        (a.contains("shape") && !a["shape"].is_array()))
      return malformed("an argument needs \"name\", \"kind\", \"read\" and \"written\": " + a.dump());
    std::string kind = a["kind"];
    if ((kind == "bool" || kind == "scalar" || kind == "tensor") && !is_string(a, "ctype"))
      return malformed("the " + kind + " argument needs its \"ctype\": " + a.dump());
    if (kind == "tensor" && !(a.contains("shape") && a["shape"].is_array()))
      return malformed("the tensor argument needs its \"shape\": " + a.dump());
  }
  std::string source = (fs::path(outdir) / sig["source"].get<std::string>()).string();
  std::error_code ec;
  if (!fs::is_regular_file(source, ec)) return malformed("its source " + source + " is not a file");
  res.status = ExoCompileResult::Status::Compiled;
  res.signature = std::move(sig);
  res.source = source;
}

}  // namespace

ExoPaths exo_paths() {
  auto pick = [](const char* env, const char* built) {
    const char* v = std::getenv(env);
    return std::string(v && *v ? v : built);
  };
  return ExoPaths{pick("HALO_EXO_PYTHON", HALO_EXO_PYTHON), pick("HALO_EXO_HELPER", HALO_EXO_HELPER)};
}

std::string exo_unavailable_reason() {
  ExoPaths p = exo_paths();
  std::error_code ec;  // the paths may come from the environment: never an exception
  if (p.python.empty() || !fs::exists(p.python, ec))
    return fmt::format("exo-lang is not installed: no Python interpreter at '{}'; {}", p.python, kInstallHint);
  if (p.helper.empty() || !fs::exists(p.helper, ec))
    return fmt::format("the Exo helper '{}' is missing (set $HALO_EXO_HELPER)", p.helper);
  ProcessLimits lim;
  lim.wall_seconds = 60;
  ProcessResult r = run_process({p.python, "-c", "import exo.API, exo.platforms.gemmini, exo.platforms.x86"}, {}, ".",
                                lim, 1 << 14);
  if (r.started && r.exited && r.exit_code == 0) return "";
  return fmt::format("exo-lang is not importable by {}: {}; {}", p.python, r.started ? r.output : r.error, kInstallHint);
}

ExoCompileResult compile_exo_proc(const std::string& script, const std::string& proc, const std::string& outdir,
                                  double timeout_seconds, const std::string& timeout_flag) {
  ExoCompileResult res;
  ExoPaths p = exo_paths();
  std::error_code ec;
  if (p.python.empty() || !fs::exists(p.python, ec)) {
    res.status = ExoCompileResult::Status::Unavailable;
    res.message = fmt::format("exo-lang is not installed: no Python interpreter at '{}'; {}", p.python, kInstallHint);
    return res;
  }
  ProcessLimits lim;
  const double left = command_seconds_left();
  lim.wall_seconds = std::min(timeout_seconds, left);
  // Exo writes a few small files; a script that prints or writes without end stops here.
  lim.file_bytes = kExoFileBytes;
  ProcessResult r = run_process({p.python, p.helper, script, proc, outdir}, {"PYTHONDONTWRITEBYTECODE=1"}, ".", lim);
  auto said = [&] { return r.output.empty() ? std::string() : ":\n" + r.output; };
  if (!r.started) {
    res.status = ExoCompileResult::Status::Unavailable;
    res.message = fmt::format("cannot run {}: {}", p.python, r.error);
  } else if (r.timed_out || r.signal == SIGXCPU) {
    res.status = ExoCompileResult::Status::Limit;
    res.message = lim.wall_seconds >= left ? time_limit_message()
                                           : fmt::format("time limit reached: Exo did not finish within {} s; raise "
                                                         "it with {}",
                                                         timeout_seconds, timeout_flag);
  } else if (r.exited && r.exit_code == 0) {
    res.status = ExoCompileResult::Status::Compiled;
    res.log = r.output;
    read_signature(outdir, res);
  } else if (r.exited && r.exit_code == 3 && r.output.find(kNotImportable) != std::string::npos) {
    // Only the helper's own import of exo says this; a script's sys.exit(3) is its failure.
    res.status = ExoCompileResult::Status::Unavailable;
    res.message = r.output + kInstallHint;
  } else if (r.exited && r.exit_code == 2) {
    res.message = r.output;  // the helper's message: the script, the procedure or Exo refused it
  } else if (r.exited) {
    res.message = fmt::format("Exo's run of the script ended with status {}{}", r.exit_code, said());
  } else if (r.signal == SIGXFSZ) {
    res.message = fmt::format("Exo's run of the script wrote more than {} MiB (its output or files) and was stopped{}",
                              kExoFileBytes >> 20, said());
  } else {
    res.message = fmt::format("Exo's run of the script was {}{}", describe_signal(r.signal), said());
  }
  return res;
}

std::pair<std::string, std::string> split_binding(const std::string& option, const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    bad("<command line>", fmt::format("{} expects NAME=VALUE, got '{}'", option, text));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

nlohmann::json exo_kernel_manifest(const nlohmann::json& signature, const std::string& source,
                                   const ExoBinding& binding, const std::string& origin) {
  Program spec = parse_program(read_source_file(binding.spec), binding.spec);  // size-capped, never a FIFO
  std::set<std::string> spec_params;
  for (const auto& n : spec.pipeline.params) spec_params.insert(n.text);

  std::map<std::string, nlohmann::json> argval;
  std::map<std::string, std::string> funcs, inits;
  std::set<std::string> names;
  for (const auto& a : signature.at("args")) names.insert(a.at("name").get<std::string>());
  auto collect = [&](const char* option, const auto& list, auto& into, auto convert) {
    for (const auto& [k, v] : list) {
      if (!names.count(k))
        bad(origin, fmt::format("{} {}={}: the procedure '{}' has no argument '{}'", option, k, v,
                                signature.at("function").get<std::string>(), k));
      into[k] = convert(v);
    }
  };
  collect("--arg", binding.args, argval, cli_value);
  collect("--func", binding.funcs, funcs, [](const std::string& v) { return v; });
  collect("--init", binding.inits, inits, [](const std::string& v) { return v; });

  // A size's value: --arg, else the spec parameter of the same name.
  auto size_value = [&](const std::string& name) -> nlohmann::json {
    if (auto it = argval.find(name); it != argval.end()) return it->second;
    if (spec_params.count(name)) return name;
    bad(origin, fmt::format("the size argument '{}' has no value: give --arg {}=VALUE (a number or a spec "
                            "parameter), or name a spec parameter '{}'",
                            name, name, name));
  };

  nlohmann::json args = nlohmann::json::array();
  args.push_back({{"kind", "context"}, {"bytes", 4096}});
  for (const auto& a : signature.at("args")) {
    std::string name = a.at("name"), kind = a.at("kind");
    bool read = a.at("read"), written = a.at("written");
    std::string mem = a.value("mem", "DRAM");
    if (kind == "size" || kind == "index" || kind == "stride") {
      args.push_back({{"kind", "scalar"}, {"type", "int_fast32_t"}, {"value", size_value(name)}, {"name", name}});
    } else if (kind == "bool" || kind == "scalar") {
      auto it = argval.find(name);
      if (it == argval.end())
        bad(origin, fmt::format("the {} argument '{}' has no value: give --arg {}=VALUE", kind, name, name));
      if (written)
        bad(origin, fmt::format("the scalar argument '{}' is written by the procedure; halo compares tensors "
                                "only (make it a tensor of one element)",
                                name));
      nlohmann::json s = {{"kind", "scalar"}, {"type", a.at("ctype")}, {"value", it->second}, {"name", name}};
      if (kind == "scalar") s["by_pointer"] = true;  // Exo passes data scalars as const T*
      args.push_back(s);
    } else if (kind == "tensor") {
      if (mem != "DRAM")
        bad(origin, fmt::format("the tensor argument '{}' lives in {}; halo allocates arguments in main memory (DRAM) only",
                                name, mem));
      nlohmann::json shape = nlohmann::json::array();
      for (const auto& e : a.at("shape")) {
        if (e.is_number_integer()) shape.push_back(e);
        else if (e.is_string()) shape.push_back(size_value(e.get<std::string>()));
        else
          bad(origin, fmt::format("the extent '{}' of tensor '{}' is an expression; halo needs each extent to be a "
                                  "number or a size argument",
                                  e.is_object() && e.contains("expr") && e["expr"].is_string()
                                      ? e["expr"].get<std::string>()
                                      : e.dump(),
                                  name));
      }
      std::string func = funcs.count(name) ? funcs[name] : name;
      if (!spec.pipeline.find(func))
        bad(origin, fmt::format("the tensor argument '{}' corresponds to no func of {}: there is no func '{}' (map it "
                                "with --func {}=F)",
                                name, binding.spec, func, name));
      nlohmann::json b = {{"type", a.at("ctype")}, {"shape", shape}, {"func", func}, {"name", name}};
      if (written && (read || inits.count(name))) {
        b["kind"] = "inout";
        if (inits.count(name)) b["init"] = inits[name];
      } else if (written) {
        b["kind"] = "output";
      } else {
        if (inits.count(name))
          bad(origin, fmt::format("--init {}: the procedure never writes '{}'", name, name));
        b["kind"] = "input";
      }
      args.push_back(b);
    } else {
      bad(origin, fmt::format("the argument '{}' is a {}; halo binds sizes, scalars and whole tensors (not windows)",
                              name, kind));
    }
  }

  nlohmann::json params = nlohmann::json::object();
  for (const auto& [k, v] : binding.params) {
    nlohmann::json j = cli_value(v);
    if (!j.is_number_integer()) bad("<command line>", fmt::format("--param {}={}: the value must be an integer", k, v));
    params[k] = j;
  }
  return {{"comment", fmt::format("generated by halo exo from {}", origin)},
          {"platform", signature.at("platform")},
          {"sources", {absolute_path(source)}},
          {"function", signature.at("function")},
          {"spec", absolute_path(binding.spec)},
          {"params", params},
          {"args", args}};
}

ExoKernelReport check_exo_kernel(const std::string& script, const std::string& proc, const ExoBinding& binding,
                                 const KernelOptions& options, double exo_timeout_seconds,
                                 const std::string& exo_timeout_flag) {
  std::error_code ec;  // error_code overloads: a name too long is unreadable, not an exception
  if (!fs::exists(script, ec)) bad(script, "cannot read file");
  if (!fs::exists(binding.spec, ec)) bad(binding.spec, "cannot read file");
  WorkDir dir("halo-exo");
  dir.keep = options.keep;
  ExoCompileResult c =
      compile_exo_proc(absolute_path(script), proc, dir.path, exo_timeout_seconds, exo_timeout_flag);
  if (c.status == ExoCompileResult::Status::Unavailable) bad(script, c.message);
  if (c.status == ExoCompileResult::Status::Limit) throw ResourceLimit(c.message);
  if (c.status == ExoCompileResult::Status::Rejected) bad(script, "Exo did not produce C for '" + proc + "':\n" + c.message);
  nlohmann::json manifest;
  try {
    manifest = exo_kernel_manifest(c.signature, c.source, binding, script + ":" + proc);
  } catch (const nlohmann::json::exception& e) {
    // read_signature checked what is read; a value of an unexpected type is still the script's doing.
    bad(script, fmt::format("Exo did not produce C for '{}': the signature Exo's run left is malformed: {}", proc,
                            e.what()));
  }
  std::string manifest_path = dir.file("manifest.json");
  write_file_atomically(manifest_path, manifest.dump(1) + "\n");
  ExoKernelReport r;
  try {
    r.kernel = check_kernel(manifest_path, options);
  } catch (const KernelCompileError& e) {
    // The C is Exo's output, not the user's: C the system compiler rejects is a finding
    // about the candidate (exit 1), where `halo kernel` calls its own input bad (exit 2).
    r.kernel.manifest = manifest_path;
    r.kernel.function = manifest.at("function").get<std::string>();
    r.kernel.platform = manifest.at("platform").get<std::string>();
    r.kernel.spec = binding.spec;
    r.kernel.findings.push_back({"compile-error", e.what(), false});
  }
  r.exo_version = c.signature.contains("exo_version") && c.signature["exo_version"].is_string()
                      ? c.signature["exo_version"].get<std::string>()
                      : "unknown";
  r.script = script;
  r.proc = proc;
  r.log = c.log;
  for (const auto& a : c.signature.at("args")) {
    // Only a tensor's role decides how it is checked; a size the schedule stops reading is no news.
    if (a.at("kind") != "tensor") continue;
    if (!a.contains("scheduled_read") || !a.contains("scheduled_written") || !a["scheduled_read"].is_boolean() ||
        !a["scheduled_written"].is_boolean())
      continue;  // not said (read_signature checked "read" and "written")
    auto role = [](bool read, bool written) {
      return std::string(read && written ? "read and written" : written ? "written" : read ? "read" : "not used");
    };
    std::string spec = role(a.at("read").get<bool>(), a.at("written").get<bool>());
    std::string sched = role(a.at("scheduled_read").get<bool>(), a.at("scheduled_written").get<bool>());
    if (spec != sched)
      r.role_differences.push_back(fmt::format("{}: {} by the specification, {} by the scheduled procedure",
                                               a.at("name").get<std::string>(), spec, sched));
  }
  if (options.keep) r.kernel.workdir += " (generated C and manifest: " + dir.path + ")";
  return r;
}

nlohmann::json exo_report_to_json(const ExoKernelReport& r) {
  nlohmann::json j = kernel_report_to_json(r.kernel);
  j["exo"] = {{"version", r.exo_version}, {"script", r.script}, {"proc", r.proc}, {"role_differences", r.role_differences}};
  return j;
}

}  // namespace halo

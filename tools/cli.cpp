// The `halo` command line: argument parsing (CLI11), dispatch to the semantics, and the
// mapping of every failure to a message and an exit status. Nothing a user types may
// crash the tool: input errors are located, limits are named, the rest is reported.
#include "tools/cli.hpp"

#include "interp/derivation.hpp"
#include "interp/fast_eval.hpp"
#include "interp/output.hpp"
#include "semantics/parser.hpp"
#include "semantics/validity.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <sstream>

namespace halo {

namespace {

constexpr int kExitOk = 0, kExitInput = 2, kExitLimit = 3, kExitInternal = 4;

struct CommonOptions {
  std::string file;
  std::vector<std::string> params, windows;
  bool json = false;
  uint64_t max_steps = Limits{}.max_steps;
  uint64_t max_memory_mib = Limits{}.max_memory_bytes >> 20;
  double timeout = 0;

  Limits limits() const {
    Limits l;
    l.max_steps = max_steps;
    l.max_memory_bytes = max_memory_mib << 20;
    l.max_seconds = timeout;
    return l;
  }
};

void add_common(CLI::App* cmd, CommonOptions& o, bool with_input) {
  cmd->add_option("FILE", o.file, "a .halo program")->required();
  if (!with_input) return;
  cmd->add_option("--param", o.params, "set a pipeline parameter, NAME=VALUE (repeatable)");
  cmd->add_option("--window", o.windows, "output interval MIN,LEN, one per output dimension (repeatable)");
  cmd->add_flag("--json", o.json, "machine-readable output on stdout");
  cmd->add_option("--max-steps", o.max_steps, "stop after this many evaluation steps")->capture_default_str();
  cmd->add_option("--max-memory", o.max_memory_mib, "memory limit for memo tables and buffers, in MiB")
      ->capture_default_str();
  cmd->add_option("--timeout", o.timeout, "stop after this many seconds (0: no limit)")->capture_default_str();
}

Program load(const CommonOptions& o) {
  Program p = parse_file(o.file);
  check_program(p);
  return p;
}

std::vector<Value> parse_point(const std::string& text, const Program& prog) {
  std::vector<Value> pt;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto v = Value::parse(item);
    if (!v) throw InputError(Diagnostic{prog.file, {}, fmt::format("--derivation expects a point X,Y,... of "
                                                                   "integers, got '{}'", text)});
    pt.push_back(*v);
  }
  size_t dims = prog.pipeline.output().vars.size();
  if (pt.size() != dims)
    throw InputError(Diagnostic{prog.file, {}, fmt::format("--derivation: the output func '{}' has {} "
                                                           "dimension(s), the point has {}",
                                                           prog.pipeline.name.text, dims, pt.size())});
  return pt;
}

int cmd_eval(const CommonOptions& o, const std::string& derivation_point, size_t derivation_lines,
             const std::string& evaluator, std::ostream& out) {
  Program prog = load(o);
  Input in = resolve_input(prog, InputOverrides{o.params, o.windows});
  if (!derivation_point.empty()) {
    std::vector<Value> pt = parse_point(derivation_point, prog);
    DerivationEvaluator ev(prog.pipeline, in, o.limits(), true);
    auto d = ev.derive_point(pt);
    out << (o.json ? derivation_to_json(*d) + "\n" : print_derivation(*d, derivation_lines));
    return kExitOk;
  }
  OutputBuffer buf = evaluator == "derivation" ? evaluate_by_derivation(prog.pipeline, in, o.limits())
                                               : evaluate_fast(prog.pipeline, in, o.limits());
  if (o.json) {
    out << buffer_to_json(buf).dump() << "\n";
  } else {
    std::vector<std::string> names;
    for (const auto& v : prog.pipeline.output().vars) names.push_back(v.text);
    out << render_buffer(buf, names);
  }
  return kExitOk;
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"halo: an executable formal semantics and test oracle for Halide-style languages"};
  app.set_version_flag("--version", std::string("halo ") + "0.1.0");
  app.require_subcommand(1);

  CommonOptions check_opts, eval_opts;
  auto* check = app.add_subcommand("check", "parse and validate the algorithm and schedule");
  add_common(check, check_opts, false);
  auto* eval = app.add_subcommand("eval", "the big-step reference semantics (fig. 2.6): the output on R(z)");
  add_common(eval, eval_opts, true);
  std::string derivation_point, evaluator = "fast";
  size_t derivation_lines = 5000;
  eval->add_option("--derivation", derivation_point,
                   "print the derivation tree of the output at point X,Y,... (fig. 2.6 rules)");
  eval->add_option("--derivation-lines", derivation_lines, "print at most this many lines of a derivation")
      ->capture_default_str();
  eval->add_option("--evaluator", evaluator, "fast (default) or derivation (literal rules, slow)")
      ->check(CLI::IsMember({"fast", "derivation"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e, out, err);
    return code == 0 ? kExitOk : kExitInput;
  }

  try {
    if (*check) {
      load(check_opts);
      return kExitOk;
    }
    if (*eval) return cmd_eval(eval_opts, derivation_point, derivation_lines, evaluator, out);
  } catch (const InputError& e) {
    for (const auto& d : e.diagnostics()) err << d.format() << "\n";
    return kExitInput;
  } catch (const ResourceLimit& e) {
    err << "halo: stopped: " << e.what() << "\n";
    return kExitLimit;
  } catch (const std::bad_alloc&) {
    err << "halo: stopped: out of memory; lower the window or --max-memory\n";
    return kExitLimit;
  } catch (const std::exception& e) {
    err << "halo: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
  return kExitOk;
}

}  // namespace halo

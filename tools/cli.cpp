// The `halo` command line: argument parsing (CLI11), dispatch to the semantics, and the
// mapping of every failure to a message and an exit status. Nothing a user types may
// crash the tool: input errors are located, limits are named, the rest is reported.
#include "tools/cli.hpp"
#include "tools/commands.hpp"
#include "tools/cmd_halide.hpp"

#include "bounds/beta0.hpp"
#include "candidates/engines/engine.hpp"
#include "candidates/halide/import.hpp"
#include "candidates/registry.hpp"
#include "bounds/extract.hpp"
#include "bounds/query_check.hpp"
#include "support/big_stack.hpp"
#include "interp/derivation.hpp"
#include "interp/fast_eval.hpp"
#include "interp/output.hpp"
#include "interp/small_step.hpp"
#include "lower/brute_force_filling.hpp"
#include "lower/lower.hpp"
#include "oracle/quality.hpp"
#include "oracle/theorems.hpp"
#include "schedule/schedule.hpp"
#include "support/child_processes.hpp"
#include "support/command_budget.hpp"
#include "support/json_text.hpp"
#include "support/standard_output.hpp"
#include "semantics/lexer.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_json.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/tgt_printer.hpp"
#include "semantics/validity.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>

#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <unistd.h>

namespace halo {

namespace {

using namespace halo::cli;

struct CommonOptions {
  std::string file;
  std::vector<std::string> params, windows, inputs;
  InputOverrides overrides() const { return InputOverrides{params, windows, inputs}; }
  std::string png;     // eval: also write the output as a picture
  std::string npy;     // eval: also write the output as a NumPy array
  std::string expect;  // eval: compare the output with an array or image another program computed
  bool json = false;
  uint64_t max_steps = Limits{}.max_steps;
  uint64_t max_memory_mib = Limits{}.max_memory_bytes >> 20;
  double timeout = 60;  // a runaway stops within a minute unless the user asks for more (0: none)
  std::string engine;                // an external bounds engine instead of β0
  bool literal = false;              // `halo bounds --literal`: β0 as fig. 2.10b prints it
  double engine_timeout = 60;
  std::ostream* warnings = nullptr;  // where notes go (stderr)

  Limits limits() const {
    Limits l;
    l.max_steps = max_steps;
    l.max_memory_bytes = max_memory_mib << 20;
    l.max_seconds = timeout;
    return l;
  }
  // The whole command, every phase (support/command_budget.hpp).
  CommandLimits command_limits() const { return CommandLimits{timeout, max_memory_mib << 20, true}; }
};

// --max-memory and --timeout: every command that builds or evaluates anything large
// polls them (support/command_budget.hpp), bounds inference included.
void add_command_limits(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("--max-memory", o.max_memory_mib,
                  "memory limit for memo tables, buffers, big integers and the expressions of bounds inference, in MiB")
      ->check(mebibytes_value())->capture_default_str();
  cmd->add_option("--timeout", o.timeout, "stop after this many seconds (0: no limit)")
      ->check(seconds_value())
      ->capture_default_str();
}

// with_input: the command runs the program, so it also takes input buffers, --json of a
// result and the evaluation limits; --param and --window (LANGUAGE.md's common options) every
// command takes.
void add_common(CLI::App* cmd, CommonOptions& o, bool with_input) {
  cmd->add_option("FILE", o.file, "a .halo program")->required();
  cmd->add_option("--param", o.params, "set a pipeline parameter, NAME=VALUE (repeatable)");
  cmd->add_option("--window", o.windows, "output interval MIN,LEN, one per output dimension (repeatable)");
  if (!with_input) return;
  cmd->add_option("--input", o.inputs,
                  "the buffer of an input, NAME=FILE (an image or a .npy file) or NAME=seeded:SEED:MIN,LEN[:MIN,LEN...] "
                  "(repeatable; docs/inputs.md)");
  cmd->add_flag("--json", o.json, "machine-readable output on stdout");
  cmd->add_flag_callback("--hex-floats", [] { set_float_display_hex(true); },
                         "show each float value in exact hexadecimal beside its shortest decimal (docs/floats.md)");
  cmd->add_option("--max-steps", o.max_steps, "stop after this many evaluation steps")
      ->check(unsigned_integer())
      ->capture_default_str();
  add_command_limits(cmd, o);
}

// --param and --window of lower, schedule and bounds, which print a program rather than run
// it: checked as every command checks them, and written into the realize section the
// printed program carries (the input buffers are not loaded: nothing reads them here).
std::optional<Realization> overridden_realize(const std::string& file, const std::string& output,
                                              const std::vector<std::string>& params, size_t dims,
                                              const std::optional<Realization>& realize, const CommonOptions& o) {
  if (o.params.empty() && o.windows.empty()) return realize;
  std::optional<Realization> without_buffers = realize;
  if (without_buffers) without_buffers->inputs.clear();
  Input in = resolve_input(file, output, params, dims, without_buffers, InputOverrides{o.params, o.windows, {}});
  Realization r = realize.value_or(Realization{});
  r.params.clear();
  for (size_t i = 0; i < params.size() && i < in.params.size(); ++i)
    r.params.push_back(ParamBinding{Name{params[i], {}}, in.params[i]});
  r.window = in.window;
  return r;
}

void override_realize(Program& p, const CommonOptions& o) {
  std::vector<std::string> names;
  for (const auto& n : p.pipeline.params) names.push_back(n.text);
  size_t dims = p.pipeline.funcs.empty() ? 0 : p.pipeline.output().vars.size();
  p.realize = overridden_realize(p.file, p.pipeline.name.text, names, dims, p.realize, o);
}

Program load(const CommonOptions& o) {
  Program p = cli::parse_program_file(o.file, o.overrides());
  check_program(p);
  return p;
}

// `halo eval` and `halo lower` never use the schedule: an invalid one is reported as a
// warning there and dropped, not refused (LANGUAGE.md's commands stay usable while a
// schedule is being written).
Program load_algorithm(const CommonOptions& o, std::ostream& err) {
  std::vector<Diagnostic> schedule_errors;
  Program p = halide::is_hlpipe_path(o.file) ? cli::parse_program_file(o.file, o.overrides())
                                             : parse_file_ignoring_schedule_errors(o.file, schedule_errors);
  std::vector<Diagnostic> ds = validate_program(p);
  if (!ds.empty()) {
    // Which of them the schedule causes: the algorithm alone must still be valid.
    if (!p.schedule) throw InputError(ds);
    Program bare = p;
    bare.schedule.reset();
    check_program(bare);
    schedule_errors.insert(schedule_errors.end(), ds.begin(), ds.end());
    p.schedule.reset();
  }
  for (const auto& d : schedule_errors)
    err << fmt::format("{}:{}:{}: warning: {} (the schedule is not used here)\n", d.file, d.loc.line, d.loc.col,
                       d.message);
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
             const std::string& evaluator, std::ostream& out, std::ostream& err) {
  Program prog = load_algorithm(o, err);
  Input in = resolve_input(prog, o.overrides());
  if (!derivation_point.empty()) {
    std::vector<Value> pt = parse_point(derivation_point, prog);
    DerivationEvaluator ev(prog.pipeline, in, o.limits(), true);
    auto d = ev.derive_point(pt);
    out << (o.json ? derivation_to_json(*d) + "\n" : print_derivation(*d, derivation_lines));
    return kExitOk;
  }
  const FuncDef& output = prog.pipeline.output();
  std::vector<std::string> dim_names;
  for (const auto& v : output.vars) dim_names.push_back(v.text);
  std::optional<InputBuffer> expected;  // read first: a bad file is reported before the work
  if (!o.expect.empty()) {
    TgtInput shape{output.name.text + " (--expect)", dim_names, output.type};
    expected = load_input_buffer(shape, parse_input_flag("expected=" + o.expect, "--expect"), "--expect", "", o.limits());
  }
  OutputBuffer buf = evaluator == "derivation" ? evaluate_by_derivation(prog.pipeline, in, o.limits())
                                               : evaluate_fast(prog.pipeline, in, o.limits());
  if (o.json) {
    out << buffer_to_json(buf).dump(-1, ' ', false, kReplaceInvalidUtf8) << "\n";
  } else {
    out << render_buffer(buf, dim_names);
  }
  if (!o.png.empty()) {
    std::string note = write_buffer_png(buf, o.png);
    err << fmt::format("halo: wrote {}{}\n", o.png, note.empty() ? "" : " (" + note + ")");
  }
  if (!o.npy.empty()) {
    write_buffer_npy(buf, output.type, o.npy);
    err << fmt::format("halo: wrote {}\n", o.npy);
  }
  if (expected) {
    std::string diff = compare_with_expected(buf, *expected, dim_names);
    if (!diff.empty()) {
      err << fmt::format("halo: output {} {}\n", output.name.text, diff);
      return kExitFinding;
    }
    err << fmt::format("halo: output {} equals {} at all {} point(s)\n", output.name.text, expected->origin,
                       buf.values.size());
  }
  return kExitOk;
}


std::string read_text(const std::string& path) { return read_source_file(path); }


// Target programs are named *.tgt or start with the word `target`.
bool is_target_file(const std::string& path, std::string_view src) {
  return looks_like_tgt(src) || (path.size() > 4 && path.compare(path.size() - 4, 4, ".tgt") == 0);
}

// A .halo file is validated and lowered (fig. 2.9); a target file is taken as written.
TgtProgram load_target(const CommonOptions& o) {
  std::string src = cli::read_program_source(o.file, o.overrides());  // an .hlpipe imported
  TgtProgram t;
  if (is_target_file(o.file, src)) {
    t = parse_tgt(src, o.file);
  } else {
    Program prog = parse_program(src, o.file);
    check_program(prog);
    t = schedule_pipeline(prog);
  }
  t.realize = overridden_realize(t.file, t.name, t.params, t.window.size(), t.realize, o);
  return t;
}

Input target_input(const TgtProgram& t, const CommonOptions& o) {
  return resolve_input(t.file, t.name, t.params, t.window.size(), t.realize, o.overrides(), t.inputs);
}


// A filling file: see filling_from_json (candidates/engines/engine.hpp).
HoleFilling read_filling(const std::string& path, const TgtProgram& t) {
  return filling_from_json(parse_json_text(read_text(path), path), t, path);
}

// S(s_n, ... S(s_1, L(P))): the final program, or (--steps) L(P) and the program after
// each directive, so a student can watch the schedule act.
int cmd_schedule(const CommonOptions& o, bool steps, std::ostream& out) {
  Program prog = load(o);
  override_realize(prog, o);
  if (!o.json) out << print_effective_schedule(prog);
  if (!steps) {
    TgtProgram t = schedule_pipeline(prog);
    out << (o.json ? json_text(tgt_to_json(t), 2) + "\n" : print_tgt(t));
    return kExitOk;
  }
  // Every step up to a directive its rewrite rejects, then the error: the steps before it
  // show the program the directive met.
  std::vector<TgtProgram> all;
  std::optional<InputError> rejected;
  try {
    schedule_pipeline(prog, &all);
  } catch (const InputError& e) {
    rejected = e;
  }
  for (size_t i = 0; i < all.size(); ++i)
    out << (i ? "\n" : "") << "# " << (i == 0 ? "L(P): the lowered program (fig. 2.9)" : schedule_step_title(prog, i - 1))
        << "\n" << print_tgt(all[i]);
  if (rejected) {
    if (prog.schedule && all.size() <= prog.schedule->size())
      out << "\n# " << schedule_step_title(prog, all.size() - 1) << ": rejected (the error follows on stderr)\n";
    throw *rejected;
  }
  return kExitOk;
}

int cmd_lower(const CommonOptions& o, std::ostream& out, std::ostream& err) {
  Program prog = load_algorithm(o, err);
  override_realize(prog, o);
  TgtProgram t = lower_pipeline(prog);
  out << (o.json ? json_text(tgt_to_json(t), 2) + "\n" : print_tgt(t));
  return kExitOk;
}

struct PrintingTrace : TraceSink {
  std::ostream& out;
  uint64_t n = 0;
  explicit PrintingTrace(std::ostream& o) : out(o) {}
  void rule(const char* name, const std::string& redex) override {
    out << fmt::format("{:>8}  [{}] {}\n", ++n, name, redex);
  }
};

nlohmann::json stats_json(const RunResult& r) {
  nlohmann::json stats = nlohmann::json::object();
  for (const auto& [func, st] : r.stats) {
    nlohmann::json allocs = nlohmann::json::array();
    for (const auto& [bounds, count] : st.allocations) {
      nlohmann::json b = nlohmann::json::array();
      for (const auto& [mn, ln] : bounds) b.push_back({value_to_json(mn), value_to_json(ln)});
      allocs.push_back({{"bounds", b}, {"count", count}});
    }
    stats[func] = {{"allocations", allocs}, {"stores", st.stores}, {"loads", st.loads}};
  }
  return stats;
}

int cmd_run(const CommonOptions& o, const std::string& fill, bool trace, std::ostream& out) {
  TgtProgram t = load_target(o);
  Input in = target_input(t, o);
  std::vector<HoleLabel> unfilled;
  if (fill == "brute-force") {
    auto bf = brute_force_filling(t, in);
    if (!bf) throw ResourceLimit("the brute-force completion gave up (too many steps or too wide an interval)");
    t = fill_holes(t, bf->filling, &unfilled);
  } else if (!fill.empty()) {
    t = fill_holes(t, read_filling(fill, t), &unfilled);
  } else if (!o.engine.empty()) {
    EngineResult er = run_engine(o.engine, extract_query(t), t, o.engine_timeout);
    if (er.kind == EngineResult::Kind::Failed) {
      out << fmt::format("the bounds engine failed: {}\n", er.detail);
      return kExitFinding;
    }
    if (er.kind == EngineResult::Kind::GaveUp && o.warnings)
      *o.warnings << t.file << ": note: the engine gave up (" << er.detail << "); the completed program is `assert 0`\n";
    t = complete_with(er, t);
  } else {
    // The default: bounds inference by β0 (fig. 2.10b), lifted to a completion.
    Beta0Completion c = complete_with_beta0(t);
    if (!c.ok && o.warnings) *o.warnings << t.file << ": note: β0 found no finite bounds (" << c.reason
                                          << "); the completed program is `assert 0`\n";
    t = c.program;
  }
  if (!unfilled.empty()) {
    std::vector<std::string> names;
    for (const auto& h : unfilled) names.push_back(h.to_string());
    throw InputError(Diagnostic{t.file, {}, fmt::format("the program still has holes: {}; fill them with "
                                                        "--fill FILE.json (or --fill brute-force)",
                                                        fmt::join(names, ", "))});
  }
  PrintingTrace tracer(out);
  RunResult r = run_tgt(t, in, o.limits(), trace ? &tracer : nullptr);
  if (o.json) {
    nlohmann::json j = {{"status", run_status_name(r.status)}, {"steps", r.steps}, {"stats", stats_json(r)}};
    if (r.status == RunStatus::Ok) j["output"] = buffer_to_json(r.output);
    if (!r.message.empty()) j["detail"] = r.message;
    if (r.race) j["race"] = r.race->message;
    out << j.dump(-1, ' ', false, kReplaceInvalidUtf8) << "\n";
  } else {
    if (r.status == RunStatus::Ok) {
      std::vector<std::string> names;
      for (const auto& w : t.window) names.push_back(w.first.substr(0, w.first.rfind("_min")));
      out << render_buffer(r.output, names);
      if (!r.message.empty()) out << "note: " << r.message << "\n";
    } else {
      out << fmt::format("stuck: {}: {}\n", run_status_name(r.status), r.message);
    }
    if (r.race) out << r.race->message << "\n";
    out << fmt::format("{} steps\n", r.steps);
  }
  return r.status == RunStatus::Ok && !r.race ? kExitOk : kExitFinding;
}

// A hole's expression as a reader writes it in the hole's scope: a qualified loop variable
// <f, j, i, x> by its short name x when no variable of the scope nearer the hole is also
// called x (docs/target-syntax.md); filling files read it back the same way.
std::string print_fill(const HoleLabel& h, const Expr& e, const std::map<HoleLabel, std::vector<std::string>>& scopes) {
  auto sc = scopes.find(h);
  if (sc == scopes.end()) return print_expr(e);
  std::map<std::string, std::string> shown;
  for (auto it = sc->second.rbegin(); it != sc->second.rend(); ++it) {
    std::string s = short_var(*it);
    bool taken = std::any_of(sc->second.rbegin(), it, [&](const std::string& v) { return short_var(v) == s; }) ||
                 std::find(sc->second.begin(), sc->second.end(), s) != sc->second.end();  // a plain name
    if (is_qualified_var(*it) && !taken) shown[*it] = s;
  }
  return print_expr(rename_vars(e, shown));
}

int cmd_bounds(const CommonOptions& o, std::ostream& out) {
  TgtProgram t = load_target(o);
  const auto scopes = hole_scopes(t);
  Query q = extract_query(t);
  if (!o.engine.empty()) {
    EngineResult er = run_engine(o.engine, q, t, o.engine_timeout);
    if (er.kind == EngineResult::Kind::Failed) {
      out << fmt::format("the bounds engine failed: {}\n", er.detail);
      return kExitFinding;
    }
    out << "# the bounds query B(T) (fig. 2.10a)\n" << print_query(q) << "\n";
    out << "# the engine's substitution\n";
    if (er.kind == EngineResult::Kind::GaveUp) out << "the engine gives up: " << er.detail << "\n";
    for (const auto& [h, e] : er.filling) out << h.to_string() << " = " << print_fill(h, e, scopes) << "\n";
    out << "\n# the completed program\n" << print_tgt(complete_with(er, t));
    return kExitOk;
  }
  Beta0Result r = run_builtin_engine(q, t, o.literal ? BoundsEngine::Beta0Literal : BoundsEngine::Beta0);
  Beta0Completion c = complete_with_beta0(r, t);
  if (o.json) {
    nlohmann::json fill = nlohmann::json::object();
    for (const auto& [h, e] : r.filling) fill[h.to_string()] = print_fill(h, e, scopes);
    out << json_text(nlohmann::json{{"query", query_to_json(q, t)},
                          {"beta0", {{"ok", r.ok},
                                     {"rules", o.literal ? "literal" : "halo"},
                                     {"reason", r.why_failed},
                                     {"gave_up", r.gave_up},
                                     {"substitution", fill}}},
                          {"completed", tgt_to_json(c.program)}},
                         2)
        << "\n";
    return kExitOk;
  }
  out << "# the bounds query B(T) (fig. 2.10a)\n" << print_query(q) << "\n";
  out << (o.literal ? "# the substitution of β0 with the rules as fig. 2.10b prints them (--literal)\n"
                    : "# the substitution of β0 (fig. 2.10b)\n");
  if (!r.ok) out << "β0 gives up (" << r.gave_up << "): " << r.why_failed << "\n";
  for (const auto& [h, e] : r.filling) out << h.to_string() << " = " << print_fill(h, e, scopes) << "\n";
  out << "\n# the completed program\n" << print_tgt(c.program);
  return kExitOk;
}

void print_verdict(const OracleVerdict& v, const std::string& who, std::ostream& out) {
  out << fmt::format("{}:\n", who);
  out << fmt::format("  Theorem 2.1 (memory safety):        {}\n", v.memory_safe ? "holds" : "VIOLATED");
  out << fmt::format("  Theorem 2.2 (confluence, Def. 2.3): {}\n", v.confluent ? "holds" : "VIOLATED");
  out << fmt::format("  parallel loops race-free:           {}\n", v.race_free ? "holds" : "VIOLATED");
  out << fmt::format("  completed program: {} after {} steps\n", run_status_name(v.run.status), v.run.steps);
  out << "  " << v.detail << "\n";
}

int cmd_oracle(const CommonOptions& o, std::ostream& out) {
  Program prog = load(o);
  Input in = resolve_input(prog, o.overrides());
  TgtProgram t = schedule_pipeline(prog);
  if (!o.engine.empty()) {
    // Def. 2.5: wherever β0's completion computes P's output, the engine's must too; and the
    // engine's completion is itself held to Theorems 2.1 and 2.2 (oracle/quality.hpp).
    EngineVerdict ev = check_engine(prog, t, in, o.limits(), o.engine, o.engine_timeout);
    if (o.json) {
      out << engine_verdict_to_json(ev).dump(-1, ' ', false, kReplaceInvalidUtf8) << "\n";
    } else {
      print_verdict(ev.beta0, "β0's completion", out);
      if (ev.engine_failed) out << "the engine's completion:\n  the engine failed: " << ev.engine.detail << "\n";
      else print_verdict(ev.completion, "the engine's completion", out);
      out << fmt::format("Def. 2.5 (bounds quality): {}\n", ev.quality ? "holds" : "VIOLATED");
      if (ev.engine_stores >= 0)
        out << fmt::format("points stored: the engine's completion {}, β0's {}\n", ev.engine_stores, ev.beta0_stores);
      out << (ev.holds() ? "verdict: holds\n" : "verdict: violated: " + ev.detail + "\n");
    }
    return ev.holds() ? kExitOk : kExitFinding;
  }
  Query q = extract_query(t);
  Beta0Result b = run_beta0(q, t);
  Beta0Completion c = complete_with_beta0(b, t);
  OracleVerdict v = check_theorems(prog, c.program, in, o.limits());
  if (c.ok) explain_with_query(v, t, b.filling, in, o.limits());
  // A completion that is `assert 0` because β0 gave up satisfies the theorems vacuously:
  // said as such, never as a plain "holds".
  if (o.json) {
    nlohmann::json j = verdict_to_json(v);
    j["vacuous"] = !c.ok;
    if (prog.schedule_mode == ScheduleMode::Halide) j["effective_schedule"] = print_effective_schedule(prog);
    if (!c.ok) j["gave_up"] = c.gave_up, j["gave_up_detail"] = c.reason;
    out << j.dump(-1, ' ', false, kReplaceInvalidUtf8) << "\n";
  } else {
    out << print_effective_schedule(prog);
    print_verdict(v, c.ok ? "β0's completion" : "β0's completion (no finite bounds: " + c.reason + ")", out);
    if (!c.ok && v.holds())
      out << fmt::format("verdict: holds, vacuous: β0 gave up ({}), the completion is `assert 0`\n", c.gave_up);
  }
  return v.holds() ? kExitOk : kExitFinding;
}

// A command whose standard output did not arrive (a full disk, a closed descriptor, a
// reader gone) has not delivered its verdict: it fails as bad input from the environment
// the user gave (exit 2), whatever it found. A limit or an error already reported keeps
// its status; the write error is reported beside it.
int finish_output(int status, std::ostream& out, std::ostream& err) {
  int write_error = output_stream_error(out);
  if (write_error == 0) return status;
  err << Diagnostic{"", {}, standard_output_error(write_error)}.format() << "\n";
  return status == kExitLimit || status == kExitInternal ? status : kExitInput;
}

// CLI11's own report of a usage error, in halo's error format: `halo: error: ...`, a hint
// at the --help of the command that was being parsed, exit 2. --help and --version (which
// CLI11 signals as "errors" too) print their text and succeed.
int usage_error(CLI::App& app, const CLI::ParseError& e, std::ostream& out, std::ostream& err) {
  if (e.get_exit_code() == 0) {
    app.exit(e, out, err);
    return kExitOk;
  }
  std::string command = "halo";
  for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
    sub = sub->get_subcommands().front();
    command += " " + sub->get_name();
  }
  std::string message = e.what();
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  err << Diagnostic{"", {}, fmt::format("{} (see '{} --help')", message, command)}.format() << "\n";
  return kExitInput;
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err, bool own_process) {
  if (own_process) count_commands_from_process_start();
  install_candidate_cleanup();  // SIGINT/SIGTERM/SIGHUP kill every candidate's processes first
  CLI::App app{"halo: an executable formal semantics and test oracle for Halide-style languages"};
  app.set_version_flag("--version", std::string("halo ") + "0.1.0");
  app.require_subcommand(1);

  CommonOptions check_opts, eval_opts;
  auto* check = app.add_subcommand("check", "parse and validate the algorithm and schedule");
  add_common(check, check_opts, true);
  std::string check_target = "self";
  check->add_option("--target", check_target,
                    "also check what this candidate needs to run the case as written: its own directives are "
                    "accepted (docs/cli.md)")
      ->check(cli::self_or_candidate("self|halide[@M]|exo"))
      ->capture_default_str();
  auto* eval = app.add_subcommand("eval", "the big-step reference semantics (fig. 2.6): the output on R(z)");
  add_common(eval, eval_opts, true);
  eval->add_option("--png", eval_opts.png, "also write the output as a PNG picture (2-D, or 3-D with 1-4 channels)");
  eval->add_option("--npy", eval_opts.npy, "also write the output as a NumPy .npy array (a[y, x]: the last dimension first)");
  eval->add_option("--expect", eval_opts.expect,
                   "compare the output with the values another program computed (.npy or image file, its first point "
                   "at the window's min); exit 1 where they differ");
  std::string derivation_point, evaluator = "fast";
  size_t derivation_lines = 5000;
  eval->add_option("--derivation", derivation_point,
                   "print the derivation tree of the output at point X,Y,... (fig. 2.6 rules)");
  eval->add_option("--derivation-lines", derivation_lines, "print at most this many lines of a derivation")
      ->capture_default_str();
  eval->add_option("--evaluator", evaluator, "fast (default) or derivation (literal rules, slow)")
      ->check(CLI::IsMember({"fast", "derivation"}));

  CommonOptions lower_opts, run_opts, bounds_opts, oracle_opts, schedule_opts;
  for (CommonOptions* o : {&check_opts, &eval_opts, &lower_opts, &run_opts, &bounds_opts, &oracle_opts, &schedule_opts})
    o->warnings = &err;
  auto* schedule = app.add_subcommand("schedule", "print S(s_n, ... S(s_1, L(P))), the scheduled program with holes");
  add_common(schedule, schedule_opts, false);
  add_command_limits(schedule, schedule_opts);
  schedule->add_flag("--json", schedule_opts.json, "the program in JSON");
  bool schedule_steps = false;
  schedule->add_flag("--steps", schedule_steps, "print the program after every directive");
  auto* bounds = app.add_subcommand("bounds", "print the query B(T), the β0 substitution and the completed program");
  add_common(bounds, bounds_opts, false);
  add_command_limits(bounds, bounds_opts);
  bounds->add_flag("--json", bounds_opts.json, "machine-readable output");
  auto* literal_flag = bounds->add_flag(
      "--literal", bounds_opts.literal,
      "β0 with the interval rules exactly as fig. 2.10b prints them: no simplification before a rule, no "
      "constant-divisor rule (the soundness repairs stay; docs/beta0.md)");
  auto* oracle = app.add_subcommand("oracle", "check Theorems 2.1 and 2.2 for this case (and Def. 2.5 with --engine)");
  add_common(oracle, oracle_opts, true);
  cli::HalideOracleFlags oracle_halide;  // --target halide (tools/cmd_halide.cpp)
  cli::add_halide_oracle_flags(oracle, oracle_halide);
  auto* lower = app.add_subcommand("lower", "print L(P), the target program with holes (fig. 2.9)");
  add_common(lower, lower_opts, false);
  lower->add_flag("--json", lower_opts.json, "the program in JSON (docs/target-syntax.md)");
  auto* run = app.add_subcommand("run", "run a completed target program on the small-step machine (fig. 2.8)");
  add_common(run, run_opts, true);
  std::string fill;
  bool trace = false;
  run->add_option("--fill", fill,
                  "fill the holes instead of using β0: a JSON file {\"?mem<f, x>.min\": \"expr\", ...}, or brute-force (a concrete "
                  "completion for this input, for testing)");
  run->add_flag("--trace", trace, "print every rule of fig. 2.8 applied, with its redex");
  for (auto [cmd, o] : {std::pair{run, &run_opts}, std::pair{bounds, &bounds_opts}, std::pair{oracle, &oracle_opts}}) {
    cmd->add_option("--engine", o->engine,
                    "an external bounds engine: a command reading the query (JSON) on stdin and writing the "
                    "hole substitution (JSON) on stdout (docs/bounds-engines.md)");
    cmd->add_option("--engine-timeout", o->engine_timeout, "seconds the engine may take")
        ->check(seconds_value())
        ->capture_default_str();
  }
  literal_flag->excludes(bounds->get_option("--engine"));


  // Subcommands defined in files of their own (tools/commands.hpp).
  std::vector<cli::Subcommand> extra;
  extra.push_back(cli::register_explain(app));
  extra.push_back(cli::register_fuzz(app));
  extra.push_back(cli::register_comply(app));
  extra.push_back(cli::register_beta0_engine(app));
  extra.push_back(cli::register_kernel(app));
  extra.push_back(cli::register_exo(app));
  extra.push_back(cli::register_import(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return finish_output(usage_error(app, e, out, err), out, err);
  }

  // Every command runs on the reserved big stack (support/big_stack.hpp): passes over
  // user-sized structure (a chain of 20,000 funcs, a func of 20,000 update stages, a deeply
  // nested query) recurse once per element, and a valid program may be that large.
  auto dispatch = [&]() -> int {
    // The single-run commands poll one budget in every phase; campaigns bound each case.
    std::optional<ScopedCommandBudget> budget;
    for (const CommonOptions* o : {&check_opts, &eval_opts, &lower_opts, &run_opts, &bounds_opts, &oracle_opts,
                                   &schedule_opts})
      if (!o->file.empty()) budget.emplace(o->command_limits());
    if (*check) {
      std::string src = cli::read_program_source(check_opts.file, check_opts.overrides());
      if (is_target_file(check_opts.file, src)) parse_tgt(src, check_opts.file);
      else {
        Program prog = parse_program(src, check_opts.file);
        check_program(prog);
        Input in = resolve_input(prog, check_opts.overrides());  // --param, --window
        if (check_target == "self") {
          schedule_pipeline(prog);  // each directive's own restrictions (§2.8)
        } else {
          // A candidate's own directives are outside §2.8; the rest of the schedule is not.
          CandidateTarget t = resolve_candidate_target(check_target);
          if (!t.selection.error.empty()) throw InputError(Diagnostic{check_opts.file, {}, t.selection.error});
          if (t.candidate->has_own_directives()) schedule_formal_part(prog);
          else schedule_pipeline(prog);
          t.candidate->preflight(prog, in);
        }
      }
      return kExitOk;
    }
    if (*lower) return cmd_lower(lower_opts, out, err);
    if (*schedule) return cmd_schedule(schedule_opts, schedule_steps, out);
    if (*bounds) return cmd_bounds(bounds_opts, out);
    if (*oracle && oracle_halide.target != "self")
      return cli::run_candidate_oracle(oracle_halide, oracle_opts.file, oracle_opts.overrides(),
                                    oracle_opts.json, oracle_opts.limits(), out, err);
    if (*oracle) return cmd_oracle(oracle_opts, out);
    if (*run) return cmd_run(run_opts, fill, trace, out);
    if (*eval) return cmd_eval(eval_opts, derivation_point, derivation_lines, evaluator, out, err);
    for (const auto& c : extra)
      if (*c.app) return c.action(out, err);
    return kExitOk;
  };
  // The deadline has passed and the command is still unwinding (or in a stretch that does
  // not poll): halo ends now, as a signal would end it, with the status and message the
  // command would have ended with. Standard output is not flushed: the command may be
  // writing it on its own thread.
  auto end_overrun = [&] {
    if (!command_overran(0.2)) return;
    end_candidates_now();
    err << "halo: stopped: " << time_limit_message() << std::endl;
    _exit(kExitLimit);
  };
  int status = kExitOk;
  try {
    run_on_big_stack([&] { status = dispatch(); }, own_process ? std::function<void()>(end_overrun) : nullptr);
  } catch (const InputError& e) {
    for (const auto& d : e.diagnostics()) err << d.format() << "\n";
    status = kExitInput;
  } catch (const ResourceLimit& e) {
    err << "halo: stopped: " << e.what() << "\n";
    status = kExitLimit;
  } catch (const std::bad_alloc&) {
    err << "halo: stopped: out of memory; lower the window or --max-memory\n";
    status = kExitLimit;
  } catch (const std::exception& e) {
    err << "halo: internal error: " << e.what() << "\n";
    status = kExitInternal;
  }
  return finish_output(status, out, err);
}

}  // namespace halo

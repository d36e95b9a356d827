// `halo explain FILE [-o report.html]`: the teaching report of report/explain.hpp — one
// self-contained HTML page showing what every pass and every rule does to this program on
// this input. Options choose the input (--param, --window, as for eval), the output point
// whose derivation is shown (--point) and the store whose small-step trace is shown
// (--trace-func, --trace-point). Exit 0 when the page is written, 2 on bad input.
#include "report/explain.hpp"
#include "candidates/halide/versions.hpp"
#include "tools/cmd_halide.hpp"
#include "support/command_budget.hpp"
#include "support/output_file.hpp"
#include "semantics/lexer.hpp"
#include "semantics/parser.hpp"
#include "semantics/validity.hpp"
#include "tools/commands.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <fstream>
#include <memory>
#include <sstream>

namespace halo::cli {

namespace {

struct ExplainState {
  std::string file, output;
  std::vector<std::string> params, windows, inputs;
  std::string point, trace_func, trace_point;
  uint64_t max_steps = explain::ExplainOptions::default_limits().max_steps;
  double timeout = 60;  // a runaway stops within a minute (0: no limit)
  uint64_t max_memory_mib = Limits{}.max_memory_bytes >> 20;
  std::string target = "self";  // halide[@M|@all]: the page also shows the compiler's side
  std::string slice;            // "A,B": the dimensions the pictures draw
  std::string format = "html";  // html: the page; sections: JSON for pages that embed them (the playground)
};

// "X,Y,..." → a point; the dimension is checked against the func by explain_program.
std::optional<std::vector<Value>> parse_point_option(const std::string& text, const char* option,
                                                     const std::string& file) {
  if (text.empty()) return std::nullopt;
  std::vector<Value> pt;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto v = Value::parse(item);
    if (!v || !v->is_int())
      throw InputError(Diagnostic{file, {}, fmt::format("{} expects a point X,Y,... of integers, got '{}'", option, text)});
    pt.push_back(*v);
  }
  return pt;
}

// "A,B" -> the two dimensions, distinct, counted from 0.
std::optional<std::array<size_t, 2>> parse_slice(const std::string& text, const std::string& file) {
  if (text.empty()) return std::nullopt;
  std::optional<std::vector<Value>> pt = parse_point_option(text, "--slice", file);
  auto bad = [&] {
    return InputError(Diagnostic{file, {}, fmt::format("--slice expects two different dimensions A,B counted from 0 "
                                                       "(A drawn across, B down), got '{}'",
                                                       text)});
  };
  if (pt->size() != 2) throw bad();
  std::array<size_t, 2> axes{};
  for (size_t k = 0; k < 2; ++k) {
    auto v = (*pt)[k].as_int64();
    if (!v || *v < 0 || *v > 3) throw bad();
    axes[k] = size_t(*v);
  }
  if (axes[0] == axes[1]) throw bad();
  return axes;
}

int explain_action(const ExplainState& st, std::ostream& out) {
  std::string source = read_program_source(st.file, InputOverrides{st.params, st.windows, st.inputs});  // an .hlpipe imported
  Program prog = parse_program(source, st.file);
  check_program(prog);
  explain::ExplainOptions o;
  o.input = InputOverrides{st.params, st.windows, st.inputs};
  o.point = parse_point_option(st.point, "--point", st.file);
  o.trace_func = st.trace_func;
  o.trace_point = parse_point_option(st.trace_point, "--trace-point", st.file);
  o.slice = parse_slice(st.slice, st.file);
  o.limits.max_steps = st.max_steps;
  o.limits.max_seconds = st.timeout;
  o.limits.max_memory_bytes = st.max_memory_mib << 20;
  if (st.target != "self") {
    halide::HalideSelection sel = halide::select_halide_versions(st.target);
    if (!sel.error.empty()) throw InputError(Diagnostic{st.file, {}, sel.error});
    for (int major : sel.majors) {
      halide::HalideOptions h;
      h.version = major;
      h.reuse_process = false;  // one case: a fresh process per version
      h.reference_limits = o.limits;
      o.halide.push_back(h);
    }
  }
  explain::Explanation e = explain::explain_program(prog, source, o);
  std::string html;
  if (st.format == "sections") {
    // The sections and what shows them, for a page of its own (the playground's panes).
    nlohmann::json j{{"style", explain::page_style()}, {"script", explain::page_script()}, {"sections", nlohmann::json::array()}};
    for (const auto& sec : explain::render_sections(e))
      j["sections"].push_back({{"id", sec.id}, {"title", sec.title}, {"html", sec.html}});
    html = j.dump() + "\n";
  } else {
    html = explain::render_html(e);
  }
  if (st.output.empty() || st.output == "-") {
    out << html;
  } else {
    write_file_atomically(st.output, html);
  }
  // The page shows the steps before a rejected directive; the command still fails with it.
  if (!e.schedule_rejected.empty()) throw InputError(e.schedule_rejected);
  return kExitOk;
}

}  // namespace

Subcommand register_explain(CLI::App& app) {
  auto st = std::make_shared<ExplainState>();
  auto* cmd = app.add_subcommand("explain", "write a self-contained HTML page that shows every pass and rule at work on "
                                            "this program (docs/guide/)");
  cmd->add_option("FILE", st->file, "a .halo program")->required();
  cmd->add_option("-o,--output", st->output, "where to write the page (default: standard output)");
  cmd->add_option("--param", st->params, "set a pipeline parameter, NAME=VALUE (repeatable)");
  cmd->add_option("--window", st->windows, "output interval MIN,LEN, one per output dimension (repeatable)");
  cmd->add_option("--input", st->inputs, "the buffer of an input, NAME=FILE or NAME=seeded:SEED:MIN,LEN[:...]");
  cmd->add_option("--point", st->point, "the output point X,Y,... whose big-step derivation is shown (default: the "
                                        "first point of R(z))");
  cmd->add_option("--trace-func", st->trace_func, "the func whose store is traced on the small-step machine (default: "
                                                  "the output)");
  cmd->add_option("--trace-point", st->trace_point, "the point of --trace-func whose store is traced (default: --point "
                                                    "for the output, else the func's first point)");
  cmd->add_option("--slice", st->slice,
                  "A,B: the dimensions of 3-D and 4-D funcs the pictures draw, A across and B down (counted from 0; "
                  "default 0,1); the others are projected");
  cmd->add_option("--target", st->target,
                  "self (halo alone), or halide, halide@M, halide@all: also run the case on Halide and show its "
                  "verdict, the regions it realized next to halo's, its memory check and the C++ reproducer")
      ->check(CLI::Validator(
          [](std::string& s) {
            return s == "self" || halide::is_halide_target_name(s) ? std::string()
                                                                   : "not a target of explain: " + s +
                                                                         " (self, halide, halide@M, halide@all)";
          },
          "self|halide[@M|@all]"))
      ->capture_default_str();
  cmd->add_option("--format", st->format,
                  "html (the page) or sections (JSON: each section's id, title and HTML, with the style sheet and "
                  "script that show them, for a page that embeds them; docs/playground.md)")
      ->check(CLI::IsMember({"html", "sections"}))
      ->capture_default_str();
  cmd->add_option("--max-steps", st->max_steps, "stop each evaluation after this many steps")->check(unsigned_integer())->capture_default_str();
  cmd->add_option("--timeout", st->timeout, "stop after this many seconds, every phase and the page included (0: no limit)")
      ->check(seconds_value())->capture_default_str();
  cmd->add_option("--max-memory", st->max_memory_mib,
                  "memory limit in MiB: the evaluations' tables and buffers, big integers, and what the whole command "
                  "holds")
      ->check(mebibytes_value())->capture_default_str();
  return Subcommand{cmd, [st](std::ostream& out, std::ostream&) {
                      ScopedCommandBudget budget(CommandLimits{st->timeout, st->max_memory_mib << 20, true});  // every phase, rendering too
                      return explain_action(*st, out);
                    }};
}

}  // namespace halo::cli

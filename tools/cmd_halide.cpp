// `halo oracle FILE --target NAME` for every registered candidate, and the flags only
// Halide has (cmd_halide.hpp); `halo fuzz --target NAME` is tools/cmd_candidate_fuzz.cpp.
#include "tools/cmd_halide.hpp"
#include "semantics/printer.hpp"

#include "candidates/halide/versions.hpp"
#include "candidates/registry.hpp"
#include "schedule/schedule.hpp"
#include "semantics/parser.hpp"
#include "semantics/validity.hpp"
#include "support/output_file.hpp"
#include "tools/commands.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <set>

namespace halo::cli {

// The Halide flags mean nothing for another target; silently ignoring them would hide a
// mistake (an --emit-cpp that writes nothing). A mistyped Halide target string is a usage
// error too, not a case Halide "rejects" (which a campaign would count as a finding in every
// case): every selected version is asked whether it understands it.
void check_halide_flags(CLI::App* cmd, const std::string& target, const std::string& halide_target,
                        std::vector<const char*> flags) {
  cmd->parse_complete_callback([cmd, &target, &halide_target, flags] {
    if (!halide::is_halide_target_name(target)) {
      for (const char* flag : flags) {
        if (cmd->count(flag) == 0) continue;
        // Every candidate writes a reproducer (TVM's is Python); TVM's campaigns take the
        // campaign flags (its generator and weights, triage, a time limit, no memory check).
        if (flag == std::string("--emit-cpp") && find_candidate(target)) continue;
        if (const Candidate* c = find_candidate(target); c && c->name() == "tvm") {
          static const std::set<std::string> tvm_flags{"--generator", "--weight", "--triage", "--halide-timeout",
                                                       "--no-memcheck", "--float-mode"};
          if (tvm_flags.count(flag)) continue;
        }
        // The Exo generator takes its own weights (families and primitives, docs/kernels.md).
        if (flag == std::string("--weight") && (target == "exo" || target.rfind("exo@", 0) == 0)) continue;
        // The typed expression generator also feeds halo's own pipeline.
        if (flag == std::string("--generator") && target == "self" && cmd->get_option(flag)->as<std::string>() != "halide")
          continue;
        // ... and takes its own weight, float=PERCENT (checked where the generator is made).
        if (flag == std::string("--weight") && target == "self" && cmd->count("--generator") &&
            cmd->get_option("--generator")->as<std::string>() == "expr")
          continue;
        throw CLI::ValidationError(flag, flag == std::string("--generator")
                                             ? "needs --target halide (with --target self: expr or semantics)"
                                             : "needs --target halide");
      }
      return;
    }
    halide::HalideSelection sel = halide::select_halide_versions(target);
    if (!sel.error.empty()) throw CLI::ValidationError("--target", sel.error);
    for (int major : sel.majors)
      if (!halide::valid_halide_target(major, halide_target))
        throw CLI::ValidationError("--halide-target", fmt::format("not a Halide target string for Halide {}: {}", major,
                                                                  halide_target));
  });
}


CLI::Validator self_or_candidate(const std::string& self_text) {
  return CLI::Validator(
      [](std::string& s) {
        return s == "self" || find_candidate(s) ? std::string()
                                                : "not a target: " + s + " (self, " + candidate_target_list() + ")";
      },
      self_text);
}

void add_halide_oracle_flags(CLI::App* oracle, HalideOracleFlags& f) {
  oracle->add_option("--target", f.target,
                     "self: halo's own completed program (default); halide: the newest Halide installed; "
                     "halide@M: Halide major version M; halide@all: every installed version, as a matrix "
                     "(docs/halide.md); tvm[@0.MM|@all]: Apache TVM's TensorIR (docs/tvm.md)")
      ->check(self_or_candidate("self|halide[@M|@all]|exo|tvm[@V|@all]"))
      ->capture_default_str();
  oracle->add_option("--halide-target", f.halide_target,
                     "with --target halide: the Halide target string to JIT-compile for (host = the machine)")
      ->capture_default_str();
  oracle->add_flag("--no-memcheck", f.no_memcheck,
                   "with --target halide: skip the traced run that checks every load and store of every func");
  oracle->add_option("--float-mode", f.float_mode,
                     "with --target halide: how a float output is judged: strict (compiled with strict_float, compared bit for "
                   "bit) or relaxed (Halide's default fast-math, compared within a tolerance; docs/floats.md)")
      ->check(CLI::IsMember({"strict", "relaxed"}))
      ->capture_default_str();
  oracle->add_option("--halide-timeout", f.halide_timeout,
                     "with --target halide: seconds Halide may take to compile and run the case")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  oracle->add_option("--emit-cpp,--reproducer", f.emit_cpp,
                     "with --target halide or tvm: write the candidate's standalone reproducer (Halide: C++, TVM: "
                     "Python) to this file (- for stdout)");
  oracle->add_option("--autoscheduler", f.autoscheduler,
                     "with --target halide: replace the file's schedule with Halide's autoscheduler NAME (" +
                         fmt::format("{}", fmt::join(halide_autoscheduler_names(), ", ")) +
                         "; docs/halide.md, \"Autoschedulers\")")
      ->transform(CLI::Validator(  // a transform: the plugin's spelling becomes Halide's name
          [](std::string& s) {
            std::optional<std::string> known = canonical_autoscheduler(s);
            if (!known)
              return fmt::format("not one of Halide's autoschedulers: {} ({})", s,
                                 fmt::join(halide_autoscheduler_names(), ", "));
            s = *known;
            return std::string();
          },
          "NAME"));
  check_halide_flags(oracle, f.target, f.halide_target,
                     {"--halide-target", "--no-memcheck", "--halide-timeout", "--emit-cpp", "--autoscheduler",
                      "--float-mode"});
}

CandidateOptions candidate_options(const std::string& platform, bool no_memcheck, double timeout,
                                   const std::string& float_mode) {
  CandidateOptions opt;
  opt.relaxed_floats = float_mode == "relaxed";
  opt.platform = platform;
  opt.memcheck = !no_memcheck;
  opt.timeout_seconds = timeout;
  return opt;
}

// The refusal, as FILE:LINE:COL: message, when halo's rules refused a move that one of
// Halide's calls makes by itself (Directive::halide_implicit); "" for any other error.
std::string implicit_move_refusal(const Program& prog, const InputError& e) {
  if (!prog.schedule || e.diagnostics().size() != 1) return "";
  const Diagnostic& d = e.diagnostics()[0];
  for (const Directive& dir : *prog.schedule)
    if (dir.halide_implicit && dir.loc.line == d.loc.line && dir.loc.col == d.loc.col)
      return fmt::format("{}:{}:{}: {}", d.file, d.loc.line, d.loc.col, d.message);
  return "";
}

int run_candidate_oracle(const HalideOracleFlags& f, const std::string& file, const InputOverrides& over, bool json, const Limits& limits, std::ostream& out,
                         std::ostream& err) {
  Program prog = parse_program_file(file, over);
  check_program(prog);
  // The file's schedule is not checked once it is replaced: the autoscheduler's is what runs.
  if (!f.autoscheduler.empty() && use_autoscheduler(prog, f.autoscheduler))
    prog.replaced_schedule = fmt::format("the schedule written in {} was replaced by Halide's autoscheduler {} "
                                         "(--autoscheduler)",
                                         file, f.autoscheduler);
  CandidateTarget target = resolve_candidate_target(f.target);
  if (!target.selection.error.empty()) throw InputError(Diagnostic{file, {}, target.selection.error});
  const Candidate& c = *target.candidate;
  // The schedule's own restrictions (§2.8): halo accepts the case. A candidate's own
  // directives are outside them; the rest of the schedule must pass them. Except a move a
  // Halide call makes by itself (the swaps of a fuse of loops that are not adjacent): halo
  // refuses it, the candidate runs the call as written and must refuse it too or compute
  // the reference.
  std::string refusal;
  if (c.has_own_directives()) {
    try {
      schedule_formal_part(prog);
    } catch (const InputError& e) {
      refusal = implicit_move_refusal(prog, e);
      if (refusal.empty()) throw;
      err << "note: " << refusal << "\n      " << c.display_name()
          << " runs the schedule as written: it must refuse it too, or compute the reference\n";
    }
  } else {
    schedule_pipeline(prog);
  }
  Input in = resolve_input(prog, over);
  CandidateOptions opt = candidate_options(f.halide_target, f.no_memcheck, f.halide_timeout, f.float_mode);
  opt.formal_refusal = refusal;
  opt.max_memory_bytes = limits.max_memory_bytes;
  opt.reference_limits = limits;
  opt.reuse_process = false;  // one case: a fresh process, no worker to start and warm
  const std::vector<std::string>& keys = target.selection.keys;
  std::vector<CandidateVerdict> verdicts;
  for (const std::string& key : keys) {
    opt.version = key;
    verdicts.push_back(c.run_case(prog, in, opt));
  }
  // The verdict the reproducer is written for: the newest version's finding, if any.
  size_t shown = verdicts.size() - 1;
  for (size_t i = 0; i < verdicts.size(); ++i)
    if (verdicts[i].finding) shown = i;
  const CandidateVerdict& v = verdicts[shown];
  opt.version = keys[shown];
  std::string reproducer;
  if (!f.emit_cpp.empty()) {
    try {
      reproducer = c.reproducer(prog, in, v, opt);
    } catch (const InputError& e) {
      // Not expressible for the candidate or outside its model: the verdict says so and
      // stands; there is just no program to write.
      err << "note: no reproducer written: " << e.what() << "\n";
    }
  }
  if (!reproducer.empty()) {
    if (f.emit_cpp == "-") {
      out << reproducer;
    } else {
      write_file_atomically(f.emit_cpp, reproducer);
      err << "wrote the " << c.display_name() << " reproducer to " << f.emit_cpp << "\n";
    }
  }
  std::string word = matrix_verdict_word(verdicts);
  if (target.selection.all) {
    if (json) {
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& x : verdicts) rows.push_back(x.record);
      nlohmann::json j{{"target", f.target}, {"file", file}, {"verdict", word},
                       {"not_run", versions_not_run(verdicts)}, {"matrix", rows}};
      if (prog.schedule_mode == ScheduleMode::Halide) j["effective_schedule"] = print_effective_schedule(prog);
      if (!prog.replaced_schedule.empty()) j["schedule_replaced"] = prog.replaced_schedule;
      out << j.dump() << "\n";
    } else if (f.emit_cpp != "-" || reproducer.empty()) {
      // Each verdict's notes say it too, but the matrix shows no notes.
      if (!prog.replaced_schedule.empty()) out << "note: " << prog.replaced_schedule << "\n";
      out << print_effective_schedule(prog) << version_matrix_text(c.display_name(), verdicts);
    }
  } else if (json) {
    nlohmann::json j = v.record;
    if (prog.schedule_mode == ScheduleMode::Halide) j["effective_schedule"] = print_effective_schedule(prog);
    out << j.dump() << "\n";
  } else if (f.emit_cpp != "-" || reproducer.empty()) {
    out << print_effective_schedule(prog) << v.text;
  }
  return word == std::string("violated") ? kExitFinding : word == std::string("holds") ? kExitOk : kExitNotRun;
}

}  // namespace halo::cli

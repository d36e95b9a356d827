// `halo exo SCRIPT.py PROC --spec FILE.halo [--param P=V] [--arg A=V] [--func A=F]
// [--init A=F] [--json]`: compiles a user-scheduled Exo procedure with the installed Exo
// (exo-lang from PyPI) and checks the C it emits like `halo kernel` checks any kernel: on
// the Gemmini simulator or under SIMDe and AddressSanitizer, against the big-step reference
// of the spec (candidates/exo/exo_kernel.hpp, docs/kernels.md). Exit status as for `halo
// kernel`; exo-lang missing or a script that fails in any way is bad input (2), Exo
// running out of --exo-timeout a limit (3).
#include "candidates/exo/exo_kernel.hpp"
#include "support/json_text.hpp"
#include "tools/commands.hpp"
#include "tools/kernel_cli.hpp"

#include <memory>

namespace halo::cli {

Subcommand register_exo(CLI::App& app) {
  struct State {
    std::string script, proc, spec;
    std::vector<std::string> params, args, funcs, inits;
    bool json = false;
    double exo_timeout = kExoDefaultSeconds;  // Exo's own run; --timeout bounds the compile and the kernel
    KernelRunFlags run;
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("exo", "compile an Exo procedure with the installed Exo and check the C it emits "
                                        "(Gemmini simulator or AVX-512 under SIMDe) against a .halo spec");
  cmd->add_option("SCRIPT", st->script, "the Python script that defines the procedure (as Exo's apps do)")->required();
  cmd->add_option("PROC", st->proc, "the module-level name of the procedure")->required();
  cmd->add_option("--spec", st->spec, "the .halo spec the procedure implements")->required();
  cmd->add_option("--param", st->params, "P=V: a value of a spec parameter (default: the spec's realize section)");
  cmd->add_option("--arg", st->args,
                  "A=V: the value of a size, index, stride, bool or scalar argument (a number or a spec parameter; "
                  "default for sizes: the spec parameter of the same name)");
  cmd->add_option("--func", st->funcs, "A=F: tensor argument A holds func F of the spec (default: the func named A)");
  cmd->add_option("--init", st->inits, "A=F: a tensor the procedure reads and writes starts as func F (default: zeros)");
  cmd->add_flag("--json", st->json, "machine-readable output on stdout (halo kernel's, plus an \"exo\" object)");
  cmd->add_option("--exo-timeout", st->exo_timeout,
                  "wall-clock seconds Exo's own run (the script, its scheduling, C generation) may take")
      ->check(seconds_value() & CLI::PositiveNumber)
      ->capture_default_str();
  add_kernel_run_flags(cmd, st->run);
  return Subcommand{cmd, [st](std::ostream& out, std::ostream&) {
                      ExoBinding b;
                      b.spec = st->spec;
                      for (const auto& s : st->params) b.params.push_back(split_binding("--param", s));
                      for (const auto& s : st->args) b.args.push_back(split_binding("--arg", s));
                      for (const auto& s : st->funcs) b.funcs.push_back(split_binding("--func", s));
                      for (const auto& s : st->inits) b.inits.push_back(split_binding("--init", s));
                      ExoKernelReport r = check_exo_kernel(st->script, st->proc, b, st->run.options(), st->exo_timeout);
                      if (st->json) out << exo_report_to_json(r).dump(-1, ' ', false, kReplaceInvalidUtf8) << "\n";
                      else
                      {
                        out << "Exo " << r.exo_version << ": " << r.script << " " << r.proc << "\n";
                        for (const auto& d : r.role_differences)
                          out << "  note: roles are the unscheduled procedure's; " << d << "\n";
                        out << render_kernel_report(r.kernel);
                      }
                      return r.kernel.holds() ? kExitOk : kExitFinding;
                    }};
}

}  // namespace halo::cli

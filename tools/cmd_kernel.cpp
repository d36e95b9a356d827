// `halo kernel MANIFEST.json [--json] [--native]`: runs a compiler-emitted kernel (Gemmini
// C, AVX-512 intrinsics, plain C) under simulation and checks every output element against
// the big-step reference of its .halo spec (candidates/kernel/kernel.hpp, docs/kernels.md). Exit
// status as for `halo oracle`: 0 the kernel holds, 1 a finding (a mismatch, a memory-safety
// violation, a crash or a hang), 2 bad input (manifest, spec, sources that do not compile),
// 3 the reference evaluation hit a limit, 4 an internal error.
#include "candidates/kernel/kernel.hpp"
#include "support/json_text.hpp"
#include "tools/commands.hpp"
#include "tools/kernel_cli.hpp"

#include <memory>

namespace halo::cli {

KernelOptions KernelRunFlags::options() const {
  KernelOptions o;
  o.native = native;
  o.timeout_seconds = timeout;
  o.max_memory_mib = max_memory_mib;
  o.reference_limits.max_steps = max_steps;
  o.keep = keep;
  return o;
}

void add_kernel_run_flags(CLI::App* cmd, KernelRunFlags& f) {
  cmd->add_flag("--native", f.native,
                "avx512: also compile with -mavx512f and run natively when the host has AVX-512F; both runs must agree");
  cmd->add_option("--timeout", f.timeout, "wall-clock seconds a run of the kernel may take")
      ->check(seconds_value() & CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--max-memory", f.max_memory_mib, "memory a run of the kernel may use, in MiB")
      ->check(CLI::Range(uint64_t(16), uint64_t(1) << 30))
      ->capture_default_str();
  cmd->add_option("--max-steps", f.max_steps, "evaluation steps the reference may take")->check(unsigned_integer())->capture_default_str();
  cmd->add_flag("--keep", f.keep, "keep the build directory (driver, executable, inputs, outputs) and print its path");
}

Subcommand register_kernel(CLI::App& app) {
  struct State {
    std::string manifest;
    bool json = false;
    KernelRunFlags run;
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("kernel", "run a compiled kernel (Gemmini, AVX-512, C) under simulation and check it "
                                           "against its .halo spec");
  cmd->add_option("MANIFEST", st->manifest, "the kernel's manifest (docs/kernels.md)")->required();
  cmd->add_flag("--json", st->json, "machine-readable output on stdout");
  add_kernel_run_flags(cmd, st->run);
  return Subcommand{cmd, [st](std::ostream& out, std::ostream&) {
                      KernelReport r = check_kernel(st->manifest, st->run.options());
                      if (st->json) out << kernel_report_to_json(r).dump(-1, ' ', false, kReplaceInvalidUtf8) << "\n";
                      else out << render_kernel_report(r);
                      return r.holds() ? kExitOk : kExitFinding;
                    }};
}

}  // namespace halo::cli

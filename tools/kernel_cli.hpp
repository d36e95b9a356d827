// The options of a kernel run, shared by `halo kernel` (tools/cmd_kernel.cpp) and `halo exo`
// (tools/cmd_exo.cpp): --native, --timeout, --max-memory, --max-steps, --keep.
#pragma once

#include "candidates/kernel/kernel.hpp"

#include <CLI/CLI.hpp>

namespace halo::cli {

struct KernelRunFlags {
  bool native = false, keep = false;
  double timeout = 60;
  uint64_t max_memory_mib = 4096;
  uint64_t max_steps = Limits{}.max_steps;
  KernelOptions options() const;
};

// Adds the flags to `cmd`; `f` must outlive the parse and the action.
void add_kernel_run_flags(CLI::App* cmd, KernelRunFlags& f);

}  // namespace halo::cli

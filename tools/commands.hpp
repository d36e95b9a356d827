// The contract between the `halo` driver (tools/cli.cpp) and the subcommands that live in
// files of their own (fuzz, comply, kernel, explain, ...): each such file adds its
// subcommand to the CLI11 app and hands back what to run when the user selects it, so a
// new command is one new file plus one line in run_cli.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <functional>
#include <string>
#include <ostream>

namespace halo::cli {

// Exit status (LANGUAGE.md): 0 success, 1 a finding, 2 bad input, 3 a resource limit,
// 4 an internal error of halo.
constexpr int kExitOk = 0, kExitFinding = 1, kExitInput = 2, kExitLimit = 3, kExitInternal = 4;
// A candidate (--target) did not run the case on some version and found nothing where it
// ran: no verdict (docs/cli.md, "Exit status").
constexpr int kExitNotRun = 5;

// Runs the selected command. Exceptions are mapped to messages and exit codes by run_cli
// (InputError → 2, ResourceLimit → 3, anything else → 4), so actions may simply throw.
using Action = std::function<int(std::ostream& out, std::ostream& err)>;

struct Subcommand {
  CLI::App* app;
  Action action;
};

// Validators for numeric flags: out-of-range values are usage errors (exit 2), never
// silently wrapped or accepted. CLI11 converts "-1" to 2^64-1 for an unsigned option, and
// accepts "nan" and "inf" for a double.
inline CLI::Validator unsigned_integer() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
          return "expects a non-negative integer, got '" + s + "'";
        return {};
      },
      "UINT");
}
// Seconds: finite, not negative, at most a year.
inline CLI::Validator seconds_value() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        char* end = nullptr;
        double d = std::strtod(s.c_str(), &end);
        if (s.empty() || *end != '\0' || !(d >= 0 && d <= 366.0 * 86400))
          return "expects a number of seconds between 0 and 31622400, got '" + s + "'";
        return {};
      },
      "SECONDS");
}
// A memory limit in MiB whose byte count fits 64 bits with room to spare (at most 2^40 MiB).
inline CLI::Validator mebibytes_value() {
  return unsigned_integer() & CLI::Range(uint64_t{0}, uint64_t{1} << 40);
}

Subcommand register_fuzz(CLI::App& app);          // tools/cmd_fuzz.cpp
Subcommand register_comply(CLI::App& app);        // tools/cmd_comply.cpp
Subcommand register_beta0_engine(CLI::App& app);  // tools/cmd_beta0_engine.cpp
Subcommand register_kernel(CLI::App& app);        // tools/cmd_kernel.cpp
Subcommand register_exo(CLI::App& app);           // tools/cmd_exo.cpp
Subcommand register_explain(CLI::App& app);       // tools/cmd_explain.cpp
Subcommand register_import(CLI::App& app);        // tools/cmd_import.cpp

}  // namespace halo::cli

// The commands the browser build leaves out (playground/wasm.cmake): fuzzing campaigns and
// `halo comply` draw their cases with RapidCheck's generators (fuzz/) and run cases in
// other processes, neither of which a page has. Each is still a subcommand, so that the
// playground answers `halo fuzz ...` with the reason and the exit status of bad input
// instead of "unknown command".
#include "support/diagnostics.hpp"
#include "tools/commands.hpp"

#include <string>

namespace halo::cli {

namespace {

Subcommand left_out(CLI::App& app, const char* name, const char* what) {
  auto* cmd = app.add_subcommand(name, what);
  cmd->allow_extras();
  std::string why = std::string("halo ") + name +
                    " is not part of the playground: its campaigns draw cases with RapidCheck and run them in other "
                    "processes, which a browser cannot start; run it with the halo executable (docs/fuzzing.md)";
  return Subcommand{cmd, [why](std::ostream&, std::ostream&) -> int { throw InputError(Diagnostic{"", {}, why}); }};
}

}  // namespace

Subcommand register_fuzz(CLI::App& app) { return left_out(app, "fuzz", "a fuzzing campaign (not in the playground)"); }
Subcommand register_comply(CLI::App& app) {
  return left_out(app, "comply", "a campaign against an external bounds engine (not in the playground)");
}

}  // namespace halo::cli

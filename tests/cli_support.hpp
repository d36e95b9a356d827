// Running the `halo` command line in-process from a test: the exit status and both
// streams, as a user at a terminal would see them.
#pragma once

#include "tools/cli.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace halo::test {

struct CliResult {
  int status;
  std::string out, err;
};

// `args` without the program name: run_halo({"check", "x.halo"}).
inline CliResult run_halo(std::vector<std::string> args) {
  args.insert(args.begin(), "halo");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  int status = run_cli(int(argv.size()), argv.data(), out, err);
  return {status, out.str(), err.str()};
}

}  // namespace halo::test

// Running the `halo` command line in-process from a test: the exit status and both
// streams, as a user at a terminal would see them.
#pragma once

#include "candidates/halide/versions.hpp"
#include "tools/cli.hpp"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace halo::test {

// A folder of a test's own files, under the system's temporary folder, removed with it:
// halo-test-AREA-NAME-PID, so that tests running at once never share one.
struct Scratch {
  std::filesystem::path dir;
  Scratch(const std::string& area, const std::string& name) {
    dir = std::filesystem::temp_directory_path() / ("halo-test-" + area + "-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  }
};

// Runs a shell command (a compiler, a reproducer); its exit status, -1 when it did not
// exit, and its output and errors together in `output`.
inline int run_command(const std::string& cmd, std::string& output) {
  output.clear();
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) output.append(buf, n);
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

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

namespace halo::test {

// `halo oracle FILE --target halide@all --json` must hold: every installed Halide ran the
// case and agreed (exit 0, one `pass` row per version). Returns the JSON for more checks.
inline nlohmann::json require_holds_on_every_halide(const std::string& file) {
  CliResult r = run_halo({"oracle", file, "--target", "halide@all", "--json"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["verdict"] == "holds");
  REQUIRE(j["matrix"].size() == halide::installed_halide_versions().size());
  for (const auto& row : j["matrix"]) CHECK(row["outcome"] == "pass");
  return j;
}

}  // namespace halo::test

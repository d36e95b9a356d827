// The reproducer back end (candidates/halide/emit_cpp.hpp) writes a program that really
// compiles against Halide.h and reproduces the oracle's verdict, with every installed Halide
// (Debian's package and the wheels from PyPI: the command line versions.hpp documents).
// Compiling Halide.h takes seconds, so exactly one reproducer is compiled per version: the
// program using every directive, with the memory check included, which must agree with the
// reference (exit 0) and say which Halide it ran.
#include "candidates/halide/halide_oracle.hpp"
#include "candidates/halide/versions.hpp"
#include "support.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/cli_support.hpp"

namespace halo {

extern const char* const kHalideAllDirectives;  // tests/test_halide.cpp

namespace {

TEST_CASE("Halide reproducer: the emitted C++ compiles, runs the same pipeline and agrees", "[halide][slow]") {
  Program p = test::parse_valid(kHalideAllDirectives, "all_directives.halo");
  Input in = resolve_input(p, {});
  halide::HalideVerdict v = halide::run_halide_case(p, in);
  REQUIRE(v.outcome == halide::HalideOutcome::Pass);
  // The memory check is included for memory findings; force it here by presenting the
  // reproducer with a memory verdict, so that its code is compiled too.
  halide::HalideVerdict as_memory = v;
  as_memory.outcome = halide::HalideOutcome::MemoryViolation;
  std::string cpp = halide::halide_reproducer(p, in, as_memory);
  REQUIRE_THAT(cpp, Catch::Contains("memcheck_trace"));

  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("halo_repro_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::path src = dir / "repro.cpp", exe = dir / "repro";
  {
    std::ofstream o(src);
    o << cpp;
  }
  REQUIRE(!halide::installed_halide_versions().empty());
  for (const halide::HalideVersion& hv : halide::installed_halide_versions()) {
    std::string out;
    std::string compile = halide::HalideVersion(hv).compile_command(src.string(), exe.string());
    compile.replace(0, 3, std::string(HALO_CXX) + " -O0 -w");  // "g++" → the build's compiler
    int cc = test::run_command(compile, out);
    INFO(compile << "\n" << out);
    REQUIRE(cc == 0);
    int rc = test::run_command(exe.string(), out);
    INFO(out);
    CHECK(rc == 0);
    CHECK_THAT(out, Catch::Contains("0 of 50 point(s) differ from halo's reference"));
    CHECK_THAT(out, !Catch::Contains("outside its realized region"));
    CHECK_THAT(out, Catch::Contains("Halide " + std::to_string(hv.major)));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace halo

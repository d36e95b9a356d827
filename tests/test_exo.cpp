// `halo exo` end to end (candidates/exo/exo_kernel.hpp): Exo 1.0 from the project's .venv
// compiles the bundled scripts for Gemmini and AVX-512 and their C holds on the simulator
// and under SIMDe; a procedure with a bug is flagged; bad scripts and bindings are located
// errors (exit 2); without exo-lang the command says what is missing. Where exo-lang is not
// installed, each test says so (WARN) and checks only the message.
#include "fuzz/exo_gen.hpp"
#include "candidates/exo/exo_kernel.hpp"
#include "tests/cli_support.hpp"
#include "tests/exo_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using halo::test::CliResult;

namespace {

CliResult run(std::vector<std::string> args) { return halo::test::run_halo(std::move(args)); }

std::string example(const std::string& name) { return std::string(HALO_SOURCE_DIR) + "/examples/exo/" + name; }

using halo::test::exo_missing;

nlohmann::json run_json(std::vector<std::string> args) {
  args.insert(args.begin(), "exo");
  args.push_back("--json");
  CliResult r = run(args);
  INFO(r.err);
  INFO(r.out);
  REQUIRE((r.status == 0 || r.status == 1));
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(r.status == (j["verdict"] == "holds" ? 0 : 1));
  return j;
}

// A scratch directory with an Exo script and a spec.
struct Scratch : halo::test::Scratch {
  explicit Scratch(const std::string& name) : halo::test::Scratch("exo", name) {}
};

const char* const kCopySpec = R"(pipeline y(n) {
  fun x(i) = { i * 3 - 7 }
  fun y(i) = { x[i] * 2 }
}
realize (n = 21) over (0, 21)
)";

std::string copy_script(const std::string& loop_bound) {
  return "from __future__ import annotations\nfrom exo import proc\n\n@proc\n"
         "def twice(n: size, x: i32[n], y: i32[n]):\n"
         "    for i in seq(0, " +
         loop_bound + "):\n        y[i] = x[i] * 2\n";
}

}  // namespace

TEST_CASE("exo: the bundled Gemmini matmul, compiled by Exo, holds on the simulator (with its tail rows)",
          "[exo][examples]") {
  REQUIRE_EXO_OR_SKIP();
  nlohmann::json j = run_json({example("gemmini_matmul.py"), "gemmini_matmul", "--spec", example("gemmini_matmul.halo")});
  CHECK(j["verdict"] == "holds");
  CHECK(j["platform"] == "gemmini");
  CHECK(j["compared"] == 41 * 32);
  CHECK(j["exo"]["version"] == "1.0.0");
  CHECK(j["memory_safe"] == true);
  REQUIRE(j["runs"].size() == 1);
  CHECK(j["runs"][0]["stats"].get<std::string>().find("instructions=") != std::string::npos);
}

TEST_CASE("exo: the bundled AVX-512 saxpy, scheduled and compiled by Exo, holds under SIMDe", "[exo][examples]") {
  REQUIRE_EXO_OR_SKIP();
  nlohmann::json j = run_json(
      {example("avx512_saxpy.py"), "saxpy", "--spec", example("avx512_saxpy.halo"), "--init", "y=y0"});
  CHECK(j["verdict"] == "holds");
  CHECK(j["platform"] == "avx512");
  CHECK(j["compared"] == 45);
  // Without --init, y (read and written) starts as zeros and the kernel's sums differ.
  nlohmann::json zeros = run_json({example("avx512_saxpy.py"), "saxpy", "--spec", example("avx512_saxpy.halo")});
  CHECK(zeros["verdict"] == "violated");
  CHECK(zeros["mismatches"].get<int>() > 0);
}

TEST_CASE("exo: a procedure that skips the last element is flagged, and sizes bind to spec parameters", "[exo]") {
  REQUIRE_EXO_OR_SKIP();
  Scratch s("off-by-one");
  std::string spec = s.write("twice.halo", kCopySpec);
  nlohmann::json ok = run_json({s.write("ok.py", copy_script("n")), "twice", "--spec", spec});
  CHECK(ok["verdict"] == "holds");
  CHECK(ok["platform"] == "c");
  CHECK(ok["compared"] == 21);
  nlohmann::json bad = run_json({s.write("bad.py", copy_script("n - 1")), "twice", "--spec", spec});
  CHECK(bad["verdict"] == "violated");
  CHECK(bad["mismatches"] == 1);
  CHECK(bad["first_mismatch"]["index"] == nlohmann::json::array({20}));
  // --param changes the size the spec and (through n) the kernel use.
  nlohmann::json small = run_json({s.write("ok2.py", copy_script("n")), "twice", "--spec", spec, "--param", "n=5"});
  CHECK(small["compared"] == 5);
}

TEST_CASE("exo: roles come from the unscheduled procedure, so a rewrite that loses a write is a finding",
          "[exo][roles]") {
  REQUIRE_EXO_OR_SKIP();
  Scratch s("roles");
  std::string spec = s.write("twice.halo", kCopySpec);
  // A scheduled procedure whose body lost the only write to y, derived from `twice` as a
  // buggy primitive would derive it (Exo records the input of each rewrite as provenance).
  std::string lost = s.write(
      "lost.py", copy_script("n") +
                     "\nfrom exo.API import Procedure\nfrom exo.core.LoopIR import LoopIR\n"
                     "ir = twice._loopir_proc\n"
                     "lost = Procedure(ir.update(body=[LoopIR.Pass(ir.srcinfo)]), _provenance_eq_Procedure=twice)\n");
  nlohmann::json j = run_json({lost, "lost", "--spec", spec});
  // before, y was taken for an input (the scheduled code only "reads" it) and this held
  CHECK(j["verdict"] == "violated");
  CHECK(j["mismatches"] == 21);
  bool said = false;
  for (const auto& d : j["exo"]["role_differences"])
    said |= d.get<std::string>().rfind("y: written by the specification, not used by the scheduled procedure", 0) == 0;
  CHECK(said);
  // a sound schedule changes no role
  std::string split = s.write("split.py", copy_script("n") +
                                              "\nfrom exo.stdlib.scheduling import divide_loop\n"
                                              "split = divide_loop(twice, 'i', 4, ['io', 'ii'], tail='cut')\n");
  nlohmann::json ok = run_json({split, "split", "--spec", spec});
  CHECK(ok["verdict"] == "holds");
  CHECK(ok["exo"]["role_differences"].empty());
}

TEST_CASE("exo: a write lost through Exo's own API (call_eqv with a claimed equivalence) is a finding, noted in the text",
          "[exo][roles]") {
  REQUIRE_EXO_OR_SKIP();
  Scratch s("roles-call-eqv");
  std::string spec = s.write("twice.halo", kCopySpec);
  // unsafe_assert_eq claims a procedure that does nothing equivalent to the one that writes
  // y; call_eqv then swaps the call and records `twice` as the result's provenance.
  std::string script = s.write("swap.py", R"py(from __future__ import annotations
from exo import proc
from exo.API_scheduling import call_eqv

@proc
def store_twice(n: size, x: i32[n], y: i32[n]):
    for i in seq(0, n):
        y[i] = x[i] * 2

@proc
def store_nothing(n: size, x: i32[n], y: i32[n]):
    pass

store_nothing.unsafe_assert_eq(store_twice)

@proc
def twice(n: size, x: i32[n], y: i32[n]):
    store_twice(n, x, y)

swapped = call_eqv(twice, "store_twice(_)", store_nothing)
)py");
  nlohmann::json j = run_json({script, "swapped", "--spec", spec});
  CHECK(j["verdict"] == "violated");
  CHECK(j["mismatches"] == 21);
  // tensors only: n and x are no longer read either, which decides nothing
  REQUIRE(j["exo"]["role_differences"].size() == 2);
  CHECK(j["exo"]["role_differences"][1] == "y: written by the specification, not used by the scheduled procedure");
  CliResult text = run({"exo", script, "swapped", "--spec", spec});
  CHECK(text.status == 1);
  CHECK(text.out.find("note: roles are the unscheduled procedure's; y: written by the specification, not used by "
                      "the scheduled procedure") != std::string::npos);
  CHECK(text.out.find("n: read by") == std::string::npos);
  // the unscheduled procedure is its own specification: no note, and it holds
  CliResult own = run({"exo", script, "twice", "--spec", spec});
  CHECK(own.status == 0);
  CHECK(own.out.find("note:") == std::string::npos);
}

TEST_CASE("exo: the manifest binds each tensor by the specification's role, not the scheduled code's", "[exo][roles]") {
  Scratch s("roles-manifest");
  std::string spec = s.write("twice.halo", kCopySpec);
  nlohmann::json sig = nlohmann::json::parse(R"({"function": "twice", "source": "twice.c", "platform": "c", "args": [
    {"name": "n", "kind": "size", "ctype": "int_fast32_t", "read": true, "written": false},
    {"name": "x", "kind": "tensor", "type": "i32", "ctype": "int32_t", "shape": ["n"], "read": true, "written": false,
     "scheduled_read": false, "scheduled_written": false},
    {"name": "y", "kind": "tensor", "type": "i32", "ctype": "int32_t", "shape": ["n"], "read": false, "written": true,
     "scheduled_read": true, "scheduled_written": false}]})");
  halo::ExoBinding b;
  b.spec = spec;
  nlohmann::json m = halo::exo_kernel_manifest(sig, s.write("twice.c", ""), b, "test");
  REQUIRE(m["args"].size() == 4);  // the context first
  CHECK(m["args"][2]["kind"] == "input");
  CHECK(m["args"][3]["kind"] == "output");  // the scheduled code only reads y: still compared
}

TEST_CASE("exo: C that Exo emits and the C compiler rejects is a compile-error finding (exit 1)", "[exo][findings]") {
  REQUIRE_EXO_OR_SKIP();
  // docs/findings/exo: Exo 1.0.0 writes a float literal into an array subscript.
  std::string base = std::string(HALO_SOURCE_DIR) + "/docs/findings/exo/exo1-float-index-after-nested-divide";
  nlohmann::json j = run_json({base + ".py", "scheduled", "--spec", base + ".halo", "--init", "C=poison"});
  CHECK(j["verdict"] == "violated");
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0]["kind"] == "compile-error");
  CHECK(j["findings"][0]["message"].get<std::string>().find("array subscript is not an integer") != std::string::npos);
}

TEST_CASE("exo: bad scripts and bindings are errors with exit status 2", "[exo][errors]") {
  REQUIRE_EXO_OR_SKIP();
  Scratch s("errors");
  std::string spec = s.write("twice.halo", kCopySpec);
  std::string script = s.write("ok.py", copy_script("n"));
  CliResult no_proc = run({"exo", script, "nothing", "--spec", spec});
  CHECK(no_proc.status == 2);
  CHECK(no_proc.err.find("defines no module-level name 'nothing'") != std::string::npos);
  CliResult raises = run({"exo", s.write("raises.py", "raise RuntimeError('boom')\n"), "twice", "--spec", spec});
  CHECK(raises.status == 2);
  CHECK(raises.err.find("boom") != std::string::npos);
  CliResult unknown_arg = run({"exo", script, "twice", "--spec", spec, "--arg", "m=3"});
  CHECK(unknown_arg.status == 2);
  CHECK(unknown_arg.err.find("has no argument 'm'") != std::string::npos);
  CliResult no_func = run({"exo", script, "twice", "--spec", spec, "--func", "y=z"});
  CHECK(no_func.status == 2);
  CHECK(no_func.err.find("there is no func 'z'") != std::string::npos);
  CliResult malformed = run({"exo", script, "twice", "--spec", spec, "--arg", "n"});
  CHECK(malformed.status == 2);
  CHECK(malformed.err.find("NAME=VALUE") != std::string::npos);
}

TEST_CASE("exo: without exo-lang the command says what is missing (exit 2)", "[exo][errors]") {
  Scratch s("missing");
  std::string spec = s.write("twice.halo", kCopySpec);
  std::string script = s.write("ok.py", copy_script("n"));
  const char* old = std::getenv("HALO_EXO_PYTHON");
  std::string saved = old ? old : "";
  ::setenv("HALO_EXO_PYTHON", (s.dir / "no-such-python").c_str(), 1);
  CliResult r = run({"exo", script, "twice", "--spec", spec});
  if (old) ::setenv("HALO_EXO_PYTHON", saved.c_str(), 1);
  else ::unsetenv("HALO_EXO_PYTHON");
  CHECK(r.status == 2);
  CHECK(r.err.find("exo-lang is not installed") != std::string::npos);
  CHECK(r.err.find("scripts/setup.sh") != std::string::npos);
}

TEST_CASE("exo: the gemmini-replace family turns a plain matmul into Gemmini instructions with Exo's own replace",
          "[exo][fuzz]") {
  REQUIRE_EXO_OR_SKIP();
  // The first case of the family the generator draws for seed 4 (a tail of N % 16 rows).
  halo::fuzz::ExoKernelCase c;
  for (uint64_t i = 0; c.family != halo::fuzz::ExoFamily::GemminiReplace; ++i) {
    std::mt19937_64 rng(4 * 0x9E3779B97F4A7C15ull + i);
    c = halo::fuzz::generate_exo_case(rng, 4);
  }
  Scratch s("gemmini-replace");
  std::string script = s.write("case.py", halo::fuzz::exo_case_script(c));
  std::string spec = s.write("case.halo", halo::fuzz::exo_case_spec(c));
  for (const char* n : {"18", "16"}) {  // with a partial tile, and with none (N % 16 = 0)
    INFO("N = " << n);
    nlohmann::json j = run_json({script, "scheduled", "--spec", spec, "--init", "C=poison", "--param",
                                 std::string("N=") + n});
    CHECK(j["verdict"] == "holds");
    CHECK(j["platform"] == "gemmini");  // every replace applied: the kernel runs on the simulator
  }
}

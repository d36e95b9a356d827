// `halo kernel` end to end (candidates/kernel/kernel.hpp): the bundled kernels hold and each broken
// variant is flagged for what is wrong with it; crashes and hangs of a kernel are
// classified findings; malformed manifests get located errors. Each case compiles a kernel
// with the system C compiler, so the cases are few.
#include "candidates/kernel/kernel.hpp"
#include "tests/cli_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace halo;
namespace fs = std::filesystem;

namespace {
using test::CliResult;
CliResult run(std::vector<std::string> args) { return test::run_halo(std::move(args)); }

std::string kernel_example(const std::string& name) {
  return std::string(HALO_SOURCE_DIR) + "/examples/kernels/" + name + ".json";
}

nlohmann::json run_json(const std::string& manifest, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"kernel", manifest, "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  CliResult r = run(args);
  INFO(r.err);
  INFO(r.out);
  REQUIRE((r.status == 0 || r.status == 1));
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(r.status == (j["verdict"] == "holds" ? 0 : 1));
  return j;
}

bool any_finding(const nlohmann::json& j, const std::string& kind, const std::string& text) {
  for (const auto& f : j["findings"])
    if (f["kind"] == kind && f["message"].get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// A directory with a spec and a manifest for a one-line C kernel, for the failure cases.
struct Scratch : test::Scratch {
  explicit Scratch(const std::string& name) : test::Scratch("kernel", name) {
    write("spec.halo", "pipeline out(n) {\n  fun x(i) = { i * 3 - 7 }\n  fun out(i) = { x[i] * 2 }\n}\n"
                       "realize (n = 8) over (0, 8)\n");
  }
  std::string manifest(const std::string& body_of_kernel, const std::string& args_override = "") const {
    write("k.c", "#include <stdint.h>\nvoid k(const int32_t* x, int32_t* out) {\n" + body_of_kernel + "\n}\n");
    std::string args = args_override.empty()
                           ? R"([{"kind": "input", "type": "int32_t", "shape": ["n"], "func": "x"},
      {"kind": "output", "type": "int32_t", "shape": [8], "func": "out"}])"
                           : args_override;
    return write("k.json", R"({"platform": "c", "sources": ["k.c"], "function": "k", "spec": "spec.halo",
  "params": {"n": 8},
  "args": )" + args + "}\n");
  }
};
}  // namespace

TEST_CASE("kernel: the Gemmini matmul holds, its tile off by one and its stale configuration are flagged",
          "[kernel][examples]") {
  nlohmann::json ok = run_json(kernel_example("gemmini_matmul"));
  CHECK(ok["verdict"] == "holds");
  CHECK(ok["mismatches"] == 0);
  CHECK(ok["compared"] == 50 * 40);
  CHECK(ok["memory_safe"] == true);
  CHECK(ok["findings"].empty());

  nlohmann::json off = run_json(kernel_example("gemmini_matmul_tile_off_by_one"));
  CHECK(off["verdict"] == "violated");
  CHECK(off["mismatches"] == 40);  // the last row of C, never written
  CHECK(off["first_mismatch"]["arg"] == "C");
  CHECK(off["first_mismatch"]["index"] == nlohmann::json::array({49, 0}));
  CHECK(off["memory_safe"] == true);

  nlohmann::json stale = run_json(kernel_example("gemmini_matmul_stale_config"));
  CHECK(stale["verdict"] == "violated");
  CHECK(stale["mismatches"].get<int>() > 0);
  CHECK(stale["memory_safe"] == true);
}

TEST_CASE("kernel: the Gemmini convolution holds, with a wrong stride it mismatches and reads past its input",
          "[kernel][examples]") {
  nlohmann::json ok = run_json(kernel_example("gemmini_conv"));
  CHECK(ok["verdict"] == "holds");
  CHECK(ok["compared"] == 8 * 17 * 24);

  nlohmann::json bad = run_json(kernel_example("gemmini_conv_wrong_stride"));
  CHECK(bad["verdict"] == "violated");
  CHECK(bad["mismatches"].get<int>() > 0);
  CHECK(bad["memory_safe"] == false);
  CHECK(any_finding(bad, "gemmini-memory", "mvin (funct 2, rs1=0x"));
  CHECK(any_finding(bad, "gemmini-memory", "past the end of input inp (int8_t[10][19][20])"));
}

TEST_CASE("kernel: the AVX-512 SGEMM micro-kernel holds (natively too where the host has AVX-512F), its "
          "out-of-bounds masked load is caught",
          "[kernel][examples]") {
  nlohmann::json ok = run_json(kernel_example("avx512_sgemm"), {"--native"});
  CHECK(ok["verdict"] == "holds");
  CHECK(ok["compared"] == 6 * 40);
  CHECK(ok["native"]["ran"] == host_has_avx512f());
  CHECK(ok["native"]["agrees"] == true);

  nlohmann::json bad = run_json(kernel_example("avx512_sgemm_oob_mask"));
  CHECK(bad["verdict"] == "violated");
  CHECK(bad["mismatches"] == 0);  // the extra lane is never stored
  CHECK(bad["memory_safe"] == false);
  CHECK(any_finding(bad, "asan", "0 bytes past the end of input B (float[20][40])"));
  CHECK(any_finding(bad, "asan", "avx512_sgemm_oob_mask.c:"));
}

TEST_CASE("kernel: a typed spec computes in the buffers' types, and must have them", "[kernel][types]") {
  Scratch s("typed");
  // The kernel computes out = x * 2 in int8_t, where 100 * 2 wraps to -56; the typed spec
  // says the same (i8 * 2 wraps), while an untyped one would say 200.
  s.write("spec.halo", "pipeline out(n) {\n  fun x(i) : i8 = { i8(i * 25) }\n  fun out(i) : i8 = { x[i] * 2 }\n}\n"
                       "realize (n = 8) over (0, 8)\n");
  s.write("k.c", "#include <stdint.h>\nvoid k(const int8_t* x, int8_t* out) {\n"
                 "  for (int i = 0; i < 8; ++i) out[i] = (int8_t)(x[i] * 2);\n}\n");
  const std::string args = R"([{"kind": "input", "type": "int8_t", "shape": ["n"], "func": "x"},
      {"kind": "output", "type": "int8_t", "shape": [8], "func": "out"}])";
  std::string m = s.write("k.json", R"({"platform": "c", "sources": ["k.c"], "function": "k", "spec": "spec.halo",
  "params": {"n": 8}, "args": )" + args + "}");
  nlohmann::json ok = run_json(m);
  CHECK(ok["verdict"] == "holds");
  CHECK(ok["compared"] == 8);
  // A func whose type is not its buffer's: a located error naming both.
  s.write("spec.halo", "pipeline out(n) {\n  fun x(i) : i16 = { i16(i * 25) }\n  fun out(i) : i8 = { i8(x[i] * 2) }\n}\n"
                       "realize (n = 8) over (0, 8)\n");
  CliResult bad = run({"kernel", m});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("k.json:2:") &&
                          Catch::Contains("func 'x' of the typed spec") && Catch::Contains("has type i16, but the buffer x "
                                                                                            "holds int8_t (write fun x(...) : i8)"));
}

TEST_CASE("kernel: a crashing or hanging kernel is a classified finding, not a failure of halo", "[kernel]") {
  Scratch s("crash");
  nlohmann::json ok = run_json(s.manifest("for (int i = 0; i < 8; ++i) out[i] = x[i] * 2;"));
  CHECK(ok["verdict"] == "holds");

  nlohmann::json oob = run_json(s.manifest("for (int i = 0; i <= 8; ++i) out[i] = x[i] * 2;"));
  CHECK(oob["verdict"] == "violated");
  CHECK(oob["memory_safe"] == false);
  CHECK(any_finding(oob, "asan", "0 bytes past the end of input x (int32_t[8])"));

  nlohmann::json segv = run_json(s.manifest("*(volatile int*)16 = 1; (void)x; (void)out;"));
  CHECK(segv["verdict"] == "violated");
  CHECK(segv["memory_safe"] == false);
  CHECK(segv["runs"][0]["completed"] == false);
  CHECK(any_finding(segv, "asan", "SEGV"));

  // --timeout also bounds the compile (exit 3 when reached): 10 s leaves a loaded machine's
  // compile room, where 1 s did not.
  nlohmann::json hang = run_json(s.manifest("for (volatile int i = 0; i >= 0; i = i * 0 + 1) {} (void)x; (void)out;"),
                                 {"--timeout", "10"});
  CHECK(hang["verdict"] == "violated");
  CHECK(hang["memory_safe"] == true);
  CHECK(any_finding(hang, "hang", "did not finish within 10 s"));
}

TEST_CASE("kernel: malformed manifests and specs the buffers cannot hold get located errors (exit 2)",
          "[kernel]") {
  Scratch s("errors");
  // LINE:COL of the first occurrence of `needle` in the file.
  auto loc_of = [](const std::string& file, const std::string& needle) {
    std::ifstream in(file);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    size_t at = text.find(needle);
    REQUIRE(at != std::string::npos);
    int line = 1, col = 1;
    for (size_t i = 0; i < at; ++i) {
      if (text[i] == '\n') ++line, col = 1;
      else ++col;
    }
    return std::to_string(line) + ":" + std::to_string(col);
  };
  auto expect = [&](const std::string& manifest, const std::string& where, const std::string& message) {
    CliResult r = run({"kernel", manifest});
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.rfind(manifest + ":" + where + ": error: ", 0) == 0);
    CHECK_THAT(r.err, Catch::Contains(message));
  };
  std::string m = s.write("syntax.json", "{\n  \"platform\": \"c\",\n  \"sources\": [\"k.c\"\n}\n");
  expect(m, "4:1", "not valid JSON");
  m = s.manifest("", R"([{"kind": "input", "type": "int9_t", "shape": ["n"], "func": "x"}])");
  expect(m, loc_of(m, "\"int9_t\""), "element type");
  m = s.manifest("", R"([{"kind": "input", "type": "int32_t", "shape": ["n"], "func": "nope"}])");
  expect(m, loc_of(m, "\"nope\""), "has no func 'nope'");
  m = s.manifest("", R"([{"kind": "input", "type": "int32_t", "shape": ["n", 2], "func": "x"}])");
  expect(m, loc_of(m, "\"x\""), "func 'x' has 1 dimension(s) but the buffer's shape has 2");
  m = s.manifest("", R"([{"kind": "input", "type": "uint8_t", "shape": ["m"], "func": "x"}])");
  expect(m, loc_of(m, "\"m\""), "the spec has no parameter 'm'");
  m = s.manifest("", R"([{"kind": "input", "type": "uint8_t", "shape": [8], "func": "x", "colour": 1}])");
  expect(m, loc_of(m, "1}"), "unknown key \"colour\"");
  m = s.manifest("", R"([{"kind": "input", "type": "uint8_t", "shape": [8], "func": "x"}])");
  expect(m, loc_of(m, "\"x\""), "x[0] of input x (uint8_t[8]): -7 does not fit uint8_t");
  m = s.manifest("", R"([{"kind": "scalar", "type": "int8_t", "value": 300, "name": "n8"}])");
  expect(m, loc_of(m, "{\"kind\": \"scalar\""), "the value of n8: 300 does not fit int8_t");
  // Nesting deeper than any manifest needs is refused, not followed down the stack.
  m = s.write("deep.json", "{\"comment\": " + std::string(100000, '[') + std::string(100000, ']') + "}\n");
  expect(m, "1:" + std::to_string(12 + 65), "nested deeper than 64 levels");  // the 65th bracket
  m = s.manifest("}", "");  // a kernel that does not compile
  expect(m, "1:1", "the kernel does not compile");
  // The reference evaluation under a step limit: exit 3, before anything is compiled.
  CliResult r = run({"kernel", kernel_example("gemmini_matmul"), "--max-steps", "100"});
  CHECK(r.status == 3);
  CHECK_THAT(r.err, Catch::Contains("stopped"));
}

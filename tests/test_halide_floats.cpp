// Float pipelines against every installed Halide (docs/floats.md, "Against Halide"): the
// readings halo took where Halide's documentation is silent (min and max of NaN, != of NaN,
// the saturating casts of NaN, round's ties, % of floats, the sign of abs(-0)) agree with
// Halide 14, 19 and 21 compiled under strict_float, bit for bit; the float examples shaped
// like Halide's apps hold on every version; and a float reproducer compiles, compares bits
// and prints a differing point in decimal and in hex.
#include "candidates/halide/emit_cpp.hpp"
#include "candidates/halide/halide_oracle.hpp"
#include "candidates/halide/plan.hpp"
#include "candidates/halide/versions.hpp"
#include "interp/fast_eval.hpp"
#include "interp/input.hpp"

#include "tests/cli_support.hpp"
#include "tests/support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace halo;

namespace {

const std::string kDir = std::string(HALO_SOURCE_DIR) + "/examples/floats/";

// The verdict of every installed Halide on a one-func program over x in (0, n), where
// x = 0 is a NaN (0 / 0), x = 1 is -0 (-0 * 1) and larger x are x - 2.5.
void every_halide_agrees(const std::string& expr, int n = 6) {
  std::string src = fmt::format(R"(pipeline f() {{
  fun v(x) = {{ select(x == 0, f32(x) / f32(x), x == 1, -0.0f * f32(x), f32(x) - 2.5f) }}
  fun f(x) = {{ {} }}
}}
realize () over (0, {})
)",
                                expr, n);
  Program p = test::parse_valid(src);
  Input in = resolve_input(p, {});
  REQUIRE(!halide::installed_halide_versions().empty());
  for (const auto& hv : halide::installed_halide_versions()) {
    halide::HalideOptions o;
    o.version = hv.major;
    halide::HalideVerdict v = halide::run_halide_case(p, in, o);
    INFO(expr << " on Halide " << hv.version << ": " << halide::describe_halide_verdict(v));
    CHECK(v.outcome == halide::HalideOutcome::Pass);
    CHECK_THAT(v.halide_target, Catch::Contains("strict_float"));
  }
}

}  // namespace

TEST_CASE("Halide floats: halo's readings of NaN, signed zeros and ties agree with every Halide",
          "[floats][halide]") {
  for (const char* e : {"min(v[x], 1.0f)", "min(1.0f, v[x])", "max(v[x], -1.0f)", "max(-1.0f, v[x])",
                        "f32(v[x] != 1.0f)", "f32(v[x] == v[x])", "f32(v[x] < 1.0f)", "f32(!(v[x] < 1.0f))",
                        "f32(saturating_cast<u8>(v[x] * 100.0f))", "f32(saturating_cast<i32>(v[x] * 1e10f))",
                        "round(v[x] + 0.5f)", "floor(v[x]) + ceil(v[x]) + trunc(v[x])", "v[x] % 0.75f",
                        "(-v[x]) % -1.25f", "abs(v[x])", "absd(v[x], 1.0f)", "sqrt(v[x])", "-v[x]",
                        "v[x] / (v[x] - v[x])", "f32(is_nan(v[x])) + f32(is_inf(1.0f / v[x])) * 2.0f",
                        "f32(f64(v[x]) * f64(0.1))", "lerp(v[x], 10.0f, 0.25f)", "f32(lerp(u8(7), u8(200), v[x] * 0.0f + 0.5f))",
                        "reinterpret<f32>(reinterpret<u32>(abs(v[x]) + 1.0f) + u32(1))",
                        "f32(i32(clamp(v[x] * 1000.0f, -1e9f, 1e9f)))"})
    every_halide_agrees(e);
}

TEST_CASE("Halide floats: the float examples shaped like Halide's apps hold on every installed Halide",
          "[floats][halide][cli]") {
  for (const char* name : {"gamma_lut", "harris", "bilateral_grid", "local_laplacian", "color_correct"}) {
    test::CliResult r = test::run_halo({"oracle", kDir + name + ".halo", "--target", "halide@all", "--json"});
    INFO(name << "\n" << r.out << r.err);
    REQUIRE(r.status == 0);
    auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["matrix"].size() == halide::installed_halide_versions().size());
    for (const auto& row : j["matrix"]) {
      INFO(row.dump());
      CHECK(row["outcome"] == "pass");
    }
    CHECK(j["verdict"] == "holds");
    // halo's own pipeline on the same example: both theorems.
    test::CliResult own = test::run_halo({"oracle", kDir + name + ".halo"});
    INFO(own.out << own.err);
    CHECK(own.status == 0);
    // β0 knows nothing of a func value, so the pyramid's clamp(i32(gray * 7.0f), 0, 6) of the
    // local Laplacian is unbounded to it (fig. 2.10b's min of an unbounded operand); β1's
    // half-bounded intervals complete it, and every other example.
    if (std::string(name) != "local_laplacian") CHECK_THAT(own.out, !Catch::Contains("vacuous"));
    test::CliResult beta1 = test::run_halo({"oracle", kDir + name + ".halo", "--engine", "beta1"});
    INFO(beta1.out << beta1.err);
    CHECK(beta1.status == 0);
    CHECK_THAT(beta1.out, !Catch::Contains("vacuous"));
  }
}

TEST_CASE("Halide floats: a float reproducer compiles, compares bits and prints decimal and hex",
          "[floats][halide][slow]") {
  Program p = test::parse_valid(R"(pipeline f() {
  fun f(x) = { f32(x) * 0.1f - 0.25f }
}
realize () over (0, 4)
)");
  Input in = resolve_input(p, {});
  auto plan = halide::translate_to_halide(p, in);
  REQUIRE(std::holds_alternative<halide::HalidePlan>(plan));
  OutputBuffer expected = evaluate_fast(p.pipeline, in, Limits{});
  // One expected value off by its last bit, one sign of zero flipped: both must be reported.
  expected.values[1] = Value::f32(std::nextafter(expected.values[1].as_float(), 1.0f));
  expected.values[0] = Value::f32(0.25f);
  std::string cpp = halide::emit_reproducer_cpp(std::get<halide::HalidePlan>(plan), expected, {});
  CHECK_THAT(cpp, Catch::Contains("Target::StrictFloat") && Catch::Contains("0.1f") && Catch::Contains("std::memcmp"));
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("halo_float_repro_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::path src = dir / "repro.cpp", exe = dir / "repro";
  std::ofstream(src) << cpp;
  const halide::HalideVersion& hv = halide::installed_halide_versions().front();
  std::string out;
  std::string compile = halide::HalideVersion(hv).compile_command(src.string(), exe.string());
  compile.replace(0, 3, std::string(HALO_CXX) + " -O0 -w");
  int cc = test::run_command(compile, out);
  INFO(compile << "\n" << out);
  REQUIRE(cc == 0);
  int rc = test::run_command(exe.string(), out);
  INFO(out);
  CHECK(rc == 1);
  CHECK_THAT(out, Catch::Contains("f(0) = -0.25 (-0x1p-2), expected 0.25 (0x1p-2)"));
  CHECK_THAT(out, Catch::Contains("f(1) = -0.150000006 ("));
  CHECK_THAT(out, Catch::Contains("2 of 4 point(s) differ"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("Halide floats: the relaxed float mode compiles without strict_float and says so", "[floats][halide][cli]") {
  // Halide's default float semantics reassociates (a + 1e8f) - 1e8f into a: beyond any
  // rounding tolerance, so relaxed mode reports it, while strict mode (strict_float) holds.
  std::string dir = std::filesystem::temp_directory_path() / ("halo_relaxed_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string big = dir + "/big.halo", small = dir + "/small.halo";
  std::ofstream(big) << "pipeline f() {\n  fun f(x) = { (f32(x) * 0.1f + 1e8f) - 1e8f }\n}\nrealize () over (0, 4)\n";
  std::ofstream(small) << "pipeline f() {\n  fun f(x) = { (f32(x) * 0.1f + 1.0f) - 1.0f }\n}\nrealize () over (0, 4)\n";
  test::CliResult strict = test::run_halo({"oracle", big, "--target", "halide"});
  INFO(strict.out << strict.err);
  CHECK(strict.status == 0);
  CHECK_THAT(strict.out, Catch::Contains("float mode strict: compiled with strict_float"));
  test::CliResult relaxed = test::run_halo({"oracle", big, "--target", "halide", "--float-mode", "relaxed"});
  INFO(relaxed.out << relaxed.err);
  CHECK(relaxed.status == 1);
  CHECK_THAT(relaxed.out, Catch::Contains("float mode relaxed: compiled without strict_float"));
  CHECK_THAT(relaxed.out, !Catch::Contains("strict_float)"));
  test::CliResult within = test::run_halo({"oracle", small, "--target", "halide", "--float-mode", "relaxed"});
  INFO(within.out << within.err);
  CHECK(within.status == 0);
  // The flag needs a Halide target.
  CHECK(test::run_halo({"oracle", small, "--float-mode", "relaxed"}).status == 2);
  std::filesystem::remove_all(dir);
}

TEST_CASE("floats: reports show shortest decimals, and hex beside them on demand", "[floats][cli]") {
  std::string dir = std::filesystem::temp_directory_path() / ("halo_hex_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string file = dir + "/f.halo";
  std::ofstream(file) << "pipeline f() {\n  fun f(x) = { f32(x) * 0.1f }\n}\nrealize () over (0, 2)\n";
  test::CliResult plain = test::run_halo({"eval", file});
  CHECK(plain.status == 0);
  CHECK_THAT(plain.out, Catch::Contains(" 0.1") && !Catch::Contains("0x1.99999ap-4"));
  test::CliResult hex = test::run_halo({"eval", file, "--hex-floats"});
  CHECK(hex.status == 0);
  CHECK_THAT(hex.out, Catch::Contains("0.1 (0x1.99999ap-4)"));
  test::CliResult json = test::run_halo({"eval", file, "--json"});
  CHECK_THAT(json.out, Catch::Contains("\"values\":[0.0,0.1]"));
  std::filesystem::remove_all(dir);
}

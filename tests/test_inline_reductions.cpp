// Halide's inline reductions (sum, product, maximum, minimum over an rdom): each is lifted
// into a func of its own as Halide's InlineReductions.cpp does, with its identity in the
// type of the reduced expression; the values are the folds, and Halide computes the same.
#include "candidates/halide/halide_oracle.hpp"
#include "candidates/halide/versions.hpp"
#include "interp/fast_eval.hpp"
#include "support.hpp"

namespace halo {

TEST_CASE("inline reductions: lifted funcs compute the folds, typed as the reduced expression", "[inline-reductions]") {
  Program p = test::parse_valid(R"(pipeline out() {
  fun g(x) : u8 = { u8(x * 7) }
  fun out(x) : u16 = { sum(rdom(r = (0, 3)) in u16(g[x + r])) + maximum(rdom(s = (-1, 3)) in g[x + s]) + minimum(rdom(t = (0, 0)) in g[x + t]) }
}
realize () over (0, 4))");
  // The lifted funcs come before their user, named after it.
  REQUIRE(p.pipeline.funcs.size() == 5);
  CHECK(p.pipeline.funcs[1].name.text == "out_sum");
  CHECK(p.pipeline.funcs[2].name.text == "out_maximum");
  CHECK(p.pipeline.funcs[3].name.text == "out_minimum");
  CHECK(p.pipeline.funcs[1].type == Type::uint(16));
  CHECK(p.pipeline.funcs[2].type == Type::uint(8));
  // minimum over an empty rdom is its identity, the greatest u8.
  OutputBuffer out = evaluate_fast(p.pipeline, resolve_input(p, {}), Limits{});
  for (int x = 0; x < 4; ++x) {
    int sum = 0, mx = 0;
    for (int r = 0; r < 3; ++r) sum += uint8_t((x + r) * 7);
    for (int s = -1; s < 2; ++s) mx = std::max(mx, int(uint8_t((x + s) * 7)));
    INFO("x = " << x);
    CHECK(out.values[size_t(x)] == Value(int64_t(uint16_t(sum + mx + 255))));
  }
  // It prints as the funcs it is, and reads back as the same program.
  CHECK(same_program(p, test::parse_valid(print_program(p))));
  for (const auto& hv : halide::installed_halide_versions()) {
    halide::HalideOptions o;
    o.version = hv.major;
    halide::HalideVerdict v = halide::run_halide_case(p, resolve_input(p, {}), o);
    INFO(hv.version << ": " << halide::describe_halide_verdict(v));
    CHECK(v.outcome == halide::HalideOutcome::Pass);
  }
}

TEST_CASE("inline reductions: an untyped program folds in ℤ from Int(32)'s identities", "[inline-reductions]") {
  Program p = test::parse_valid(R"(pipeline out(n) {
  fun out(x) = { product(rdom(r = (1, n)) in x + r) + sum(rdom(r = (0, n)) in r) }
}
realize (n = 3) over (0, 3))");
  CHECK_FALSE(p.pipeline.typed);
  OutputBuffer out = evaluate_fast(p.pipeline, resolve_input(p, {}), Limits{});
  for (int x = 0; x < 3; ++x) CHECK(out.values[size_t(x)] == Value(int64_t((x + 1) * (x + 2) * (x + 3) + 3)));
  test::require_error([](const std::string& s) { check_program(parse_program(s, "<test>")); },
                      "pipeline out() {\n  fun out(x) = { sum(rdom(r = (0, 2)) in x + r }\n}", "<test>", "2:48",
                      "expected ')'");
}

}  // namespace halo

// The fast evaluator computes typed stages a row of points at a time (interp/fast_eval.cpp,
// typed_lanes through eval_batch). Rows of generated typed programs rarely sit on a type's
// edges, so this property builds them there: operands sweep through 0, -1, the type's
// minimum and maximum and their wraps across rows longer than a batch of lanes, with some
// points Int(32)-undefined so that rows are abandoned mid-way; every point must equal what
// the derivation evaluator computes.
#include "interp/derivation.hpp"
#include "interp/fast_eval.hpp"
#include "semantics/parser.hpp"
#include "semantics/validity.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <rapidcheck/catch.h>

#include <algorithm>

using namespace halo;

namespace {

// An operand of type t along a row: t(x * k + y * 3 + c) in Int(32), which wraps into t and
// is ε_undef where the Int(32) arithmetic overflows.
rc::Gen<std::string> gen_operand(const std::string& t) {
  static const std::vector<int64_t> ks = {1, -1, 3, 255, 257, 32767, 65537, 1 << 24};
  static const std::vector<int64_t> cs = {0,     -1,     1,      127,    128,        255,        256,
                                          32767, 32768,  -32768, 65535,  -2147483647, 2147483647,
                                          -2147483600, 2147483600, 1 << 30, -(1 << 30)};
  return rc::gen::apply(
      [t](int64_t k, int64_t c) { return fmt::format("{}(x * {} + y * 3 + {})", t, k, c); },
      rc::gen::elementOf(ks), rc::gen::elementOf(cs));
}

// One operator of a typed program applied to a[..] and b[..], both of type t.
rc::Gen<std::string> gen_stage(const std::string& t) {
  static const std::vector<std::string> forms = {
      "A + B", "A - B", "A * B", "A / B", "A % B", "-A", "min(A, B)", "max(A, B)", "A < B", "A == B",
      "A & B", "A | B", "A ^ B", "~A", "absd(A, B)", "abs(A)", "widening_add(A, B)", "widening_sub(A, B)",
      "widening_mul(A, B)", "saturating_add(A, B)", "saturating_sub(A, B)", "halving_add(A, B)",
      "halving_sub(A, B)", "rounding_halving_add(A, B)", "popcount(A)", "count_leading_zeros(A)",
      "count_trailing_zeros(A)", "select(A < B, A, B)", "u8(A)", "i8(A)", "u16(A)", "i16(A)", "i32(A)",
      "u32(A)", "saturating_cast<u8>(A)", "saturating_cast<i8>(A)", "saturating_cast<i16>(A)",
      "saturating_cast<u16>(A)", "saturating_cast<i32>(A)", "A + B * A - B"};
  return rc::gen::map(rc::gen::elementOf(forms), [t](std::string f) {
    auto put = [&](const std::string& from, const std::string& to) {
      for (size_t i; (i = f.find(from)) != std::string::npos;) f.replace(i, from.size(), to);
    };
    put("A", "a[x, y]");
    put("B", "b[x + 1, y]");
    return f;
  });
}

}  // namespace

TEST_CASE("property: typed rows at the edges of each type equal the derivation", "[fast][types][property]") {
  rc::prop("evaluate_fast equals evaluate_by_derivation on every point", [] {
    const std::string t = *rc::gen::elementOf(std::vector<std::string>{"u8", "i8", "u16", "i16", "u32", "i32"});
    const std::string a = *gen_operand(t), b = *gen_operand(t), body = *gen_stage(t);
    const int64_t x0 = *rc::gen::elementOf(std::vector<int64_t>{-80, -1, 0, 5});
    const int64_t len = *rc::gen::inRange<int64_t>(1, 150);
    // Half the cases read the stage through a second typed stage (rows of rows), half add an
    // update without reduction dimensions (the row path's update loop).
    const bool update = *rc::gen::arbitrary<bool>();
    std::string src = fmt::format(
        "pipeline g() {{\n  fun a(x, y) = {{ {} }}\n  fun b(x, y) = {{ {} }}\n  fun f(x, y) = {{ {} }}\n", a, b, body);
    src += update ? "  fun g(x, y) = { f[x, y]; rdom(r = (0, 2)) in (x, y) <- g[x, y] + f[x - r, y] }\n}\n"
                  : "  fun g(x, y) = { f[x - 1, y] ^ f[x, y] }\n}\n";
    src += fmt::format("realize () over ({}, {}), (-1, 2)\n", x0, len);
    RC_LOG() << src;
    Program p;
    try {
      p = parse_program(src, "<rows>");
    } catch (const InputError&) {
      RC_DISCARD("Halide rejects this combination of types");
    }
    RC_ASSERT(validate_program(p).empty());
    Input in = resolve_input(p, {});
    const OutputBuffer fast = evaluate_fast(p.pipeline, in, Limits{});
    const OutputBuffer slow = evaluate_by_derivation(p.pipeline, in, Limits{});
    test::require_same_points(fast, slow);
    RC_CLASSIFY(std::any_of(fast.values.begin(), fast.values.end(), [](const Value& v) { return v.is_error(); }),
                "has undefined points");
  });
}

// Typed programs (docs/types.md): writing any of Halide's types makes a program typed, its
// variables and literals Int(32) as in Halide, its operators Halide's; a program without
// types keeps meaning what the thesis says. Expected values are computed by hand.
#include "interp/derivation.hpp"
#include "interp/fast_eval.hpp"
#include "bounds/beta0.hpp"
#include "oracle/theorems.hpp"
#include "schedule/schedule.hpp"
#include "lower/lower.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_printer.hpp"
#include "semantics/validity.hpp"
#include "support/diagnostics.hpp"

#include "tests/support.hpp"

#include <catch2/catch.hpp>

using namespace halo;

namespace {

std::vector<Value> eval_fast(const std::string& src) {
  Program p = test::parse_valid(src);
  return evaluate_fast(p.pipeline, resolve_input(p, {}), Limits{}).values;
}

std::vector<Value> derived(const std::string& src) {
  Program p = test::parse_valid(src);
  return evaluate_by_derivation(p.pipeline, resolve_input(p, {}), Limits{}).values;
}

std::vector<Value> ints(std::initializer_list<int64_t> xs) { return {xs.begin(), xs.end()}; }

std::string type_error(const std::string& src) {
  try {
    parse_program(src, "<test>");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The uint8 unsharp mask as a Halide user writes it, with the bug of the user's C++:
// `2 * input(x)` and the blur's sum are computed in uint8 and wrap.
const char* kUnsharp = R"(pipeline sharpen() {
  fun input(x) = { u8(x * 37 % 256) }
  fun blur(x) = { (input[x - 1] + 2 * input[x] + input[x + 1]) / 4 }
  fun sharpen(x) = { 2 * input[x] - blur[x] }
}
realize () over (0, 5)
)";

}  // namespace

TEST_CASE("typed: a program without types stays in the thesis's ℤ", "[types]") {
  Program p = test::parse_valid(R"(pipeline f() { fun f(x) = { x * 3000000000 * 3000000000 } } realize () over (1, 1))");
  CHECK_FALSE(p.pipeline.typed);
  CHECK(p.pipeline.funcs[0].type == Type::z());
  CHECK(p.pipeline.funcs[0].pure->type == Type::z());
  CHECK(evaluate_fast(p.pipeline, resolve_input(p, {}), Limits{}).values ==
        std::vector<Value>{*Value::parse("9000000000000000000")});
}

TEST_CASE("typed: the uint8 unsharp mask wraps where the user's C++ does", "[types]") {
  // input: 219 (x = -1), 0, 37, 74, 111, 148, 185 (x = 5).
  // blur(x) = ((in(x-1) + 2 in(x)) + in(x+1)) / 4, each step modulo 256:
  //   x=0: (219 + 0 + 37) % 256 = 0 -> 0;   x=1: 148 -> 37;   x=2: 296 % 256 = 40 -> 10;
  //   x=3: (74 + 222 % 256... ) = 40 + 148 = 188 -> 47;   x=4: (111 + 40) + 185 = 336 % 256 = 80 -> 20.
  // sharpen(x) = 2 in(x) - blur(x) modulo 256: 0, 37, 138, 175, 40 - 20 = 20.
  std::vector<Value> expected = ints({0, 37, 138, 175, 20});
  CHECK(eval_fast(kUnsharp) == expected);
  CHECK(derived(kUnsharp) == expected);
  Program p = test::parse_valid(kUnsharp);
  CHECK(p.pipeline.typed);
  for (const FuncDef& f : p.pipeline.funcs) CHECK(f.type == Type::uint(8));
  // Without the cast the same program is in ℤ and nothing wraps.
  std::string untyped = kUnsharp;
  untyped.replace(untyped.find("u8(x * 37 % 256)"), 16, "x * 37 % 256");
  // In ℤ: blur = 256/4, 148/4, 296/4, 444/4, 592/4 = 64, 37, 74, 111, 148.
  CHECK(eval_fast(untyped) == ints({0 - 64, 74 - 37, 148 - 74, 222 - 111, 296 - 148}));
}

TEST_CASE("typed: Halide's defaults: Var and literal Int(32), the literal takes the typed operand's type", "[types]") {
  Program p = test::parse_valid(R"(pipeline f(k : u8) {
    fun g(x) = { u8(x) + 1 }
    fun f(x) = { g[x] * k + (x + 1) }
  } realize (k = 2) over (0, 2))");
  const FuncDef& g = p.pipeline.funcs[0];
  CHECK(g.type == Type::uint(8));  // u8 + literal: the literal is a u8
  const FuncDef& f = p.pipeline.funcs[1];
  CHECK(f.type == Type::int_(32));  // u8 * u8 + i32: match_types gives Int(32)
  // f(0) = 1 * 2 + 1 = 3, f(1) = 2 * 2 + 2 = 6
  CHECK(evaluate_fast(p.pipeline, resolve_input(p, {}), Limits{}).values == ints({3, 6}));
  CHECK(p.pipeline.param_type(0) == Type::uint(8));
}

TEST_CASE("typed: signed 32-bit overflow is undefined, narrow types wrap", "[types]") {
  auto v = eval_fast(R"(pipeline f() { fun f(x) : i32 = { x * 1000000000 } } realize () over (1, 3))");
  REQUIRE(v.size() == 3);
  CHECK(v[0] == Value(1000000000));
  CHECK(v[1] == Value(2000000000));
  CHECK(v[2] == Value::err_undef());
  CHECK(eval_fast(R"(pipeline f() { fun f(x) = { i16(x) * 1000 } } realize () over (33, 1))") == ints({-32536}));
  CHECK(eval_fast(R"(pipeline f() { fun f(x) = { u16(x) << 15 } } realize () over (3, 1))") == ints({32768}));
  CHECK(eval_fast(R"(pipeline f() { fun f(x) = { u8(x) >> u8(x + 5) } } realize () over (3, 1))") ==
        std::vector<Value>{Value::err_undef()});
}

TEST_CASE("typed: every operator through both evaluators", "[types]") {
  const char* src = R"(pipeline f() {
    fun a(x) = { u8(x * 100) }
    fun f(x) = { i32(saturating_add(a[x], a[x + 1])) * 1000000 + i32(absd(a[x], u8(7))) * 1000 +
                 i32(widening_mul(a[x], a[x]) >> 8) + i32(~a[x] & u8(15)) +
                 i32(select(a[x] > 100 && a[x] != 200, count_leading_zeros(a[x]), popcount(a[x]))) * 100000000 }
  } realize () over (0, 3))";
  // a = 0, 100, 200, 44 (300 % 256).
  // x=0: sat(0+100)=100 -> 100000000; absd(0,7)=7 -> 7000; 0*0>>8 = 0; ~0 & 15 = 15;
  //      select(false, ., popcount(0) = 0) = 0.        total 100007015
  // x=1: sat(100+200)=255 -> 255000000; absd=93 -> 93000; 10000>>8 = 39; ~100=155, &15 = 11;
  //      select(false: 100 > 100 is false, popcount(100 = 0b1100100) = 3) -> 300000000.  total 555093050
  // x=2: sat(200+44)=244 -> 244000000; absd=193 -> 193000; 40000>>8 = 156; ~200=55, &15 = 7;
  //      select(false: 200 != 200 fails, popcount(200 = 0b11001000) = 3) -> 300000000.  total 544193163
  std::vector<Value> expected = ints({100007015, 555093050, 544193163});
  CHECK(eval_fast(src) == expected);
  CHECK(derived(src) == expected);
}

TEST_CASE("typed: clamp, abs and casts follow Halide's rules", "[types]") {
  CHECK(eval_fast(R"(pipeline f() { fun f(x) = { clamp(u8(x * 60), 10, 100) } } realize () over (0, 3))") ==
        ints({10, 60, 100}));
  // abs of a signed integer is unsigned: abs(i8 -128) = 128.
  CHECK(eval_fast(R"(pipeline f() { fun f(x) = { abs(i8(x)) } } realize () over (-128, 1))") == ints({128}));
  CHECK(eval_fast(R"(pipeline f() { fun f(x) = { saturating_cast<u8>(x * 100) } } realize () over (-1, 5))") ==
        ints({0, 0, 100, 200, 255}));
  // select's literal value is cast without a check: select(c, 300, u8) is 44.
  CHECK(eval_fast(R"(pipeline f() { fun f(x) = { select(x > 0, 300, u8(x)) } } realize () over (0, 2))") ==
        ints({0, 44}));
  CHECK(eval_fast(R"(pipeline f() { fun f(x) = { bool(x) } } realize () over (0, 4))") == ints({0, 1, 0, 1}));
}

TEST_CASE("typed: what Halide rejects at compile time is an error at the expression", "[types]") {
  CHECK_THAT(type_error(R"(pipeline f() { fun f(x) = { u8(x) + 300 } })"),
             Catch::Contains("<test>:1:") && Catch::Contains("300") && Catch::Contains("u8") &&
                 Catch::Contains("changes its value to 44"));
  CHECK_THAT(type_error(R"(pipeline f() { fun f(x) = { u8(x) > -1 } })"), Catch::Contains("-1"));
  CHECK_THAT(type_error(R"(pipeline f() { fun f(x) = { u8(x) && 1 } })"), Catch::Contains("needs bool operands"));
  CHECK_THAT(type_error(R"(pipeline f() { fun f(x) = { select(u8(x) > 0, u8(x), i16(x)) } })"),
             Catch::Contains("different types, u8 and i16"));
  CHECK_THAT(type_error(R"(pipeline f() { fun f(x) = { u8(x) & i8(x) } })"),
             Catch::Contains("both signed or both unsigned"));
  CHECK_THAT(type_error(R"(pipeline f() { fun f(x) = { u8(x) << 8 } })"), Catch::Contains("shift by 8"));
  CHECK_THAT(type_error(R"(pipeline f() { fun f(x) = { u8(x) << 256 } })"), Catch::Contains("shift amount 256"));
  CHECK_THAT(type_error(R"(pipeline f() { fun f(x) = { clamp(u8(x), 0, i32(x)) } })"),
             Catch::Contains("type mismatch in clamp"));
  CHECK_THAT(type_error(R"(pipeline f() { fun f(x) : u8 = { x } })"),
             Catch::Contains("has type i32, but the func's values are u8"));
  CHECK_THAT(type_error(R"(pipeline f() { fun f(x) = { u8(x); (x) <- f[x] + x } })"),
             Catch::Contains("the update of func f has type i32"));
  CHECK_THAT(type_error(R"(pipeline f() { fun f(x) = { u8(0); rdom(r = (0, 2)) in (x) <- f[x] + 1 if r } })"),
             Catch::Contains("a predicate must be bool"));
  CHECK_THAT(type_error(R"(pipeline f(k : u8) { fun f(x) = { k } } realize (k = 300) over (0, 1))"),
             Catch::Contains("k = 300 is not a value of k's type u8"));
  CHECK_THAT(type_error(R"(pipeline f() { fun f(x) = { widening_add(i64(x), i64(x)) } })"),
             Catch::Contains("128-bit"));
  CHECK_THAT(type_error(R"(pipeline f() { fun f(x) = { cast<u7>(x) } })"), Catch::Contains("expected a type"));
  CHECK_THAT(type_error(R"(pipeline f(k : real) { fun f(x) = { k } })"), Catch::Contains("expected a type"));
  // A literal too large for Int(32), Halide's type of an integer literal.
  CHECK_THAT(type_error(R"(pipeline f() { fun f(x) = { i64(x) + i64(3000000000) } })"),
             Catch::Contains("does not fit Int(32)"));
  CHECK_THAT(type_error(R"(pipeline f() { fun f(x) = { i64(3000000000 + x) } })"), Catch::Contains("3000000000"));
  // A literal beside a typed operand takes its type, so a large one beside an i64 is fine.
  CHECK(eval_fast(R"(pipeline f() { fun f(x) = { i64(x) + 3000000000 } } realize () over (0, 1))") ==
        ints({3000000000}));
}

TEST_CASE("typed: printing then parsing a typed program is the identity", "[types]") {
  for (const char* src : {kUnsharp,
                          R"(pipeline f(k : u8, n) {
  fun g(x, y) : u16 = { 7 }
  fun f(x, y) = { rounding_shift_right(widening_add(g[x, y], u16(k)), u32(2)) ^ u32(~n) | u32(y) & u32(x << 2);
    rdom(r = (0, 3)) in (x, y) <- f[x, y] + saturating_cast<u32>(i64(r) * -1) if r > 0 && x != 1 }
} realize (k = 200, n = 5) over (0, 2), (0, 2))",
                          R"(pipeline f() { fun f(x) = { clamp(u8(x), 1, 9) - abs(i8(-x)) + select(x > 0, 300, u8(x)) } })"}) {
    INFO(src);
    Program p = parse_program(src, "<test>");
    std::string text = print_program(p);
    INFO(text);
    Program q = parse_program(text, "<test>");
    CHECK(same_program(p, q));
    CHECK(print_program(q) == text);
  }
}

TEST_CASE("typed: lowering keeps the types, beta0 bounds them and the machine computes them", "[types]") {
  Program p = test::parse_valid(kUnsharp);
  TgtProgram t = lower_pipeline(p);
  CHECK(t.typed);
  CHECK_THAT(print_tgt(t), Catch::Contains("u8(x * 37 % 256)"));
  // Theorems 2.1 and 2.2 on halo's own pipeline: the machine computes with Halide's types
  // what the big-step reference does (the wrap of 2 * input included).
  OracleVerdict v = test::scheduled_oracle(p, resolve_input(p, {}));
  CHECK(v.holds());
}

TEST_CASE("typed: a read through a narrow index is bounded by its type's range", "[types]") {
  // lut is read at img[x], a u8: β0 knows nothing of func values in ℤ, but a u8 lies in
  // [0, 255], as Halide's bounds inference says too.
  Program p = test::parse_valid(R"(pipeline f() {
    fun lut(i) : u8 = { u8(i * 3) }
    fun img(x) : u8 = { u8(x * 37) }
    fun f(x) = { lut[img[x]] }
  } realize () over (0, 10))");
  TgtProgram t = schedule_pipeline(p);
  Beta0Completion c = complete_with_beta0(t);
  INFO(print_tgt(c.program) << c.reason);
  REQUIRE(c.ok);
  CHECK_THAT(print_tgt(c.program), Catch::Contains("allocate lut((0, select(x_len > 0, 256, 0)))"));
  CHECK(check_theorems(p, c.program, resolve_input(p, {}), Limits{}).holds());
}

TEST_CASE("typed: the bundled uint8 unsharp mask (examples/types/unsharp_u8.halo)", "[types]") {
  Program p = parse_file(std::string(HALO_SOURCE_DIR) + "/examples/types/unsharp_u8.halo");
  check_program(p);
  Input in = resolve_input(p, {});
  OutputBuffer a = evaluate_fast(p.pipeline, in, Limits{});
  OutputBuffer b = evaluate_by_derivation(p.pipeline, in, Limits{});
  CHECK(a.values == b.values);
  REQUIRE(a.values.size() == 32);
  // Row y = 0 is the 1-D mask above with k = 2, saturated instead of wrapped: 0, 37, 138,
  // 175 - (wrap) ... first three by hand: 2*0-0, 2*37-37, 2*74-10.
  CHECK(a.values[0] == Value(0));
  CHECK(a.values[1] == Value(37));
  CHECK(a.values[2] == Value(138));
  // --param k=300 is not a u8.
  CHECK_THROWS_AS(resolve_input(p, InputOverrides{{"k=300"}, {}}), InputError);
}

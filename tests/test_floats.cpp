// Halide's Float(32) and Float(64) (docs/floats.md; semantics/float_ops.hpp): every
// operator at IEEE-754's edges (±0, subnormals, NaN, ±inf, rounding ties, float-to-int at
// and beyond the integer range), checked against values derived by hand from Halide's
// documentation and code generation; and the correctly rounded operations checked against
// MPFR, an independent reference, on random operands that reach every edge.
#include "bounds/extract.hpp"
#include "interp/fast_eval.hpp"
#include "interp/derivation.hpp"
#include "semantics/float_ops.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/type.hpp"
#include "semantics/type_ops.hpp"

#include "tests/support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <mpfr.h>
#include <rapidcheck/catch.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

using namespace halo;

namespace {

const Type f32 = Type::float_(32), f64 = Type::float_(64), i32 = Type::int_(32), u8 = Type::uint(8),
           i8 = Type::int_(8), u32 = Type::uint(32), i64 = Type::int_(64), u64 = Type::uint(64),
           u1 = Type::boolean(), u16 = Type::uint(16), i16 = Type::int_(16);
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kInfD = std::numeric_limits<double>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kDenorm = std::numeric_limits<float>::denorm_min();
const Value undef = Value::err_undef();
Value F(float x) { return Value::f32(x); }
Value D(double x) { return Value::f64(x); }
Value B(bool b) { return Value(int64_t(b)); }

using test::ev;
using test::ev1;
using test::ev2;
Value cast(Type to, Type from, Value v) { return ev(Op::Cast, {from}, {v}, to); }
Value sat(Type to, Type from, Value v) { return ev(Op::SaturatingCast, {from}, {v}, to); }

// Same value and same bits (so -0 differs from +0); NaNs agree (Value's equality).
bool same(const Value& a, const Value& b) { return a == b && a.kind() == b.kind(); }
bool neg_zero(const Value& v) { return v.is_float() && v.as_double() == 0 && std::signbit(v.as_double()); }
bool pos_zero(const Value& v) { return v.is_float() && v.as_double() == 0 && !std::signbit(v.as_double()); }

std::vector<Value> eval_fast(const std::string& src) {
  Program p = test::parse_valid(src);
  return evaluate_fast(p.pipeline, resolve_input(p, {}), Limits{}).values;
}
std::vector<Value> derived(const std::string& src) {
  Program p = test::parse_valid(src);
  return evaluate_by_derivation(p.pipeline, resolve_input(p, {}), Limits{}).values;
}
std::string error_of(const std::string& src) {
  try {
    parse_program(src, "<test>");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("floats: types, names, ranges and representability", "[floats]") {
  CHECK(parse_type_name("f32") == f32);
  CHECK(parse_type_name("float") == f32);
  CHECK(parse_type_name("f64") == f64);
  CHECK(parse_type_name("double") == f64);
  CHECK(f32.to_string() == "f32");
  CHECK(f64.halide_name() == "Float(64)");
  CHECK(f32.c_type() == "float");
  // Type::max() of a float is +inf (src/Type.cpp).
  CHECK(f32.max() == F(kInf));
  CHECK(f64.min() == D(-kInfD));
  // can_represent(Type): Float(64) holds 32-bit integers, Float(32) 16-bit ones.
  CHECK(f64.can_represent(i32));
  CHECK_FALSE(f32.can_represent(i32));
  CHECK(f32.can_represent(u16));
  CHECK(f64.can_represent(f32));
  CHECK_FALSE(f32.can_represent(f64));
  CHECK_FALSE(i32.can_represent(f32));
  // can_represent(int): exactly, as (int64_t)(float)x == x.
  CHECK(f32.can_represent(Value(16777216)));
  CHECK_FALSE(f32.can_represent(Value(16777217)));
  CHECK(f64.can_represent(Value(int64_t{1} << 53)));
  CHECK_FALSE(f64.can_represent(Value((int64_t{1} << 53) + 1)));
  CHECK(match_types(i32, f32) == f32);
  CHECK(match_types(f32, u8) == f32);
  CHECK(match_types(f32, f64) == f64);
}

TEST_CASE("floats: values print as shortest round-trip decimals, hex on demand", "[floats]") {
  CHECK(F(0.1f).to_string() == "0.1");
  CHECK(D(0.1).to_string() == "0.1");
  CHECK(D(double(0.1f)).to_string() == "0.10000000149011612");
  CHECK(F(-0.0f).to_string() == "-0");
  CHECK(F(kInf).to_string() == "inf");
  CHECK(F(-kNaN).to_string() == "nan");
  CHECK(F(kDenorm).to_string() == "1e-45");
  CHECK(F(0.1f).to_hex_string() == "0x1.99999ap-4");
  // Equality is on bits, every NaN equal to every NaN.
  CHECK(F(0.0f) != F(-0.0f));
  CHECK(F(kNaN) == F(-kNaN));
  CHECK(F(kNaN) == Value::f32(std::bit_cast<float>(0x7fa00001u)));
  CHECK(F(1.0f) != D(1.0));
  CHECK(F(1.0f) != Value(1));
}

TEST_CASE("floats: + - * / round to nearest even, overflow to inf, divide by zero", "[floats]") {
  CHECK(ev2(Op::Add, f32, F(0.1f), F(0.2f)) == F(0.1f + 0.2f));
  CHECK(ev2(Op::Add, f32, F(16777216.0f), F(1.0f)) == F(16777216.0f));  // the tie goes to even
  CHECK(ev2(Op::Add, f32, F(16777216.0f), F(3.0f)) == F(16777220.0f));  // 16777219 ties up to even
  CHECK(ev2(Op::Add, f64, D(0.1), D(0.2)) == D(0.30000000000000004));
  CHECK(ev2(Op::Mul, f32, F(3.4e38f), F(10.0f)) == F(kInf));
  CHECK(ev2(Op::Mul, f32, F(kDenorm), F(0.5f)) == F(0.0f));  // a tie to even: 0
  CHECK(ev2(Op::Mul, f32, F(kDenorm), F(1.5f)) == F(2 * kDenorm));  // a tie to even: 2 denorm
  CHECK(ev2(Op::Div, f32, F(1.0f), F(0.0f)) == F(kInf));
  CHECK(ev2(Op::Div, f32, F(1.0f), F(-0.0f)) == F(-kInf));
  CHECK(ev2(Op::Div, f32, F(0.0f), F(0.0f)).is_nan());
  CHECK(ev2(Op::Sub, f32, F(kInf), F(kInf)).is_nan());
  CHECK(neg_zero(ev2(Op::Mul, f32, F(-0.0f), F(5.0f))));
  CHECK(pos_zero(ev2(Op::Add, f32, F(-0.0f), F(0.0f))));
  CHECK(neg_zero(ev2(Op::Add, f32, F(-0.0f), F(-0.0f))));
  CHECK(ev2(Op::Add, f32, F(kNaN), F(1.0f)).is_nan());
  // f32 arithmetic is single precision, not double rounded to single at the end.
  CHECK(ev2(Op::Div, f32, F(1.0f), F(3.0f)) == F(1.0f / 3.0f));
  CHECK(ev2(Op::Div, f64, D(1.0), D(3.0)) == D(1.0 / 3.0));
}

TEST_CASE("floats: unary minus is Halide's 0 - x, so -(+0) and -(-0) are +0", "[floats]") {
  CHECK(pos_zero(ev1(Op::Neg, f32, F(0.0f))));
  CHECK(pos_zero(ev1(Op::Neg, f32, F(-0.0f))));
  CHECK(ev1(Op::Neg, f32, F(2.5f)) == F(-2.5f));
  CHECK(ev1(Op::Neg, f64, D(-kInfD)) == D(kInfD));
  CHECK(ev1(Op::Neg, f32, F(kNaN)).is_nan());
}

TEST_CASE("floats: % is a - b * floor(a / b), the sign of b", "[floats]") {
  CHECK(ev2(Op::Mod, f32, F(5.5f), F(2.0f)) == F(1.5f));
  CHECK(ev2(Op::Mod, f32, F(-5.5f), F(2.0f)) == F(0.5f));
  CHECK(ev2(Op::Mod, f32, F(5.5f), F(-2.0f)) == F(-0.5f));
  CHECK(ev2(Op::Mod, f32, F(1.0f), F(0.0f)).is_nan());   // 1 - 0 * inf
  CHECK(ev2(Op::Mod, f32, F(kInf), F(1.0f)).is_nan());
  // Each step rounds: 0.1f % 0.01f is not the exact remainder.
  float q = std::floor(0.1f / 0.01f);
  CHECK(ev2(Op::Mod, f32, F(0.1f), F(0.01f)) == F(0.1f - 0.01f * q));
  CHECK(ev2(Op::Mod, f64, D(7.0), D(2.5)) == D(2.0));
}

TEST_CASE("floats: comparisons are ordered, except NaN != x, which is true as in C", "[floats]") {
  CHECK(ev2(Op::Lt, f32, F(1.0f), F(2.0f)) == B(true));
  CHECK(ev2(Op::Eq, f32, F(0.0f), F(-0.0f)) == B(true));
  CHECK(ev2(Op::Lt, f32, F(-0.0f), F(0.0f)) == B(false));
  for (Op op : {Op::Lt, Op::Gt, Op::Le, Op::Ge, Op::Eq}) {
    INFO(op_name(op));
    CHECK(ev2(op, f32, F(kNaN), F(1.0f)) == B(false));
    CHECK(ev2(op, f64, D(1.0), D(std::nan(""))) == B(false));
  }
  CHECK(ev2(Op::Ne, f32, F(kNaN), F(1.0f)) == B(true));
  CHECK(ev2(Op::Ne, f32, F(kNaN), F(kNaN)) == B(true));
  CHECK(ev2(Op::Ne, f32, F(1.0f), F(2.0f)) == B(true));
  CHECK(ev2(Op::Lt, f32, F(-kInf), F(-3.4e38f)) == B(true));
}

TEST_CASE("floats: min and max are select(a < b, a, b) and select(a > b, a, b)", "[floats]") {
  CHECK(ev2(Op::Min, f32, F(kNaN), F(1.0f)) == F(1.0f));  // a NaN first operand loses
  CHECK(ev2(Op::Min, f32, F(1.0f), F(kNaN)).is_nan());    // a NaN second operand wins
  CHECK(ev2(Op::Max, f32, F(kNaN), F(1.0f)) == F(1.0f));
  CHECK(ev2(Op::Max, f32, F(1.0f), F(kNaN)).is_nan());
  CHECK(pos_zero(ev2(Op::Min, f32, F(-0.0f), F(0.0f))));  // of two zeros, the second
  CHECK(neg_zero(ev2(Op::Min, f32, F(0.0f), F(-0.0f))));
  CHECK(neg_zero(ev2(Op::Max, f32, F(0.0f), F(-0.0f))));
  CHECK(ev2(Op::Max, f64, D(-kInfD), D(-1e308)) == D(-1e308));
}

TEST_CASE("floats: abs of -0 is undefined and of NaN NaN, absd is abs(a - b)", "[floats]") {
  CHECK(ev1(Op::Abs, f32, F(-2.5f)) == F(2.5f));
  CHECK(ev1(Op::Abs, f32, F(-0.0f)) == undef);  // +0 from Float(32)'s code, -0 from Float(64)'s
  CHECK(ev1(Op::Abs, f64, D(-0.0)) == undef);
  CHECK(pos_zero(ev1(Op::Abs, f32, F(0.0f))));
  CHECK(ev1(Op::Abs, f32, F(kNaN)).is_nan());
  CHECK(ev1(Op::Abs, f64, D(-kInfD)) == D(kInfD));
  CHECK(type_op(Op::Abs, std::vector<Type>{f32}).result == f32);
  CHECK(type_op(Op::Absd, std::vector<Type>{f32, f32}).result == f32);
  CHECK(ev2(Op::Absd, f32, F(1.0f), F(3.5f)) == F(2.5f));
  CHECK(pos_zero(ev2(Op::Absd, f32, F(-0.0f), F(-0.0f))));  // -0 - -0 = +0
  CHECK(ev2(Op::Absd, f32, F(-0.0f), F(0.0f)) == undef);    // -0 - +0 = -0
}

TEST_CASE("floats: floor, ceil, trunc and round (ties to even) at every edge", "[floats]") {
  CHECK(ev1(Op::Floor, f32, F(-0.5f)) == F(-1.0f));
  CHECK(neg_zero(ev1(Op::Ceil, f32, F(-0.5f))));
  CHECK(neg_zero(ev1(Op::Trunc, f32, F(-0.7f))));
  CHECK(ev1(Op::Round, f32, F(0.5f)) == F(0.0f));
  CHECK(ev1(Op::Round, f32, F(1.5f)) == F(2.0f));
  CHECK(ev1(Op::Round, f32, F(2.5f)) == F(2.0f));
  CHECK(neg_zero(ev1(Op::Round, f32, F(-0.5f))));
  CHECK(ev1(Op::Round, f32, F(-2.5f)) == F(-2.0f));
  CHECK(ev1(Op::Round, f32, F(0.49999997f)) == F(0.0f));
  CHECK(ev1(Op::Round, f64, D(4503599627370497.0)) == D(4503599627370497.0));
  CHECK(ev1(Op::Floor, f32, F(kInf)) == F(kInf));
  CHECK(ev1(Op::Floor, f32, F(kNaN)).is_nan());
  CHECK(ev1(Op::Floor, f32, F(kDenorm)) == F(0.0f));
  CHECK(ev1(Op::Ceil, f32, F(kDenorm)) == F(1.0f));
  // An integer argument is cast to Float(32) first.
  OpTyping t = type_op(Op::Floor, std::vector<Type>{i32});
  CHECK(t.operands[0] == f32);
  CHECK(t.result == f32);
}

TEST_CASE("floats: lerp is zero * (1 - w) + one * w, each step rounded (Lerp.cpp)", "[floats]") {
  float w = 0.1f;
  CHECK(ev(Op::Lerp, {f32, f32, f32}, {F(2.0f), F(7.0f), F(w)}) == F(2.0f * (1.0f - w) + 7.0f * w));
  CHECK(ev(Op::Lerp, {f32, f32, u8}, {F(0.0f), F(1.0f), Value(51)}) == F(1.0f * (51.0f / 255.0f)));
  CHECK(ev(Op::Lerp, {f32, f32, f32}, {F(1.0f), F(1.0f), F(kInf)}).is_nan());  // Halide's lerp(a, a, inf) is a: a finding
  // Integers with a float weight: the weight becomes cast<u8>(255.0f * w), then the integer lerp.
  CHECK(ev(Op::Lerp, {u8, u8, f32}, {Value(0), Value(255), F(0.5f)}) == Value(127));
  CHECK(ev(Op::Lerp, {u8, u8, f32}, {Value(0), Value(255), F(2.0f)}) == undef);  // cast of 510 to u8
}

TEST_CASE("floats: sqrt, is_nan, is_inf, is_finite", "[floats]") {
  CHECK(ev1(Op::Sqrt, f32, F(2.0f)) == F(std::sqrt(2.0f)));
  CHECK(ev1(Op::Sqrt, f64, D(2.0)) == D(std::sqrt(2.0)));
  CHECK(neg_zero(ev1(Op::Sqrt, f32, F(-0.0f))));
  CHECK(ev1(Op::Sqrt, f32, F(-1.0f)).is_nan());
  CHECK(ev1(Op::Sqrt, f32, F(kInf)) == F(kInf));
  CHECK(ev1(Op::IsNan, f32, F(kNaN)) == B(true));
  CHECK(ev1(Op::IsNan, f32, F(kInf)) == B(false));
  CHECK(ev1(Op::IsInf, f64, D(-kInfD)) == B(true));
  CHECK(ev1(Op::IsFinite, f32, F(kDenorm)) == B(true));
  CHECK(ev1(Op::IsFinite, f32, F(kNaN)) == B(false));
  CHECK_FALSE(type_op(Op::IsNan, std::vector<Type>{i32}).error.empty());
}

TEST_CASE("floats: casts to integers truncate, NaN and inf and out of range are undefined", "[floats]") {
  CHECK(cast(i32, f32, F(2.9f)) == Value(2));
  CHECK(cast(i32, f32, F(-2.9f)) == Value(-2));
  CHECK(cast(i32, f32, F(-0.0f)) == Value(0));
  CHECK(cast(i32, f32, F(2147483520.0f)) == Value(int64_t{2147483520}));  // the largest f32 below 2^31
  CHECK(cast(i32, f32, F(2147483648.0f)) == undef);                       // 2^31
  CHECK(cast(i32, f32, F(-2147483648.0f)) == Value(int64_t{INT32_MIN}));
  CHECK(cast(i32, f64, D(-2147483648.9)) == Value(int64_t{INT32_MIN}));
  CHECK(cast(i32, f64, D(-2147483649.0)) == undef);
  CHECK(cast(u8, f32, F(255.9f)) == Value(255));
  CHECK(cast(u8, f32, F(256.0f)) == undef);
  CHECK(cast(u8, f32, F(-0.9f)) == Value(0));  // truncates to -0, which is 0
  CHECK(cast(u8, f32, F(-1.0f)) == undef);
  CHECK(cast(i8, f32, F(-128.5f)) == Value(-128));
  CHECK(cast(i8, f32, F(-129.0f)) == undef);
  CHECK(cast(i32, f32, F(kNaN)) == undef);
  CHECK(cast(i32, f32, F(kInf)) == undef);
  CHECK(cast(u64, f64, D(18446744073709549568.0)) == *Value::parse("18446744073709549568"));
  CHECK(cast(u64, f64, D(18446744073709551616.0)) == undef);
  CHECK(cast(i64, f64, D(-9223372036854775808.0)) == Value(INT64_MIN));
  CHECK(cast(i64, f64, D(9223372036854775808.0)) == undef);
  // To bool through UInt(8) (CodeGen_LLVM): the low bit of the truncated value.
  CHECK(cast(u1, f32, F(3.5f)) == Value(1));
  CHECK(cast(u1, f32, F(2.0f)) == Value(0));
  CHECK(cast(u1, f32, F(256.0f)) == undef);
}

TEST_CASE("floats: casts from integers and between floats round to nearest even", "[floats]") {
  CHECK(cast(f32, i32, Value(16777217)) == F(16777216.0f));
  CHECK(cast(f32, i32, Value(16777219)) == F(16777220.0f));
  CHECK(cast(f32, i32, Value(int64_t{INT32_MAX})) == F(2147483648.0f));
  CHECK(cast(f32, u64, *Value::parse("18446744073709551615")) == F(18446744073709551616.0f));
  CHECK(cast(f64, u64, *Value::parse("18446744073709551615")) == D(18446744073709551616.0));
  CHECK(cast(f64, i64, Value(INT64_MIN)) == D(-9223372036854775808.0));
  CHECK(cast(f64, i64, Value((int64_t{1} << 53) + 1)) == D(9007199254740992.0));
  CHECK(cast(f32, f64, D(0.1)) == F(0.1f));
  CHECK(cast(f32, f64, D(1e300)) == F(kInf));
  CHECK(cast(f32, f64, D(1e-50)) == F(0.0f));
  CHECK(neg_zero(cast(f32, f64, D(-1e-50))));
  CHECK(cast(f32, f64, D(std::nan(""))).is_nan());
  CHECK(cast(f64, f32, F(0.1f)) == D(double(0.1f)));
  CHECK(cast(f32, u1, Value(1)) == F(1.0f));
}

TEST_CASE("floats: saturating casts follow lower_saturating_cast, NaN included", "[floats]") {
  CHECK(sat(u8, f32, F(300.0f)) == Value(255));
  CHECK(sat(u8, f32, F(-5.0f)) == Value(0));
  CHECK(sat(u8, f32, F(12.7f)) == Value(12));
  CHECK(sat(u8, f32, F(kNaN)) == Value(255));     // narrower: max(min(NaN, 255), 0) = 255
  CHECK(sat(i32, f32, F(kNaN)) == Value(int64_t{INT32_MIN}));  // as wide: max(NaN, min) = min
  CHECK(sat(i32, f32, F(3e9f)) == Value(int64_t{INT32_MAX}));
  CHECK(sat(i32, f32, F(-3e9f)) == Value(int64_t{INT32_MIN}));
  CHECK(sat(i32, f32, F(2147483648.0f)) == Value(int64_t{INT32_MAX}));  // >= float(INT32_MAX)
  CHECK(sat(u64, f32, F(kInf)) == *Value::parse("18446744073709551615"));
  CHECK(sat(i16, f64, D(-1e10)) == Value(-32768));
  CHECK(sat(f32, f64, D(1e300)) == F(kInf));
  CHECK(sat(f32, f64, D(std::nan(""))) == F(kInf));  // min(NaN, inf) = inf
  CHECK(sat(f64, f32, F(kNaN)) == D(kInfD));
  CHECK(sat(f32, i32, Value(16777217)) == F(16777216.0f));
}

TEST_CASE("floats: reinterpret reads the bits, a NaN's bits are unspecified", "[floats]") {
  CHECK(ev(Op::Reinterpret, {f32}, {F(1.0f)}, u32) == Value(int64_t{0x3f800000}));
  CHECK(ev(Op::Reinterpret, {f32}, {F(-0.0f)}, i32) == Value(int64_t{INT32_MIN}));
  CHECK(ev(Op::Reinterpret, {i32}, {Value(int64_t{0x7f800000})}, f32) == F(kInf));
  CHECK(ev(Op::Reinterpret, {u32}, {Value(int64_t{1})}, f32) == F(kDenorm));
  CHECK(ev(Op::Reinterpret, {u64}, {*Value::parse("9218868437227405312")}, f64) == D(kInfD));
  CHECK(ev(Op::Reinterpret, {f64}, {D(-2.0)}, u64) == *Value::parse("13835058055282163712"));
  CHECK(ev(Op::Reinterpret, {f32}, {F(kNaN)}, u32) == undef);
  CHECK_FALSE(type_op(Op::Reinterpret, std::vector<Type>{f32}, u16).error.empty());
}

TEST_CASE("floats: operators Halide defines on integers only are type errors", "[floats]") {
  for (Op op : {Op::BitAnd, Op::Shl, Op::WideningAdd, Op::SaturatingAdd, Op::HalvingAdd, Op::Popcount,
                Op::MulShiftRight}) {
    INFO(op_name(op));
    std::vector<Type> ts(size_t(op_arity(op)), f32);
    if (op == Op::MulShiftRight) ts[2] = u32;
    CHECK_FALSE(type_op(op, ts).error.empty());
  }
}

// ------------------------------------------------------------------- against MPFR
namespace {

// A float that is often an edge: a zero, a subnormal, the largest or smallest normal,
// infinity, NaN, a power of two, a value near a tie; else any bit pattern.
template <typename T, typename Bits>
rc::Gen<T> gen_edgy() {
  constexpr int kMant = std::numeric_limits<T>::digits - 1;
  return rc::gen::oneOf(
      rc::gen::map(rc::gen::arbitrary<Bits>(), [](Bits b) { return std::bit_cast<T>(b); }),
      rc::gen::element<T>(T(0), -T(0), std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min(),
                          std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
                          -std::numeric_limits<T>::max(), std::numeric_limits<T>::infinity(),
                          -std::numeric_limits<T>::infinity(), std::numeric_limits<T>::quiet_NaN(), T(1), T(-1),
                          T(0.5), T(3)),
      rc::gen::map(rc::gen::pair(rc::gen::inRange(-40, 40), rc::gen::inRange<int64_t>(0, 8)),
                   [](std::pair<int, int64_t> p) {  // small integers and halves: ties
                     return std::ldexp(T(p.second) + T(0.5), p.first % 3) * (p.first < 0 ? T(-1) : T(1));
                   }),
      rc::gen::map(rc::gen::inRange<int64_t>(1, int64_t{1} << 20), [](int64_t m) {
        return std::ldexp(T(m), std::numeric_limits<T>::min_exponent - kMant - 1);  // subnormals
      }));
}

// MPFR's correctly rounded result of op in the precision and exponent range of T.
template <typename T>
T mpfr_reference(Op op, T a, T b) {
  constexpr int prec = std::numeric_limits<T>::digits;
  // The exponent range of T's normal numbers, with subnormals made by mpfr_subnormalize.
  mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(std::numeric_limits<T>::min_exponent - prec + 1);
  mpfr_set_emax(std::numeric_limits<T>::max_exponent);
  mpfr_t x, y, r;
  mpfr_inits2(prec, x, y, r, (mpfr_ptr)nullptr);
  mpfr_set_d(x, double(a), MPFR_RNDN);
  mpfr_set_d(y, double(b), MPFR_RNDN);
  int inex = 0;
  switch (op) {
    case Op::Add: inex = mpfr_add(r, x, y, MPFR_RNDN); break;
    case Op::Sub: inex = mpfr_sub(r, x, y, MPFR_RNDN); break;
    case Op::Mul: inex = mpfr_mul(r, x, y, MPFR_RNDN); break;
    case Op::Div: inex = mpfr_div(r, x, y, MPFR_RNDN); break;
    case Op::Sqrt: inex = mpfr_sqrt(r, x, MPFR_RNDN); break;
    default: break;
  }
  mpfr_subnormalize(r, inex, MPFR_RNDN);
  T out = std::is_same_v<T, float> ? T(mpfr_get_flt(r, MPFR_RNDN)) : T(mpfr_get_d(r, MPFR_RNDN));
  mpfr_clears(x, y, r, (mpfr_ptr)nullptr);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  return out;
}

template <typename T>
Value V(T x) {
  if constexpr (std::is_same_v<T, float>) return Value::f32(x);
  else return Value::f64(x);
}

template <typename T, typename Bits>
void check_against_mpfr() {
  Type t = Type::float_(std::numeric_limits<T>::digits == 24 ? 32 : 64);
  rc::prop("halo's + - * / sqrt are MPFR's correctly rounded results", [t] {
    T a = *gen_edgy<T, Bits>(), b = *gen_edgy<T, Bits>();
    Op op = *rc::gen::element(Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Sqrt);
    Value got = op == Op::Sqrt ? ev1(op, t, V(a)) : ev2(op, t, V(a), V(b));
    Value want = V(mpfr_reference<T>(op, a, b));
    RC_ASSERT(same(got, want));
  });
}

}  // namespace

TEST_CASE("property: Float(32) arithmetic is MPFR's correctly rounded binary32", "[floats][property]") {
  check_against_mpfr<float, uint32_t>();
}

TEST_CASE("property: Float(64) arithmetic is MPFR's correctly rounded binary64", "[floats][property]") {
  check_against_mpfr<double, uint64_t>();
}

TEST_CASE("property: integer to float casts are MPFR's correct rounding", "[floats][property]") {
  rc::prop("cast<f32> and cast<f64> of every 64-bit integer round to nearest even", [] {
    bool is_signed = *rc::gen::arbitrary<bool>();
    uint64_t bits = *rc::gen::oneOf(rc::gen::arbitrary<uint64_t>(),
                                    rc::gen::map(rc::gen::inRange(0, 64), [](int k) { return (uint64_t{1} << k) + 1; }),
                                    rc::gen::element<uint64_t>(0, 1, ~uint64_t{0}, uint64_t{1} << 63));
    Type from = is_signed ? i64 : u64;
    Value v = is_signed ? Value(int64_t(bits)) : Value::from_big(BigInt(bits));
    for (Type to : {f32, f64}) {
      mpfr_t m;
      mpfr_init2(m, to.bits() == 32 ? 24 : 53);
      if (is_signed) mpfr_set_sj(m, int64_t(bits), MPFR_RNDN);
      else mpfr_set_uj(m, bits, MPFR_RNDN);
      Value want = to.bits() == 32 ? Value::f32(mpfr_get_flt(m, MPFR_RNDN)) : Value::f64(mpfr_get_d(m, MPFR_RNDN));
      mpfr_clear(m);
      RC_ASSERT(same(cast(to, from, v), want));
    }
  });
}

TEST_CASE("property: float to integer casts truncate exactly or are undefined", "[floats][property]") {
  rc::prop("cast<T>(f) is trunc(f) when T holds it, else err_undef", [] {
    float f = *gen_edgy<float, uint32_t>();
    Type to = *rc::gen::element(u1, u8, i8, u16, i16, u32, i32, u64, i64);
    Value got = cast(to, f32, F(f));
    if (!std::isfinite(f)) {
      RC_ASSERT(got == undef);
      return;
    }
    // The truncated value, exact in MPFR's integers.
    mpfr_t m;
    mpfr_init2(m, 64);
    mpfr_set_flt(m, f, MPFR_RNDN);
    mpfr_trunc(m, m);
    Type via = to.is_bool() ? u8 : to;
    bool fits = mpfr_cmp_d(m, std::ldexp(1.0, 70)) < 0 && mpfr_cmp_d(m, -std::ldexp(1.0, 70)) > 0;
    double td = mpfr_get_d(m, MPFR_RNDN);
    mpfr_clear(m);
    Value exact = fits ? Value::from_big(BigInt(static_cast<long double>(td))) : Value::from_big(BigInt(1) << 80);
    if (!via.can_represent(exact)) {
      RC_ASSERT(got == undef);
    } else {
      RC_ASSERT(got == wrap_to(to, exact));
    }
  });
}

// ------------------------------------------------------------------- programs
TEST_CASE("floats: literals are C++'s: 1.5f a float, 1.5 a double made a float, f64(1.5) a double",
          "[floats]") {
  // 0.1 beside an f64 operand is still Halide's Expr(float(0.1)) (Expr's constructor from
  // double is explicit), widened: not 0.1.
  auto v = eval_fast(R"(pipeline f() { fun f(x) = { f64(x) + 0.1 } } realize () over (0, 1))");
  CHECK(v[0] == D(double(0.1f)));
  v = eval_fast(R"(pipeline f() { fun f(x) = { f64(x) + f64(0.1) } } realize () over (0, 1))");
  CHECK(v[0] == D(0.1));
  v = eval_fast(R"(pipeline f() { fun f(x) = { x * 0.5f } } realize () over (3, 1))");
  CHECK(v[0] == F(1.5f));
  // An integer literal beside a float takes its type, exactly.
  v = eval_fast(R"(pipeline f() { fun f(x) = { f32(x) + 1 } } realize () over (0, 1))");
  CHECK(v[0] == F(1.0f));
  // -0.0f is C++'s negative zero, not Halide's 0 - 0.
  v = eval_fast(R"(pipeline f() { fun f(x) = { -0.0f } } realize () over (0, 1))");
  CHECK(neg_zero(v[0]));
  v = eval_fast(R"(pipeline f() { fun f(x) = { 1e-45f * f32(x + 1) } } realize () over (0, 1))");
  CHECK(v[0] == F(kDenorm));
  // A double rounded to float twice (decimal to double to float), as C++ does.
  v = eval_fast(R"(pipeline f() { fun f(x) = { 1.00000005960464477539062500000001 + f32(x) } } realize () over (0, 1))");
  CHECK(v[0] == F(float(1.00000005960464477539062500000001)));
  v = eval_fast(R"(pipeline f(g : f32) { fun f(x) = { g } } realize (g = 0.1) over (0, 1))");
  CHECK(v[0] == F(0.1f));
  v = eval_fast(R"(pipeline f(g : f64) { fun f(x) = { g } } realize (g = 2) over (0, 1))");
  CHECK(v[0] == D(2.0));
}

TEST_CASE("floats: what Halide rejects is an error at the expression", "[floats]") {
  CHECK_THAT(error_of(R"(pipeline f() { fun g(x) = { 0 } fun f(x) = { g[f32(x)] } })"),
             Catch::Contains("implicit cast from f32 to int"));
  CHECK_THAT(error_of(R"(pipeline f() { fun f(x) = { f32(x) & 1.0f } })"), Catch::Contains("needs integer operands"));
  CHECK_THAT(error_of(R"(pipeline f() { fun f(x) = { f32(x) / 0.0f } })"), Catch::Contains("division by a constant zero"));
  CHECK_THAT(error_of(R"(pipeline f() { fun f(x) = { is_nan(x) } })"), Catch::Contains("needs a float operand"));
  CHECK_THAT(error_of(R"(pipeline f() { fun f(x) = { exp(f32(x)) } })"),
             Catch::Contains("<test>:1:29: error: halo does not judge 'exp'"));
  CHECK_THAT(error_of(R"(pipeline f() { fun f(x) = { f32(x) + 16777217 } })"),
             Catch::Contains("16777217") && Catch::Contains("16777216"));
  CHECK_THAT(error_of(R"(pipeline f() { fun f(x) : f64 = { 0.5 } })"), Catch::Contains("has type f32"));
  CHECK_THAT(error_of(R"(pipeline f() { fun f(x) = { select(x > 0, 0.5, f64(x)) } })"),
             Catch::Contains("different types, f32 and f64"));
  CHECK_THAT(error_of(R"(pipeline f() { fun f(x) = { 1.5e999 } })"), Catch::Contains("out of the range of double"));
  CHECK_THAT(error_of(R"(pipeline f() { fun f(x) = { 1. } })"), Catch::Contains("<test>:1:30: error:"));
  CHECK_THAT(error_of(R"(pipeline f() { fun f(x) = { 1.5q } })"), Catch::Contains("malformed float literal '1.5q'"));
  CHECK_THAT(error_of(R"(pipeline f(k) { fun f(x) = { k } } realize (k = 1.5) over (0, 1))"),
             Catch::Contains("a float value needs a parameter of a float type"));
  CHECK_THAT(error_of(R"(pipeline f(k : i32) { fun f(x) = { u8(x) } } realize (k = 1.5) over (0, 1))"),
             Catch::Contains("k = 1.5 is not a value of k's type i32"));
  CHECK_THAT(error_of(R"(pipeline f() { fun f(x) = { reinterpret<u16>(f32(x)) } })"), Catch::Contains("widths must agree"));
}

TEST_CASE("floats: both evaluators compute a float pipeline alike, bit for bit", "[floats]") {
  const char* src = R"(pipeline f(s : f32) {
  fun inp(x, y) = { f32(x - 3) * 0.5f + f32(y) }
  fun ratio(x, y) = { inp[x, y] / f32(x - 2) }
  fun f(x, y) = { select(is_nan(ratio[x, y]), -1.0f, min(ratio[x, y], s)) + sqrt(abs(ratio[x, y])) % 0.75f
                  + floor(-0.5f) * round(2.5f) + f32(u8(clamp(ratio[x, y] * 100.0f, 0.0f, 255.0f))) }
}
realize (s = 2) over (0, 6), (0, 2))";
  auto a = eval_fast(src), b = derived(src);
  REQUIRE(a.size() == 12);
  for (size_t i = 0; i < a.size(); ++i) {
    INFO(i);
    CHECK(same(a[i], b[i]));
  }
  // x = 2: -0.5 / 0 is -inf; min(-inf, 2) + sqrt(inf) % 0.75 is NaN; u8 of a clamped -inf is 0.
  CHECK(a[2].is_nan());
  // x = 0, y = 0: ratio = -1.5 / -2 = 0.75; min(0.75, 2) + sqrt(0.75) % 0.75 - 1 * 2 + 75.
  float r = 0.75f, m = std::sqrt(r);
  float expected = r + (m - 0.75f * std::floor(m / 0.75f)) + -1.0f * 2.0f + 75.0f;
  CHECK(a[0] == F(expected));
}

TEST_CASE("floats: printing then parsing a float program is the identity", "[floats]") {
  const char* src = R"(pipeline f(g : f32, h : f64) {
  fun a(x) = { f32(x) * 0.1f + -0.0f + 1e-45f - 3.4028235e38f }
  fun b(x) = { f64(a[x]) * h + f64(0.1) + f64(-2.5) + reinterpret<f32>(2139095040) + reinterpret<f32>((-4194304)) }
  fun f(x) = { select(b[x] > f64(g), floor(b[x]), sqrt(b[x])) + f64(saturating_cast<u8>(a[x])) }
} realize (g = 0.5, h = 2) over (0, 2))";
  Program p = parse_program(src, "<test>");
  std::string text = print_program(p);
  INFO(text);
  Program q = parse_program(text, "<test>");
  CHECK(same_program(p, q));
  CHECK(print_program(q) == text);
  CHECK_THAT(text, Catch::Contains("0.1f") && Catch::Contains("f64(0.1)") && Catch::Contains("(-0.0f)") &&
                       Catch::Contains("1e-45f"));
}

// ------------------------------------------------------------------- bounds
TEST_CASE("floats: beta0 bounds a resampling index cast from a float", "[floats][bounds]") {
  // f reads g at i32(f32(x) * 0.5f): monotone in x, so g's allocation is the casts at the
  // window's ends, not Int(32)'s whole range (beta0 would give up there).
  Program p = test::parse_valid(R"(pipeline f() {
    fun g(x) = { f32(x) * 0.25f }
    fun f(x) = { g[i32(f32(x) * 0.5f)] + g[i32(floor(f32(x) * -0.5f + 1.5f))] }
  } realize () over (-5, 11))");
  TgtProgram t = schedule_pipeline(p);
  Beta0Completion c = complete_with_beta0(t);
  INFO(print_tgt(c.program) << c.reason);
  REQUIRE(c.ok);
  CHECK_THAT(print_tgt(c.program), Catch::Contains("i32(f32(x_min) * 0.5f)"));
  CHECK(check_theorems(p, c.program, resolve_input(p, {}), Limits{}).holds());
}

TEST_CASE("property: beta0's bounds of float-cast indices are sound on every window", "[floats][bounds][property]") {
  // A resampling read with a drawn scale and offset (negative, zero, fractional), over a
  // window that may be empty, a single point or negative: Theorem 2.1 must hold.
  rc::prop("the completed program stays inside its allocations", [] {
    float scale = *rc::gen::element(0.5f, -0.5f, 0.0f, 1.5f, -2.25f, 0.1f, 3.0f);
    float offset = *rc::gen::element(0.0f, 0.5f, -0.5f, 2.75f, -7.0f);
    const char* fn = *rc::gen::element("", "floor", "ceil", "round", "trunc");
    int64_t mn = *rc::gen::inRange<int64_t>(-20, 20), len = *rc::gen::inRange<int64_t>(0, 12);
    std::string idx = fmt::format("i32({}(f32(x) * {} + {}))", fn, print_expr(make_const(Value::f32(scale), {}, f32)),
                                  print_expr(make_const(Value::f32(offset), {}, f32)));
    std::string src = fmt::format(R"(pipeline f() {{
      fun g(x) = {{ f32(x) * 0.5f }}
      fun f(x) = {{ g[{}] + g[{} + 1] }}
    }} realize () over ({}, {}))",
                                  idx, idx, mn, len);
    Program p = test::parse_valid(src);
    Beta0Completion c = complete_with_beta0(schedule_pipeline(p));
    RC_ASSERT(c.ok);
    OracleVerdict v = check_theorems(p, c.program, resolve_input(p, {}), Limits{});
    RC_ASSERT(v.holds());
  });
}

TEST_CASE("floats: a clamp of a float func value's cast bounds the read for beta1, not for beta0", "[floats][bounds]") {
  // g is a func: β0 knows nothing of its values, so i32(g[x] * 7.0f) is unbounded and so is
  // fig. 2.10b's min of it; β1 keeps the half-bounded interval through the clamp: [0, 6].
  Program p = test::parse_valid(R"(pipeline f() {
    fun g(x) = { f32(x) * 0.125f }
    fun lut(i) = { f32(i) * 2.0f }
    fun f(x) = { lut[clamp(i32(g[x] * 7.0f), 0, 6)] }
  } realize () over (-4, 20))");
  TgtProgram t = schedule_pipeline(p);
  Query q = extract_query(t);
  CHECK_FALSE(run_builtin_engine(q, t, BoundsEngine::Beta0).ok);
  Beta0Result r = run_builtin_engine(q, t, BoundsEngine::Beta1);
  CHECK(r.ok);
}

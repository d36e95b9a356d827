// Halide's integer types and every operator at the edges of each type, against values
// computed by hand from Halide's documentation (semantics/type.hpp, type_ops.hpp;
// docs/types.md). Edges: min, max, -1, 0, shifts by the width or more, division by 0 and
// by -1.
#include "semantics/type.hpp"
#include "semantics/type_ops.hpp"

#include "tests/support.hpp"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <vector>

using namespace halo;

namespace {

const Type u1 = Type::boolean(), u8 = Type::uint(8), u16 = Type::uint(16), u32 = Type::uint(32),
           u64 = Type::uint(64), i8 = Type::int_(8), i16 = Type::int_(16), i32 = Type::int_(32),
           i64 = Type::int_(64);

Value big(const char* text) { return *Value::parse(text); }
const Value undef = Value::err_undef();

using test::ev;
using test::ev1;
using test::ev2;

}  // namespace

TEST_CASE("types: ranges, names and representability", "[types]") {
  CHECK(u1.min() == Value(0));
  CHECK(u1.max() == Value(1));
  CHECK(u8.max() == Value(255));
  CHECK(i8.min() == Value(-128));
  CHECK(i8.max() == Value(127));
  CHECK(i16.min() == Value(-32768));
  CHECK(u32.max() == Value(int64_t{4294967295}));
  CHECK(i64.min() == Value(INT64_MIN));
  CHECK(i64.max() == Value(INT64_MAX));
  CHECK(u64.max() == big("18446744073709551615"));
  CHECK(u8.can_represent(Value(255)));
  CHECK_FALSE(u8.can_represent(Value(256)));
  CHECK_FALSE(u8.can_represent(Value(-1)));
  CHECK(i8.can_represent(Value(-128)));
  CHECK_FALSE(i8.can_represent(Value(128)));
  CHECK(Type::z().can_represent(big("-99999999999999999999999")));
  // Type::can_represent(Type): Int(n) holds UInt(m) only for m < n; UInt never holds Int.
  CHECK(i16.can_represent(u8));
  CHECK_FALSE(i8.can_represent(u8));
  CHECK(i8.can_represent(u1));
  CHECK_FALSE(u32.can_represent(i8));
  CHECK(u32.can_represent(u16));
  CHECK(parse_type_name("u8") == u8);
  CHECK(parse_type_name("uint8_t") == u8);
  CHECK(parse_type_name("int16") == i16);
  CHECK(parse_type_name("bool") == u1);
  CHECK(parse_type_name("u1") == u1);
  CHECK_FALSE(parse_type_name("u7"));
  CHECK_FALSE(parse_type_name("f16"));  // Float(16) and BFloat(16) are not modelled
  CHECK(u8.to_string() == "u8");
  CHECK(u1.to_string() == "bool");
  CHECK(i64.halide_name() == "Int(64)");
  CHECK(u1.halide_name() == "Bool()");
  CHECK(u16.c_type() == "uint16_t");
  CHECK(u8.widen() == u16);
  CHECK(u1.widen() == u8);
  // Type::can_overflow(): unsigned and narrow signed types wrap; Int(32), Int(64) do not.
  CHECK(u64.wraps());
  CHECK(i16.wraps());
  CHECK_FALSE(i32.wraps());
  CHECK_FALSE(i64.wraps());
}

TEST_CASE("types: wrapping, fitting and saturating a value", "[types]") {
  CHECK(wrap_to(u8, Value(300)) == Value(44));
  CHECK(wrap_to(u8, Value(-1)) == Value(255));
  CHECK(wrap_to(i8, Value(200)) == Value(-56));
  CHECK(wrap_to(i8, Value(-129)) == Value(127));
  CHECK(wrap_to(u32, Value(-1)) == Value(int64_t{4294967295}));
  CHECK(wrap_to(u64, Value(-1)) == big("18446744073709551615"));
  CHECK(wrap_to(i64, big("18446744073709551615")) == Value(-1));
  CHECK(wrap_to(i64, big("9223372036854775808")) == Value(INT64_MIN));
  CHECK(wrap_to(u1, Value(2)) == Value(0));  // the low bit (docs/semantics-decisions.md)
  CHECK(wrap_to(u1, Value(3)) == Value(1));
  CHECK(wrap_to(Type::z(), big("123456789012345678901234")) == big("123456789012345678901234"));
  CHECK(wrap_to(u8, Value::err_mem()) == Value::err_mem());
  CHECK(fit(i32, Value(int64_t{2147483648})) == undef);
  CHECK(fit(i32, Value(INT32_MIN)) == Value(INT32_MIN));
  CHECK(fit(i64, big("9223372036854775808")) == undef);
  CHECK(fit(i16, Value(32768)) == Value(-32768));
  CHECK(saturate(u8, Value(300)) == Value(255));
  CHECK(saturate(u8, Value(-5)) == Value(0));
  CHECK(saturate(i8, Value(int64_t{4000000000})) == Value(127));
  CHECK(saturate(i32, Value(int64_t{4000000000})) == Value(INT32_MAX));
  CHECK(saturate(u32, Value(-1)) == Value(0));
}

TEST_CASE("types: match_types and the typing of every operator", "[types]") {
  CHECK(match_types(u8, i8) == i8);
  CHECK(match_types(u8, u16) == u16);
  CHECK(match_types(i8, u32) == i32);
  CHECK(match_types(u32, i32) == i32);
  CHECK(match_types(u1, u8) == u8);
  CHECK(match_types(u1, i32) == i32);
  CHECK(type_op(Op::Lt, std::vector<Type>{u8, i16}).result == u1);
  CHECK(type_op(Op::Lt, std::vector<Type>{u8, i16}).operands == std::vector<Type>{i16, i16});
  CHECK(type_op(Op::Abs, std::vector<Type>{i8}).result == u8);
  CHECK(type_op(Op::Abs, std::vector<Type>{u16}).result == u16);
  CHECK(type_op(Op::Absd, std::vector<Type>{i16, u8}).result == u16);
  CHECK(type_op(Op::WideningAdd, std::vector<Type>{u8, u8}).result == u16);
  CHECK(type_op(Op::WideningAdd, std::vector<Type>{u1, u1}).result == u8);
  CHECK(type_op(Op::WideningSub, std::vector<Type>{u8, u8}).result == i16);
  CHECK(type_op(Op::WideningMul, std::vector<Type>{u8, i8}).result == i16);
  CHECK(type_op(Op::WideningMul, std::vector<Type>{u8, i8}).operands == std::vector<Type>{u8, i8});
  // match_bits: the amount is wider, so the shifted value widens (Halide's implementation,
  // not its documentation).
  CHECK(type_op(Op::Shl, std::vector<Type>{u8, i32}).result == u32);
  CHECK(type_op(Op::Shr, std::vector<Type>{i8, u8}).result == i8);
  CHECK(type_op(Op::Cast, std::vector<Type>{i32}, u8).result == u8);
  CHECK(type_op(Op::Select, std::vector<Type>{u1, u8, u8}).result == u8);
  // What Halide rejects at compile time.
  CHECK_FALSE(type_op(Op::And, std::vector<Type>{i32, u1}).error.empty());
  CHECK_FALSE(type_op(Op::Not, std::vector<Type>{u8}).error.empty());
  CHECK_FALSE(type_op(Op::Select, std::vector<Type>{u1, u8, i16}).error.empty());
  CHECK_FALSE(type_op(Op::Select, std::vector<Type>{i32, u8, u8}).error.empty());
  CHECK_FALSE(type_op(Op::BitAnd, std::vector<Type>{u8, i8}).error.empty());
  CHECK_FALSE(type_op(Op::WideningAdd, std::vector<Type>{i64, i64}).error.empty());
  CHECK_FALSE(type_op(Op::MulShiftRight, std::vector<Type>{u8, u8, i8}).error.empty());
  CHECK_FALSE(type_op(Op::Lerp, std::vector<Type>{u64, u64, u8}).error.empty());
  CHECK_FALSE(type_op(Op::Lerp, std::vector<Type>{u8, u16, u8}).error.empty());
  CHECK_FALSE(type_op(Op::Add, std::vector<Type>{Type::z(), u8}).error.empty());
  // ℤ keeps fig. 2.5b's operators.
  CHECK(type_op(Op::Add, std::vector<Type>{Type::z(), Type::z()}).result == Type::z());
}

TEST_CASE("types: + - * and unary - wrap or are undefined at the edges", "[types]") {
  CHECK(ev2(Op::Add, u8, Value(200), Value(100)) == Value(44));
  CHECK(ev2(Op::Add, u8, Value(255), Value(1)) == Value(0));
  CHECK(ev2(Op::Sub, u8, Value(0), Value(1)) == Value(255));
  CHECK(ev2(Op::Add, i8, Value(127), Value(1)) == Value(-128));
  CHECK(ev2(Op::Sub, i8, Value(-128), Value(1)) == Value(127));
  CHECK(ev2(Op::Mul, i16, Value(300), Value(300)) == Value(24464));
  CHECK(ev2(Op::Sub, u32, Value(0), Value(1)) == Value(int64_t{4294967295}));
  CHECK(ev2(Op::Add, u64, u64.max(), Value(1)) == Value(0));
  CHECK(ev2(Op::Mul, u8, Value(2), Value(200)) == Value(144));  // the unsharp mask's 2 * in(x, y)
  // Signed 32- and 64-bit overflow is undefined in Halide: ε_undef, out of model.
  CHECK(ev2(Op::Add, i32, Value(INT32_MAX), Value(1)) == undef);
  CHECK(ev2(Op::Sub, i32, Value(INT32_MIN), Value(1)) == undef);
  CHECK(ev2(Op::Mul, i32, Value(65536), Value(65536)) == undef);
  CHECK(ev2(Op::Add, i64, Value(INT64_MAX), Value(1)) == undef);
  CHECK(ev2(Op::Add, i32, Value(INT32_MAX), Value(0)) == Value(INT32_MAX));
  CHECK(ev1(Op::Neg, u8, Value(56)) == Value(200));
  CHECK(ev1(Op::Neg, i8, Value(-128)) == Value(-128));
  CHECK(ev1(Op::Neg, i32, Value(INT32_MIN)) == undef);
  CHECK(ev1(Op::Neg, u8, Value(0)) == Value(0));
  CHECK(ev2(Op::Add, u1, Value(1), Value(1)) == Value(0));
  // Errors propagate, the greatest first.
  CHECK(ev2(Op::Add, u8, Value::err_rdom(), Value(1)) == Value::err_rdom());
  CHECK(ev2(Op::Add, u8, Value::err_undef(), Value::err_mem()) == undef);
}

TEST_CASE("types: / and % are Euclidean and total in every type, MIN / -1 at the edge", "[types]") {
  CHECK(ev2(Op::Div, i8, Value(-7), Value(2)) == Value(-4));
  CHECK(ev2(Op::Mod, i8, Value(-7), Value(2)) == Value(1));
  CHECK(ev2(Op::Div, i8, Value(-7), Value(-2)) == Value(4));
  CHECK(ev2(Op::Mod, i8, Value(-7), Value(-2)) == Value(1));
  CHECK(ev2(Op::Div, i8, Value(7), Value(-2)) == Value(-3));
  CHECK(ev2(Op::Mod, i8, Value(7), Value(-2)) == Value(1));
  CHECK(ev2(Op::Div, i16, Value(-7), Value(3)) == Value(-3));
  CHECK(ev2(Op::Mod, i16, Value(-7), Value(3)) == Value(2));
  for (Type t : {u8, u16, u32, u64, i8, i16, i32, i64}) {
    INFO(t.to_string());
    CHECK(ev2(Op::Div, t, t.max(), Value(0)) == Value(0));
    CHECK(ev2(Op::Mod, t, t.max(), Value(0)) == Value(0));
    CHECK(ev2(Op::Div, t, t.min(), Value(0)) == Value(0));
    CHECK(ev2(Op::Div, t, t.max(), Value(1)) == t.max());
  }
  CHECK(ev2(Op::Div, u8, Value(255), Value(2)) == Value(127));
  CHECK(ev2(Op::Div, i8, Value(-128), Value(-1)) == Value(-128));  // wraps where overflow is defined
  CHECK(ev2(Op::Mod, i8, Value(-128), Value(-1)) == Value(0));
  CHECK(ev2(Op::Div, i16, Value(-32768), Value(-1)) == Value(-32768));
  CHECK(ev2(Op::Div, i32, Value(INT32_MIN), Value(-1)) == undef);  // undocumented for Int(32)
  CHECK(ev2(Op::Mod, i32, Value(INT32_MIN), Value(-1)) == Value(0));
  CHECK(ev2(Op::Div, i64, Value(INT64_MIN), Value(-1)) == undef);
  CHECK(ev2(Op::Div, i32, Value(-1), Value(-1)) == Value(1));
}

TEST_CASE("types: comparisons, logic, select, min and max", "[types]") {
  CHECK(ev2(Op::Lt, u8, Value(0), Value(255)) == Value(1));
  CHECK(ev2(Op::Ge, i8, Value(-128), Value(127)) == Value(0));
  CHECK(ev2(Op::Eq, u64, u64.max(), u64.max()) == Value(1));
  CHECK(ev2(Op::And, u1, Value(1), Value(0)) == Value(0));
  CHECK(ev2(Op::Or, u1, Value(1), Value(0)) == Value(1));
  CHECK(ev1(Op::Not, u1, Value(0)) == Value(1));
  CHECK(ev(Op::Select, {u1, u8, u8}, {Value(0), Value(1), Value(255)}) == Value(255));
  CHECK(ev2(Op::Min, i8, Value(-128), Value(127)) == Value(-128));
  CHECK(ev2(Op::Max, u16, Value(0), Value(65535)) == Value(65535));
}

TEST_CASE("types: casts truncate, saturating casts clamp", "[types]") {
  CHECK(ev(Op::Cast, {i32}, {Value(300)}, u8) == Value(44));
  CHECK(ev(Op::Cast, {u8}, {Value(200)}, i8) == Value(-56));
  CHECK(ev(Op::Cast, {i8}, {Value(-1)}, u32) == Value(int64_t{4294967295}));
  CHECK(ev(Op::Cast, {i8}, {Value(-1)}, u16) == Value(65535));
  CHECK(ev(Op::Cast, {i8}, {Value(-1)}, u64) == big("18446744073709551615"));
  CHECK(ev(Op::Cast, {u64}, {u64.max()}, i64) == Value(-1));
  CHECK(ev(Op::Cast, {i32}, {Value(2)}, u1) == Value(0));
  CHECK(ev(Op::Cast, {i32}, {Value(3)}, u1) == Value(1));
  CHECK(ev(Op::Cast, {u1}, {Value(1)}, i32) == Value(1));
  CHECK(ev(Op::Cast, {i64}, {Value(INT64_MAX)}, i32) == Value(-1));  // no undefinedness in casts
  CHECK(ev(Op::SaturatingCast, {i32}, {Value(300)}, u8) == Value(255));
  CHECK(ev(Op::SaturatingCast, {i32}, {Value(-5)}, u8) == Value(0));
  CHECK(ev(Op::SaturatingCast, {u32}, {Value(int64_t{4000000000})}, i8) == Value(127));
  CHECK(ev(Op::SaturatingCast, {u32}, {Value(int64_t{4000000000})}, i32) == Value(INT32_MAX));
  CHECK(ev(Op::SaturatingCast, {i8}, {Value(-1)}, u32) == Value(0));
  CHECK(ev(Op::SaturatingCast, {i64}, {Value(INT64_MIN)}, i16) == Value(-32768));
}

TEST_CASE("types: bitwise operators on the type's bit pattern", "[types]") {
  CHECK(ev2(Op::BitAnd, u8, Value(0xF0), Value(0x3C)) == Value(0x30));
  CHECK(ev2(Op::BitAnd, i8, Value(-1), Value(5)) == Value(5));
  CHECK(ev2(Op::BitOr, i8, Value(-128), Value(1)) == Value(-127));
  CHECK(ev2(Op::BitXor, u64, u64.max(), Value(1)) == big("18446744073709551614"));
  CHECK(ev2(Op::BitXor, i64, Value(-1), Value(0)) == Value(-1));
  CHECK(ev2(Op::BitOr, u1, Value(0), Value(1)) == Value(1));
  CHECK(ev1(Op::BitNot, u8, Value(0)) == Value(255));
  CHECK(ev1(Op::BitNot, i8, Value(0)) == Value(-1));
  CHECK(ev1(Op::BitNot, i8, Value(-128)) == Value(127));
  CHECK(ev1(Op::BitNot, u64, Value(0)) == u64.max());
  CHECK(ev1(Op::BitNot, i32, Value(INT32_MAX)) == Value(INT32_MIN));
}

TEST_CASE("types: shifts, with negative and oversized amounts", "[types]") {
  CHECK(ev2(Op::Shl, u8, Value(200), Value(1)) == Value(144));
  CHECK(ev2(Op::Shl, u8, Value(1), Value(7)) == Value(128));
  CHECK(ev2(Op::Shl, u8, Value(1), Value(8)) == undef);  // the width or more: undefined
  CHECK(ev2(Op::Shr, u8, Value(255), Value(8)) == undef);
  CHECK(ev2(Op::Shr, i32, Value(-1), Value(32)) == undef);
  CHECK(ev2(Op::Shr, u8, Value(255), Value(7)) == Value(1));
  CHECK(ev2(Op::Shr, u8, Value(255), Value(1)) == Value(127));  // logical for unsigned
  CHECK(ev2(Op::Shr, i8, Value(-128), Value(7)) == Value(-1));  // arithmetic for signed
  CHECK(ev2(Op::Shr, i8, Value(-1), Value(1)) == Value(-1));
  CHECK(ev2(Op::Shr, i64, Value(-5), Value(1)) == Value(-3));
  CHECK(ev2(Op::Shl, i16, Value(1), Value(15)) == Value(-32768));  // narrow signed wraps
  CHECK(ev2(Op::Shl, i32, Value(1), Value(30)) == Value(1073741824));
  CHECK(ev2(Op::Shl, i32, Value(1), Value(31)) == undef);  // signed 32-bit overflow
  CHECK(ev2(Op::Shl, i8, Value(-1), Value(3)) == Value(-8));
  // A negative signed amount shifts the other way (u8 value, i8 amount: match_bits keeps
  // each signedness).
  CHECK(ev(Op::Shl, {u8, i8}, {Value(200), Value(-1)}) == Value(100));
  CHECK(ev(Op::Shr, {u8, i8}, {Value(200), Value(-1)}) == Value(144));
  CHECK(ev(Op::Shl, {u8, i8}, {Value(200), Value(-8)}) == undef);
  // A wider amount widens the value first: u8 200 << i32 1 is u32 400.
  CHECK(ev(Op::Shl, {u8, i32}, {Value(200), Value(1)}) == Value(400));
}

TEST_CASE("types: abs and absd return the unsigned type of the width", "[types]") {
  CHECK(ev1(Op::Abs, i8, Value(-128)) == Value(128));
  CHECK(ev1(Op::Abs, i32, Value(INT32_MIN)) == Value(int64_t{2147483648}));
  CHECK(ev1(Op::Abs, i64, Value(INT64_MIN)) == big("9223372036854775808"));
  CHECK(ev1(Op::Abs, u8, Value(200)) == Value(200));
  CHECK(ev1(Op::Abs, i8, Value(0)) == Value(0));
  CHECK(ev2(Op::Absd, i8, Value(-128), Value(127)) == Value(255));
  CHECK(ev2(Op::Absd, u8, Value(3), Value(250)) == Value(247));
  CHECK(ev2(Op::Absd, u64, Value(0), u64.max()) == u64.max());
}

TEST_CASE("types: the widening, saturating and halving intrinsics", "[types]") {
  CHECK(ev2(Op::WideningAdd, u8, Value(255), Value(255)) == Value(510));
  CHECK(ev2(Op::WideningSub, u8, Value(0), Value(255)) == Value(-255));
  CHECK(ev(Op::WideningMul, {u8, i8}, {Value(255), Value(-128)}) == Value(-32640));
  CHECK(ev2(Op::WideningMul, i32, Value(INT32_MIN), Value(INT32_MIN)) == big("4611686018427387904"));
  CHECK(ev2(Op::SaturatingAdd, u8, Value(200), Value(100)) == Value(255));
  CHECK(ev2(Op::SaturatingAdd, i8, Value(-100), Value(-100)) == Value(-128));
  CHECK(ev2(Op::SaturatingAdd, i32, Value(INT32_MAX), Value(1)) == Value(INT32_MAX));  // defined, unlike +
  CHECK(ev2(Op::SaturatingSub, u8, Value(3), Value(5)) == Value(0));
  CHECK(ev2(Op::SaturatingSub, i64, Value(INT64_MIN), Value(1)) == Value(INT64_MIN));
  CHECK(ev2(Op::HalvingAdd, u8, Value(255), Value(255)) == Value(255));
  CHECK(ev2(Op::HalvingAdd, i8, Value(-128), Value(-127)) == Value(-128));
  CHECK(ev2(Op::HalvingAdd, u8, Value(1), Value(2)) == Value(1));
  CHECK(ev2(Op::RoundingHalvingAdd, u8, Value(255), Value(254)) == Value(255));
  CHECK(ev2(Op::RoundingHalvingAdd, u8, Value(1), Value(2)) == Value(2));
  CHECK(ev2(Op::RoundingHalvingAdd, i8, Value(-1), Value(-2)) == Value(-1));
  CHECK(ev2(Op::HalvingSub, u8, Value(0), Value(1)) == Value(255));
  CHECK(ev2(Op::HalvingSub, i8, Value(127), Value(-128)) == Value(127));
  CHECK(ev2(Op::HalvingSub, u8, Value(5), Value(1)) == Value(2));
}

TEST_CASE("types: rounding shifts and multiply-shift", "[types]") {
  CHECK(ev2(Op::RoundingShiftRight, u8, Value(255), Value(1)) == Value(128));
  CHECK(ev2(Op::RoundingShiftRight, u8, Value(5), Value(1)) == Value(3));
  CHECK(ev2(Op::RoundingShiftRight, i8, Value(-3), Value(1)) == Value(-1));
  CHECK(ev2(Op::RoundingShiftRight, u8, Value(77), Value(0)) == Value(77));
  CHECK(ev2(Op::RoundingShiftRight, u8, Value(77), Value(8)) == undef);
  CHECK(ev(Op::RoundingShiftRight, {u8, i8}, {Value(200), Value(-1)}) == Value(144));
  CHECK(ev2(Op::RoundingShiftLeft, u8, Value(100), Value(1)) == Value(200));
  CHECK(ev2(Op::RoundingShiftLeft, u8, Value(200), Value(1)) == undef);  // Halide's docs and code disagree
  CHECK(ev(Op::RoundingShiftLeft, {u8, i8}, {Value(7), Value(-1)}) == Value(4));
  CHECK(ev(Op::MulShiftRight, {u8, u8, u8}, {Value(200), Value(200), Value(8)}) == Value(156));
  CHECK(ev(Op::MulShiftRight, {u8, u8, u8}, {Value(255), Value(255), Value(0)}) == Value(255));
  CHECK(ev(Op::MulShiftRight, {i16, i16, u16}, {Value(-32768), Value(-32768), Value(15)}) == Value(32767));
  CHECK(ev(Op::RoundingMulShiftRight, {u8, u8, u8}, {Value(3), Value(3), Value(1)}) == Value(5));
  CHECK(ev(Op::RoundingMulShiftRight, {u8, u8, u8}, {Value(3), Value(3), Value(16)}) == undef);
  CHECK(ev(Op::RoundingMulShiftRight, {i8, i8, u8}, {Value(-3), Value(3), Value(1)}) == Value(-4));
}

TEST_CASE("types: counting bits, and lerp", "[types]") {
  CHECK(ev1(Op::CountLeadingZeros, u8, Value(1)) == Value(7));
  CHECK(ev1(Op::CountLeadingZeros, u8, Value(0)) == Value(8));
  CHECK(ev1(Op::CountLeadingZeros, i8, Value(-1)) == Value(0));
  CHECK(ev1(Op::CountLeadingZeros, i32, Value(1)) == Value(31));
  CHECK(ev1(Op::CountLeadingZeros, u64, Value(1)) == Value(63));
  CHECK(ev1(Op::CountTrailingZeros, u8, Value(0)) == Value(8));
  CHECK(ev1(Op::CountTrailingZeros, u8, Value(8)) == Value(3));
  CHECK(ev1(Op::CountTrailingZeros, i16, Value(-32768)) == Value(15));
  CHECK(ev1(Op::Popcount, i8, Value(-1)) == Value(8));
  CHECK(ev1(Op::Popcount, u32, Value(0)) == Value(0));
  CHECK(ev1(Op::Popcount, u64, u64.max()) == Value(64));
  CHECK(ev(Op::Lerp, {u8, u8, u8}, {Value(0), Value(255), Value(128)}) == Value(128));
  CHECK(ev(Op::Lerp, {u8, u8, u8}, {Value(0), Value(1), Value(128)}) == Value(1));
  CHECK(ev(Op::Lerp, {u8, u8, u8}, {Value(0), Value(1), Value(127)}) == Value(0));
  CHECK(ev(Op::Lerp, {u8, u8, u8}, {Value(42), Value(69), Value(128)}) == Value(56));
  CHECK(ev(Op::Lerp, {u8, u8, u8}, {Value(69), Value(42), Value(128)}) == Value(55));
  CHECK(ev(Op::Lerp, {i8, i8, u8}, {Value(-128), Value(127), Value(255)}) == Value(127));
  CHECK(ev(Op::Lerp, {i8, i8, u8}, {Value(-128), Value(127), Value(0)}) == Value(-128));
  CHECK(ev(Op::Lerp, {u16, u16, u8}, {Value(0), Value(65535), Value(1)}) == Value(257));
  CHECK(ev(Op::Lerp, {u8, u8, u16}, {Value(0), Value(255), Value(65535)}) == Value(255));
  CHECK(ev(Op::Lerp, {u1, u1, u8}, {Value(0), Value(1), Value(128)}) == Value(1));
  CHECK(ev(Op::Lerp, {u1, u1, u8}, {Value(0), Value(1), Value(127)}) == Value(0));
}

TEST_CASE("property: every typed result lies in its type or is ε_undef", "[types][property]") {
  const std::vector<Type> types = {u1, u8, u16, u32, u64, i8, i16, i32, i64};
  const std::vector<Op> binary = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Mod, Op::Min, Op::Max,
                                  Op::SaturatingAdd, Op::SaturatingSub, Op::HalvingAdd, Op::HalvingSub,
                                  Op::RoundingHalvingAdd, Op::Absd, Op::Shl, Op::Shr, Op::BitAnd, Op::BitOr,
                                  Op::BitXor, Op::RoundingShiftRight, Op::RoundingShiftLeft};
  rc::prop("in range", [&] {
    Type t = *rc::gen::elementOf(types);
    Op op = *rc::gen::elementOf(binary);
    // Operands at and around the edges of the type, and anywhere in it.
    auto operand = [&] {
      Value lo = t.min(), hi = t.max();
      int pick = *rc::gen::inRange(0, 6);
      if (pick == 0) return lo;
      if (pick == 1) return hi;
      if (pick == 2) return Value(0);
      if (pick == 3) return t.can_represent(Value(-1)) ? Value(-1) : Value(1);
      int64_t x = *rc::gen::arbitrary<int64_t>();
      return wrap_to(t, Value(x));
    };
    Value a = operand(), b = operand();
    OpTyping ty = type_op(op, std::vector<Type>{t, t});
    RC_PRE(ty.error.empty());
    Value r = apply_typed_op(op, ty.result, ty.operands, std::vector<Value>{a, b});
    RC_ASSERT((r == Value::err_undef() || ty.result.can_represent(r)));
    // Where the type wraps, the only undefined results are shifts by the width or more and
    // the rounding left shift where Halide's documentation and code disagree.
    if (ty.result.wraps() && r == Value::err_undef())
      RC_ASSERT((op == Op::Shl || op == Op::Shr || op == Op::RoundingShiftLeft || op == Op::RoundingShiftRight));
  });
}

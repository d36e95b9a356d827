// Halide's integer types: see type.hpp.
#include "semantics/type.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>

namespace halo {

Value Type::min() const {
  if (is_float()) return make_float(*this, -std::numeric_limits<double>::infinity());
  if (is_int()) return Value::from_big(-(BigInt(1) << (bits_ - 1)));
  return Value(int64_t{0});
}

Value Type::max() const {
  if (is_float()) return make_float(*this, std::numeric_limits<double>::infinity());
  if (is_int()) return sub(pow2(bits_ - 1), Value(int64_t{1}));
  return sub(pow2(bits_), Value(int64_t{1}));
}

bool Type::can_represent(const Value& v) const {
  if (is_z() || v.is_error()) return true;
  if (is_float()) {  // src/Type.cpp: (int64_t)(float)x == x, for an integer x
    if (v.is_float()) return true;
    Type word = v.sign() < 0 ? Type::int_(64) : Type::uint(64);
    return cast_value(word, *this, cast_value(*this, word, v)) == v;
  }
  if (v.is_float()) return false;
  return compare(v, min()) >= 0 && compare(v, max()) <= 0;
}

// Type::can_represent(Type) in src/Type.cpp: an Int holds a narrower-or-equal Int and a
// strictly narrower UInt; a UInt holds a narrower-or-equal UInt and no Int.
// A float holds a narrower-or-equal float and, Float(64), an integer of at most 32 bits
// (Float(32) one of at most 16).
bool Type::can_represent(Type o) const {
  if (*this == o || is_z()) return true;
  if (o.is_z()) return false;
  if (is_float()) return o.is_float() ? o.bits() <= bits_ : o.bits() <= (bits_ == 64 ? 32 : 16);
  if (o.is_float()) return false;
  if (is_int()) return o.is_int() ? o.bits() <= bits_ : o.bits() < bits_;
  return o.is_uint() && o.bits() <= bits_;
}

std::string Type::to_string() const {
  if (is_z()) return "int";
  if (is_bool()) return "bool";
  return fmt::format("{}{}", is_int() ? 'i' : is_float() ? 'f' : 'u', bits_);
}

std::string Type::halide_name() const {
  if (is_bool()) return "Bool()";
  return fmt::format("{}({})", is_int() ? "Int" : is_float() ? "Float" : "UInt", bits_);
}

std::string Type::c_type() const {
  if (is_bool()) return "bool";
  if (is_float()) return bits_ == 32 ? "float" : "double";
  return fmt::format("{}int{}_t", is_int() ? "" : "u", bits_);
}

std::optional<Type> parse_type_name(std::string_view name) {
  static const std::map<std::string_view, Type> names = {
      {"bool", Type::boolean()},  {"u1", Type::boolean()},
      {"u8", Type::uint(8)},      {"u16", Type::uint(16)},    {"u32", Type::uint(32)},    {"u64", Type::uint(64)},
      {"i8", Type::int_(8)},      {"i16", Type::int_(16)},    {"i32", Type::int_(32)},    {"i64", Type::int_(64)},
      {"uint8", Type::uint(8)},   {"uint16", Type::uint(16)}, {"uint32", Type::uint(32)}, {"uint64", Type::uint(64)},
      {"int8", Type::int_(8)},    {"int16", Type::int_(16)},  {"int32", Type::int_(32)},  {"int64", Type::int_(64)},
      {"uint8_t", Type::uint(8)}, {"uint16_t", Type::uint(16)}, {"uint32_t", Type::uint(32)},
      {"uint64_t", Type::uint(64)}, {"int8_t", Type::int_(8)}, {"int16_t", Type::int_(16)},
      {"int32_t", Type::int_(32)}, {"int64_t", Type::int_(64)},
      {"f32", Type::float_(32)},  {"f64", Type::float_(64)},  {"float", Type::float_(32)}, {"double", Type::float_(64)},
      {"float32", Type::float_(32)}, {"float64", Type::float_(64)}};
  auto it = names.find(name);
  if (it == names.end()) return std::nullopt;
  return it->second;
}

Value wrap_to(Type t, const Value& v) {
  if (t.is_z() || v.is_error()) return v;
  int n = t.bits();
  if (v.is_small() && n < 64) {
    uint64_t low = uint64_t(v.small()) & ((uint64_t{1} << n) - 1);  // two's complement, low n bits
    if (t.is_int() && (low >> (n - 1))) return Value(int64_t(low) - (int64_t{1} << n) + 0);
    return Value(int64_t(low));
  }
  BigInt m = BigInt(1) << n;
  BigInt r = v.to_big() % m;  // truncates toward zero: r in (-m, m)
  if (r < 0) r += m;
  if (t.is_int() && r >= (m >> 1)) r -= m;
  return Value::from_big(r);
}

Value make_float(Type t, double d) { return t.bits() == 32 ? Value::f32(float(d)) : Value::f64(d); }

Value number_as_float(Type t, const Value& v) {
  if (v.is_error()) return v;
  if (v.is_float()) return make_float(t, v.as_double());
  return cast_value(t, Type::z(), v);  // an integer's conversion does not depend on its type
}

Value cast_value(Type t, Type from, const Value& v) {
  if (v.is_error() || t == from) return v;
  if (!from.is_float()) {
    if (!t.is_float()) return wrap_to(t, v);
    // [CAST-INT-FLOAT] CreateSIToFP/UIToFP: correctly rounded. Every integer of a Halide
    // type fits int64 or uint64, whose host conversions round to nearest, ties to even
    // (docs/floats.md, "Exactness").
    if (v.is_small()) {
      int64_t i = v.small();
      return t.bits() == 32 ? Value::f32(float(i)) : Value::f64(double(i));
    }
    uint64_t u = static_cast<uint64_t>(v.to_big());
    return t.bits() == 32 ? Value::f32(float(u)) : Value::f64(double(u));
  }
  double d = v.as_double();
  // [CAST-FLOAT-FLOAT] CreateFPCast: binary64 to binary32 rounds to nearest even (inf when
  // it overflows); binary32 to binary64 is exact.
  if (t.is_float()) return make_float(t, d);
  // [CAST-FLOAT-INT] CreateFPToSI/FPToUI truncate toward zero; poison when the truncated
  // value does not fit (a Bool goes through UInt(8), then keeps the low bit).
  if (!std::isfinite(d)) return Value::err_undef();
  double tr = std::trunc(d);
  Type via = t.is_bool() ? Type::uint(8) : t;
  if (tr < -0x1p63 || tr >= 0x1p64) return Value::err_undef();
  Value i = tr < 0x1p63 ? Value(int64_t(tr)) : Value::from_big(BigInt(uint64_t(tr)));
  if (!via.can_represent(i)) return Value::err_undef();
  return wrap_to(t, i);
}

Value fit(Type t, const Value& v) {
  if (t.is_z() || v.is_error()) return v;
  if (t.wraps()) return wrap_to(t, v);
  return t.can_represent(v) ? v : Value::err_undef();
}

Value saturate(Type t, const Value& v) {
  if (t.is_z() || v.is_error()) return v;
  if (compare(v, t.min()) < 0) return t.min();
  if (compare(v, t.max()) > 0) return t.max();
  return v;
}

}  // namespace halo

// The value domain V = Z ∪ {ε_rdom, ε_mem} of thesis §2.4.1 (Def. 2.6), and ε_undef, the
// value of an operation Halide leaves undefined in a typed program (signed 32- and 64-bit
// overflow, a shift by the type's width or more; docs/types.md), and the IEEE-754 binary32
// and binary64 values of a program with Halide's Float(32) and Float(64) (docs/floats.md).
//
// Integers are unbounded: a value that fits in a machine word is kept as an int64_t
// (the fast path every evaluator uses), anything larger is promoted to a Boost
// cpp_int and demoted again as soon as it fits. Nothing ever wraps around.
// Errors are ordered ε_rdom < ε_mem and every operation returns the greatest error
// among its operands; div and mod are Euclidean and total (x / 0 = x % 0 = 0).
#pragma once

#include <boost/multiprecision/cpp_int.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace halo {

using BigInt = boost::multiprecision::cpp_int;

class Value {
 public:
  // Order matters: errors compare by this enum (Def. 2.6: ε_rdom < ε_mem; ε_undef, which
  // only typed programs produce, is the greatest: docs/semantics-decisions.md).
  // Float32 and Float64 are values, not errors: a float holds its IEEE bit pattern in the
  // machine word, and only typed programs with Halide's float types make one.
  enum class Kind : uint8_t { Int = 0, ErrRdom = 1, ErrMem = 2, ErrUndef = 3, Float32 = 4, Float64 = 5 };

  Value() = default;
  Value(int64_t v) : small_(v) {}  // NOLINT: integers convert implicitly
  Value(int v) : small_(v) {}      // NOLINT
  static Value from_big(const BigInt& v);
  static Value err_rdom() { return Value(Kind::ErrRdom); }
  static Value err_mem() { return Value(Kind::ErrMem); }
  static Value err_undef() { return Value(Kind::ErrUndef); }
  static Value error(Kind k) { return Value(k); }
  static Value f32(float f);
  static Value f64(double d);
  // The float of `bits` (32 or 64) whose IEEE encoding is the low bits of raw.
  static Value from_float_bits(int bits, uint64_t raw);
  // Parses an optionally signed decimal literal; nullopt when malformed.
  static std::optional<Value> parse(std::string_view text);

  Kind kind() const { return kind_; }
  bool is_error() const { return kind_ >= Kind::ErrRdom && kind_ <= Kind::ErrUndef; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_float() const { return kind_ >= Kind::Float32; }
  bool is_f32() const { return kind_ == Kind::Float32; }
  // A float's value (a binary32 widened exactly); its IEEE bit pattern (32 bits for a
  // binary32). Floats only.
  double as_double() const;
  float as_float() const;
  uint64_t float_bits() const { return uint64_t(small_); }
  bool is_nan() const;
  // True when the value is an integer held in the machine word.
  bool is_small() const { return kind_ == Kind::Int && !big_; }
  int64_t small() const { return small_; }
  BigInt to_big() const;
  const BigInt& to_big_ref() const { return *big_; }  // only when !is_small()
  std::optional<int64_t> as_int64() const {
    if (is_small()) return small_;
    return std::nullopt;
  }
  bool is_zero() const { return is_small() && small_ == 0; }
  int sign() const;  // -1, 0 or 1 (a float's: 0 for zeros and NaN)
  bool fits_in_bits(int bits) const;  // |v| < 2^bits (false for a float)

  // Decimal, or "err_rdom" / "err_mem" / "err_undef"; a float as the shortest decimal that
  // reads back to the same value ("0.1", "-0", "inf", "nan"; docs/floats.md).
  std::string to_string() const;
  // A float's exact bit pattern in C99 hexadecimal ("0x1.99999ap-4"); to_string otherwise.
  std::string to_hex_string() const;
  // How reports show a value: to_string, and a float's hex beside it when the command asked
  // for it (`--hex-floats`: set_float_display_hex): "0.1 (0x1.99999ap-4)".
  std::string display() const;
  size_t hash() const;

  // Floats are equal when their bit patterns are, except that every NaN equals every NaN:
  // IEEE-754 and Halide leave a NaN's payload unspecified (docs/semantics-decisions.md).
  friend bool operator==(const Value& a, const Value& b);
  friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

 private:
  explicit Value(Kind k) : kind_(k) {}
  Kind kind_ = Kind::Int;
  int64_t small_ = 0;  // an integer, or a float's bit pattern
  std::shared_ptr<const BigInt> big_;  // set iff the integer does not fit in int64_t
};

// The operators of fig. 2.5b, plus the sugar LANGUAGE.md adds (<=, >=, !=, unary -), then
// Halide's own operators, which only typed programs use (docs/types.md; their meaning per
// type is type_ops.hpp's). A Cast's or SaturatingCast's target is the node's type.
enum class Op : uint8_t {
  Add, Sub, Mul, Div, Mod,
  Lt, Gt, Eq, Le, Ge, Ne,
  And, Or, Not, Neg,
  Select, Min, Max,
  // Halide's (src/IROperator.h)
  Cast, SaturatingCast,
  BitAnd, BitOr, BitXor, BitNot, Shl, Shr,
  Abs, Absd,
  WideningAdd, WideningSub, WideningMul,
  SaturatingAdd, SaturatingSub, HalvingAdd, HalvingSub, RoundingHalvingAdd,
  RoundingShiftLeft, RoundingShiftRight, MulShiftRight, RoundingMulShiftRight,
  CountLeadingZeros, CountTrailingZeros, Popcount, Lerp,
  // Halide's float functions (src/IROperator.h; docs/floats.md). Reinterpret's target is the
  // node's type.
  Floor, Ceil, Round, Trunc, Sqrt, IsNan, IsInf, IsFinite, Reinterpret,
};
inline constexpr Op kLastOp = Op::Reinterpret;
int op_arity(Op op);
const char* op_name(Op op);  // the surface spelling: "+", "select", "widening_add", ...
// Whether the operator is one of Halide's own, beyond fig. 2.5b and LANGUAGE.md's sugar:
// writing one makes a program typed.
inline bool is_halide_op(Op op) { return op >= Op::Cast; }

// The greatest error among the operands, if any (Def. 2.6).
std::optional<Value::Kind> max_error(std::span<const Value> vs);
Value join_errors(const Value& a, const Value& b);  // precondition: one is an error

Value add(const Value& a, const Value& b);
Value sub(const Value& a, const Value& b);
Value mul(const Value& a, const Value& b);
Value div(const Value& a, const Value& b);  // Euclidean, x / 0 = 0
Value mod(const Value& a, const Value& b);  // Euclidean, 0 <= x % y < |y|, x % 0 = 0
// The operators of fig. 2.5b and LANGUAGE.md on ℤ. Halide's operators need a type
// (apply_typed_op, type_ops.hpp); here they give ε_undef, which no valid program reaches.
Value apply_op(Op op, std::span<const Value> args);
// -1, 0 or 1 as a < b, a == b, a > b (integers only).
int compare(const Value& a, const Value& b);
// 2^n for 0 <= n (within the command's big-integer cap).
Value pow2(int64_t n);

// Word-sized fast paths. They return false when the exact result does not fit (the
// caller then redoes the operation on Values) and never invoke undefined behaviour.
namespace fast {
inline bool add(int64_t a, int64_t b, int64_t& r) { return !__builtin_add_overflow(a, b, &r); }
inline bool sub(int64_t a, int64_t b, int64_t& r) { return !__builtin_sub_overflow(a, b, &r); }
inline bool mul(int64_t a, int64_t b, int64_t& r) { return !__builtin_mul_overflow(a, b, &r); }
inline bool div(int64_t a, int64_t b, int64_t& r) {
  if (b == 0) { r = 0; return true; }
  if (b == -1) return !__builtin_sub_overflow(int64_t{0}, a, &r);
  int64_t q = a / b, m = a % b;
  if (m < 0) q += (b > 0) ? -1 : 1;  // Euclidean: round so that the remainder is >= 0
  r = q;
  return true;
}
inline bool mod(int64_t a, int64_t b, int64_t& r) {
  if (b == 0 || b == -1) { r = 0; return true; }
  int64_t m = a % b;
  if (m < 0) m = (b > 0) ? m + b : m - b;  // m - b cannot overflow: m < 0 < -b
  r = m;
  return true;
}
}  // namespace fast

// Process-wide: reports show floats in hex beside their decimals (display()).
void set_float_display_hex(bool hex);

struct ValueHash {
  size_t operator()(const Value& v) const { return v.hash(); }
};
// Hash of a point (a coordinate vector), for memo tables keyed by points.
struct PointHash {
  size_t operator()(const std::vector<Value>& p) const {
    uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a in 64 bits, whatever size_t is
    for (const Value& v : p) h = (h ^ v.hash()) * 0x100000001b3ull;
    return size_t(h);
  }
};

}  // namespace halo

// Arithmetic on V: the slow path behind the int64 fast paths of value.hpp.
#include "semantics/value.hpp"

#include "support/bit_cast.hpp"
#include "support/command_budget.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>

namespace halo {

namespace {
const BigInt kMin64 = BigInt(std::numeric_limits<int64_t>::min());
const BigInt kMax64 = BigInt(std::numeric_limits<int64_t>::max());

Value int_of_bool(bool b) { return Value(int64_t(b ? 1 : 0)); }

// Euclidean quotient and remainder on unbounded integers, total (b = 0 gives 0, 0).
void euclid(const BigInt& a, const BigInt& b, BigInt& q, BigInt& r) {
  if (b == 0) { q = 0; r = 0; return; }
  q = a / b;  // truncates toward zero
  r = a - q * b;
  if (r < 0) {
    if (b > 0) { q -= 1; r += b; } else { q += 1; r -= b; }
  }
}
}  // namespace

// A bound on the bits of a value, from its limb count: cheap, never below the truth.
static uint64_t bits_bound(const Value& v) {
  if (v.is_small()) return 64;
  if (v.is_float()) throw std::logic_error("halo: an integer operation reached a float value");
  return uint64_t(v.to_big_ref().backend().size()) * sizeof(boost::multiprecision::limb_type) * 8;
}

// Before a big-integer operation whose result has at most `bits` bits: the per-integer
// cap, the memory and the deadline of the command (support/command_budget.hpp). The cap
// also keeps Boost's 32-bit limb count from overflowing (which tripped its `!m_alias`
// assertion after 38 squarings of 2).
static void before_big(uint64_t bits) { check_big_integer(bits); }

Value Value::from_big(const BigInt& v) {
  if (v >= kMin64 && v <= kMax64) return Value(static_cast<int64_t>(v));
  int64_t bytes = int64_t(v.backend().size() * sizeof(boost::multiprecision::limb_type)) + int64_t(sizeof(BigInt));
  check_big_integer(uint64_t(bytes) * 8);
  Value r;
  charge_big_integer_bytes(bytes);
  r.big_ = std::shared_ptr<const BigInt>(new BigInt(v), [bytes](const BigInt* p) {
    charge_big_integer_bytes(-bytes);
    delete p;
  });
  return r;
}

std::optional<Value> Value::parse(std::string_view text) {
  size_t i = 0;
  bool neg = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) { neg = text[i] == '-'; ++i; }
  if (i == text.size()) return std::nullopt;
  if (text.size() - i > 18) check_big_integer(uint64_t(text.size() - i) * 333 / 100);  // before the quadratic loop
  BigInt acc = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    acc = acc * 10 + (text[i] - '0');
  }
  return from_big(neg ? BigInt(-acc) : acc);
}

BigInt Value::to_big() const {
  if (is_float()) throw std::logic_error("halo: an integer operation reached a float value");
  return big_ ? *big_ : BigInt(small_);
}

Value Value::f32(float f) {
  Value r(Kind::Float32);
  r.small_ = int64_t(halo::bit_cast<uint32_t>(f));
  return r;
}

Value Value::f64(double d) {
  Value r(Kind::Float64);
  r.small_ = halo::bit_cast<int64_t>(d);
  return r;
}

Value Value::from_float_bits(int bits, uint64_t raw) {
  Value r(bits == 32 ? Kind::Float32 : Kind::Float64);
  r.small_ = bits == 32 ? int64_t(uint32_t(raw)) : int64_t(raw);
  return r;
}

float Value::as_float() const {
  if (kind_ == Kind::Float32) return halo::bit_cast<float>(uint32_t(small_));
  return float(as_double());  // only for a binary64 known to be a binary32
}

double Value::as_double() const {
  if (kind_ == Kind::Float32) return double(as_float());
  return halo::bit_cast<double>(small_);
}

bool Value::is_nan() const { return is_float() && std::isnan(as_double()); }

int Value::sign() const {
  if (is_float()) return (as_double() > 0) - (as_double() < 0);
  if (big_) return big_->sign();
  return (small_ > 0) - (small_ < 0);
}

bool Value::fits_in_bits(int bits) const {
  if (is_float()) return false;
  if (!big_) {
    if (bits >= 64) return true;
    int64_t lim = int64_t{1} << bits;
    return small_ < lim && small_ > -lim;
  }
  BigInt m = abs(*big_);
  return m < (BigInt(1) << bits);
}

std::string Value::to_string() const {
  switch (kind_) {
    case Kind::ErrRdom: return "err_rdom";
    case Kind::ErrMem: return "err_mem";
    case Kind::ErrUndef: return "err_undef";
    // fmt writes the shortest decimal that reads back to the value; a NaN's sign and
    // payload are unspecified, so every NaN prints alike.
    case Kind::Float32: return is_nan() ? "nan" : fmt::format("{}", as_float());
    case Kind::Float64: return is_nan() ? "nan" : fmt::format("{}", as_double());
    case Kind::Int: break;
  }
  return big_ ? big_->str() : std::to_string(small_);
}

namespace {
bool g_float_display_hex = false;
}  // namespace

void set_float_display_hex(bool hex) { g_float_display_hex = hex; }

std::string Value::display() const {
  if (!is_float() || !g_float_display_hex) return to_string();
  return to_string() + " (" + to_hex_string() + ")";
}

std::string Value::to_hex_string() const {
  if (!is_float()) return to_string();
  char buf[64];
  if (kind_ == Kind::Float32) std::snprintf(buf, sizeof buf, "%a", double(as_float()));
  else std::snprintf(buf, sizeof buf, "%a", as_double());
  return buf;
}

size_t Value::hash() const {
  if (is_float()) return is_nan() ? 0x7ff8ull * (size_t(kind_) + 7) : std::hash<int64_t>{}(small_) ^ size_t(kind_);
  if (kind_ != Kind::Int) return 0x9e3779b97f4a7c15ull * (size_t(kind_) + 7);
  if (!big_) return std::hash<int64_t>{}(small_);
  return std::hash<std::string>{}(big_->str());
}

bool operator==(const Value& a, const Value& b) {
  if (a.kind_ != b.kind_) return false;
  if (a.is_float()) return a.small_ == b.small_ || (a.is_nan() && b.is_nan());
  if (a.kind_ != Value::Kind::Int) return true;
  if (!a.big_ && !b.big_) return a.small_ == b.small_;
  if (a.big_ && b.big_) return *a.big_ == *b.big_;
  return false;  // normalized: a big value never fits in int64
}

int op_arity(Op op) {
  switch (op) {
    case Op::Not: case Op::Neg: case Op::Cast: case Op::SaturatingCast: case Op::BitNot: case Op::Abs:
    case Op::CountLeadingZeros: case Op::CountTrailingZeros: case Op::Popcount:
    case Op::Floor: case Op::Ceil: case Op::Round: case Op::Trunc: case Op::Sqrt: case Op::IsNan: case Op::IsInf:
    case Op::IsFinite: case Op::Reinterpret:
      return 1;
    case Op::Select: case Op::MulShiftRight: case Op::RoundingMulShiftRight: case Op::Lerp:
      return 3;
    default: return 2;
  }
}

const char* op_name(Op op) {
  switch (op) {
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::Mod: return "%";
    case Op::Lt: return "<";
    case Op::Gt: return ">";
    case Op::Eq: return "==";
    case Op::Le: return "<=";
    case Op::Ge: return ">=";
    case Op::Ne: return "!=";
    case Op::And: return "&&";
    case Op::Or: return "||";
    case Op::Not: return "!";
    case Op::Neg: return "-";
    case Op::Select: return "select";
    case Op::Min: return "min";
    case Op::Max: return "max";
    case Op::Cast: return "cast";
    case Op::SaturatingCast: return "saturating_cast";
    case Op::BitAnd: return "&";
    case Op::BitOr: return "|";
    case Op::BitXor: return "^";
    case Op::BitNot: return "~";
    case Op::Shl: return "<<";
    case Op::Shr: return ">>";
    case Op::Abs: return "abs";
    case Op::Absd: return "absd";
    case Op::WideningAdd: return "widening_add";
    case Op::WideningSub: return "widening_sub";
    case Op::WideningMul: return "widening_mul";
    case Op::SaturatingAdd: return "saturating_add";
    case Op::SaturatingSub: return "saturating_sub";
    case Op::HalvingAdd: return "halving_add";
    case Op::HalvingSub: return "halving_sub";
    case Op::RoundingHalvingAdd: return "rounding_halving_add";
    case Op::RoundingShiftLeft: return "rounding_shift_left";
    case Op::RoundingShiftRight: return "rounding_shift_right";
    case Op::MulShiftRight: return "mul_shift_right";
    case Op::RoundingMulShiftRight: return "rounding_mul_shift_right";
    case Op::CountLeadingZeros: return "count_leading_zeros";
    case Op::CountTrailingZeros: return "count_trailing_zeros";
    case Op::Popcount: return "popcount";
    case Op::Lerp: return "lerp";
    case Op::Floor: return "floor";
    case Op::Ceil: return "ceil";
    case Op::Round: return "round";
    case Op::Trunc: return "trunc";
    case Op::Sqrt: return "sqrt";
    case Op::IsNan: return "is_nan";
    case Op::IsInf: return "is_inf";
    case Op::IsFinite: return "is_finite";
    case Op::Reinterpret: return "reinterpret";
  }
  return "?";
}

std::optional<Value::Kind> max_error(std::span<const Value> vs) {
  std::optional<Value::Kind> worst;
  for (const Value& v : vs)
    if (v.is_error() && (!worst || v.kind() > *worst)) worst = v.kind();
  return worst;
}

Value join_errors(const Value& a, const Value& b) {
  Value::Kind k = Value::Kind::Int;
  if (a.is_error()) k = a.kind();
  if (b.is_error() && b.kind() > k) k = b.kind();
  return Value::error(k);
}

Value add(const Value& a, const Value& b) {
  if (a.is_error() || b.is_error()) return join_errors(a, b);
  int64_t r;
  if (a.is_small() && b.is_small() && fast::add(a.small(), b.small(), r)) return Value(r);
  before_big(std::max(bits_bound(a), bits_bound(b)) + 1);
  return Value::from_big(a.to_big() + b.to_big());
}

Value sub(const Value& a, const Value& b) {
  if (a.is_error() || b.is_error()) return join_errors(a, b);
  int64_t r;
  if (a.is_small() && b.is_small() && fast::sub(a.small(), b.small(), r)) return Value(r);
  before_big(std::max(bits_bound(a), bits_bound(b)) + 1);
  return Value::from_big(a.to_big() - b.to_big());
}

Value mul(const Value& a, const Value& b) {
  if (a.is_error() || b.is_error()) return join_errors(a, b);
  int64_t r;
  if (a.is_small() && b.is_small() && fast::mul(a.small(), b.small(), r)) return Value(r);
  before_big(bits_bound(a) + bits_bound(b));
  return Value::from_big(a.to_big() * b.to_big());
}

Value div(const Value& a, const Value& b) {
  if (a.is_error() || b.is_error()) return join_errors(a, b);
  int64_t r;
  if (a.is_small() && b.is_small() && fast::div(a.small(), b.small(), r)) return Value(r);
  before_big(std::max(bits_bound(a), bits_bound(b)) + 1);
  BigInt q, m;
  euclid(a.to_big(), b.to_big(), q, m);
  return Value::from_big(q);
}

Value mod(const Value& a, const Value& b) {
  if (a.is_error() || b.is_error()) return join_errors(a, b);
  int64_t r;
  if (a.is_small() && b.is_small() && fast::mod(a.small(), b.small(), r)) return Value(r);
  before_big(std::max(bits_bound(a), bits_bound(b)) + 1);
  BigInt q, m;
  euclid(a.to_big(), b.to_big(), q, m);
  return Value::from_big(m);
}

int compare(const Value& a, const Value& b) {
  if (a.is_float() || b.is_float()) throw std::logic_error("halo: compare() reached a float value");
  if (a.is_small() && b.is_small()) return (a.small() > b.small()) - (a.small() < b.small());
  BigInt x = a.to_big(), y = b.to_big();
  return (x > y) - (x < y);
}

Value pow2(int64_t n) {
  if (n < 63) return Value(int64_t{1} << n);
  before_big(uint64_t(n) + 1);
  return Value::from_big(BigInt(1) << unsigned(n));
}

Value apply_op(Op op, std::span<const Value> args) {
  // Def. 2.6: any error operand makes the result the greatest error, select included
  // (it is strict in all three operands).
  if (auto e = max_error(args)) return Value::error(*e);
  const Value& a = args[0];
  switch (op) {
    case Op::Add: return add(a, args[1]);
    case Op::Sub: return sub(a, args[1]);
    case Op::Mul: return mul(a, args[1]);
    case Op::Div: return div(a, args[1]);
    case Op::Mod: return mod(a, args[1]);
    case Op::Lt: return int_of_bool(compare(a, args[1]) < 0);
    case Op::Gt: return int_of_bool(compare(a, args[1]) > 0);
    case Op::Eq: return int_of_bool(compare(a, args[1]) == 0);
    case Op::Le: return int_of_bool(compare(a, args[1]) <= 0);
    case Op::Ge: return int_of_bool(compare(a, args[1]) >= 0);
    case Op::Ne: return int_of_bool(compare(a, args[1]) != 0);
    case Op::And: return int_of_bool(!a.is_zero() && !args[1].is_zero());
    case Op::Or: return int_of_bool(!a.is_zero() || !args[1].is_zero());
    case Op::Not: return int_of_bool(a.is_zero());
    case Op::Neg: return sub(Value(int64_t{0}), a);
    case Op::Select: return a.is_zero() ? args[2] : args[1];
    case Op::Min: return compare(a, args[1]) <= 0 ? a : args[1];
    case Op::Max: return compare(a, args[1]) >= 0 ? a : args[1];
    default: break;
  }
  return Value::err_undef();  // Halide's operators need a type: type_ops.hpp
}

}  // namespace halo

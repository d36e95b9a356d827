// Halide's operators on its float types: see float_ops.hpp. Each rule names its source in
// Halide 21 (v14 and v19 agree unless a comment says otherwise) and its row in
// docs/floats.md.
#include "semantics/float_ops.hpp"

#include <cfloat>
#include <cmath>
#include <limits>

namespace halo {

// The host computes binary32 and binary64 operations in their own precision, rounding to
// nearest even (no x87 excess precision); halo is compiled with -ffp-contract=off.
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559);
static_assert(FLT_EVAL_METHOD == 0, "halo's float reference needs operations evaluated in their own type");

namespace {

Value boolean(bool b) { return Value(int64_t(b ? 1 : 0)); }

// One correctly rounded IEEE operation in t's precision.
template <typename Fn>
Value arith(Type t, const Value& a, const Value& b, Fn fn) {
  if (t.bits() == 32) return Value::f32(fn(a.as_float(), b.as_float()));
  return Value::f64(fn(a.as_double(), b.as_double()));
}

template <typename Fn>
Value unary(Type t, const Value& a, Fn fn) {
  if (t.bits() == 32) return Value::f32(fn(a.as_float()));
  return Value::f64(fn(a.as_double()));
}

// [FLOAT-CMP] Halide's comparisons are LLVM's ordered ones (CodeGen_LLVM: FCmpOEQ, FCmpOLT,
// ...): false when either operand is NaN. != is C's, true when either is NaN: Halide's
// simplifier rewrites a != b as !(a == b) (Simplify_EQ.cpp, visit(NE)); Halide 14, 19 and
// 21 all compute NaN != 1 as true (tests/test_halide_floats.cpp).
bool less(const Value& a, const Value& b) { return a.as_double() < b.as_double(); }

Value sub(Type t, const Value& a, const Value& b) {
  return arith(t, a, b, [](auto x, auto y) { return x - y; });
}

// [FLOAT-NEG] operator-(Expr a) is Sub::make(make_zero(t), a) (IROperator.cpp): 0 - x, so
// the negation of +0 is +0 and of -0 is +0 (not IEEE's negate).
Value neg(Type t, const Value& a) { return sub(t, make_float(t, 0.0), a); }

// [FLOAT-MIN] [FLOAT-MAX] CodeGen_LLVM::visit(Min/Max): select(a < b, a, b) and
// select(a > b, a, b): a NaN second operand wins, a NaN first operand loses, and of two
// zeros the second is kept.
Value fmin(const Value& a, const Value& b) { return less(a, b) ? a : b; }
Value fmax(const Value& a, const Value& b) { return less(b, a) ? a : b; }

Value float_abs(Type t, const Value& x) {
  double d = x.as_double();
  if (d == 0 && std::signbit(d)) return Value::err_undef();
  return d >= 0 ? x : neg(t, x);
}

}  // namespace

Value saturating_cast_float(Type t, Type from, const Value& v) {
  if (from.is_float() && t.is_float()) {
    // "For float to float, guarantee infinities are always pinned to range": clamp to
    // [t.min(), t.max()] = [-inf, +inf], which max(min(NaN, inf), -inf) makes +inf.
    if (t.bits() < from.bits()) return cast_value(t, from, fmax(fmin(v, from.max()), from.min()));
    Value c = cast_value(t, from, v);
    return fmax(fmin(c, t.max()), t.min());
  }
  if (!from.is_float()) return cast_value(t, from, v);  // lossless_cast of -inf/+inf to an integer: no bounds
  // A float to an integer type at least as wide: max(e, t.min()), then
  // select(e >= float(t.max()), t.max(), cast(t, e)).
  if (t.bits() >= from.bits()) {
    Value e = fmax(v, cast_value(from, Type::int_(64), t.min()));
    Value top = cast_value(from, t.is_int() ? Type::int_(64) : Type::uint(64), t.max());
    if (!less(e, top) && !e.is_nan()) return t.max();
    return cast_value(t, from, e);
  }
  // Narrower: clamp(e, float(t.min()), float(t.max())) = max(min(e, hi), lo), then cast.
  Value lo = cast_value(from, Type::int_(64), t.min());
  Value hi = cast_value(from, Type::int_(64), t.max());
  return cast_value(t, from, fmax(fmin(v, hi), lo));
}

Value apply_float_op(Op op, Type t, std::span<const Type> at, std::span<const Value> a) {
  switch (op) {
    // [FLOAT-ARITH] fadd, fsub, fmul, fdiv: IEEE-754, correctly rounded (x / 0 is ±inf or
    // NaN: Halide's "div by zero returns zero" is for integers, IROperator.h div_imp).
    case Op::Add: return arith(t, a[0], a[1], [](auto x, auto y) { return x + y; });
    case Op::Sub: return sub(t, a[0], a[1]);
    case Op::Mul: return arith(t, a[0], a[1], [](auto x, auto y) { return x * y; });
    case Op::Div: return arith(t, a[0], a[1], [](auto x, auto y) { return x / y; });
    // [FLOAT-MOD] CodeGen_LLVM::visit(Mod): a - b * floor(a / b), each step rounded
    // (IROperator.h mod_imp<float>: "The remainder has the same sign as b").
    case Op::Mod: {
      Value q = arith(t, a[0], a[1], [](auto x, auto y) { return x / y; });
      Value f = unary(t, q, [](auto x) { return std::floor(x); });
      return sub(t, a[0], arith(t, a[1], f, [](auto x, auto y) { return x * y; }));
    }
    case Op::Neg: return neg(t, a[0]);
    case Op::Min: return fmin(a[0], a[1]);
    case Op::Max: return fmax(a[0], a[1]);
    case Op::Lt: return boolean(less(a[0], a[1]));
    case Op::Gt: return boolean(less(a[1], a[0]));
    case Op::Le: return boolean(a[0].as_double() <= a[1].as_double());
    case Op::Ge: return boolean(a[0].as_double() >= a[1].as_double());
    case Op::Eq: return boolean(a[0].as_double() == a[1].as_double());
    case Op::Ne: return boolean(!(a[0].as_double() == a[1].as_double()));
    case Op::Select: return a[0].is_zero() ? a[2] : a[1];
    // [FLOAT-CAST] type.hpp cast_value; [FLOAT-SATURATING-CAST] above.
    case Op::Cast: return cast_value(t, at[0], a[0]);
    case Op::SaturatingCast: return saturating_cast_float(t, at[0], a[0]);
    // [FLOAT-ABS] |x|, except that the sign of abs(-0) is ε_undef: the documentation does not
    // say, and Halide's code differs by type: Float(64) is CodeGen_LLVM's select(x >= 0, x,
    // 0 - x), which keeps -0, while Float(32) goes through x86's abs_f32x4 (x86.ll), which
    // clears the sign bit (measured on 14, 19 and 21: docs/semantics-decisions.md). absd of
    // floats is abs(a - b) (IROperator.cpp absd).
    case Op::Abs: return float_abs(t, a[0]);
    case Op::Absd: return float_abs(t, sub(t, a[0], a[1]));
    // [FLOAT-ROUNDING] floor, ceil, trunc: exact; round: "On ties, we round towards the
    // nearest even integer" (IROperator.h, every version since 14) — nearbyint in the
    // default rounding mode, which halo never changes.
    case Op::Floor: return unary(t, a[0], [](auto x) { return std::floor(x); });
    case Op::Ceil: return unary(t, a[0], [](auto x) { return std::ceil(x); });
    case Op::Trunc: return unary(t, a[0], [](auto x) { return std::trunc(x); });
    case Op::Round: return unary(t, a[0], [](auto x) { return std::nearbyint(x); });
    // [FLOAT-SQRT] llvm.sqrt: correctly rounded; sqrt(-0) = -0, of a negative number NaN.
    case Op::Sqrt: return unary(t, a[0], [](auto x) { return std::sqrt(x); });
    case Op::IsNan: return boolean(std::isnan(a[0].as_double()));
    case Op::IsInf: return boolean(std::isinf(a[0].as_double()));
    case Op::IsFinite: return boolean(std::isfinite(a[0].as_double()));
    // [REINTERPRET] the bits read as t. A NaN's payload is unspecified (IEEE-754 and LLVM
    // let an operation return any NaN), so reinterpreting a NaN is ε_undef
    // (docs/semantics-decisions.md).
    case Op::Reinterpret: {
      Type from = at[0];
      if (from.is_float() && a[0].is_nan()) return Value::err_undef();
      uint64_t bits;
      if (from.is_float()) {
        bits = a[0].float_bits();
      } else {
        Value u = wrap_to(Type::uint(from.bits()), a[0]);
        bits = u.is_small() ? uint64_t(u.small()) : static_cast<uint64_t>(u.to_big());
      }
      if (t.is_float()) {
        return Value::from_float_bits(t.bits(), bits);
      }
      Value u = bits <= uint64_t(INT64_MAX) ? Value(int64_t(bits)) : Value::from_big(BigInt(bits));
      return wrap_to(t, u);
    }
    // [FLOAT-LERP] Lerp.cpp for float values: zero * (1 - w) + one * w, each operation rounded
    // in the values' type; an unsigned weight is first w / (2^bits - 1) in that type.
    case Op::Lerp: {
      Type wt = at[2];
      Value w = wt.is_float() ? cast_value(t, wt, a[2])
                              : arith(t, cast_value(t, wt, a[2]), make_float(t, std::ldexp(1.0, wt.bits()) - 1),
                                      [](auto x, auto y) { return x / y; });
      Value inv = sub(t, make_float(t, 1.0), w);
      Value lo = arith(t, a[0], inv, [](auto x, auto y) { return x * y; });
      Value hi = arith(t, a[1], w, [](auto x, auto y) { return x * y; });
      return arith(t, lo, hi, [](auto x, auto y) { return x + y; });
    }
    default: break;
  }
  return Value::err_undef();  // type_op rejects every other operator on floats
}

}  // namespace halo

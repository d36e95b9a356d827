// Halide's operators per type: see type_ops.hpp. Every rule names its source in Halide
// (v14, v19 and v21 agree on all of them unless a comment says otherwise).
#include "semantics/type_ops.hpp"

#include "semantics/float_ops.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace halo {

namespace {

Value absolute(const Value& v) { return v.sign() < 0 ? sub(Value(int64_t{0}), v) : v; }

// The 64-bit two's complement pattern of an integer of at most 64 bits.
uint64_t pattern(const Value& v) {
  if (v.is_small()) return uint64_t(v.small());
  BigInt m = v.to_big() % (BigInt(1) << 64);
  if (m < 0) m += BigInt(1) << 64;
  return static_cast<uint64_t>(m);
}

Value from_pattern(uint64_t p) {
  if (p <= uint64_t(INT64_MAX)) return Value(int64_t(p));
  return Value::from_big(BigInt(p));
}

// The width of an operand for the width-dependent operators; ℤ has none.
bool has_width(Type t) { return t.is_typed(); }

// Shifts (src/IROperator.h operator<< and operator>>; CodeGen_Internal.cpp
// lower_signed_shift_left/right): a negative signed amount shifts the other way; an amount
// of the width or more is undefined (the simplifier makes a constant one a compile error,
// LLVM's shl/shr give poison); `>>` sign-extends a signed value (arithmetic: floor
// division by 2^b); `<<` is multiplication by 2^b under the type's overflow rule.
Value shift(bool left, Type t, const Value& a, const Value& b) {
  if (b.sign() < 0) return shift(!left, t, a, absolute(b));
  if (has_width(t) && compare(b, Value(int64_t{t.bits()})) >= 0) return Value::err_undef();
  if (!b.is_small() || b.small() > 4096) return Value::err_undef();  // ℤ: no such program
  Value p = pow2(b.small());
  return left ? fit(t, mul(a, p)) : div(a, p);
}

// floor((v + 2^(b-1)) / 2^b) for b >= 1: division by 2^b rounding half up.
Value round_shift_right(const Value& v, int64_t b) { return div(add(v, pow2(b - 1)), pow2(b)); }

// The integer lerp of src/Lerp.cpp (lower_lerp; its doc in src/IROperator.h): the weight
// is rescaled to the values' width N (exactly when narrower, by floor division when
// wider), then round-to-nearest((zero * (M - w) + one * w) / M) with M = 2^N - 1, which
// has no ties since M is odd; signed values are biased by 2^(N-1) around it; Bool values
// pick `one` when the weight exceeds half its range.
Value lerp(Type t, Type wt, const Value& zero, const Value& one, const Value& w) {
  if (!has_width(t) || !has_width(wt)) return Value::err_undef();
  int n = t.bits(), wb = wt.bits();
  if (wt.is_float()) {
    // A float weight (Lerp.cpp): Bool values pick `one` when w > 0.5f; otherwise the weight
    // becomes the computation type's, cast<UInt(n)>(max * w) with the product in w's type
    // (in double for 32 bits: 65535.0 * 65537.0 * w), undefined where the cast is.
    if (t.is_bool()) return w.as_double() > 0.5 ? one : zero;
    Type ct = Type::uint(n);
    Value scaled = n == 32 ? Value::f64(4294967295.0 * w.as_double())
                           : apply_float_op(Op::Mul, wt, std::array{wt, wt}, std::array{cast_value(wt, ct, ct.max()), w});
    Value iw = cast_value(ct, scaled.is_f32() ? Type::float_(32) : Type::float_(64), scaled);
    if (iw.is_error()) return iw;
    return lerp(t, ct, zero, one, iw);
  }
  if (t.is_bool()) return compare(w, div(wt.max(), Value(int64_t{2}))) > 0 ? one : zero;
  Value m = sub(pow2(n), Value(int64_t{1}));
  Value wmax = sub(pow2(wb), Value(int64_t{1}));
  Value ws = wb == n ? w : wb < n ? mul(w, div(m, wmax)) : div(w, div(wmax, m));
  Value bias = t.is_int() ? pow2(n - 1) : Value(int64_t{0});
  Value z = add(zero, bias), o = add(one, bias);
  Value x = add(mul(z, sub(m, ws)), mul(o, ws));
  Value r = div(add(x, div(m, Value(int64_t{2}))), m);
  return sub(r, bias);
}

}  // namespace

Type match_types(Type a, Type b) {
  if (a == b) return a;
  if (a.is_z() || b.is_z()) return Type::z();
  // "if one type is floating-point and the other is not, the non-float is cast to the
  // floating-point type"; two floats go to the wider.
  if (a.is_float() || b.is_float()) {
    if (a.is_float() && b.is_float()) return Type::float_(std::max(a.bits(), b.bits()));
    return a.is_float() ? a : b;
  }
  if (a.is_uint() && b.is_uint()) return Type::uint(std::max(a.bits(), b.bits()));
  return Type::int_(std::max(a.bits(), b.bits()));
}

OpTyping type_op(Op op, std::span<const Type> args, Type target) {
  OpTyping r;
  auto fail = [&](std::string msg) {
    r.error = std::move(msg);
    return r;
  };
  auto all = [&](Type t) {
    r.operands.assign(args.size(), t);
    return t;
  };
  // ℤ: fig. 2.5b's operators, untouched.
  if (std::all_of(args.begin(), args.end(), [](Type t) { return t.is_z(); }) && !is_halide_op(op)) {
    r.operands.assign(args.begin(), args.end());
    r.result = Type::z();
    return r;
  }
  for (Type t : args)
    if (t.is_z()) return fail(fmt::format("'{}' mixes an untyped operand with typed ones", op_name(op)));
  auto name = [&](size_t i) { return args[i].to_string(); };
  bool any_float = std::any_of(args.begin(), args.end(), [](Type t) { return t.is_float(); });
  if (any_float) {
    switch (op) {
      // Defined on floats (docs/floats.md); typed by the rules below.
      case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Mod: case Op::Min: case Op::Max: case Op::Neg:
      case Op::Lt: case Op::Gt: case Op::Eq: case Op::Le: case Op::Ge: case Op::Ne: case Op::And: case Op::Or:
      case Op::Not: case Op::Select: case Op::Cast: case Op::SaturatingCast: case Op::Abs: case Op::Absd:
      case Op::Floor: case Op::Ceil: case Op::Round: case Op::Trunc: case Op::Sqrt: case Op::IsNan: case Op::IsInf:
      case Op::IsFinite: case Op::Reinterpret: case Op::Lerp:
        break;
      default:
        // The bitwise operators, shifts and Halide's fixed-point intrinsics assert integer
        // operands (src/IROperator.cpp: "... requires integer types").
        return fail(fmt::format("'{}' needs integer operands, not {}", op_name(op),
                                name(std::find_if(args.begin(), args.end(), [](Type t) { return t.is_float(); }) -
                                     args.begin())));
    }
  }
  switch (op) {
    // + - * / % min max (src/IROperator.h: "match_types"): the matched type, also the result.
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Mod: case Op::Min: case Op::Max:
    case Op::SaturatingAdd: case Op::SaturatingSub: case Op::HalvingAdd: case Op::HalvingSub:
    case Op::RoundingHalvingAdd:
      r.result = all(match_types(args[0], args[1]));
      return r;
    case Op::Neg:  // "the negative of 56 in UInt(8) is 200": 0 - a in a's type
      r.result = all(args[0]);
      return r;
    // Comparisons: match_types, then Bool (IR.cpp: EQ::make and the others).
    case Op::Lt: case Op::Gt: case Op::Eq: case Op::Le: case Op::Ge: case Op::Ne:
      all(match_types(args[0], args[1]));
      r.result = Type::boolean();
      return r;
    // && || ! assert Bool operands (IR.cpp: And::make, Or::make, Not::make): no coercion.
    case Op::And: case Op::Or: case Op::Not:
      for (size_t i = 0; i < args.size(); ++i)
        if (!args[i].is_bool())
          return fail(fmt::format("'{}' needs bool operands, but operand {} is {} (write e != 0)", op_name(op), i + 1,
                                  name(i)));
      r.result = all(Type::boolean());
      return r;
    // select(c, t, f) (src/IROperator.cpp select): c Bool, t and f of one type, no matching.
    case Op::Select:
      if (!args[0].is_bool()) return fail(fmt::format("the condition of select must be bool, not {}", name(0)));
      if (args[1] != args[2])
        return fail(fmt::format("the values of select have different types, {} and {} (cast one: Halide does not "
                                "match them)",
                                name(1), name(2)));
      r.operands = {Type::boolean(), args[1], args[1]};
      r.result = args[1];
      return r;
    case Op::Cast: case Op::SaturatingCast:
      r.operands = {args[0]};
      r.result = target;
      return r;
    // reinterpret(t, e): the bits of e read as t, of the same width (IR.cpp Reinterpret::make).
    case Op::Reinterpret:
      if (args[0].bits() != target.bits())
        return fail(fmt::format("reinterpret from {} ({} bits) to {} ({} bits): the widths must agree", name(0),
                                args[0].bits(), target.to_string(), target.bits()));
      r.operands = {args[0]};
      r.result = target;
      return r;
    // floor, ceil, round, trunc, sqrt: "If the argument is not floating-point, it is cast to
    // Float(32)"; the result has the argument's float type.
    case Op::Floor: case Op::Ceil: case Op::Round: case Op::Trunc: case Op::Sqrt: {
      Type f = args[0].is_float() ? args[0] : Type::float_(32);
      r.operands = {f};
      r.result = f;
      return r;
    }
    // is_nan, is_inf, is_finite: "Requires a floating point argument" (user_assert).
    case Op::IsNan: case Op::IsInf: case Op::IsFinite:
      if (!args[0].is_float()) return fail(fmt::format("'{}' needs a float operand, not {}", op_name(op), name(0)));
      r.operands = {args[0]};
      r.result = Type::boolean();
      return r;
    // & | ^ (match_types_bitwise): both signed or both unsigned, the wider width.
    case Op::BitAnd: case Op::BitOr: case Op::BitXor:
      if (args[0].is_int() != args[1].is_int())
        return fail(fmt::format("the operands of '{}' must be both signed or both unsigned, not {} and {}", op_name(op),
                                name(0), name(1)));
      r.result = all(match_types(args[0], args[1]));
      return r;
    case Op::BitNot: case Op::CountLeadingZeros: case Op::CountTrailingZeros: case Op::Popcount:
      r.result = all(args[0]);  // "the result has the input's type"
      return r;
    // << >> rounding_shift_left/right (match_bits): the narrower operand widens to the
    // wider width keeping its signedness; the result is the (widened) first operand's type.
    case Op::Shl: case Op::Shr: case Op::RoundingShiftLeft: case Op::RoundingShiftRight: {
      int bits = std::max(args[0].bits(), args[1].bits());
      r.operands = {args[0].is_int() ? Type::int_(bits) : Type::uint(bits),
                    args[1].is_int() ? Type::int_(bits) : Type::uint(bits)};
      r.result = r.operands[0];
      return r;
    }
    // abs of a signed integer is the unsigned type of its width ("abs of the most negative
    // integer doesn't overflow"); of an unsigned one, the operand itself.
    case Op::Abs:
      r.operands = {args[0]};
      r.result = args[0].is_int() ? Type::uint(args[0].bits()) : args[0];
      return r;
    case Op::Absd:  // match_types, then "an unsigned value of the same bit width"; floats: abs(a - b)
      all(match_types(args[0], args[1]));
      r.result = r.operands[0].is_float() ? r.operands[0] : Type::uint(r.operands[0].bits());
      return r;
    // widening_add: match_types, widen; widening_sub: "always signed"; widening_mul:
    // match_bits, signed if either operand is.
    case Op::WideningAdd: case Op::WideningSub: case Op::WideningMul: {
      Type m = match_types(args[0], args[1]);
      if (op == Op::WideningMul) {
        int bits = std::max(args[0].bits(), args[1].bits());
        r.operands = {args[0].is_int() ? Type::int_(bits) : Type::uint(bits),
                      args[1].is_int() ? Type::int_(bits) : Type::uint(bits)};
        m = (args[0].is_int() || args[1].is_int()) ? Type::int_(bits) : Type::uint(bits);
      } else {
        all(m);
      }
      if (m.bits() >= 64) return fail(fmt::format("'{}' of 64-bit operands would need a 128-bit type", op_name(op)));
      Type w = m.widen();
      r.result = op == Op::WideningSub ? Type::int_(w.bits()) : w;
      return r;
    }
    // mul_shift_right(a, b, q): match_types(a, b); q must be unsigned (user_assert).
    case Op::MulShiftRight: case Op::RoundingMulShiftRight: {
      Type m = match_types(args[0], args[1]);
      if (!args[2].is_uint()) return fail(fmt::format("the shift of '{}' must be unsigned, not {}", op_name(op), name(2)));
      r.operands = {m, m, args[2]};
      r.result = m;
      return r;
    }
    // lerp(zero, one, w): the values of one type, at most 32 bits unless float; w unsigned
    // or float (IROperator.cpp lerp, Lerp.cpp). halo takes a float weight no wider than
    // float values (a wider one would make Halide compute in the wider type).
    case Op::Lerp:
      if (args[0] != args[1])
        return fail(fmt::format("the values of lerp have different types, {} and {}", name(0), name(1)));
      if (!args[0].is_float() && args[0].bits() > 32) return fail("lerp of 64-bit values is not supported by Halide");
      if (!args[2].is_uint() && !args[2].is_float())
        return fail(fmt::format("the weight of lerp must be unsigned or a float, not {}", name(2)));
      if (args[0].is_float() && args[2].is_float() && args[2].bits() > args[0].bits())
        return fail(fmt::format("a {} weight for lerp of {} values is not modelled by halo (docs/floats.md)", name(2),
                                name(0)));
      r.operands = {args[0], args[0], args[2]};
      r.result = args[0];
      return r;
  }
  return fail("unknown operator");
}

Value apply_typed_op(Op op, Type t, std::span<const Type> at, std::span<const Value> a) {
  if (auto e = max_error(a)) return Value::error(*e);
  if (t.is_z() && !is_halide_op(op)) return apply_op(op, a);
  if (op == Op::Lerp && !t.is_float() && at[2].is_float()) return lerp(t, at[2], a[0], a[1], a[2]);
  if (t.is_float() || std::any_of(at.begin(), at.end(), [](Type x) { return x.is_float(); }) || op == Op::Reinterpret)
    return apply_float_op(op, t, at, a);
  switch (op) {
    // + - * and unary -: exact, then the type's overflow rule (fit: wrap, or ε_undef for
    // Int(32)/Int(64), src/Type.h can_overflow).
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Neg:
      return fit(t, apply_op(op, a));
    // / and %: Euclidean and total, x / 0 = x % 0 = 0 (src/IROperator.h operator/ and
    // operator%, since Halide 10); MIN / -1 wraps to MIN where overflow wraps and is
    // undefined for Int(32)/Int(64), which the documentation leaves out.
    case Op::Div: case Op::Mod:
      return fit(t, apply_op(op, a));
    case Op::Lt: case Op::Gt: case Op::Eq: case Op::Le: case Op::Ge: case Op::Ne:
    case Op::And: case Op::Or: case Op::Not: case Op::Select: case Op::Min: case Op::Max:
      return apply_op(op, a);
    case Op::Cast: return cast_value(t, at[0], a[0]);
    case Op::SaturatingCast: return saturate(t, a[0]);
    case Op::BitAnd: case Op::BitOr: case Op::BitXor: {
      uint64_t x = pattern(a[0]), y = pattern(a[1]);
      uint64_t z = op == Op::BitAnd ? (x & y) : op == Op::BitOr ? (x | y) : (x ^ y);
      return wrap_to(t, from_pattern(z));
    }
    case Op::BitNot: return wrap_to(t, sub(Value(int64_t{-1}), a[0]));
    case Op::Shl: case Op::Shr: return shift(op == Op::Shl, t, a[0], a[1]);
    case Op::Abs: return absolute(a[0]);
    case Op::Absd: return absolute(sub(a[0], a[1]));
    // The widening operators are exact: the wider type holds every result.
    case Op::WideningAdd: return add(a[0], a[1]);
    case Op::WideningSub: return sub(a[0], a[1]);
    case Op::WideningMul: return mul(a[0], a[1]);
    case Op::SaturatingAdd: return saturate(t, add(a[0], a[1]));
    case Op::SaturatingSub: return saturate(t, sub(a[0], a[1]));
    // halving_add: floor((a + b) / 2), never overflowing; rounding_halving_add rounds up;
    // halving_sub: floor((a - b) / 2) wrapped into the type (intrinsics.cpp's reference).
    case Op::HalvingAdd: return div(add(a[0], a[1]), Value(int64_t{2}));
    case Op::RoundingHalvingAdd: return div(add(add(a[0], a[1]), Value(int64_t{1})), Value(int64_t{2}));
    case Op::HalvingSub: return wrap_to(t, div(sub(a[0], a[1]), Value(int64_t{2})));
    // rounding_shift_right(a, b): floor((a + 2^(b-1)) / 2^b) for b > 0, a for 0, a << -b
    // for b < 0. rounding_shift_left(a, b): a << b for b >= 0 where the result fits (the
    // documentation says it saturates, the generic lowering wraps: where they disagree the
    // result is ε_undef, docs/semantics-decisions.md), rounding_shift_right(a, -b) for b < 0.
    case Op::RoundingShiftRight: case Op::RoundingShiftLeft: {
      bool right = op == Op::RoundingShiftRight;
      Value b = a[1];
      if (b.sign() < 0) {
        right = !right;
        b = absolute(b);
      }
      if (compare(b, Value(int64_t{t.bits()})) >= 0) return Value::err_undef();
      int64_t k = b.small();
      if (right) return k == 0 ? a[0] : round_shift_right(a[0], k);
      Value exact = mul(a[0], pow2(k));
      if (op == Op::RoundingShiftRight) return fit(t, exact);  // a negative rounding right shift
      return t.can_represent(exact) ? exact : Value::err_undef();
    }
    // mul_shift_right(a, b, q) = saturate(floor(a * b / 2^q)); the rounding one adds
    // 2^(q-1) first (src/IROperator.h; FindIntrinsics.cpp lower_mul_shift_right).
    case Op::MulShiftRight: case Op::RoundingMulShiftRight: {
      if (compare(a[2], Value(int64_t{2 * t.bits()})) >= 0) return Value::err_undef();
      int64_t q = a[2].small();
      Value p = mul(a[0], a[1]);
      if (q == 0) return saturate(t, p);
      return saturate(t, op == Op::MulShiftRight ? div(p, pow2(q)) : round_shift_right(p, q));
    }
    // On the type's bit pattern; of 0 they give the width (src/IROperator.h).
    case Op::CountLeadingZeros: case Op::CountTrailingZeros: case Op::Popcount: {
      int n = t.bits();
      uint64_t p = pattern(a[0]) & (n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1));
      if (op == Op::Popcount) return Value(int64_t(__builtin_popcountll(p)));
      if (p == 0) return Value(int64_t{n});
      if (op == Op::CountTrailingZeros) return Value(int64_t(__builtin_ctzll(p)));
      return Value(int64_t(__builtin_clzll(p) - (64 - n)));
    }
    case Op::Lerp: return lerp(t, at.size() > 2 ? at[2] : Type::z(), a[0], a[1], a[2]);
    default: break;  // the float functions: apply_float_op
  }
  return Value::err_undef();
}

Value apply_op_node(const OpNode& n, std::span<const Value> args) {
  if (!n.type.is_typed() && !is_halide_op(n.op)) return apply_op(n.op, args);
  std::array<Type, 3> ts;
  for (size_t i = 0; i < n.args.size() && i < ts.size(); ++i) ts[i] = n.args[i]->type;
  return apply_typed_op(n.op, n.type, std::span<const Type>(ts.data(), std::min<size_t>(n.args.size(), 3)), args);
}

}  // namespace halo

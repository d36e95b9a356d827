// Halide's integer and float types, and ℤ, the type of the thesis's language
// (docs/types.md, docs/floats.md).
//
// A program in the language of the thesis (fig. 2.5 with LANGUAGE.md's sugar) is untyped:
// every expression has type ℤ, values are unbounded and nothing wraps. A program that
// writes any of Halide's types (a func or parameter type, a cast, a Halide-only operator)
// is typed, and then every expression has one of Halide's integer types, with Halide's
// defaults (a Var, a Param without a type and an integer literal are Int(32)) and Halide's
// arithmetic (type_ops.hpp). The model is Halide's Type (Halide.h, src/Type.h): a code and
// a bit count; Bool is UInt(1).
#pragma once

#include "semantics/value.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace halo {

class Type {
 public:
  enum class Code : uint8_t { Z, Int, UInt, Float };

  constexpr Type() = default;  // ℤ
  static constexpr Type z() { return Type(); }
  static constexpr Type int_(int bits) { return Type(Code::Int, bits); }
  static constexpr Type uint(int bits) { return Type(Code::UInt, bits); }
  static constexpr Type boolean() { return Type(Code::UInt, 1); }  // Halide: Bool() = UInt(1)
  static constexpr Type float_(int bits) { return Type(Code::Float, bits); }  // 32 or 64

  Code code() const { return code_; }
  int bits() const { return bits_; }
  bool is_z() const { return code_ == Code::Z; }
  bool is_int() const { return code_ == Code::Int; }
  bool is_uint() const { return code_ == Code::UInt; }
  bool is_bool() const { return code_ == Code::UInt && bits_ == 1; }
  bool is_float() const { return code_ == Code::Float; }
  bool is_integer() const { return is_int() || is_uint(); }  // one of Halide's integer types
  bool is_typed() const { return code_ != Code::Z; }

  // Halide's Type::can_overflow(): unsigned types and signed types of at most 16 bits wrap
  // modulo 2^bits; Int(32) and Int(64) overflow is undefined (src/Type.h,
  // can_overflow_int: is_int() && bits() <= 16). ℤ never overflows.
  bool wraps() const { return is_uint() || (is_int() && bits_ <= 16); }

  // The least and greatest values (Type::min(), Type::max()); ℤ has none; a float type's
  // are -inf and +inf (src/Type.cpp).
  Value min() const;
  Value max() const;
  // Type::can_represent(int): v lies in [min, max] (always, for ℤ); for a float type, the
  // integer v converts to it and back unchanged (an integer value only).
  bool can_represent(const Value& v) const;
  // Type::can_represent(Type): every value of `o` is one of this type's.
  bool can_represent(Type o) const;

  // Halide's Type::widen(): twice the bits, Bool to 8 bits (the widening intrinsics).
  Type widen() const { return is_bool() ? uint(8) : Type(code_, 2 * bits_); }

  // The surface spelling: "u8", "i32", "bool", "f32"; "int" for ℤ.
  std::string to_string() const;
  // Halide's C++ spelling: "UInt(8)", "Int(32)", "Bool()", "Float(32)".
  std::string halide_name() const;
  // The C type of one element: "uint8_t", "int32_t", "bool", "float", "double".
  std::string c_type() const;

  bool operator==(const Type& o) const { return code_ == o.code_ && bits_ == o.bits_; }
  bool operator!=(const Type& o) const { return !(*this == o); }

 private:
  constexpr Type(Code c, int b) : code_(c), bits_(static_cast<uint8_t>(b)) {}
  Code code_ = Code::Z;
  uint8_t bits_ = 0;
};

// The type a surface name denotes: bool, u1, u8/uint8, u16, u32, u64, i8/int8, i16, i32,
// i64 (and int8_t, uint8_t, ... as in C++), f32/float, f64/double; nullopt for any other word.
std::optional<Type> parse_type_name(std::string_view name);

// Halide's cast of a value v of type `from` to t (src/IROperator.h `cast`, CodeGen_LLVM's
// Cast): between integer types wrap_to; an integer to a float rounds to nearest, ties to
// even; a float to a float rounds likewise (or widens exactly); a float to an integer
// truncates toward zero, and where the truncated value is not one of t's (NaN, ±inf, out of
// range) LLVM's fptosi/fptoui give poison, so the value is ε_undef (docs/floats.md).
Value cast_value(Type t, Type from, const Value& v);

// Halide's integer cast of an integer v to t (src/IROperator.h `cast`; CodeGen_LLVM's
// integer cast): the low t.bits() bits of v's two's complement, read as signed or unsigned.
// To Bool this keeps the low bit, as Halide's constant folding and LLVM code do
// (docs/semantics-decisions.md, "Casts to bool"). ℤ: v itself. Errors pass through.
Value wrap_to(Type t, const Value& v);

// The value of an arithmetic result under t (docs/types.md): itself when t is ℤ; wrapped
// when t wraps; the undefined value ε_undef when t is Int(32) or Int(64) and v is out of
// range (Halide: signed 32- and 64-bit overflow is undefined behaviour).
Value fit(Type t, const Value& v);

// Clamped into t's range (saturating_cast of an integer to an integer type): never undefined.
Value saturate(Type t, const Value& v);

// A value of float type t (32 or 64 bits) holding d rounded to t.
Value make_float(Type t, double d);

// A number as a value of float type t, rounded to nearest even: an integer of any size (a
// literal, a realization's or the command line's value) or a float of either precision.
Value number_as_float(Type t, const Value& v);

}  // namespace halo

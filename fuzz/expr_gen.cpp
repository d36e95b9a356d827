// The typed expression generator (expr_gen.hpp). Operand types are drawn, the operator's
// typing rule (type_op) decides whether Halide accepts them and what it returns; the
// generator never restates a typing rule.
#include "fuzz/expr_gen.hpp"

#include "fuzz/program_gen.hpp"
#include "semantics/parser.hpp"
#include "semantics/type_ops.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <map>

namespace halo::fuzz {

ExprGenConfig expr_case_config(int size, int float_percent) {
  size = std::clamp(size, 0, kMaxCaseSize);
  ExprGenConfig c;
  c.float_percent = float_percent;
  c.max_depth = 2 + size * 3 / kMaxCaseSize;     // 2..5
  c.max_window = 8 + size * 56 / kMaxCaseSize;   // 8..64
  return c;
}

namespace {

// Image and ML pipelines' types first: the draw shrinks towards the front.
const std::vector<Type>& value_types() {
  static const std::vector<Type> ts = {Type::uint(8),  Type::uint(16), Type::int_(16), Type::int_(8),
                                       Type::int_(32), Type::uint(32), Type::uint(64), Type::int_(64)};
  return ts;
}

// ... and, in a float case, the float types too.
const std::vector<Type>& value_types_with_floats() {
  static const std::vector<Type> ts = [] {
    std::vector<Type> t = value_types();
    t.insert(t.begin() + 2, {Type::float_(32), Type::float_(64)});
    return t;
  }();
  return ts;
}

// The float functions, drawn in float cases only (type_op refuses the integer-only
// operators on floats, which are then redrawn).
const std::vector<Op>& float_ops() {
  static const std::vector<Op> ops = {Op::Floor, Op::Ceil, Op::Round, Op::Trunc, Op::Sqrt, Op::Div, Op::Mod,
                                      Op::Min, Op::Max, Op::Add, Op::Sub, Op::Mul, Op::Lerp};
  return ops;
}

const std::vector<Op>& generated_ops() {
  static const std::vector<Op> ops = {
      Op::Add, Op::Sub, Op::Mul, Op::WideningAdd, Op::WideningMul, Op::SaturatingCast, Op::Shr, Op::Shl,
      Op::Absd, Op::HalvingAdd, Op::RoundingHalvingAdd, Op::SaturatingAdd, Op::SaturatingSub, Op::MulShiftRight,
      Op::RoundingMulShiftRight, Op::RoundingShiftRight, Op::RoundingShiftLeft, Op::Select, Op::Min, Op::Max,
      Op::Div, Op::Mod, Op::BitAnd, Op::BitOr, Op::BitXor, Op::BitNot, Op::Neg, Op::Abs, Op::WideningSub,
      Op::HalvingSub, Op::CountLeadingZeros, Op::CountTrailingZeros, Op::Popcount, Op::Lerp};
  return ops;
}

// The surface text of an operator application.
std::string apply_text(Op op, const std::vector<std::string>& a) {
  switch (op) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Mod: case Op::BitAnd: case Op::BitOr:
    case Op::BitXor: case Op::Shl: case Op::Shr: case Op::Lt: case Op::Le: case Op::Eq: case Op::Ne:
      return fmt::format("({} {} {})", a[0], op_name(op), a[1]);
    case Op::Neg: case Op::BitNot: return fmt::format("({}{})", op_name(op), a[0]);
    default: return fmt::format("{}({})", op_name(op), fmt::join(a, ", "));
  }
}

// A constant of type t at one of its edges, written with casts of Int(32) literals (a
// literal must fit Int(32)); a float's IEEE edges as float literals or through their bits.
std::string edge_constant(Type t) {
  std::string n = t.to_string();
  if (t.is_float()) {
    static const std::vector<std::string> edges = {
        "0.0f", "(-0.0f)", "1e-45f", "1.17549435e-38f", "3.4028235e38f", "reinterpret<f32>(2139095040)",
        "reinterpret<f32>((-8388608))", "reinterpret<f32>(2143289344)", "0.5f", "2.5f", "(-1.5f)", "0.1f",
        "16777217.0f", "0.49999997f"};
    std::string c = pick(edges);
    return t.bits() == 32 ? c : fmt::format("f64({})", c);
  }
  switch (small_int(0, 4)) {
    case 0: return fmt::format("{}(0)", n);
    case 1: return fmt::format("{}(1)", n);
    case 2: return fmt::format("{}(-1)", n);  // all ones
    case 3:  // the maximum
      if (t.is_uint()) return fmt::format("{}(-1)", n);
      if (t.bits() <= 32) return fmt::format("{}({})", n, t.max().to_string());
      return fmt::format("{}(u64(-1) >> 1)", n);
    default:  // the minimum
      if (t.is_uint()) return fmt::format("{}(0)", n);
      if (t.bits() < 32) return fmt::format("{}({})", n, t.min().to_string());
      if (t.bits() == 32) return "i32(-2147483647 - 1)";
      return "i64(u64(1) << 63)";
  }
}

class Builder {
 public:
  explicit Builder(const ExprGenConfig& c) : c_(c) {}

  std::string build() {
    // Drawn only at a positive percent, so that every other draw of a seed stays as it was.
    floats_ = c_.float_percent > 0 && chance(c_.float_percent);
    Type out = pick(types());
    std::string body = expr(out, small_int(1, c_.max_depth));
    std::string funcs;
    std::vector<std::string> inline_inputs;
    for (const auto& [name, t] : inputs_) {
      // A hash of x spread over the type's bits (two wrapping u64 products), the type's
      // edges on some lanes.
      uint32_t k1 = uint32_t(*rc::gen::inRange<int64_t>(1, 1 << 30)) | 1u;
      uint32_t k2 = uint32_t(*rc::gen::inRange<int64_t>(1, 1 << 30)) | 1u;
      int c = small_int(-100, 100);
      std::string hash = fmt::format("{}(u64(x + {}) * u64({}) * u64({}))", t.to_string(), c, k1, k2);
      // A float lane: any bit pattern (every magnitude, now and then an infinity or NaN),
      // or a small value in quarters.
      if (t.is_float())
        hash = chance(50) ? fmt::format("reinterpret<{}>({}(u64(x + {}) * u64({}) * u64({})))", t.to_string(),
                                        t.bits() == 32 ? "u32" : "u64", c, k1, k2)
                          : fmt::format("{}(i32(u64(x + {}) * u64({}) % u64(64)) - 32) * {}", t.to_string(), c, k1,
                                        t.bits() == 32 ? "0.25f" : "f64(0.25)");
      int every = small_int(2, 9);
      std::string value = chance(70) ? fmt::format("select(x % {} == {}, {}, {})", every, small_int(0, every - 1),
                                                   edge_constant(t), hash)
                                     : hash;
      funcs += fmt::format("  fun {}(x) : {} = {{ {} }}\n", name, t.to_string(), value);
      if (chance(30)) inline_inputs.push_back(name);
    }
    int n = small_int(1, c_.max_window);
    std::vector<std::string> directives;
    if (chance(60)) {
      int lanes = pick(std::vector<int>{8, 16, 32, 64});
      directives.push_back(fmt::format("vectorize(f, x, {});", lanes));
    }
    for (const std::string& i : inline_inputs) directives.push_back(fmt::format("compute_inline({});", i));
    std::string schedule =
        directives.empty() ? std::string() : fmt::format("schedule {{\n  {}\n}}\n", fmt::join(directives, "\n  "));
    return fmt::format("pipeline f() {{\n{}  fun f(x) = {{ {} }}\n}}\n{}realize () over ({}, {})\n", funcs, body,
                       schedule, small_int(-8, 8), n);
  }

 private:
  const ExprGenConfig& c_;
  std::map<std::string, Type> inputs_;
  bool floats_ = false;

  const std::vector<Type>& types() const { return floats_ ? value_types_with_floats() : value_types(); }

  std::string leaf(Type t) {
    if (chance(10)) return edge_constant(t);
    std::string name = "in_" + t.to_string();
    inputs_[name] = t;
    int offset = small_int(-2, 2);
    return offset == 0 ? fmt::format("{}[x]", name) : fmt::format("{}[x + {}]", name, offset);
  }

  // An expression of type `want`: an operator whose result is cast to `want` when it differs.
  std::string expr(Type want, int depth) {
    if (depth <= 0 || chance(15)) return leaf(want);
    for (int attempt = 0; attempt < 12; ++attempt) {
      Op op = floats_ && want.is_float() && chance(60) ? pick(float_ops()) : pick(generated_ops());
      if (auto e = apply(op, want, depth)) return *e;
    }
    return leaf(want);
  }

  // Operand types for op, near `want`: the same type most of the time, the narrower one
  // for a widening operator, any type otherwise.
  Type operand_type(Op op, Type want) {
    bool widening = op == Op::WideningAdd || op == Op::WideningSub || op == Op::WideningMul;
    if (widening && want.bits() >= 16 && chance(80))
      return chance(50) ? Type::uint(want.bits() / 2) : Type::int_(want.bits() / 2);
    return chance(65) ? want : pick(types());
  }

  std::optional<std::string> apply(Op op, Type want, int depth) {
    if (op == Op::SaturatingCast) {
      Type from = pick(types());
      return fmt::format("saturating_cast<{}>({})", want.to_string(), expr(from, depth - 1));
    }
    if (op == Op::Select) {
      Type ct = pick(types());
      Op cmp = pick(std::vector<Op>{Op::Lt, Op::Le, Op::Eq, Op::Ne});
      std::string cond = apply_text(cmp, {expr(ct, depth - 2), expr(ct, depth - 2)});
      return fmt::format("select({}, {}, {})", cond, expr(want, depth - 1), expr(want, depth - 1));
    }
    Type a = operand_type(op, want);
    std::vector<Type> types(size_t(op_arity(op)), a);
    bool shift = op == Op::Shl || op == Op::Shr || op == Op::RoundingShiftLeft || op == Op::RoundingShiftRight;
    bool mul_shift = op == Op::MulShiftRight || op == Op::RoundingMulShiftRight;
    if (mul_shift) {
      // mul_shift_right on 64-bit operands stops Halide with an InternalError
      // (docs/findings/halide-mul-shift-right-64-internal-error.halo): known, not redrawn.
      if (a.bits() == 64) return std::nullopt;
      types[2] = Type::uint(a.bits());
    }
    if (op == Op::Lerp) types[2] = a.is_float() && chance(50) ? a : Type::uint(pick(std::vector<int>{8, 16, 32}));
    OpTyping typing = type_op(op, types);
    if (!typing.error.empty()) return std::nullopt;
    std::vector<std::string> args;
    for (size_t i = 0; i < types.size(); ++i) {
      if (mul_shift && i == 2) {
        args.push_back(std::to_string(small_int(0, a.bits() - 1)));
        continue;
      }
      std::string e = expr(types[i], depth - 1);
      // A shift amount modulo the width (Euclidean: never negative), so that most lanes
      // shift by less than the width and are defined.
      if (shift && i == 1 && chance(80)) e = fmt::format("({} % {}({}))", e, a.to_string(), a.bits());
      args.push_back(std::move(e));
    }
    // A literal zero float divisor is refused at the expression, as Halide refuses it.
    if ((op == Op::Div || op == Op::Mod) && a.is_float() && (args[1] == "0.0f" || args[1] == "(-0.0f)"))
      return std::nullopt;
    std::string text = apply_text(op, args);
    if (typing.result == want) return text;
    // A float cast to an integer is undefined out of range: saturate it more often.
    return chance(typing.result.is_float() && !want.is_float() ? 30 : 70)
               ? fmt::format("{}({})", want.to_string(), text)
               : fmt::format("saturating_cast<{}>({})", want.to_string(), text);
  }
};

}  // namespace

rc::Gen<Program> gen_expr_case(ExprGenConfig cfg) {
  return rc::gen::exec([cfg] {
    std::string text = Builder(cfg).build();
    return parse_program(text, "<expr-case>");
  });
}

rc::Shrinkable<Program> generate_expr_case(const CaseSeed& s, int float_percent) {
  return gen_expr_case(expr_case_config(s.size, float_percent))(rc::Random(s.key), rc::kNominalSize);
}

}  // namespace halo::fuzz

// The lexer and the shared tables of lexer.hpp.
//
// The lexer works on bytes, not characters: columns count bytes, and any byte outside the
// ASCII vocabulary is an error naming the byte, so that arbitrary (even binary) input gets
// a located message instead of undefined behaviour.
#include "semantics/lexer.hpp"
#include "support/command_budget.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <limits>
#include <cmath>

#include <algorithm>
#include <array>

namespace halo {

namespace {

constexpr std::array kReservedWords = {
    "pipeline", "fun", "rdom", "in", "if", "schedule", "realize", "over", "select", "min", "max",
};

// Two-byte symbols come first so that the longest match wins (`<-` is not `<` then `-`).
// `?`, `^`, `.` and `:` belong to the target language (holes, labels, `label f.s0:`); the
// algorithm parser meets them as tokens and says where they belong.
// `<<` and `>>` are Halide's shifts, `&`, `|`, `^` and `~` its bitwise operators (`^` is
// also the target language's label mark, f^(stage, spec)).
constexpr std::string_view kSymbols[] = {
    "<-", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "(", ")", "{", "}", "[", "]", ",",
    ";",  "=",  "<",  ">",  "!",  "+",  "-",  "*", "/", "%", "?", "^", ".", ":", "&", "|", "~",
};

bool is_ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// How a byte appears in a message: itself when printable ASCII, else \xNN.
std::string show_byte(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string(1, c);
  return fmt::format("\\x{:02X}", u);
}

class Lexer {
 public:
  Lexer(std::string_view src, const std::string& file) : src_(src), file_(file) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    while (skip_blanks_and_comments(), pos_ < src_.size()) {
      tick_command_budget();  // parsing polls the command's budget too
      out.push_back(next());
    }
    out.push_back(Token{TokenKind::End, {}, here()});
    return out;
  }

  Token first() {
    skip_blanks_and_comments();
    return pos_ < src_.size() ? next() : Token{TokenKind::End, {}, here()};
  }

 private:
  std::string_view src_;
  const std::string& file_;
  size_t pos_ = 0;
  uint32_t line_ = 1, col_ = 1;

  SourceLoc here() const { return {line_, col_}; }

  [[noreturn]] void fail(SourceLoc loc, std::string message) const {
    throw InputError(Diagnostic{file_, loc, std::move(message)});
  }

  void bump(size_t n = 1) {
    for (size_t i = 0; i < n; ++i, ++pos_) {
      if (src_[pos_] == '\n') {
        ++line_;
        col_ = 1;
      } else {
        ++col_;
      }
    }
  }

  void skip_blanks_and_comments() {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (is_space(c)) {
        bump();
      } else if (c == '#') {
        while (pos_ < src_.size() && src_[pos_] != '\n') {
          if (src_[pos_] == '\0') unexpected();
          bump();
        }
      } else {
        return;
      }
    }
  }

  [[noreturn]] void unexpected() const {
    char c = src_[pos_];
    std::string hint;
    if (c == '&') hint = " (logical and is '&&')";
    if (c == '|') hint = " (logical or is '||')";
    fail(here(), fmt::format("unexpected character '{}'{}", show_byte(c), hint));
  }

  Token next() {
    char c = src_[pos_];
    if (is_ident_start(c)) return word();
    if (is_digit(c)) return number();
    if (c == '"') return string();
    return symbol();
  }

  // Consumes the longest run of bytes satisfying `pred` and makes it a token.
  template <typename Pred>
  Token take_while(TokenKind kind, Pred pred) {
    SourceLoc loc = here();
    size_t start = pos_;
    while (pos_ < src_.size() && pred(src_[pos_])) bump();
    return Token{kind, src_.substr(start, pos_ - start), loc};
  }

  Token word() {
    Token t = take_while(TokenKind::Identifier, is_ident_char);
    if (is_reserved_word(t.text)) t.kind = TokenKind::Keyword;
    return t;
  }

  // A float literal as C++ writes one in decimal: digits '.' digits with an optional
  // exponent, or digits with an exponent; an `f` suffix makes it a float, not a double.
  Token float_literal(SourceLoc loc, size_t start) {
    auto digits = [&] {
      size_t n = 0;
      while (pos_ < src_.size() && is_digit(src_[pos_])) { bump(); ++n; }
      return n;
    };
    digits();
    if (pos_ < src_.size() && src_[pos_] == '.') {
      bump();
      if (digits() == 0) fail(loc, "malformed float literal: write a digit after the point (1.0, not 1.)");
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      bump();
      if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) bump();
      if (digits() == 0) fail(loc, "malformed float literal: the exponent has no digits");
    }
    if (pos_ < src_.size() && (src_[pos_] == 'f' || src_[pos_] == 'F')) bump();
    Token t{TokenKind::Float, src_.substr(start, pos_ - start), loc};
    if (pos_ < src_.size() && is_ident_char(src_[pos_])) {
      while (pos_ < src_.size() && is_ident_char(src_[pos_])) bump();
      fail(loc, fmt::format("malformed float literal '{}'", src_.substr(start, pos_ - start)));
    }
    if (t.text.size() > kMaxLiteralDigits) fail(loc, "float literal too long");
    Value v = float_literal_value(t, false);
    if (std::isinf(v.as_double()))
      fail(loc, fmt::format("float literal '{}' is out of the range of {}", t.text, v.is_f32() ? "float" : "double"));
    return t;
  }

  Token number() {
    {  // a float literal: digits followed by '.', 'e' or 'E' and a digit or sign
      size_t i = pos_;
      while (i < src_.size() && is_digit(src_[i])) ++i;
      bool point = i + 1 < src_.size() && src_[i] == '.' && is_digit(src_[i + 1]);
      bool exponent = i + 1 < src_.size() && (src_[i] == 'e' || src_[i] == 'E') &&
                      (is_digit(src_[i + 1]) || ((src_[i + 1] == '+' || src_[i + 1] == '-') && i + 2 < src_.size() &&
                                                 is_digit(src_[i + 2])));
      if (point || exponent) return float_literal(here(), pos_);
    }
    // Take letters too, so that `12ab` is reported as one malformed literal.
    Token t = take_while(TokenKind::Integer, is_ident_char);
    if (!std::all_of(t.text.begin(), t.text.end(), is_digit))
      fail(t.loc, fmt::format("malformed integer literal '{}'", t.text));
    if (t.text.size() > kMaxLiteralDigits)
      fail(t.loc, fmt::format("integer literal too long ({} digits, the limit is {})", t.text.size(),
                              kMaxLiteralDigits));
    return t;
  }

  // A file name: every byte up to the closing quote, which must come before the line ends.
  Token string() {
    SourceLoc loc = here();
    size_t start = pos_;
    bump();
    while (pos_ < src_.size() && src_[pos_] != '"' && src_[pos_] != '\n') {
      if (src_[pos_] == '\0') unexpected();
      bump();
    }
    if (pos_ >= src_.size() || src_[pos_] != '"') fail(loc, "unterminated string (a string ends on its line with '\"')");
    bump();
    return Token{TokenKind::String, src_.substr(start, pos_ - start), loc};
  }

  Token symbol() {
    std::string_view rest = src_.substr(pos_);
    for (std::string_view s : kSymbols) {
      if (rest.starts_with(s)) {
        Token t{TokenKind::Symbol, rest.substr(0, s.size()), here()};
        bump(s.size());
        return t;
      }
    }
    unexpected();
  }
};

// ---------------------------------------------------------------- tables
struct InfixEntry {
  Op op;
  Precedence prec;
};
constexpr std::array kInfixOps = {
    InfixEntry{Op::Or, Precedence::Or},
    InfixEntry{Op::And, Precedence::And},
    InfixEntry{Op::BitOr, Precedence::BitOr},
    InfixEntry{Op::BitXor, Precedence::BitXor},
    InfixEntry{Op::BitAnd, Precedence::BitAnd},
    InfixEntry{Op::Shl, Precedence::Shift},
    InfixEntry{Op::Shr, Precedence::Shift},
    InfixEntry{Op::Lt, Precedence::Compare},
    InfixEntry{Op::Gt, Precedence::Compare},
    InfixEntry{Op::Le, Precedence::Compare},
    InfixEntry{Op::Ge, Precedence::Compare},
    InfixEntry{Op::Eq, Precedence::Compare},
    InfixEntry{Op::Ne, Precedence::Compare},
    InfixEntry{Op::Add, Precedence::Additive},
    InfixEntry{Op::Sub, Precedence::Additive},
    InfixEntry{Op::Mul, Precedence::Multiplicative},
    InfixEntry{Op::Div, Precedence::Multiplicative},
    InfixEntry{Op::Mod, Precedence::Multiplicative},
};
constexpr std::array kBuiltins = {Op::Select, Op::Min, Op::Max};
constexpr std::array kPrefixOps = {Op::Neg, Op::Not, Op::BitNot};
constexpr std::array kHalideNamedOps = {
    Op::Absd, Op::WideningAdd, Op::WideningSub, Op::WideningMul, Op::SaturatingAdd, Op::SaturatingSub,
    Op::HalvingAdd, Op::HalvingSub, Op::RoundingHalvingAdd, Op::RoundingShiftLeft, Op::RoundingShiftRight,
    Op::MulShiftRight, Op::RoundingMulShiftRight, Op::CountLeadingZeros, Op::CountTrailingZeros, Op::Popcount,
    Op::Lerp, Op::Floor, Op::Ceil, Op::Round, Op::Trunc, Op::Sqrt, Op::IsNan, Op::IsInf, Op::IsFinite};

using P = DirectiveParam;
using A = DirectiveArg;
constexpr P kLoop{A::Loop, "<f, j, i, v>"};
constexpr std::array kSpecialize = {P{A::Func, "f"}, P{A::Expressions, "c1, ..., cn"}};
constexpr std::array kSplit = {kLoop, P{A::Name, "vo"}, P{A::Name, "vi"}, P{A::Expression, "factor"},
                               P{A::Tail, "guard|shift|round"}};
constexpr std::array kFuse = {kLoop, P{A::Name, "t"}};
constexpr std::array kSwap = {kLoop};
constexpr std::array kTraverse = {kLoop, P{A::Order, "serial|parallel|vectorized|unrolled"}};
constexpr std::array kComputeAt = {P{A::Func, "f"}, P{A::Loop, "<g, j, i, v>"}};
constexpr std::array kBound = {P{A::Func, "f"}, P{A::Name, "x"}, P{A::Expression, "min"},
                               P{A::Expression, "len"}};
constexpr std::array kBoundExtent = {P{A::Func, "f"}, P{A::Name, "x"}, P{A::Expression, "len"}};
constexpr std::array kAlignBounds = {P{A::Func, "f"}, P{A::Name, "x"}, P{A::Expression, "modulus"},
                                     P{A::Expression, "remainder"}};
constexpr std::array kRfactor = {P{A::Loop, "<f, j, i, r>"}, P{A::Name, "v"}};
constexpr std::array kComputeWith = {kLoop, P{A::With, "<g, j, i, w>"}};
constexpr std::array kFoldStorage = {P{A::Func, "f"}, P{A::Name, "x"}, P{A::Expression, "extent"}};
constexpr std::array kAsync = {P{A::Func, "f"}};
constexpr std::array kComputeInline = {P{A::Func, "f"}};
constexpr std::array kAtomic = {P{A::Stage, "<f, j, i>"}};
constexpr std::array kPrefetch = {P{A::Loop, "<g, j, i, at>"}, P{A::Func, "f"}, P{A::Name, "from"},
                                  P{A::Expression, "offset"}};
constexpr std::array kStoreIn = {P{A::Func, "f"}, P{A::Name, "auto|heap|stack|register"}};
constexpr std::array kReorderStorage = {P{A::Func, "f"}, P{A::Names, "x, y, ..."}};
constexpr std::array kAlignStorage = {P{A::Func, "f"}, P{A::Name, "x"}, P{A::Expression, "alignment"}};
constexpr std::array kBoundStorage = {P{A::Func, "f"}, P{A::Name, "x"}, P{A::Expression, "extent"}};
constexpr std::array kAlignExtent = {P{A::Func, "f"}, P{A::Name, "x"}, P{A::Expression, "modulus"}};
constexpr std::array kRingBuffer = {P{A::Func, "f"}, P{A::Expression, "extent"}};
constexpr std::array kPartition = {kLoop, P{A::Name, "auto|never|always"}};
constexpr std::array kSpecializeFail = {P{A::Func, "f"}, P{A::Text, "\"message\""}};
constexpr std::array kIn = {P{A::Func, "f"}, P{A::Names, "[g, ...,] wrapper"}};
constexpr std::array kCloneIn = {P{A::Func, "f"}, P{A::Names, "g, ..., wrapper"}};
constexpr std::array kTvmReverseComputeAt = {P{A::Func, "g"}, P{A::Loop, "<f, 0, i, v>"}};
constexpr std::array kTvmCacheRead = {P{A::Stage, "<g, 0, i>"}, P{A::Func, "f"}};
constexpr std::array kTvmStage = {P{A::Stage, "<f, 0, i>"}};
constexpr std::array kTvmLoop = {kLoop};
constexpr std::array kTvmSplitUnpredicated = {kLoop, P{A::Name, "vo"}, P{A::Name, "vi"}, P{A::Expression, "factor"}};
constexpr std::array kTvmLoopPartition = {kLoop, P{A::Expressions, "n1, ..., nk"}};
constexpr std::array kTvmPadEinsum = {P{A::Stage, "<f, 0, i>"}, P{A::Expressions, "p1, ..., pn"}};

// In the order of fig. 2.11's phases, which is also the order error messages list them in;
// Halide's own directives last.
const std::array<DirectiveSyntax, 41> kDirectives = {{
    {DirectiveKind::Specialize, kSpecialize},
    {DirectiveKind::Split, kSplit},
    {DirectiveKind::Fuse, kFuse},
    {DirectiveKind::Swap, kSwap},
    {DirectiveKind::Traverse, kTraverse},
    {DirectiveKind::ComputeAt, kComputeAt},
    {DirectiveKind::StoreAt, kComputeAt},
    {DirectiveKind::ComputeInline, kComputeInline},
    {DirectiveKind::Bound, kBound},
    {DirectiveKind::BoundExtent, kBoundExtent},
    {DirectiveKind::AlignBounds, kAlignBounds},
    {DirectiveKind::Rfactor, kRfactor},
    {DirectiveKind::ComputeWith, kComputeWith},
    {DirectiveKind::FoldStorage, kFoldStorage},
    {DirectiveKind::Async, kAsync},
    {DirectiveKind::HoistStorage, kComputeAt},
    {DirectiveKind::Atomic, kAtomic},
    {DirectiveKind::Prefetch, kPrefetch},
    {DirectiveKind::Memoize, kAsync},
    {DirectiveKind::StoreIn, kStoreIn},
    {DirectiveKind::HoistStorageRoot, kAsync},
    {DirectiveKind::ReorderStorage, kReorderStorage},
    {DirectiveKind::AlignStorage, kAlignStorage},
    {DirectiveKind::BoundStorage, kBoundStorage},
    {DirectiveKind::AlignExtent, kAlignExtent},
    {DirectiveKind::RingBuffer, kRingBuffer},
    {DirectiveKind::Partition, kPartition},
    {DirectiveKind::Unscheduled, kAtomic},
    {DirectiveKind::AllowRaceConditions, kAtomic},
    {DirectiveKind::SpecializeFail, kSpecializeFail},
    {DirectiveKind::In, kIn},
    {DirectiveKind::CloneIn, kCloneIn},
    {DirectiveKind::TvmReverseComputeAt, kTvmReverseComputeAt},
    {DirectiveKind::TvmReverseComputeInline, kComputeInline},
    {DirectiveKind::TvmCacheRead, kTvmCacheRead},
    {DirectiveKind::TvmCacheWrite, kTvmStage},
    {DirectiveKind::TvmDecomposeReduction, kTvmLoop},
    {DirectiveKind::TvmSplitUnpredicated, kTvmSplitUnpredicated},
    {DirectiveKind::TvmBlockize, kTvmLoop},
    {DirectiveKind::TvmLoopPartition, kTvmLoopPartition},
    {DirectiveKind::TvmPadEinsum, kTvmPadEinsum},
}};


// The enumerators of a small enum whose name function is `name_of`, looked up by name.
template <typename E, size_t N>
std::optional<E> lookup(std::string_view name, const std::array<E, N>& all, const char* (*name_of)(E)) {
  for (E e : all)
    if (name == name_of(e)) return e;
  return std::nullopt;
}

}  // namespace

std::vector<Token> lex(std::string_view source, const std::string& file) { return Lexer(source, file).run(); }

Token first_token(std::string_view source, const std::string& file) { return Lexer(source, file).first(); }

// Directives added after the language's first release are words only where a directive
// stands: a func or variable of an older program may have their names. They are the kinds
// from Atomic on (ast.hpp lists them last).
bool is_contextual_directive(DirectiveKind k) {
  return k >= DirectiveKind::Atomic;
}

bool is_reserved_word(std::string_view word) {
  auto directive = directive_kind(word);
  return std::find(kReservedWords.begin(), kReservedWords.end(), word) != kReservedWords.end() ||
         (directive && !is_contextual_directive(*directive));
}

bool is_identifier(std::string_view word) {
  return !word.empty() && is_ident_start(word[0]) && std::all_of(word.begin(), word.end(), is_ident_char) &&
         !is_reserved_word(word);
}

std::optional<Op> infix_op(std::string_view symbol) {
  for (const auto& e : kInfixOps)
    if (symbol == op_name(e.op)) return e.op;
  return std::nullopt;
}

std::optional<Op> builtin_op(std::string_view name) { return lookup(name, kBuiltins, op_name); }

std::optional<Op> prefix_op(std::string_view symbol) { return lookup(symbol, kPrefixOps, op_name); }

std::optional<Value> parse_number_text(std::string_view text) {
  if (auto v = Value::parse(text)) return v;
  std::string s(text);
  bool negative = !s.empty() && s[0] == '-';
  std::string body = negative ? s.substr(1) : s;
  if (body == "inf" || body == "nan") {
    double d = body == "nan" ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    return Value::f64(negative ? -d : d);
  }
  if (body.empty() || !std::isdigit(static_cast<unsigned char>(body[0])) ||
      body.find_first_not_of("0123456789.eE+-") != std::string::npos)
    return std::nullopt;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return Value::f64(d);
}

Value float_literal_value(const Token& t, bool negative) {
  std::string text(t.text);
  bool single = !text.empty() && (text.back() == 'f' || text.back() == 'F');
  if (single) text.pop_back();
  // glibc's strtof and strtod round correctly to nearest, ties to even, as C++ compilers
  // read literals; overflow gives inf (lex rejects it), underflow a subnormal or zero.
  if (single) {
    float f = std::strtof(text.c_str(), nullptr);
    return Value::f32(negative ? -f : f);
  }
  double d = std::strtod(text.c_str(), nullptr);
  return Value::f64(negative ? -d : d);
}

std::optional<Op> halide_named_op(std::string_view name) { return lookup(name, kHalideNamedOps, op_name); }

bool is_transcendental(std::string_view name) {
  static constexpr std::array<std::string_view, 25> kNames = {
      "exp", "log", "pow", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh",
      "acosh", "atanh", "erf", "hypot", "fast_sin", "fast_cos", "fast_log", "fast_exp", "fast_pow", "fast_inverse",
      "fast_inverse_sqrt"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

bool is_builtin(Op op) { return std::find(kBuiltins.begin(), kBuiltins.end(), op) != kBuiltins.end(); }

Precedence precedence(Op op) {
  for (const auto& e : kInfixOps)
    if (e.op == op) return e.prec;
  return is_builtin(op) ? Precedence::Primary : Precedence::Unary;
}

const DirectiveSyntax& directive_syntax(DirectiveKind kind) {
  return *std::find_if(kDirectives.begin(), kDirectives.end(),
                       [kind](const DirectiveSyntax& d) { return d.kind == kind; });
}

std::optional<DirectiveKind> directive_kind(std::string_view name) {
  for (const auto& d : kDirectives)
    if (name == directive_name(d.kind)) return d.kind;
  return std::nullopt;
}

std::span<const DirectiveSyntax> all_directives() { return kDirectives; }

std::string directive_usage(DirectiveKind kind) {
  std::string params;
  for (const auto& p : directive_syntax(kind).params) {
    if (!params.empty()) params += ", ";
    params += p.placeholder;
  }
  return fmt::format("{}({})", directive_name(kind), params);
}

std::optional<TailStrategy> tail_strategy(std::string_view name) {
  constexpr std::array all = {TailStrategy::Guard,          TailStrategy::Shift,
                              TailStrategy::Round,          TailStrategy::Predicate,
                              TailStrategy::PredicateLoads, TailStrategy::PredicateStores,
                              TailStrategy::Auto};
  return lookup(name, all, tail_name);
}

std::optional<Traversal> traversal(std::string_view name) {
  constexpr std::array all = {Traversal::Serial, Traversal::Parallel, Traversal::Vectorized,
                              Traversal::Unrolled};
  return lookup(name, all, traversal_name);
}

}  // namespace halo

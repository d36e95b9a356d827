// The value domain V = Z ∪ {ε_rdom, ε_mem} (thesis §2.4.1, Def. 2.6; SEMANTICS.md).
#include "semantics/value.hpp"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <limits>

using namespace halo;

namespace {
const int64_t kMax = std::numeric_limits<int64_t>::max();
const int64_t kMin = std::numeric_limits<int64_t>::min();

Value big(const char* s) { return *Value::parse(s); }

// The definition of Euclidean division, by search: the unique r with 0 <= r < |b| and
// b | (a - r); q = (a - r) / b. Total: both are 0 when b = 0.
std::pair<int64_t, int64_t> brute_divmod(int64_t a, int64_t b) {
  if (b == 0) return {0, 0};
  int64_t m = b < 0 ? -b : b;
  for (int64_t r = 0; r < m; ++r)
    if ((a - r) % b == 0) return {(a - r) / b, r};
  return {0, 0};  // unreachable
}
}  // namespace

TEST_CASE("integers overflow into big integers and come back", "[values]") {
  Value a(kMax);
  Value s = add(a, Value(1));
  CHECK_FALSE(s.is_small());
  CHECK(s.to_string() == "9223372036854775808");
  CHECK(sub(s, Value(1)).is_small());
  CHECK(sub(s, Value(1)) == Value(kMax));
  CHECK(mul(Value(kMin), Value(-1)).to_string() == "9223372036854775808");
  CHECK(sub(Value(0), Value(kMin)).to_string() == "9223372036854775808");
  CHECK(apply_op(Op::Neg, std::vector<Value>{Value(kMin)}).to_string() == "9223372036854775808");
  CHECK(mul(big("100000000000000000000"), big("100000000000000000000")).to_string() ==
        "10000000000000000000000000000000000000000");
  CHECK(div(Value(kMin), Value(-1)).to_string() == "9223372036854775808");
  CHECK(mod(Value(kMin), Value(-1)) == Value(0));
}

TEST_CASE("division and modulo are Euclidean and total", "[values]") {
  CHECK(div(Value(7), Value(2)) == Value(3));
  CHECK(mod(Value(7), Value(2)) == Value(1));
  CHECK(div(Value(-7), Value(2)) == Value(-4));
  CHECK(mod(Value(-7), Value(2)) == Value(1));
  CHECK(div(Value(7), Value(-2)) == Value(-3));
  CHECK(mod(Value(7), Value(-2)) == Value(1));
  CHECK(div(Value(-7), Value(-2)) == Value(4));
  CHECK(mod(Value(-7), Value(-2)) == Value(1));
  CHECK(div(Value(5), Value(0)) == Value(0));
  CHECK(mod(Value(5), Value(0)) == Value(0));
  CHECK(div(big("-100000000000000000001"), Value(10)) == big("-10000000000000000001"));
  CHECK(mod(big("-100000000000000000001"), Value(10)) == Value(9));
  CHECK(mod(Value(kMin), Value(kMin)) == Value(0));
  CHECK(mod(Value(-1), Value(kMin)).to_string() == "9223372036854775807");
}

TEST_CASE("div and mod agree with the brute-force definition around zero", "[values]") {
  for (int64_t a = -30; a <= 30; ++a)
    for (int64_t b = -12; b <= 12; ++b) {
      auto [q, r] = brute_divmod(a, b);
      INFO(a << " / " << b);
      CHECK(div(Value(a), Value(b)) == Value(q));
      CHECK(mod(Value(a), Value(b)) == Value(r));
    }
}

TEST_CASE("property: div/mod laws on word and big integers", "[values][property]") {
  rc::prop("a = (a/b)*b + a%b and 0 <= a%b < |b| when b != 0; both 0 when b = 0", [] {
    auto pick = [] {
      switch (*rc::gen::inRange(0, 4)) {
        case 0: return Value(int64_t(*rc::gen::inRange(-20, 21)));
        case 1: return Value(*rc::gen::arbitrary<int64_t>());
        case 2: return Value(*rc::gen::element(kMin, kMax, kMin + 1, kMax - 1, int64_t(-1), int64_t(0)));
        default: return mul(Value(*rc::gen::arbitrary<int64_t>()), Value(*rc::gen::arbitrary<int64_t>()));
      }
    };
    Value a = pick(), b = pick();
    Value q = div(a, b), r = mod(a, b);
    if (b.is_zero()) {
      RC_ASSERT(q == Value(0));
      RC_ASSERT(r == Value(0));
      return;
    }
    RC_ASSERT(add(mul(q, b), r) == a);
    RC_ASSERT(r.sign() >= 0);
    RC_ASSERT(r.to_big() < abs(b.to_big()));
    // The word-sized path agrees with the unbounded one.
    BigInt bq = a.to_big() / b.to_big(), br = a.to_big() - bq * b.to_big();
    if (br < 0) { bq += b.sign() > 0 ? -1 : 1; br += abs(b.to_big()); }
    RC_ASSERT(q == Value::from_big(bq));
    RC_ASSERT(r == Value::from_big(br));
  });
}

TEST_CASE("property: arithmetic never wraps", "[values][property]") {
  rc::prop("add, sub, mul agree with unbounded integers", [](int64_t a, int64_t b) {
    RC_ASSERT(add(Value(a), Value(b)).to_big() == BigInt(a) + BigInt(b));
    RC_ASSERT(sub(Value(a), Value(b)).to_big() == BigInt(a) - BigInt(b));
    RC_ASSERT(mul(Value(a), Value(b)).to_big() == BigInt(a) * BigInt(b));
  });
}

TEST_CASE("errors: ε_rdom < ε_mem and every operation returns the greatest", "[values]") {
  Value r = Value::err_rdom(), m = Value::err_mem();
  CHECK(add(Value(1), r) == r);
  CHECK(add(r, m) == m);
  CHECK(mul(m, r) == m);
  CHECK(div(r, Value(0)) == r);
  CHECK(apply_op(Op::Lt, std::vector<Value>{r, Value(1)}) == r);
  CHECK(apply_op(Op::Not, std::vector<Value>{m}) == m);
  CHECK(apply_op(Op::Min, std::vector<Value>{Value(1), r}) == r);
  CHECK(apply_op(Op::And, std::vector<Value>{Value(0), m}) == m);  // no short-circuit
  CHECK(apply_op(Op::Or, std::vector<Value>{Value(1), r}) == r);
}

TEST_CASE("select is strict in all three operands", "[values]") {
  Value r = Value::err_rdom();
  CHECK(apply_op(Op::Select, std::vector<Value>{Value(1), Value(5), r}) == r);
  CHECK(apply_op(Op::Select, std::vector<Value>{Value(0), r, Value(5)}) == r);
  CHECK(apply_op(Op::Select, std::vector<Value>{Value(1), Value(5), Value(6)}) == Value(5));
  CHECK(apply_op(Op::Select, std::vector<Value>{Value(-3), Value(5), Value(6)}) == Value(5));
  CHECK(apply_op(Op::Select, std::vector<Value>{Value(0), Value(5), Value(6)}) == Value(6));
}

TEST_CASE("logical operators read 0 as false and return 1 for true", "[values]") {
  auto op = [](Op o, Value a, Value b) { return apply_op(o, std::vector<Value>{a, b}); };
  CHECK(op(Op::And, Value(7), Value(-2)) == Value(1));
  CHECK(op(Op::And, Value(7), Value(0)) == Value(0));
  CHECK(op(Op::Or, Value(0), Value(0)) == Value(0));
  CHECK(op(Op::Or, big("100000000000000000000"), Value(0)) == Value(1));
  CHECK(apply_op(Op::Not, std::vector<Value>{Value(9)}) == Value(0));
  CHECK(apply_op(Op::Not, std::vector<Value>{Value(0)}) == Value(1));
  CHECK(op(Op::Lt, Value(-1), Value(0)) == Value(1));
  CHECK(op(Op::Gt, big("100000000000000000000"), Value(kMax)) == Value(1));
  CHECK(op(Op::Eq, big("100000000000000000000"), big("100000000000000000000")) == Value(1));
  CHECK(op(Op::Le, Value(2), Value(2)) == Value(1));
  CHECK(op(Op::Ge, Value(1), Value(2)) == Value(0));
  CHECK(op(Op::Ne, Value(1), Value(2)) == Value(1));
  CHECK(op(Op::Min, Value(-4), Value(3)) == Value(-4));
  CHECK(op(Op::Max, Value(-4), big("-100000000000000000000")) == Value(-4));
}

TEST_CASE("literals parse to normalized values", "[values]") {
  CHECK(Value::parse("0") == Value(0));
  CHECK(Value::parse("-12") == Value(-12));
  CHECK(Value::parse("9223372036854775807")->is_small());
  CHECK_FALSE(Value::parse("9223372036854775808")->is_small());
  CHECK(Value::parse("-9223372036854775808")->is_small());
  CHECK_FALSE(Value::parse("12a").has_value());
  CHECK_FALSE(Value::parse("").has_value());
  CHECK_FALSE(Value::parse("-").has_value());
}

// Every operator and intrinsic of docs/types.md at every integer type's edges, as .halo
// text: the cases tests/test_halide_typed.cpp runs through Halide and tests/test_import.cpp
// sends round through Halide's serialization.
#pragma once

#include "semantics/type.hpp"
#include "semantics/value.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace halo::test {

struct EdgeType {
  const char* name;
  Type type;
};

inline const std::vector<EdgeType>& edge_types() {
  static const std::vector<EdgeType> types = {{"u8", Type::uint(8)},   {"i8", Type::int_(8)},   {"u16", Type::uint(16)},
                                              {"i16", Type::int_(16)}, {"u32", Type::uint(32)}, {"i32", Type::int_(32)},
                                              {"u64", Type::uint(64)}, {"i64", Type::int_(64)}};
  return types;
}

// A and B are the operands, Q a shift of half the type's width.
inline const std::vector<std::string>& edge_ops() {
  static const std::vector<std::string> ops = {
      "A + B", "A - B", "A * B", "A / B", "A % B", "min(A, B)", "max(A, B)", "A < B", "A == B", "A & B", "A | B",
      "A ^ B", "~A", "-A", "A << B", "A >> B", "abs(A)", "absd(A, B)", "select(A < B, A, B)", "widening_add(A, B)",
      "widening_sub(A, B)", "widening_mul(A, B)", "saturating_add(A, B)", "saturating_sub(A, B)", "halving_add(A, B)",
      "halving_sub(A, B)", "rounding_halving_add(A, B)", "rounding_shift_left(A, B)", "rounding_shift_right(A, B)",
      "mul_shift_right(A, B, Q)", "rounding_mul_shift_right(A, B, Q)", "count_leading_zeros(A)",
      "count_trailing_zeros(A)", "popcount(A)", "saturating_cast<u8>(A)", "saturating_cast<i16>(A)", "u8(A)",
      "i32(A)", "u64(A)"};
  return ops;
}

// min, min+1, -1, 0, 1, max (signed); 0, 1, 2, the high bit, max-1, max (unsigned).
inline std::vector<Value> edges(Type t) {
  Value mn = t.min(), mx = t.max();
  if (t.is_int())
    return {mn, add(mn, Value(int64_t{1})), Value(int64_t{-1}), Value(int64_t{0}), Value(int64_t{1}), mx};
  return {Value(int64_t{0}), Value(int64_t{1}), Value(int64_t{2}), add(div(mx, Value(int64_t{2})), Value(int64_t{1})),
          sub(mx, Value(int64_t{1})), mx};
}

// The edge values as parameters p0 : T, p1 : T, ... (so that Halide cannot fold them), their
// realize bindings, and `table`, the select over x that reads the x-th: a(x) : T = { table }.
struct EdgeTable {
  std::string params, binds, table;
  size_t size = 0;
};
inline EdgeTable edge_table(const EdgeType& t) {
  std::vector<Value> es = edges(t.type);
  std::vector<std::string> params, binds;
  EdgeTable e;
  for (size_t i = 0; i < es.size(); ++i) {
    params.push_back(fmt::format("p{} : {}", i, t.name));
    binds.push_back(fmt::format("p{} = {}", i, es[i].to_string()));
    e.table += i + 1 < es.size() ? fmt::format("select(x == {}, p{}, ", i, i) : fmt::format("p{}", i);
  }
  e.table += std::string(es.size() - 1, ')');
  e.params = fmt::format("{}", fmt::join(params, ", "));
  e.binds = fmt::format("{}", fmt::join(binds, ", "));
  e.size = es.size();
  return e;
}

// The operator `op` with A and B read as `a` and `b`.
inline std::string edge_op(const std::string& op, const EdgeType& t, const std::string& a, const std::string& b) {
  std::string body = op;
  auto put = [&](const std::string& from, const std::string& to) {
    for (size_t at; (at = body.find(from)) != std::string::npos;) body.replace(at, from.size(), to);
  };
  put("A", a);
  put("B", b);
  put("Q", std::to_string(t.type.bits() / 2));
  return body;
}

}  // namespace halo::test

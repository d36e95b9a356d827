// Typed programs through the real Halide (docs/types.md, "The Halide translation"): the
// user's uint8 unsharp mask gives the values Halide computes, and every operator and
// intrinsic, at every integer type's edges, scalar and vectorized, computes in Halide what
// halo's typed reference says — the points where the reference is undefined excepted.
#include "candidates/halide/emit_cpp.hpp"
#include "candidates/halide/halide_oracle.hpp"
#include "candidates/halide/plan.hpp"
#include "candidates/halide/versions.hpp"
#include "interp/fast_eval.hpp"
#include "schedule/schedule.hpp"
#include "semantics/parser.hpp"
#include "semantics/validity.hpp"
#include "support.hpp"
#include "typed_edges.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <fstream>
#include <sstream>

namespace halo {
namespace {

using halide::HalideOutcome;

std::string read_example(const std::string& rel) {
  std::ifstream f(std::string(HALO_SOURCE_DIR) + "/" + rel);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The user's C++ for examples/types/unsharp_u8.halo, in uint8_t/int16_t as Halide computes:
// the blur's `in(x-1) + 2 * in(x) + in(x+1)` wraps at 256 before the division.
int unsharp_by_hand(int x, int y, int k) {
  auto in = [](int x, int y) { return uint8_t(((x * 37 + y * 11) % 256 + 256) % 256); };
  uint8_t sum = uint8_t(in(x - 1, y) + uint8_t(2 * in(x, y)) + in(x + 1, y));
  uint8_t blur = uint8_t(sum / 4);
  int v = int16_t(int16_t(in(x, y)) * int16_t(k)) - int16_t(blur);
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

}  // namespace

TEST_CASE("Halide typed: the uint8 unsharp mask as the user wrote it computes what Halide computes", "[halide][types]") {
  Program p = test::parse_valid(read_example("examples/types/unsharp_u8.halo"), "unsharp_u8.halo");
  Input in = resolve_input(p, {});
  OutputBuffer ref = evaluate_fast(p.pipeline, in, Limits{});
  // The reference is the user's uint8 program, wrap included (x = 2: 37 + 148 + 111 = 296
  // wraps to 40, the blur is 10, not 74).
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 8; ++x) {
      INFO("at (" << x << ", " << y << ")");
      CHECK(ref.values[size_t(y * 8 + x)] == Value(int64_t(unsharp_by_hand(x, y, 2))));
    }
  CHECK(ref.values[2] == Value(int64_t{138}));
  for (const auto& hv : halide::installed_halide_versions()) {
    halide::HalideOptions o;
    o.version = hv.major;
    halide::HalideVerdict v = halide::run_halide_case(p, in, o);
    INFO(hv.version << ": " << halide::describe_halide_verdict(v));
    CHECK(v.outcome == HalideOutcome::Pass);
  }
}

TEST_CASE("Halide typed: the translation keeps every type, cast and intrinsic", "[halide][types]") {
  Program p = test::parse_valid(R"(pipeline f(k : u8) {
    fun a(x) : u8 = { u8(x * 37) }
    fun fixed(x) : u8 = { rounding_halving_add(a[x], u8(3)) }
    fun f(x) : u16 = { widening_add(a[x], k) + u16(saturating_cast<u8>(i16(a[x]) - 300)) + u16(fixed[x]) }
  } realize (k = 250) over (0, 4))");
  auto t = halide::translate_to_halide(p, resolve_input(p, {}));
  REQUIRE(std::holds_alternative<halide::HalidePlan>(t));
  const halide::HalidePlan& plan = std::get<halide::HalidePlan>(t);
  CHECK(plan.typed);
  REQUIRE(plan.params.size() == 1);
  CHECK(plan.params[0].type == Type::uint(8));
  CHECK(plan.params[0].value == 250);
  CHECK(plan.find("f")->type == Type::uint(16));
  std::string value = halide::hl_expr_cpp(plan.find("f")->stages[0].value);
  CHECK_THAT(value, Catch::Contains("fixed_point::widening_add(f_a(v_x), p_k)"));
  CHECK_THAT(value, Catch::Contains("saturating_cast<uint8_t>((cast<int16_t>(f_a(v_x)) - "
                                    "Internal::make_const(Int(16), INT64_C(300))))"));
  std::string fixed = halide::hl_expr_cpp(plan.find("fixed")->stages[0].value);
  CHECK_THAT(fixed, Catch::Contains("fixed_point::rounding_halving_add(f_a(v_x), cast<uint8_t>(Expr(3)))"));
  // The u64 bit pattern and the values Halide returns read back as halo's values.
  CHECK(halide::hl_value(Type::uint(64), -1) == Value::from_big(BigInt("18446744073709551615")));
  CHECK(halide::hl_value(Type::int_(8), -128) == Value(int64_t{-128}));
  CHECK(halide::hl_value(Type::boolean(), 0xDE) == Value(int64_t{0xDE}));  // an unwritten bool is no bool
}

TEST_CASE("Halide typed: an index narrower than Int(32) is cast to it, a wider one is refused as Halide does",
          "[halide][types]") {
  Program p = test::parse_valid(R"(pipeline f() {
    fun a(x) = { x * 2 }
    fun f(x) = { a[u8(x + 250)] }
  } realize () over (0, 10))");
  OutputBuffer ref = evaluate_fast(p.pipeline, resolve_input(p, {}), Limits{});
  CHECK(ref.values[6] == Value(int64_t{0}));  // u8(256) = 0
  test::require_error([](const std::string& s) { check_program(parse_program(s, "<test>")); },
                      "pipeline f(k : u32) { fun a(x) = { x } fun f(x) = { a[k] } } realize (k = 1) over (0, 1)",
                      "<test>", "1:55", "implicit cast from u32 to int in argument 1 in call to a is not allowed");
}

namespace {

// One case: op over every pair of edge values, a(x) the x-th edge value (parameters, so
// that Halide cannot fold them), f(x, y) = op(a[x], a[y]).
std::string edge_case(const test::EdgeType& t, const std::string& op, bool vectorize) {
  test::EdgeTable e = test::edge_table(t);
  return fmt::format("pipeline f({}) {{\n  fun a(x) : {} = {{ {} }}\n  fun f(x, y) = {{ {} }}\n}}\n{}realize ({}) over "
                     "(0, {}), (0, {})\n",
                     e.params, t.name, e.table, test::edge_op(op, t, "a[x]", "a[y]"),
                     vectorize ? "schedule { vectorize(f, x, 8); }\n" : "", e.binds, e.size, e.size);
}

}  // namespace

TEST_CASE("Halide typed: every operator and intrinsic at every type's edges computes halo's reference, scalar and "
          "vectorized",
          "[halide][types]") {
  const std::vector<test::EdgeType>& types = test::edge_types();
  const std::vector<std::string>& ops = test::edge_ops();
  halide::HalideOptions o;  // the newest Halide
  o.memcheck = false;
  uint64_t ran = 0, refused_by_typing = 0, all_undefined = 0, known_mul_shift_right_64 = 0;
  std::vector<std::string> failures;
  for (const test::EdgeType& t : types)
    for (const std::string& op : ops)
      for (bool vec : {false, true}) {
        std::string src = edge_case(t, op, vec);
        Program p;
        try {
          p = parse_program(src, "<edge>");
          check_program(p);
        } catch (const InputError&) {
          ++refused_by_typing;  // e.g. widening a 64-bit type, which Halide refuses too
          continue;
        }
        halide::HalideVerdict v = halide::run_halide_case(p, resolve_input(p, {}), o);
        ++ran;
        if (v.outcome == HalideOutcome::OutOfModel && v.phase == "reference") {
          ++all_undefined;
          continue;
        }
        // A Halide bug halo found (docs/findings/halide-mul-shift-right-64-internal-error.halo): on 64-bit
        // operands, mul_shift_right and rounding_mul_shift_right need a 128-bit product
        // and stop Halide with an InternalError instead of a user error or a value.
        bool known_bug = t.type.bits() == 64 && op.find("mul_shift_right") != std::string::npos &&
                         v.outcome == HalideOutcome::InternalError &&
                         v.message.find("UIntImm must have between 1 and 64 bits") != std::string::npos;
        if (known_bug) ++known_mul_shift_right_64;
        else if (v.outcome != HalideOutcome::Pass)
          failures.push_back(fmt::format("{} on {}{}: {}\n{}", op, t.name, vec ? " (vectorized)" : "",
                                         halide::describe_halide_verdict(v), src));
      }
  INFO(fmt::format("{} cases ran, {} refused by the typing pass, {} undefined everywhere", ran, refused_by_typing,
                   all_undefined));
  for (const std::string& f : failures) UNSCOPED_INFO(f);
  CHECK(failures.empty());
  CHECK(ran >= 500);
  CHECK(all_undefined == 0);
  CHECK(known_mul_shift_right_64 <= 8);  // u64 and i64, both intrinsics, scalar and vectorized
}

}  // namespace halo

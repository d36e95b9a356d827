// The typed expression generator (fuzz/expr_gen.hpp, `--generator expr`): every case it
// draws is a valid typed program whose typing pass re-derives the types drawn; across a few
// hundred seeds it reaches every integer type, every operator it draws, scalar and
// vectorized cases and both placements of the inputs; and cases run through Halide.
#include "candidates/halide/halide_oracle.hpp"
#include "candidates/halide/versions.hpp"
#include "fuzz/coverage.hpp"
#include "fuzz/expr_gen.hpp"
#include "schedule/schedule.hpp"
#include "interp/derivation.hpp"
#include "interp/fast_eval.hpp"
#include "semantics/printer.hpp"
#include "semantics/validity.hpp"
#include "support.hpp"
#include "tests/cli_support.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <rapidcheck/catch.h>

#include <map>
#include <set>

namespace halo {

TEST_CASE("expr generator: valid typed cases that reach every type and operator", "[fuzz][types]") {
  std::map<std::string, int> types, ops;
  int vectorized = 0, inlined = 0, with_undefined = 0;
  for (uint64_t k = 0; k < 300; ++k) {
    fuzz::CaseSeed seed = fuzz::campaign_case(7, k);
    Program p = fuzz::generate_expr_case(seed).value();
    std::string text = print_program(p);
    INFO("case " << k << ":\n" << text);
    REQUIRE(p.pipeline.typed);
    REQUIRE_NOTHROW(check_program(p));
    // print ∘ parse is the identity on generated cases (the typing pass runs again).
    CHECK(print_program(parse_program(text, "<again>")) == text);
    for (const std::string& t : fuzz::types_in(p)) ++types[t];
    for (const std::string& o : fuzz::halide_operators_in(p)) ++ops[o];
    for (const std::string& d : fuzz::directives_in(p)) {
      vectorized += d == "traverse.vectorized";
      inlined += d == "compute_inline";
    }
    OutputBuffer ref = evaluate_fast(p.pipeline, resolve_input(p, {}), Limits{});
    for (const Value& v : ref.values)
      if (v.kind() == Value::Kind::ErrUndef) {
        ++with_undefined;
        break;
      }
  }
  for (const char* t : {"bool", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64"}) {
    INFO(t);
    CHECK(types[t] > 0);
  }
  for (const char* o : {"cast", "saturating_cast", "widening_add", "widening_sub", "widening_mul", "saturating_add",
                        "saturating_sub", "halving_add", "halving_sub", "rounding_halving_add", "rounding_shift_left",
                        "rounding_shift_right", "mul_shift_right", "rounding_mul_shift_right", "absd", "abs",
                        "count_leading_zeros", "count_trailing_zeros", "popcount", "lerp", "&", "|", "^", "~", "<<",
                        ">>"}) {
    INFO(o);
    CHECK(ops[o] > 0);
  }
  CHECK(vectorized > 100);
  CHECK(inlined > 30);
  // Signed 32- and 64-bit overflow is drawn (that is where Halide's simplifier errs), but
  // most cases stay defined on every point.
  CHECK(with_undefined > 0);
  CHECK(with_undefined < 150);
}

TEST_CASE("property: on typed cases the fast evaluator's word path equals the derivation", "[types][property]") {
  // The word-sized rules of interp/fast_eval.cpp (typed_lanes) restate apply_typed_op on
  // machine words; the derivation evaluator applies apply_typed_op itself.
  rc::prop("evaluate_fast equals evaluate_by_derivation on every point", [] {
    Program p = *fuzz::gen_expr_case(fuzz::expr_case_config(*rc::gen::inRange(0, fuzz::kMaxCaseSize + 1)));
    RC_LOG() << print_program(p);
    Input in = resolve_input(p, {});
    RC_ASSERT(evaluate_fast(p.pipeline, in, Limits{}).values == evaluate_by_derivation(p.pipeline, in, Limits{}).values);
  });
}

TEST_CASE("property: typed cases satisfy Theorems 2.1 and 2.2 through halo's own pipeline", "[types][property]") {
  // Scheduled (vectorize splits the loop), completed by β0 with the typed interval rules,
  // run by the small-step machine with Halide's operators: the output equals the typed
  // big-step reference on every point, ε_undef included.
  rc::prop("the beta0-completed typed program is memory safe and confluent", [] {
    Program p = *fuzz::gen_expr_case(fuzz::expr_case_config(*rc::gen::inRange(0, fuzz::kMaxCaseSize + 1)));
    test::require_beta0_theorems(p, schedule_pipeline(p));
  });
}

TEST_CASE("expr generator: a campaign through halo's own pipeline (--target self) finds nothing", "[fuzz][types][cli]") {
  test::CliResult r = test::run_halo({"fuzz", "--target", "self", "--generator", "expr", "--cases", "40", "--seed",
                                      "5", "--json"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["cases"] == 40);
  CHECK(j["findings"] == 0);
  CHECK(j["coverage"]["types"].size() >= 5);  // typed cases reached halo's pipeline
  // The Halide pattern generator needs Halide's own directives: not for halo's pipeline.
  CHECK(test::run_halo({"fuzz", "--target", "self", "--generator", "halide", "--cases", "1"}).status == 2);
}

TEST_CASE("expr generator: cases run through the newest Halide and are judged point by point", "[halide][fuzz][types]") {
  halide::HalideOptions o;
  o.memcheck = false;
  std::map<std::string, int> outcomes;
  for (uint64_t k = 0; k < 24; ++k) {
    Program p = fuzz::generate_expr_case(fuzz::campaign_case(11, k)).value();
    halide::HalideVerdict v = halide::run_halide_case(p, resolve_input(p, {}), o);
    INFO(print_program(p) << halide::describe_halide_verdict(v));
    ++outcomes[halide::outcome_name(v.outcome)];
    // A Halide run that ends in a wrong value is possible (halide/Halide#3245); one that
    // halo cannot classify, or a translation halo cannot make, is not.
    CHECK(v.phase != "translate");
    CHECK(v.outcome != halide::HalideOutcome::Rejected);
  }
  INFO(fmt::format("{}", fmt::join(outcomes, ", ")));
  CHECK(outcomes["pass"] >= 18);
}

}  // namespace halo

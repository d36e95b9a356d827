// Properties over random valid programs (fuzz/program_gen.hpp): the two evaluators of
// fig. 2.6 agree, the generator only produces valid programs, and printing then
// parsing gives back the same tree.
#include "fuzz/program_gen.hpp"
#include "interp/derivation.hpp"
#include "interp/fast_eval.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/validity.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

using namespace halo;

TEST_CASE("property: generated programs are valid", "[property][generator]") {
  rc::prop("validate_program finds nothing", [] {
    Program p = *fuzz::gen_program();
    auto diags = validate_program(p);
    if (!diags.empty()) RC_LOG() << print_program(p) << "\n" << diags.front().format() << "\n";
    RC_ASSERT(diags.empty());
  });
}

TEST_CASE("property: parse(print(p)) == p", "[property][parser]") {
  rc::prop("round trip of generated programs", [] {
    Program p = *fuzz::gen_program();
    std::string text = print_program(p);
    RC_LOG() << text;
    Program q = parse_program(text, "<printed>");
    RC_ASSERT(same_program(p, q));
    RC_ASSERT(print_program(q) == text);
  });
}

TEST_CASE("property: the derivation and fast evaluators agree", "[property][bigstep]") {
  rc::prop("same value at every point of the window", [] {
    Program p = *fuzz::gen_program();
    RC_LOG() << print_program(p);
    Input in = resolve_input(p, {});
    Limits lim;
    lim.max_steps = 2'000'000;
    OutputBuffer slow;
    try {
      slow = evaluate_by_derivation(p.pipeline, in, lim);
    } catch (const ResourceLimit&) {
      RC_DISCARD("the derivation is too large for a property test");
    }
    OutputBuffer fast = evaluate_fast(p.pipeline, in, Limits{});
    test::require_same_points(fast, slow);
    RC_CLASSIFY(std::any_of(fast.values.begin(), fast.values.end(), [](const Value& v) { return v.is_error(); }),
                "has error values");
    RC_CLASSIFY(std::any_of(fast.values.begin(), fast.values.end(), [](const Value& v) { return v.is_int() && !v.is_small(); }),
                "has big integers");
  });
}

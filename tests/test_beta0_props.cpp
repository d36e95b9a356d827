// The properties of the issue "Bounds" on random valid programs (fuzz/program_gen.hpp):
// β0's completion either fails an assertion or is memory safe and confluent (the oracle
// finds nothing), and every run that completes satisfies the bounds query B(T).
#include "bounds/beta0.hpp"
#include "bounds/extract.hpp"
#include "bounds/query_check.hpp"
#include "fuzz/program_gen.hpp"
#include "lower/lower.hpp"
#include "oracle/theorems.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_printer.hpp"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

using namespace halo;

TEST_CASE("property: β0's completion is memory safe and confluent, or asserts false", "[beta0][property]") {
  rc::prop("Theorems 2.1 and 2.2 hold for β0 on lowered random programs", [] {
    Program p = *fuzz::gen_program();
    RC_LOG() << print_program(p);
    Input in = resolve_input(p, {});
    TgtProgram t = lower_pipeline(p);
    Query q = extract_query(t);
    Beta0Result b = run_beta0(q, t);
    Beta0Completion c = complete_with_beta0(q, t);
    RC_LOG() << print_tgt(c.program);
    Limits lim;
    lim.max_steps = 5'000'000;
    OracleVerdict v;
    try {
      v = check_theorems(p, c.program, in, lim);
    } catch (const ResourceLimit&) {
      RC_DISCARD("too large for a property test");
    }
    RC_LOG() << v.detail << "\n";
    RC_ASSERT(v.memory_safe);
    RC_ASSERT(v.confluent);
    RC_CLASSIFY(!c.ok, "beta0 gave up (assert 0)");
    RC_CLASSIFY(v.reference_has_error, "reference has an error value");
    // A completion β0 found satisfies B(T) on this input, whenever the run completes.
    if (c.ok && v.run.status == RunStatus::Ok) {
      auto violation = check_run_against_query(t, b.filling, in, lim);
      if (violation) RC_LOG() << violation->conjunct << " (" << violation->origin << ")\n";
      RC_ASSERT(!violation.has_value());
    }
  });
}

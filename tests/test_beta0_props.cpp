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
#include "tests/support.hpp"

using namespace halo;

TEST_CASE("property: β0's completion is memory safe and confluent, or asserts false", "[beta0][property]") {
  rc::prop("Theorems 2.1 and 2.2 hold for β0 on lowered random programs", [] {
    Program p = *fuzz::gen_program();
    TgtProgram t = lower_pipeline(p);
    OracleVerdict v = test::require_beta0_theorems(p, t);
    RC_CLASSIFY(v.reference_has_error, "reference has an error value");
    // A completion β0 found satisfies B(T) on this input, whenever the run completes.
    Beta0Result b = run_beta0(extract_query(t), t);
    if (b.ok && v.run.status == RunStatus::Ok) {
      Limits lim;
      lim.max_steps = 5'000'000;
      auto violation = check_run_against_query(t, b.filling, resolve_input(p, {}), lim);
      if (violation) RC_LOG() << violation->conjunct << " (" << violation->origin << ")\n";
      RC_ASSERT(!violation.has_value());
    }
  });
}

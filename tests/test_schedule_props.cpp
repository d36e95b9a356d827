// The heart of the scheduling issue: for random valid programs, random valid schedules
// and their inputs, β0's completion of the scheduled program either fails an assertion or
// is memory safe and equal to the big-step output on R(z) (Theorems 2.1 and 2.2).
#include "bounds/beta0.hpp"
#include "fuzz/program_gen.hpp"
#include "fuzz/schedule_gen.hpp"
#include "oracle/theorems.hpp"
#include "schedule/schedule.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_printer.hpp"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>
#include "tests/support.hpp"

using namespace halo;

TEST_CASE("property: scheduled programs completed by β0 satisfy Theorems 2.1 and 2.2", "[schedule][property]") {
  rc::prop("random programs and random valid schedules", [] {
    Program base = *fuzz::gen_program();
    Program p = *fuzz::gen_scheduled(base);
    // The generator's schedules are valid by every rule, validity.cpp's included.
    RC_ASSERT(validate_program(p).empty());
    OracleVerdict v = test::require_beta0_theorems(p, schedule_pipeline(p));
    RC_ASSERT(v.memory_safe && v.confluent);
    RC_CLASSIFY(!p.schedule->empty(), "scheduled");
    bool specialized = false, every_spec = false;
    for (const Directive& d : *p.schedule) {
      specialized |= d.kind == DirectiveKind::Specialize;
      every_spec |= d.kind == DirectiveKind::ComputeAt && d.loop.spec == LoopName::kEverySpec && specialized;
    }
    RC_CLASSIFY(specialized, "specialized");
    RC_CLASSIFY(every_spec, "compute_at in every specialization");
  });
}

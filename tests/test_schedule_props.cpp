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

using namespace halo;

TEST_CASE("property: scheduled programs completed by β0 satisfy Theorems 2.1 and 2.2", "[schedule][property]") {
  rc::prop("random programs and random valid schedules", [] {
    Program base = *fuzz::gen_program();
    Program p = *fuzz::gen_scheduled(base);
    RC_LOG() << print_program(p);
    Input in = resolve_input(p, {});
    TgtProgram t = schedule_pipeline(p);
    Beta0Completion c = complete_with_beta0(t);
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
    RC_CLASSIFY(!p.schedule->empty(), "scheduled");
    RC_CLASSIFY(!c.ok, "beta0 gave up");
  });
}

// Helpers shared by the test files: locations as "LINE:COL" and the check that parsing
// fails at a given place with a given message.
#pragma once

#include "bounds/beta0.hpp"
#include "interp/input.hpp"
#include "oracle/theorems.hpp"
#include "schedule/schedule.hpp"
#include "support/diagnostics.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/tgt_printer.hpp"
#include "semantics/type_ops.hpp"
#include "semantics/validity.hpp"

#include <rapidcheck.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace halo::test {

inline std::string where(SourceLoc l) { return std::to_string(l.line) + ":" + std::to_string(l.col); }

// `parse(src)` must throw one InputError located at `at` in `file`, whose message
// contains `message`.
template <typename Parse>
void require_error(Parse parse, const std::string& src, const std::string& file, const std::string& at,
                   const std::string& message) {
  INFO("input: " << src.substr(0, 160) << (src.size() > 160 ? "..." : ""));
  try {
    parse(src);
    FAIL("parsed without error");
  } catch (const InputError& e) {
    INFO(e.what());
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(where(e.diagnostics()[0].loc) == at);
    CHECK_THAT(e.diagnostics()[0].message, Catch::Contains(message));
    CHECK(e.diagnostics()[0].file == file);
  }
}

// A valid program from source text (validity failures fail the test).
inline Program parse_valid(const std::string& src, const std::string& file = "<test>") {
  Program p = parse_program(src, file);
  auto ds = validate_program(p);
  for (const auto& d : ds) UNSCOPED_INFO(d.format());
  REQUIRE(ds.empty());
  return p;
}

// Inside a RapidCheck property: β0's completion of `t` (the lowered or scheduled `p`)
// must be memory safe and confluent on p's realization (Theorems 2.1 and 2.2); cases too
// large for a property test are discarded. Returns the verdict for further checks.
// Inside a property: two evaluators' outputs agree on every point (each point logged, so
// a failure shows where).
inline void require_same_points(const OutputBuffer& fast, const OutputBuffer& slow) {
  RC_ASSERT(fast.values.size() == slow.values.size());
  for (size_t i = 0; i < fast.values.size(); ++i) {
    RC_LOG() << "point " << i << ": fast " << fast.values[i].to_string() << " derivation " << slow.values[i].to_string()
             << "\n";
    RC_ASSERT(fast.values[i] == slow.values[i]);
  }
}

inline OracleVerdict require_beta0_theorems(const Program& p, const TgtProgram& t) {
  RC_LOG() << print_program(p);
  Input in = resolve_input(p, {});
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
  RC_ASSERT(v.race_free);  // valid schedules never race (SEMANTICS.md "Races")
  RC_CLASSIFY(!c.ok, "beta0 gave up");
  return v;
}

// "LINE:COL" of the first occurrence of `needle` in `src` (the place an error must name).
inline std::string position_of(const std::string& src, const std::string& needle) {
  size_t pos = src.find(needle);
  REQUIRE(pos != std::string::npos);
  int line = 1, col = 1;
  for (size_t i = 0; i < pos; ++i) {
    if (src[i] == '\n') ++line, col = 1;
    else ++col;
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

// S(S, L(P)) must be exactly the hand-written target program.
inline void check_schedules_to(const std::string& halo, const std::string& tgt) {
  TgtProgram got = schedule_pipeline(parse_valid(halo));
  TgtProgram expected = parse_tgt(tgt, "<expected>");
  INFO("scheduled:\n" << print_tgt(got) << "expected:\n" << print_tgt(expected));
  CHECK(same_tgt(got, expected));
}

// Scheduling must throw one InputError at `at` whose message contains `message`.
inline void check_schedule_rejected(const std::string& halo, const std::string& at, const std::string& message) {
  require_error([](const std::string& src) { schedule_pipeline(parse_valid(src)); }, halo, "<test>", at, message);
}

// `d` added to p's schedule as the first directive of the loops phase (after any
// specialize); if a directive of the schedule then no longer applies, the schedule becomes
// its specializations and `d` alone. Returns whether the rest of the schedule was kept.
inline bool add_first_in_loops_phase(Program& p, const Directive& d) {
  std::vector<Directive> sched = p.schedule ? *p.schedule : std::vector<Directive>{};
  auto loops_phase =
      std::find_if(sched.begin(), sched.end(), [](const Directive& x) { return x.kind != DirectiveKind::Specialize; });
  std::vector<Directive> only(sched.begin(), loops_phase);
  only.push_back(d);
  sched.insert(loops_phase, d);
  p.schedule = sched;
  try {
    schedule_pipeline(p);
    return true;
  } catch (const InputError&) {
    p.schedule = only;
    return false;
  }
}

// The scheduled program completed by β0 and judged by the oracle: it must hold.
inline OracleVerdict scheduled_oracle(const Program& p, const Input& in) {
  TgtProgram t = schedule_pipeline(p);
  Beta0Completion c = complete_with_beta0(t);
  INFO("scheduled:\n" << print_tgt(t) << "beta0: " << c.reason);
  REQUIRE(c.ok);
  OracleVerdict v = check_theorems(p, c.program, in, Limits{});
  INFO("completed:\n" << print_tgt(c.program) << "verdict: " << v.detail << " / " << v.run.message);
  CHECK(v.holds());
  return v;
}

// op on operands of types `ts` (already matched), the result typed by type_op: one of
// Halide's operators on values (semantics/type_ops.hpp), as the type and float tests apply them.
inline Value ev(Op op, std::vector<Type> ts, std::vector<Value> vs, Type target = Type::z()) {
  OpTyping t = type_op(op, ts, target);
  REQUIRE(t.error.empty());
  return apply_typed_op(op, t.result, t.operands, vs);
}
inline Value ev1(Op op, Type t, Value a) { return ev(op, {t}, {a}); }
inline Value ev2(Op op, Type t, Value a, Value b) { return ev(op, {t, t}, {a, b}); }

}  // namespace halo::test

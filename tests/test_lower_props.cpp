// Properties of lowering (thesis §2.6) over random valid programs (fuzz/program_gen.hpp):
//  * Lemma 2.12 on concrete completions: fill every hole of L(P) with constants that cover
//    what the run touches (lower/brute_force_filling.hpp, with random overcompute and
//    overallocation margins), run the result on the small-step machine, and compare with
//    the big-step semantics on R(z), within Def. 2.3's exceptions;
//  * the structural invariants lowering must establish: Lemma 2.4 (loop names are unique),
//    Lemma 2.5 (allocation and computation of a func dominate its uses), and the scope of
//    every hole (SEMANTICS.md: parameters and window variables only, before scheduling).
#include "fuzz/program_gen.hpp"
#include "interp/fast_eval.hpp"
#include "interp/small_step.hpp"
#include "lower/brute_force_filling.hpp"
#include "lower/lower.hpp"
#include "semantics/printer.hpp"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <functional>
#include <set>
#include <tuple>

using namespace halo;

namespace {

// Is some rdom extent negative under the parameters of `in`? (RDOM-ERR's condition, Def.
// 2.12's cause.) Rdom bounds are startup expressions (Def. 2.9): closed once substituted.
Value eval_closed(const Expr& e) {
  if (e->kind == ExprKind::Const) return as<ConstNode>(e).value;
  if (e->kind != ExprKind::Op) throw std::logic_error("not a closed expression");
  std::vector<Value> args;
  for (const auto& a : as<OpNode>(e).args) args.push_back(eval_closed(a));
  return apply_op(as<OpNode>(e).op, args);
}
bool has_negative_extent(const Program& p, const Input& in) {
  Substitution s;
  for (size_t i = 0; i < p.pipeline.params.size(); ++i) s.bindings.emplace_back(p.pipeline.params[i].text, in.params[i]);
  for (const auto& f : p.pipeline.funcs)
    for (const auto& u : f.updates)
      for (const auto& r : u.rdom)
        if (Value len = eval_closed(substitute(r.len, s)); len.is_int() && len.sign() < 0) return true;
  return false;
}

// A margin in [0, 2] per hole, fixed by the seed, so that each case over-computes and
// over-allocates differently (every covering completion must work, Def. 2.3).
BruteForceOptions random_margins(uint64_t seed) {
  BruteForceOptions opt;
  opt.margin = [seed](const HoleLabel& h) {
    size_t k = std::hash<std::string>{}(h.to_string()) ^ seed;
    return std::pair<int64_t, int64_t>{int64_t(k % 3), int64_t((k / 3) % 3)};
  };
  opt.max_steps = 300'000;
  opt.max_extent = 512;
  return opt;
}

}  // namespace

TEST_CASE("property: lowering is sound on brute-force completions (Lemma 2.12)", "[lower][property]") {
  rc::prop("the filled L(P) runs and agrees with the big-step semantics on R(z)", [] {
    // Half the cases are larger than the generator's default: longer chains of funcs, more
    // dimensions, stages and rdom variables give the demand fixpoint more to do.
    fuzz::ProgramGenConfig cfg;
    if (*rc::gen::arbitrary<bool>()) cfg.max_funcs = 6, cfg.max_dims = 3, cfg.max_updates = 3, cfg.max_rdom_dims = 3;
    Program p = *fuzz::gen_program(cfg);
    RC_LOG() << print_program(p);
    Input in = resolve_input(p, {});
    TgtProgram t = lower_pipeline(p);
    auto bf = brute_force_filling(t, in, random_margins(*rc::gen::arbitrary<uint64_t>()));
    if (!bf) RC_DISCARD("the completion is too large for brute force");
    bool negative = has_negative_extent(p, in);
    RC_CLASSIFY(negative, "has a negative rdom extent");

    // A lowered program asserts only at its rdom startup checks (§2.9), and exactly when
    // the algorithm has a negative extent; it never reaches a loop with a negative length,
    // and reads only computed points (Lemma 2.7).
    RC_ASSERT(bf->assertion_failure == negative);
    RC_ASSERT(!bf->rdom_failure);
    RC_ASSERT(!bf->error_in_control);
    std::vector<HoleLabel> unfilled;
    TgtProgram filled = fill_holes(t, bf->filling, &unfilled);
    RC_ASSERT(unfilled.empty());

    Limits lim;
    lim.max_steps = 20'000'000;
    RunResult run;
    try {
      run = run_tgt(filled, in, lim);
    } catch (const ResourceLimit&) {
      RC_DISCARD("the small-step run is too long for a property test");
    }
    RC_LOG() << "status " << run_status_name(run.status) << ": " << run.message << "\n";

    if (negative) {
      // The startup check fails (Def. 2.11, allowed by Def. 2.3) before anything is stored.
      RC_ASSERT(run.status == RunStatus::AssertionFailure);
      for (const auto& [f, st] : run.stats) RC_ASSERT(st.stores == 0u);
      return;
    }
    RC_ASSERT(run.status == RunStatus::Ok);  // in particular memory safe (Lemma 2.6)

    OutputBuffer ref = evaluate_fast(p.pipeline, in, Limits{});
    RC_ASSERT(run.output.values.size() == ref.values.size());
    RC_ASSERT(bf->output.values.size() == ref.values.size());
    bool ref_error = false;
    for (size_t i = 0; i < ref.values.size(); ++i) {
      // Def. 2.3: where P(z) is an error value, all bets are off.
      if (ref.values[i].is_error()) {
        ref_error = true;
        continue;
      }
      RC_LOG() << "point " << i << ": big-step " << ref.values[i].to_string() << ", small-step "
               << run.output.values[i].to_string() << "\n";
      RC_ASSERT(run.output.values[i] == ref.values[i]);
      RC_ASSERT(bf->output.values[i] == ref.values[i]);
    }
    RC_CLASSIFY(ref_error, "big-step output has error values");
  });
}

TEST_CASE("property: lowering establishes Lemmas 2.4 and 2.5 and the hole scopes", "[lower][property]") {
  rc::prop("unique loop names, dominance, scopes = parameters and window", [] {
    Program p = *fuzz::gen_program();
    RC_LOG() << print_program(p);
    TgtProgram t = lower_pipeline(p);

    // Lemma 2.4 (loop naming) and Lemma 2.5 (dominance), checked in one walk: a loop name
    // <func, spec, stage, var> occurs once; a func is allocated before any access to it,
    // and another func's accesses happen only after that func's `label` has finished.
    struct Walk : StmtVisitor {
      std::set<std::tuple<std::string, int64_t, int64_t, std::string>> loops;
      std::set<std::string> allocated, computed;
      std::string current;  // the func whose label we are in
      bool ok = true;
      void access(const std::string& g) {
        ok &= allocated.count(g) > 0;
        ok &= g == current || computed.count(g) > 0;
      }
      void visit_expr(const Expr& e) override {
        struct Calls : ExprVisitor {
          Walk& w;
          explicit Calls(Walk& ww) : w(ww) {}
          void visit_call(const CallNode& c) override {
            w.access(c.func);
            ExprVisitor::visit_call(c);
          }
        } calls(*this);
        calls.visit(e);
      }
      void visit_for(const ForStmt& s) override {
        ok &= loops.emplace(s.func, s.spec, s.stage, s.var).second;
        ok &= s.func == current;
        StmtVisitor::visit_for(s);
      }
      void visit_allocate(const AllocateStmt& s) override {
        allocated.insert(s.func);
        StmtVisitor::visit_allocate(s);
      }
      void visit_store(const StoreStmt& s) override {
        ok &= s.func == current;
        access(s.func);
        StmtVisitor::visit_store(s);
      }
      void visit_label(const LabelStmt& s) override {
        bool func_label = s.label.find('.') == std::string::npos;
        if (func_label) current = s.label;
        StmtVisitor::visit_label(s);
        if (func_label) computed.insert(s.label), current.clear();
      }
    } walk;
    walk.visit(t.body);
    RC_ASSERT(walk.ok);
    RC_ASSERT(walk.computed.size() == p.pipeline.funcs.size());

    // Before scheduling every hole is bound at the top level (SEMANTICS.md, "Lowering").
    std::vector<std::string> top = t.params;
    for (const auto& [mn, ln] : t.window) top.push_back(mn), top.push_back(ln);
    for (const auto& [hole, scope] : hole_scopes(t)) {
      RC_LOG() << hole.to_string() << "\n";
      RC_ASSERT(scope == top);
    }
  });
}

// Property tests for qualified loop variables (docs/semantics-decisions.md, "Qualified loop
// variables"): random programs whose funcs share x, y, z, as Halide users write them, with
// random schedule trees whose compute_at targets include the consumers' loops over the same
// names and their inner split variables. On the scheduled program they re-establish
//  * Lemma 2.4: every loop name <f, spec, stage, var> occurs once (specializations aside,
//    which sit in disjoint branches), each loop binds exactly its qualified name, and no
//    loop or let rebinds a variable bound around it — so fig. 2.8's FOR-STOP never clears
//    a variable someone outside still reads;
//  * closedness: every variable read is bound around it, or is a parameter or a window
//    variable (lowering and the rewrites substituted the binders consistently);
//  * Lemma 2.5: every access to f is preceded by `allocate f`, and outside f's label by
//    f's whole computation, on every path;
//  * Theorems 2.1 and 2.2 for β0's completion (which implies Lemma 2.12's agreement with
//    the big-step semantics on these schedules);
//  * the text and JSON forms give the program back (qualified atoms where names clash).
#include "bounds/beta0.hpp"
#include "fuzz/program_gen.hpp"
#include "fuzz/schedule_tree.hpp"
#include "oracle/theorems.hpp"
#include "schedule/schedule.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_json.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/tgt_printer.hpp"
#include "semantics/validity.hpp"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>
#include "tests/support.hpp"

#include <algorithm>
#include <set>
#include <tuple>

using namespace halo;

namespace {

// One walk in execution order for Lemmas 2.4 and 2.5 and closedness. `done` holds what has
// certainly run ("allocate f", "label f"); a loop body or an if branch may not run, so
// what it does counts only inside it (as schedule/placement.cpp's dominance walk).
struct Check {
  std::set<std::string> funcs;
  std::vector<std::string> bound;       // variables bound around the statement
  std::vector<std::string> func_stack;  // enclosing func labels
  std::set<std::tuple<std::string, int64_t, int64_t, std::string>> names;
  std::string failure;
  bool shared_name_nested = false;  // a loop inside another loop of the same short name

  void fail(const std::string& why) {
    if (failure.empty()) failure = why;
  }
  void access(const std::string& f, const std::set<std::string>& done) {
    if (!funcs.count(f)) return;
    if (!done.count("allocate " + f)) fail("an access to " + f + " before allocate " + f);
    bool inside = std::find(func_stack.begin(), func_stack.end(), f) != func_stack.end();
    if (!inside && !done.count("label " + f)) fail("an access to " + f + " before its computation");
  }
  void expr(const Expr& e, const std::set<std::string>& done) {
    if (!e) return;
    switch (e->kind) {
      case ExprKind::Var: {
        const std::string& v = as<VarNode>(e).name;
        if (std::find(bound.begin(), bound.end(), v) == bound.end()) fail("the unbound variable " + v);
        return;
      }
      case ExprKind::Call:
        access(as<CallNode>(e).func, done);
        for (const auto& a : as<CallNode>(e).args) expr(a, done);
        return;
      case ExprKind::Op:
        for (const auto& a : as<OpNode>(e).args) expr(a, done);
        return;
      default: return;
    }
  }
  void bind(const std::string& v) {
    if (std::find(bound.begin(), bound.end(), v) != bound.end()) fail("a binder that shadows " + v);
    bound.push_back(v);
  }
  std::set<std::string> stmt(const Stmt& s, std::set<std::string> done) {
    switch (s->kind) {
      case StmtKind::Nop: return done;
      case StmtKind::Assert: expr(as<AssertStmt>(s).cond, done); return done;
      case StmtKind::Seq:
        for (const Stmt& c : as<SeqStmt>(s).stmts) done = stmt(c, std::move(done));
        return done;
      case StmtKind::Allocate:
        for (const auto& [mn, ln] : as<AllocateStmt>(s).bounds) expr(mn, done), expr(ln, done);
        done.insert("allocate " + as<AllocateStmt>(s).func);
        return done;
      case StmtKind::Store: {
        const auto& n = as<StoreStmt>(s);
        access(n.func, done);
        for (const auto& a : n.args) expr(a, done);
        expr(n.value, done);
        return done;
      }
      case StmtKind::If: {
        const auto& n = as<IfStmt>(s);
        expr(n.cond, done);
        auto a = stmt(n.then_case, done), b = stmt(n.else_case, done);
        std::set<std::string> both;
        std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::inserter(both, both.begin()));
        return both;
      }
      case StmtKind::For: {
        const auto& n = as<ForStmt>(s);
        expr(n.min, done), expr(n.len, done);
        // Lemma 2.4 (specializations are told apart by their index, so names stay unique).
        if (!names.emplace(n.func, n.spec, n.stage, n.var).second) fail("a second loop " + n.binder());
        if (n.binder() != qualified_var(n.func, n.spec, n.stage, n.var)) fail("a loop binding another name");
        for (const std::string& v : bound)
          if (is_qualified_var(v) && short_var(v) == n.var && split_qualified_var(v)->func.text != n.func)
            shared_name_nested = true;
        bind(n.binder());
        stmt(n.body, done);
        bound.pop_back();
        return done;
      }
      case StmtKind::Let: {
        const auto& n = as<LetStmt>(s);
        expr(n.value, done);
        bind(n.var);
        done = stmt(n.body, std::move(done));
        bound.pop_back();
        return done;
      }
      case StmtKind::Label: {
        const auto& n = as<LabelStmt>(s);
        bool is_func = funcs.count(n.label) > 0;
        if (is_func) func_stack.push_back(n.label);
        done = stmt(n.body, std::move(done));
        if (is_func) func_stack.pop_back(), done.insert("label " + n.label);
        return done;
      }
    }
    return done;
  }
};

}  // namespace

TEST_CASE("property: Lemmas 2.4 and 2.5 and Theorems 2.1/2.2 with shared variable names", "[schedule][property]") {
  rc::prop("Halide-style programs (x, y, z in every func) and random schedule trees", [] {
    fuzz::ProgramGenConfig pc;
    pc.distinct_names = false;  // every func is over x, y, z
    pc.live_percent = 85;
    Program base = *fuzz::gen_program(pc);
    fuzz::ScheduleTreeConfig tc;
    tc.compute_percent = 90;
    Program p = *fuzz::gen_tree_scheduled(base, tc);
    RC_LOG() << print_program(p);
    RC_ASSERT(validate_program(p).empty());
    TgtProgram t = schedule_pipeline(p);
    RC_LOG() << print_tgt(t);

    Check c;
    for (const FuncDef& f : p.pipeline.funcs) c.funcs.insert(f.name.text);
    c.bound = t.params;
    for (const auto& [mn, ln] : t.window) c.bound.push_back(mn), c.bound.push_back(ln);
    c.stmt(t.body, {});
    RC_LOG() << c.failure << "\n";
    RC_ASSERT(c.failure.empty());
    RC_CLASSIFY(c.shared_name_nested, "a producer loop inside a consumer loop of the same name");

    // The text and JSON forms give the scheduled program back.
    std::string text = print_tgt(t);
    RC_ASSERT(same_tgt(parse_tgt(text, "<printed>"), t));
    RC_ASSERT(same_tgt(tgt_from_json(tgt_to_json(t), "<json>"), t));

    test::require_beta0_theorems(p, t);
  });
}

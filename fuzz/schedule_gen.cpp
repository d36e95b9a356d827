// The valid-schedule generator: see schedule_gen.hpp.
#include "fuzz/schedule_gen.hpp"

#include "fuzz/program_gen.hpp"

#include "lower/lower.hpp"
#include "schedule/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace halo::fuzz {

namespace {
struct LoopCollector : StmtVisitor {
  std::vector<LoopName> loops;
  void visit_for(const ForStmt& s) override {
    loops.push_back(LoopName{Name{s.func, {}}, s.spec, s.stage, Name{s.var, {}}, {}});
    StmtVisitor::visit_for(s);
  }
};

std::vector<LoopName> loops_of(const TgtProgram& t) {
  LoopCollector c;
  c.visit(t.body);
  return c.loops;
}

// `present`: the funcs T still computes (an inlined func is gone from it).
Directive propose(const Program& prog, const std::vector<LoopName>& loops, int phase, int fresh,
                  const ScheduleGenConfig& cfg, const std::vector<std::string>& present) {
  Directive d;
  const LoopName& l = *rc::gen::elementOf(loops);
  auto func = [&] { return Name{*rc::gen::elementOf(present), {}}; };
  switch (phase) {
    case 1:
      switch (*rc::gen::inRange(0, 4)) {
        case 0:
          d.kind = DirectiveKind::Split;
          d.loop = l;
          // Mostly Halide's names (xo, xi of x in every func: names live in their stage's
          // namespace); sometimes numbered ones, which never clash within the stage.
          if (*rc::gen::inRange(0, 3) != 0)
            d.names = {Name{l.var.text + "o", {}}, Name{l.var.text + "i", {}}};
          else
            d.names = {Name{fmt::format("v{}o", fresh), {}}, Name{fmt::format("v{}i", fresh), {}}};
          d.exprs = {make_const(Value(int64_t(*rc::gen::inRange(1, cfg.max_split_factor + 1))))};
          d.tail = *rc::gen::element(TailStrategy::Guard, TailStrategy::Shift, TailStrategy::Round);
          break;
        case 1:
          d.kind = DirectiveKind::Fuse;
          d.loop = l;
          d.names = {Name{fmt::format("v{}f", fresh), {}}};
          break;
        case 2:
          d.kind = DirectiveKind::Swap;
          d.loop = l;
          break;
        default:
          d.kind = DirectiveKind::Traverse;
          d.loop = l;
          d.order = *rc::gen::element(Traversal::Serial, Traversal::Parallel, Traversal::Vectorized, Traversal::Unrolled);
      }
      break;
    case 2: {
      if (*rc::gen::inRange(0, 5) == 0) {  // Halide's default placement (schedule/inline.cpp)
        d.kind = DirectiveKind::ComputeInline;
        d.func = func();
        break;
      }
      d.kind = DirectiveKind::ComputeAt;
      d.func = func();
      d.loop = l;
      // Mostly a loop of a func that reads f, the placement a programmer would try: valid
      // when that func is f's only reader (Lemma 2.5), a near miss otherwise.
      std::vector<LoopName> of_readers;
      for (const LoopName& c : loops)
        if (const FuncDef* g = prog.pipeline.find(c.func.text); g && c.func.text != d.func.text && reads_func(*g, d.func.text))
          of_readers.push_back(c);
      if (!of_readers.empty() && *rc::gen::inRange(0, 3) != 0) d.loop = *rc::gen::elementOf(of_readers);
      // In a specialized consumer, often the loop of every specialization (semantics
      // decision 19), as a Halide LoopLevel names it.
      if (*rc::gen::inRange(0, 2) == 0) d.loop.spec = LoopName::kEverySpec;
      break;
    }
    default:
      d.kind = DirectiveKind::StoreAt;
      d.func = func();
      d.loop = l;
  }
  return d;
}
}  // namespace

rc::Gen<Program> gen_scheduled(const Program& prog, ScheduleGenConfig cfg) {
  return rc::gen::exec([prog, cfg] {
    Program out = prog;
    out.schedule = std::vector<Directive>{};
    TgtProgram t = lower_pipeline(out);
    int n = *rc::gen::inRange(1, cfg.max_directives + 1);
    // Phase 0 (§2.8.1): sometimes one func is specialized on a parameter, or on a constant
    // when the pipeline has none, so that the later phases meet specialized loops.
    if (*rc::gen::inRange(0, 4) == 0) {
      Directive d;
      d.kind = DirectiveKind::Specialize;
      // A func other than the first, which reads no other: a consumer to compute_at in.
      const size_t nf = prog.pipeline.funcs.size();
      d.func = Name{prog.pipeline.funcs[*rc::gen::inRange<size_t>(nf > 1 ? 1 : 0, nf)].name.text, {}};
      Expr c = prog.pipeline.params.empty()
                   ? make_const(Value(int64_t(*rc::gen::inRange(0, 2))))
                   : make_op(Op::Gt, {make_var((*rc::gen::elementOf(prog.pipeline.params)).text),
                                      make_const(Value(int64_t(*rc::gen::inRange(-2, 3))))});
      d.exprs = {c};
      d.loc = SourceLoc{uint32_t(4 * n + 1), 1};
      Program trial = out;
      trial.schedule->push_back(d);
      try {
        t = apply_directive(t, trial.schedule->back(), trial);
        out = std::move(trial);
      } catch (const InputError&) {
      }
    }
    int phase = 1;
    // Most random proposals break some rule of §2.8; try several per directive wanted.
    for (int k = 0, accepted = 0; k < 4 * n && accepted < n; ++k) {
      if (phase < 3 && *rc::gen::inRange(0, 4) == 0) ++phase;  // phases only move forward
      auto loops = loops_of(t);
      if (loops.empty()) break;
      std::vector<std::string> present;
      for (const auto& f : out.pipeline.funcs)
        if (!std::any_of(out.schedule->begin(), out.schedule->end(), [&](const Directive& o) {
              return o.kind == DirectiveKind::ComputeInline && o.func.text == f.name.text;
            }))
          present.push_back(f.name.text);
      Directive d = propose(out, loops, phase, k, cfg, present);
      // A unique location tells directives apart (the rules find "this directive" in the
      // schedule by address or location), as in a parsed file.
      d.loc = SourceLoc{uint32_t(k + 1), 1};
      try {
        Program trial = out;
        trial.schedule->push_back(d);
        TgtProgram next = apply_directive(t, trial.schedule->back(), trial);
        out = std::move(trial);
        t = std::move(next);
        ++accepted;
      } catch (const InputError&) {
        // Invalid here: the generator only keeps what the rules of §2.8 accept.
      }
    }
    return out;
  });
}

}  // namespace halo::fuzz

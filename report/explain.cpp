// Gathering what `halo explain` shows (report/explain.hpp): halo's own passes in order —
// lowering and the schedule step by step, the query and β0, the oracle — then two
// observed runs of β0's completion on the small-step machine: one that records, tile by
// tile, what each func allocated, was asked to compute, wrote and had read (for the
// pictures), and one that records the rules of fig. 2.8 applied around one store (for
// the trace). Nothing here is a second implementation of a rule: every fact comes from
// the machine, the evaluators and the bounds passes themselves.
#include "report/explain.hpp"
#include "support/command_budget.hpp"

#include "semantics/typing.hpp"

#include "bounds/beta0.hpp"
#include "bounds/extract.hpp"
#include "bounds/query_check.hpp"
#include "bounds/interval.hpp"
#include "bounds/simplify.hpp"
#include "semantics/lexer.hpp"
#include "interp/small_step.hpp"
#include "oracle/quality.hpp"
#include "schedule/schedule.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/tgt_printer.hpp"

#include <fmt/format.h>

#include <deque>

namespace halo::explain {

bool Box::contains(const Point& p) const {
  if (p.size() != dims.size()) return false;
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] < dims[i].first || p[i] - dims[i].first >= dims[i].second) return false;
  return true;
}

namespace {

// The probe allocation that reports ?cpu f per tile (see add_cpu_probes). Its name cannot
// be a func's: identifiers never contain a space.
const std::string kProbePrefix = "?cpu ";

InputError option_error(const Program& prog, std::string msg) {
  return InputError(Diagnostic{prog.file, {}, std::move(msg)});
}

std::optional<Point> to_point(std::span<const Value> vs) {
  Point p;
  for (const auto& v : vs) {
    auto i = v.as_int64();
    if (!i) return std::nullopt;
    p.push_back(*i);
  }
  return p;
}

std::optional<Box> to_box(const std::vector<std::pair<Value, Value>>& bounds) {
  Box b;
  for (const auto& [mn, ln] : bounds) {
    auto m = mn.as_int64(), l = ln.as_int64();
    if (!m || !l) return std::nullopt;
    b.dims.emplace_back(*m, *l);
  }
  return b;
}

// ---------------------------------------------------------------- the compiler's side
std::optional<Box> box_hull(const std::vector<Box>& boxes) {
  std::optional<Box> h;
  for (const Box& b : boxes) {
    if (!h) {
      h = b;
      continue;
    }
    for (size_t d = 0; d < h->dims.size() && d < b.dims.size(); ++d) {
      auto& [m, l] = h->dims[d];
      int64_t lo = std::min(m, b.dims[d].first);
      int64_t hi = std::max(m + l, b.dims[d].first + b.dims[d].second);
      m = lo;
      l = hi - lo;
    }
  }
  return h;
}

void gather_halide(const Program& prog, const Input& in, const ExplainOptions& opts, Explanation& e) {
  if (opts.halide.empty()) return;
  HalideSide side;
  std::vector<halide::HalideVerdict> verdicts;
  try {
    for (const auto& o : opts.halide) verdicts.push_back(halide::run_halide_case(prog, in, o));
  } catch (const ResourceLimit& ex) {
    side.note = std::string("Halide's side was not run: halo's reference evaluation stopped: ") + ex.what();
    e.halide = std::move(side);
    return;
  }
  size_t shown = verdicts.size() - 1;  // the newest that fails, else the newest
  for (size_t i = 0; i < verdicts.size(); ++i) {
    const auto& v = verdicts[i];
    side.versions.push_back({v.halide_version, halide::outcome_name(v.outcome), v.detail, v.finding()});
    if (v.finding()) shown = i;
  }
  const halide::HalideVerdict& v = verdicts[shown];
  side.shown_version = v.halide_version;
  side.shown_outcome = halide::outcome_name(v.outcome);
  side.notes = v.notes;
  side.memcheck_ran = opts.halide[shown].memcheck;
  side.loads = v.mem.loads;
  side.stores = v.mem.stores;
  side.out_of_bounds = v.mem.out_of_bounds;
  side.uninitialized = v.mem.uninitialized;
  side.unjudged_lanes = v.mem.unjudged_vector_lanes;
  side.memcheck_examples = v.mem.out_of_bounds_examples;
  for (const auto& ex : v.mem.vector_lanes_examples) side.memcheck_examples.push_back(ex);
  side.mismatches = v.first_mismatches;
  for (const auto& f : prog.pipeline.funcs) {
    HalideRegion r;
    r.func = f.name.text;
    if (auto it = v.mem.realized.find(f.name.text); it != v.mem.realized.end()) {
      Box b;  // the memory check keeps (min, max), inclusive
      for (const auto& [mn, mx] : it->second) b.dims.emplace_back(mn, mx - mn + 1);
      r.halide = std::move(b);
    }
    for (const auto& fo : e.observation.funcs)
      if (fo.func == f.name.text) {
        std::vector<Box> allocated;
        for (const auto& t : fo.tiles)
          if (t.allocated) allocated.push_back(*t.allocated);
        r.halo = box_hull(allocated);
      }
    side.regions.push_back(std::move(r));
  }
  try {
    side.reproducer = halide::halide_reproducer(prog, in, v, opts.halide[shown]);
  } catch (const InputError& ex) {
    side.reproducer_note = std::string("no reproducer: ") + ex.what();
  }
  e.halide = std::move(side);
}

// ---------------------------------------------------------------- the schedule, the bounds
bool gather_schedule(const Program& prog, Explanation& e, TgtProgram& scheduled) {
  std::vector<TgtProgram> all;
  try {
    scheduled = schedule_pipeline(prog, &all);
  } catch (const InputError& ex) {
    e.schedule_rejected = ex.diagnostics();
  }
  for (size_t i = 0; i < all.size(); ++i) {
    std::string title = i == 0 ? "L(P): the lowered program (fig. 2.9)" : schedule_step_title(prog, i - 1);
    e.steps.push_back({std::move(title), print_tgt(all[i])});
  }
  return e.schedule_rejected.empty();
}

// A hole's expression under z: the parameters and the window variables bound; what is
// left are the loop variables of the scope it is filled in (a value per tile).
std::string value_under_z(const Expr& filled, const TgtProgram& t, const Input& in) {
  Substitution s;
  for (auto& [name, v] : realize_bindings(t, in)) s.bindings.emplace_back(std::move(name), std::move(v));
  Expr e = simplify(substitute(filled, s));
  if (auto v = const_value(e)) return v->to_string();
  std::set<std::string> loops;
  for (const auto& v : vars_of(e).vars) loops.insert(short_var(v));
  return fmt::format("per iteration of {}: {}", fmt::join(loops, ", "), print_expr(e));
}

void gather_bounds(const Query& q, const Beta0Result& b, const Beta0Completion& c, const TgtProgram& t,
                   const Input& in, Explanation& e) {
  e.query = print_query(q);
  e.beta0_ok = b.ok;
  e.beta0_reason = b.ok ? "" : b.why_failed;
  for (const auto& [name, tuple] : b.tuples) {
    std::string dims;
    for (size_t i = 0; i < tuple.dims.size(); ++i)
      dims += fmt::format("{}{} ∈ {}", i ? "; " : "", i < tuple.ref.vars.size() ? tuple.ref.vars[i] : "?",
                          tuple.dims[i].to_string());
    if (!tuple.demanded) dims += "  (nothing demands it)";
    e.beta0_tuples.emplace_back(name, dims);
  }
  // The page shows each answer through the range-aware simplifier (simplify_with_ranges:
  // guards and clamps that the variables' ranges decide are gone) and the raw form beside
  // it when they differ, so that it never shows only a rewritten expression. β0 itself keeps
  // the plain simplifier (bounds/beta0.cpp). The value under z is the raw expression's.
  for (const auto& [hole, expr] : b.filling)
    e.filling.push_back({hole.to_string(), print_expr(expr), print_expr(simplify_with_ranges(expr)), value_under_z(expr, t, in)});
  e.completed = print_tgt(c.program);
}

void gather_verdict(const Program& prog, const TgtProgram& scheduled, const Beta0Result& b,
                    const Beta0Completion& c, const Input& in, const Limits& lim, Explanation& e) {
  try {
    OracleVerdict v = check_theorems(prog, c.program, in, lim);
    // Why a violated case is violated, in terms of the query (as `halo oracle` says it).
    if (c.ok) explain_with_query(v, scheduled, b.filling, in, lim);
    e.verdict = std::move(v);
  } catch (const ResourceLimit& ex) {
    // The command's own deadline ends the whole page; a limit of the oracle's run alone
    // (its steps, its memory) leaves the rest of the page to draw.
    if (command_seconds_left() <= 0) throw;
    e.verdict_note = std::string("the oracle stopped: ") + ex.what();
  }
}

// ---------------------------------------------------------------- the observed run
// The loops around each func's `label f` (outermost first): one iteration of them is one
// tile of f.
class TileLoops final : public StmtVisitor {
 public:
  std::map<std::string, std::vector<const ForStmt*>> around;

 protected:
  void visit_for(const ForStmt& s) override {
    stack_.push_back(&s);
    StmtVisitor::visit_for(s);
    stack_.pop_back();
  }
  void visit_label(const LabelStmt& s) override {
    around.emplace(s.label, stack_);  // `label f.s0` too: harmless, never looked up
    StmtVisitor::visit_label(s);
  }

 private:
  std::vector<const ForStmt*> stack_;
};

// Puts `allocate ?cpu f((?cpu<f,*,m,x>.min, 1), (?cpu<f,*,m,x>.len, 1), ...)` at the start
// of each `label f`, m the last stage: once filled, the machine evaluates β0's compute
// bounds in the label's own scope each time f is computed, and [ALLOC] reports them (a
// one-point box per probe, so it costs no memory). Only the observed run sees the probes.
class AddCpuProbes final : public StmtMutator {
 public:
  explicit AddCpuProbes(std::map<std::string, std::vector<std::pair<Expr, Expr>>> probes) : probes_(std::move(probes)) {}

 protected:
  Stmt mutate_label(const Stmt& s) override {
    const auto& l = as<LabelStmt>(s);
    Stmt body = mutate(l.body);
    auto it = probes_.find(l.label);
    if (it != probes_.end()) {
      std::vector<std::pair<Expr, Expr>> bounds;
      for (const auto& [mn, ln] : it->second) {
        bounds.emplace_back(mn, make_const(Value(int64_t{1})));
        bounds.emplace_back(ln, make_const(Value(int64_t{1})));
      }
      body = make_seq({make_allocate(kProbePrefix + l.label, std::move(bounds), l.loc), body}, l.loc);
    }
    return make_label(l.label, body, l.loc);
  }

 private:
  std::map<std::string, std::vector<std::pair<Expr, Expr>>> probes_;
};

// For each func, the dimensions that have a last-stage compute hole, and the probe's
// bounds expressions (holes, filled later with β0's answer).
struct CpuProbes {
  std::map<std::string, std::vector<size_t>> dims;  // func → indices of its vars probed
  std::map<std::string, std::vector<std::pair<Expr, Expr>>> bounds;
};

CpuProbes cpu_probes(const Program& prog, const HoleFilling& filling) {
  CpuProbes p;
  for (const auto& f : prog.pipeline.funcs) {
    for (size_t d = 0; d < f.vars.size(); ++d) {
      HoleLabel mn;
      mn.kind = HoleKind::Cpu;
      mn.func = f.name.text;
      mn.var = f.vars[d].text;
      mn.stage = int64_t(f.stage_count()) - 1;
      mn.spec = FuncLabel::kShared;
      HoleLabel ln = mn;
      ln.is_len = true;
      if (!filling.count(mn) || !filling.count(ln)) continue;
      p.dims[f.name.text].push_back(d);
      p.bounds[f.name.text].emplace_back(make_hole(mn), make_hole(ln));
    }
  }
  return p;
}

class RunObserver final : public TraceSink {
 public:
  RunObserver(std::vector<FuncObservation>& funcs, const CpuProbes& probes,
              const std::map<std::string, std::vector<const ForStmt*>>& loops, size_t max_tiles, size_t max_points)
      : funcs_(funcs), probes_(probes), max_tiles_(max_tiles), max_points_(max_points) {
    for (auto& f : funcs_) {
      by_name_[f.func] = &f;
      auto it = loops.find(f.func);
      if (it == loops.end()) continue;
      for (const ForStmt* l : it->second) {
        f.tile_loops.push_back(print_loop_name(*l));
        tile_vars_[f.func].emplace_back(print_loop_name(*l), l->var);
      }
    }
  }

  void rule(const char*, const std::string&) override {}

  void iterated(const ForStmt& loop, const Value& v) override { loop_values_[print_loop_name(loop)] = v; }

  void allocated(const std::string& func, const std::vector<std::pair<Value, Value>>& box) override {
    if (func.rfind(kProbePrefix, 0) == 0) {
      begin_tile(func.substr(kProbePrefix.size()), &box);
      return;
    }
    FuncObservation* f = find(func);
    if (!f) return;
    ++f->allocations;
    alloc_[func] = to_box(box);
    if (!probes_.dims.count(func)) begin_tile(func, nullptr);  // no probe: a tile per allocation
  }

  void stored(const std::string& func, std::span<const Value> point, const Value& v) override {
    FuncObservation* f = find(func);
    if (!f) return;
    ++f->stores;
    auto p = to_point(point);
    if (!p) {
      ++f->points_too_large;
      return;
    }
    if (f->last_values.size() >= max_points_ && !f->last_values.count(*p)) {
      ++f->points_not_kept;
      return;
    }
    f->last_values[*p] = v;
    if (TileObservation* t = tile(*f)) {
      auto& w = t->written[*p];
      w.first = v;
      ++w.second;
    }
  }

  void loaded(const std::string& func, std::span<const Value> point) override {
    FuncObservation* f = find(func);
    if (!f) return;
    ++f->loads;
    auto p = to_point(point);
    if (!p) {
      ++f->points_too_large;
      return;
    }
    TileObservation* t = tile(*f);
    if (!t) return;
    if (t->read.size() >= max_points_ && !t->read.count(*p)) {
      ++f->points_not_kept;
      return;
    }
    t->read.insert(*p);
  }

 private:
  FuncObservation* find(const std::string& func) {
    auto it = by_name_.find(func);
    return it == by_name_.end() ? nullptr : it->second;
  }

  // The tile events belong to: the latest one begun, or a first one begun now.
  TileObservation* tile(FuncObservation& f) {
    if (dropping_.count(f.func)) return nullptr;
    if (f.tiles.empty()) begin_tile(f.func, nullptr);
    return f.tiles.empty() ? nullptr : &f.tiles.back();
  }

  void begin_tile(const std::string& func, const std::vector<std::pair<Value, Value>>* probe) {
    FuncObservation* f = find(func);
    if (!f) return;
    if (f->tiles.size() >= max_tiles_) {
      ++f->tiles_dropped;
      dropping_.insert(func);
      return;
    }
    TileObservation t;
    for (const auto& [name, var] : tile_vars_[func]) {
      auto it = loop_values_.find(name);
      t.label += fmt::format("{}{} = {}", t.label.empty() ? "" : ", ", var,
                             it == loop_values_.end() ? "?" : it->second.to_string());
    }
    auto a = alloc_.find(func);
    if (a != alloc_.end()) t.allocated = a->second;
    t.allocation = f->allocations;
    t.computed.assign(f->vars.size(), std::nullopt);
    if (probe) {
      const auto& dims = probes_.dims.at(func);
      for (size_t i = 0; i < dims.size() && 2 * i + 1 < probe->size(); ++i) {
        auto mn = (*probe)[2 * i].first.as_int64(), ln = (*probe)[2 * i + 1].first.as_int64();
        if (mn && ln) t.computed[dims[i]] = std::make_pair(*mn, *ln);
      }
    }
    f->tiles.push_back(std::move(t));
  }

  std::vector<FuncObservation>& funcs_;
  const CpuProbes& probes_;
  size_t max_tiles_, max_points_;
  std::map<std::string, FuncObservation*> by_name_;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> tile_vars_;  // loop name, var
  std::map<std::string, Value> loop_values_;
  std::map<std::string, std::optional<Box>> alloc_;
  std::set<std::string> dropping_;
};

void observe_run(const Program& prog, const TgtProgram& scheduled, const Beta0Result& b, const Input& in,
                 const ExplainOptions& opts, Explanation& e) {
  RunObservation& obs = e.observation;
  for (const auto& f : prog.pipeline.funcs) {
    FuncObservation fo;
    fo.func = f.name.text;
    for (const auto& v : f.vars) fo.vars.push_back(v.text);
    fo.is_output = &f == &prog.pipeline.output();
    obs.funcs.push_back(std::move(fo));
  }
  if (!b.ok) {
    obs.note = "β0 found no finite bounds (" + b.why_failed + "): the completed program is `assert 0`, so nothing runs.";
    return;
  }
  CpuProbes probes = cpu_probes(prog, b.filling);
  TgtProgram probed = scheduled;
  probed.body = AddCpuProbes(probes.bounds).mutate(scheduled.body);
  probed = fill_holes(probed, b.filling);
  TileLoops loops;
  loops.visit(scheduled.body);
  RunObserver observer(obs.funcs, probes, loops.around, opts.max_tiles, opts.max_points);
  try {
    RunResult r = run_tgt(probed, in, opts.limits, &observer);
    obs.ran = true;
    if (r.status != RunStatus::Ok)
      obs.note = fmt::format("the run got stuck ({}: {}); the pictures show what happened before.",
                             run_status_name(r.status), r.message);
  } catch (const ResourceLimit& ex) {
    obs.ran = true;
    obs.note = std::string("the run stopped at a limit (") + ex.what() + "); the pictures show what happened before.";
  }
}

// ---------------------------------------------------------------- the trace of one store
// The machine tells a sink each rule, its redex, and what the step did to memory and loops
// (TraceSink), not the values the step read. Those are recovered here from the same
// events, without evaluating anything a second way: Σ is followed through the steps that
// change it ([REALIZE] binds z, [LET] and [FOR-ITER] bind a variable) and σ through [ALLOC]
// (a fresh buffer holds ε_mem, an input's holds the input's values) and [ASSN]; [VAR] then
// reads Σ and [READ] reads σ. [EVAL]'s result is its operator applied to the constants of
// its redex by apply_op, the machine's own operator (only for the steps kept, at the end).

// The top-level items of the parenthesized list that opens at text[open]: "(0, (-1))" →
// {"0", "(-1)"}. Redexes print negative constants in parentheses, never commas inside.
std::vector<std::string> paren_items(const std::string& text, size_t open) {
  std::vector<std::string> items;
  if (open >= text.size() || text[open] != '(') return items;
  int depth = 0;
  size_t start = open + 1;
  for (size_t i = open; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (--depth == 0) {
        items.push_back(text.substr(start, i - start));
        return items;
      }
    } else if (c == ',' && depth == 1) {
      items.push_back(text.substr(start, i - start));
      start = i + 2;  // ", "
    }
  }
  return {};  // unbalanced: not a redex this code knows
}

// A constant as the page writes it: "(-1)" → "-1".
std::string unparen(std::string s) {
  if (s.size() > 2 && s.front() == '(' && s.back() == ')') return s.substr(1, s.size() - 2);
  return s;
}

// The value of an operator applied to constants, as [EVAL] computes it (apply_op), or
// nothing for anything else.
std::optional<Value> fold_constants(const Expr& e) {
  if (e->kind == ExprKind::Const) return as<ConstNode>(e).value;
  if (e->kind != ExprKind::Op) return std::nullopt;
  const auto& op = as<OpNode>(e);
  std::vector<Value> args;
  for (const auto& a : op.args) {
    auto v = fold_constants(a);
    if (!v) return std::nullopt;
    args.push_back(std::move(*v));
  }
  return apply_op(op.op, args);
}

// [EVAL]'s operands and result from its redex "op(c̄)". A typed operator's redex ("200 +
// 100 : u8") does not say its operands' types, so its result is not recomputed here: the
// operands only, the result being what the next steps use.
std::string eval_reads(const std::string& redex) {
  const bool typed = redex.find(" : ") != std::string::npos;
  Expr e;
  try {
    e = parse_tgt_expr(typed ? redex.substr(0, redex.find(" : ")) : redex, "<redex>");
  } catch (const InputError&) {
    return "";
  }
  std::vector<std::string> operands;
  if (e->kind == ExprKind::Op)
    for (const auto& a : as<OpNode>(e).args)
      if (auto v = fold_constants(a)) operands.push_back(v->to_string());
  std::string out = operands.empty() ? "" : fmt::format("operands {}", fmt::join(operands, ", "));
  if (typed) return out;
  if (auto v = fold_constants(e)) out += fmt::format("{}result {}", out.empty() ? "" : "; ", v->to_string());
  return out;
}

class StoreTracer final : public TraceSink {
 public:
  StoreTracer(StoreTrace& out, size_t max_entries, const TgtProgram& t, const Input& in, size_t max_points)
      : out_(out), half_(std::max<size_t>(2, max_entries / 2)), prog_(t), in_(in), max_points_(max_points) {}

  void rule(const char* name, const std::string& redex) override {
    TraceEntry e{++step_, name, redex, reads_of(name, redex)};
    if (head_.size() < half_) {
      head_.push_back(std::move(e));
      last_in_tail_ = false;
      return;
    }
    tail_.push_back(std::move(e));
    last_in_tail_ = true;
    if (tail_.size() > half_) {
      tail_.pop_front();
      ++elided_;
    }
  }

  // A new iteration of the traced func's loops begins a new segment (its FOR-ITER, just
  // recorded, is the segment's first step).
  void iterated(const ForStmt& loop, const Value& v) override {
    const std::string var = print_expr(make_var(loop.binder()));
    sigma_vars_[var] = v.to_string();
    if (TraceEntry* last = last_entry())
      last->reads = fmt::format("{}; Σ[{} = {}]", last->reads, var, v.to_string());
    if (loop.func != out_.func || (head_.empty() && tail_.empty())) return;
    TraceEntry first = tail_.empty() ? head_.back() : tail_.back();
    head_.assign(1, std::move(first));
    tail_.clear();
    elided_ = 0;
    last_in_tail_ = false;
  }

  void allocated(const std::string& func, const std::vector<std::pair<Value, Value>>& box) override {
    Buffer& b = sigma_[func];
    b.values.clear();
    b.not_kept = false;
    b.input = prog_.find_input(func) ? in_.buffer(func) : nullptr;
  }

  void stored(const std::string& func, std::span<const Value> point, const Value& v) override {
    Buffer& b = sigma_[func];
    auto p = to_point(point);
    if (TraceEntry* last = last_entry())
      last->reads = fmt::format("{} = {} (σ held {})", access_text(func, point), v.to_string(), held(b, p));
    if (p && (b.values.size() < max_points_ || b.values.count(*p)))
      b.values[*p] = v;
    else
      b.not_kept = true;
    if (func != out_.func || !p || *p != out_.point) return;
    out_.found = true;
    ++out_.stores_to_point;
    out_.head = head_;
    out_.tail.assign(tail_.begin(), tail_.end());
    out_.elided = elided_;
  }

  void loaded(const std::string& func, std::span<const Value> point) override {
    if (TraceEntry* last = last_entry())
      last->reads = fmt::format("{} = {}", access_text(func, point), held(sigma_[func], to_point(point)));
  }

  // [EVAL]'s results, for the entries kept (parsing every redex of a long run would cost
  // more than the run).
  void finish() {
    for (auto* entries : {&out_.head, &out_.tail})
      for (auto& e : *entries)
        if (e.rule == "EVAL") e.reads = eval_reads(e.redex);
  }

 private:
  struct Buffer {
    std::map<Point, Value> values;  // what [ASSN] wrote since the last [ALLOC]
    const InputBuffer* input = nullptr;
    bool not_kept = false;  // a store beyond max_points was not kept
  };

  TraceEntry* last_entry() {
    if (last_in_tail_) return tail_.empty() ? nullptr : &tail_.back();
    return head_.empty() ? nullptr : &head_.back();
  }

  static std::string access_text(const std::string& func, std::span<const Value> point) {
    std::vector<std::string> cs;
    for (const auto& c : point) cs.push_back(c.to_string());
    return fmt::format("{}[{}]", func, fmt::join(cs, ", "));
  }

  // σ(f)[p] as the machine holds it: the last store since [ALLOC], else what [ALLOC] put
  // there (the input's value, or ε_mem).
  static std::string held(const Buffer& b, const std::optional<Point>& p) {
    if (!p) return "(a point beyond 64 bits, not followed)";
    if (auto it = b.values.find(*p); it != b.values.end()) return it->second.to_string();
    if (b.not_kept) return "(not kept: more points than the report follows)";
    if (b.input)
      if (const Value* v = b.input->at(p->data())) return v->to_string();
    return Value::err_mem().to_string();
  }

  std::string reads_of(std::string_view rule, const std::string& redex) {
    if (rule == "VAR") {
      auto it = sigma_vars_.find(redex);
      return it == sigma_vars_.end() ? "" : fmt::format("{} = {}", redex, it->second);
    }
    if (rule == "REALIZE") {
      std::vector<std::string> bound;
      for (const auto& [name, v] : realize_bindings(prog_, in_)) {
        std::string var = print_expr(make_var(name));
        sigma_vars_[var] = v.to_string();
        bound.push_back(fmt::format("{} = {}", var, v.to_string()));
      }
      return fmt::format("Σ[{}]", fmt::join(bound, ", "));
    }
    if (rule == "LET") {  // "let x = c in { … }"
      size_t eq = redex.find(" = "), in = redex.rfind(" in {");
      if (redex.rfind("let ", 0) != 0 || eq == std::string::npos || in == std::string::npos || in < eq) return "";
      std::string var = print_expr(make_var(redex.substr(4, eq - 4)));
      std::string value = unparen(redex.substr(eq + 3, in - eq - 3));
      sigma_vars_[var] = value;
      return fmt::format("value {}; Σ[{} = {}]", value, var, value);
    }
    if (rule == "FOR-ITER" || rule == "FOR-STOP") {  // "for <f, 0, 0, x> in (c_min, c_len) ..."
      size_t at = redex.find(" in (");
      auto items = at == std::string::npos ? std::vector<std::string>{} : paren_items(redex, at + 4);
      if (items.size() != 2) return "";
      return fmt::format("min {}, len {}", unparen(items[0]), unparen(items[1]));
    }
    if (rule == "IF-T" || rule == "IF-F") {  // "if (c) { … } else { … }"
      auto items = paren_items(redex, 3);
      return items.size() == 1 ? fmt::format("condition {}", unparen(items[0])) : "";
    }
    if (rule == "ASSERT-TRUE") return fmt::format("condition {}", unparen(redex.substr(std::string("assert ").size())));
    if (rule == "ALLOC") {  // "allocate f((min, len), ...)"
      size_t open = redex.find('(');
      if (open == std::string::npos) return "";
      std::vector<std::string> dims, items = paren_items(redex, open);
      if (items.size() == 1 && items[0].empty()) items.clear();  // `allocate f()`: a single point
      for (const auto& d : items) {
        auto ml = paren_items(d, 0);
        if (ml.size() != 2) return "";
        dims.push_back(fmt::format("min {}, len {}", unparen(ml[0]), unparen(ml[1])));
      }
      return fmt::format("σ[{} ↦ ε_mem on {}]", redex.substr(9, open - 9),
                         dims.empty() ? "a single point" : fmt::format("{}", fmt::join(dims, " × ")));
    }
    return "";  // READ and ASSN: completed by loaded() and stored(); EVAL: by finish()
  }

  StoreTrace& out_;
  size_t half_;
  const TgtProgram& prog_;
  const Input& in_;
  size_t max_points_;
  uint64_t step_ = 0;
  std::vector<TraceEntry> head_;
  std::deque<TraceEntry> tail_;
  bool last_in_tail_ = false;
  uint64_t elided_ = 0;
  std::map<std::string, std::string> sigma_vars_;  // Σ, by the variable as [VAR]'s redex prints it
  std::map<std::string, Buffer> sigma_;            // σ, by func
};

Point checked_point(const Program& prog, const std::vector<Value>& pt, size_t dims, const std::string& func,
                    const char* option) {
  if (pt.size() != dims)
    throw option_error(prog, fmt::format("{}: the func '{}' has {} dimension(s), the point has {}", option, func,
                                         dims, pt.size()));
  auto p = to_point(pt);
  if (!p) throw option_error(prog, fmt::format("{}: the point's coordinates must fit in 64 bits", option));
  return *p;
}

void trace_store(const Program& prog, const Beta0Completion& c, const Input& in, const ExplainOptions& opts,
                 Explanation& e) {
  StoreTrace& t = e.trace;
  t.func = opts.trace_func.empty() ? prog.pipeline.name.text : opts.trace_func;
  const FuncDef* f = prog.pipeline.find(t.func);
  if (!f) throw option_error(prog, fmt::format("--trace-func: the program has no func '{}'", t.func));
  if (opts.trace_point) {
    t.point = checked_point(prog, *opts.trace_point, f->vars.size(), t.func, "--trace-point");
  } else if (f == &prog.pipeline.output() && !e.point.empty()) {
    t.point = checked_point(prog, e.point, f->vars.size(), t.func, "--point");
  } else {
    for (const auto& fo : e.observation.funcs)
      if (fo.func == t.func && !fo.last_values.empty()) t.point = fo.last_values.begin()->first;
    if (t.point.empty() && !f->vars.empty()) {
      t.note = fmt::format("{} stored nothing in the observed run, so there is no store to trace.", t.func);
      return;
    }
  }
  if (!c.ok) {
    t.note = "β0 found no finite bounds: the completed program is `assert 0` and stores nothing.";
    return;
  }
  StoreTracer tracer(t, opts.trace_entries, c.program, in, opts.max_points);
  try {
    run_tgt(c.program, in, opts.limits, &tracer);
  } catch (const ResourceLimit& ex) {
    t.note = std::string("the run stopped at a limit (") + ex.what() + ")";
  }
  tracer.finish();
  if (!t.found && t.note.empty()) t.note = "the completed program never stores this point.";
}

void derive(const Program& prog, const Input& in, const ExplainOptions& opts, Explanation& e) {
  const size_t dims = prog.pipeline.output().vars.size();
  if (opts.point) {
    checked_point(prog, *opts.point, dims, prog.pipeline.name.text, "--point");
    e.point = *opts.point;
  } else if (window_volume(in.window, opts.limits) > 0) {
    e.point = window_point(in.window, 0);
  } else {
    e.derivation_note = "R(z) is empty: there is no output point to derive.";
    return;
  }
  try {
    DerivationEvaluator ev(prog.pipeline, in, opts.limits, true);
    e.derivation = ev.derive_point(e.point);
  } catch (const ResourceLimit& ex) {
    e.derivation_note = std::string("the derivation stopped at a limit (") + ex.what() + ")";
  }
}

}  // namespace

Explanation explain_program(const Program& prog, const std::string& source, const ExplainOptions& opts) {
  Explanation e;
  e.file = prog.file;
  e.source = source;
  e.output_func = prog.pipeline.name.text;
  for (const auto& v : prog.pipeline.output().vars) e.output_vars.push_back(v.text);
  Input in = resolve_input(prog, opts.input);
  for (size_t i = 0; i < prog.pipeline.params.size() && i < in.params.size(); ++i)
    e.params.emplace_back(prog.pipeline.params[i].text, in.params[i]);
  e.window = in.window;

  TgtProgram scheduled;
  if (!gather_schedule(prog, e, scheduled)) return e;
  Query q = extract_query(scheduled);
  Beta0Result b = run_beta0(q, scheduled);
  Beta0Completion c = complete_with_beta0(b, scheduled);
  gather_bounds(q, b, c, scheduled, in, e);
  gather_verdict(prog, scheduled, b, c, in, opts.limits, e);
  // When β0 gives up, its completion is `assert 0` and draws nothing: the pictures and the
  // store trace come from β1's completion when that one runs, and say so. The verdict
  // stays β0's (Def. 2.5's reference).
  Beta0Result drawn = b;
  Beta0Completion drawn_c = c;
  std::string drawn_note;
  if (!b.ok) {
    Beta0Result b1 = run_builtin_engine(q, scheduled, BoundsEngine::Beta1);
    if (b1.ok) {
      drawn_c = complete_with_beta0(b1, scheduled);
      drawn = std::move(b1);
      drawn_note = "β0 gave up (" + b.why_failed +
                   "), so its completed program is `assert 0`; these pictures are of β1's completion "
                   "(`--engine beta1`, docs/beta1.md), which runs. The verdict above is β0's.";
    }
  }
  observe_run(prog, scheduled, drawn, in, opts, e);
  if (opts.slice) {
    bool used = false;
    for (auto& f : e.observation.funcs)
      if (std::max((*opts.slice)[0], (*opts.slice)[1]) < f.vars.size()) {
        f.axes = *opts.slice;
        used = true;
      }
    if (!used)
      throw option_error(prog, fmt::format("--slice {},{}: no func has dimensions {} and {} (dimensions count from 0)",
                                           (*opts.slice)[0], (*opts.slice)[1], (*opts.slice)[0], (*opts.slice)[1]));
  }
  if (!drawn_note.empty()) {
    e.observation.drawn_by = "β1";
    e.observation.note = e.observation.note.empty() ? drawn_note : drawn_note + " " + e.observation.note;
  }
  derive(prog, in, opts, e);
  trace_store(prog, drawn_c, in, opts, e);
  gather_halide(prog, in, opts, e);
  if (prog.realize) {
    Input as_written = resolve_input(prog, {});
    if (!(as_written.window == in.window) || as_written.params != in.params)
      e.realize_overridden = print_realization(*prog.realize);
  }
  return e;
}

// Longest common subsequence of lines; programs shown are small (a few hundred lines), and
// longer ones are compared as one removed and one added block.
std::vector<DiffLine> line_diff(const std::string& before, const std::string& after) {
  auto split = [](const std::string& s) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < s.size()) {
      size_t nl = s.find('\n', start);
      if (nl == std::string::npos) nl = s.size();
      lines.push_back(s.substr(start, nl - start));
      start = nl + 1;
    }
    return lines;
  };
  const std::vector<std::string> a = split(before), b = split(after);
  std::vector<DiffLine> out;
  const size_t n = a.size(), m = b.size();
  if (n * m > 4'000'000) {
    for (const auto& l : a) out.push_back({DiffKind::Removed, l});
    for (const auto& l : b) out.push_back({DiffKind::Added, l});
    return out;
  }
  // lcs[i][j]: the length of the LCS of a[i..] and b[j..].
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      at(i, j) = a[i] == b[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      out.push_back({DiffKind::Same, a[i]});
      ++i, ++j;
    } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
      out.push_back({DiffKind::Removed, a[i++]});  // removed lines first, as diff prints them
    } else {
      out.push_back({DiffKind::Added, b[j++]});
    }
  }
  return out;
}

std::string escape_html(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

}  // namespace halo::explain

// The schedule-tree generator: see schedule_tree.hpp for the tree and its well-formedness.
#include "fuzz/schedule_tree.hpp"

#include "fuzz/program_gen.hpp"

#include "lower/lower.hpp"
#include "schedule/schedule.hpp"
#include "semantics/printer.hpp"
#include "semantics/validity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace halo::fuzz {

namespace {

struct StageId {
  std::string func;
  int64_t spec = 0;
  int64_t stage = 0;
  bool operator==(const StageId& o) const { return func == o.func && spec == o.spec && stage == o.stage; }
};

// A loop node of the tree.
struct LoopNode {
  std::string var;
  bool pure = true;  // Def. 2.16, as schedule/loops.cpp derives it
  Traversal order = Traversal::Serial;
};

// The loop nodes of one stage: a chain, outermost first. `lets` are the variables the
// stage's split and fuse rewrites rebind by `let` below the chain.
struct Nest {
  StageId id;
  std::vector<LoopNode> loops;
  std::vector<std::string> lets;
};

// A loop node: loop `depth` of nest `nest`.
struct LoopRef {
  size_t nest = 0;
  size_t depth = 0;
  bool operator==(const LoopRef& o) const { return nest == o.nest && depth == o.depth; }
};

// The pure dimensions of a stage (Def. 2.8): all of f's variables for the pure stage; in an
// update, the dimensions whose left-hand side is the variable itself.
std::set<std::string> pure_dims(const FuncDef& f, size_t stage) {
  std::set<std::string> out;
  for (size_t j = 0; j < f.vars.size(); ++j) {
    if (stage == 0) {
      out.insert(f.vars[j].text);
      continue;
    }
    const Expr& e = f.updates[stage - 1].lhs[j];
    if (e->kind == ExprKind::Var && as<VarNode>(e).name == f.vars[j].text) out.insert(f.vars[j].text);
  }
  return out;
}

LoopName loop_name(const StageId& s, const std::string& var) {
  return LoopName{Name{s.func, {}}, s.spec, s.stage, Name{var, {}}, {}};
}

Expr constant(int64_t v) { return make_const(Value(v)); }

class TreeBuilder {
 public:
  TreeBuilder(const Program& prog, const ScheduleTreeConfig& cfg) : prog_(prog), pipe_(prog.pipeline), cfg_(cfg) {
    for (const Name& p : pipe_.params) used_.insert(p.text);
    for (const auto& [mn, ln] : window_variables(pipe_)) used_.insert(mn), used_.insert(ln);
  }

  // The tree, grown by random transformers, as directives in phase order.
  std::vector<Directive> build() {
    specialize();
    read_nests();
    for (int k = 0, n = *rc::gen::inRange(0, cfg_.max_loop_transforms + 1); k < n; ++k) transform_loops();
    place_computations();
    bounds();
    std::vector<Directive> all;
    for (auto* phase : {&specs_, &loops_, &computes_, &stores_, &bounds_})
      all.insert(all.end(), phase->begin(), phase->end());
    for (size_t k = 0; k < all.size(); ++k) all[k].loc = SourceLoc{uint32_t(k + 1), 1};
    return all;
  }

 private:
  const Program& prog_;
  const Pipeline& pipe_;
  ScheduleTreeConfig cfg_;
  std::set<std::string> used_;
  std::map<std::string, int64_t> spec_count_;  // conditions of f's specialize (0: none)
  std::vector<Nest> nests_;
  std::map<std::string, std::optional<LoopRef>> compute_;  // f's compute node's parent (nullopt: root)
  std::vector<Directive> specs_, loops_, computes_, stores_, bounds_;

  // A name new in the namespace of stage s (schedule/loops.cpp's freshness): not a
  // parameter or window variable, nor a variable of s's func, nor a loop or let of s. Other
  // funcs and stages may use it, so splits are named xo, xi everywhere, as in Halide.
  std::string fresh(const Nest& s, const std::string& base) const {
    std::set<std::string> taken = used_;
    if (const FuncDef* f = pipe_.find(s.id.func)) {
      for (const Name& v : f->vars) taken.insert(v.text);
      for (const UpdateStage& u : f->updates)
        for (const RVar& r : u.rdom) taken.insert(r.name.text);
    }
    for (const LoopNode& l : s.loops) taken.insert(l.var);
    taken.insert(s.lets.begin(), s.lets.end());
    std::string n = base;
    for (int k = 2; taken.count(n); ++k) n = fmt::format("{}{}", base, k);
    return n;
  }

  // A startup expression (Def. 2.9) for a specialize condition.
  Expr condition() {
    if (pipe_.params.empty() || *rc::gen::inRange(0, 4) == 0) return constant(*rc::gen::inRange(0, 2));
    Expr p = make_var((*rc::gen::elementOf(pipe_.params)).text);
    switch (*rc::gen::inRange(0, 3)) {
      case 0: return make_op(Op::Gt, {p, constant(*rc::gen::inRange(-1, 4))});
      case 1: return make_op(Op::Eq, {make_op(Op::Mod, {p, constant(2)}), constant(0)});
      default: return make_op(Op::Eq, {p, constant(*rc::gen::inRange(-1, 4))});
    }
  }

  // Phase 0: a compute node may be split into specializations (§2.8.1).
  void specialize() {
    for (const FuncDef& f : pipe_.funcs) {
      if (*rc::gen::inRange(0, 100) >= cfg_.specialize_percent) continue;
      Directive d;
      d.kind = DirectiveKind::Specialize;
      d.func = Name{f.name.text, {}};
      int n = *rc::gen::inRange(1, 3);
      for (int k = 0; k < n; ++k) d.exprs.push_back(condition());
      spec_count_[f.name.text] = n;
      specs_.push_back(d);
    }
  }

  std::vector<int64_t> specs_of(const std::string& f) const {
    auto it = spec_count_.find(f);
    if (it == spec_count_.end()) return {0};
    std::vector<int64_t> out;
    for (int64_t j = 1; j <= it->second; ++j) out.push_back(j);
    out.push_back(0);
    return out;
  }

  // The loop nodes of L(P) after the specializations: each stage's loops, outermost first.
  void read_nests() {
    Program p = prog_;
    p.schedule = specs_;
    TgtProgram t = lower_pipeline(p);
    try {
      for (const Directive& d : *p.schedule) t = apply_directive(t, d, p);
    } catch (const InputError&) {
      // A specialization the rewrite refuses (keep_valid would drop it): the tree has none.
      specs_.clear();
      spec_count_.clear();
      p.schedule = std::nullopt;
      t = lower_pipeline(p);
    }
    struct Collector : StmtVisitor {
      std::vector<Nest>* nests;
      void visit_for(const ForStmt& s) override {
        StageId id{s.func, s.spec, s.stage};
        auto it = std::find_if(nests->begin(), nests->end(), [&](const Nest& n) { return n.id == id; });
        if (it == nests->end()) it = nests->insert(nests->end(), Nest{id, {}, {}});
        it->loops.push_back(LoopNode{s.var, true, s.order});
        StmtVisitor::visit_for(s);
      }
    } c;
    c.nests = &nests_;
    c.visit(t.body);
    for (Nest& n : nests_) {
      const FuncDef* f = pipe_.find(n.id.func);
      if (!f) throw std::logic_error("schedule tree: a loop of an unknown func");
      std::set<std::string> pure = pure_dims(*f, size_t(n.id.stage));
      for (LoopNode& l : n.loops) l.pure = pure.count(l.var) > 0;
    }
  }

  Expr split_factor() {
    if (!pipe_.params.empty() && *rc::gen::inRange(0, 8) == 0) {
      Expr p = make_var((*rc::gen::elementOf(pipe_.params)).text);
      switch (*rc::gen::inRange(0, 3)) {
        case 0: return make_op(Op::Max, {p, constant(1)});
        case 1: return make_op(Op::Min, {make_op(Op::Max, {p, constant(1)}), constant(3)});
        default: return p;  // not positive for some inputs: the startup assertion fails (Def. 2.3)
      }
    }
    // A factor of 1 changes nothing but the loop names: rare.
    return constant(*rc::gen::inRange(0, 8) == 7 ? 1 : *rc::gen::inRange(2, std::max(cfg_.max_split_factor, 2) + 1));
  }

  // Phase 1: one loop transformer (seed 004: split, reorder, change loop type; and fuse).
  void transform_loops() {
    // Reduction loops are where a wrong tail or order changes values, so nests that have
    // them are picked three times as often, and their reduction loops half the time.
    std::vector<size_t> candidates;
    auto has_reduction = [](const Nest& n) {
      return std::any_of(n.loops.begin(), n.loops.end(), [](const LoopNode& l) { return !l.pure; });
    };
    for (size_t k = 0; k < nests_.size(); ++k)
      for (int w = nests_[k].loops.empty() ? 0 : has_reduction(nests_[k]) ? 3 : 1; w > 0; --w) candidates.push_back(k);
    if (candidates.empty()) return;
    Nest& n = nests_[*rc::gen::elementOf(candidates)];
    size_t d = *rc::gen::inRange<size_t>(0, n.loops.size());
    if (has_reduction(n) && *rc::gen::inRange(0, 2) == 1)
      while (n.loops[d].pure) d = (d + 1) % n.loops.size();
    const StageId& s = n.id;
    Directive dir;
    dir.loop = loop_name(s, n.loops[d].var);
    int kind = *rc::gen::inRange(0, 11);
    if (kind < 4) {  // split
      dir.kind = DirectiveKind::Split;
      std::string v = n.loops[d].var;
      LoopNode outer{fresh(n, v + "o"), n.loops[d].pure, Traversal::Serial};
      n.lets.push_back(outer.var);  // reserved while the inner name is chosen
      LoopNode inner{fresh(n, v + "i"), n.loops[d].pure, Traversal::Serial};
      n.lets.pop_back();
      dir.names = {Name{outer.var, {}}, Name{inner.var, {}}};
      dir.exprs = {split_factor()};
      // shift and round recompute or overcompute: only on pure stages (§2.8.2; reading 15).
      dir.tail = s.stage == 0 ? *rc::gen::element(TailStrategy::Guard, TailStrategy::Shift, TailStrategy::Round)
                              : TailStrategy::Guard;
      n.loops[d] = outer;
      n.loops.insert(n.loops.begin() + std::ptrdiff_t(d) + 1, inner);
      n.lets.push_back(v);
    } else if (kind < 6) {  // fuse with the loop inside: both pure or both reduction
      if (d + 1 >= n.loops.size() || n.loops[d].pure != n.loops[d + 1].pure) return;
      dir.kind = DirectiveKind::Fuse;
      LoopNode fused{fresh(n, n.loops[d].var + n.loops[d + 1].var), n.loops[d].pure, Traversal::Serial};
      dir.names = {Name{fused.var, {}}};
      n.lets.push_back(n.loops[d].var);
      n.lets.push_back(n.loops[d + 1].var);
      n.loops[d] = fused;
      n.loops.erase(n.loops.begin() + std::ptrdiff_t(d) + 1);
    } else if (kind < 8) {  // reorder: swap with the loop inside, not both reduction loops
      if (d + 1 >= n.loops.size() || (!n.loops[d].pure && !n.loops[d + 1].pure)) return;
      dir.kind = DirectiveKind::Swap;
      std::swap(n.loops[d], n.loops[d + 1]);
    } else {  // change the loop type: parallel and vectorized only on pure loops
      dir.kind = DirectiveKind::Traverse;
      dir.order = n.loops[d].pure ? *rc::gen::element(Traversal::Serial, Traversal::Parallel, Traversal::Vectorized,
                                                      Traversal::Unrolled)
                                  : *rc::gen::element(Traversal::Serial, Traversal::Unrolled);
      n.loops[d].order = dir.order;
    }
    loops_.push_back(dir);
  }

  size_t def_index(const std::string& f) const {
    for (size_t k = 0; k < pipe_.funcs.size(); ++k)
      if (pipe_.funcs[k].name.text == f) return k;
    throw std::logic_error("schedule tree: unknown func " + f);
  }

  // The loop nodes from the root down to f's compute node (exclusive).
  std::vector<LoopRef> compute_path(const std::string& f) const {
    auto it = compute_.find(f);
    if (it == compute_.end() || !it->second) return {};
    return loop_path(*it->second);
  }
  // The loop nodes from the root down to L (inclusive).
  std::vector<LoopRef> loop_path(const LoopRef& l) const {
    std::vector<LoopRef> p = compute_path(nests_[l.nest].id.func);
    for (size_t d = 0; d <= l.depth; ++d) p.push_back(LoopRef{l.nest, d});
    return p;
  }
  // The loop nodes around a stage's store statement.
  std::vector<LoopRef> body_path(const StageId& s) const {
    std::vector<LoopRef> p = compute_path(s.func);
    for (size_t k = 0; k < nests_.size(); ++k)
      if (nests_[k].id == s)
        for (size_t d = 0; d < nests_[k].loops.size(); ++d) p.push_back(LoopRef{k, d});
    return p;
  }

  // Every stage (and specialization) that reads f.
  std::vector<StageId> readers(const std::string& f) const {
    std::vector<StageId> out;
    for (const FuncDef& g : pipe_.funcs)
      for (size_t i = 0; i < g.stage_count(); ++i)
        if (g.name.text != f && funcs_read_by_stage(g, i).count(f))
          for (int64_t j : specs_of(g.name.text)) out.push_back(StageId{g.name.text, j, int64_t(i)});
    return out;
  }

  // Phases 2 and 3: compute and storage nodes, consumers first (so that each producer
  // knows where its readers are), each placed where the tree stays well-formed.
  void place_computations() {
    std::vector<Directive> computes, stores;
    for (size_t k = pipe_.funcs.size(); k-- > 1;) {
      const std::string f = pipe_.funcs[k - 1].name.text;
      compute_[f] = std::nullopt;
      std::vector<StageId> rs = readers(f);
      std::vector<std::vector<LoopRef>> paths;
      for (const StageId& r : rs) paths.push_back(body_path(r));
      std::vector<LoopRef> candidates;
      for (size_t n = 0; n < nests_.size(); ++n) {
        // Only inside funcs defined later, which are placed already: a func read by no one
        // could go anywhere, but inside an earlier func its storage would be chosen before
        // the path to it is known.
        if (def_index(nests_[n].id.func) <= k - 1) continue;
        for (size_t d = 0; d < nests_[n].loops.size(); ++d) {
          LoopRef l{n, d};
          // Dominance: every reader lies inside L.
          bool inside = std::all_of(paths.begin(), paths.end(), [&](const std::vector<LoopRef>& p) {
            return std::find(p.begin(), p.end(), l) != p.end();
          });
          // Loops bind qualified variables, so f's loops may share names with those around
          // its new place (a producer over x computed at a consumer's xi).
          if (inside) candidates.push_back(l);
        }
      }
      if (!candidates.empty() && *rc::gen::inRange(0, 100) < cfg_.compute_percent) {
        LoopRef l = *rc::gen::elementOf(candidates);
        compute_[f] = l;
        Directive d;
        d.kind = DirectiveKind::ComputeAt;
        d.func = Name{f, {}};
        d.loop = loop_name(nests_[l.nest].id, nests_[l.nest].loops[l.depth].var);
        computes.push_back(d);
      }
      // The storage node: on the path to the compute node, inside every parallel loop on it.
      std::vector<LoopRef> path = compute_path(f);
      size_t first = 0;
      bool parallel = false;
      for (size_t i = 0; i < path.size(); ++i)
        if (nests_[path[i].nest].loops[path[i].depth].order == Traversal::Parallel) first = i, parallel = true;
      if (path.empty() || (!parallel && *rc::gen::inRange(0, 100) >= cfg_.store_percent)) continue;
      LoopRef s = path[*rc::gen::inRange(first, path.size())];
      Directive d;
      d.kind = DirectiveKind::StoreAt;
      d.func = Name{f, {}};
      d.loop = loop_name(nests_[s.nest].id, nests_[s.nest].loops[s.depth].var);
      stores.push_back(d);
    }
    computes_ = std::move(computes);
    stores_ = std::move(stores);
  }

  // Phase 4: a hand-chosen region for a few dimensions, at most one directive each.
  void bounds() {
    if (*rc::gen::inRange(0, 100) >= cfg_.bounds_percent) return;
    std::vector<std::pair<std::string, std::string>> dims;
    for (const FuncDef& f : pipe_.funcs)
      for (const Name& v : f.vars) dims.emplace_back(f.name.text, v.text);
    if (dims.empty()) return;
    std::set<std::pair<std::string, std::string>> chosen;
    for (int k = 0, n = *rc::gen::inRange(1, 3); k < n; ++k) {
      auto dim = *rc::gen::elementOf(dims);
      if (!chosen.insert(dim).second) continue;
      Directive d;
      d.func = Name{dim.first, {}};
      d.names = {Name{dim.second, {}}};
      switch (*rc::gen::inRange(0, 3)) {
        case 0:
          d.kind = DirectiveKind::Bound;
          d.exprs = {constant(small_int(-3, 2)), constant(*rc::gen::inRange(0, 9))};
          break;
        case 1:
          d.kind = DirectiveKind::BoundExtent;
          d.exprs = {constant(*rc::gen::inRange(0, 9))};
          break;
        default: {
          d.kind = DirectiveKind::AlignBounds;
          int m = *rc::gen::inRange(1, 5);
          d.exprs = {constant(m), constant(*rc::gen::inRange(0, m))};
        }
      }
      bounds_.push_back(d);
    }
  }
};

}  // namespace

Program keep_valid(Program prog, std::vector<Directive> ds, TreeStats* stats) {
  auto drop_at = [&](const Diagnostic& diag) {
    auto it = std::find_if(ds.begin(), ds.end(), [&](const Directive& d) {
      return d.loc.line == diag.loc.line && d.loc.col == diag.loc.col;
    });
    if (it == ds.end()) throw std::logic_error("schedule tree: a rejection without a directive: " + diag.format());
    if (stats) stats->rejected.push_back(print_directive(*it) + ": " + diag.message);
    ds.erase(it);
  };
  while (true) {
    prog.schedule = ds;
    if (ds.empty()) {
      prog.schedule = std::nullopt;
      return prog;
    }
    auto diags = validate_program(prog);
    if (!diags.empty()) {
      drop_at(diags.front());
      continue;
    }
    try {
      schedule_formal_part(prog);  // Halide's own directives are Halide's to judge
      return prog;
    } catch (const InputError& e) {
      drop_at(e.diagnostics().front());
    }
  }
}

rc::Gen<Program> gen_tree_scheduled(const Program& prog, ScheduleTreeConfig cfg, TreeStats* stats) {
  return rc::gen::exec([prog, cfg, stats] {
    std::vector<Directive> ds = TreeBuilder(prog, cfg).build();
    TreeStats st;
    st.emitted = int(ds.size());
    Program out = keep_valid(prog, std::move(ds), &st);
    if (stats) *stats = st;
    return out;
  });
}

}  // namespace halo::fuzz

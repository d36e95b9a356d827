// The translator from a .halo program to the Halide description of plan.hpp: algorithm
// (fig. 2.5) to Funcs, Vars, RDoms and update definitions; schedule (fig. 2.11) to Halide
// scheduling calls, one or more per directive, after the explicit formal default.
//
// To map fuse and swap, which name one loop and mean "with the loop immediately inside
// it", the translator keeps every stage's loop order as Halide keeps it (innermost first:
// a stage's first pure variable, or its rdom's r1, is innermost, as in fig. 2.9) and
// applies each directive to it.
#include "candidates/halide/plan.hpp"

#include "semantics/printer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fmt/ranges.h>  // fmt::join

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

namespace halo::halide {

namespace {

bool fits_int32(const Value& v) {
  return v.is_small() && v.small() >= std::numeric_limits<int32_t>::min() &&
         v.small() <= std::numeric_limits<int32_t>::max();
}

struct OutOfModel {
  std::string message;
};
struct NotExpressible {
  std::string message;
};

// What a variable is at the place an expression is translated.
struct Scope {
  std::map<std::string, HlExpr> vars;
};

// How expressions are translated: an untyped program's with the conversions between
// Int(32) and Bool, a typed one's as they are.
struct ExprContext {
  std::string file;
  bool typed = false;
  std::set<std::string> inputs;  // the names that are ImageParams, not Funcs
};

HlExpr cast_expr(Type t, HlExpr e, Op op = Op::Cast) {
  HlExpr c;
  c.kind = HlExpr::Kind::Cast;
  c.op = op;
  c.type = t;
  c.args.push_back(std::move(e));
  return c;
}

// Untyped programs only: where fig. 2.6 expects an integer and Halide has a Bool.
HlExpr to_int(HlExpr e) { return e.type.is_bool() ? cast_expr(Type::int_(32), std::move(e)) : e; }

HlExpr to_bool(HlExpr e) {
  if (e.type.is_bool()) return e;
  HlExpr c;
  c.kind = HlExpr::Kind::ToBool;
  c.type = Type::boolean();
  c.args.push_back(std::move(e));
  return c;
}

HlExpr translate_expr(const Expr& e, const Scope& s, const ExprContext& cx);

// An untyped program's expression: Int(32), with Bool only where Halide has one.
HlExpr untyped_op(const OpNode& n, std::vector<HlExpr> a) {
  HlExpr r;
  r.op = n.op;
  switch (n.op) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Mod: case Op::Min: case Op::Max:
      r.kind = HlExpr::Kind::Binary;
      r.args = {to_int(std::move(a[0])), to_int(std::move(a[1]))};
      return r;
    case Op::Lt: case Op::Gt: case Op::Eq: case Op::Le: case Op::Ge: case Op::Ne:
      r.kind = HlExpr::Kind::Binary;
      r.type = Type::boolean();
      r.args = {to_int(std::move(a[0])), to_int(std::move(a[1]))};
      return r;
    case Op::And: case Op::Or:
      r.kind = HlExpr::Kind::Binary;
      r.type = Type::boolean();
      r.args = {to_bool(std::move(a[0])), to_bool(std::move(a[1]))};
      return r;
    case Op::Not:
      r.kind = HlExpr::Kind::Unary;
      r.type = Type::boolean();
      r.args = {to_bool(std::move(a[0]))};
      return r;
    case Op::Neg:
      r.kind = HlExpr::Kind::Unary;
      r.args = {to_int(std::move(a[0]))};
      return r;
    case Op::Select:
      r.kind = HlExpr::Kind::Select;
      r.args = {to_bool(std::move(a[0])), to_int(std::move(a[1])), to_int(std::move(a[2]))};
      return r;
    default:  // Halide's own operators make a program typed (semantics/typing.hpp)
      break;
  }
  throw std::logic_error(std::string("halide translation: the typed operator ") + op_name(n.op) +
                         " in an untyped program");
}

// A typed program's expression: Halide's operator or function at the operand types the
// typing pass fixed (its implicit casts are explicit here), so Halide's own coercion has
// nothing left to do.
HlExpr typed_op(const OpNode& n, std::vector<HlExpr> a) {
  HlExpr r;
  r.op = n.op;
  r.type = n.type;
  r.args = std::move(a);
  switch (n.op) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Mod: case Op::Min: case Op::Max:
    case Op::Lt: case Op::Gt: case Op::Eq: case Op::Le: case Op::Ge: case Op::Ne: case Op::And: case Op::Or:
    case Op::BitAnd: case Op::BitOr: case Op::BitXor: case Op::Shl: case Op::Shr:
      r.kind = HlExpr::Kind::Binary;
      return r;
    case Op::Not: case Op::Neg: case Op::BitNot: r.kind = HlExpr::Kind::Unary; return r;
    case Op::Select: r.kind = HlExpr::Kind::Select; return r;
    case Op::Cast: case Op::SaturatingCast: case Op::Reinterpret: r.kind = HlExpr::Kind::Cast; return r;
    default: r.kind = HlExpr::Kind::Intrinsic; return r;
  }
}

HlExpr translate_expr(const Expr& e, const Scope& s, const ExprContext& cx) {
  switch (e->kind) {
    case ExprKind::Const: {
      const Value& v = as<ConstNode>(e).value;
      HlExpr c;
      if (cx.typed) {
        // The typing pass gave every literal a type that holds it.
        c.type = e->type;
        c.value = hl_bits(v);
        return c;
      }
      if (!fits_int32(v))
        throw OutOfModel{fmt::format("{}:{}:{}: the constant {} does not fit in Int(32)", cx.file, e->loc.line,
                                     e->loc.col, v.to_string())};
      c.value = v.small();
      return c;
    }
    case ExprKind::Var: {
      const std::string& n = as<VarNode>(e).name;
      auto it = s.vars.find(n);
      if (it == s.vars.end()) throw std::logic_error("halide translation: unbound variable " + n);
      return it->second;
    }
    case ExprKind::Call: {
      const auto& c = as<CallNode>(e);
      HlExpr r;
      r.kind = cx.inputs.count(c.func) ? HlExpr::Kind::Input : HlExpr::Kind::Call;
      r.name = c.func;
      if (cx.typed) r.type = e->type;
      for (const Expr& a : c.args) {
        HlExpr x = translate_expr(a, s, cx);
        r.args.push_back(cx.typed ? std::move(x) : to_int(std::move(x)));
      }
      return r;
    }
    case ExprKind::Hole: throw std::logic_error("halide translation: a hole in an algorithm expression");
    case ExprKind::Op: break;
  }
  const auto& n = as<OpNode>(e);
  std::vector<HlExpr> a;
  for (const Expr& x : n.args) a.push_back(translate_expr(x, s, cx));
  return cx.typed ? typed_op(n, std::move(a)) : untyped_op(n, std::move(a));
}

HlExpr var_expr(HlExpr::Kind k, const std::string& name) {
  HlExpr v;
  v.kind = k;
  v.name = name;
  return v;
}

// Does the stage's left-hand side or value mention one of its RDom's RVars?
bool mentions_rvar(const HlExpr& e, const std::string& rdom) {
  if (e.kind == HlExpr::Kind::RVar && e.rdom == rdom) return true;
  for (const HlExpr& a : e.args)
    if (mentions_rvar(a, rdom)) return true;
  return false;
}
bool mentions_rdom(const HlStage& s) {
  for (const HlExpr& e : s.lhs)
    if (mentions_rvar(e, s.rdom->cpp_name)) return true;
  return mentions_rvar(s.value, s.rdom->cpp_name);
}

// A stage's loops, innermost first, with their traversal (fuse needs the inner one's).
struct LoopState {
  HlLoop loop;
  Traversal order = Traversal::Serial;
};
using StageKey = std::tuple<std::string, int64_t, int64_t>;

class Translator {
 public:
  Translator(const Program& p, const Input& in) : prog_(p), in_(in) {
    cx_ = {p.file, p.pipeline.typed, {}};
    for (const InputDef& d : p.pipeline.inputs) cx_.inputs.insert(d.name.text);
  }

  HalidePlan run() {
    plan_.file = prog_.file;
    plan_.output = prog_.pipeline.name.text;
    plan_.typed = cx_.typed;
    for (size_t i = 0; i < prog_.pipeline.params.size(); ++i) {
      const std::string& name = prog_.pipeline.params[i].text;
      Type t = prog_.pipeline.param_type(i);
      if (!t.is_typed()) {
        t = Type::int_(32);
        if (!fits_int32(in_.params[i]))
          throw OutOfModel{fmt::format("parameter {} = {} does not fit in Int(32)", name, in_.params[i].to_string())};
      }
      // A typed parameter's value is one of its type (resolve_input checked it).
      plan_.params.push_back(HlParam{name, t, hl_bits(in_.params[i])});
      HlExpr p = var_expr(HlExpr::Kind::Param, name);
      p.type = t;
      params_.vars[name] = std::move(p);
    }
    translate_inputs();
    for (const Interval& w : in_.window) {
      Value last = add(w.min, w.len);
      if (!fits_int32(w.min) || !fits_int32(w.len) || !fits_int32(last))
        throw OutOfModel{fmt::format("the output window ({}, {}) does not fit in Int(32)", w.min.to_string(),
                                     w.len.to_string())};
      plan_.window.emplace_back(int32_t(w.min.small()), int32_t(w.len.small()));
    }
    for (const FuncDef& f : prog_.pipeline.funcs) plan_.funcs.push_back(translate_func(f));
    // The formal default (fig. 2.9): every func computed and stored at the root. Halide's
    // output Func is always computed at the root; it takes no call. A func the schedule
    // inlines takes none either: Halide's own default, inlining, is what compute_inline means.
    // In Halide's mode (`schedule halide { }`) the schedule as written is Halide's: the
    // directives halo added as Halide's defaults (Directive::default_note) take no call, and
    // only what the writer placed at the root (compute_root, store_root) does.
    if (prog_.schedule_mode == ScheduleMode::Autoscheduler) {
      plan_.autoscheduler = prog_.autoscheduler;
      return plan_;
    }
    std::set<std::string> inlined, computed_at, stored_at;
    if (prog_.schedule)
      for (const Directive& d : *prog_.schedule) {
        if (d.kind == DirectiveKind::ComputeInline) inlined.insert(d.func.text);
        if (d.kind == DirectiveKind::ComputeAt) computed_at.insert(d.func.text);
        if (d.kind == DirectiveKind::StoreAt || d.kind == DirectiveKind::HoistStorage) stored_at.insert(d.func.text);
      }
    bool halide_mode = plan_.halide_mode = prog_.schedule_mode == ScheduleMode::Halide;
    for (const HlFunc& f : plan_.funcs) {
      if (f.is_output || inlined.count(f.name)) continue;
      HlCall c;
      c.func = f.name;
      if (!halide_mode || !computed_at.count(f.name)) {
        c.kind = HlCall::Kind::ComputeRoot;
        plan_.schedule.push_back(c);
      }
      // In Halide's mode a compute_at without storage stores at its own level (Halide's
      // default; at a loop of every specialization halo adds no store_at for it, semantics
      // decision 33), unless the writer said store_root.
      bool store_root_written = std::find(prog_.halide_roots.begin(), prog_.halide_roots.end(),
                                          std::pair<std::string, std::string>{"store_root", f.name}) !=
                                prog_.halide_roots.end();
      if (!halide_mode || (!stored_at.count(f.name) && (!computed_at.count(f.name) || store_root_written))) {
        c.kind = HlCall::Kind::StoreRoot;
        plan_.schedule.push_back(c);
      }
    }
    // Halide checks a parallel or vectorized reduction loop against the stage's atomic() when
    // the loop is marked: the atomic calls go first (after the specializations whose stages
    // they may name); where they are written does not change what they mean.
    auto early = [](const Directive& d) { return d.kind == DirectiveKind::Specialize || d.kind == DirectiveKind::Atomic; };
    if (prog_.schedule) {
      for (const Directive& d : *prog_.schedule)
        if ((!halide_mode || d.default_note.empty()) && early(d)) translate_directive(d);
      for (const Directive& d : *prog_.schedule)
        if ((!halide_mode || d.default_note.empty()) && !early(d)) translate_directive(d);
    }
    check_bounds_at_storage();
    return plan_;
  }

 private:
  const Program& prog_;
  const Input& in_;
  HalidePlan plan_;
  ExprContext cx_;
  Scope params_;
  std::map<StageKey, std::vector<LoopState>> loops_;

  // Each input buffer as an ImageParam's Buffer, and its geometry variables as the
  // ImageParam's dim(k).min() and dim(k).extent(). An untyped program's input is Int(32)
  // in Halide, so its values and box must fit (int32_model.hpp).
  void translate_inputs() {
    for (const InputDef& d : prog_.pipeline.inputs) {
      const InputBuffer* b = in_.buffer(d.name.text);
      if (!b) throw std::logic_error("halide translation: no buffer for input " + d.name.text);
      HlInput h;
      h.name = d.name.text;
      h.type = cx_.typed ? d.type : Type::int_(32);
      for (size_t k = 0; k < b->box.size(); ++k) {
        const Interval& iv = b->box[k];
        if (!fits_int32(iv.min) || !fits_int32(iv.len) || !fits_int32(add(iv.min, iv.len)))
          throw OutOfModel{fmt::format("the buffer of input {} ({}, {}) in dimension {} does not fit in Int(32)",
                                       h.name, iv.min.to_string(), iv.len.to_string(), k)};
        h.box.emplace_back(int32_t(iv.min.small()), int32_t(iv.len.small()));
        for (int64_t which : {0, 1}) {
          HlExpr g = var_expr(HlExpr::Kind::BufferDim, h.name);
          g.rdom_dim = int(k);
          g.value = which;
          params_.vars[which == 0 ? buffer_min_var(h.name, k) : buffer_extent_var(h.name, k)] = std::move(g);
        }
      }
      h.values.reserve(b->values.size());
      for (const Value& v : b->values) {
        if (!cx_.typed && !fits_int32(v))
          throw OutOfModel{fmt::format("input {} holds {}, which does not fit in Int(32)", h.name, v.to_string())};
        h.values.push_back(hl_bits(v));
      }
      plan_.inputs.push_back(std::move(h));
    }
  }

  // Where fig. 2.6 has an integer: an untyped program's Bool becomes Int(32); a typed
  // program's expression keeps its type.
  HlExpr integer(HlExpr e) const { return cx_.typed ? e : to_int(std::move(e)); }

  HlFunc translate_func(const FuncDef& f) {
    HlFunc h;
    h.name = f.name.text;
    if (cx_.typed) h.type = f.type;
    h.is_output = h.name == prog_.pipeline.name.text;
    Scope pure = params_;
    for (const Name& v : f.vars) {
      h.vars.push_back(v.text);
      pure.vars[v.text] = var_expr(HlExpr::Kind::Var, v.text);
    }
    HlStage s0;
    for (const Name& v : f.vars) s0.lhs.push_back(pure.vars[v.text]);
    s0.value = integer(translate_expr(f.pure, pure, cx_));
    h.stages.push_back(std::move(s0));
    if (f.boundary) {  // Halide's own BoundaryConditions function, not halo's formula
      HlBoundary b;
      b.kind = f.boundary->kind;
      b.source = f.boundary->source.text;
      b.source_is_input = cx_.inputs.count(b.source) > 0;
      if (f.boundary->value) b.value = integer(translate_expr(f.boundary->value, params_, cx_));
      for (const auto& [mn, ext] : f.boundary->bounds)
        b.bounds.emplace_back(integer(translate_expr(mn, params_, cx_)), integer(translate_expr(ext, params_, cx_)));
      h.boundary = std::move(b);
    }
    // Stage 0's loops: x1 innermost (fig. 2.9, and Halide's default order).
    std::vector<LoopState>& l0 = loops_[StageKey{h.name, 0, 0}];
    for (const StageLoop& l : initial_stage_loops(f, 0)) l0.push_back({HlLoop{l.name, false, -1, ""}});

    for (size_t i = 0; i < f.updates.size(); ++i) {
      const UpdateStage& u = f.updates[i];
      int64_t stage = int64_t(i + 1);
      Scope sc = pure;
      HlStage st;
      std::vector<LoopState>& ls = loops_[StageKey{h.name, 0, stage}];
      if (!u.rdom.empty()) {
        HlRDom rd;
        rd.cpp_name = cpp_rdom(h.name, stage);
        rd.halide_name = u.rdom[0].name.text;
        for (size_t k = 0; k < u.rdom.size(); ++k) {
          const RVar& r = u.rdom[k];
          rd.vars.push_back(r.name.text);
          rd.ranges.emplace_back(integer(translate_expr(r.min, params_, cx_)),
                                 integer(translate_expr(r.len, params_, cx_)));
          HlExpr rv = var_expr(HlExpr::Kind::RVar, r.name.text);
          rv.rdom_dim = int(k);
          rv.rdom = rd.cpp_name;
          sc.vars[r.name.text] = rv;
        }
        st.rdom = std::move(rd);
      }
      // The stage's loops as L(P) nests them, which is Halide's default order too: r1
      // innermost, the pure loops outside the reduction loops, x1 innermost.
      for (const StageLoop& l : initial_stage_loops(f, size_t(stage)))
        ls.push_back({l.rdom ? HlLoop{l.name, true, int(l.index), cpp_rdom(h.name, stage)} : HlLoop{l.name, false, -1, ""}});
      for (const Expr& e : u.lhs) st.lhs.push_back(integer(translate_expr(e, sc, cx_)));
      st.value = integer(translate_expr(u.value, sc, cx_));
      if (f.implicit_pure && i == 0) {
        h.implicit_pure = f.implicit_pure;
        st.compound = integer(translate_expr(as<OpNode>(u.value).args[1], sc, cx_));
        if (u.predicate && u.rdom.empty())
          throw NotExpressible{fmt::format("{}: Halide's {}(...) op= e with a predicate needs an rdom to carry it "
                                           "(RDom::where)",
                                           h.name, h.name)};
      }
      if (st.rdom && !mentions_rdom(st)) {
        // Halide attaches an RDom to an update only when the definition (left-hand side
        // or value) mentions one of its RVars; otherwise the update runs once, not once
        // per point of the rdom (RDOM-EVAL). Mentioning r1 in a term that is always 0
        // attaches it.
        HlExpr r1 = sc.vars[u.rdom[0].name.text], zero, term, sum;
        term.kind = sum.kind = HlExpr::Kind::Binary;
        term.op = Op::Mul;
        term.args = {r1, zero};
        if (h.type != term.type) term = cast_expr(h.type, std::move(term));
        sum.op = Op::Add;
        sum.type = h.type;
        HlExpr& target = st.compound ? *st.compound : st.value;
        sum.args = {std::move(target), std::move(term)};
        target = std::move(sum);
        plan_.notes.push_back(fmt::format(
            "{} stage {}: the update does not mention its reduction variables, and Halide would then run it once "
            "instead of once per point of the rdom; the translation adds `{} * 0` to its value",
            h.name, stage, u.rdom[0].name.text));
      }
      if (u.predicate) {
        HlExpr p = to_bool(translate_expr(u.predicate, sc, cx_));
        if (st.rdom) {
          st.where = std::move(p);
        } else {
          // No RDom to carry the predicate: UPDATE-EVAL's strict select, the stage
          // writing back the old value where the predicate is false.
          HlExpr self;
          self.kind = HlExpr::Kind::Call;
          self.name = h.name;
          self.type = h.type;
          self.args = st.lhs;
          HlExpr sel;
          sel.kind = HlExpr::Kind::Select;
          sel.type = h.type;
          sel.args = {std::move(p), std::move(st.value), std::move(self)};
          st.value = std::move(sel);
          plan_.notes.push_back(fmt::format(
              "{} stage {}: a predicate without reduction variables has no RDom::where; it is translated as "
              "select(predicate, value, {}(lhs)), which stores the old value where the predicate is false",
              h.name, stage, h.name));
        }
      }
      h.stages.push_back(std::move(st));
    }
    return h;
  }

  // bound and bound_extent: halo chooses the region f is *computed* on (in each iteration of
  // the loop f is computed at); Halide's bound the region f is *realized* on (its storage,
  // SEMANTICS.md; Func::bound_extent: "the extent of a Func's realization"). The two agree
  // when f is stored where it is computed; when f is stored further out, Halide checks the
  // bound against the region all iterations need together, which halo does not ask for.
  void check_bounds_at_storage() {
    if (!prog_.schedule) return;
    std::map<std::string, std::string> compute, store;  // func -> "g.v", absent: root
    for (const Directive& d : *prog_.schedule) {
      std::string at = d.loop.func.text + "." + d.loop.var.text;
      if (d.kind == DirectiveKind::ComputeAt) compute[d.func.text] = at;
      if (d.kind == DirectiveKind::StoreAt) store[d.func.text] = at;
    }
    for (const Directive& d : *prog_.schedule) {
      if (d.kind != DirectiveKind::Bound && d.kind != DirectiveKind::BoundExtent) continue;
      const std::string& f = d.func.text;
      std::string c = compute.count(f) ? compute[f] : "root", s = store.count(f) ? store[f] : "root";
      if (c != s)
        throw NotExpressible{fmt::format(
            "{}: halo bounds the region {} is computed on in each iteration of loop {}, Halide's bound applies to "
            "the region it is stored on (at {}), which all those iterations share",
            print_directive(d), f, c, s)};
    }
  }

  std::vector<LoopState>& stage_loops(const LoopName& l) {
    auto it = loops_.find(StageKey{l.func.text, l.spec, l.stage});
    if (it == loops_.end())
      throw std::logic_error(fmt::format("halide translation: no stage {} (program not validated?)",
                                         print_loop_name(l)));
    return it->second;
  }

  size_t loop_index(const std::vector<LoopState>& ls, const LoopName& l) {
    for (size_t k = 0; k < ls.size(); ++k)
      if (ls[k].loop.name == l.var.text) return k;
    throw std::logic_error(fmt::format("halide translation: no loop {} (schedule not validated?)",
                                       print_loop_name(l)));
  }

  HlStageRef ref(const LoopName& l) { return HlStageRef{l.func.text, l.spec, l.stage}; }

  // A named rfactor's intermediate func, and the loops its stages and the factored stage
  // have afterwards, as Halide's Stage::rfactor builds them (Func.cpp, v19 and v21): the
  // intermediate's pure stage loops over f's variables, then u; its update keeps the
  // stage's loops with r replaced by u; the factored stage keeps r and its pure loops (the
  // other reduction loops now run in the intermediate). Halide 14 builds them otherwise;
  // where that makes a later call name a loop Halide does not have, Halide refuses the
  // schedule (not_expressible for that version).
  void intermediate(const Directive& d, std::vector<LoopState>& ls, size_t k, const HlLoop& u, HlCall& c) {
    const std::string& name = d.names[1].text;
    c.func = name;
    const HlFunc* f = plan_.find(d.loop.func.text);
    if (!f) throw std::logic_error("halide translation: rfactor of an unknown func");
    std::vector<LoopState> pure;
    for (const std::string& v : f->vars) pure.push_back({HlLoop{v, false, -1, ""}, Traversal::Serial});
    pure.push_back({u, Traversal::Serial});
    std::vector<LoopState> update = ls;
    update[k] = {u, Traversal::Serial};
    loops_[StageKey{name, 0, 0}] = std::move(pure);
    loops_[StageKey{name, 0, 1}] = std::move(update);
    LoopState r = ls[k];
    std::erase_if(ls, [&](const LoopState& s) { return s.loop.rvar && s.loop.name != r.loop.name; });
    factored_.insert(StageKey{d.loop.func.text, d.loop.spec, d.loop.stage});
  }
  // The stages a named rfactor factored: the formal side still has the loops that moved.
  std::set<StageKey> factored_;

  HlExpr startup(const Expr& e) { return translate_expr(e, params_, cx_); }

  void push(HlCall c, const Directive& d) {
    c.origin = print_directive(d);
    plan_.schedule.push_back(std::move(c));
  }

  // A func Halide's own call makes (a named rfactor's intermediate, a wrapper) gets the
  // thesis's default placement in the plain `schedule { }`, as every func does: the root,
  // unless the schedule places it (its compute_at and store_at come later).
  void place_at_root_by_default(const std::string& f, const Directive& d) {
    if (plan_.halide_mode) return;
    for (HlCall::Kind k : {HlCall::Kind::ComputeRoot, HlCall::Kind::StoreRoot}) {
      HlCall r;
      r.kind = k;
      r.func = f;
      push(std::move(r), d);
    }
  }

  // Specializations whose condition equals an earlier one's: Halide's Stage::specialize
  // returns the existing specialization for an equal condition, and in §2.8.1's chain of
  // ifs the later copy never runs. (func, k) -> the earlier j.
  std::map<std::pair<std::string, int64_t>, int64_t> same_specialization_;

  static bool names_loop(DirectiveKind k) {
    return k == DirectiveKind::Split || k == DirectiveKind::Fuse || k == DirectiveKind::Swap ||
           k == DirectiveKind::Traverse || k == DirectiveKind::ComputeAt || k == DirectiveKind::StoreAt ||
           k == DirectiveKind::Rfactor || k == DirectiveKind::ComputeWith || k == DirectiveKind::HoistStorage ||
           k == DirectiveKind::Prefetch || k == DirectiveKind::Partition;
  }

  // A directive on an rfactor intermediate is Halide's alone, so no formal rule has checked
  // its loops: they must exist after the rfactor (the intermediate's, or the factored
  // stage's without the reduction loops that moved into the intermediate).
  void check_intermediate_loops(const Directive& d) {
    auto check = [&](const LoopName& l) {
      auto it = loops_.find(StageKey{l.func.text, l.spec == LoopName::kEverySpec ? 0 : l.spec, l.stage});
      std::vector<std::string> names;
      if (it != loops_.end())
        for (const LoopState& s : it->second) {
          if (s.loop.name == l.var.text) return;
          names.push_back(s.loop.name);
        }
      throw InputError(Diagnostic{
          prog_.file, l.loc.line ? l.loc : d.loc,
          it == loops_.end()
              ? fmt::format("{}: {} has no stage {} (an rfactor intermediate has a pure stage 0 and one update, 1; "
                            "a wrapper only its pure stage 0)",
                            print_directive(d), l.func.text, l.stage)
              : fmt::format("{}: <{}, {}, {}> has no loop '{}' (its loops, innermost first: {})", print_directive(d),
                            l.func.text, l.spec, l.stage, l.var.text, fmt::join(names, ", "))});
    };
    check(d.loop);
  }

  // Halide names the variables of an implicit pure definition itself (_0, _1, ...): a
  // directive on that stage's loops or on the func's variables names nothing Halide has.
  void check_not_implicit_pure_stage(const Directive& d) {
    auto implicit = [&](const std::string& f) {
      const FuncDef* fd = prog_.pipeline.find(f);
      return fd && fd->implicit_pure;
    };
    bool on_stage0 = names_loop(d.kind) && d.loop.stage == 0 && implicit(d.loop.func.text);
    bool on_vars = (d.kind == DirectiveKind::Bound || d.kind == DirectiveKind::BoundExtent ||
                    d.kind == DirectiveKind::AlignBounds || d.kind == DirectiveKind::FoldStorage ||
                    d.kind == DirectiveKind::ReorderStorage || d.kind == DirectiveKind::AlignStorage ||
                    d.kind == DirectiveKind::BoundStorage || d.kind == DirectiveKind::AlignExtent) &&
                   implicit(d.func.text);
    if (on_stage0 || on_vars)
      throw NotExpressible{fmt::format("{}: {} has Halide's implicit pure definition, whose variables Halide names "
                                       "itself (_0, _1, ...); halo does not translate a directive on them",
                                       print_directive(d), on_stage0 ? d.loop.func.text : d.func.text)};
  }

  // rfactor and atomic let Halide evaluate a reduction in another order (partial results
  // combined, vector lanes reduced): Halide requires the reduction to be associative, and
  // treats float + and * as if they were (AssociativeOpsTable.cpp), which IEEE rounding is
  // not (nor min and max with a NaN). halo does not judge such a case bit for bit
  // (docs/floats.md, "Against Halide").
  void refuse_float_reassociation(const Directive& d, const std::string& func) const {
    for (const FuncDef& f : prog_.pipeline.funcs)
      if (f.name.text == func && f.type.is_float())
        throw NotExpressible{fmt::format("{}: {} reduces floats, which Halide reorders under rfactor and atomic as if "
                                         "float arithmetic were associative; halo does not judge a reordered float "
                                         "reduction bit for bit",
                                         print_directive(d), func)};
  }

  void translate_directive(const Directive& d) {
    check_not_implicit_pure_stage(d);
    if (d.on_intermediate ||
        (names_loop(d.kind) && factored_.count(StageKey{d.loop.func.text, d.loop.spec, d.loop.stage})))
      check_intermediate_loops(d);
    if (names_loop(d.kind) && d.loop.spec != 0) {
      auto same = same_specialization_.find({d.loop.func.text, d.loop.spec});
      if (same != same_specialization_.end()) {
        if (d.kind == DirectiveKind::ComputeAt || d.kind == DirectiveKind::StoreAt)
          throw NotExpressible{fmt::format(
              "{}: specialization {} of {} has the same condition as specialization {}, which Halide merges into "
              "one; a LoopLevel inside it names the loop of specialization {}",
              print_directive(d), d.loop.spec, d.loop.func.text, same->second, same->second)};
        plan_.notes.push_back(fmt::format(
            "{}: specialization {} of {} has the same condition as specialization {} and never runs (the first "
            "condition that holds wins); Halide merges equal conditions into one specialization, so this "
            "directive, which schedules the copy that never runs, is not translated",
            print_directive(d), d.loop.spec, d.loop.func.text, same->second));
        return;
      }
    }
    if (is_tvm_only(d.kind))
      throw NotExpressible{fmt::format("{}: one of TVM's own schedule primitives, which Halide does not have",
                                       print_directive(d))};
    HlCall c;
    switch (d.kind) {
      case DirectiveKind::Specialize: {
        // §2.8.1 copies the whole computation of f behind the conditions; Halide
        // specializes stage by stage, so every stage gets the same conditions, in order
        // (Halide takes the first that holds, as the `if` chain does).
        const FuncDef* f = prog_.pipeline.find(d.func.text);
        std::vector<std::string> conditions;
        for (size_t k = 0; k < d.exprs.size(); ++k) {
          std::string text = hl_expr_cpp(to_bool(startup(d.exprs[k])));
          auto earlier = std::find(conditions.begin(), conditions.end(), text);
          if (earlier != conditions.end())
            same_specialization_[{f->name.text, int64_t(k + 1)}] = int64_t(earlier - conditions.begin()) + 1;
          conditions.push_back(text);
        }
        for (int64_t stage = 0; stage < int64_t(f->stage_count()); ++stage) {
          const auto& base = loops_[StageKey{f->name.text, 0, stage}];
          for (size_t k = 0; k < d.exprs.size(); ++k) {
            if (same_specialization_.count({f->name.text, int64_t(k + 1)})) continue;
            HlCall s;
            s.kind = HlCall::Kind::Specialize;
            s.stage = HlStageRef{f->name.text, 0, stage};
            s.result = HlStageRef{f->name.text, int64_t(k + 1), stage};
            s.exprs.push_back(to_bool(startup(d.exprs[k])));
            loops_[StageKey{f->name.text, int64_t(k + 1), stage}] = base;
            push(std::move(s), d);
          }
        }
        return;
      }
      case DirectiveKind::Split: {
        auto& ls = stage_loops(d.loop);
        size_t k = loop_index(ls, d.loop);
        LoopState old = ls[k];
        HlLoop outer{d.names[0].text, old.loop.rvar, -1, ""}, inner{d.names[1].text, old.loop.rvar, -1, ""};
        c.kind = HlCall::Kind::Split;
        c.stage = ref(d.loop);
        c.loops = {old.loop, outer, inner};
        c.exprs.push_back(integer(startup(d.exprs[0])));
        c.tail = d.tail_auto ? TailStrategy::Auto : d.tail;  // Halide resolves `auto` itself
        ls[k] = {inner, Traversal::Serial};
        ls.insert(ls.begin() + long(k) + 1, LoopState{outer, Traversal::Serial});
        push(std::move(c), d);
        return;
      }
      case DirectiveKind::Fuse: {
        auto& ls = stage_loops(d.loop);
        size_t k = loop_index(ls, d.loop);
        if (k == 0) throw std::logic_error("halide translation: fuse of an innermost loop");
        LoopState a = ls[k], b = ls[k - 1];
        // Halide's fused loop is an RVar when either loop is one (Stage::fuse refuses a Var).
        HlLoop fused{d.names[0].text, a.loop.rvar || b.loop.rvar, -1, ""};
        c.kind = HlCall::Kind::Fuse;
        c.stage = ref(d.loop);
        c.loops = {b.loop, a.loop, fused};
        push(c, d);
        ls.erase(ls.begin() + long(k));
        ls[k - 1] = {fused, Traversal::Serial};
        // Halide's fused loop inherits the inner loop's type; halo's is serial.
        if (b.order != Traversal::Serial) {
          HlCall s;
          s.kind = HlCall::Kind::Serial;
          s.stage = ref(d.loop);
          s.loops = {fused};
          push(std::move(s), d);
        }
        return;
      }
      case DirectiveKind::Swap: {
        auto& ls = stage_loops(d.loop);
        size_t k = loop_index(ls, d.loop);
        if (k == 0) throw std::logic_error("halide translation: swap of an innermost loop");
        c.kind = HlCall::Kind::Reorder;
        c.stage = ref(d.loop);
        c.loops = {ls[k].loop, ls[k - 1].loop};  // the named loop becomes the inner one
        std::swap(ls[k], ls[k - 1]);
        if (!d.halide_implicit) push(std::move(c), d);  // else the fuse after it does it in Halide
        return;
      }
      case DirectiveKind::Traverse: {
        auto& ls = stage_loops(d.loop);
        size_t k = loop_index(ls, d.loop);
        ls[k].order = d.order;
        c.kind = d.order == Traversal::Parallel     ? HlCall::Kind::Parallel
                 : d.order == Traversal::Vectorized ? HlCall::Kind::Vectorize
                 : d.order == Traversal::Unrolled   ? HlCall::Kind::Unroll
                                                    : HlCall::Kind::Serial;
        c.stage = ref(d.loop);
        c.loops = {ls[k].loop};
        push(std::move(c), d);
        return;
      }
      case DirectiveKind::ComputeAt:
      case DirectiveKind::StoreAt: {
        // <g, *, i, v> is what a Halide LoopLevel means in a specialized consumer: the loop v
        // of every specialization. Its fallback copy (0) names the same variable.
        LoopName at = d.loop;
        if (at.spec == LoopName::kEverySpec) at.spec = 0;
        auto& ls = stage_loops(at);
        size_t k = loop_index(ls, at);
        c.kind = d.kind == DirectiveKind::ComputeAt ? HlCall::Kind::ComputeAt : HlCall::Kind::StoreAt;
        c.func = d.func.text;
        c.at = ref(at);
        c.loops = {ls[k].loop};
        const FuncDef* consumer = prog_.pipeline.find(d.loop.func.text);
        if (consumer && consumer->stage_count() > 1)
          plan_.notes.push_back(fmt::format(
              "{}: Halide 14 rejects a LoopLevel with an explicit stage index (TARGETS.md), so this is "
              "LoopLevel({}, {}), which Halide resolves in every stage of {} that uses {}; Lemma 2.5 (dominance) "
              "lets only stage {} use it, so the two places coincide",
              print_directive(d), d.loop.func.text, d.loop.var.text, d.loop.func.text, d.func.text, d.loop.stage));
        if (d.loop.spec != 0 && d.loop.spec != LoopName::kEverySpec)
          plan_.notes.push_back(fmt::format(
              "{}: a Halide LoopLevel cannot name a specialization; it names loop {} in every specialization "
              "of {} that has it",
              print_directive(d), d.loop.var.text, d.loop.func.text));
        push(std::move(c), d);
        return;
      }
      case DirectiveKind::Rfactor: {
        refuse_float_reassociation(d, d.loop.func.text);
        auto& ls = stage_loops(d.loop);
        size_t k = loop_index(ls, d.loop);
        if (d.loop.stage == 0 || !ls[k].loop.rvar)
          throw InputError(Diagnostic{prog_.file, d.loc,
                                      fmt::format("rfactor names loop {}, which is not a reduction loop of an update "
                                                  "stage (Halide's rfactor(r, v) makes the reduction variable r pure)",
                                                  print_loop_name(d.loop))});
        c.kind = HlCall::Kind::Rfactor;
        c.stage = ref(d.loop);
        HlLoop u{d.names[0].text, false, -1, ""};
        c.loops = {ls[k].loop, u};
        if (d.names.size() > 1) intermediate(d, ls, k, u, c);
        push(std::move(c), d);
        if (d.names.size() > 1) place_at_root_by_default(d.names[1].text, d);
        return;
      }
      case DirectiveKind::ComputeWith: {
        // Halide fuses the two stages' loops from the outermost down to the named ones, so
        // they must be at the same depth.
        auto& mine = stage_loops(d.loop);
        auto& theirs = stage_loops(d.with);
        size_t depth = mine.size() - 1 - loop_index(mine, d.loop), with = theirs.size() - 1 - loop_index(theirs, d.with);
        if (depth != with)
          throw InputError(Diagnostic{
              prog_.file, d.loc,
              fmt::format("compute_with fuses the loops of both stages from the outermost down to the named ones, "
                          "which must be at the same depth: {} is loop {} from the outside, {} is loop {}",
                          print_loop_name(d.loop), depth + 1, print_loop_name(d.with), with + 1)});
        c.kind = HlCall::Kind::ComputeWith;
        c.stage = ref(d.loop);
        c.at = ref(d.with);
        c.loops = {theirs[theirs.size() - 1 - with].loop};
        push(std::move(c), d);
        return;
      }
      case DirectiveKind::FoldStorage:
        c.kind = HlCall::Kind::FoldStorage;
        c.func = d.func.text;
        c.loops = {HlLoop{d.names[0].text, false, -1, ""}};
        c.exprs = {integer(startup(d.exprs[0]))};
        push(std::move(c), d);
        return;
      case DirectiveKind::ComputeInline: return;  // no call: Halide inlines by default (above)
      case DirectiveKind::Async:
        c.kind = HlCall::Kind::Async;
        c.func = d.func.text;
        push(std::move(c), d);
        return;
      case DirectiveKind::HoistStorage: {
        auto& ls = stage_loops(d.loop);
        c.kind = HlCall::Kind::HoistStorage;
        c.func = d.func.text;
        c.at = ref(d.loop);
        c.loops = {ls[loop_index(ls, d.loop)].loop};
        push(std::move(c), d);
        return;
      }
      case DirectiveKind::Atomic: {
        refuse_float_reassociation(d, d.loop.func.text);
        if (!loops_.count(StageKey{d.loop.func.text, d.loop.spec, d.loop.stage}) || d.loop.stage == 0)
          throw InputError(Diagnostic{prog_.file, d.loc,
                                      fmt::format("atomic applies to an update stage <{}, j, i> with i >= 1, and {} "
                                                  "has no such stage <{}, {}, {}>",
                                                  d.loop.func.text, d.loop.func.text, d.loop.func.text, d.loop.spec,
                                                  d.loop.stage)});
        c.kind = HlCall::Kind::Atomic;
        c.stage = ref(d.loop);
        push(std::move(c), d);
        return;
      }
      case DirectiveKind::Prefetch: {
        auto& ls = stage_loops(d.loop);
        LoopName from = d.loop;
        from.var = d.names[0];
        size_t at = loop_index(ls, d.loop), k = ls.size();
        for (size_t i = 0; i < ls.size(); ++i)
          if (ls[i].loop.name == from.var.text) k = i;
        if (k == ls.size())
          throw InputError(Diagnostic{prog_.file, d.names[0].loc,
                                      fmt::format("prefetch: stage <{}, {}, {}> has no loop '{}' to prefetch from",
                                                  d.loop.func.text, d.loop.spec, d.loop.stage, from.var.text)});
        c.kind = HlCall::Kind::Prefetch;
        c.stage = ref(d.loop);
        c.func = d.func.text;
        c.of_input = prog_.pipeline.find_input(d.func.text) != nullptr;
        c.loops = {ls[at].loop, ls[k].loop};
        c.exprs = {integer(startup(d.exprs[0]))};
        push(std::move(c), d);
        return;
      }
      case DirectiveKind::Memoize:
      case DirectiveKind::HoistStorageRoot:
        c.kind = d.kind == DirectiveKind::Memoize ? HlCall::Kind::Memoize : HlCall::Kind::HoistStorageRoot;
        c.func = d.func.text;
        push(std::move(c), d);
        return;
      case DirectiveKind::StoreIn:
        c.kind = HlCall::Kind::StoreIn;
        c.func = d.func.text;
        c.text = d.names[0].text;
        push(std::move(c), d);
        return;
      case DirectiveKind::ReorderStorage:
      case DirectiveKind::AlignStorage:
      case DirectiveKind::BoundStorage:
      case DirectiveKind::AlignExtent:
      case DirectiveKind::RingBuffer:
        c.kind = d.kind == DirectiveKind::ReorderStorage ? HlCall::Kind::ReorderStorage
                 : d.kind == DirectiveKind::AlignStorage ? HlCall::Kind::AlignStorage
                 : d.kind == DirectiveKind::BoundStorage ? HlCall::Kind::BoundStorage
                 : d.kind == DirectiveKind::AlignExtent  ? HlCall::Kind::AlignExtent
                                                         : HlCall::Kind::RingBuffer;
        c.func = d.func.text;
        for (const Name& n : d.names) c.loops.push_back(HlLoop{n.text, false, -1, ""});
        for (const Expr& e : d.exprs) c.exprs.push_back(integer(startup(e)));
        push(std::move(c), d);
        return;
      case DirectiveKind::Partition: {
        auto& ls = stage_loops(d.loop);
        c.kind = HlCall::Kind::Partition;
        c.stage = ref(d.loop);
        c.loops = {ls[loop_index(ls, d.loop)].loop};
        c.text = d.names[0].text;
        push(std::move(c), d);
        return;
      }
      case DirectiveKind::Unscheduled:
      case DirectiveKind::AllowRaceConditions:
        if (!loops_.count(StageKey{d.loop.func.text, d.loop.spec, d.loop.stage}))
          throw InputError(Diagnostic{prog_.file, d.loc,
                                      fmt::format("{}: {} has no stage <{}, {}, {}>", directive_name(d.kind),
                                                  d.loop.func.text, d.loop.func.text, d.loop.spec, d.loop.stage)});
        c.kind = d.kind == DirectiveKind::Unscheduled ? HlCall::Kind::Unscheduled : HlCall::Kind::AllowRaceConditions;
        c.stage = ref(d.loop);
        push(std::move(c), d);
        return;
      case DirectiveKind::In:
      case DirectiveKind::CloneIn: {
        // The wrapper w(vars) = f(vars) has one pure stage over f's variables (Function::args;
        // Func.cpp, create_clone_wrapper and the in() wrappers), which later directives name.
        const HlFunc* f = plan_.find(d.func.text);
        const FuncDef* fd = prog_.pipeline.find(d.func.text);
        if (!f || !fd) throw std::logic_error("halide translation: a wrapper of an unknown func");
        if (fd->implicit_pure)
          throw NotExpressible{fmt::format("{}: {} has Halide's implicit pure definition, whose variables Halide "
                                           "names itself; halo does not translate a wrapper of it",
                                           print_directive(d), d.func.text)};
        c.kind = d.kind == DirectiveKind::In ? HlCall::Kind::In : HlCall::Kind::CloneIn;
        c.func = d.func.text;
        c.text = d.names.back().text;
        for (size_t k = 0; k + 1 < d.names.size(); ++k) c.consumers.push_back(d.names[k].text);
        std::vector<LoopState> pure;
        for (const std::string& v : f->vars) pure.push_back({HlLoop{v, false, -1, ""}, Traversal::Serial});
        loops_[StageKey{c.text, 0, 0}] = std::move(pure);
        std::string wrapper = c.text;
        push(std::move(c), d);
        place_at_root_by_default(wrapper, d);
        return;
      }
      case DirectiveKind::SpecializeFail: {
        // The default of every stage's chain of specializations fails, as the default copy
        // of §2.8.1's chain would (each stage is specialized on the same conditions, above).
        const FuncDef* f = prog_.pipeline.find(d.func.text);
        for (int64_t stage = 0; stage < int64_t(f->stage_count()); ++stage) {
          HlCall s;
          s.kind = HlCall::Kind::SpecializeFail;
          s.stage = HlStageRef{f->name.text, 0, stage};
          s.text = d.message;
          push(std::move(s), d);
        }
        return;
      }
      case DirectiveKind::Bound:
      case DirectiveKind::BoundExtent:
      case DirectiveKind::AlignBounds: {
        c.kind = d.kind == DirectiveKind::Bound         ? HlCall::Kind::Bound
                 : d.kind == DirectiveKind::BoundExtent ? HlCall::Kind::BoundExtent
                                                        : HlCall::Kind::AlignBounds;
        c.func = d.func.text;
        c.loops = {HlLoop{d.names[0].text, false, -1, ""}};
        for (const Expr& e : d.exprs) c.exprs.push_back(integer(startup(e)));
        push(std::move(c), d);
        return;
      }
      case DirectiveKind::TvmReverseComputeAt: case DirectiveKind::TvmReverseComputeInline:
      case DirectiveKind::TvmCacheRead: case DirectiveKind::TvmCacheWrite: case DirectiveKind::TvmDecomposeReduction:
      case DirectiveKind::TvmSplitUnpredicated: case DirectiveKind::TvmBlockize: case DirectiveKind::TvmLoopPartition:
      case DirectiveKind::TvmPadEinsum:
        return;  // refused above
    }
  }
};

}  // namespace

const char* call_kind_name(HlCall::Kind k) {
  switch (k) {
    case HlCall::Kind::ComputeRoot: return "compute_root";
    case HlCall::Kind::StoreRoot: return "store_root";
    case HlCall::Kind::Specialize: return "specialize";
    case HlCall::Kind::Split: return "split";
    case HlCall::Kind::Fuse: return "fuse";
    case HlCall::Kind::Reorder: return "reorder";
    case HlCall::Kind::Parallel: return "parallel";
    case HlCall::Kind::Vectorize: return "vectorize";
    case HlCall::Kind::Unroll: return "unroll";
    case HlCall::Kind::Serial: return "serial";
    case HlCall::Kind::ComputeAt: return "compute_at";
    case HlCall::Kind::StoreAt: return "store_at";
    case HlCall::Kind::Bound: return "bound";
    case HlCall::Kind::BoundExtent: return "bound_extent";
    case HlCall::Kind::AlignBounds: return "align_bounds";
    case HlCall::Kind::Rfactor: return "rfactor";
    case HlCall::Kind::ComputeWith: return "compute_with";
    case HlCall::Kind::FoldStorage: return "fold_storage";
    case HlCall::Kind::Async: return "async";
    case HlCall::Kind::HoistStorage: return "hoist_storage";
    case HlCall::Kind::Atomic: return "atomic";
    case HlCall::Kind::Prefetch: return "prefetch";
    case HlCall::Kind::Memoize: return "memoize";
    case HlCall::Kind::StoreIn: return "store_in";
    case HlCall::Kind::HoistStorageRoot: return "hoist_storage_root";
    case HlCall::Kind::ReorderStorage: return "reorder_storage";
    case HlCall::Kind::AlignStorage: return "align_storage";
    case HlCall::Kind::BoundStorage: return "bound_storage";
    case HlCall::Kind::AlignExtent: return "align_extent";
    case HlCall::Kind::RingBuffer: return "ring_buffer";
    case HlCall::Kind::Partition: return "partition";
    case HlCall::Kind::Unscheduled: return "unscheduled";
    case HlCall::Kind::AllowRaceConditions: return "allow_race_conditions";
    case HlCall::Kind::SpecializeFail: return "specialize_fail";
    case HlCall::Kind::In: return "in";
    case HlCall::Kind::CloneIn: return "clone_in";
  }
  return "?";
}

const HlFunc* HalidePlan::find(const std::string& f) const {
  for (const HlFunc& h : funcs)
    if (h.name == f) return &h;
  return nullptr;
}

std::variant<HalidePlan, TranslationError> translate_to_halide(const Program& prog, const Input& in) {
  try {
    return Translator(prog, in).run();
  } catch (const OutOfModel& e) {
    return TranslationError{e.message, false};
  } catch (const NotExpressible& e) {
    return TranslationError{e.message, true};
  }
}

namespace {
// Halide's own defaults for a generic machine (MachineParams::generic: 16 cores, a 16 MiB
// last-level cache, balance 40), written out so that no version's default or
// HL_MACHINE_PARAMS changes them, and the search of Adams2019 and Anderson2021 without
// random dropout, which makes it deterministic.
const std::map<std::string, std::string> kAutoschedulerParams{
    {"parallelism", "16"}, {"last_level_cache_size", "16777216"}, {"balance", "40"},
    {"beam_size", "32"},   {"random_dropout", "100"}};
}  // namespace

const std::string& autoscheduler_param(const std::string& key) { return kAutoschedulerParams.at(key); }

std::map<std::string, std::string> autoscheduler_params(const std::string& name) {
  std::vector<std::string> keys{"parallelism"};  // the one every autoscheduler takes
  if (name == "Mullapudi2016") keys.insert(keys.end(), {"last_level_cache_size", "balance"});
  if (name == "Adams2019" || name == "Anderson2021") keys.insert(keys.end(), {"beam_size", "random_dropout"});
  std::map<std::string, std::string> p;
  for (const std::string& k : keys) p[k] = autoscheduler_param(k);
  return p;
}

std::string autoscheduler_params_text(const std::string& name) {
  std::string out;
  for (const auto& [k, v] : autoscheduler_params(name)) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

std::string autoscheduler_plugin_file(const std::string& name) {
  return "libautoschedule_" + autoscheduler_plugin_name(name) + ".so";
}

std::string cpp_func(const std::string& f) { return "f_" + f; }
std::string cpp_param(const std::string& p) { return "p_" + p; }
std::string cpp_input(const std::string& in) { return "in_" + in; }
std::string cpp_input_buffer(const std::string& in) { return "buf_" + in; }
std::string cpp_rdom(const std::string& f, int64_t stage) { return fmt::format("r_{}_{}", f, stage); }
std::string cpp_loop(const HlLoop& l) {
  if (l.rdom_dim >= 0) return fmt::format("{}[{}]", l.rdom, l.rdom_dim);
  return (l.rvar ? "rv_" : "v_") + l.name;
}
std::string cpp_stage(const HlStageRef& s) {
  if (s.spec != 0) return fmt::format("s_{}_{}_{}", s.func, s.spec, s.stage);
  if (s.stage == 0) return cpp_func(s.func);
  return fmt::format("{}.update({})", cpp_func(s.func), s.stage - 1);
}

std::string hl_type_cpp(Type t) {
  if (!t.is_typed()) return "Int(32)";
  return t.halide_name();
}

// Halide 19 and later declare the fixed-point intrinsics in namespace Halide, Halide 14 in
// Halide::Internal; the reproducer names them through the alias `fixed_point` its preamble
// defines (emit_cpp.cpp), and the worker through its own (worker/jit.cpp).
bool is_fixed_point_intrinsic(Op op) { return op >= Op::WideningAdd && op <= Op::RoundingMulShiftRight; }

const char* hl_intrinsic_name(Op op) { return op_name(op); }

Value hl_value(Type t, int64_t bits) {
  // A bool buffer's byte is returned as it is: a byte Halide never wrote is not a bool.
  if (t.is_bool() || !t.is_typed()) return Value(bits);
  if (t.is_float())
    return Value::from_float_bits(t.bits(), uint64_t(bits));
  return wrap_to(t, Value(bits));
}

namespace {
bool uses_floats(const HlExpr& e) {
  if (e.type.is_float()) return true;
  for (const HlExpr& a : e.args)
    if (uses_floats(a)) return true;
  return false;
}
}  // namespace

bool plan_uses_floats(const HalidePlan& plan) {
  for (const HlParam& p : plan.params)
    if (p.type.is_float()) return true;
  for (const HlInput& in : plan.inputs)
    if (in.type.is_float()) return true;
  for (const HlFunc& f : plan.funcs) {
    if (f.type.is_float()) return true;
    for (const HlStage& s : f.stages) {
      if (uses_floats(s.value) || (s.where && uses_floats(*s.where)) || (s.compound && uses_floats(*s.compound)))
        return true;
      for (const HlExpr& l : s.lhs)
        if (uses_floats(l)) return true;
    }
  }
  return false;
}

std::string float_literal_cpp(Type t, const Value& v) {
  const char* c = t.bits() == 32 ? "float" : "double";
  if (v.is_nan()) return fmt::format("std::numeric_limits<{}>::quiet_NaN()", c);
  if (std::isinf(v.as_double())) return fmt::format("{}std::numeric_limits<{}>::infinity()", v.as_double() < 0 ? "-" : "", c);
  return t.bits() == 32 ? float_decimal(v) + "f" : float_decimal(v);
}

int64_t hl_bits(const Value& v) {
  if (v.is_float()) return int64_t(v.float_bits());
  return wrap_to(Type::int_(64), v).small();
}

namespace {
std::string const_cpp(const HlExpr& e) {
  if (e.type.is_float()) return fmt::format("Expr({})", float_literal_cpp(e.type, hl_value(e.type, e.value)));
  if (e.type == Type::int_(32)) {
    // Always a Halide Expr: C++ integer arithmetic on two literals would not be Euclidean
    // and would not divide by zero safely.
    if (e.value == std::numeric_limits<int32_t>::min()) return "Expr(INT32_MIN)";
    return fmt::format("Expr({})", e.value);
  }
  std::string v = e.type == Type::uint(64) ? fmt::format("UINT64_C({})", uint64_t(e.value))
                  : e.value == std::numeric_limits<int64_t>::min() ? std::string("INT64_MIN")
                                                                   : fmt::format("INT64_C({})", e.value);
  return fmt::format("Internal::make_const({}, {})", hl_type_cpp(e.type), v);
}
}  // namespace

std::string hl_expr_cpp(const HlExpr& e) {
  auto args = [&] {
    std::vector<std::string> a;
    for (const HlExpr& x : e.args) a.push_back(hl_expr_cpp(x));
    return fmt::format("{}", fmt::join(a, ", "));
  };
  switch (e.kind) {
    case HlExpr::Kind::Const: return const_cpp(e);
    case HlExpr::Kind::Param: return cpp_param(e.name);
    case HlExpr::Kind::Var: return "v_" + e.name;
    case HlExpr::Kind::RVar: return fmt::format("{}[{}]", e.rdom, e.rdom_dim);
    case HlExpr::Kind::Call: return fmt::format("{}({})", cpp_func(e.name), args());
    case HlExpr::Kind::Input: return fmt::format("{}({})", cpp_input(e.name), args());
    case HlExpr::Kind::BufferDim:
      return fmt::format("{}.dim({}).{}()", cpp_input(e.name), e.rdom_dim, e.value == 0 ? "min" : "extent");
    case HlExpr::Kind::Unary: return fmt::format("({}{})", op_name(e.op), hl_expr_cpp(e.args[0]));
    case HlExpr::Kind::Binary:
      if (e.op == Op::Min || e.op == Op::Max) return fmt::format("{}({})", e.op == Op::Min ? "min" : "max", args());
      return fmt::format("({} {} {})", hl_expr_cpp(e.args[0]), op_name(e.op), hl_expr_cpp(e.args[1]));
    case HlExpr::Kind::Select: return fmt::format("select({})", args());
    case HlExpr::Kind::Cast:
      return fmt::format("{}<{}>({})", e.op == Op::Cast ? "cast" : op_name(e.op),
                         e.type.is_typed() ? e.type.c_type() : "int32_t", hl_expr_cpp(e.args[0]));
    case HlExpr::Kind::ToBool: return fmt::format("({} != 0)", hl_expr_cpp(e.args[0]));
    case HlExpr::Kind::Intrinsic:
      return fmt::format("{}{}({})", is_fixed_point_intrinsic(e.op) ? "fixed_point::" : "", hl_intrinsic_name(e.op),
                         args());
  }
  return "?";
}

}  // namespace halo::halide

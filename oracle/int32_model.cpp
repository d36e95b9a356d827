// The Int(32) model check (int32_model.hpp): concrete interval analysis over the regions
// Halide may compute. Intervals are kept on int64_t: in the checking pass every operand has
// already been checked to lie in Int(32), so sums and products of two operands are exact;
// in the demand pass anything beyond Int(32) is widened to "unbounded".
//
// The rules are those of bounds/interval.cpp (β0's I, fig. 2.10b) on concrete numbers, with
// Euclidean division taken at the corners of each sign part of the divisor (it is monotone
// in each argument there) and 0 added when the divisor may be 0 (x / 0 = 0).
#include "oracle/int32_model.hpp"

#include "semantics/printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>

namespace halo {

namespace {

constexpr int64_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr int kMaxFixpointIterations = 2048;

struct Iv {
  int64_t lo = 0, hi = 0;
  bool unbounded = false;
  static Iv all() { return Iv{0, 0, true}; }
  static Iv point(int64_t v) { return Iv{v, v, false}; }
  bool operator==(const Iv& o) const {
    return unbounded == o.unbounded && (unbounded || (lo == o.lo && hi == o.hi));
  }
  bool contains(int64_t v) const { return unbounded || (lo <= v && v <= hi); }
  std::string text() const { return unbounded ? "(-inf, inf)" : fmt::format("[{}, {}]", lo, hi); }
};

Iv hull(const Iv& a, const Iv& b) {
  if (a.unbounded || b.unbounded) return Iv::all();
  return Iv{std::min(a.lo, b.lo), std::max(a.hi, b.hi), false};
}

bool in32(const Iv& v) { return !v.unbounded && v.lo >= kMin32 && v.hi <= kMax32; }

int64_t ediv(int64_t a, int64_t b) {
  int64_t r = 0;
  fast::div(a, b, r);
  return r;
}

struct OutOfModel {
  std::string why;
  bool unbounded_region = false;
};

// The environment of one stage: variable intervals and what a func access yields.
struct Env {
  std::map<std::string, Iv> vars;
  std::function<Iv(const CallNode&)> call;
};

enum class Mode { Demand, Check };

class Analysis {
 public:
  Analysis(const Program& p, const Input& in) : prog_(p), in_(in) {
    for (size_t i = 0; i < p.pipeline.params.size(); ++i) {
      const Value& v = in.params[i];
      params_[p.pipeline.params[i].text] = v.is_small() ? Iv::point(v.small()) : Iv::all();
    }
  }

  Int32ModelResult run(const std::map<std::string, Box>& also) {
    Int32ModelResult r;
    try {
      check_startup();
      if (!demand(also)) return r;  // nothing demanded: nothing computed
      check_values();
    } catch (const OutOfModel& e) {
      r.in_model = false;
      r.unbounded_region = e.unbounded_region;
      r.why = e.why;
    }
    for (const auto& [f, b] : boxes_) {
      Box out;
      for (const Iv& iv : b) out.emplace_back(iv.unbounded ? kMin32 : iv.lo, iv.unbounded ? kMax32 : iv.hi);
      r.boxes[f] = out;
    }
    return r;
  }

 private:
  const Program& prog_;
  const Input& in_;
  std::map<std::string, Iv> params_;
  std::map<std::string, std::vector<Iv>> boxes_;  // demanded region per func
  std::map<std::string, Iv> values_;              // range of every value a func holds

  // ---------------------------------------------------------------- intervals
  Iv eval(const Expr& e, const Env& env, Mode m, const std::string& where) {
    Iv r = eval_node(e, env, m, where);
    if (m == Mode::Demand) return in32(r) ? r : Iv::all();
    if (!in32(r))
      throw OutOfModel{fmt::format("in {}, `{}` ranges over {}, outside Int(32)", where, print_expr(e), r.text())};
    return r;
  }

  Iv eval_node(const Expr& e, const Env& env, Mode m, const std::string& where) {
    switch (e->kind) {
      case ExprKind::Const: {
        const Value& v = as<ConstNode>(e).value;
        return v.is_small() ? Iv::point(v.small()) : Iv::all();
      }
      case ExprKind::Var: {
        auto it = env.vars.find(as<VarNode>(e).name);
        return it == env.vars.end() ? Iv::all() : it->second;
      }
      case ExprKind::Call: {
        for (const Expr& a : as<CallNode>(e).args) eval(a, env, m, where);
        return env.call(as<CallNode>(e));
      }
      case ExprKind::Hole: return Iv::all();
      case ExprKind::Op: break;
    }
    const auto& n = as<OpNode>(e);
    std::vector<Iv> a;
    for (const Expr& x : n.args) a.push_back(eval(x, env, m, where));
    auto bounded = [&] {
      for (const Iv& x : a)
        if (x.unbounded) return false;
      return true;
    };
    switch (n.op) {
      case Op::Lt: case Op::Gt: case Op::Eq: case Op::Le: case Op::Ge: case Op::Ne:
      case Op::And: case Op::Or: case Op::Not:
        return Iv{0, 1, false};
      case Op::Select: return hull(a[1], a[2]);
      case Op::Mod: {
        if (a[1].unbounded) return Iv::all();
        int64_t mag = std::max(std::abs(a[1].lo), std::abs(a[1].hi));
        // INT32_MIN % -1 is 0 in ℤ, but the machine instruction traps: kept out of the model.
        if (m == Mode::Check && a[0].contains(kMin32) && a[1].contains(-1))
          throw OutOfModel{fmt::format("in {}, `{}` may compute {} % -1, which overflows in Int(32) hardware "
                                       "division",
                                       where, print_expr(e), kMin32)};
        return Iv{0, std::max<int64_t>(0, mag - 1), false};
      }
      default: break;
    }
    if (!bounded()) return Iv::all();
    switch (n.op) {
      case Op::Add: return Iv{a[0].lo + a[1].lo, a[0].hi + a[1].hi, false};
      case Op::Sub: return Iv{a[0].lo - a[1].hi, a[0].hi - a[1].lo, false};
      case Op::Neg: return Iv{-a[0].hi, -a[0].lo, false};
      case Op::Mul: {
        int64_t c[4] = {a[0].lo * a[1].lo, a[0].lo * a[1].hi, a[0].hi * a[1].lo, a[0].hi * a[1].hi};
        return Iv{*std::min_element(c, c + 4), *std::max_element(c, c + 4), false};
      }
      case Op::Min: return Iv{std::min(a[0].lo, a[1].lo), std::min(a[0].hi, a[1].hi), false};
      case Op::Max: return Iv{std::max(a[0].lo, a[1].lo), std::max(a[0].hi, a[1].hi), false};
      case Op::Div: {
        // Euclidean division is monotone in each argument on each sign part of the
        // divisor: the extremes are at the corners. A divisor that may be 0 adds 0.
        std::vector<int64_t> vals;
        if (a[1].contains(0)) vals.push_back(0);
        auto part = [&](int64_t lo, int64_t hi) {
          if (lo > hi) return;
          for (int64_t x : {a[0].lo, a[0].hi})
            for (int64_t y : {lo, hi}) vals.push_back(ediv(x, y));
        };
        part(std::max<int64_t>(a[1].lo, 1), a[1].hi);
        part(a[1].lo, std::min<int64_t>(a[1].hi, -1));
        return Iv{*std::min_element(vals.begin(), vals.end()), *std::max_element(vals.begin(), vals.end()), false};
      }
      default: return Iv::all();
    }
  }

  // ---------------------------------------------------------------- startup values
  Env startup_env() {
    Env env;
    env.vars = params_;
    env.call = [](const CallNode&) { return Iv::all(); };
    return env;
  }

  // Rdom bounds, split factors, specialization conditions and bounds directives are
  // computed by Halide at startup: each must fit, and so must min + len of an rdom.
  void check_startup() {
    Env env = startup_env();
    for (const FuncDef& f : prog_.pipeline.funcs)
      for (size_t i = 0; i < f.updates.size(); ++i)
        for (const RVar& r : f.updates[i].rdom) {
          std::string where = fmt::format("the rdom of {} stage {}", f.name.text, i + 1);
          Iv mn = eval(r.min, env, Mode::Check, where), ln = eval(r.len, env, Mode::Check, where);
          if (!in32(Iv{mn.lo + ln.lo, mn.hi + ln.hi, false}))
            throw OutOfModel{fmt::format("in {}, {} + {} leaves Int(32)", where, print_expr(r.min), print_expr(r.len))};
        }
    if (prog_.schedule)
      for (const Directive& d : *prog_.schedule)
        for (const Expr& e : d.exprs) eval(e, env, Mode::Check, print_directive(d));
  }

  // The extent of each reduction variable of a stage, or nullopt when a dimension is
  // empty or negative (the stage then runs no iteration; a negative extent is an error
  // value in the reference, which the oracle handles before asking about Int(32)).
  std::optional<std::vector<std::pair<std::string, Iv>>> rdom_ranges(const UpdateStage& u) {
    Env env = startup_env();
    std::vector<std::pair<std::string, Iv>> out;
    for (const RVar& r : u.rdom) {
      Iv mn = eval(r.min, env, Mode::Demand, "rdom"), ln = eval(r.len, env, Mode::Demand, "rdom");
      if (mn.unbounded || ln.unbounded || mn.lo != mn.hi || ln.lo != ln.hi) return std::nullopt;
      if (ln.lo <= 0) return std::nullopt;
      out.emplace_back(r.name.text, Iv{mn.lo, mn.lo + ln.lo - 1, false});
    }
    return out;
  }

  // ---------------------------------------------------------------- demanded regions
  static void widen(Iv& iv, int64_t below, int64_t above) {
    if (iv.unbounded) return;
    iv.lo -= below;
    iv.hi += above;
    if (!in32(iv)) iv = Iv::all();
  }

  // What the schedule may make Halide compute beyond the demand of f: each split of one of
  // f's loops by e may overcompute e - 1 points on either side (round, or shift on a
  // region shorter than e) in any dimension the loop came from; bound and align_bounds
  // choose the region themselves.
  void widen_for_schedule(const FuncDef& f, std::vector<Iv>& box) {
    if (!prog_.schedule) return;
    Env env = startup_env();
    auto var_dim = [&](const std::string& x) -> int {
      for (size_t k = 0; k < f.vars.size(); ++k)
        if (f.vars[k].text == x) return int(k);
      return -1;
    };
    for (const Directive& d : *prog_.schedule) {
      if (d.kind == DirectiveKind::Split && d.loop.func.text == f.name.text) {
        Iv e = eval(d.exprs[0], env, Mode::Demand, "split");
        int64_t over = e.unbounded ? 0 : std::max<int64_t>(0, e.hi - 1);
        if (e.unbounded) {
          for (Iv& iv : box) iv = Iv::all();
          continue;
        }
        for (Iv& iv : box) widen(iv, over, over);
      }
      if (d.func.text != f.name.text || d.names.empty()) continue;
      int k = var_dim(d.names[0].text);
      if (k < 0 || size_t(k) >= box.size()) continue;
      Iv& iv = box[size_t(k)];
      std::vector<Iv> a;
      for (const Expr& e : d.exprs) a.push_back(eval(e, env, Mode::Demand, "bounds directive"));
      for (const Iv& x : a)
        if (x.unbounded) iv = Iv::all();
      if (iv.unbounded) continue;
      if (d.kind == DirectiveKind::Bound && a.size() == 2) {
        iv = hull(iv, Iv{a[0].lo, a[0].hi + std::max<int64_t>(0, a[1].hi - 1), false});
      } else if (d.kind == DirectiveKind::BoundExtent && !a.empty()) {
        widen(iv, 0, std::max<int64_t>(0, a[0].hi));
      } else if (d.kind == DirectiveKind::AlignBounds && !a.empty()) {
        int64_t m = std::max(std::abs(a[0].lo), std::abs(a[0].hi));
        widen(iv, m, m);
      }
      if (!iv.unbounded && !in32(iv)) iv = Iv::all();
    }
  }

  // Visits every func access of e with the intervals of its arguments.
  void accesses(const Expr& e, const Env& env, const std::function<void(const CallNode&, std::vector<Iv>)>& cb) {
    if (e->kind == ExprKind::Op)
      for (const Expr& a : as<OpNode>(e).args) accesses(a, env, cb);
    if (e->kind != ExprKind::Call) return;
    const auto& c = as<CallNode>(e);
    std::vector<Iv> args;
    for (const Expr& a : c.args) {
      accesses(a, env, cb);
      args.push_back(eval(a, env, Mode::Demand, "index"));
    }
    cb(c, std::move(args));
  }

  static bool grow(std::vector<Iv>& box, const std::vector<Iv>& by) {
    bool changed = false;
    for (size_t k = 0; k < box.size() && k < by.size(); ++k) {
      Iv h = hull(box[k], by[k]);
      if (!(h == box[k])) {
        box[k] = h;
        changed = true;
      }
    }
    return changed;
  }

  Env stage_env(const FuncDef& f, const std::vector<Iv>& box) {
    Env env;
    env.vars = params_;
    for (size_t k = 0; k < f.vars.size(); ++k) env.vars[f.vars[k].text] = box[k];
    env.call = [](const CallNode&) { return Iv::all(); };  // func values: unbounded (fig. 2.10b)
    return env;
  }

  // Backwards from the output window; false when the window is empty.
  bool demand(const std::map<std::string, Box>& also) {
    std::vector<Iv> out;
    for (const Interval& w : in_.window) {
      if (!w.min.is_small() || !w.len.is_small()) return true;
      if (w.len.small() <= 0) return false;
      out.push_back(Iv{w.min.small(), w.min.small() + w.len.small() - 1, false});
    }
    const auto& funcs = prog_.pipeline.funcs;
    boxes_[prog_.pipeline.name.text] = out;
    for (size_t fi = funcs.size(); fi-- > 0;) {
      const FuncDef& f = funcs[fi];
      auto it = boxes_.find(f.name.text);
      if (it == boxes_.end()) continue;
      std::vector<Iv>& box = it->second;
      if (auto a = also.find(f.name.text); a != also.end()) {
        std::vector<Iv> seen;
        for (const auto& [lo, hi] : a->second) seen.push_back(Iv{lo, hi, false});
        grow(box, seen);
      }
      widen_for_schedule(f, box);
      // Scatters and self-reads at other points widen f's own region: to a fixpoint.
      for (int round = 0;; ++round) {
        bool changed = false;
        for (size_t j = 0; j < f.updates.size(); ++j) {
          const UpdateStage& u = f.updates[j];
          auto rr = rdom_ranges(u);
          if (!rr) continue;
          Env env = stage_env(f, box);
          for (const auto& [r, iv] : *rr) env.vars[r] = iv;
          std::vector<Iv> lhs;
          for (const Expr& e : u.lhs) lhs.push_back(eval(e, env, Mode::Demand, "lhs"));
          std::vector<std::vector<Iv>> self;
          auto on_access = [&](const CallNode& c, std::vector<Iv> args) {
            if (c.func == f.name.text) self.push_back(std::move(args));
          };
          for (const Expr& e : u.lhs) accesses(e, env, on_access);
          accesses(u.value, env, on_access);
          if (u.predicate) accesses(u.predicate, env, on_access);
          changed |= grow(box, lhs);
          for (const auto& s : self) changed |= grow(box, s);
        }
        if (!changed) break;
        if (round == 8) {
          for (Iv& iv : box) iv = Iv::all();
          break;
        }
      }
      // f's demand on every other func.
      auto on_access = [&](const CallNode& c, std::vector<Iv> args) {
        if (c.func == f.name.text) return;
        auto [g, fresh] = boxes_.try_emplace(c.func, args);
        if (!fresh) grow(g->second, args);
      };
      Env env0 = stage_env(f, box);
      accesses(f.pure, env0, on_access);
      for (const UpdateStage& u : f.updates) {
        auto rr = rdom_ranges(u);
        if (!rr) continue;
        Env env = stage_env(f, box);
        for (const auto& [r, iv] : *rr) env.vars[r] = iv;
        for (const Expr& e : u.lhs) accesses(e, env, on_access);
        accesses(u.value, env, on_access);
        if (u.predicate) accesses(u.predicate, env, on_access);
      }
    }
    return true;
  }

  // ---------------------------------------------------------------- values
  void check_values() {
    for (const FuncDef& f : prog_.pipeline.funcs) {
      auto it = boxes_.find(f.name.text);
      if (it == boxes_.end()) continue;
      for (const Iv& iv : it->second)
        if (!in32(iv))
          throw OutOfModel{fmt::format("the region of {} that Halide may compute is not bounded inside Int(32) "
                                       "(an index that depends on func values, which bounds inference cannot "
                                       "bound)",
                                       f.name.text),
                           true};
      Env env = stage_env(f, it->second);
      Iv self_values;
      env.call = [&](const CallNode& c) -> Iv {
        if (c.func == f.name.text) return self_values;
        auto v = values_.find(c.func);
        return v == values_.end() ? Iv::all() : v->second;
      };
      self_values = eval(f.pure, env, Mode::Check, fmt::format("the pure stage of {}", f.name.text));
      for (size_t j = 0; j < f.updates.size(); ++j) {
        const UpdateStage& u = f.updates[j];
        auto rr = rdom_ranges(u);
        if (!u.rdom.empty() && !rr) continue;
        Env senv = env;
        int64_t points = 1;
        if (rr)
          for (const auto& [r, iv] : *rr) {
            senv.vars[r] = iv;
            points = std::min<int64_t>(points * (iv.hi - iv.lo + 1), kMaxFixpointIterations + 1);
          }
        std::string where = fmt::format("stage {} of {}", j + 1, f.name.text);
        // A cell's value after the stage is at most `points` updates deep.
        for (int64_t k = 0;; ++k) {
          for (const Expr& e : u.lhs) eval(e, senv, Mode::Check, where);
          if (u.predicate) eval(u.predicate, senv, Mode::Check, where);
          Iv next = hull(self_values, eval(u.value, senv, Mode::Check, where));
          if (next == self_values) break;
          self_values = next;
          if (k + 1 >= points) {
            if (points > kMaxFixpointIterations)
              throw OutOfModel{fmt::format("the values of {} (stage {}) could not be bounded inside Int(32) within "
                                           "{} iterations of interval analysis",
                                           f.name.text, j + 1, kMaxFixpointIterations)};
            break;
          }
        }
      }
      values_[f.name.text] = self_values;
    }
  }
};

}  // namespace

Int32ModelResult check_int32_model(const Program& prog, const Input& in, const std::map<std::string, Box>& also) {
  return Analysis(prog, in).run(also);
}

}  // namespace halo

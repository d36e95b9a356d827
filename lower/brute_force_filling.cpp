// The brute-force completion of brute_force_filling.hpp: an instrumented interpreter of
// Tgt with unbounded sparse buffers, run to a fixpoint of the demand.
#include "lower/brute_force_filling.hpp"

#include "semantics/type_ops.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace halo {

namespace {

struct GiveUp {};  // a budget or representability limit: the caller gets nullopt
struct Stop {};    // a stuck state that ends the run (rdom or assertion failure)

// The hull of a set of integers along one dimension; empty when hi < lo.
struct Hull {
  int64_t lo = 0, hi = -1;
  bool empty() const { return hi < lo; }
  void add(int64_t v) {
    if (empty()) lo = hi = v;
    else lo = std::min(lo, v), hi = std::max(hi, v);
  }
  void add(const Hull& h) {
    if (!h.empty()) add(h.lo), add(h.hi);
  }
  bool operator==(const Hull& o) const { return (empty() && o.empty()) || (lo == o.lo && hi == o.hi); }
};
using Hulls = std::vector<Hull>;  // one per dimension

void add_all(Hulls& into, const Hulls& from) {
  if (into.size() < from.size()) into.resize(from.size());
  for (size_t d = 0; d < from.size(); ++d) into[d].add(from[d]);
}

using Point = std::vector<Value>;
using Buffer = std::unordered_map<Point, Value, PointHash>;
using ReadKey = std::tuple<std::string, int64_t, int64_t>;  // func, label stage, label spec

// What one run touched.
struct Record {
  std::map<ReadKey, Hulls> reads;           // points read, by func-reference label
  std::map<std::string, Hulls> touched;     // points read or written, by func
  std::unordered_map<std::string, Buffer> buffers;
  bool rdom_failure = false, assertion_failure = false, error_in_control = false;
};

int64_t to_int64(const Value& v) {
  if (!v.is_small()) throw GiveUp{};
  return v.small();
}

// Runs a hole-free program as fig. 2.8 does, except that buffers are unbounded (reading a
// point never written gives ε_mem, as ALLOC would) and an error value in control position
// is recorded and skipped rather than stuck, so that one run collects as much demand as it
// can while the intervals are still too small.
class Interpreter {
 public:
  Interpreter(Record& rec, uint64_t& steps, const BruteForceOptions& opt, std::string file, const Input& in)
      : rec_(rec), steps_(steps), opt_(opt), file_(std::move(file)), in_(in) {}

  void bind(const std::string& var, Value v) { env_.emplace_back(var, std::move(v)); }

  void exec(const Stmt& s) {
    if (++steps_ > opt_.max_steps) throw GiveUp{};
    switch (s->kind) {
      case StmtKind::Nop: return;
      case StmtKind::Assert: {
        Value c = eval(as<AssertStmt>(s).cond);
        if (c.is_error()) rec_.error_in_control = true;
        else if (c.is_zero()) {
          rec_.assertion_failure = true;
          throw Stop{};
        }
        return;
      }
      case StmtKind::Seq:
        for (const auto& x : as<SeqStmt>(s).stmts) exec(x);
        return;
      case StmtKind::Allocate: {
        const auto& a = as<AllocateStmt>(s);
        for (const auto& [mn, ln] : a.bounds)
          if (eval(mn).is_error() || eval(ln).is_error()) rec_.error_in_control = true;
        rec_.buffers[a.func].clear();
        // [ALLOC-INPUT] (docs/inputs.md): an input's allocation holds the input buffer's
        // values, so that an index read from an input (a lookup table's) is demand like any
        // other, not ε_mem that no fixpoint can ever reach.
        if (const InputBuffer* b = in_.buffer(a.func)) load_input(a.func, *b);
        return;
      }
      case StmtKind::Store: return exec_store(as<StoreStmt>(s));
      case StmtKind::If: {
        const auto& n = as<IfStmt>(s);
        Value c = eval(n.cond);
        if (c.is_error()) rec_.error_in_control = true;
        else exec(c.is_zero() ? n.else_case : n.then_case);
        return;
      }
      case StmtKind::For: return exec_for(as<ForStmt>(s));
      case StmtKind::Let: {
        const auto& n = as<LetStmt>(s);
        bind(n.var, eval(n.value));
        exec(n.body);
        env_.pop_back();
        return;
      }
      case StmtKind::Label: return exec(as<LabelStmt>(s).body);
    }
  }

 private:
  void load_input(const std::string& name, const InputBuffer& b) {
    auto& buf = rec_.buffers[name];
    for (uint64_t i = 0; i < b.values.size(); ++i) {
      Point p;
      uint64_t rest = i;
      for (const Interval& iv : b.box) {
        uint64_t len = uint64_t(iv.len.small());
        p.emplace_back(iv.min.small() + int64_t(rest % len));
        rest /= len;
      }
      buf[p] = b.values[i];
    }
  }

  void exec_for(const ForStmt& n) {
    Value mn = eval(n.min), ln = eval(n.len);
    if (mn.is_error() || ln.is_error()) {
      rec_.error_in_control = true;
      return;
    }
    if (ln.sign() < 0) {  // Def. 2.12: the machine is stuck here
      rec_.rdom_failure = true;
      throw Stop{};
    }
    int64_t lo = to_int64(mn), len = to_int64(ln);
    int64_t end = 0;
    if (len > opt_.max_extent || __builtin_add_overflow(lo, len, &end)) throw GiveUp{};
    bind(n.binder(), Value(lo));
    for (int64_t v = lo; v < end; ++v) {
      env_.back().second = Value(v);
      exec(n.body);
    }
    env_.pop_back();
  }

  void exec_store(const StoreStmt& n) {
    Value v = eval(n.value);
    std::optional<Point> p = eval_point(n.func, n.args);
    if (!p) return;
    touch(n.func, *p);
    rec_.buffers[n.func][*p] = std::move(v);
  }

  // The coordinates of an access, or nullopt (recorded) when one is an error value.
  std::optional<Point> eval_point(const std::string& func, const std::vector<Expr>& args) {
    Point p;
    for (const auto& a : args) p.push_back(eval(a));
    if (max_error(p)) {
      rec_.error_in_control = true;
      return std::nullopt;
    }
    for (const auto& c : p) to_int64(c);  // gives up beyond 64 bits
    return p;
  }

  void touch(const std::string& func, const Point& p) {
    Hulls& h = rec_.touched[func];
    h.resize(std::max(h.size(), p.size()));
    for (size_t d = 0; d < p.size(); ++d) h[d].add(p[d].small());
  }

  Value eval(const Expr& e) {
    switch (e->kind) {
      case ExprKind::Const: return as<ConstNode>(e).value;
      case ExprKind::Var: {
        const auto& name = as<VarNode>(e).name;
        for (auto it = env_.rbegin(); it != env_.rend(); ++it)
          if (it->first == name) return it->second;
        throw InputError(Diagnostic{file_, e->loc, "variable '" + name + "' is not bound here"});
      }
      case ExprKind::Op: {
        const auto& n = as<OpNode>(e);
        if (int(n.args.size()) != op_arity(n.op))
          throw InputError(Diagnostic{file_, e->loc, std::string("wrong number of operands for ") + op_name(n.op)});
        std::vector<Value> args;
        for (const auto& a : n.args) args.push_back(eval(a));
        return apply_op_node(n, args);
      }
      case ExprKind::Call: {
        const auto& n = as<CallNode>(e);
        std::optional<Point> p = eval_point(n.func, n.args);
        if (!p) return Value::err_mem();  // the machine is stuck; any value will do
        touch(n.func, *p);
        Hulls& h = rec_.reads[ReadKey{n.func, n.label.stage, n.label.spec}];
        h.resize(std::max(h.size(), p->size()));
        for (size_t d = 0; d < p->size(); ++d) h[d].add((*p)[d].small());
        const Buffer& b = rec_.buffers[n.func];
        auto it = b.find(*p);
        return it == b.end() ? Value::err_mem() : it->second;
      }
      case ExprKind::Hole:
        throw InputError(Diagnostic{file_, e->loc, as<HoleNode>(e).label.to_string() +
                                                       " cannot be filled: its func has no allocate naming it"});
    }
    return Value();
  }

  Record& rec_;
  uint64_t& steps_;
  const BruteForceOptions& opt_;
  std::string file_;
  const Input& in_;
  std::vector<std::pair<std::string, Value>> env_;
};

// The shape of the program's holes: each func's dimension names (from the mem holes of
// its allocate; "" where a bound is not a hole), its cpu holes (by min label) and its
// last stage (the highest store label).
struct Shape {
  std::string file;
  std::map<std::string, std::vector<std::string>> dims;
  std::set<HoleLabel> cpu;
  std::map<std::string, int64_t> last_stage;
};

Shape shape_of(const TgtProgram& t) {
  struct Walker : StmtVisitor {
    Shape s;
    void visit_expr(const Expr& e) override {
      struct Holes : ExprVisitor {
        Shape& s;
        explicit Holes(Shape& sh) : s(sh) {}
        void visit_hole(const HoleNode& h) override {
          if (h.label.kind == HoleKind::Cpu && !h.label.is_len) s.cpu.insert(h.label);
        }
      } holes(s);
      holes.visit(e);
    }
    void visit_allocate(const AllocateStmt& a) override {
      auto& d = s.dims[a.func];
      d.clear();
      for (const auto& b : a.bounds) {
        d.push_back(b.first->kind == ExprKind::Hole ? as<HoleNode>(b.first).label.var : std::string());
      }
      StmtVisitor::visit_allocate(a);
    }
    void visit_store(const StoreStmt& st) override {
      auto [it, fresh] = s.last_stage.emplace(st.func, st.label.stage);
      if (!fresh) it->second = std::max(it->second, st.label.stage);
      StmtVisitor::visit_store(st);
    }
  } w;
  w.s.file = t.file;
  w.visit(t.body);
  return w.s;
}

size_t dim_index(const Shape& sh, const std::string& f, const std::string& x) {
  auto it = sh.dims.find(f);
  if (it != sh.dims.end())
    if (auto pos = std::find(it->second.begin(), it->second.end(), x); pos != it->second.end())
      return size_t(pos - it->second.begin());
  throw InputError(Diagnostic{sh.file, {}, fmt::format("cannot tell which dimension of {} a hole on {} bounds: no "
                                                       "allocate of {} has the hole ?mem<{}, {}>",
                                                       f, x, f, f, x)});
}

// The demand on stage `stage` (specialization `spec`) of f, per dimension: see the header.
Hulls demand(const Shape& sh, const Record& rec, const TgtProgram& t, const Input& in, const std::string& f,
             int64_t spec, int64_t stage) {
  auto reads = [&](int64_t st, int64_t sp) {
    auto it = rec.reads.find(ReadKey{f, st, sp});
    return it == rec.reads.end() ? Hulls{} : it->second;
  };
  auto ls = sh.last_stage.find(f);
  int64_t last = ls == sh.last_stage.end() ? stage : ls->second;
  if (stage < last) {
    Hulls h = reads(stage, spec);
    add_all(h, demand(sh, rec, t, in, f, spec, stage + 1));
    return h;
  }
  Hulls h = reads(last, FuncLabel::kShared);
  if (f == t.name) {
    Hulls w(in.window.size());
    bool empty = false;
    for (size_t d = 0; d < in.window.size(); ++d) {
      int64_t mn = to_int64(in.window[d].min), ln = to_int64(in.window[d].len), hi = 0;
      if (ln <= 0) empty = true;
      else if (__builtin_add_overflow(mn, ln - 1, &hi)) throw GiveUp{};
      else w[d].add(mn), w[d].add(hi);
    }
    if (!empty) add_all(h, w);
  }
  return h;
}

// (min, len) of a hull widened by the caller's margin; empty hulls stay (0, 0).
std::pair<int64_t, int64_t> widened(Hull h, const HoleLabel& min_label, const BruteForceOptions& opt) {
  if (h.empty()) return {0, 0};
  __int128 lo = h.lo, hi = h.hi;  // coordinates may be anywhere in int64: no overflow here
  if (opt.margin) {
    auto [below, above] = opt.margin(min_label);
    lo -= below, hi += above;
  }
  if (hi - lo + 1 > opt.max_extent || lo < INT64_MIN / 2 || hi > INT64_MAX / 2) throw GiveUp{};
  return {int64_t(lo), int64_t(hi - lo + 1)};
}

void set_interval(HoleFilling& g, HoleLabel min_label, std::pair<int64_t, int64_t> iv) {
  g[min_label] = make_const(Value(iv.first));
  min_label.is_len = true;
  g[min_label] = make_const(Value(iv.second));
}

}  // namespace

std::optional<BruteForceFilling> brute_force_filling(const TgtProgram& t, const Input& in,
                                                     const BruteForceOptions& opt) {
  try {
    Shape sh = shape_of(t);
    std::map<HoleLabel, Hull> cpu;  // by min label; all start empty
    for (const auto& h : sh.cpu) cpu[h];
    uint64_t steps = 0;
    for (int round = 1; round <= opt.max_rounds; ++round) {
      HoleFilling g;
      for (const auto& [f, dims] : sh.dims)
        for (const auto& x : dims) set_interval(g, HoleLabel{HoleKind::Mem, false, f, x, FuncLabel::kNone, FuncLabel::kNone}, {0, 0});
      for (const auto& [h, hull] : cpu) set_interval(g, h, widened(hull, h, opt));

      Record rec;
      Interpreter run(rec, steps, opt, t.file, in);
      for (const auto& [name, v] : realize_bindings(t, in)) run.bind(name, v);
      try {
        run.exec(fill_holes(t, g).body);
      } catch (const Stop&) {
      }

      bool changed = false;
      for (auto& [h, hull] : cpu) {
        Hulls d = demand(sh, rec, t, in, h.func, h.spec, h.stage);
        size_t k = dim_index(sh, h.func, h.var);
        Hull grown = hull;
        if (k < d.size()) grown.add(d[k]);
        changed |= !(grown == hull);
        hull = grown;
      }
      if (changed) continue;

      // The fixpoint: allocate everything the last run touched and every compute interval.
      BruteForceFilling out;
      out.rounds = round;
      out.rdom_failure = rec.rdom_failure;
      out.assertion_failure = rec.assertion_failure;
      out.error_in_control = rec.error_in_control;
      for (const auto& [h, hull] : cpu) set_interval(out.filling, h, widened(hull, h, opt));
      for (const auto& [f, dims] : sh.dims) {
        Hulls mem = rec.touched[f];
        mem.resize(dims.size());
        for (const auto& [h, hull] : cpu) {
          if (h.func != f || hull.empty()) continue;
          auto [mn, ln] = widened(hull, h, opt);
          Hull& m = mem[dim_index(sh, f, h.var)];
          m.add(mn), m.add(mn + ln - 1);
        }
        if (f == t.name) {
          auto ls = sh.last_stage.find(f);
          add_all(mem, demand(sh, Record{}, t, in, f, FuncLabel::kShared, ls == sh.last_stage.end() ? 0 : ls->second));
        }
        for (size_t d = 0; d < dims.size(); ++d) {
          if (dims[d].empty()) continue;  // a bound written as an expression: nothing to fill
          HoleLabel ml{HoleKind::Mem, false, f, dims[d], FuncLabel::kNone, FuncLabel::kNone};
          set_interval(out.filling, ml, widened(mem[d], ml, opt));
        }
      }
      out.output.func = t.name;
      out.output.window = in.window;
      const Buffer& b = rec.buffers[t.name];
      uint64_t n = window_volume(in.window, Limits{});
      for (uint64_t i = 0; i < n; ++i) {
        auto it = b.find(window_point(in.window, i));
        out.output.values.push_back(it == b.end() ? Value::err_mem() : it->second);
      }
      return out;
    }
    return std::nullopt;
  } catch (const GiveUp&) {
    return std::nullopt;
  }
}

}  // namespace halo

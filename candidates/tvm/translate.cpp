// The TVM translation: see translate.hpp.
#include "candidates/tvm/translate.hpp"

#include "bounds/simplify.hpp"
#include "lower/brute_force_filling.hpp"
#include "lower/lower.hpp"
#include "oracle/int32_model.hpp"
#include "semantics/float_ops.hpp"
#include "support/diagnostics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace halo::tvm {

namespace {

struct NotExpressible {
  std::string message;
};
struct OutOfModel {
  std::string message;
};

// A TIR expression as TVMScript text, with its type (Bool is UInt(1)).
struct TirExpr {
  std::string text;
  Type type;
};

const Type kInt32 = Type::int_(32);
const Type kBool = Type::boolean();

std::string dtype(Type t) { return tvm_dtype(t); }

// A constant of type t, exactly: integers as TVM's typed immediates, a uint64 above INT64_MAX
// through its bit pattern (TVM's IntImm holds an int64), floats by their shortest exact
// decimal, and infinities, NaNs and -0 by their bits.
std::string const_text(Type t, const Value& v) {
  if (t.is_bool()) return v.is_zero() ? "T.bool(False)" : "T.bool(True)";
  if (t.is_float()) {
    double d = v.as_double();
    if (std::isfinite(d) && !(d == 0 && std::signbit(d)))
      return fmt::format("T.{}({})", dtype(t), fmt::format("{}", d));  // shortest round trip of the double
    return t.bits() == 32 ? fmt::format("T.reinterpret(\"float32\", T.uint32({}))", uint32_t(v.float_bits()))
                          : fmt::format("T.reinterpret(\"float64\", T.int64({}))", int64_t(v.float_bits()));
  }
  if (!v.is_small()) {  // a uint64 above INT64_MAX
    uint64_t bits = uint64_t(v.to_big_ref());
    return fmt::format("T.reinterpret(\"uint64\", T.int64({}))", int64_t(bits));
  }
  if (t.is_z()) t = kInt32;
  if (v.small() == INT64_MIN) return "T.int64(-9223372036854775807 - 1)";
  return fmt::format("T.{}({})", dtype(t), v.small());
}


TirExpr cast(Type t, TirExpr e) {
  if (e.type == t) return e;
  if (t.is_bool()) return {fmt::format("({} != {})", e.text, const_text(e.type, Value(0))), kBool};
  return {fmt::format("T.Cast(\"{}\", {})", dtype(t), e.text), t};
}

// A wider type that holds every value of t and the sums, differences and products of two of
// them: Int(64) for at most 32 bits; none for 64.
std::optional<Type> exact_wide(Type t) {
  if (t.bits() <= 32) return Type::int_(64);
  return std::nullopt;
}

// The stage being written: what each halo variable is in TIR.
struct Scope {
  std::map<std::string, TirExpr> vars;
};

// Where a func's or input's values live: its buffer name and the min of each halo dimension.
struct Storage {
  std::string buffer;
  std::vector<int64_t> mins;  // x1 first
  Type type;
};

bool tvm_reduction_update_impl(const FuncDef& f, const UpdateStage& u) {
  if (u.rdom.empty() || u.predicate || (!f.type.is_integer() && !f.type.is_z())) return false;
  for (size_t j = 0; j < u.lhs.size(); ++j)
    if (!is_pure_dimension(f, u.lhs, j)) return false;
  const Expr& v = u.value;
  if (v->kind != ExprKind::Op) return false;
  const auto& o = as<OpNode>(v);
  if (o.op != Op::Add && o.op != Op::Mul && o.op != Op::Min && o.op != Op::Max) return false;
  const Expr& acc = o.args[0];
  if (acc->kind != ExprKind::Call || as<CallNode>(acc).func != f.name.text) return false;
  for (size_t j = 0; j < u.lhs.size(); ++j)
    if (!same_expr(as<CallNode>(acc).args[j], u.lhs[j])) return false;
  return !reads_func(o.args[1], f.name.text);
}


class Translator {
 public:
  Translator(const Program& p, const Input& in) : prog_(p), in_(in), typed_(p.pipeline.typed) {
    std::vector<std::string> names;
    for (const Name& n : p.pipeline.params) names.push_back(n.text);
    subst_.bindings = in.startup_bindings(names);
  }

  TvmCase run() {
    if (prog_.schedule_mode == ScheduleMode::Autoscheduler)
      throw NotExpressible{fmt::format("the schedule is Halide's autoscheduler {}; TVM's own (MetaSchedule) is not run",
                                       prog_.autoscheduler)};
    find_regions();
    plan_blocks();
    TvmCase c;
    c.module = module_text();
    c.schedule = schedule_text();
    c.notes = notes_;
    c.primitives = std::vector<std::string>(primitives_.begin(), primitives_.end());
    c.args = args_;
    return c;
  }

 private:
  const Program& prog_;
  const Input& in_;
  bool typed_;
  Substitution subst_;
  std::vector<std::string> notes_;
  std::set<std::string> primitives_;
  std::vector<TvmBuffer> args_;

  // Per func: its storage box and each stage's compute box (x1 first, (min, len)).
  struct Region {
    std::vector<std::pair<int64_t, int64_t>> alloc;
    std::vector<std::vector<std::pair<int64_t, int64_t>>> stages;
  };
  std::map<std::string, Region> regions_;
  std::map<std::string, Storage> storage_;
  // Funcs written as one block with T.init (their pure stage and their one reduction).
  std::set<std::string> init_form_;
  // Per stage "f.i": its loops, outermost first, as the schedule renames them.
  std::map<std::string, std::vector<std::string>> loops_;

  // ---------------------------------------------------------------- regions
  int64_t constant(const Expr& e, const std::string& what) const {
    std::optional<Value> v = const_value(simplify(substitute(e, subst_)));
    if (!v || !v->is_small()) throw NotExpressible{fmt::format("{} is not a constant under z", what)};
    return v->small();
  }

  void find_regions() {
    Program formal = prog_;
    formal.schedule.reset();
    formal.schedule_mode = ScheduleMode::Thesis;
    formal.halide_roots.clear();
    TgtProgram t = lower_pipeline(formal);
    BruteForceOptions opt;
    opt.max_extent = 1 << 16;
    opt.max_steps = 20'000'000;
    std::optional<BruteForceFilling> bf = brute_force_filling(t, in_, opt);
    // A filling that did not cover what the program reads (its run still hit an unwritten
    // point: an index read from a func or an input the fixpoint never reached) sizes no
    // buffer: a buffer too small would be a false finding.
    if (bf && (bf->error_in_control ||
               std::any_of(bf->output.values.begin(), bf->output.values.end(),
                           [](const Value& v) { return v.kind() == Value::Kind::ErrMem; })))
      bf.reset();
    if (!bf) {
      regions_from_intervals();
      return;
    }
    auto get = [&](const HoleLabel& l) -> int64_t {
      auto it = bf->filling.find(l);
      if (it == bf->filling.end()) return 0;
      std::optional<Value> v = const_value(it->second);
      if (!v || !v->is_small()) throw OutOfModel{"a region of " + l.func + " is not a 64-bit constant"};
      return v->small();
    };
    for (const FuncDef& f : prog_.pipeline.funcs) {
      Region r;
      for (const Name& x : f.vars)
        r.alloc.emplace_back(get(mem_hole(f.name.text, x.text, false)), get(mem_hole(f.name.text, x.text, true)));
      for (size_t i = 0; i < f.stage_count(); ++i) {
        int64_t spec = stage_label(f, i).spec;
        std::vector<std::pair<int64_t, int64_t>> box;
        for (const Name& x : f.vars)
          box.emplace_back(get(cpu_hole(f.name.text, spec, int64_t(i), x.text, false)),
                           get(cpu_hole(f.name.text, spec, int64_t(i), x.text, true)));
        r.stages.push_back(std::move(box));
      }
      for (const auto& [mn, len] : r.alloc)
        if (mn < INT32_MIN || mn + len > INT32_MAX || len > (1 << 24))
          throw OutOfModel{fmt::format("the region of {} does not fit in Int(32) indices", f.name.text)};
      regions_[f.name.text] = std::move(r);
    }
  }

  // When the demand cannot be found by running the program (an index read from a func or
  // an input that the brute-force fixpoint does not follow), the regions are interval
  // analysis's, as Halide's bounds inference finds them (oracle/int32_model.hpp): every
  // stage of a func computed on its whole box. Unbounded, no buffer can be sized.
  void regions_from_intervals() {
    Int32ModelResult m = check_int32_model(prog_, in_);
    notes_.push_back("the regions of the funcs are interval analysis's (the demand could not be found by running the "
                     "program)");
    for (const FuncDef& f : prog_.pipeline.funcs) {
      Region r;
      auto it = m.boxes.find(f.name.text);
      for (size_t j = 0; j < f.vars.size(); ++j) {
        if (it == m.boxes.end()) {
          r.alloc.emplace_back(0, 0);
          continue;
        }
        auto [lo, hi] = it->second[j];
        if (lo <= INT32_MIN || hi >= INT32_MAX || hi - lo + 1 > (1 << 24))
          throw OutOfModel{fmt::format("halo could not bound the region of {} (neither by running the program nor "
                                       "by interval analysis), so it cannot size TVM's buffer for it",
                                       f.name.text)};
        r.alloc.emplace_back(lo, hi - lo + 1);
      }
      r.stages.assign(f.stage_count(), r.alloc);
      regions_[f.name.text] = std::move(r);
    }
    // The output's region is R(z) at least.
    Region& out = regions_.at(prog_.pipeline.name.text);
    for (size_t j = 0; j < in_.window.size() && j < out.alloc.size(); ++j) {
      int64_t wlo = in_.window[j].min.small(), whi = wlo + in_.window[j].len.small();
      int64_t lo = std::min(out.alloc[j].first, wlo), hi = std::max(out.alloc[j].first + out.alloc[j].second, whi);
      out.alloc[j] = {lo, hi - lo};
    }
    out.stages.assign(out.stages.size(), out.alloc);
  }

  // ---------------------------------------------------------------- blocks
  static bool is_self_read_at(const Expr& e, const FuncDef& f, size_t j, std::string_view xj, bool& ok) {
    if (e->kind == ExprKind::Call) {
      const auto& c = as<CallNode>(e);
      if (c.func == f.name.text) {
        const Expr& a = c.args[j];
        if (a->kind != ExprKind::Var || as<VarNode>(a).name != xj) ok = false;
      }
      for (const Expr& a : c.args) is_self_read_at(a, f, j, xj, ok);
    } else if (e->kind == ExprKind::Op) {
      for (const Expr& a : as<OpNode>(e).args) is_self_read_at(a, f, j, xj, ok);
    }
    return ok;
  }
  static bool is_reduction(const FuncDef& f, const UpdateStage& u) { return tvm_reduction_update(f, u); }

  bool stage_scheduled(const std::string& f, int64_t stage) const {
    if (!prog_.schedule) return false;
    for (const Directive& d : *prog_.schedule)
      if ((d.kind == DirectiveKind::Split || d.kind == DirectiveKind::Fuse || d.kind == DirectiveKind::Swap ||
           d.kind == DirectiveKind::Traverse) &&
          d.loop.func.text == f && d.loop.stage == stage)
        return true;
    return false;
  }

  void plan_blocks() {
    for (const FuncDef& f : prog_.pipeline.funcs) {
      const Region& r = regions_.at(f.name.text);
      if (f.updates.size() == 1 && is_reduction(f, f.updates[0]) && !stage_scheduled(f.name.text, 0) &&
          r.stages[0] == r.stages[1]) {
        bool nonempty = true;
        for (const RVar& rv : f.updates[0].rdom)
          nonempty = nonempty && constant(rv.len, "an rdom length") > 0;
        if (nonempty) init_form_.insert(f.name.text);
      }
      storage_[f.name.text] = Storage{"b_" + f.name.text, {}, value_type(f.type)};
      for (const auto& [mn, len] : r.alloc) storage_[f.name.text].mins.push_back(mn);
    }
    for (const InputDef& d : prog_.pipeline.inputs) {
      const InputBuffer* b = in_.buffer(d.name.text);
      if (!b) throw std::logic_error("tvm translation: no buffer for input " + d.name.text);
      TvmBuffer a;
      a.name = "in_" + d.name.text;
      a.halo = d.name.text;
      a.type = value_type(d.type);
      Storage s{a.name, {}, a.type};
      for (const Interval& iv : b->box) {
        if (!iv.min.is_small() || !iv.len.is_small()) throw OutOfModel{"the box of input " + a.halo + " is too large"};
        a.box.emplace_back(iv.min.small(), iv.len.small());
        s.mins.push_back(iv.min.small());
      }
      for (const Value& v : b->values) {
        if (!typed_ && !(v.is_small() && v.small() >= INT32_MIN && v.small() <= INT32_MAX))
          throw OutOfModel{fmt::format("input {} holds {}, which does not fit in Int(32)", a.halo, v.to_string())};
        a.values.push_back(v);
      }
      storage_[a.halo] = s;
      args_.push_back(std::move(a));
    }
    const FuncDef& out = prog_.pipeline.output();
    TvmBuffer o;
    o.name = "b_" + out.name.text;
    o.halo = out.name.text;
    o.type = value_type(out.type);
    o.box = regions_.at(o.halo).alloc;
    o.is_output = true;
    args_.push_back(std::move(o));
  }

  Type value_type(Type t) const { return t.is_z() ? kInt32 : t; }

  // ---------------------------------------------------------------- expressions
  TirExpr integer(TirExpr e) const { return e.type.is_bool() && !typed_ ? cast(kInt32, std::move(e)) : e; }
  TirExpr boolean(TirExpr e) const { return e.type.is_bool() ? e : cast(kBool, std::move(e)); }

  TirExpr expr(const Expr& e, const Scope& s) {
    switch (e->kind) {
      case ExprKind::Const: {
        const Value& v = as<ConstNode>(e).value;
        Type t = value_type(e->type);
        if (!typed_ && !(v.is_small() && v.small() >= INT32_MIN && v.small() <= INT32_MAX))
          throw OutOfModel{fmt::format("the constant {} does not fit in Int(32)", v.to_string())};
        return {const_text(t, v), t};
      }
      case ExprKind::Var: {
        const std::string& n = as<VarNode>(e).name;
        auto it = s.vars.find(n);
        if (it != s.vars.end()) return it->second;
        for (const auto& [name, value] : subst_.bindings)
          if (name == n) {
            Type t = kInt32;
            for (size_t i = 0; i < prog_.pipeline.params.size(); ++i)
              if (prog_.pipeline.params[i].text == n) t = value_type(prog_.pipeline.param_type(i));
            if (!typed_ && !(value.is_small() && value.small() >= INT32_MIN && value.small() <= INT32_MAX))
              throw OutOfModel{fmt::format("{} = {} does not fit in Int(32)", n, value.to_string())};
            return {const_text(t, value), t};
          }
        throw std::logic_error("tvm translation: unbound variable " + n);
      }
      case ExprKind::Call: {
        const auto& c = as<CallNode>(e);
        const Storage& st = storage_.at(c.func);
        std::vector<std::string> idx;
        for (size_t k = c.args.size(); k-- > 0;) {
          TirExpr a = integer(expr(c.args[k], s));
          if (a.type != kInt32) a = cast(kInt32, a);
          idx.push_back(offset(a.text, st.mins[k]));
        }
        return {fmt::format("{}[{}]", st.buffer, fmt::join(idx, ", ")), st.type};
      }
      case ExprKind::Hole: throw std::logic_error("tvm translation: a hole in an algorithm expression");
      case ExprKind::Op: break;
    }
    const auto& n = as<OpNode>(e);
    std::vector<TirExpr> a;
    for (const Expr& x : n.args) a.push_back(expr(x, s));
    positive_divisor_ = (n.op == Op::Div || n.op == Op::Mod) && positive_constant(n.args[1]);
    return typed_ ? typed_op(n, std::move(a)) : untyped_op(n, std::move(a));
  }

  static std::string offset(const std::string& text, int64_t min) {
    if (min == 0) return text;
    return min > 0 ? fmt::format("{} - {}", text, min) : fmt::format("{} + {}", text, -min);
  }

  TirExpr untyped_op(const OpNode& n, std::vector<TirExpr> a) {
    switch (n.op) {
      case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Mod: case Op::Min: case Op::Max:
      case Op::Lt: case Op::Gt: case Op::Eq: case Op::Le: case Op::Ge: case Op::Ne:
        for (TirExpr& x : a) x = integer(std::move(x));
        return arith(n.op, kInt32, a);
      case Op::And: case Op::Or: case Op::Not:
        for (TirExpr& x : a) x = boolean(std::move(x));
        return arith(n.op, kBool, a);
      case Op::Neg: return arith(Op::Neg, kInt32, {integer(std::move(a[0]))});
      case Op::Select: return {select(boolean(a[0]).text, integer(a[1]).text, integer(a[2]).text), kInt32};
      default: break;
    }
    throw std::logic_error(std::string("tvm translation: the typed operator ") + op_name(n.op) + " in an untyped program");
  }

  static std::string select(const std::string& c, const std::string& t, const std::string& f) {
    return fmt::format("T.Select({}, {}, {})", c, t, f);
  }
  static std::string zero(Type t) { return const_text(t, t.is_float() ? make_float(t, 0.0) : Value(0)); }

  // + - * / % min max, comparisons and logic on operands of one type t (the result of a
  // comparison is Bool).
  TirExpr arith(Op op, Type t, const std::vector<TirExpr>& a) {
    auto bin = [&](const char* sym, Type r) { return TirExpr{fmt::format("({} {} {})", a[0].text, sym, a[1].text), r}; };
    switch (op) {
      case Op::Add: return bin("+", t);
      case Op::Sub: return bin("-", t);
      case Op::Mul: return bin("*", t);
      case Op::Neg: return {fmt::format("({} - {})", zero(t), a[0].text), t};  // Halide's 0 - x
      case Op::Div: case Op::Mod: return divide(op, t, a[0].text, a[1].text);
      case Op::Min: case Op::Max:
        if (t.is_float())  // [FLOAT-MIN] [FLOAT-MAX] semantics/float_ops.cpp: select(a < b, a, b), select(a > b, a, b)
          return {select(fmt::format("{} {} {}", a[0].text, op == Op::Min ? "<" : ">", a[1].text), a[0].text, a[1].text), t};
        return {fmt::format("T.{}({}, {})", op == Op::Min ? "min" : "max", a[0].text, a[1].text), t};
      case Op::Lt: return bin("<", kBool);
      case Op::Gt: return bin(">", kBool);
      case Op::Le: return bin("<=", kBool);
      case Op::Ge: return bin(">=", kBool);
      case Op::Eq: return bin("==", kBool);
      case Op::Ne:
        // C's != on floats (decision 39): true of a NaN, the negation of ordered ==.
        if (t.is_float()) return {fmt::format("T.Not({} == {})", a[0].text, a[1].text), kBool};
        return bin("!=", kBool);
      case Op::And: return {fmt::format("T.And({}, {})", a[0].text, a[1].text), kBool};
      case Op::Or: return {fmt::format("T.Or({}, {})", a[0].text, a[1].text), kBool};
      case Op::Not: return {fmt::format("T.Not({})", a[0].text), kBool};
      default: break;
    }
    throw std::logic_error("tvm translation: arith of another operator");
  }

  // halo's / and % (Halide's: Euclidean, x / 0 = x % 0 = 0; src/IROperator.h) in TVM's
  // floordiv and floormod, which agree with them for a positive divisor. A divisor of 0 or
  // -1 never reaches TVM's division (0 traps, and MIN / -1 overflows and traps); a negative
  // divisor turns floor into Euclid by one step where the remainder is not zero.
  bool positive_divisor_ = false;  // the / or % being written divides by a positive constant

  // A divisor made of constants alone (2 * (w - 1) with w a parameter) whose value is
  // positive: halo's division is then TVM's floordiv. Folded only for Int(32) and ℤ, where
  // no intermediate step wraps (the Int(32) model, or the typing, keeps it in range).
  bool positive_constant(const Expr& e) const {
    if (e->kind == ExprKind::Const) return as<ConstNode>(e).value.is_int() && as<ConstNode>(e).value.sign() > 0;
    if (!(e->type.is_z() || e->type == kInt32) || reads_any(e)) return false;
    std::optional<Value> v = const_value(simplify(substitute(e, subst_)));
    return v && v->is_small() && v->small() > 0 && v->small() <= INT32_MAX;
  }
  // A shift amount made of constants alone (1, i32(1), 2 * 3): its value, so that the one
  // shift it means is written (TVM's parser folds a constant amount and checks its range,
  // even in a branch never taken). Small amounts only: larger ones are undefined anyway.
  std::optional<int64_t> constant_amount(const Expr& e) const {
    if (e->kind == ExprKind::Const)
      return as<ConstNode>(e).value.is_small() ? std::optional<int64_t>(as<ConstNode>(e).value.small()) : std::nullopt;
    if (reads_any(e) || has_vars(e)) return std::nullopt;
    std::optional<Value> v = const_value(simplify(e));
    if (!v || !v->is_small() || v->small() < -4096 || v->small() > 4096) return std::nullopt;
    return v->small();
  }
  static bool has_vars(const Expr& e) {
    if (e->kind == ExprKind::Var) return true;
    if (e->kind == ExprKind::Op)
      for (const Expr& a : as<OpNode>(e).args)
        if (has_vars(a)) return true;
    return false;
  }
  static bool reads_any(const Expr& e) {
    if (e->kind == ExprKind::Call || e->kind == ExprKind::Hole) return true;
    if (e->kind == ExprKind::Op)
      for (const Expr& a : as<OpNode>(e).args)
        if (reads_any(a)) return true;
    return false;
  }

  TirExpr divide(Op op, Type t, const std::string& a, const std::string& b) {
    if (t.is_float()) {
      if (op == Op::Div) return {fmt::format("({} / {})", a, b), t};
      // [FLOAT-MOD] a - b * floor(a / b), each step rounded (semantics/float_ops.cpp).
      return {fmt::format("({} - {} * T.floor({} / {}))", a, b, a, b), t};
    }
    const char* fn = op == Op::Div ? "T.floordiv" : "T.floormod";
    if (positive_divisor_) return {fmt::format("{}({}, {})", fn, a, b), t};  // TVM's operator is halo's
    std::string z = zero(t), one = const_text(t, Value(1));
    if (t.is_uint() || t.is_bool()) {
      std::string safe = select(fmt::format("{} == {}", b, z), one, b);
      return {select(fmt::format("{} == {}", b, z), z, fmt::format("{}({}, {})", fn, a, safe)), t};
    }
    std::string minus1 = const_text(t, Value(-1));
    std::string safe = select(fmt::format("T.Or({} == {}, {} == {})", b, z, b, minus1), one, b);
    std::string q = fmt::format("T.floordiv({}, {})", a, safe), m = fmt::format("T.floormod({}, {})", a, safe);
    std::string off = fmt::format("T.And({} < {}, {} != {})", safe, z, m, z);
    std::string euclid = op == Op::Div ? fmt::format("({} + {})", q, select(off, one, z))
                                       : fmt::format("({} - {})", m, select(off, safe, z));
    std::string by_minus1 = op == Op::Div ? fmt::format("({} - {})", z, a) : z;
    return {select(fmt::format("{} == {}", b, z), z, select(fmt::format("{} == {}", b, minus1), by_minus1, euclid)), t};
  }

  [[noreturn]] static void refuse(const OpNode& n, const std::string& why = "") {
    throw NotExpressible{fmt::format("halo writes no TIR for {}{}", op_name(n.op), why.empty() ? "" : " (" + why + ")")};
  }

  TirExpr typed_op(const OpNode& n, std::vector<TirExpr> a) {
    Type t = n.type;
    switch (n.op) {
      case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Mod: case Op::Min: case Op::Max:
      case Op::Neg:
        return arith(n.op, t, a);
      case Op::Lt: case Op::Gt: case Op::Eq: case Op::Le: case Op::Ge: case Op::Ne:
        return arith(n.op, a[0].type, a);
      case Op::And: case Op::Or: case Op::Not:
        for (TirExpr& x : a) x = boolean(std::move(x));
        return arith(n.op, kBool, a);
      case Op::Select: return {select(boolean(a[0]).text, a[1].text, a[2].text), t};
      case Op::Cast: return cast(t, a[0]);
      case Op::Reinterpret: return {fmt::format("T.reinterpret(\"{}\", {})", dtype(t), a[0].text), t};
      case Op::SaturatingCast: {
        if (t.is_float() || a[0].type.is_float()) refuse(n, "a saturating cast from or to a float");
        Type s = a[0].type;
        std::string v = a[0].text;
        // Clamp in the source type to the target's range where the source reaches past it.
        if (compare(s.min(), t.min()) < 0) v = fmt::format("T.max({}, {})", v, const_text(s, t.min()));
        if (compare(s.max(), t.max()) > 0) v = fmt::format("T.min({}, {})", v, const_text(s, t.max()));
        return cast(t, {v, s});
      }
      case Op::BitAnd: return {fmt::format("T.bitwise_and({}, {})", a[0].text, a[1].text), t};
      case Op::BitOr: return {fmt::format("T.bitwise_or({}, {})", a[0].text, a[1].text), t};
      case Op::BitXor: return {fmt::format("T.bitwise_xor({}, {})", a[0].text, a[1].text), t};
      case Op::BitNot: return {fmt::format("T.bitwise_not({})", a[0].text), t};
      case Op::Shl: case Op::Shr: {
        // A negative signed amount shifts the other way (src/IROperator.h operator<<); an
        // amount of the width or more is undefined in halo and in LLVM alike.
        std::string l = n.op == Op::Shl ? "T.shift_left" : "T.shift_right";
        std::string r = l == "T.shift_left" ? "T.shift_right" : "T.shift_left";
        TirExpr b = a[1].type == t ? a[1] : cast(t, a[1]);
        // A constant amount: the one shift it means (TVM checks a constant amount's range
        // when it parses, even in a branch never taken); one of the width or more is
        // undefined in halo, and any value stands for it.
        if (std::optional<int64_t> amount = constant_amount(n.args[1])) {
          int64_t k = *amount;
          bool left = n.op == Op::Shl;
          if (k < 0) {
            left = !left;
            k = -k;
          }
          if (k >= t.bits()) return a[0];
          return {fmt::format("{}({}, {})", left ? "T.shift_left" : "T.shift_right", a[0].text, const_text(t, Value(k))), t};
        }
        if (!a[1].type.is_int()) return {fmt::format("{}({}, {})", l, a[0].text, b.text), t};
        return {select(fmt::format("{} >= {}", a[1].text, zero(a[1].type)), fmt::format("{}({}, {})", l, a[0].text, b.text),
                       fmt::format("{}({}, {} - {})", r, a[0].text, zero(t), b.text)),
                t};
      }
      case Op::Abs:
        if (t.is_float() || a[0].type.is_float()) return {fmt::format("T.abs({})", a[0].text), t};
        if (a[0].type.is_uint()) return cast(t, a[0]);
        // Each operand written once (a nest of them would grow exponentially otherwise): in
        // Int(64), where |x| of at most 32 bits is exact.
        if (a[0].type.bits() <= 32) return cast(t, {fmt::format("T.abs({})", cast(Type::int_(64), a[0]).text), Type::int_(64)});
        // |x| in the unsigned type of the same width: the negation wraps exactly there.
        return {select(fmt::format("{} < {}", a[0].text, zero(a[0].type)),
                       fmt::format("({} - {})", zero(t), cast(t, a[0]).text), cast(t, a[0]).text),
                t};
      case Op::Absd: {
        if (a[0].type.is_float()) return {fmt::format("T.abs({} - {})", a[0].text, a[1].text), t};
        if (a[0].type.bits() <= 32)  // |a - b| exact in Int(64), each operand written once
          return cast(t, {fmt::format("T.abs({} - {})", cast(Type::int_(64), a[0]).text, cast(Type::int_(64), a[1]).text),
                          Type::int_(64)});
        std::string x = cast(t, a[0]).text, y = cast(t, a[1]).text;
        return {select(fmt::format("{} < {}", a[0].text, a[1].text), fmt::format("({} - {})", y, x),
                       fmt::format("({} - {})", x, y)),
                t};
      }
      case Op::WideningAdd: case Op::WideningSub: case Op::WideningMul: {
        const char* sym = n.op == Op::WideningAdd ? "+" : n.op == Op::WideningSub ? "-" : "*";
        return {fmt::format("({} {} {})", cast(t, a[0]).text, sym, cast(t, a[1]).text), t};
      }
      case Op::SaturatingAdd: case Op::SaturatingSub: case Op::HalvingAdd: case Op::HalvingSub:
      case Op::RoundingHalvingAdd: {
        std::optional<Type> w = exact_wide(t);
        if (!w) refuse(n, "a 64-bit operand has no wider TVM type to compute it in");
        std::string x = cast(*w, a[0]).text, y = cast(*w, a[1]).text;
        std::string v;
        switch (n.op) {
          case Op::SaturatingAdd: case Op::HalvingAdd: v = fmt::format("({} + {})", x, y); break;
          case Op::RoundingHalvingAdd: v = fmt::format("({} + {} + T.int64(1))", x, y); break;
          default: v = fmt::format("({} - {})", x, y); break;
        }
        if (n.op == Op::SaturatingAdd || n.op == Op::SaturatingSub)
          v = fmt::format("T.min(T.max({}, {}), {})", v, const_text(*w, t.min()), const_text(*w, t.max()));
        else
          v = fmt::format("T.floordiv({}, T.int64(2))", v);
        return cast(t, {v, *w});
      }
      case Op::RoundingShiftRight: case Op::RoundingShiftLeft: {
        // rounding_shift_right(a, b) = floor((a + 2^(b-1)) / 2^b) for b > 0, a for 0, a << -b
        // for b < 0; rounding_shift_left(a, b) the same with -b (semantics/type_ops.cpp), in
        // Int(64) where every step is exact for operands of at most 32 bits. An amount of the
        // width or more is undefined in halo; the clamp only keeps LLVM's shifts defined there.
        std::optional<Type> w = exact_wide(t);
        if (!w || t.bits() > 32) refuse(n, "a 64-bit operand has no wider TVM type to compute it in");
        std::string x = cast(*w, a[0]).text, b = cast(*w, a[1]).text;
        // A constant amount (the usual case): the one shift it means, x written once.
        if (std::optional<int64_t> amount = constant_amount(n.args[1])) {
          int64_t k = *amount;
          if (n.op == Op::RoundingShiftLeft) k = -k;
          if (k >= t.bits() || -k >= t.bits()) return a[0];  // undefined in halo
          if (k == 0) return a[0];
          std::string v = k > 0 ? fmt::format("T.shift_right({} + T.int64({}), T.int64({}))", x, int64_t{1} << (k - 1), k)
                                : fmt::format("T.shift_left({}, T.int64({}))", x, -k);
          return cast(t, {v, *w});
        }
        if (n.op == Op::RoundingShiftLeft) b = fmt::format("(T.int64(0) - {})", b);
        std::string k = fmt::format("T.min(T.max({}, T.int64(-62)), T.int64(62))", b);
        std::string right = fmt::format("T.shift_right({} + T.shift_left(T.int64(1), {} - T.int64(1)), {})", x, k, k);
        std::string left = fmt::format("T.shift_left({}, T.int64(0) - {})", x, k);
        std::string v = select(fmt::format("{} > T.int64(0)", k), right, select(fmt::format("{} == T.int64(0)", k), x, left));
        return cast(t, {v, *w});
      }
      case Op::MulShiftRight: case Op::RoundingMulShiftRight: {
        // saturate(floor(a * b / 2^q)), rounding adds 2^(q-1) first: exact in Int(64) for 16-bit operands.
        if (t.bits() > 16) refuse(n, "a product of 32-bit operands has no exact TVM type");
        std::string p = fmt::format("({} * {})", cast(Type::int_(64), a[0]).text, cast(Type::int_(64), a[1]).text);
        std::string q = fmt::format("T.min(T.max({}, T.int64(0)), T.int64(62))", cast(Type::int_(64), a[2]).text);
        if (n.op == Op::RoundingMulShiftRight)
          p = select(fmt::format("{} > T.int64(0)", q), fmt::format("({} + T.shift_left(T.int64(1), {} - T.int64(1)))", p, q), p);
        std::string v = fmt::format("T.min(T.max(T.shift_right({}, {}), {}), {})", p, q, const_text(Type::int_(64), t.min()),
                                    const_text(Type::int_(64), t.max()));
        return cast(t, {v, Type::int_(64)});
      }
      case Op::CountLeadingZeros: {
        // TVM counts on 32 and 64 bits only: a narrower value is counted zero-extended to 32
        // bits, less the bits it gained; of 0, halo's (Halide's) answer is the width.
        Type s = a[0].type;
        std::string v = a[0].text;
        int gained = 0;
        if (s.bits() < 32) {
          if (s.is_int()) v = fmt::format("T.reinterpret(\"uint{}\", {})", s.bits(), v);
          v = fmt::format("T.Cast(\"uint32\", {})", v);
          gained = 32 - s.bits();
        }
        std::string count = fmt::format("(T.clz({}) - {})", v, gained);
        std::string w = const_text(t, Value(int64_t{s.bits()}));
        return {select(fmt::format("{} == {}", a[0].text, zero(s)), w, cast(t, {count, kInt32}).text), t};
      }
      case Op::CountTrailingZeros: {
        // TVM has no ctz: the bits below the lowest set bit, counted, in the unsigned type of
        // the value's width (x & -x isolates that bit; minus one sets the bits below it);
        // of 0, halo's (Halide's) answer is the width.
        Type s = a[0].type;
        Type u = Type::uint(s.bits());
        std::string x = s.is_uint() ? a[0].text : fmt::format("T.reinterpret(\"{}\", {})", dtype(u), a[0].text);
        // -x written as ~x + 1: TVM simplifies 0u - x to 0 (docs/findings/tvm/
        // tvm-unsigned-negation-folded-to-zero.halo).
        std::string one = const_text(u, Value(1));
        std::string low = fmt::format("(T.bitwise_and({}, T.bitwise_not({}) + {}) - {})", x, x, one, one);
        std::string w = const_text(t, Value(int64_t{s.bits()}));
        return {select(fmt::format("{} == {}", a[0].text, zero(s)), w, cast(t, {fmt::format("T.popcount({})", low), u}).text),
                t};
      }
      case Op::Popcount: return cast(t, {fmt::format("T.popcount({})", a[0].text), a[0].type});
      case Op::Floor: return {fmt::format("T.floor({})", a[0].text), t};
      case Op::Ceil: return {fmt::format("T.ceil({})", a[0].text), t};
      case Op::Round: return {fmt::format("T.nearbyint({})", a[0].text), t};  // ties to even
      case Op::Trunc: return {fmt::format("T.trunc({})", a[0].text), t};
      case Op::Sqrt: return {fmt::format("T.sqrt({})", a[0].text), t};
      case Op::IsNan: return {fmt::format("T.isnan({})", a[0].text), kBool};
      case Op::IsInf: return {fmt::format("T.isinf({})", a[0].text), kBool};
      case Op::IsFinite: return {fmt::format("T.isfinite({})", a[0].text), kBool};
      default: refuse(n);
    }
  }

  // ---------------------------------------------------------------- the module
  static std::string indent(int n) { return std::string(size_t(n) * 4, ' '); }

  static std::string key(const std::string& f, int64_t stage, const std::string& v) {
    return fmt::format("{}.{}.{}", f, stage, v);
  }

  // One stage as a loop nest and a block; `init`: the pure stage as the block's T.init.
  void stage_text(std::string& out, const FuncDef& f, size_t i, bool init) {
    const Region& r = regions_.at(f.name.text);
    const Storage& st = storage_.at(f.name.text);
    const std::vector<std::pair<int64_t, int64_t>>& box = r.stages[i];
    const UpdateStage* u = i == 0 ? nullptr : &f.updates[i - 1];
    struct Loop {
      std::string var;  // halo variable
      int64_t min, len;
      char kind;  // S R O
    };
    std::vector<Loop> nest;  // outermost first
    bool reduction = u && is_reduction(f, *u);
    for (size_t j = f.vars.size(); j-- > 0;) {
      const std::string& x = f.vars[j].text;
      if (u && !is_pure_dimension(f, u->lhs, j)) continue;
      char kind = 'S';
      if (u) {
        bool ok = true;
        is_self_read_at(u->value, f, j, x, ok);
        if (u->predicate) is_self_read_at(u->predicate, f, j, x, ok);
        for (const Expr& l : u->lhs) is_self_read_at(l, f, j, x, ok);
        if (!ok) kind = 'O';
      }
      nest.push_back({x, box[j].first, box[j].second, kind});
    }
    if (u)
      for (size_t k = u->rdom.size(); k-- > 0;) {
        const RVar& rv = u->rdom[k];
        int64_t mn = constant(rv.min, "an rdom minimum"), len = constant(rv.len, "an rdom length");
        nest.push_back({rv.name.text, mn, std::max<int64_t>(len, 0), reduction ? 'R' : 'O'});
      }
    std::vector<std::string> names;
    int depth = 2;
    for (const Loop& l : nest) {
      out += fmt::format("{}for l_{} in range({}):\n", indent(depth), l.var, l.len);
      names.push_back(key(f.name.text, int64_t(i), l.var));
      ++depth;
    }
    loops_[fmt::format("{}.{}", f.name.text, i)] = names;
    out += fmt::format("{}with T.sblock(\"{}_s{}\"):\n", indent(depth), f.name.text, i);
    ++depth;
    Scope s;
    for (const Loop& l : nest) {
      const char* axis = l.kind == 'S' ? "spatial" : l.kind == 'R' ? "reduce" : "opaque";
      out += fmt::format("{}v_{} = T.axis.{}({}, l_{})\n", indent(depth), l.var, axis, l.len, l.var);
      s.vars[l.var] = {l.min == 0 ? "v_" + l.var : fmt::format("(v_{} {} {})", l.var, l.min > 0 ? "+" : "-",
                                                                 l.min > 0 ? l.min : -l.min),
                       kInt32};
    }
    auto store = [&](const std::vector<Expr>& lhs, const Scope& sc) {
      std::vector<std::string> idx;
      for (size_t k = lhs.size(); k-- > 0;) {
        TirExpr a = integer(expr(lhs[k], sc));
        if (a.type != kInt32) a = cast(kInt32, a);
        idx.push_back(offset(a.text, st.mins[k]));
      }
      return fmt::format("{}[{}]", st.buffer, fmt::join(idx, ", "));
    };
    std::vector<Expr> pure_lhs;
    for (const Name& x : f.vars) pure_lhs.push_back(make_var(x.text, f.loc));
    auto value = [&](const Expr& e, const Scope& sc) {
      TirExpr v = integer(expr(e, sc));
      return v.type == st.type ? v.text : cast(st.type, v).text;
    };
    if (init) {
      out += fmt::format("{}with T.init():\n{}{} = {}\n", indent(depth), indent(depth + 1), store(pure_lhs, s),
                         value(f.pure, s));
    }
    if (!u) {
      out += fmt::format("{}{} = {}\n", indent(depth), store(pure_lhs, s), value(f.pure, s));
      return;
    }
    std::string target = store(u->lhs, s);
    if (u->predicate) {
      out += fmt::format("{}if {}:\n", indent(depth), boolean(expr(u->predicate, s)).text);
      ++depth;
    }
    out += fmt::format("{}{} = {}\n", indent(depth), target, value(u->value, s));
  }

  std::string module_text() {
    std::vector<std::string> params;
    for (const TvmBuffer& a : args_) {
      std::vector<std::string> dims;
      for (int64_t d : a.shape()) dims.push_back(std::to_string(d));
      params.push_back(fmt::format("{}: T.Buffer(({}{}), \"{}\")", a.name, fmt::join(dims, ", "),
                                   dims.size() == 1 ? "," : "", dtype(a.type)));
    }
    std::string out = "@I.ir_module\nclass Module:\n    @T.prim_func(s_tir=True)\n";
    out += fmt::format("    def main({}):\n", fmt::join(params, ", "));
    out += "        T.func_attr({\"tirx.noalias\": True})\n";
    const std::string& output = prog_.pipeline.name.text;
    for (const FuncDef& f : prog_.pipeline.funcs) {
      if (f.name.text == output) continue;
      std::vector<std::string> dims;
      const Region& r = regions_.at(f.name.text);
      for (size_t j = r.alloc.size(); j-- > 0;) dims.push_back(std::to_string(r.alloc[j].second));
      out += fmt::format("        b_{} = T.sblock_alloc_buffer(({}{}), \"{}\")\n", f.name.text, fmt::join(dims, ", "),
                         dims.size() == 1 ? "," : "", dtype(storage_.at(f.name.text).type));
    }
    for (const FuncDef& f : prog_.pipeline.funcs) {
      bool init = init_form_.count(f.name.text) > 0;
      for (size_t i = init ? 1 : 0; i < f.stage_count(); ++i) stage_text(out, f, i, init && i == 1);
    }
    if (!init_form_.empty())
      notes_.push_back(fmt::format("{} written as one TensorIR block with T.init (its pure stage) and its reduction",
                                   fmt::join(init_form_, ", ")));
    return out;
  }

  // ---------------------------------------------------------------- the schedule
  std::vector<std::string>& stage_loops(const LoopName& l) {
    auto it = loops_.find(fmt::format("{}.{}", l.func.text, l.stage));
    if (it == loops_.end())
      throw NotExpressible{fmt::format("the loops of {} stage {} are not a TVM block of their own", l.func.text, l.stage)};
    return it->second;
  }
  size_t position(std::vector<std::string>& ls, const LoopName& l) {
    std::string k = key(l.func.text, l.stage, l.var.text);
    auto it = std::find(ls.begin(), ls.end(), k);
    if (it == ls.end()) throw NotExpressible{"no TVM loop for " + k};
    return size_t(it - ls.begin());
  }
  static std::string q(const std::string& s) { return "\"" + s + "\""; }

  std::string schedule_text() {
    std::string out = "def schedule(sch):\n    L = {}\n";
    if (!prog_.schedule || prog_.schedule->empty()) return out + "    return L\n";
    std::map<std::string, const Directive*> compute_at;
    std::set<std::string> inlined;
    std::map<std::string, std::vector<const Directive*>> loop_directives;
    std::vector<const Directive*> own_primitives;  // TVM's, after everything else (phase 5)
    for (const Directive& d : *prog_.schedule) {
      if (!d.default_note.empty() && prog_.schedule_mode == ScheduleMode::Halide) continue;
      if (is_tvm_only(d.kind)) {
        own_primitives.push_back(&d);
        continue;
      }
      if (d.on_intermediate)
        throw NotExpressible{fmt::format("'{}' schedules a func one of Halide's calls made, which TVM does not have",
                                         directive_name(d.kind))};
      switch (d.kind) {
        case DirectiveKind::Rfactor:
          if (d.names.size() > 1)
            throw NotExpressible{"rfactor with a named intermediate: TVM names the rfactor block itself"};
          loop_directives[d.loop.func.text].push_back(&d);
          continue;
        case DirectiveKind::ReorderStorage: case DirectiveKind::AlignStorage:
          storage_directives_.push_back(&d);
          continue;
        default: break;
      }
      switch (d.kind) {
        case DirectiveKind::Split: case DirectiveKind::Fuse: case DirectiveKind::Swap: case DirectiveKind::Traverse:
          if (d.kind == DirectiveKind::Split && d.tail_auto)
            notes_.push_back(fmt::format("split of {} with the auto tail: TVM's own default, a predicate, runs it",
                                         loop_text(d.loop)));
          else if (d.kind == DirectiveKind::Split && d.tail != TailStrategy::Guard)
            throw NotExpressible{fmt::format("split with the {} tail: TVM's split guards the tail with a predicate "
                                             "(fig. 2.11's guard) or, unpredicated, runs past it",
                                             tail_name(d.tail))};
          if (d.loop.spec != 0) throw NotExpressible{"a loop of a specialization: TVM has no specialize"};
          loop_directives[d.loop.func.text].push_back(&d);
          break;
        case DirectiveKind::ComputeAt:
          if (d.loop.spec != 0) throw NotExpressible{"compute_at a loop of a specialization: TVM has no specialize"};
          compute_at[d.func.text] = &d;
          break;
        case DirectiveKind::ComputeInline: inlined.insert(d.func.text); break;
        case DirectiveKind::StoreAt:
          notes_.push_back(fmt::format("store_at({}, {}) is not run: TVM places storage itself (it has no store_at)",
                                       d.func.text, loop_text(d.loop)));
          break;
        case DirectiveKind::Specialize: throw NotExpressible{"specialize: TVM has no specialization of a block"};
        case DirectiveKind::Bound: case DirectiveKind::BoundExtent: case DirectiveKind::AlignBounds:
          throw NotExpressible{fmt::format("{}: TVM infers the region a producer is computed on itself",
                                           directive_name(d.kind))};
        default:
          throw NotExpressible{fmt::format("'{}' is one of Halide's own directives, which TVM does not have",
                                           directive_name(d.kind))};
      }
    }
    const auto& funcs = prog_.pipeline.funcs;
    for (size_t fi = funcs.size(); fi-- > 0;) {
      const FuncDef& f = funcs[fi];
      const std::string& fn = f.name.text;
      bool init = init_form_.count(fn) > 0;
      std::vector<size_t> stages;
      for (size_t i = f.stage_count(); i-- > (init ? 1 : 0);) stages.push_back(i);  // last first
      if (inlined.count(fn)) {
        primitives_.insert("compute_inline");
        out += fmt::format("    sch.compute_inline(sch.get_sblock({}))\n", q(fn + "_s0"));
        continue;
      }
      if (auto it = compute_at.find(fn); it != compute_at.end()) {
        const Directive& d = *it->second;
        LoopName at = d.loop;
        if (at.stage == LoopName::kAnyStage) at.stage = resolve_stage(at);
        std::vector<std::string>& ls = stage_loops(at);
        std::string target = ls[position(ls, at)];
        primitives_.insert("compute_at");
        for (size_t i : stages) {
          out += fmt::format("    sch.compute_at(sch.get_sblock({}), L[{}], preserve_unit_loops=True)\n",
                             q(fmt::format("{}_s{}", fn, i)), q(target));
          out += fmt::format("    own(sch, L, {}, {}, L[{}])\n", q(fmt::format("{}_s{}", fn, i)),
                             names_list(loops_.at(fmt::format("{}.{}", fn, i))), q(target));
        }
      } else {
        for (size_t i : stages)
          out += fmt::format("    own(sch, L, {}, {}, None)\n", q(fmt::format("{}_s{}", fn, i)),
                             names_list(loops_.at(fmt::format("{}.{}", fn, i))));
      }
      for (const Directive* d : loop_directives[fn]) out += loop_directive(*d);
    }
    for (const Directive* d : storage_directives_) out += storage_directive(*d);
    for (const Directive* d : own_primitives) out += own_primitive(*d);
    return out + "    return L\n";
  }

  std::vector<const Directive*> storage_directives_;

  // The block that writes f first (its pure stage, or its T.init block), where TVM's
  // storage primitives name f's buffer.
  std::string writer(const std::string& f) const { return fmt::format("{}_s{}", f, init_form_.count(f) ? 1 : 0); }

  void only_own_storage(const Directive& d) const {
    if (d.func.text == prog_.pipeline.name.text)
      throw NotExpressible{fmt::format("{} of the output: its layout is the caller's buffer in TVM",
                                       directive_name(d.kind))};
  }

  // reorder_storage is TVM's transform_layout of f's buffer, align_storage its storage_align.
  std::string storage_directive(const Directive& d) {
    only_own_storage(d);
    const FuncDef* f = prog_.pipeline.find(d.func.text);
    size_t n = f->vars.size();
    auto dim = [&](const std::string& x) {
      for (size_t j = 0; j < n; ++j)
        if (f->vars[j].text == x) return j;
      throw NotExpressible{"no dimension " + x};
    };
    if (d.kind == DirectiveKind::ReorderStorage) {
      if (d.names.size() != n)
        throw NotExpressible{"reorder_storage of some dimensions only: transform_layout is written for all of them"};
      std::vector<std::string> from, to;
      for (size_t j = n; j-- > 0;) from.push_back("d_" + f->vars[j].text);
      for (size_t k = n; k-- > 0;) to.push_back("d_" + d.names[k].text);  // innermost last in TVM
      primitives_.insert("transform_layout");
      return fmt::format("    sch.transform_layout(sch.get_sblock({}), (\"write\", 0), lambda {}: ({}{}))\n",
                         q(writer(d.func.text)), fmt::join(from, ", "), fmt::join(to, ", "), n == 1 ? "," : "");
    }
    // align_storage(f, x, a): the stride of the dimension just outside x becomes a multiple of a.
    size_t j = dim(d.names[0].text);
    if (j + 1 >= n) {
      // The outermost dimension's extent is no stride of the buffer: Halide's call pads only
      // the allocation's end, which no value depends on, and TVM has nothing to align.
      notes_.push_back(fmt::format("align_storage({}, {}, ...) of the outermost dimension is not run: it changes no "
                                   "stride, and TVM's storage_align aligns strides only",
                                   d.func.text, d.names[0].text));
      return "";
    }
    size_t axis = n - 1 - (j + 1);
    primitives_.insert("storage_align");
    return fmt::format("    sch.storage_align(sch.get_sblock({}), 0, {}, {}, 0)\n", q(writer(d.func.text)), axis,
                       constant(d.exprs[0], "the alignment"));
  }

  std::vector<std::string> stage_blocks(const std::string& f, bool first_to_last) const {
    const FuncDef* fd = prog_.pipeline.find(f);
    std::vector<std::string> bs;
    for (size_t i = init_form_.count(f) ? 1 : 0; i < fd->stage_count(); ++i) bs.push_back(fmt::format("{}_s{}", f, i));
    if (!first_to_last) std::reverse(bs.begin(), bs.end());
    return bs;
  }

  // A TVM primitive that names a loop or stage the schedule does not have is the writer's
  // mistake, said at the directive (exit 2), not a case TVM cannot express.
  std::string own_primitive(const Directive& d) {
    try {
      return own_primitive_text(d);
    } catch (const NotExpressible& e) {
      if (e.message.rfind("no TVM loop for ", 0) == 0 || e.message.rfind("the loops of ", 0) == 0)
        throw InputError(Diagnostic{prog_.file, d.loc, fmt::format("'{}': {}", directive_name(d.kind), e.message)});
      throw;
    }
  }

  std::string own_primitive_text(const Directive& d) {
    std::string out;
    std::string name = directive_name(d.kind);
    primitives_.insert(name.substr(4));
    switch (d.kind) {
      case DirectiveKind::TvmReverseComputeAt: {
        std::vector<std::string>& ls = stage_loops(d.loop);
        std::string target = ls[position(ls, d.loop)];
        for (const std::string& b : stage_blocks(d.func.text, true)) {
          out += fmt::format("    sch.reverse_compute_at(sch.get_sblock({}), L[{}], preserve_unit_loops=True)\n", q(b), q(target));
          std::string stage = b.substr(0, b.rfind("_s")) + "." + b.substr(b.rfind("_s") + 2);
          out += fmt::format("    own(sch, L, {}, {}, L[{}])\n", q(b), names_list(loops_.at(stage)), q(target));
        }
        return out;
      }
      case DirectiveKind::TvmReverseComputeInline:
        return fmt::format("    sch.reverse_compute_inline(sch.get_sblock({}))\n", q(d.func.text + "_s0"));
      case DirectiveKind::TvmCacheRead: {
        const Storage& st = storage_.at(d.func.text);
        return fmt::format("    sch.cache_read(sch.get_sblock({}), read_index(sch, {}, {}), \"global\")\n",
                           q(block_of(d.loop)), q(block_of(d.loop)), q(st.buffer));
      }
      case DirectiveKind::TvmCacheWrite:
        return fmt::format("    sch.cache_write(sch.get_sblock({}), 0, \"global\")\n", q(block_of(d.loop)));
      case DirectiveKind::TvmDecomposeReduction: {
        if (!init_form_.count(d.loop.func.text))
          throw NotExpressible{"decompose_reduction of " + d.loop.func.text + ", which is no TVM reduction block"};
        std::vector<std::string>& ls = stage_loops(d.loop);
        return fmt::format("    sch.decompose_reduction(sch.get_sblock({}), L[{}])\n", q(block_of(d.loop)),
                           q(ls[position(ls, d.loop)]));
      }
      case DirectiveKind::TvmSplitUnpredicated: {
        std::vector<std::string>& ls = stage_loops(d.loop);
        size_t k = position(ls, d.loop);
        int64_t factor = constant(d.exprs[0], "the split factor");
        std::string vo = key(d.loop.func.text, d.loop.stage, d.names[0].text),
                    vi = key(d.loop.func.text, d.loop.stage, d.names[1].text), v = ls[k];
        ls[k] = vi;
        ls.insert(ls.begin() + ptrdiff_t(k), vo);
        return fmt::format("    L[{}], L[{}] = sch.split(L[{}], factors=[None, {}], disable_predication=True)\n", q(vo),
                           q(vi), q(v), factor);
      }
      case DirectiveKind::TvmBlockize: {
        std::vector<std::string>& ls = stage_loops(d.loop);
        return fmt::format("    sch.blockize(L[{}])\n", q(ls[position(ls, d.loop)]));
      }
      case DirectiveKind::TvmLoopPartition: {
        std::vector<std::string>& ls = stage_loops(d.loop);
        std::vector<std::string> factors;
        for (const Expr& e : d.exprs) factors.push_back(std::to_string(constant(e, "a partition factor")));
        factors.push_back("None");
        return fmt::format("    sch.loop_partition(L[{}], factors=[{}])\n", q(ls[position(ls, d.loop)]),
                           fmt::join(factors, ", "));
      }
      case DirectiveKind::TvmPadEinsum: {
        const FuncDef* f = prog_.pipeline.find(d.loop.func.text);
        if (d.exprs.size() != f->vars.size())
          throw NotExpressible{fmt::format("tvm_pad_einsum pads each of the {} pure dimensions of {}", f->vars.size(),
                                           f->name.text)};
        size_t iters = stage_loops(d.loop).size();
        std::vector<std::string> pad;
        for (size_t j = d.exprs.size(); j-- > 0;) pad.push_back(std::to_string(constant(d.exprs[j], "a padding")));
        while (pad.size() < iters) pad.push_back("1");
        return fmt::format("    sch.pad_einsum(sch.get_sblock({}), [{}])\n", q(block_of(d.loop)), fmt::join(pad, ", "));
      }
      default: break;
    }
    throw std::logic_error("tvm translation: not one of TVM's primitives");
  }

  std::string block_of(const LoopName& stage) const {
    if (init_form_.count(stage.func.text) && stage.stage == 0)
      throw NotExpressible{"the pure stage of " + stage.func.text + " is the T.init of its reduction block"};
    return fmt::format("{}_s{}", stage.func.text, stage.stage);
  }

  static std::string loop_text(const LoopName& l) {
    return fmt::format("<{}, {}, {}, {}>", l.func.text, l.spec, l.stage, l.var.text);
  }
  static std::string names_list(const std::vector<std::string>& ns) {
    std::vector<std::string> qs;
    for (const std::string& n : ns) qs.push_back(q(n));
    return fmt::format("[{}]", fmt::join(qs, ", "));
  }

  int64_t resolve_stage(const LoopName& l) {
    const FuncDef* f = prog_.pipeline.find(l.func.text);
    for (size_t i = 0; f && i < f->stage_count(); ++i) {
      auto it = loops_.find(fmt::format("{}.{}", l.func.text, i));
      if (it == loops_.end()) continue;
      std::string k = key(l.func.text, int64_t(i), l.var.text);
      if (std::find(it->second.begin(), it->second.end(), k) != it->second.end()) return int64_t(i);
    }
    return 0;
  }

  std::string loop_directive(const Directive& d) {
    std::vector<std::string>& ls = stage_loops(d.loop);
    size_t k = position(ls, d.loop);
    const std::string& f = d.loop.func.text;
    int64_t st = d.loop.stage;
    switch (d.kind) {
      case DirectiveKind::Split: {
        int64_t factor = constant(d.exprs[0], "the split factor");
        std::string vo = key(f, st, d.names[0].text), vi = key(f, st, d.names[1].text), v = ls[k];
        ls[k] = vi;
        ls.insert(ls.begin() + ptrdiff_t(k), vo);
        primitives_.insert("split");
        return fmt::format("    L[{}], L[{}] = sch.split(L[{}], factors=[None, {}])\n", q(vo), q(vi), q(v), factor);
      }
      case DirectiveKind::Fuse: {
        if (k + 1 >= ls.size()) throw NotExpressible{"fuse of the innermost loop"};
        std::string t = key(f, st, d.names[0].text), outer = ls[k], inner = ls[k + 1];
        ls[k] = t;
        ls.erase(ls.begin() + ptrdiff_t(k + 1));
        primitives_.insert("fuse");
        return fmt::format("    L[{}] = sch.fuse(L[{}], L[{}])\n", q(t), q(outer), q(inner));
      }
      case DirectiveKind::Swap: {
        if (k + 1 >= ls.size()) throw NotExpressible{"swap of the innermost loop"};
        std::swap(ls[k], ls[k + 1]);
        primitives_.insert("reorder");
        return fmt::format("    sch.reorder(L[{}], L[{}])\n", q(ls[k]), q(ls[k + 1]));
      }
      case DirectiveKind::Rfactor: {
        if (!init_form_.count(f)) throw NotExpressible{"rfactor of " + f + ", which is no TVM reduction block"};
        primitives_.insert("rfactor");
        return fmt::format("    sch.rfactor(L[{}], 0)\n", q(ls[k]));
      }
      case DirectiveKind::Traverse:
        switch (d.order) {
          case Traversal::Serial: return "";
          case Traversal::Parallel: primitives_.insert("parallel"); return fmt::format("    sch.parallel(L[{}])\n", q(ls[k]));
          case Traversal::Vectorized:
            primitives_.insert("vectorize");
            return fmt::format("    sch.vectorize(L[{}])\n", q(ls[k]));
          case Traversal::Unrolled: primitives_.insert("unroll"); return fmt::format("    sch.unroll(L[{}])\n", q(ls[k]));
        }
        return "";
      default: break;
    }
    throw std::logic_error("tvm translation: not a loop directive");
  }
};

}  // namespace

bool tvm_reduction_update(const FuncDef& f, const UpdateStage& u) { return tvm_reduction_update_impl(f, u); }

std::vector<int64_t> TvmBuffer::shape() const {
  std::vector<int64_t> s;
  for (size_t j = box.size(); j-- > 0;) s.push_back(box[j].second);
  return s;
}

// The helper every schedule calls: the loops TVM made for a block (below `target` after a
// compute_at, all of them at the root), named as halo names them; TVM may leave out a loop
// of extent 1, and then a later directive on it is not expressible.
constexpr const char* kPrelude = R"(import tvm
from tvm.script import ir as I
from tvm.script import tirx as T


class HaloNotExpressible(Exception):
    pass


def read_index(sch, block, buffer):
    # 0.26 names a read region's buffer `buffer`, 0.27 `source`.
    reads = [(r.buffer if hasattr(r, "buffer") else r.source).name for r in sch.get(sch.get_sblock(block)).reads]
    if buffer not in reads:
        raise HaloNotExpressible(f"{block} does not read {buffer}")
    return reads.index(buffer)


def own(sch, L, block, names, target):
    loops = sch.get_loops(sch.get_sblock(block))
    if target is not None:
        t = sch.get(target)
        k = [i for i, l in enumerate(loops) if sch.get(l).same_as(t)]
        loops = loops[k[0] + 1:] if k else []
    if len(loops) != len(names):
        for n in names:
            L.pop(n, None)
        return
    for n, l in zip(names, loops):
        L[n] = l


)";

std::string TvmCase::script() const { return std::string(kPrelude) + module + "\n\nmod = Module\n\n\n" + schedule; }

std::string tvm_dtype(Type t) {
  if (t.is_z()) return "int32";
  if (t.is_bool()) return "bool";
  if (t.is_float()) return t.bits() == 32 ? "float32" : "float64";
  return fmt::format("{}{}", t.is_uint() ? "uint" : "int", t.bits());
}

std::variant<TvmCase, TvmTranslationError> translate_to_tvm(const Program& prog, const Input& in) {
  try {
    return Translator(prog, in).run();
  } catch (const NotExpressible& e) {
    return TvmTranslationError{e.message, true};
  } catch (const OutOfModel& e) {
    return TvmTranslationError{e.message, false};
  }
}

}  // namespace halo::tvm

// The worker's half of `halo import` (import.hpp): Halide's own deserialize_pipeline reads
// the .hlpipe, then this walks what it built — the Internal::Functions in realization
// order, each definition and update with its RDom, and each stage's schedule (splits, the
// loop order and loop types, compute, store and hoist levels, bounds, folds) — into a .halo
// program: the algorithm as halo's AST printed by halo's printer, the schedule in Halide's
// vocabulary (docs/halide-users.md), and a realization from the options. Compiled once per
// Halide version, like jit.cpp; whatever halo cannot express is refused by name and place.
#include "candidates/halide/import.hpp"
#include "candidates/halide/jit.hpp"

#include "interp/input_buffers.hpp"
#include "semantics/boundary.hpp"
#include "semantics/lexer.hpp"
#include "semantics/printer.hpp"
#include "semantics/schedule_vocabulary.hpp"

#include <Halide.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace halo::halide {

#if HALO_HALIDE_MAJOR >= 19

namespace {

namespace HI = Halide::Internal;

template <typename T>
std::string str(const T& x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

[[noreturn]] void refuse(const std::string& where, const std::string& what) {
  throw ImportRefused(where.empty() ? what : where + ": " + what);
}

// Halide's scalar integer types and Float(32), Float(64) are halo's (docs/types.md,
// docs/floats.md); the rest is refused.
Type halo_type(const Halide::Type& t, const std::string& where) {
  if (t.lanes() != 1) refuse(where, fmt::format("the vector type {} (halo's values are scalars)", str(t)));
  if (t.is_bfloat() || (t.is_float() && t.bits() != 32 && t.bits() != 64))
    refuse(where, fmt::format("the floating-point type {} (halo has Float(32) and Float(64))", str(t)));
  if (t.is_float()) return Type::float_(t.bits());
  if (t.is_handle()) refuse(where, "a handle (pointer) type");
  if (t.is_bool()) return Type::boolean();
  if (t.bits() != 8 && t.bits() != 16 && t.bits() != 32 && t.bits() != 64) refuse(where, "the type " + str(t));
  return t.is_int() ? Type::int_(t.bits()) : Type::uint(t.bits());
}

// Halide qualifies the loops a split or fuse makes by the loop they came from ("x.xo"); halo
// names them by their own name (xo), fresh in the stage.
std::string last_part(const std::string& loop) { return loop.substr(loop.find_last_of('.') + 1); }  // (and RVars: r$x.ri)

// Halide names ("r$x", "repeat_edge$1", "_0") as .halo identifiers: other characters become
// '_', reserved words get a '_', and distinct Halide names stay distinct.
class Names {
 public:
  void reserve(const std::string& n) { used_.insert(n); }
  // The name of Halide's `name` of this kind (func, var, param, input), the same each time.
  std::string of(const std::string& kind, const std::string& name) {
    auto [it, fresh] = map_.try_emplace(kind + ":" + name);
    if (fresh) it->second = unique(sanitize(kind == "var" ? last_part(name) : name), used_);
    return it->second;
  }
  static std::string sanitize(const std::string& name) {
    std::string s;
    for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "v" + s;
    if (!is_identifier(s)) s += "_";
    return s;
  }
  static std::string unique(std::string base, std::set<std::string>& used) {
    std::string n = base;
    for (int i = 1; used.count(n); ++i) n = fmt::format("{}_{}", base, i);
    used.insert(n);
    return n;
  }
  const std::set<std::string>& used() const { return used_; }

 private:
  std::map<std::string, std::string> map_;
  std::set<std::string> used_;
};

struct InputInfo {
  std::string name;  // halo's
  Halide::Type type;
  int dims = 0;
  Halide::Parameter param;
};

struct ParamInfo {
  std::string name;  // halo's
  Halide::Type type;
  Halide::Parameter param;
};

// The whole import: names, the inputs and parameters met, and whether anything is typed.
struct Importer {
  std::string file;
  Names names;
  std::map<std::string, InputInfo> inputs;  // by Halide name, in the order met
  std::vector<std::string> input_order;
  std::map<std::string, ParamInfo> params;
  std::vector<std::string> param_order;
  bool typed = false;  // a type other than Int(32), or a cast: the program is written typed
  // Funcs that only read another func or an input at their own variables and are inlined
  // (the Func Halide makes of an ImageParam, the lambda BoundaryConditions wraps a buffer
  // in): reads of them are reads of what they read (find_aliases).
  struct Alias {
    std::string func;         // a func's Halide name, or
    Halide::Parameter param;  // an input
  };
  std::map<std::string, Alias> aliases;

  Type type_of(const Halide::Type& t, const std::string& where) {
    Type h = halo_type(t, where);
    if (h != Type::int_(32)) typed = true;
    return h;
  }

  void note_param(const Halide::Parameter& p, const std::string& where) {
    if (p.is_buffer()) {
      if (!inputs.count(p.name())) {
        type_of(p.type(), where + ", input " + p.name());
        inputs[p.name()] = InputInfo{names.of("input", p.name()), p.type(), p.dimensions(), p};
        input_order.push_back(p.name());
      }
    } else if (!params.count(p.name())) {
      type_of(p.type(), where + ", parameter " + p.name());
      params[p.name()] = ParamInfo{names.of("param", p.name()), p.type(), p};
      param_order.push_back(p.name());
    }
  }

  static bool is_literal(const Halide::Expr& e) { return e.as<HI::IntImm>() || e.as<HI::UIntImm>(); }

  // A FloatImm: a constant of its own type, which the printer writes exactly (0.5f, f64(0.1)).
  Expr float_constant(const HI::FloatImm& f, const std::string& where) {
    typed = true;
    Type t = type_of(f.type, where);
    return make_const(make_float(t, f.value), {}, t);
  }

  // A literal of Halide type t: bare where halo's typing gives it that type anyway (an
  // Int(32), or beside a non-literal operand of its type), else cast to it.
  Expr literal(const Halide::Expr& e, bool bare, const std::string& where) {
    Value v = e.as<HI::IntImm>() ? Value(int64_t(e.as<HI::IntImm>()->value))
                                 : *Value::parse(std::to_string(e.as<HI::UIntImm>()->value));
    Type t = type_of(e.type(), where);
    Expr c = make_const(v);
    if (bare || t == Type::int_(32)) return c;
    return make_cast(t, c);
  }

  // An operand of a binary (or select's) node: a literal is bare when the other operand is
  // not one and has its type.
  Expr operand(const Halide::Expr& a, const Halide::Expr& other, const std::string& where) {
    if (is_literal(a)) return literal(a, !is_literal(other) && other.type() == a.type(), where);
    return expr(a, where);
  }

  Expr binary(Op op, const Halide::Expr& a, const Halide::Expr& b, const std::string& where) {
    return make_op(op, {operand(a, b, where), operand(b, a, where)});
  }

  Expr expr(const Halide::Expr& e, const std::string& where) {
    using namespace HI;
    if (is_literal(e)) return literal(e, false, where);
    if (const auto* f = e.as<HI::FloatImm>()) return float_constant(*f, where);
    Type t = halo_type(e.type(), where);
    if (t.is_float()) typed = true;
    if (t != Type::int_(32) && !t.is_bool()) typed = true;
    if (const auto* n = e.as<Add>()) return binary(Op::Add, n->a, n->b, where);
    if (const auto* n = e.as<Sub>()) return binary(Op::Sub, n->a, n->b, where);
    if (const auto* n = e.as<Mul>()) return binary(Op::Mul, n->a, n->b, where);
    if (const auto* n = e.as<Div>()) return binary(Op::Div, n->a, n->b, where);
    if (const auto* n = e.as<Mod>()) return binary(Op::Mod, n->a, n->b, where);
    if (const auto* n = e.as<Min>()) return binary(Op::Min, n->a, n->b, where);
    if (const auto* n = e.as<Max>()) {
      // clamp(e, lo, hi) is Halide's max(min(e, hi), lo): written back as clamp.
      if (const auto* m = n->a.as<Min>(); m && !is_literal(m->a))
        return make_clamp(expr(m->a, where), operand(n->b, m->a, where), operand(m->b, m->a, where));
      return binary(Op::Max, n->a, n->b, where);
    }
    if (const auto* n = e.as<EQ>()) return binary(Op::Eq, n->a, n->b, where);
    if (const auto* n = e.as<NE>()) return binary(Op::Ne, n->a, n->b, where);
    if (const auto* n = e.as<LT>()) return binary(Op::Lt, n->a, n->b, where);
    if (const auto* n = e.as<LE>()) return binary(Op::Le, n->a, n->b, where);
    if (const auto* n = e.as<GT>()) return binary(Op::Gt, n->a, n->b, where);
    if (const auto* n = e.as<GE>()) return binary(Op::Ge, n->a, n->b, where);
    if (const auto* n = e.as<And>()) return binary(Op::And, n->a, n->b, where);
    if (const auto* n = e.as<Or>()) return binary(Op::Or, n->a, n->b, where);
    if (const auto* n = e.as<Not>()) return make_op(Op::Not, {expr(n->a, where)});
    if (const auto* n = e.as<Select>())
      return make_op(Op::Select, {expr(n->condition, where), operand(n->true_value, n->false_value, where),
                                  operand(n->false_value, n->true_value, where)});
    if (const auto* n = e.as<Cast>()) {
      typed = true;
      return make_cast(t, is_literal(n->value) ? literal(n->value, false, where) : expr(n->value, where));
    }
    if (const auto* n = e.as<Variable>()) return variable(*n, where);
    if (const auto* n = e.as<Let>()) return expr(substitute(n->name, n->value, n->body), where);
    if (const auto* n = e.as<HI::Call>()) return call(*n, where);
    if (const auto* n = e.as<Reinterpret>()) {
      typed = true;
      return make_op(Op::Reinterpret, {expr(n->value, where)}, {}, t);
    }
    if (e.as<StringImm>()) refuse(where, "a string constant");
    if (e.as<Ramp>() || e.as<Broadcast>() || e.as<Shuffle>() || e.as<VectorReduce>())
      refuse(where, "a vector expression");
    if (e.as<Load>()) refuse(where, "a Load (a lowered expression)");
    refuse(where, "the expression " + str(e));
  }

  Expr variable(const HI::Variable& v, const std::string& where) {
    if (v.param.defined()) {
      note_param(v.param, where);
      if (!v.param.is_buffer()) return make_var(params.at(v.param.name()).name);
      // An input's geometry: Halide's own name, "img.min.0" (semantics/ast.hpp, buffer_min_var).
      const std::string& input = inputs.at(v.param.name()).name;
      std::string rest = v.name.substr(v.param.name().size());
      if (rest.rfind(".min.", 0) != 0 && rest.rfind(".extent.", 0) != 0)
        refuse(where, fmt::format("the buffer field {} (halo has an input's min and extent)", v.name));
      return make_var(input + rest);
    }
    if (v.image.defined()) refuse(where, "a Buffer embedded in the pipeline (" + v.name + ")");
    return make_var(names.of("var", v.name));
  }

  Expr call(const HI::Call& c, const std::string& where) {
    using HI::Call;
    std::vector<Expr> args;
    if (c.call_type == Call::Halide) {
      for (const Halide::Expr& a : c.args) args.push_back(expr(a, where));
      if (c.value_index != 0) refuse(where, fmt::format("a Tuple element ({}[{}])", c.name, c.value_index));
      if (auto a = aliases.find(c.name); a != aliases.end()) {  // an inlined identity: what it reads
        if (!a->second.param.defined()) return make_call(names.of("func", a->second.func), args);
        note_param(a->second.param, where);
        return make_call(inputs.at(a->second.param.name()).name, args);
      }
      return make_call(names.of("func", c.name), args);
    }
    if (c.call_type == Call::Image) {
      if (!c.param.defined()) refuse(where, "a Buffer embedded in the pipeline (" + c.name + ")");
      note_param(c.param, where);
      for (const Halide::Expr& a : c.args) args.push_back(expr(a, where));
      return make_call(inputs.at(c.param.name()).name, args);
    }
    if (c.call_type == Call::PureExtern) {
      // Halide's float functions are extern calls named by type ("floor_f32", "is_nan_f64").
      static const std::map<std::string, Op> float_functions = {
          {"floor", Op::Floor}, {"ceil", Op::Ceil}, {"round", Op::Round}, {"trunc", Op::Trunc}, {"sqrt", Op::Sqrt},
          {"is_nan", Op::IsNan}, {"is_inf", Op::IsInf}, {"is_finite", Op::IsFinite}};
      std::string base = c.name.substr(0, c.name.rfind('_'));
      if (auto it = float_functions.find(base); it != float_functions.end() && c.args.size() == 1 &&
                                                 (c.name.ends_with("_f32") || c.name.ends_with("_f64"))) {
        typed = true;
        return make_op(it->second, {expr(c.args[0], where)});
      }
      if (is_transcendental(base))
        refuse(where, fmt::format("{} (Halide computes {} with its own approximation, which halo does not judge: "
                                  "docs/floats.md)",
                                  c.name, base));
    }
    if (c.call_type != Call::Intrinsic && c.call_type != Call::PureIntrinsic)
      refuse(where, fmt::format("the call to {} (an extern function)", c.name));
    // The identity marks Halide adds for its own optimizations.
    if (c.is_intrinsic(Call::likely) || c.is_intrinsic(Call::likely_if_innermost) ||
        c.is_intrinsic(Call::promise_clamped) || c.is_intrinsic(Call::unsafe_promise_clamped))
      return expr(c.args[0], where);
    if (c.is_intrinsic(Call::if_then_else) && c.args.size() == 3)
      return make_op(Op::Select, {expr(c.args[0], where), operand(c.args[1], c.args[2], where),
                                  operand(c.args[2], c.args[1], where)});
    if (c.is_intrinsic(Call::saturating_cast)) {
      typed = true;
      return make_op(Op::SaturatingCast, {expr(c.args[0], where)}, {}, type_of(c.type, where));
    }
    static const std::map<Call::IntrinsicOp, Op> ops = {
        {Call::abs, Op::Abs}, {Call::absd, Op::Absd}, {Call::bitwise_and, Op::BitAnd}, {Call::bitwise_or, Op::BitOr},
        {Call::bitwise_xor, Op::BitXor}, {Call::bitwise_not, Op::BitNot}, {Call::shift_left, Op::Shl},
        {Call::shift_right, Op::Shr}, {Call::widening_add, Op::WideningAdd}, {Call::widening_sub, Op::WideningSub},
        {Call::widening_mul, Op::WideningMul}, {Call::saturating_add, Op::SaturatingAdd},
        {Call::saturating_sub, Op::SaturatingSub}, {Call::halving_add, Op::HalvingAdd},
        {Call::halving_sub, Op::HalvingSub}, {Call::rounding_halving_add, Op::RoundingHalvingAdd},
        {Call::rounding_shift_left, Op::RoundingShiftLeft}, {Call::rounding_shift_right, Op::RoundingShiftRight},
        {Call::mul_shift_right, Op::MulShiftRight}, {Call::rounding_mul_shift_right, Op::RoundingMulShiftRight},
        {Call::count_leading_zeros, Op::CountLeadingZeros}, {Call::count_trailing_zeros, Op::CountTrailingZeros},
        {Call::popcount, Op::Popcount}, {Call::lerp, Op::Lerp}, {Call::round, Op::Round}};
    for (const auto& [intrinsic, op] : ops)
      if (c.is_intrinsic(intrinsic)) {
        typed = true;
        if (c.args.size() == 2) return binary(op, c.args[0], c.args[1], where);
        for (const Halide::Expr& a : c.args) args.push_back(expr(a, where));
        return make_op(op, args);
      }
    refuse(where, fmt::format("Halide's intrinsic {}", c.name));
  }
};

// The funcs a definition calls (its values, arguments, predicate, RDom and specializations).
struct DirectCalls : HI::IRGraphVisitor {
  std::set<std::string> funcs;
  using HI::IRGraphVisitor::visit;
  void visit(const HI::Call* c) override {
    if (c->call_type == HI::Call::Halide) funcs.insert(c->name);
    HI::IRGraphVisitor::visit(c);
  }
};

// Whether Halide inlines f: no compute level, and inlinable (one pure stage, not
// specialized: Function::can_be_inlined).
bool halide_inlines(const HI::Function& f) {
  Halide::LoopLevel level = f.schedule().compute_level();
  level.lock();
  return level.is_inlined() && f.can_be_inlined();
}

// The funcs a stage reads: those it calls, and through each func Halide inlines, theirs.
std::set<std::string> funcs_read(const HI::Definition& stage, const std::map<std::string, HI::Function>& env) {
  DirectCalls calls;
  stage.accept(&calls);
  std::vector<std::string> todo(calls.funcs.begin(), calls.funcs.end());
  std::set<std::string> read;
  while (!todo.empty()) {
    std::string g = todo.back();
    todo.pop_back();
    if (!read.insert(g).second) continue;
    auto it = env.find(g);
    if (it == env.end() || !halide_inlines(it->second)) continue;
    DirectCalls through;
    it->second.definition().accept(&through);
    todo.insert(todo.end(), through.funcs.begin(), through.funcs.end());
  }
  return read;
}

// The inlined identities among the funcs (Importer::aliases), each resolved to the func or
// input it finally reads; never the output, whose values are the pipeline's.
std::map<std::string, Importer::Alias> find_aliases(const std::map<std::string, HI::Function>& env,
                                                    const std::string& output) {
  std::map<std::string, Importer::Alias> direct;
  for (const auto& [name, fn] : env) {
    if (name == output || fn.outputs() != 1 || !halide_inlines(fn)) continue;
    const auto* c = fn.definition().values()[0].as<HI::Call>();
    if (!c || c->args.size() != fn.args().size() || c->value_index != 0 || c->type != fn.output_types()[0]) continue;
    bool identity = c->call_type == HI::Call::Halide || (c->call_type == HI::Call::Image && c->param.defined());
    for (size_t k = 0; identity && k < c->args.size(); ++k) {
      const auto* v = c->args[k].as<HI::Variable>();
      identity = v && v->name == fn.args()[k] && !v->param.defined();
    }
    if (identity) direct[name] = Importer::Alias{c->call_type == HI::Call::Halide ? c->name : "", c->param};
  }
  std::map<std::string, Importer::Alias> resolved;
  for (const auto& [name, a] : direct) {
    Importer::Alias to = a;
    for (size_t steps = 0; !to.param.defined() && direct.count(to.func) && steps < direct.size(); ++steps)
      to = direct.at(to.func);
    resolved[name] = to;
  }
  return resolved;
}

// Halide's BoundaryConditions on an input, with the input's own bounds, written back as
// such (`fun clamped(x, y) = repeat_edge(img)`): a pure func whose definition is exactly the
// formula halo's boundary_formula builds for one of them (Halide's, semantics/boundary.hpp)
// takes that form; anything else stays the formula it is.
void recognise_boundary_conditions(Pipeline& p) {
  constexpr BoundaryKind kKinds[] = {BoundaryKind::RepeatEdge, BoundaryKind::ConstantExterior,
                                     BoundaryKind::RepeatImage, BoundaryKind::MirrorImage,
                                     BoundaryKind::MirrorInterior};
  for (FuncDef& f : p.funcs) {
    if (!f.updates.empty() || &f == &p.funcs.back()) continue;
    for (const InputDef& in : p.inputs) {
      if (in.dims() != f.vars.size()) continue;
      for (BoundaryKind kind : kKinds) {
        BoundaryCondition bc;
        bc.kind = kind;
        bc.source = in.name;
        if (kind == BoundaryKind::ConstantExterior) {
          const auto* sel = f.pure->kind == ExprKind::Op ? &as<OpNode>(f.pure) : nullptr;
          if (!sel || sel->op != Op::Select) continue;
          bc.value = sel->args[1];
        }
        Expr formula = boundary_formula(bc, f.vars, true);
        if (same_expr(formula, f.pure)) {
          f.boundary = bc;
          f.pure = formula;
          break;
        }
      }
      if (f.boundary) break;
    }
  }
}

// ---------------------------------------------------------------- the schedule
const char* tail_word(Halide::TailStrategy t, const std::string& where) {
  switch (t) {
    case Halide::TailStrategy::GuardWithIf: return "guard";
    case Halide::TailStrategy::ShiftInwards: return "shift";
    case Halide::TailStrategy::RoundUp: return "round";
    case Halide::TailStrategy::Predicate: return "predicate";
    case Halide::TailStrategy::PredicateLoads: return "predicate_loads";
    case Halide::TailStrategy::PredicateStores: return "predicate_stores";
    default: refuse(where, "the tail strategy " + str(t));
  }
}

// Which stage a directive schedules: spec j of func f (0 when f has no specialization),
// stage i. In Halide's vocabulary a func name is stage 0 of every specialization, so a
// specialized func's stages are always written <f, j, i>.
struct StageAt {
  std::string func;
  int64_t spec = 0;
  size_t stage = 0;
  bool specialized = false;
  std::string ref() const {
    return stage == 0 && !specialized ? func : fmt::format("<{}, {}, {}>", func, spec, stage);
  }
  std::string loop(const std::string& v) const { return fmt::format("<{}, {}, {}, {}>", func, spec, stage, v); }
};

std::string stage_where(const std::string& f, size_t stage, int64_t spec = 0) {
  std::string s = stage == 0 ? fmt::format("func '{}'", f) : fmt::format("func '{}', update {}", f, stage - 1);
  return spec == 0 ? s : fmt::format("{}, specialization {}", s, spec);
}


struct StageLoops {
  std::map<std::string, std::string> name;  // Halide's loop name -> halo's, after every split
  std::set<std::string> final;              // Halide's names of the loops the stage ends with
  // halo's name of the loop a LoopLevel names: Halide matches a loop of the stage as lowered
  // ("x.xo") by its last part (Schedule.cpp, LoopLevel::match), so a variable split into an
  // outer loop of its own name (tile(x, y, xi, yi, ...): "x.x") names that outer loop.
  std::optional<std::string> find(const std::string& var) const {
    for (const auto& [h, n] : name)
      if ((final.empty() || final.count(h)) &&
          (h == var || (h.size() > var.size() && h.compare(h.size() - var.size() - 1, std::string::npos, "." + var) == 0)))
        return n;
    return std::nullopt;
  }
};

// A compute_with met in a stage: `at` computed with the stage and loop of `with`.
struct PendingComputeWith {
  StageAt at;
  Halide::LoopLevel with;
  std::string where;
};

// One stage's splits, loop order and loop types, as directives; fills `loops`.
// `vars` are the Halide names of the stage's variables (the func's, then the RDom's).
void schedule_stage(Importer& im, const FuncDef& f, const StageAt& at, const HI::Definition& def,
                    const std::vector<std::string>& vars, StageLoops& loops, std::vector<std::string>& out,
                    std::vector<PendingComputeWith>& compute_with) {
  const size_t stage = at.stage;
  const std::string where = stage_where(f.name.text, stage, at.spec);
  const HI::StageSchedule& s = def.schedule();
  // compute_with: the stage's fuse level (the other stage keeps the pair, fused_pairs, as a
  // record of the same thing), resolved once every stage's loops are named.
  Halide::LoopLevel fused_with = s.fuse_level().level;
  fused_with.lock();
  if (!fused_with.is_inlined() && !fused_with.is_root()) {
    for (const auto& [v, align] : s.fuse_level().align)
      if (align != Halide::LoopAlignStrategy::Auto)
        refuse(where, fmt::format("compute_with aligning {} by strategy {} (halo's compute_with aligns as "
                                  "LoopAlignStrategy::Auto)", v, int(align)));
    compute_with.push_back(PendingComputeWith{at, fused_with, where});
  }
  if (s.allow_race_conditions()) refuse(where, "allow_race_conditions");
  if (s.atomic()) refuse(where, "atomic");
  if (!s.prefetches().empty()) refuse(where, "prefetch");

  // The loops as halo nests them before any directive, outermost first, by halo name; the
  // Halide names of the stage's variables map to them.
  std::vector<std::string> model = initial_loop_names(f, stage);
  std::set<std::string> taken(im.names.used().begin(), im.names.used().end());
  taken.insert(model.begin(), model.end());
  for (const std::string& v : vars) {
    std::string h = im.names.of("var", v);
    if (std::find(model.begin(), model.end(), h) != model.end()) loops.name[v] = h;
  }
  auto halo_of = [&](const std::string& v) {
    auto it = loops.name.find(v);
    if (it == loops.name.end()) refuse(where, fmt::format("the schedule names a loop '{}' the stage does not have", v));
    return it->second;
  };
  auto position = [&](const std::string& v) { return size_t(std::find(model.begin(), model.end(), v) - model.begin()); };
  for (const HI::Split& sp : s.splits()) {
    switch (sp.split_type) {
      case HI::Split::SplitVar: {
        std::string old = halo_of(sp.old_var);
        std::string outer = Names::unique(Names::sanitize(last_part(sp.outer)), taken);
        std::string inner = Names::unique(Names::sanitize(last_part(sp.inner)), taken);
        Directive d;
        d.kind = DirectiveKind::Split;
        d.loop = LoopName{Name{f.name.text, {}}, at.spec, int64_t(stage), Name{old, {}}, {}};
        d.names = {Name{outer, {}}, Name{inner, {}}};
        d.exprs = {im.expr(sp.factor, where + ", split factor")};
        d.tail = *tail_strategy(tail_word(sp.tail, where));
        out.push_back(print_directive(d));
        size_t p = position(old);
        model[p] = outer;
        model.insert(model.begin() + p + 1, inner);
        loops.name[sp.outer] = outer;
        loops.name[sp.inner] = inner;
        break;
      }
      case HI::Split::RenameVar:  // a new name for the same loop: halo keeps its own
        loops.name[sp.outer] = halo_of(sp.old_var);
        break;
      case HI::Split::FuseVars: {
        std::string outer = halo_of(sp.outer), inner = halo_of(sp.inner);
        // halo's fuse joins a loop with the one directly inside it: put it there first.
        if (position(inner) != position(outer) + 1) {
          model.erase(model.begin() + position(inner));
          model.insert(model.begin() + position(outer) + 1, inner);
          std::vector<std::string> innermost_first(model.rbegin(), model.rend());
          out.push_back(fmt::format("reorder({}, {})", at.ref(), fmt::join(innermost_first, ", ")));
        }
        std::string fused = Names::unique(Names::sanitize(last_part(sp.old_var)), taken);
        out.push_back(fmt::format("fuse({}, {})", at.loop(outer), fused));
        size_t p = position(outer);
        model[p] = fused;
        model.erase(model.begin() + p + 1);
        loops.name[sp.old_var] = fused;
        break;
      }
#if HALO_HALIDE_MAJOR < 21
      case HI::Split::PurifyRVar:  // rfactor's: the RVar became the pure variable outer
        if (loops.name.count(sp.outer)) loops.name[sp.old_var] = loops.name[sp.outer];
        else loops.name[sp.outer] = halo_of(sp.old_var);
        break;
#endif
      default: refuse(where, fmt::format("the split of {} of type {}", sp.old_var, int(sp.split_type)));
    }
  }
  // The final order (Halide's dims, innermost first) and each loop's type.
  std::vector<std::string> order;
  std::vector<std::string> traversals;
  for (const HI::Dim& d : s.dims()) {
    if (d.var == Halide::Var::outermost().name()) continue;
    loops.final.insert(d.var);
    std::string v = halo_of(d.var);
    order.push_back(v);
    if (d.for_type == HI::ForType::GPUBlock || d.for_type == HI::ForType::GPUThread || d.for_type == HI::ForType::GPULane)
      refuse(where, fmt::format("the GPU loop {} ({}; halo runs on the host)", d.var, str(d.for_type)));
    if (d.device_api != Halide::DeviceAPI::None && d.device_api != Halide::DeviceAPI::Host)
      refuse(where, fmt::format("the loop {} on the device {}", d.var, str(d.device_api)));
    switch (d.for_type) {
      case HI::ForType::Serial: break;
      case HI::ForType::Parallel: traversals.push_back(fmt::format("parallel({}, {})", at.ref(), v)); break;
      case HI::ForType::Vectorized: traversals.push_back(fmt::format("vectorize({}, {})", at.ref(), v)); break;
      case HI::ForType::Unrolled: traversals.push_back(fmt::format("traverse({}, unrolled)", at.loop(v))); break;
      default: refuse(where, fmt::format("the loop {} of type {}", d.var, str(d.for_type)));
    }
  }
  std::vector<std::string> model_innermost_first(model.rbegin(), model.rend());
  if (order != model_innermost_first)
    out.push_back(fmt::format("reorder({}, {})", at.ref(), fmt::join(order, ", ")));
  out.insert(out.end(), traversals.begin(), traversals.end());
}

// ---------------------------------------------------------------- the realization
std::vector<std::pair<int64_t, int64_t>> parse_box(const std::vector<std::string>& parts, const std::string& what) {
  std::vector<std::pair<int64_t, int64_t>> box;
  for (const std::string& p : parts) {
    long long mn = 0, len = 0;
    char extra = 0;
    if (std::sscanf(p.c_str(), "%lld,%lld%c", &mn, &len, &extra) != 2 || len < 0)
      throw ImportRefused(fmt::format("{}: expects MIN,LEN with LEN >= 0, got '{}'", what, p));
    box.emplace_back(mn, len);
  }
  return box;
}

std::string box_text(const std::vector<std::pair<int64_t, int64_t>>& box) {
  std::vector<std::string> parts;
  for (auto [mn, len] : box) parts.push_back(fmt::format("({}, {})", mn, len));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// The parameter set to `text`, a decimal integer (a u64 beyond int64 too), or a float's
// number, for the bounds query (Halide wraps an integer to the parameter's type as a
// Param<T>::set would).
void set_scalar(Halide::Parameter& p, const std::string& text) {
  const Halide::Type t = p.type();
  if (t.is_float()) {  // a float parameter's text is a decimal, inf or nan (parse_number_text)
    std::optional<Value> f = parse_number_text(text);
    double d = !f ? 0.0 : f->is_float() ? f->as_double() : double(std::strtoll(text.c_str(), nullptr, 10));
    if (t.bits() == 32) p.set_scalar<float>(float(d));
    else p.set_scalar<double>(d);
    return;
  }
  int64_t v = t.is_uint() && t.bits() == 64 ? int64_t(std::strtoull(text.c_str(), nullptr, 10))
                                            : int64_t(std::strtoll(text.c_str(), nullptr, 10));
  if (t.is_bool()) p.set_scalar<bool>(v != 0);
  else if (t.is_int()) {
    switch (t.bits()) {
      case 8: p.set_scalar<int8_t>(int8_t(v)); break;
      case 16: p.set_scalar<int16_t>(int16_t(v)); break;
      case 32: p.set_scalar<int32_t>(int32_t(v)); break;
      default: p.set_scalar<int64_t>(v); break;
    }
  } else {
    switch (t.bits()) {
      case 8: p.set_scalar<uint8_t>(uint8_t(v)); break;
      case 16: p.set_scalar<uint16_t>(uint16_t(v)); break;
      case 32: p.set_scalar<uint32_t>(uint32_t(v)); break;
      default: p.set_scalar<uint64_t>(uint64_t(v)); break;
    }
  }
}

// The value the file gave the parameter; 0 (Param's default) where it gave none.
std::string scalar_value(const Halide::Parameter& p) {
  if (!p.has_scalar_value()) return "0";
  // A float's value, written as halo writes floats (the shortest round trip, inf, nan).
  if (p.type() == Halide::Float(32)) return Value::f32(p.scalar<float>()).to_string();
  if (p.type() == Halide::Float(64)) return Value::f64(p.scalar<double>()).to_string();
  Halide::Expr e = p.scalar_expr();
  if (const auto* i = e.as<HI::IntImm>()) return std::to_string(i->value);
  if (const auto* u = e.as<HI::UIntImm>()) return std::to_string(u->value);
  return "0";
}

}  // namespace

namespace {
std::string import_text(const std::string& path, const ImportOptions& o);
}

// Halide's own errors while walking its IR are reported like a refusal, naming Halide.
std::string import_hlpipe_with_halide(const std::string& path, const ImportOptions& o) {
  try {
    return import_text(path, o);
  } catch (const Halide::Error& e) {
    throw ImportRefused(fmt::format("Halide {} failed on it: {}", HALO_HALIDE_VERSION, e.what()));
  }
}

namespace {

std::string import_text(const std::string& path, const ImportOptions& o) {
  Halide::Pipeline pipe;
  try {
    pipe = Halide::deserialize_pipeline(path, {});
  } catch (const Halide::Error& e) {
    throw ImportRefused(fmt::format("Halide {} could not read it: {}", HALO_HALIDE_VERSION, e.what()));
  }
  if (!pipe.defined()) throw ImportRefused(fmt::format("Halide {} could not read it", HALO_HALIDE_VERSION));
  std::vector<Halide::Func> outs = pipe.outputs();
  if (outs.size() != 1)
    throw ImportRefused(fmt::format("a pipeline with {} outputs (halo's pipeline has one output func)", outs.size()));
  std::vector<HI::Function> out_fns{outs[0].function()};
  std::map<std::string, HI::Function> env = HI::build_environment(out_fns);
  std::vector<std::string> order = HI::topological_order(out_fns, env);

  Importer im;
  im.file = path;
  im.aliases = find_aliases(env, outs[0].name());
  order.erase(std::remove_if(order.begin(), order.end(), [&](const std::string& n) { return im.aliases.count(n); }),
              order.end());
  // Every func's name first, so that variables never take one.
  for (const std::string& n : order) im.names.of("func", n);

  Program prog;
  Pipeline& p = prog.pipeline;
  p.name = Name{im.names.of("func", outs[0].name()), {}};
  for (const std::string& n : order) {
    const HI::Function& fn = env.at(n);
    FuncDef f;
    f.name = Name{im.names.of("func", n), {}};
    const std::string where = stage_where(f.name.text, 0);
    if (fn.has_extern_definition()) refuse(where, "an extern stage (define_extern)");
    if (fn.outputs() != 1) refuse(where, fmt::format("a Tuple of {} values", fn.outputs()));
    if (!fn.has_pure_definition()) refuse(where, "no pure definition");
    Type t = im.type_of(fn.output_types()[0], where);
    f.declared = t;
    f.type = t;
    for (const std::string& a : fn.args()) f.vars.push_back(Name{im.names.of("var", a), {}});
    const HI::Definition& init = fn.definition();
    const Halide::Expr& v0 = init.values()[0];
    f.pure = Importer::is_literal(v0) ? im.literal(v0, v0.type() == fn.output_types()[0], where) : im.expr(v0, where);
    for (size_t u = 0; u < fn.updates().size(); ++u) {
      const HI::Definition& d = fn.updates()[u];
      const std::string uw = stage_where(f.name.text, u + 1);
      UpdateStage st;
      for (const HI::ReductionVariable& rv : d.schedule().rvars())
        st.rdom.push_back(RVar{Name{im.names.of("var", rv.var), {}}, im.expr(rv.min, uw + ", RDom"), im.expr(rv.extent, uw + ", RDom")});
      st.explicit_rdom = !st.rdom.empty();
      for (const Halide::Expr& a : d.args()) st.lhs.push_back(im.expr(a, uw));
      const Halide::Expr& v = d.values()[0];
      st.value = Importer::is_literal(v) ? im.literal(v, v.type() == fn.output_types()[0], uw) : im.expr(v, uw);
      if (d.predicate().defined() && !HI::is_const_one(d.predicate())) st.predicate = im.expr(d.predicate(), uw + ", RDom::where");
      f.updates.push_back(std::move(st));
    }
    p.funcs.push_back(std::move(f));
  }
  p.typed = im.typed;
  if (!im.typed)  // every type Int(32): the thesis's program in ℤ (docs/import.md)
    for (FuncDef& f : p.funcs) f.declared.reset();
  for (const std::string& n : im.param_order) {
    const ParamInfo& pi = im.params.at(n);
    p.params.push_back(Name{pi.name, {}});
    p.param_types.push_back(im.typed ? std::optional<Type>(halo_type(pi.type, "")) : std::nullopt);
  }

  // The schedule, func by func in realization order.
  std::vector<std::string> sched;
  // By Halide func name, per specialization (0: the general definition), per stage.
  std::map<std::string, std::vector<std::vector<StageLoops>>> loops;
  std::vector<PendingComputeWith> compute_with;
  std::map<std::string, std::string> halide_name;  // of each func, by halo's
  for (size_t i = 0; i < order.size(); ++i) halide_name[p.funcs[i].name.text] = order[i];
  for (size_t i = 0; i < order.size(); ++i) {
    const HI::Function& fn = env.at(order[i]);
    const FuncDef& f = p.funcs[i];
    // Halide specializes stage by stage, halo a whole func (specialize(f, c1, ..., cn), the
    // copy j computing every stage when cj is the first condition that holds): the stages
    // must share the conditions, or an update have none (its copies then keep its schedule).
    const std::vector<HI::Specialization>& specs = fn.definition().specializations();
    std::vector<Expr> conditions;
    for (const HI::Specialization& sp : specs) {
      const std::string where = stage_where(f.name.text, 0, int64_t(conditions.size() + 1));
      if (!sp.failure_message.empty()) refuse(where, "specialize_fail");
      if (!sp.definition.specializations().empty()) refuse(where, "a specialization of a specialization");
      conditions.push_back(im.expr(sp.condition, where + ", condition"));
    }
    for (size_t u = 0; u < fn.updates().size(); ++u) {
      const auto& us = fn.updates()[u].specializations();
      bool same = us.size() == specs.size();
      for (size_t k = 0; same && k < us.size(); ++k) same = HI::equal(us[k].condition, specs[k].condition);
      if (!us.empty() && !same)
        refuse(stage_where(f.name.text, u + 1), "specializations other than the pure definition's (halo specializes "
                                                "a whole func)");
    }
    if (!conditions.empty()) {
      std::vector<std::string> cs;
      for (const Expr& c : conditions) cs.push_back(print_expr(c));
      sched.push_back(fmt::format("specialize({}, {})", f.name.text, fmt::join(cs, ", ")));
    }
    auto& ls = loops[order[i]];
    ls.assign(specs.size() + 1, std::vector<StageLoops>(f.stage_count()));
    for (size_t j = 0; j <= specs.size(); ++j) {
      auto def_of = [&](const HI::Definition& general) -> const HI::Definition& {
        return j == 0 || general.specializations().empty() ? general : general.specializations()[j - 1].definition;
      };
      StageAt at{f.name.text, int64_t(j), 0, !specs.empty()};
      schedule_stage(im, f, at, def_of(fn.definition()), fn.args(), ls[j][0], sched, compute_with);
      for (size_t u = 0; u < fn.updates().size(); ++u) {
        std::vector<std::string> vars = fn.args();
        for (const HI::ReductionVariable& rv : fn.updates()[u].schedule().rvars()) vars.push_back(rv.var);
        at.stage = u + 1;
        schedule_stage(im, f, at, def_of(fn.updates()[u]), vars, ls[j][u + 1], sched, compute_with);
      }
    }
  }
  // A loop level of stage -1 (Halide's LoopLevel(f, x) without a stage) matches the loop x of
  // any stage, and Halide computes the producer in the first one it meets: stage order. In
  // a specialized f it matches the loop of every specialization: halo's <f, *, i, x>.
  auto level_ref = [&](const Halide::LoopLevel& l, const std::string& where) {
    std::string func = l.func(), var = l.var().name();
    auto fit = loops.find(func);
    if (fit == loops.end() || l.get_stage_index() >= int(fit->second[0].size()))
      refuse(where, fmt::format("a loop level in '{}', which is not in the pipeline", func));
    const auto& specs = fit->second;
    for (size_t s = 0; s < specs[0].size(); ++s) {
      if (l.get_stage_index() >= 0 && s != size_t(l.get_stage_index())) continue;
      auto n = specs[0][s].find(var);
      if (!n) continue;
      if (specs.size() == 1) return fmt::format("<{}, 0, {}, {}>", im.names.of("func", func), s, *n);
      for (const auto& spec : specs)
        if (spec[s].find(var) != n)
          refuse(where, fmt::format("the loop level {}.{}, named differently in the specializations of '{}'", func,
                                    var, func));
      return fmt::format("<{}, *, {}, {}>", im.names.of("func", func), s, *n);
    }
    refuse(where, fmt::format("the loop level {}.{}, which is not a loop of '{}'", func, var, func));
  };
  for (const PendingComputeWith& cw : compute_with) {
    // Both stages' loops of Halide's name: halo's compute_with(<f, j, i, v>, <g, j', i', v'>).
    std::string with = level_ref(cw.with, cw.where);
    const StageLoops& names = loops.at(halide_name.at(cw.at.func))[size_t(cw.at.spec)][cw.at.stage];
    auto n = names.find(cw.with.var().name());
    if (!n) refuse(cw.where, fmt::format("compute_with at {}, which is not a loop of this stage", cw.with.var().name()));
    if (with.find(", *,") != std::string::npos)
      refuse(cw.where, "compute_with a specialized func's stage");
    sched.push_back(fmt::format("compute_with({}, {})", cw.at.loop(*n), with));
  }
  // Every compute_inline comes first: halo applies placements in the order written, and a
  // func computed at a loop of the consumer of an inlined func that reads it (g.compute_at(f,
  // y) with h(x, y) = g(x, y) inlined into f) is read there only once h is inlined.
  const size_t placements_begin = sched.size();
  size_t inlines = 0;
  // Placed last, for the same reason: a read through an inlined func is its reader's.
  std::vector<std::string> around_stores;
  for (size_t i = 0; i + 1 < order.size(); ++i) {
    const HI::Function& fn = env.at(order[i]);
    const std::string& g = p.funcs[i].name.text;
    const std::string where = stage_where(g, 0);
    const HI::FuncSchedule& fs = fn.schedule();
    Halide::LoopLevel compute = fs.compute_level(), store = fs.store_level(), hoist = fs.hoist_storage_level();
    compute.lock();
    store.lock();
    hoist.lock();
    // Halide resolves these when lowering starts (Function::lock_loop_levels): storage
    // inlined means at the compute level, hoisting inlined at the storage level.
    if (store.is_inlined()) store = compute;
    if (hoist.is_inlined()) hoist = store;
    if (fs.memoized()) refuse(where, "memoize");
    if (!fs.wrappers().empty()) refuse(where, "a wrapper (Func::in)");
    if (fs.memory_type() != Halide::MemoryType::Auto && fs.memory_type() != Halide::MemoryType::Heap &&
        fs.memory_type() != Halide::MemoryType::Stack && fs.memory_type() != Halide::MemoryType::Register)
      refuse(where, "the memory type " + str(fs.memory_type()));
    if (compute.is_inlined() && fn.updates().empty()) {
      sched.insert(sched.begin() + std::ptrdiff_t(placements_begin + inlines++), fmt::format("compute_inline({})", g));
      continue;
    }
    if (compute.is_inlined()) {
      // Halide cannot inline a func with updates (an inline reduction's sum, maximum, ...):
      // it realizes it around each store of the stage that reads it (ScheduleFunctions.cpp,
      // inline_to_provide), inside that stage's innermost loop, as halo's `schedule halide`
      // defaults do (docs/halide-users.md). One compute_at says it when one stage reads it.
      std::vector<std::pair<size_t, size_t>> readers;  // (func in order, stage)
      for (size_t k = 0; k < order.size(); ++k) {
        const HI::Function& r = env.at(order[k]);
        // What an inlined func reads, its readers read (Halide never inlines the output, the last).
        if (k == i || (k + 1 < order.size() && halide_inlines(r))) continue;
        if (funcs_read(r.definition(), env).count(order[i])) readers.emplace_back(k, 0);
        for (size_t u = 0; u < r.updates().size(); ++u)
          if (funcs_read(r.updates()[u], env).count(order[i])) readers.emplace_back(k, u + 1);
      }
      const std::string no_level = "a func with update stages and no compute level (Halide computes it where it is used";
      if (readers.size() != 1)
        refuse(where, fmt::format("{}, in each of the {} stages that read it, which one compute_at cannot say; "
                                  "schedule it with compute_root or compute_at)", no_level, readers.size()));
      auto [k, stage] = readers[0];
      const auto& reader_loops = loops.at(order[k]);
      if (reader_loops.size() > 1)
        refuse(where, fmt::format("{}, in each specialization of '{}', which one compute_at cannot say; schedule it "
                                  "with compute_root or compute_at)", no_level, p.funcs[k].name.text));
      const HI::Function& r = env.at(order[k]);
      const auto& dims = (stage == 0 ? r.definition() : r.updates()[stage - 1]).schedule().dims();
      if (dims.size() < 2) continue;  // only Halide's __outermost: no loop, so at the root, where halo computes it
      auto innermost = reader_loops[0][stage].find(dims[0].var);
      if (!innermost) refuse(where, fmt::format("{}, in the loop {}, which is not a loop of '{}')", no_level,
                                                dims[0].var, p.funcs[k].name.text));
      std::string at = fmt::format("<{}, 0, {}, {}>", p.funcs[k].name.text, stage, *innermost);
      around_stores.push_back(fmt::format("compute_at({}, {})", g, at));
      around_stores.push_back(fmt::format("store_at({}, {})", g, at));
      continue;
    }
    if (compute.is_root()) {
      sched.push_back(fmt::format("compute_root({})", g));
    } else {
      std::string at = level_ref(compute, where);
      if (store.is_root()) sched.push_back(fmt::format("store_root({})", g));
      sched.push_back(fmt::format("compute_at({}, {})", g, at));
      if (!store.is_root()) {
        // A LoopLevel in a specialized func names its loop in every specialization; halo's
        // store_at names one allocation site. Stored where it is computed, that is Halide's
        // default, which `schedule halide` leaves to Halide (semantics decision 33); stored at
        // another loop of every specialization has no form.
        auto fit = loops.find(store.func());
        bool every_spec = fit != loops.end() && fit->second.size() > 1;
        if (every_spec && !(store == compute))
          refuse(where, fmt::format("storage at the loop {}.{} of every specialization of '{}', another loop than "
                                    "the one {} is computed at (halo stores a func at one loop)",
                                    store.func(), store.var().name(), store.func(), g));
        if (!every_spec) sched.push_back(fmt::format("store_at({}, {})", g, level_ref(store, where)));
      }
      // (halo's compute_at leaves storage at the root: both levels are written.)
    }
    if (!(hoist == store)) {
      if (hoist.is_root()) refuse(where, "hoist_storage_root");
      sched.push_back(fmt::format("hoist_storage({}, {})", g, level_ref(hoist, where)));
    }
    if (fs.async()) sched.push_back(fmt::format("async({})", g));
  }
  sched.insert(sched.end(), around_stores.begin(), around_stores.end());
  for (size_t i = 0; i < order.size(); ++i) {
    const HI::FuncSchedule& fs = env.at(order[i]).schedule();
    const std::string& g = p.funcs[i].name.text;
    const std::string where = stage_where(g, 0);
    for (const HI::Bound& b : fs.bounds()) {
      std::string v = im.names.of("var", b.var);
      if (b.min.defined() && b.extent.defined())
        sched.push_back(fmt::format("bound({}, {}, {}, {})", g, v, print_expr(im.expr(b.min, where)), print_expr(im.expr(b.extent, where))));
      else if (b.extent.defined())
        sched.push_back(fmt::format("bound_extent({}, {}, {})", g, v, print_expr(im.expr(b.extent, where))));
      if (b.modulus.defined())
        sched.push_back(fmt::format("align_bounds({}, {}, {}, {})", g, v, print_expr(im.expr(b.modulus, where)),
                                    print_expr(im.expr(b.remainder, where))));
    }
    for (const HI::StorageDim& sd : fs.storage_dims()) {
      if (!sd.fold_factor.defined()) continue;
      if (!sd.fold_forward) refuse(where, "fold_storage folding backwards");
      sched.push_back(fmt::format("fold_storage({}, {}, {})", g, im.names.of("var", sd.var), print_expr(im.expr(sd.fold_factor, where))));
    }
  }

  // The realization: the options, else defaults said at the top of the program.
  std::vector<std::string> notes;
  const FuncDef& out = p.funcs.back();
  std::vector<std::pair<int64_t, int64_t>> window = parse_box(o.realization.windows, "--window");
  if (window.empty()) {
    for (size_t d = 0; d < out.vars.size(); ++d) window.emplace_back(0, d < 2 ? 16 : 4);
    notes.push_back(fmt::format("the output window {} (no --window given)", box_text(window)));
  } else if (window.size() != out.vars.size()) {
    throw ImportRefused(fmt::format("--window: the output func '{}' has {} dimension(s), {} given", out.name.text,
                                    out.vars.size(), window.size()));
  }
  std::map<std::string, std::string> values;
  for (const std::string& n : im.param_order) values[im.params.at(n).name] = scalar_value(im.params.at(n).param);
  for (const std::string& kv : o.realization.params) {
    auto eq = kv.find('=');
    std::optional<Value> v = eq == std::string::npos ? std::nullopt : parse_number_text(kv.substr(eq + 1));
    if (!v || v->is_error()) throw ImportRefused(fmt::format("--param expects NAME=VALUE, got '{}'", kv));
    std::string name = kv.substr(0, eq);
    if (!values.count(name)) throw ImportRefused(fmt::format("--param: the pipeline has no parameter '{}'", name));
    values[name] = v->to_string();
  }
  if (!im.param_order.empty() && o.realization.params.empty())
    notes.push_back("the parameters' values the file holds, 0 where it holds none (no --param given)");
  Realization r;
  for (auto [mn, len] : window) r.window.push_back(Interval{Value(mn), Value(len), {}});
  for (const std::string& n : im.param_order) {
    ParamInfo& pi = im.params.at(n);
    set_scalar(pi.param, values.at(pi.name));
    r.params.push_back(ParamBinding{Name{pi.name, {}}, parse_number_text(values.at(pi.name)).value_or(Value(0))});
  }
  // Each input: --input NAME=SPEC (input_buffers.hpp), else seeded data over the region
  // Halide's own bounds inference asks of it for this window.
  std::map<std::string, InputBinding> given;
  for (const std::string& kv : o.realization.inputs) {
    InputBinding b = parse_input_flag(kv, path);
    bool known = false;
    for (const auto& [h, in] : im.inputs) known |= in.name == b.name.text;
    if (!known) throw ImportRefused(fmt::format("--input: the pipeline has no input '{}'", b.name.text));
    if (b.source != InputSourceKind::Seeded)  // absolute: the program is read from wherever it is written
      b.path = std::filesystem::absolute(b.path).lexically_normal().string();
    given[b.name.text] = b;
  }
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> inferred;
  bool need_inference = false;
  for (const std::string& n : im.input_order) need_inference |= !given.count(im.inputs.at(n).name);
  if (need_inference) {
    try {
      std::vector<int> sizes, mins;
      for (auto [mn, len] : window) sizes.push_back(int(len)), mins.push_back(int(mn));
      Halide::Buffer<> query(outs[0].function().output_types()[0], sizes);
      query.set_min(mins);
      pipe.infer_input_bounds(query);
      for (const std::string& n : im.input_order) {
        Halide::Buffer<> b = im.inputs.at(n).param.buffer();
        if (!b.defined()) continue;
        std::vector<std::pair<int64_t, int64_t>> box;
        for (int d = 0; d < b.dimensions(); ++d) box.emplace_back(b.dim(d).min(), b.dim(d).extent());
        inferred[n] = box;
      }
    } catch (const Halide::Error&) {
    }
  }
  for (const std::string& n : im.input_order) {
    const InputInfo& in = im.inputs.at(n);
    static const char* kDimNames[] = {"x", "y", "c", "w"};
    InputDef decl;
    decl.name = Name{in.name, {}};
    for (int d = 0; d < in.dims; ++d) decl.vars.push_back(Name{d < 4 ? kDimNames[d] : fmt::format("d{}", d), {}});
    if (im.typed) decl.declared = halo_type(in.type, "");
    decl.type = im.typed ? *decl.declared : Type();
    p.inputs.push_back(decl);
    if (auto g = given.find(in.name); g != given.end()) {
      r.inputs.push_back(g->second);
      continue;
    }
    std::vector<std::pair<int64_t, int64_t>> box;
    if (auto it = inferred.find(n); it != inferred.end()) {
      // At least the window where dimensions correspond: a boundary condition's source may
      // be asked for as little as one point.
      box = it->second;
      for (size_t d = 0; d < box.size() && d < window.size(); ++d) {
        int64_t lo = std::min(box[d].first, window[d].first);
        int64_t hi = std::max(box[d].first + box[d].second, window[d].first + window[d].second);
        box[d] = {lo, hi - lo};
      }
      notes.push_back(fmt::format("input {}: seeded data over {}, the region Halide {}'s bounds inference needs for "
                                  "the window, with the window (no --input given)", in.name, box_text(box), HALO_HALIDE_VERSION));
    } else {
      for (int d = 0; d < in.dims; ++d) box.emplace_back(-8, d < int(window.size()) ? window[d].second + 16 : 4);
      notes.push_back(fmt::format("input {}: seeded data over {}, the window with 8 points of margin (Halide's "
                                  "bounds inference failed; no --input given)", in.name, box_text(box)));
    }
    InputBinding b;
    b.name = Name{in.name, {}};
    b.source = InputSourceKind::Seeded;
    b.seed = Value(1);
    for (auto [mn, len] : box) b.box.push_back(Interval{Value(mn), Value(len), {}});
    r.inputs.push_back(b);
  }
  recognise_boundary_conditions(p);

  // The text: halo's printer for the algorithm and the realization, the schedule in
  // Halide's vocabulary between them.
  std::string text = fmt::format("# Imported by `halo import` from {}: written by Halide {}, read with Halide {}.\n",
                                 path.substr(path.find_last_of('/') + 1),
                                 hlpipe_writer_version(read_source_file(path)).value_or("?"),
                                 HALO_HALIDE_VERSION);
  if (!notes.empty()) {
    text += "# The .hlpipe holds no buffers and no output size; the realization below takes\n";
    for (const std::string& n : notes) text += "#   " + n + "\n";
  }
  text += print_program(prog);
  // Halide's mode: the schedule means what it meant to the Halide that wrote it (every
  // placement and tail strategy is written out, so no default is left to fill; the mode
  // admits what only Halide's vocabulary has, such as RoundUp on an update's pure loop).
  text += "\nschedule halide {\n";
  for (const std::string& line : sched) text += "  " + line + ";\n";
  text += "}\n\n";
  return text + print_realization(r);
}

}  // namespace

#else  // Halide 14: no serialization

std::string import_hlpipe_with_halide(const std::string&, const ImportOptions&) {
  throw ImportRefused(fmt::format("Halide {} cannot read an .hlpipe: deserialize_pipeline came with Halide 17 "
                                  "(halo imports with Halide 19 and later)", HALO_HALIDE_VERSION));
}

#endif

}  // namespace halo::halide

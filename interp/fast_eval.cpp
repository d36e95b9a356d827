// The fast evaluator: see fast_eval.hpp for why it computes what fig. 2.6 defines.
// Rule references name the rule of fig. 2.6 whose effect each piece reproduces.
#include "interp/fast_eval.hpp"

#include "semantics/type_ops.hpp"

#include "support/big_stack.hpp"

#include <fmt/format.h>

#include <sys/mman.h>

#include <array>
#include <stdexcept>
#include <unordered_map>

namespace halo {

namespace {

constexpr int kMaxFastDims = 8;                 // points with more dims take the Value path
constexpr uint64_t kMaxBoxPoints = 1ull << 25;  // larger demanded regions are memoized sparsely
constexpr int kLanes = 64;                      // points of a row evaluated together

// AccessAffine is Access whose every argument is a slot plus a constant, or a constant:
// the common case (f[x - 1, y]) computed without visiting argument nodes.
// Typed: an operator of a typed program (docs/types.md), whose result type and operand
// types are typed_ops[imm].
// Input: a read of an input buffer (a = the buffer, b and c its argument list), ε_mem
// outside the buffer.
enum class NK : uint8_t { Imm, Const, Slot, Unary, Binary, Select, Access, AccessAffine, SelfCell, SelfAccess, Typed, Input };

// The types of one operator of a typed program.
struct TypedOp {
  Type result;
  std::array<Type, 3> args;
  int arity = 0;
};

// Comparisons, logic, min and max on words (fig. 2.5b's, and Halide's on values already of
// their type: neither wraps). False for any other operator.
inline bool word_relational(Op op, int64_t x, int64_t y, int64_t& out) {
  switch (op) {
    case Op::Lt: out = x < y; return true;
    case Op::Gt: out = x > y; return true;
    case Op::Eq: out = x == y; return true;
    case Op::Le: out = x <= y; return true;
    case Op::Ge: out = x >= y; return true;
    case Op::Ne: out = x != y; return true;
    case Op::And: out = x != 0 && y != 0; return true;
    case Op::Or: out = x != 0 || y != 0; return true;
    case Op::Min: out = std::min(x, y); return true;
    case Op::Max: out = std::max(x, y); return true;
    default: return false;
  }
}

// Halide's arithmetic on the word-sized path, for types of at most 32 bits, where the
// exact result of each operator below fits in 64 bits: the exact result, then the type's
// rule (`fit`: wrap, or Int(32)'s range check) — the same definitions as apply_typed_op
// (type_ops.cpp), on machine words. It works on n lanes at once (a row of points, or one
// point), one operator per loop, the type's rule applied in the same loop, so that the
// loops vectorize. False where some lane's result is Int(32)-undefined or the operator is
// not one of these (shifts, the rounding shifts, mul_shift_right, lerp: the caller then
// takes the path on Values). `out` must not alias an operand.
template <typename Fit>
inline bool typed_lanes_fit(Op op, const TypedOp& t, int n, const int64_t* x, const int64_t* y, const int64_t* z,
                            int64_t* out, Fit fit) {
  const Type r = t.result;
  bool ok = true;
  auto map1 = [&](auto f) { for (int l = 0; l < n; ++l) out[l] = fit(f(x[l]), ok); };
  auto map2 = [&](auto f) { for (int l = 0; l < n; ++l) out[l] = fit(f(x[l], y[l]), ok); };
  const int64_t lo = r.is_int() ? -(int64_t{1} << (r.bits() - 1)) : 0;
  const int64_t hi = r.is_int() ? (int64_t{1} << (r.bits() - 1)) - 1 : (int64_t{1} << r.bits()) - 1;
  auto clamp_to = [&](int64_t v) { return std::clamp(v, lo, hi); };  // saturate
  switch (op) {
    case Op::Add: case Op::WideningAdd: map2([](int64_t a, int64_t b) { return a + b; }); return ok;
    case Op::Sub: case Op::WideningSub: map2([](int64_t a, int64_t b) { return a - b; }); return ok;
    // Unsigned: two u32 operands' product exceeds int64; its low bits are the wrapped result,
    // and two Int(32) operands' product always fits.
    case Op::Mul: case Op::WideningMul:
      map2([](int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); });
      return ok;
    case Op::Div:  // Euclidean, x / 0 = 0
      for (int l = 0; l < n; ++l) {
        int64_t q;
        ok &= fast::div(x[l], y[l], q);
        out[l] = fit(q, ok);
      }
      return ok;
    case Op::Mod:
      for (int l = 0; l < n; ++l) {
        int64_t m;
        ok &= fast::mod(x[l], y[l], m);
        out[l] = fit(m, ok);
      }
      return ok;
    case Op::Neg: map1([](int64_t a) { return -a; }); return ok;
    case Op::Cast: map1([](int64_t a) { return a; }); return ok;
    case Op::Abs: map1([](int64_t a) { return a < 0 ? -a : a; }); return ok;
    case Op::Absd: map2([](int64_t a, int64_t b) { return a < b ? b - a : a - b; }); return ok;
    case Op::HalvingAdd: map2([](int64_t a, int64_t b) { return (a + b) >> 1; }); return ok;  // floor
    case Op::RoundingHalvingAdd: map2([](int64_t a, int64_t b) { return (a + b + 1) >> 1; }); return ok;
    case Op::HalvingSub: map2([](int64_t a, int64_t b) { return (a - b) >> 1; }); return ok;
    // On sign-extended words: the sign extension of the result.
    case Op::BitAnd: map2([](int64_t a, int64_t b) { return a & b; }); return ok;
    case Op::BitOr: map2([](int64_t a, int64_t b) { return a | b; }); return ok;
    case Op::BitXor: map2([](int64_t a, int64_t b) { return a ^ b; }); return ok;
    case Op::BitNot: map1([](int64_t a) { return ~a; }); return ok;
    // The rest give values of their type without `fit`.
    case Op::SaturatingCast: for (int l = 0; l < n; ++l) out[l] = clamp_to(x[l]); return true;
    case Op::SaturatingAdd: for (int l = 0; l < n; ++l) out[l] = clamp_to(x[l] + y[l]); return true;
    case Op::SaturatingSub: for (int l = 0; l < n; ++l) out[l] = clamp_to(x[l] - y[l]); return true;
    case Op::CountLeadingZeros: case Op::CountTrailingZeros: case Op::Popcount: {
      const int w = t.args[0].bits();
      for (int l = 0; l < n; ++l) {
        uint64_t p = uint64_t(x[l]) & ((uint64_t{1} << w) - 1);
        if (op == Op::Popcount) out[l] = __builtin_popcountll(p);
        else if (p == 0) out[l] = w;
        else out[l] = op == Op::CountTrailingZeros ? __builtin_ctzll(p) : __builtin_clzll(p) - (64 - w);
      }
      return true;
    }
    case Op::Not: for (int l = 0; l < n; ++l) out[l] = !x[l]; return true;
    case Op::Select: for (int l = 0; l < n; ++l) out[l] = x[l] ? y[l] : z[l]; return true;
    default:  // comparisons, logic, min and max: results already of their type
      for (int l = 0; l < n; ++l)
        if (!word_relational(op, x[l], y[l], out[l])) return false;
      return true;
  }
}

inline bool typed_lanes(Op op, const TypedOp& t, int n, const int64_t* x, const int64_t* y, const int64_t* z,
                        int64_t* out) {
  const Type r = t.result;
  if (r.is_z() || r.bits() > 32 || t.args[0].bits() > 32) return false;
  for (int k = 0; k < t.arity; ++k)  // floats take the Value path (float_ops.hpp)
    if (t.args[k].is_float()) return false;
  if (r.is_float()) return false;
  const int sh = 64 - r.bits();
  if (op != Op::Cast && !r.wraps())  // Int(32): undefined outside the range
    return typed_lanes_fit(op, t, n, x, y, z, out, [](int64_t v, bool& ok) {
      ok &= v >= INT32_MIN && v <= INT32_MAX;
      return v;
    });
  if (r.is_int())  // wrap: the low bits, read as signed ...
    return typed_lanes_fit(op, t, n, x, y, z, out,
                           [sh](int64_t v, bool&) { return int64_t(uint64_t(v) << sh) >> sh; });
  return typed_lanes_fit(op, t, n, x, y, z, out,  // ... or unsigned
                         [sh](int64_t v, bool&) { return int64_t(uint64_t(v) << sh >> sh); });
}

struct CNode {
  NK kind;
  Op op = Op::Add;
  int32_t a = -1, b = -1, c = -1;  // children, or (func, first arg, arg count) for accesses
  int64_t imm = 0;                 // Imm: the value; Slot: the frame slot
};

struct AffineArg {
  int32_t slot;    // -1: the argument is the constant `offset`
  int64_t offset;
};

using Point = std::vector<Value>;
using PointMap = std::unordered_map<Point, Value, PointHash>;

// The state of one slice of an update stage with reduction dimensions: the cells it
// touched (keyed by their reduction coordinates) and the greatest error it met.
struct Slice {
  PointMap cells;
  std::optional<Value::Kind> error;
};

struct StageCode {
  int value = -1, pred = -1;
  std::vector<int> lhs;         // per dimension; -1 where the lhs is the pure variable itself
  std::vector<bool> dim_pure;   // Def. 2.8
  bool has_reduction_dims = false;
  std::vector<Value> rmin, rlen;
  bool rdom_negative = false;   // [RDOM-ERR]
  bool rdom_small = true;       // every r value fits in int64
  int frame_size = 0;
};

// Boxes and the output reach tens of MB, and the first touch of each 4 KiB page costs a
// fault: for a cheap pipeline the faults were a fifth of the run. Such memory asks, before
// its first touch, for huge pages, one fault per 2 MiB: advice that the kernel may refuse
// and nothing else depends on.
constexpr size_t kHugePage = size_t{2} << 20;
inline void advise_huge_pages(const void* p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  uintptr_t lo = (uintptr_t(p) + kHugePage - 1) & ~uintptr_t(kHugePage - 1);
  uintptr_t hi = (uintptr_t(p) + bytes) & ~uintptr_t(kHugePage - 1);
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
#endif
}

// The memory of a func's box, not zeroed. Plain new[], not aligned to huge pages: glibc's
// malloc adapts its mmap threshold to the blocks freed, and halo_bench's native loops run
// in the same process after halo; with 2 MiB-aligned boxes their memory came fresh from
// the kernel on every run, tripling the native blur's time and flattering halo's ratio.
template <typename T>
using BoxArray = std::unique_ptr<T[]>;
template <typename T>
BoxArray<T> box_array(size_t n) {
  // Default-initialized, as make_unique_for_overwrite would (the playground's libc++ lacks it):
  // every cell is written before it is read.
  BoxArray<T> a(new T[n]);
  advise_huge_pages(a.get(), n * sizeof(T));
  return a;
}

struct Interval64 {
  int64_t lo = 0, hi = -1;  // inclusive
};

struct FuncInfo {
  std::string name;
  int dims = 0;
  std::vector<StageCode> stages;
  // Final values over a dense box ...
  bool has_box = false;
  std::vector<int64_t> box_min, box_len, stride;
  BoxArray<int64_t> data;
  BoxArray<uint8_t> state;  // 0 not computed, 1 small value in data, 2 in `special`, 3 computing
  std::unordered_map<uint64_t, Value> special;
  // ... and sparsely elsewhere.
  PointMap sparse;
  std::vector<std::unordered_map<Point, Slice, PointHash>> slices;  // per stage
};

// The evaluation context of one stage activation: the cell being updated (stages whose
// dimensions are all pure) or the slice being simulated.
struct Activation {
  bool cell_small = true;
  int64_t cell_i = 0;
  Value cell_v;
  Slice* slice = nullptr;
  const Point* point = nullptr;  // the point whose slice is simulated
  int func = -1, stage = -1;
};

}  // namespace

struct FastEvaluator::Impl {
  const Pipeline& pipe;
  Input input;
  Limits limits;
  Budget budget;
  std::vector<CNode> code;
  std::vector<int32_t> arg_lists;
  std::vector<AffineArg> affine_args;
  std::vector<Value> consts;
  std::vector<TypedOp> typed_ops;
  std::vector<FuncInfo> funcs;
  bool params_small = true;
  std::vector<int64_t> params_i;
  // The variables every stage sees first in its frame: the parameters, then the input
  // buffers' geometry (img.min.0, ...), with their values.
  std::vector<std::string> startup_names;
  std::vector<Value> startup_values;

  Impl(const Pipeline& p, const Input& in, const Limits& lim)
      : pipe(p), input(in), limits(lim), budget(lim) {
    std::vector<std::string> param_names;
    for (const auto& prm : p.params) param_names.push_back(prm.text);
    for (auto& [name, value] : input.startup_bindings(param_names)) {
      startup_names.push_back(name);
      startup_values.push_back(value);
    }
    for (const Value& v : startup_values) {
      params_small &= v.is_small();
      params_i.push_back(v.is_small() ? v.small() : 0);
    }
    funcs.resize(p.funcs.size());
    for (size_t i = 0; i < p.funcs.size(); ++i) compile_func(int(i));
    compute_boxes();
  }

  // ------------------------------------------------------------ compilation
  // The index of input `name` in input.buffers, or -1 when `name` is a func.
  int input_index(const std::string& name) const {
    if (!pipe.find_input(name)) return -1;
    for (size_t i = 0; i < input.buffers.size(); ++i)
      if (input.buffers[i].name == name) return int(i);
    throw std::logic_error("fast evaluator: no buffer for input " + name);
  }

  int func_index(const std::string& name) const {
    for (size_t i = 0; i < pipe.funcs.size(); ++i)
      if (pipe.funcs[i].name.text == name) return int(i);
    throw std::logic_error("fast evaluator: unknown func " + name + " (program not validated?)");
  }

  struct Scope {
    std::vector<std::string> names;  // slot i holds names[i]
    int self = -1, stage = 0;
    bool self_cell = false;          // self accesses read the current cell
  };

  int push(CNode n) {
    code.push_back(n);
    return int(code.size()) - 1;
  }

  int compile(const Expr& e, const Scope& s) {
    switch (e->kind) {
      case ExprKind::Hole:
        throw std::logic_error("fast evaluator: a hole in an algorithm expression (program not validated?)");
      case ExprKind::Const: {
        const Value& v = as<ConstNode>(e).value;
        if (v.is_small()) return push(CNode{NK::Imm, Op::Add, -1, -1, -1, v.small()});
        consts.push_back(v);
        return push(CNode{NK::Const, Op::Add, int32_t(consts.size() - 1)});
      }
      case ExprKind::Var: {
        const auto& name = as<VarNode>(e).name;
        if (int slot = slot_of(s, name); slot >= 0) return push(CNode{NK::Slot, Op::Add, -1, -1, -1, slot});
        throw std::logic_error("fast evaluator: unbound variable " + name + " (program not validated?)");
      }
      case ExprKind::Op: {
        const auto& n = as<OpNode>(e);
        std::array<int32_t, 3> kids{-1, -1, -1};
        for (size_t i = 0; i < n.args.size() && i < 3; ++i) kids[i] = compile(n.args[i], s);
        if (n.type.is_typed() || is_halide_op(n.op)) {
          TypedOp t;
          t.result = n.type;
          t.arity = int(n.args.size());
          for (int i = 0; i < t.arity && i < 3; ++i) t.args[i] = n.args[i]->type;
          typed_ops.push_back(t);
          return push(CNode{NK::Typed, n.op, kids[0], kids[1], kids[2], int64_t(typed_ops.size() - 1)});
        }
        NK k = n.args.size() == 1 ? NK::Unary : n.args.size() == 2 ? NK::Binary : NK::Select;
        return push(CNode{k, n.op, kids[0], kids[1], kids[2]});
      }
      case ExprKind::Call: {
        const auto& n = as<CallNode>(e);
        if (int bi = input_index(n.func); bi >= 0) {
          std::vector<int32_t> roots;
          for (const auto& a : n.args) roots.push_back(compile(a, s));
          int32_t start = int32_t(arg_lists.size());
          arg_lists.insert(arg_lists.end(), roots.begin(), roots.end());
          return push(CNode{NK::Input, Op::Add, bi, start, int32_t(roots.size())});
        }
        int fi = func_index(n.func);
        if (fi == s.self && s.self_cell) return push(CNode{NK::SelfCell});
        if (fi != s.self && int(n.args.size()) <= kMaxFastDims) {
          std::vector<AffineArg> aff;
          for (const auto& a : n.args)
            if (auto x = affine_arg(a, s)) aff.push_back(*x);
          if (aff.size() == n.args.size()) {
            int32_t start = int32_t(affine_args.size());
            affine_args.insert(affine_args.end(), aff.begin(), aff.end());
            return push(CNode{NK::AccessAffine, Op::Add, fi, start, int32_t(aff.size())});
          }
        }
        std::vector<int32_t> roots;
        for (const auto& a : n.args) roots.push_back(compile(a, s));
        int32_t start = int32_t(arg_lists.size());
        arg_lists.insert(arg_lists.end(), roots.begin(), roots.end());
        return push(CNode{fi == s.self ? NK::SelfAccess : NK::Access, Op::Add, fi, start, int32_t(roots.size())});
      }
    }
    return -1;
  }

  static int slot_of(const Scope& s, const std::string& name) {
    for (size_t i = s.names.size(); i-- > 0;)
      if (s.names[i] == name) return int(i);
    return -1;
  }

  // x, x + c, x - c, c (small constants only), or nothing.
  static std::optional<AffineArg> affine_arg(const Expr& e, const Scope& s) {
    if (e->kind == ExprKind::Const) {
      const Value& v = as<ConstNode>(e).value;
      if (v.is_small()) return AffineArg{-1, v.small()};
      return std::nullopt;
    }
    if (e->kind == ExprKind::Var) {
      int slot = slot_of(s, as<VarNode>(e).name);
      if (slot >= 0) return AffineArg{slot, 0};
      return std::nullopt;
    }
    if (e->kind != ExprKind::Op) return std::nullopt;
    const auto& n = as<OpNode>(e);
    if ((n.op != Op::Add && n.op != Op::Sub) || n.args[0]->kind != ExprKind::Var ||
        n.args[1]->kind != ExprKind::Const)
      return std::nullopt;
    const Value& c = as<ConstNode>(n.args[1]).value;
    int slot = slot_of(s, as<VarNode>(n.args[0]).name);
    if (slot < 0 || !c.is_small() || c.small() == std::numeric_limits<int64_t>::min()) return std::nullopt;
    return AffineArg{slot, n.op == Op::Add ? c.small() : -c.small()};
  }

  void compile_func(int fi) {
    const FuncDef& fd = pipe.funcs[fi];
    FuncInfo& f = funcs[fi];
    f.name = fd.name.text;
    f.dims = int(fd.vars.size());
    f.slices.resize(fd.stage_count());
    Scope base;
    base.names = startup_names;
    for (const auto& x : fd.vars) base.names.push_back(x.text);
    base.self = fi;

    StageCode pure;
    pure.value = compile(fd.pure, base);
    pure.dim_pure.assign(f.dims, true);
    pure.frame_size = int(base.names.size());
    f.stages.push_back(std::move(pure));

    for (size_t j = 0; j < fd.updates.size(); ++j) {
      const UpdateStage& u = fd.updates[j];
      StageCode sc;
      Scope s = base;
      s.stage = int(j + 1);
      for (int d = 0; d < f.dims; ++d) {
        const std::string& x = fd.vars[d].text;
        bool pure_dim = occurs(u.value, x) || (u.predicate && occurs(u.predicate, x));
        for (const auto& l : u.lhs) pure_dim |= occurs(l, x);
        sc.dim_pure.push_back(pure_dim);
        sc.has_reduction_dims |= !pure_dim;
      }
      s.self_cell = !sc.has_reduction_dims;
      // Rdom bounds are startup expressions (Def. 2.9): evaluate them once.
      Substitution params;
      for (size_t i = 0; i < startup_names.size(); ++i) params.bindings.emplace_back(startup_names[i], startup_values[i]);
      for (const auto& r : u.rdom) {
        Value mn = eval_closed(substitute(r.min, params)), ln = eval_closed(substitute(r.len, params));
        sc.rmin.push_back(mn);
        sc.rlen.push_back(ln);
        sc.rdom_negative |= ln.is_int() && ln.sign() < 0;
        sc.rdom_small &= mn.is_small() && ln.is_small() && add(mn, ln).is_small();
        s.names.push_back(r.name.text);
      }
      for (int d = 0; d < f.dims; ++d)
        sc.lhs.push_back(sc.dim_pure[d] ? -1 : compile(u.lhs[d], s));
      sc.value = compile(u.value, s);
      if (u.predicate) sc.pred = compile(u.predicate, s);
      sc.frame_size = int(s.names.size());
      f.stages.push_back(std::move(sc));
    }
  }

  // A closed startup expression (no variables left): evaluated through the compiled path.
  Value eval_closed(const Expr& e) {
    Scope s;
    int root = compile(e, s);
    return eval_slow(root, nullptr, nullptr);
  }

  // ------------------------------------------------------------ demand boxes
  // Interval analysis from the output window backwards: a hint for where dense memo
  // tables pay off. Correctness never depends on it (points outside go to `sparse`).
  using Iv = std::optional<Interval64>;  // nullopt: unbounded

  static Iv iv_exact(const Value& v) {
    if (!v.is_small()) return std::nullopt;
    return Interval64{v.small(), v.small()};
  }

  // In a typed program a value wraps into its type: an interval that leaves the type is
  // the type's whole range (sound, since the hint only sizes memo tables).
  Iv interval_of(const Expr& e, const std::vector<std::pair<std::string, Iv>>& env) {
    if (e->type.is_float()) return std::nullopt;  // no integer interval: the hint gives up
    Iv r = interval_in_z(e, env);
    if (!e->type.is_typed() || e->type.bits() > 32) return r;
    int64_t lo = e->type.min().small(), hi = e->type.max().small();
    if (r && r->lo >= lo && r->hi <= hi) return r;
    return Interval64{lo, hi};
  }

  Iv interval_in_z(const Expr& e, const std::vector<std::pair<std::string, Iv>>& env) {
    switch (e->kind) {
      case ExprKind::Const: return iv_exact(as<ConstNode>(e).value);
      case ExprKind::Var:
        for (const auto& [n, iv] : env)
          if (n == as<VarNode>(e).name) return iv;
        return std::nullopt;
      case ExprKind::Call: return std::nullopt;  // func values are unbounded
      case ExprKind::Hole: return std::nullopt;
      case ExprKind::Op: break;
    }
    const auto& n = as<OpNode>(e);
    std::vector<Iv> a;
    for (const auto& x : n.args) a.push_back(interval_of(x, env));
    auto both = [&] { return a[0] && a[1]; };
    Interval64 r;
    switch (n.op) {
      case Op::Add:
        if (both() && fast::add(a[0]->lo, a[1]->lo, r.lo) && fast::add(a[0]->hi, a[1]->hi, r.hi)) return r;
        return std::nullopt;
      case Op::Sub:
        if (both() && fast::sub(a[0]->lo, a[1]->hi, r.lo) && fast::sub(a[0]->hi, a[1]->lo, r.hi)) return r;
        return std::nullopt;
      case Op::Neg:
        if (a[0] && fast::sub(0, a[0]->hi, r.lo) && fast::sub(0, a[0]->lo, r.hi)) return r;
        return std::nullopt;
      case Op::Mul: {
        if (!both()) return std::nullopt;
        int64_t c[4];
        if (!fast::mul(a[0]->lo, a[1]->lo, c[0]) || !fast::mul(a[0]->lo, a[1]->hi, c[1]) ||
            !fast::mul(a[0]->hi, a[1]->lo, c[2]) || !fast::mul(a[0]->hi, a[1]->hi, c[3]))
          return std::nullopt;
        return Interval64{std::min({c[0], c[1], c[2], c[3]}), std::max({c[0], c[1], c[2], c[3]})};
      }
      case Op::Div:
        // Euclidean division by a positive constant is monotone.
        if (both() && a[1]->lo == a[1]->hi && a[1]->lo > 0) {
          fast::div(a[0]->lo, a[1]->lo, r.lo);
          fast::div(a[0]->hi, a[1]->lo, r.hi);
          return r;
        }
        return std::nullopt;
      case Op::Mod:
        if (a[1] && a[1]->lo == a[1]->hi && a[1]->lo != 0 && a[1]->lo != std::numeric_limits<int64_t>::min())
          return Interval64{0, std::abs(a[1]->lo) - 1};
        return std::nullopt;
      case Op::Min:
        if (both()) return Interval64{std::min(a[0]->lo, a[1]->lo), std::min(a[0]->hi, a[1]->hi)};
        return std::nullopt;
      case Op::Max:
        if (both()) return Interval64{std::max(a[0]->lo, a[1]->lo), std::max(a[0]->hi, a[1]->hi)};
        return std::nullopt;
      case Op::Select:
        if (a[1] && a[2]) return Interval64{std::min(a[1]->lo, a[2]->lo), std::max(a[1]->hi, a[2]->hi)};
        return std::nullopt;
      default:
        return Interval64{0, 1};  // comparisons and logical operators
    }
  }

  // Unions every access of `e` to funcs other than `self` into the demanded regions.
  void collect_demand(const Expr& e, int self, const std::vector<std::pair<std::string, Iv>>& env,
                      std::vector<std::optional<std::vector<Iv>>>& demand) {
    if (e->kind == ExprKind::Op)
      for (const auto& a : as<OpNode>(e).args) collect_demand(a, self, env, demand);
    if (e->kind != ExprKind::Call) return;
    const auto& n = as<CallNode>(e);
    for (const auto& a : n.args) collect_demand(a, self, env, demand);
    if (pipe.find_input(n.func)) return;  // a buffer: nothing to memoize
    int g = func_index(n.func);
    if (g == self) return;
    auto& d = demand[g];
    std::vector<Iv> ivs;
    for (const auto& a : n.args) ivs.push_back(interval_of(a, env));
    if (!d) { d = ivs; return; }
    for (size_t i = 0; i < ivs.size() && i < d->size(); ++i) {
      auto& cur = (*d)[i];
      if (!cur || !ivs[i]) cur = std::nullopt;
      else cur = Interval64{std::min(cur->lo, ivs[i]->lo), std::max(cur->hi, ivs[i]->hi)};
    }
  }

  void compute_boxes() {
    std::vector<std::optional<std::vector<Iv>>> demand(funcs.size());
    std::vector<Iv> out;
    for (const auto& w : input.window) {
      auto mn = w.min.as_int64(), ln = w.len.as_int64();
      int64_t hi;
      if (mn && ln && *ln > 0 && fast::add(*mn, *ln - 1, hi)) out.push_back(Interval64{*mn, hi});
      else out.push_back(std::nullopt);
    }
    demand.back() = out;
    for (int fi = int(funcs.size()) - 1; fi >= 0; --fi) {
      if (!demand[fi]) continue;
      const FuncDef& fd = pipe.funcs[fi];
      std::vector<std::pair<std::string, Iv>> env;
      for (size_t i = 0; i < startup_names.size(); ++i) env.emplace_back(startup_names[i], iv_exact(startup_values[i]));
      for (int d = 0; d < funcs[fi].dims; ++d) env.emplace_back(fd.vars[d].text, (*demand[fi])[d]);
      collect_demand(fd.pure, fi, env, demand);
      for (size_t j = 0; j < fd.updates.size(); ++j) {
        const auto& u = fd.updates[j];
        const StageCode& sc = funcs[fi].stages[j + 1];
        if (sc.rdom_negative) continue;
        auto senv = env;
        for (size_t k = 0; k < u.rdom.size(); ++k) {
          Iv r;
          auto mn = sc.rmin[k].as_int64(), ln = sc.rlen[k].as_int64();
          int64_t hi;
          if (mn && ln && *ln > 0 && fast::add(*mn, *ln - 1, hi)) r = Interval64{*mn, hi};
          senv.emplace_back(u.rdom[k].name.text, r);
        }
        collect_demand(u.value, fi, senv, demand);
        if (u.predicate) collect_demand(u.predicate, fi, senv, demand);
        for (const auto& l : u.lhs) collect_demand(l, fi, senv, demand);
      }
    }
    for (size_t fi = 0; fi < funcs.size(); ++fi) {
      if (!demand[fi]) continue;
      FuncInfo& f = funcs[fi];
      if (f.dims > kMaxFastDims) continue;
      uint64_t volume = 1;
      bool ok = true;
      for (const Iv& iv : *demand[fi]) {
        int64_t len;
        if (!iv || !fast::sub(iv->hi, iv->lo, len) || len < 0 || len >= int64_t(kMaxBoxPoints)) { ok = false; break; }
        volume *= uint64_t(len + 1);
        if (volume > kMaxBoxPoints) { ok = false; break; }
      }
      if (!ok) continue;
      budget.charge_memory(volume * (sizeof(int64_t) + 1));
      f.has_box = true;
      int64_t stride = 1;
      for (const Iv& iv : *demand[fi]) {
        f.box_min.push_back(iv->lo);
        f.box_len.push_back(iv->hi - iv->lo + 1);
        f.stride.push_back(stride);
        stride *= iv->hi - iv->lo + 1;
      }
      f.data = box_array<int64_t>(volume);  // `state` says which cells hold a value
      f.state = box_array<uint8_t>(volume);
      std::fill_n(f.state.get(), volume, 0);
    }
  }

  // ------------------------------------------------------------ evaluation on int64
  // Returns false when the result is not a small integer (an error value, a big integer,
  // an overflow): the caller then evaluates the same node on Values.
  // Leaves are read without a recursive call: most operands are variables or constants.
  inline bool operand(int i, const int64_t* fr, Activation* act, int64_t& out) {
    const CNode& n = code[i];
    if (n.kind == NK::Slot) { out = fr[n.imm]; return true; }
    if (n.kind == NK::Imm) { out = n.imm; return true; }
    return eval_fast(i, fr, act, out);
  }

  __attribute__((hot)) bool eval_fast(int i, const int64_t* fr, Activation* act, int64_t& out) {
    const CNode& n = code[i];
    switch (n.kind) {
      case NK::Imm: out = n.imm; return true;
      case NK::Slot: out = fr[n.imm]; return true;
      case NK::Const: return false;
      case NK::SelfCell:
        if (!act->cell_small) return false;
        out = act->cell_i;
        return true;
      case NK::SelfAccess: return false;
      case NK::Unary: {
        int64_t x;
        if (!operand(n.a, fr, act, x)) return false;
        if (n.op == Op::Not) { out = x == 0; return true; }
        return fast::sub(0, x, out);
      }
      case NK::Binary: {
        int64_t x, y;
        if (!operand(n.a, fr, act, x) || !operand(n.b, fr, act, y)) return false;
        switch (n.op) {
          case Op::Add: return fast::add(x, y, out);
          case Op::Sub: return fast::sub(x, y, out);
          case Op::Mul: return fast::mul(x, y, out);
          case Op::Div: return fast::div(x, y, out);
          case Op::Mod: return fast::mod(x, y, out);
          default: return word_relational(n.op, x, y, out);
        }
      }
      case NK::Typed: {
        const TypedOp& t = typed_ops[n.imm];
        int64_t v[3] = {0, 0, 0};
        const int32_t kids[3] = {n.a, n.b, n.c};
        for (int j = 0; j < t.arity; ++j)
          if (!operand(kids[j], fr, act, v[j])) return false;
        return typed_lanes(n.op, t, 1, &v[0], &v[1], &v[2], &out);
      }
      case NK::Select: {
        // Strict: all three operands are evaluated (an error anywhere leaves the fast path).
        int64_t c, x, y;
        if (!operand(n.a, fr, act, c) || !operand(n.b, fr, act, x) || !operand(n.c, fr, act, y)) return false;
        out = c != 0 ? x : y;
        return true;
      }
      case NK::Access: {
        if (n.c > kMaxFastDims) return false;
        int64_t coords[kMaxFastDims];
        for (int k = 0; k < n.c; ++k)
          if (!eval_fast(arg_lists[n.b + k], fr, act, coords[k])) return false;
        return final_small(n.a, coords, out);
      }
      case NK::AccessAffine: {
        int64_t coords[kMaxFastDims];
        const AffineArg* args = affine_args.data() + n.b;
        for (int k = 0; k < n.c; ++k) {
          if (args[k].slot < 0) coords[k] = args[k].offset;
          else if (__builtin_add_overflow(fr[args[k].slot], args[k].offset, &coords[k])) return false;
        }
        return final_small(n.a, coords, out);
      }
      case NK::Input: {
        if (n.c > kMaxFastDims) return false;
        int64_t coords[kMaxFastDims];
        for (int k = 0; k < n.c; ++k)
          if (!eval_fast(arg_lists[n.b + k], fr, act, coords[k])) return false;
        return input_small(n.a, coords, out);
      }
    }
    return false;
  }

  // A buffer's value on the word path; false outside the buffer (the Value path then says ε_mem).
  bool input_small(int bi, const int64_t* c, int64_t& out) const {
    const Value* v = input.buffers[bi].at(c);
    if (!v || !v->is_small()) return false;
    out = v->small();
    return true;
  }

  // Index of a point in f's dense box, or -1.
  static int64_t box_index(const FuncInfo& f, const int64_t* c) {
    int64_t idx = 0;
    for (int d = 0; d < f.dims; ++d) {
      int64_t o;
      if (__builtin_sub_overflow(c[d], f.box_min[d], &o) || o < 0 || o >= f.box_len[d]) return -1;
      idx += o * f.stride[d];
    }
    return idx;
  }

  inline bool final_small(int fi, const int64_t* c, int64_t& out) {
    FuncInfo& f = funcs[fi];
    if (!f.has_box) return false;
    int64_t idx = box_index(f, c);
    if (idx < 0) return false;
    if (f.state[idx] == 0) fill_box(fi, idx, c);
    if (f.state[idx] != 1) return false;
    out = f.data[idx];
    return true;
  }

  // ------------------------------------------------------------ rows of points at once
  // Points of a func whose stages all have only pure dimensions are independent of each
  // other (Def. 2.7: each unrolled update writes and reads its own point), so a run of
  // consecutive points along x is evaluated in lanes: the interpretive overhead is paid
  // once per node and row instead of once per node and point. Any lane leaving the
  // word-sized path abandons the row; the points are then computed one by one.
  struct Batch {
    int n;                 // live lanes
    int vary_slot;         // the frame slot holding x; lane l sees x + l
    const int64_t* frame;  // lane 0's frame
    const int64_t* cells;  // per-lane current value of the point being updated
  };

  template <typename F>
  static bool lanes(int n, F&& f) {
    bool ok = true;
    for (int l = 0; l < n; ++l) ok &= f(l);
    return ok;
  }

  bool eval_batch(int i, const Batch& b, int64_t* out) {
    const CNode& n = code[i];
    switch (n.kind) {
      case NK::Imm: std::fill(out, out + b.n, n.imm); return true;
      case NK::Slot:
        if (n.imm == b.vary_slot) for (int l = 0; l < b.n; ++l) out[l] = b.frame[n.imm] + l;
        else std::fill(out, out + b.n, b.frame[n.imm]);
        return true;
      case NK::SelfCell: std::copy(b.cells, b.cells + b.n, out); return true;
      case NK::Unary: {
        int64_t x[kLanes];
        if (!eval_batch(n.a, b, x)) return false;
        if (n.op == Op::Not) return lanes(b.n, [&](int l) { out[l] = x[l] == 0; return true; });
        return lanes(b.n, [&](int l) { return fast::sub(0, x[l], out[l]); });
      }
      case NK::Binary: {
        int64_t x[kLanes], y[kLanes];
        if (!eval_batch(n.a, b, x) || !eval_batch(n.b, b, y)) return false;
        switch (n.op) {
          case Op::Add: return lanes(b.n, [&](int l) { return fast::add(x[l], y[l], out[l]); });
          case Op::Sub: return lanes(b.n, [&](int l) { return fast::sub(x[l], y[l], out[l]); });
          case Op::Mul: return lanes(b.n, [&](int l) { return fast::mul(x[l], y[l], out[l]); });
          case Op::Div: return lanes(b.n, [&](int l) { return fast::div(x[l], y[l], out[l]); });
          case Op::Mod: return lanes(b.n, [&](int l) { return fast::mod(x[l], y[l], out[l]); });
          case Op::Lt: return lanes(b.n, [&](int l) { out[l] = x[l] < y[l]; return true; });
          case Op::Gt: return lanes(b.n, [&](int l) { out[l] = x[l] > y[l]; return true; });
          case Op::Eq: return lanes(b.n, [&](int l) { out[l] = x[l] == y[l]; return true; });
          case Op::Le: return lanes(b.n, [&](int l) { out[l] = x[l] <= y[l]; return true; });
          case Op::Ge: return lanes(b.n, [&](int l) { out[l] = x[l] >= y[l]; return true; });
          case Op::Ne: return lanes(b.n, [&](int l) { out[l] = x[l] != y[l]; return true; });
          case Op::And: return lanes(b.n, [&](int l) { out[l] = x[l] != 0 && y[l] != 0; return true; });
          case Op::Or: return lanes(b.n, [&](int l) { out[l] = x[l] != 0 || y[l] != 0; return true; });
          case Op::Min: return lanes(b.n, [&](int l) { out[l] = std::min(x[l], y[l]); return true; });
          case Op::Max: return lanes(b.n, [&](int l) { out[l] = std::max(x[l], y[l]); return true; });
          default: return false;
        }
      }
      case NK::Select: {
        int64_t c[kLanes], x[kLanes], y[kLanes];
        if (!eval_batch(n.a, b, c) || !eval_batch(n.b, b, x) || !eval_batch(n.c, b, y)) return false;
        return lanes(b.n, [&](int l) { out[l] = c[l] != 0 ? x[l] : y[l]; return true; });
      }
      case NK::Typed: {
        const TypedOp& t = typed_ops[n.imm];
        int64_t v[3][kLanes];
        const int32_t kids[3] = {n.a, n.b, n.c};
        for (int j = 0; j < t.arity; ++j)
          if (!eval_batch(kids[j], b, v[j])) return false;
        return typed_lanes(n.op, t, b.n, v[0], v[1], v[2], out);
      }
      case NK::AccessAffine: {
        const AffineArg* args = affine_args.data() + n.b;
        int64_t coords[kMaxFastDims];
        if (strided_access(n, b, out)) return true;
        for (int l = 0; l < b.n; ++l) {
          for (int k = 0; k < n.c; ++k) {
            if (args[k].slot < 0) { coords[k] = args[k].offset; continue; }
            int64_t v = b.frame[args[k].slot] + (args[k].slot == b.vary_slot ? l : 0);
            if (__builtin_add_overflow(v, args[k].offset, &coords[k])) return false;
          }
          if (!final_small(n.a, coords, out[l])) return false;
        }
        return true;
      }
      case NK::Access: case NK::Input: {
        if (n.c > kMaxFastDims) return false;
        int64_t args[kMaxFastDims][kLanes];
        for (int k = 0; k < n.c; ++k)
          if (!eval_batch(arg_lists[n.b + k], b, args[k])) return false;
        int64_t coords[kMaxFastDims];
        for (int l = 0; l < b.n; ++l) {
          for (int k = 0; k < n.c; ++k) coords[k] = args[k][l];
          if (!(n.kind == NK::Input ? input_small(n.a, coords, out[l]) : final_small(n.a, coords, out[l])))
            return false;
        }
        return true;
      }
      default: return false;
    }
  }

  // An affine access across the lanes moves through the producer's box with a fixed
  // stride (x + l in the varying slot): one bounds check per row, then a strided walk.
  bool strided_access(const CNode& n, const Batch& b, int64_t* out) {
    FuncInfo& f = funcs[n.a];
    if (!f.has_box) return false;
    const AffineArg* args = affine_args.data() + n.b;
    int64_t first[kMaxFastDims], idx = 0, step = 0;
    for (int k = 0; k < n.c; ++k) {
      bool varies = args[k].slot == b.vary_slot;
      int64_t lo = args[k].slot < 0 ? args[k].offset : b.frame[args[k].slot], hi, o;
      if (args[k].slot >= 0 && __builtin_add_overflow(lo, args[k].offset, &lo)) return false;
      if (__builtin_add_overflow(lo, varies ? b.n - 1 : 0, &hi)) return false;
      if (__builtin_sub_overflow(lo, f.box_min[k], &o) || o < 0 || o >= f.box_len[k] ||
          o + (varies ? b.n - 1 : 0) >= f.box_len[k])
        return false;
      first[k] = lo;
      idx += o * f.stride[k];
      if (varies) step += f.stride[k];
    }
    // Usually all points are computed already (state 1). Otherwise the missing ones are
    // computed (each fill_box computes a run of them) and the states checked again.
    const uint8_t* state = f.state.get() + idx;
    auto all_computed = [&] {
      uint8_t other = 0;  // any bit set: some state is not 1
      if (step == 1)      // the common case, contiguous: a loop the compiler vectorizes
        for (int l = 0; l < b.n; ++l) other |= state[l] ^ 1;
      else
        for (int l = 0; l < b.n; ++l) other |= state[l * step] ^ 1;
      return other == 0;
    };
    if (!all_computed()) {
      for (int l = 0; l < b.n; ++l)
        if (state[l * step] == 0) {
          int64_t coords[kMaxFastDims];
          for (int k = 0; k < n.c; ++k) coords[k] = first[k] + (args[k].slot == b.vary_slot ? l : 0);
          fill_box(n.a, idx + l * step, coords);
        }
      if (!all_computed()) return false;
    }
    const int64_t* data = f.data.get() + idx;
    if (step == 1) std::copy(data, data + b.n, out);
    else for (int l = 0; l < b.n; ++l) out[l] = data[l * step];
    return true;
  }

  bool row_eligible(const FuncInfo& f) const {
    if (!params_small || f.dims < 1) return false;
    for (size_t j = 1; j < f.stages.size(); ++j) {
      const StageCode& s = f.stages[j];
      if (s.has_reduction_dims || s.rdom_negative || !s.rdom_small || s.frame_size > 64) return false;
    }
    return f.stages[0].frame_size <= 64;
  }

  // Computes the run of not-yet-computed points of f's box starting at idx along x.
  bool fill_row(int fi, int64_t idx, const int64_t* c) {
    Nest nest(nesting);
    FuncInfo& f = funcs[fi];
    int n = int(std::min<int64_t>(kLanes, f.box_len[0] - (c[0] - f.box_min[0])));
    uint8_t* state = f.state.get() + idx;
    int run = 0;
    while (run < n && state[run] == 0) ++run;
    std::fill(state, state + run, 3);
    auto abandon = [&] {
      std::fill(state, state + run, 0);
      return false;
    };
    size_t np = params_i.size();
    int64_t frame[64];
    std::copy(params_i.begin(), params_i.end(), frame);
    std::copy(c, c + f.dims, frame + np);
    int64_t cells[kLanes], p[kLanes], v[kLanes];
    Batch b{run, int(np), frame, cells};
    budget.step(uint64_t(run));
    if (!eval_batch(f.stages[0].value, b, cells)) return abandon();  // [FUNC-EVAL]
    for (size_t j = 1; j < f.stages.size(); ++j) {                      // [UPDATE-EVAL]
      const StageCode& s = f.stages[j];
      size_t k = s.rmin.size();
      int64_t* r = frame + np + f.dims;
      bool empty = false;
      for (size_t d = 0; d < k; ++d) {
        r[d] = s.rmin[d].small();
        empty |= s.rlen[d].is_zero();
      }
      while (!empty) {  // [RDOM-EVAL] order: r1 fastest
        budget.step(uint64_t(run));
        if (s.pred >= 0 && !eval_batch(s.pred, b, p)) return abandon();
        if (!eval_batch(s.value, b, v)) return abandon();
        for (int l = 0; l < run; ++l)
          if (s.pred < 0 || p[l] != 0) cells[l] = v[l];
        size_t d = 0;
        for (; d < k; ++d) {
          if (++r[d] != s.rmin[d].small() + s.rlen[d].small()) break;
          r[d] = s.rmin[d].small();
        }
        if (d == k) break;
      }
    }
    std::copy(cells, cells + run, f.data.get() + idx);
    std::fill(state, state + run, 1);
    return true;
  }

  // Computes f's final value at a point of its box and stores it there.
  void fill_box(int fi, int64_t idx, const int64_t* c) {
    FuncInfo& f = funcs[fi];
    if (row_eligible(f) && fill_row(fi, idx, c)) return;
    f.state[idx] = 3;
    int64_t v;
    if (f.stages.size() == 1 && params_small && pure_fast(fi, c, v)) {
      f.data[idx] = v;
      f.state[idx] = 1;
      return;
    }
    Point p(c, c + f.dims);
    store_box(f, idx, stage_value(fi, int(f.stages.size()) - 1, p));
  }

  static void store_box(FuncInfo& f, int64_t idx, const Value& v) {
    if (v.is_small()) {
      f.data[idx] = v.small();
      f.state[idx] = 1;
    } else {
      f.special[uint64_t(idx)] = v;
      f.state[idx] = 2;
    }
  }

  // [FUNC-EVAL] on the word-sized path: the pure stage at one point.
  bool pure_fast(int fi, const int64_t* c, int64_t& out) {
    Nest nest(nesting);
    budget.step();
    int64_t frame[64];
    const StageCode& s = funcs[fi].stages[0];
    if (s.frame_size > 64) return false;
    size_t np = params_i.size();
    std::copy(params_i.begin(), params_i.end(), frame);
    std::copy(c, c + funcs[fi].dims, frame + np);
    return eval_fast(s.value, frame, nullptr, out);
  }

  // ------------------------------------------------------------ evaluation on Values
  Value eval_slow(int i, const Value* fr, Activation* act) {
    const CNode& n = code[i];
    switch (n.kind) {
      case NK::Imm: return Value(n.imm);
      case NK::Const: return consts[n.a];
      case NK::Slot: return fr[n.imm];
      case NK::SelfCell: return act->cell_small ? Value(act->cell_i) : act->cell_v;
      case NK::Unary: case NK::Binary: case NK::Select: {
        // [OP-EVAL]: operands first (all of them: nothing short-circuits), then the operator.
        std::array<Value, 3> v;
        int k = n.kind == NK::Unary ? 1 : n.kind == NK::Binary ? 2 : 3;
        const int32_t kids[3] = {n.a, n.b, n.c};
        for (int j = 0; j < k; ++j) v[j] = eval_slow(kids[j], fr, act);
        return apply_op(n.op, std::span<const Value>(v.data(), k));
      }
      case NK::Typed: {
        const TypedOp& t = typed_ops[n.imm];
        std::array<Value, 3> v;
        const int32_t kids[3] = {n.a, n.b, n.c};
        for (int j = 0; j < t.arity; ++j) v[j] = eval_slow(kids[j], fr, act);
        return apply_typed_op(n.op, t.result, std::span<const Type>(t.args.data(), size_t(t.arity)),
                              std::span<const Value>(v.data(), size_t(t.arity)));
      }
      case NK::AccessAffine: {
        Point c;
        for (int k = 0; k < n.c; ++k) {
          const AffineArg& a = affine_args[n.b + k];
          c.push_back(a.slot < 0 ? Value(a.offset) : add(fr[a.slot], Value(a.offset)));
        }
        if (auto e = max_error(c)) return Value::error(*e);  // [FUNC-ARG-ERR]
        return final_value(n.a, c);
      }
      case NK::Access: case NK::SelfAccess: {
        // [FUNC-ARG-EVAL]: arguments first.
        Point c;
        c.reserve(n.c);
        for (int k = 0; k < n.c; ++k) c.push_back(eval_slow(arg_lists[n.b + k], fr, act));
        // [FUNC-ARG-ERR] (Def. 2.6): an error argument makes the access that error.
        if (auto e = max_error(c)) return Value::error(*e);
        if (n.kind == NK::SelfAccess) return slice_cell(*act, c);
        return final_value(n.a, c);
      }
      case NK::Input: {
        // [FUNC-ARG-EVAL], [FUNC-ARG-ERR], then the buffer: outside it, ε_mem (docs/inputs.md).
        Point c;
        c.reserve(n.c);
        for (int k = 0; k < n.c; ++k) c.push_back(eval_slow(arg_lists[n.b + k], fr, act));
        if (auto e = max_error(c)) return Value::error(*e);
        const Value* v = input.buffers[n.a].at(c);
        return v ? *v : Value::err_mem();
      }
    }
    return Value();
  }

  // f's final value (after its last stage) at any point, memoized.
  Value final_value(int fi, const Point& c) {
    FuncInfo& f = funcs[fi];
    if (f.has_box) {
      int64_t ci[kMaxFastDims];
      bool small = true;
      for (int d = 0; d < f.dims; ++d) {
        small &= c[d].is_small();
        ci[d] = c[d].is_small() ? c[d].small() : 0;
      }
      int64_t idx = small ? box_index(f, ci) : -1;
      if (idx >= 0) {
        if (f.state[idx] == 0) fill_box(fi, idx, ci);
        if (f.state[idx] == 1) return Value(f.data[idx]);
        if (f.state[idx] == 2) return f.special.at(uint64_t(idx));
        throw std::logic_error("fast evaluator: cyclic dependency on " + f.name);
      }
    }
    if (auto it = f.sparse.find(c); it != f.sparse.end()) return it->second;
    Value v = stage_value(fi, int(f.stages.size()) - 1, c);
    budget.charge_memory(64 + 32 * c.size());
    f.sparse.emplace(c, v);
    return v;
  }

  // The output func on the window, first dimension fastest (window_point's order). Where
  // the window's coordinates are machine words they are stepped in place and the output's
  // box is read a row at a time, which spares a Point per output point.
  void realize_window(std::vector<Value>& out, uint64_t n) {
    const int fi = int(funcs.size()) - 1;
    const FuncInfo& f = funcs[fi];
    const std::vector<Interval>& w = input.window;
    int64_t c[kMaxFastDims], lo[kMaxFastDims], end[kMaxFastDims];
    bool words = f.has_box && f.dims >= 1 && int(w.size()) == f.dims;
    for (int d = 0; words && d < f.dims; ++d) {
      words = w[d].min.is_small() && w[d].len.is_small() &&
              fast::add(w[d].min.small(), w[d].len.small(), end[d]);
      c[d] = lo[d] = w[d].min.small();
    }
    if (!words) {
      for (uint64_t i = 0; i < n; ++i) out.push_back(final_value(fi, window_point(w, i)));
      return;
    }
    const int64_t row = end[0] - lo[0];
    for (uint64_t i = 0; i < n; i += uint64_t(row)) {
      c[0] = end[0] - 1;
      const int64_t last = box_index(f, c);
      c[0] = lo[0];
      const int64_t idx = box_index(f, c);
      const bool inside = idx >= 0 && last == idx + row - 1;  // the whole row lies in the box
      for (int64_t l = 0; l < row; ++l, ++c[0])  // a point not computed yet: the general path
        out.push_back(inside && f.state[idx + l] == 1 ? Value(f.data[idx + l]) : final_value(fi, Point(c, c + f.dims)));
      for (int d = 1; d < f.dims; ++d) {
        if (++c[d] != end[d]) break;
        c[d] = lo[d];
      }
    }
  }

  void fill_frame(std::vector<Value>& fr, int fi, const Point& c) {
    fr.assign(startup_values.begin(), startup_values.end());
    fr.insert(fr.end(), c.begin(), c.end());
  }

  // Bounds the recursion through chains of producers (see big_stack.hpp).
  int nesting = 0;
  struct Nest {
    int& n;
    explicit Nest(int& depth) : n(depth) {
      if (++n > kMaxEvalNesting)
        throw ResourceLimit(fmt::format("the chain of funcs being evaluated is deeper than {}; "
                                        "split the pipeline",
                                        kMaxEvalNesting));
    }
    ~Nest() { --n; }
  };

  // The value of f at point c after stage j.
  Value stage_value(int fi, int j, const Point& c) {
    Nest nest(nesting);
    FuncInfo& f = funcs[fi];
    const StageCode& s = f.stages[j];
    budget.step();
    if (j == 0) {  // [FUNC-EVAL]
      bool small = params_small && f.dims <= kMaxFastDims;
      int64_t ci[kMaxFastDims], out;
      for (int d = 0; small && d < f.dims; ++d) {
        small &= c[d].is_small();
        ci[d] = c[d].is_small() ? c[d].small() : 0;
      }
      if (small && pure_fast(fi, ci, out)) return Value(out);
      std::vector<Value> fr;
      fill_frame(fr, fi, c);
      return eval_slow(s.value, fr.data(), nullptr);
    }
    if (s.rdom_negative) return Value::err_rdom();  // [RDOM-ERR]
    if (!s.has_reduction_dims) return simulate_cell(fi, j, c);
    Slice& sl = slice_of(fi, j, c);
    Point red;
    for (int d = 0; d < f.dims; ++d)
      if (!s.dim_pure[d]) red.push_back(c[d]);
    auto it = sl.cells.find(red);
    Value v = it != sl.cells.end() ? it->second : stage_value(fi, j - 1, c);
    return sl.error ? join_errors(Value::error(*sl.error), v) : v;
  }

  // Calls body(r values) for every point of the rdom, r1 fastest ([RDOM-EVAL] order).
  template <typename Body>
  void for_each_rdom_point(const StageCode& s, Body&& body) {
    size_t k = s.rlen.size();
    for (const Value& l : s.rlen)
      if (l.is_zero()) return;
    std::vector<Value> r(s.rmin.begin(), s.rmin.end());
    while (true) {
      budget.step();
      body(r);
      size_t d = 0;
      for (; d < k; ++d) {
        r[d] = add(r[d], Value(int64_t{1}));
        if (sub(r[d], s.rmin[d]) != s.rlen[d]) break;
        r[d] = s.rmin[d];
      }
      if (d == k) return;
    }
  }

  // [UPDATE-EVAL] for a stage whose dimensions are all pure: every unrolled point update
  // writes the point itself, so the stage is a loop over one cell.
  Value simulate_cell(int fi, int j, const Point& c) {
    FuncInfo& f = funcs[fi];
    const StageCode& s = f.stages[j];
    Activation act;
    act.func = fi;
    act.stage = j;
    Value init = stage_value(fi, j - 1, c);
    act.cell_small = init.is_small();
    act.cell_i = init.is_small() ? init.small() : 0;
    act.cell_v = init;
    std::optional<Value::Kind> err;

    // The word-sized path: a flat loop nest over the rdom.
    bool fast_ok = params_small && s.rdom_small && s.frame_size <= 64;
    for (const Value& v : c) fast_ok &= v.is_small();
    size_t np = startup_values.size(), k = s.rmin.size();
    std::vector<Value> vframe;
    auto slow_iteration = [&](const int64_t* ifr, const std::vector<Value>* rv) {
      if (vframe.empty()) fill_frame(vframe, fi, c);
      vframe.resize(np + f.dims);
      for (size_t d = 0; d < k; ++d) vframe.push_back(rv ? (*rv)[d] : Value(ifr[np + f.dims + d]));
      Value p = s.pred >= 0 ? eval_slow(s.pred, vframe.data(), &act) : Value(int64_t{1});
      Value b = eval_slow(s.value, vframe.data(), &act);
      if (p.is_error() || b.is_error()) {
        Value e = join_errors(p, b);
        if (!err || e.kind() > *err) err = e.kind();
        return;
      }
      if (p.is_zero()) return;
      Value cur = act.cell_small ? Value(act.cell_i) : act.cell_v;
      if (cur.is_error()) return;  // strict select keeps the error
      act.cell_small = b.is_small();
      act.cell_i = b.is_small() ? b.small() : 0;
      act.cell_v = b;
    };

    if (fast_ok) {
      int64_t frame[64];
      std::copy(params_i.begin(), params_i.end(), frame);
      for (int d = 0; d < f.dims; ++d) frame[np + d] = c[d].small();
      int64_t* r = frame + np + f.dims;
      int64_t rmin[64], rend[64];
      for (size_t d = 0; d < k; ++d) {
        rmin[d] = s.rmin[d].small();
        rend[d] = rmin[d] + s.rlen[d].small();
        if (rend[d] == rmin[d]) return finish_cell(act, err);
        r[d] = rmin[d];
      }
      while (true) {
        budget.step();
        int64_t p = 1, b;
        if (act.cell_small && (s.pred < 0 || eval_fast(s.pred, frame, &act, p)) &&
            eval_fast(s.value, frame, &act, b)) {
          if (p != 0) act.cell_i = b;
        } else {
          slow_iteration(frame, nullptr);
        }
        size_t d = 0;
        for (; d < k; ++d) {
          if (++r[d] != rend[d]) break;
          r[d] = rmin[d];
        }
        if (d == k) break;
      }
    } else {
      for_each_rdom_point(s, [&](const std::vector<Value>& rv) { slow_iteration(nullptr, &rv); });
    }
    return finish_cell(act, err);
  }

  static Value finish_cell(const Activation& act, std::optional<Value::Kind> err) {
    Value v = act.cell_small ? Value(act.cell_i) : act.cell_v;
    return err ? join_errors(Value::error(*err), v) : v;
  }

  // The slice of stage j that contains point c, simulated on first use.
  Slice& slice_of(int fi, int j, const Point& c) {
    FuncInfo& f = funcs[fi];
    const StageCode& s = f.stages[j];
    Point key;
    for (int d = 0; d < f.dims; ++d)
      if (s.dim_pure[d]) key.push_back(c[d]);
    auto& table = f.slices[j];
    if (auto it = table.find(key); it != table.end()) return it->second;

    Slice sl;
    Activation act;
    act.slice = &sl;
    act.point = &c;
    act.func = fi;
    act.stage = j;
    std::vector<Value> fr;
    fill_frame(fr, fi, c);  // reduction dimensions' variables do not occur in the stage
    size_t base = fr.size();
    for_each_rdom_point(s, [&](const std::vector<Value>& rv) {
      fr.resize(base);
      fr.insert(fr.end(), rv.begin(), rv.end());
      Point red;
      std::vector<Value> seen;
      for (int d = 0; d < f.dims; ++d)
        if (!s.dim_pure[d]) {
          red.push_back(eval_slow(s.lhs[d], fr.data(), &act));
          seen.push_back(red.back());
        }
      Value p = s.pred >= 0 ? eval_slow(s.pred, fr.data(), &act) : Value(int64_t{1});
      Value b = eval_slow(s.value, fr.data(), &act);
      seen.push_back(p);
      seen.push_back(b);
      if (auto e = max_error(seen)) {  // strict select: the error reaches the whole slice
        if (!sl.error || *e > *sl.error) sl.error = *e;
        return;
      }
      if (p.is_zero()) return;
      Value& cell = cell_ref(act, red);
      if (!cell.is_error()) cell = b;
    });
    budget.charge_memory(64 * (sl.cells.size() + 1));
    return table.emplace(std::move(key), std::move(sl)).first->second;
  }

  // The current value of a cell of the slice being simulated; first touch fetches the
  // value the previous stage left there.
  Value& cell_ref(Activation& act, const Point& red) {
    auto it = act.slice->cells.find(red);
    if (it != act.slice->cells.end()) return it->second;
    const FuncInfo& f = funcs[act.func];
    const StageCode& s = f.stages[act.stage];
    Point full;
    size_t k = 0;
    for (int d = 0; d < f.dims; ++d) full.push_back(s.dim_pure[d] ? (*act.point)[d] : red[k++]);
    Value init = stage_value(act.func, act.stage - 1, full);
    return act.slice->cells.emplace(red, init).first->second;
  }

  Value slice_cell(Activation& act, const Point& args) {
    const StageCode& s = funcs[act.func].stages[act.stage];
    Point red;
    for (size_t d = 0; d < args.size(); ++d)
      if (!s.dim_pure[d]) red.push_back(args[d]);
    return cell_ref(act, red);
  }
};

FastEvaluator::FastEvaluator(const Pipeline& p, const Input& in, const Limits& lim)
    : impl_(std::make_unique<Impl>(p, in, lim)) {}
FastEvaluator::~FastEvaluator() = default;

Value FastEvaluator::eval_point(const std::vector<Value>& point) {
  Value v;
  run_on_big_stack([&] { v = impl_->final_value(int(impl_->funcs.size()) - 1, point); });
  return v;
}

Value FastEvaluator::func_value(const std::string& func, const std::vector<Value>& point) {
  Value v;
  run_on_big_stack([&] { v = impl_->final_value(impl_->func_index(func), point); });
  return v;
}

uint64_t FastEvaluator::steps() const { return impl_->budget.steps(); }

OutputBuffer FastEvaluator::realize() {
  OutputBuffer out;
  out.func = impl_->pipe.name.text;
  out.window = impl_->input.window;
  uint64_t n = window_volume(out.window, impl_->limits);
  impl_->budget.charge_memory(n * sizeof(Value));
  out.values.reserve(n);
  advise_huge_pages(out.values.data(), n * sizeof(Value));
  run_on_big_stack([&] { impl_->realize_window(out.values, n); });
  return out;
}

OutputBuffer evaluate_fast(const Pipeline& p, const Input& in, const Limits& lim) {
  FastEvaluator ev(p, in, lim);
  return ev.realize();
}

}  // namespace halo

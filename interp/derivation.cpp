// The derivation evaluator: fig. 2.6 rule by rule (see derivation.hpp for why it exists
// and docs/bigstep.md for the mapping from rules to functions and the readings taken).
//
// Judgments are solved by a small machine with an explicit stack of frames, one frame per
// judgment being derived:
//   * an Eval frame derives `D; e ⇓ c` for an expression e ([CONST-EVAL], [OP-EVAL],
//     [FUNC-ARG-EVAL], [FUNC-ARG-ERR]);
//   * a Lookup frame derives `D; f[c̄] ⇓ c` for constant, error-free arguments
//     ([FUNC-SKIP], [FUNC-EVAL], [UPDATE-EVAL], [RDOM-ERR], [RDOM-EVAL]); these are the
//     judgments that are memoized by (context, func, point).
// A frame asks for its premises one at a time by pushing a child frame; the child's value
// (and derivation) is handed back to it when the child finishes.
#include "interp/derivation.hpp"

#include "semantics/type_ops.hpp"
#include "interp/output.hpp"

#include "semantics/printer.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace halo {

Derivation::~Derivation() {
  // Steal the premises of every node we own alone, so no destructor recurses.
  std::vector<DerivationPtr> pending = std::move(premises);
  while (!pending.empty()) {
    DerivationPtr d = std::move(pending.back());
    pending.pop_back();
    if (d.use_count() == 1) {
      // Every node is created non-const by this file (make_shared<Derivation>), so
      // modifying it through const_cast is defined; we are its last owner.
      auto& ps = const_cast<Derivation&>(*d).premises;
      for (auto& q : ps) pending.push_back(std::move(q));
      ps.clear();
    }
  }
}

namespace {

// One stage of a func as the rules see it. The pure stage U0 = e is kept apart
// ([FUNC-EVAL] applies to it); every other stage is `rdom(r̄ = Ī) in (ē) <- e_b if e_p`.
struct Stage {
  bool pure = false;
  std::vector<RVar> rdom;
  std::vector<Expr> lhs;
  Expr value;      // e for the pure stage, e_b for an update
  Expr predicate;  // e_p; null when the source has no `if` (≡ if 1)
};

// A stage list as an immutable cons list: the head is the LAST stage, the tail the stages
// before it; the pure stage ends the list. A context D is identified by one cell: the funcs
// before cell->func, complete, then func cell->func with the stage list starting at cell.
struct Cell;
using CellPtr = std::shared_ptr<const Cell>;
struct Cell {
  size_t func = 0;
  Stage stage;
  CellPtr tail;
  size_t stage_index = 0;  // the U_j of the source this cell comes from
  bool original = true;    // an unmodified stage of the source
  size_t unrolled = 0;     // cells produced by [RDOM-EVAL] in this list, this one included
  std::vector<std::pair<std::string, Value>> fixed;  // rdom variables fixed by [RDOM-EVAL]
  mutable std::string description;                   // cache for judgment texts

  Cell() = default;
  Cell(const Cell&) = delete;
  Cell& operator=(const Cell&) = delete;
  ~Cell() {
    // Unroll lists can be millions of cells long: release the tail iteratively.
    CellPtr t = std::move(tail);
    while (t && t.use_count() == 1) {
      CellPtr next = std::move(const_cast<Cell&>(*t).tail);
      t = std::move(next);
    }
  }
};

struct Result {
  Value value;
  DerivationPtr deriv;  // null when derivations are not recorded
};

struct Key {
  const Cell* ctx;
  size_t func;
  std::vector<Value> point;
  bool operator==(const Key& o) const { return ctx == o.ctx && func == o.func && point == o.point; }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    size_t h = PointHash{}(k.point);
    h ^= std::hash<const void*>{}(k.ctx) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= k.func * 0x100000001b3ull;
    return h;
  }
};

// What [RDOM-ERR] / [RDOM-EVAL] need about the head cell of a context, computed once
// per cell: the evaluated bounds (and their derivations), and the unrolled list.
struct Unroll {
  bool done = false;
  bool negative = false;  // some c_len < 0: [RDOM-ERR]
  std::vector<DerivationPtr> premises;
  CellPtr list;  // [RDOM-EVAL]'s new stage list (null: unrolled to nothing and no tail)
  const Cell* ctx = nullptr;
};

enum class FrameKind : uint8_t { Eval, Lookup };

struct Frame {
  FrameKind kind = FrameKind::Eval;
  const Cell* ctx = nullptr;
  Expr expr;                  // Eval
  size_t func = 0;            // Lookup
  std::vector<Value> point;   // Lookup
  int phase = 0;
  const char* rule = nullptr;
  std::vector<Value> vals;             // the premises' values, in order
  std::vector<DerivationPtr> derivs;   // and their derivations (when recorded)
};

constexpr const char* kFuncArgErr = "FUNC-ARG-ERR";

// Memory charged to the Budget, including what a cell or a frame keeps alive besides
// itself (the substituted terms of a stage, the term a frame is evaluating), as measured on
// long unrolls: about 3 frames and one cell per point update.
constexpr uint64_t kCellBytes = sizeof(Cell) + 512;
constexpr uint64_t kFrameBytes = sizeof(Frame) + 768;

std::string join_values(const std::vector<Value>& vs) {
  std::string s;
  for (size_t i = 0; i < vs.size(); ++i) {
    if (i) s += ", ";
    s += vs[i].to_string();
  }
  return s;
}

Substitution without(const Substitution& s, const std::vector<std::string>& hidden) {
  Substitution out;
  for (const auto& b : s.bindings) {
    bool shadowed = false;
    for (const auto& h : hidden) shadowed |= h == b.first;
    if (!shadowed) out.bindings.push_back(b);
  }
  return out;
}

}  // namespace

struct DerivationEvaluator::Impl {
  std::string output_name;
  std::string realize_text;  // "out(w = 1)" for the [REALIZE] judgment
  std::vector<std::string> names;
  std::vector<Type> types;  // each func's value type (ℤ in an untyped program)
  std::vector<std::vector<std::string>> vars;
  std::vector<std::vector<std::vector<std::string>>> rvar_names;  // [func][stage] (stage 0 empty)
  std::unordered_map<std::string, size_t> index;
  std::vector<CellPtr> full;  // full[i]: the complete stage list of func i
  std::unordered_map<const Cell*, Unroll> unrolls;
  std::unordered_map<Key, Result, KeyHash> memo;
  Budget budget;
  bool record;
  size_t stack_high_water = 0;
  std::vector<InputBuffer> buffers;  // the input buffers, read by [INPUT-READ]
  const InputBuffer* buffer_of(const std::string& name) const {
    for (const auto& b : buffers)
      if (b.name == name) return &b;
    return nullptr;
  }

  Impl(const Pipeline& p, const Input& in, const Limits& lim, bool rec) : budget(lim), record(rec) {
    if (p.funcs.empty()) throw std::logic_error("derivation evaluator: the pipeline defines no func");
    if (in.params.size() != p.params.size())
      throw std::logic_error("derivation evaluator: the input does not bind every parameter");
    // [REALIZE] fig. 2.6: [c/p] D, literally, before anything is evaluated. Substitution
    // respects binders: a pure variable hides a parameter of the same name in its func,
    // an rdom variable hides both in its stage. rdom bounds are startup expressions
    // (Def. 2.9), which see only parameters.
    Substitution params;
    std::string ptext;
    for (size_t i = 0; i < p.params.size(); ++i) {
      params.bindings.emplace_back(p.params[i].text, in.params[i]);
      ptext += fmt::format("{}{} = {}", i ? ", " : "", p.params[i].text, in.params[i].to_string());
    }
    // The input buffers' geometry is bound with the parameters (docs/inputs.md).
    for (auto& g : buffer_geometry_bindings(in.buffers)) params.bindings.push_back(std::move(g));
    buffers = in.buffers;
    output_name = p.name.text;
    realize_text = fmt::format("{}({})", p.name.text, ptext);
    for (size_t fi = 0; fi < p.funcs.size(); ++fi) {
      const FuncDef& fd = p.funcs[fi];
      names.push_back(fd.name.text);
      types.push_back(fd.type);
      index.emplace(fd.name.text, fi);
      std::vector<std::string> xs;
      for (const auto& v : fd.vars) xs.push_back(v.text);
      vars.push_back(xs);
      Substitution in_func = without(params, xs);

      auto pure = std::make_shared<Cell>();
      pure->func = fi;
      pure->stage.pure = true;
      pure->stage.value = substitute(fd.pure, in_func);
      CellPtr list = pure;
      rvar_names.emplace_back(1);
      for (size_t u = 0; u < fd.updates.size(); ++u) {
        const UpdateStage& us = fd.updates[u];
        std::vector<std::string> hidden = xs, rs;
        for (const auto& r : us.rdom) {
          hidden.push_back(r.name.text);
          rs.push_back(r.name.text);
        }
        rvar_names.back().push_back(rs);
        Substitution in_stage = without(params, hidden);
        auto c = std::make_shared<Cell>();
        c->func = fi;
        c->stage_index = u + 1;
        for (const auto& r : us.rdom)
          c->stage.rdom.push_back(RVar{r.name, substitute(r.min, params), substitute(r.len, params)});
        for (const auto& e : us.lhs) c->stage.lhs.push_back(substitute(e, in_stage));
        c->stage.value = substitute(us.value, in_stage);
        if (us.predicate) c->stage.predicate = substitute(us.predicate, in_stage);
        c->tail = list;
        list = c;
      }
      full.push_back(list);
    }
  }

  // D without its last func (the premise context of [FUNC-SKIP] and [FUNC-EVAL]).
  const Cell* drop_last_func(const Cell* ctx) const { return ctx->func == 0 ? nullptr : full[ctx->func - 1].get(); }

  // ---------------------------------------------------------------- judgment texts
  std::string stage_label(const Cell* c) const {
    const auto& rs = rvar_names[c->func][c->stage_index];
    std::string s = fmt::format("s{}", c->stage_index);
    if (rs.empty()) return s;
    s += "[";
    for (size_t i = 0; i < rs.size(); ++i) {
      std::string v = "*";
      for (const auto& [n, val] : c->fixed)
        if (n == rs[i]) v = val.to_string();
      s += fmt::format("{}{}={}", i ? ", " : "", rs[i], v);
    }
    return s + "]";
  }

  // ⟨g, h, f: s0..s1 + 4 stages from s2, last s2[r=1, s=0]⟩: the complete funcs before
  // the last one, then what remains of the last one's stage list.
  const std::string& describe(const Cell* c) const {
    static const std::string empty = "⟨⟩";
    if (!c) return empty;
    if (!c->description.empty()) return c->description;
    std::string s = "⟨";
    for (size_t i = 0; i < c->func; ++i) s += names[i] + ", ";
    s += names[c->func] + ": ";
    auto range = [](size_t top) { return top == 0 ? std::string("s0") : fmt::format("s0..s{}", top); };
    if (c->original) {
      s += range(c->stage_index);
    } else {
      s += fmt::format("{} + {} stage{} from s{}, last {}", range(c->stage_index - 1), c->unrolled,
                       c->unrolled == 1 ? "" : "s", c->stage_index, stage_label(c));
    }
    c->description = s + "⟩";
    return c->description;
  }

  // A typed term's value is written with its type, `... ⇓ 44 : u8` (docs/types.md).
  std::string judgment(const Cell* ctx, const std::string& term, const Value& v, Type t) const {
    return fmt::format("{}; {} ⇓ {}{}", describe(ctx), term, v.to_string(), t.is_typed() ? " : " + t.to_string() : "");
  }
  std::string access_text(size_t f, const std::vector<Value>& point) const {
    return fmt::format("{}[{}]", names[f], join_values(point));
  }

  DerivationPtr node(const char* rule, std::string judgment, const Value& v, std::vector<DerivationPtr> premises) {
    budget.charge_memory(sizeof(Derivation) + judgment.size() + 16 * premises.size());
    return std::make_shared<Derivation>(rule, std::move(judgment), v, std::move(premises));
  }

  // ---------------------------------------------------------------- the rules' terms
  // [FUNC-EVAL] fig. 2.6: the premise term [c/x]e.
  Expr func_eval_term(const Cell* c, const std::vector<Value>& point) const {
    return substitute(c->stage.value, bind_vars(c->func, point));
  }

  Substitution bind_vars(size_t f, const std::vector<Value>& point) const {
    Substitution s;
    for (size_t i = 0; i < vars[f].size(); ++i) s.bindings.emplace_back(vars[f][i], point[i]);
    return s;
  }

  // [UPDATE-EVAL] fig. 2.6: the premise term
  //   [c/x] select(e1 == x1 && ... && en == xn && e_p, e_b, f[x1, ..., xn]).
  // The conjunction is built left-nested; an absent `if` is the literal `&& 1` (the
  // grammar's `if 1`); a func of no dimensions has just e_p as the condition.
  Expr update_term(const Cell* c, const std::vector<Value>& point) const {
    // Built afresh for each judgment (and dropped with its frame): caching the unsubstituted
    // term per cell would cost about 1 KB for every unrolled point update.
    const Stage& s = c->stage;
    const auto& xs = vars[c->func];
    Expr cond;
    std::vector<Expr> self_args;
    for (size_t i = 0; i < xs.size(); ++i) {
      Expr x = make_var(xs[i]);
      self_args.push_back(x);
      Expr eq = make_op(Op::Eq, {s.lhs.at(i), x});
      cond = cond ? make_op(Op::And, {cond, eq}) : eq;
    }
    Expr pred = s.predicate ? s.predicate : make_const(Value(1));
    cond = cond ? make_op(Op::And, {cond, pred}) : pred;
    Expr term = make_op(Op::Select, {cond, s.value, make_call(names[c->func], self_args)});
    return substitute(term, bind_vars(c->func, point));
  }

  // [RDOM-EVAL] fig. 2.6: unroll the outermost variable r_k of the head cell of `ctx`:
  // the new list is the tail followed by [c/r_k](rdom(r1..r_{k-1}) in (ē) <- e_b if e_p)
  // for c = c_min .. c_min + c_len - 1, the last c at the head (so r1 varies fastest).
  CellPtr unroll(const Cell* ctx, const Value& mn, const Value& len) {
    const Stage& s = ctx->stage;
    const RVar& rk = s.rdom.back();
    auto n = len.as_int64();
    if (!n)
      throw ResourceLimit(fmt::format("rdom variable {} has {} values: too many to unroll; use the fast "
                                      "evaluator (halo eval without --derivation)",
                                      rk.name.text, len.to_string()));
    CellPtr list = ctx->tail;
    size_t below = ctx->original ? 0 : ctx->unrolled - 1;
    for (int64_t i = 0; i < *n; ++i) {
      budget.step();
      budget.charge_memory(kCellBytes);
      Value c = add(mn, Value(i));
      Substitution sub;
      sub.bindings.emplace_back(rk.name.text, c);
      auto cell = std::make_shared<Cell>();
      cell->func = ctx->func;
      cell->stage_index = ctx->stage_index;
      cell->original = false;
      cell->unrolled = below + size_t(i) + 1;
      cell->fixed = ctx->fixed;
      cell->fixed.emplace_back(rk.name.text, c);
      for (size_t j = 0; j + 1 < s.rdom.size(); ++j)
        cell->stage.rdom.push_back(RVar{s.rdom[j].name, substitute(s.rdom[j].min, sub), substitute(s.rdom[j].len, sub)});
      for (const auto& e : s.lhs) cell->stage.lhs.push_back(substitute(e, sub));
      cell->stage.value = substitute(s.value, sub);
      if (s.predicate) cell->stage.predicate = substitute(s.predicate, sub);
      cell->tail = std::move(list);
      list = std::move(cell);
    }
    return list;
  }

  // ---------------------------------------------------------------- the machine
  struct Machine {
    Impl& im;
    std::vector<Frame> stack;
    std::optional<Result> ret;  // a finished premise, handed to the frame on top

    void push(Frame f) {
      stack.push_back(std::move(f));
      if (stack.size() > im.stack_high_water) {
        im.budget.charge_memory(kFrameBytes * (stack.size() - im.stack_high_water));
        im.stack_high_water = stack.size();
      }
    }
    void push_eval(const Cell* ctx, Expr e) {
      Frame f;
      f.kind = FrameKind::Eval;
      f.ctx = ctx;
      f.expr = std::move(e);
      push(std::move(f));
    }
    // Asks for the judgment D; f[c̄] (c̄ error-free): from the memo, or by a new frame.
    void request_lookup(const Cell* ctx, size_t func, std::vector<Value> point) {
      auto it = im.memo.find(Key{ctx, func, point});
      if (it != im.memo.end()) {
        ret = it->second;
        return;
      }
      Frame f;
      f.kind = FrameKind::Lookup;
      f.ctx = ctx;
      f.func = func;
      f.point = std::move(point);
      push(std::move(f));
    }
    // Pops the top frame with its conclusion (memoized when it is a Lookup judgment).
    void conclude(Result r) {
      Frame& f = stack.back();
      if (f.kind == FrameKind::Lookup) {
        im.budget.charge_memory(sizeof(Key) + sizeof(Result) + 32 * f.point.size() + 32);
        im.memo.emplace(Key{f.ctx, f.func, std::move(f.point)}, r);
      }
      stack.pop_back();
      ret = std::move(r);
    }

    Result run() {
      while (!stack.empty()) {
        im.budget.step();
        Frame& f = stack.back();
        if (ret) {
          f.vals.push_back(std::move(ret->value));
          if (im.record) f.derivs.push_back(std::move(ret->deriv));
          ret.reset();
        }
        if (f.kind == FrameKind::Eval) step_eval(f);
        else step_lookup(f);
      }
      return std::move(*ret);
    }

    // Concludes the top frame by `rule` with value v and the collected premises
    // (plus `extra` in front, for [RDOM-EVAL]'s bound evaluations).
    void conclude_rule(const char* rule, const Value& v, const std::string& term, Type t,
                       const std::vector<DerivationPtr>* extra = nullptr) {
      Frame& f = stack.back();
      DerivationPtr d;
      if (im.record) {
        std::vector<DerivationPtr> premises;
        if (extra) premises = *extra;
        for (auto& p : f.derivs) premises.push_back(std::move(p));
        d = im.node(rule, im.judgment(f.ctx, term, v, t), v, std::move(premises));
      }
      conclude(Result{v, std::move(d)});
    }

    void step_eval(Frame& f) {
      const Expr& e = f.expr;
      switch (e->kind) {
        case ExprKind::Const:  // [CONST-EVAL] fig. 2.6: c ⇓ c
          return conclude_rule("CONST-EVAL", as<ConstNode>(e).value, im.record ? print_expr(e) : "", e->type);
        case ExprKind::Var:
          throw std::logic_error(fmt::format(
              "derivation evaluator: variable '{}' is free after substitution; the program is not valid "
              "(check validity before evaluating)",
              as<VarNode>(e).name));
        case ExprKind::Op: {
          // [OP-EVAL] fig. 2.6: evaluate every operand (no short-circuit, select is strict),
          // then op(c̄) ⇓ c' by apply_op (Def. 2.6 errors, Euclidean total div/mod).
          const auto& n = as<OpNode>(e);
          if (f.vals.size() < n.args.size()) return push_eval(f.ctx, n.args[f.vals.size()]);
          Value v = apply_op_node(n, f.vals);  // Halide's operator at its types in a typed program
          return conclude_rule("OP-EVAL", v, im.record ? print_expr(e) : "", e->type);
        }
        case ExprKind::Call: return step_call(f);
        case ExprKind::Hole:
          throw std::logic_error("derivation evaluator: a hole in an algorithm expression");
      }
    }
    size_t func_index(const std::string& name) const {
      auto it = im.index.find(name);
      if (it == im.index.end())
        throw std::logic_error(fmt::format("derivation evaluator: no func named '{}'; the program is not valid", name));
      return it->second;
    }

    // The greatest error among the arguments, if any.
    static std::optional<Value> arg_error(const std::vector<Value>& vs) {
      if (auto k = max_error(vs)) return Value::error(*k);
      return std::nullopt;
    }

    // [INPUT-READ] (halo's rule for input buffers, docs/inputs.md): the arguments as
    // [FUNC-ARG-EVAL] evaluates them, then the buffer's value at c̄, or ε_mem outside it.
    void step_input(Frame& f, const CallNode& n, const InputBuffer& buf) {
      if (f.vals.size() < n.args.size()) return push_eval(f.ctx, n.args[f.vals.size()]);
      std::vector<Value> point(f.vals.begin(), f.vals.end());
      if (auto err = arg_error(point))  // [FUNC-ARG-ERR] (Def. 2.6)
        return conclude_rule(kFuncArgErr, *err, im.record ? print_expr(f.expr) : "", buf.type);
      const Value* v = buf.at(point);
      return conclude_rule("INPUT-READ", v ? *v : Value::err_mem(), im.record ? print_expr(f.expr) : "", buf.type);
    }

    void step_call(Frame& f) {
      const auto& n = as<CallNode>(f.expr);
      if (const InputBuffer* buf = im.buffer_of(n.func)) return step_input(f, n, *buf);
      size_t fi = func_index(n.func);
      size_t k = n.args.size();
      if (f.phase == 0) {
        bool constant = true;
        for (const auto& a : n.args) constant &= a->kind == ExprKind::Const;
        if (constant) {
          std::vector<Value> point;
          for (const auto& a : n.args) point.push_back(as<ConstNode>(a).value);
          if (auto err = arg_error(point))  // [FUNC-ARG-ERR] (Def. 2.6): f is not looked up
            return conclude_rule(kFuncArgErr, *err, im.record ? im.access_text(fi, point) : "", im.types[fi]);
          // The term is already the judgment D; f[c̄]: it is derived by the Lookup rules.
          const Cell* ctx = f.ctx;
          stack.pop_back();
          return request_lookup(ctx, fi, std::move(point));
        }
        f.phase = 1;
      }
      // [FUNC-ARG-EVAL] fig. 2.6: evaluate every argument, then derive D; f[c̄].
      if (f.vals.size() < k) return push_eval(f.ctx, n.args[f.vals.size()]);
      if (f.vals.size() == k) {
        std::vector<Value> point(f.vals.begin(), f.vals.end());
        if (auto err = arg_error(point)) {
          // [FUNC-ARG-ERR] (Def. 2.6) as the second premise.
          Value ev = *err;
          DerivationPtr d;
          if (im.record) {
            im.budget.step();
            d = im.node(kFuncArgErr, im.judgment(f.ctx, im.access_text(fi, point), ev, im.types[fi]), ev, {});
          }
          f.vals.push_back(ev);
          if (im.record) f.derivs.push_back(std::move(d));
        } else {
          return request_lookup(f.ctx, fi, std::move(point));
        }
      }
      return conclude_rule("FUNC-ARG-EVAL", f.vals.back(), im.record ? print_expr(f.expr) : "", f.expr->type);
    }

    void step_lookup(Frame& f) {
      const Cell* ctx = f.ctx;
      if (f.phase == 1) {  // the single premise of FUNC-SKIP / FUNC-EVAL / UPDATE-EVAL is in
        return conclude_rule(f.rule, f.vals.back(), im.record ? im.access_text(f.func, f.point) : "", im.types[f.func]);
      }
      if (f.phase == 0) {
        if (!ctx)
          throw std::logic_error(fmt::format(
              "derivation evaluator: {} is not defined before its use; the program is not valid",
              im.names[f.func]));
        if (ctx->func != f.func) {
          // [FUNC-SKIP] fig. 2.6: the last func of D is not f; drop it.
          f.rule = "FUNC-SKIP";
          f.phase = 1;
          return request_lookup(im.drop_last_func(ctx), f.func, f.point);
        }
        if (f.point.size() != im.vars[f.func].size())
          throw std::logic_error(fmt::format("derivation evaluator: {} accessed with {} arguments; the program is not valid",
                                             im.names[f.func], f.point.size()));
        const Stage& s = ctx->stage;
        if (s.pure) {
          // [FUNC-EVAL] fig. 2.6: f has only its pure stage e; derive [c/x]e in D without f.
          f.rule = "FUNC-EVAL";
          f.phase = 1;
          return push_eval(im.drop_last_func(ctx), im.func_eval_term(ctx, f.point));
        }
        if (s.rdom.empty()) {
          // [UPDATE-EVAL] fig. 2.6: the last stage is a point update; derive
          // [c/x] select(ē == x̄ && e_p, e_b, f[x̄]) with that stage removed.
          f.rule = "UPDATE-EVAL";
          f.phase = 1;
          return push_eval(ctx->tail.get(), im.update_term(ctx, f.point));
        }
        f.phase = 2;
        if (im.unrolls[ctx].done) {
          f.phase = 3;
          return decide_rdom(f);
        }
      }
      if (f.phase == 2) {
        // The premises e_min ⇓ c_min, e_len ⇓ c_len of [RDOM-ERR] / [RDOM-EVAL], for every
        // rdom variable in order (r1 min, r1 len, r2 min, ...). The bounds are startup
        // expressions, so the context does not matter; they are evaluated in D.
        const auto& rd = ctx->stage.rdom;
        size_t i = f.vals.size();
        if (i < 2 * rd.size()) return push_eval(ctx, i % 2 == 0 ? rd[i / 2].min : rd[i / 2].len);
        Unroll& u = im.unrolls[ctx];
        for (const Value& v : f.vals)
          if (v.is_error())
            throw std::logic_error("derivation evaluator: an rdom bound evaluated to an error value; the "
                                   "program is not valid (bounds are startup expressions)");
        for (size_t j = 0; j < rd.size(); ++j) u.negative |= f.vals[2 * j + 1].sign() < 0;
        u.premises = std::move(f.derivs);
        if (!u.negative) {
          u.list = im.unroll(ctx, f.vals[2 * rd.size() - 2], f.vals[2 * rd.size() - 1]);
        }
        u.done = true;
        f.vals.clear();
        f.derivs.clear();
        f.phase = 3;
        return decide_rdom(f);
      }
      // phase 4: the premise D; fun f = {Ū; unroll}; f[c̄] ⇓ c' is in.
      const Unroll& u = im.unrolls.at(ctx);
      return conclude_rule("RDOM-EVAL", f.vals.back(), im.record ? im.access_text(f.func, f.point) : "",
                           im.types[f.func], &u.premises);
    }

    void decide_rdom(Frame& f) {
      const Unroll& u = im.unrolls.at(f.ctx);
      if (u.negative) {
        // [RDOM-ERR] fig. 2.6: some evaluated length is negative.
        return conclude_rule("RDOM-ERR", Value::err_rdom(), im.record ? im.access_text(f.func, f.point) : "",
                             im.types[f.func], &u.premises);
      }
      // [RDOM-EVAL] fig. 2.6 (read with the side condition that no length is negative):
      // derive f[c̄] in the context whose last stage is replaced by its unrolling.
      f.phase = 4;
      if (!u.list)
        throw std::logic_error("derivation evaluator: an rdom stage unrolled to an empty func");
      return request_lookup(u.list.get(), f.func, f.point);
    }
  };

  Result solve(const Cell* ctx, size_t func, const std::vector<Value>& point) {
    Machine m{*this, {}, std::nullopt};
    m.request_lookup(ctx, func, point);
    if (m.stack.empty()) return *m.ret;
    return m.run();
  }

  Result eval_output(const std::vector<Value>& point) {
    size_t out = full.size() - 1;
    if (point.size() != vars[out].size())
      throw InputError(Diagnostic{"", {}, fmt::format("the point has {} coordinate(s) but the output func '{}' has {} "
                                                      "dimension(s)",
                                                      point.size(), names[out], vars[out].size())});
    return solve(full[out].get(), out, point);
  }
};

DerivationEvaluator::DerivationEvaluator(const Pipeline& p, const Input& in, const Limits& lim, bool record)
    : impl_(std::make_unique<Impl>(p, in, lim, record)) {}
DerivationEvaluator::~DerivationEvaluator() = default;

Value DerivationEvaluator::eval_point(const std::vector<Value>& point) { return impl_->eval_output(point).value; }

DerivationPtr DerivationEvaluator::derive_point(const std::vector<Value>& point) {
  if (!impl_->record)
    throw std::logic_error("derive_point needs a DerivationEvaluator built with record_derivations = true");
  Result r = impl_->eval_output(point);
  // [REALIZE] fig. 2.6, for one point y of the window: its premise is [c/p](D; f[ȳ]) ⇓ c_y.
  impl_->budget.step();
  return impl_->node("REALIZE",
                     fmt::format("pipeline {} = D; realize ⇓ {}({}) := {}{}", impl_->realize_text, impl_->output_name,
                                 join_values(point), r.value.to_string(),
                                 impl_->types.back().is_typed() ? " : " + impl_->types.back().to_string() : ""),
                     r.value, {r.deriv});
}

uint64_t DerivationEvaluator::steps() const { return impl_->budget.steps(); }

OutputBuffer evaluate_by_derivation(const Pipeline& p, const Input& in, const Limits& lim) {
  // [REALIZE] fig. 2.6: one derivation D; f[ȳ] per point y of the window.
  DerivationEvaluator ev(p, in, lim, false);
  uint64_t n = window_volume(in.window, lim);
  OutputBuffer out{p.name.text, in.window, {}};
  out.values.reserve(n);
  for (uint64_t i = 0; i < n; ++i) out.values.push_back(ev.eval_point(window_point(in.window, i)));
  return out;
}

// ---------------------------------------------------------------- printing
namespace {

// How many times each node is referenced (a node seen twice is shared).
std::unordered_map<const Derivation*, size_t> count_references(const Derivation& root) {
  std::unordered_map<const Derivation*, size_t> refs;
  std::vector<const Derivation*> todo{&root};
  refs[&root] = 1;
  while (!todo.empty()) {
    const Derivation* d = todo.back();
    todo.pop_back();
    for (const auto& p : d->premises) {
      if (!p) continue;
      if (refs[p.get()]++ == 0) todo.push_back(p.get());
    }
  }
  return refs;
}

std::string rule_text(const std::string& rule) {
  if (rule == kFuncArgErr) return "[FUNC-ARG-ERR] (Def. 2.6)";
  return "[" + rule + "]";
}

}  // namespace

std::string print_derivation(const Derivation& root, size_t max_lines) {
  auto refs = count_references(root);
  std::unordered_map<const Derivation*, size_t> number;  // shared nodes already printed
  size_t next_number = 1, lines = 0;
  std::string out;
  std::vector<std::pair<const Derivation*, size_t>> todo{{&root, 0}};
  while (!todo.empty()) {
    auto [d, depth] = todo.back();
    todo.pop_back();
    ++lines;
    auto seen = number.find(d);
    bool emit = lines <= max_lines;
    if (emit) {
      // Deeper lines than kMaxIndentLevels (support/indentation.hpp) say their depth instead.
      if (depth <= size_t(kMaxIndentLevels)) out.append(indent_width(int(depth)), ' ');
      else out += std::string(indent_width(kMaxIndentLevels), ' ') + fmt::format("(depth {}) ", depth);
      out += d->judgment;
    }
    if (seen != number.end()) {
      if (emit) out += fmt::format("   (derived above: #{})\n", seen->second);
      continue;
    }
    if (emit) {
      out += "   " + rule_text(d->rule);
      if (refs[d] > 1) out += fmt::format("  #{}", next_number);
      out += "\n";
    }
    if (refs[d] > 1) number.emplace(d, next_number++);
    for (auto it = d->premises.rbegin(); it != d->premises.rend(); ++it)
      if (*it) todo.emplace_back(it->get(), depth + 1);
  }
  if (lines > max_lines)
    out += fmt::format("... ({} more lines; raise --derivation-lines or use a smaller program)\n", lines - max_lines);
  return out;
}

namespace {

struct JsonWriter {
  std::unordered_map<const Derivation*, size_t> refs;
  std::unordered_map<const Derivation*, size_t> ids;
  size_t next_id = 1;
  // Each level is a C++ frame here and in nlohmann's dump(); 1000 fits any stack, sanitizers included.
  static constexpr size_t kMaxDepth = 1000;

  nlohmann::json write(const Derivation& d, size_t depth) {
    if (depth > kMaxDepth)
      throw ResourceLimit(fmt::format("the derivation is deeper than {} levels, too deep for JSON output; "
                                      "use a smaller program",
                                      kMaxDepth));
    nlohmann::json j;
    j["rule"] = d.rule;
    j["judgment"] = d.judgment;
    j["value"] = value_to_json(d.value);
    if (auto it = ids.find(&d); it != ids.end()) {
      j["ref"] = it->second;
      return j;
    }
    if (refs[&d] > 1) {
      ids.emplace(&d, next_id);
      j["id"] = next_id++;
    }
    nlohmann::json ps = nlohmann::json::array();
    for (const auto& p : d.premises)
      if (p) ps.push_back(write(*p, depth + 1));
    j["premises"] = std::move(ps);
    return j;
  }
};

}  // namespace

std::string derivation_to_json(const Derivation& d) {
  JsonWriter w;
  w.refs = count_references(d);
  return w.write(d, 0).dump();
}

}  // namespace halo

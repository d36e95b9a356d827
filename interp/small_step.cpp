// The small-step machine of small_step.hpp: fig. 2.8 as a continuation machine.
//
// Why a machine: REDUCE says a step is "decompose the term into E[r], rewrite the redex r
// by one axiom, plug the result back". Doing that on terms costs the size of the term per
// step. Here the term E[r] is kept decomposed: the context E is a stack of frames (one
// frame kind per production of E in fig. 2.8) and the redex position is the control.
// Moving the control into a subterm (pushing a frame) or a finished constant back into
// its hole (popping one) is decomposition and plugging: administrative, no step, no
// change to the term. Every step applies exactly one axiom of the figure at the control
// and costs O(1) (O(arity) for EVAL/READ/ASSN/ALLOC, O(points) for ALLOC's ε_mem fill).
// docs/smallstep.md has the rule/production table and the equivalence argument.
//
// Before running, the program is compiled once: labels erased (they have no semantics),
// variables and funcs resolved to slots so that Σ and σ are arrays (Σ stays the flat map
// of the figure: one slot per name, LET and FOR-ITER set it, FOR-STOP clears it), and
// every check that does not depend on the run (holes, arities, missing subtrees) is made.
#include "interp/small_step.hpp"

#include "support/big_stack.hpp"
#include "semantics/type_ops.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_printer.hpp"

#include <fmt/format.h>

#include <deque>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace halo {

const char* run_status_name(RunStatus s) {
  switch (s) {
    case RunStatus::Ok: return "ok";
    case RunStatus::AssertionFailure: return "assertion_failure";
    case RunStatus::RdomFailure: return "rdom_failure";
    case RunStatus::MemoryError: return "memory_error";
    case RunStatus::ErrorInControl: return "error_in_control";
    case RunStatus::UnboundVariable: return "unbound_variable";
  }
  return "?";
}

namespace {

// ---------------------------------------------------------------- the compiled program
// An expression with its variable or func resolved to a slot.
struct CExpr {
  ExprKind kind = ExprKind::Const;  // never Hole: holes are rejected when compiling
  Op op = Op::Add;
  const OpNode* typed = nullptr;      // Op in a typed program: the node (its types decide the value)
  uint32_t slot = 0;                  // Var: variable slot; Call: func slot
  std::vector<const CExpr*> args;     // Op: operands; Call: indices
  Value value;                        // Const
  FuncLabel label;                    // Call
  const std::string* name = nullptr;  // Var: the variable; Call: the func (traces, messages)
  SourceLoc loc;
};

// A statement; `label ℓ: s` is compiled as s (labels have no semantics, §2.5.1).
struct CStmt {
  StmtKind kind = StmtKind::Nop;    // never Label; Seq has at least two elements
  uint32_t slot = 0;                // For, Let: variable slot; Allocate: func slot
  std::vector<const CExpr*> exprs;  // Assert, If: condition; Let: value; For: min, len;
                                    // Allocate: min0, len0, min1, len1, ...; Store: value
  const CExpr* target = nullptr;    // Store: the left-hand side f^ℓ[e1, ..., en] as an access
  std::vector<const CStmt*> stmts;  // Seq: elements; If: then, else; For, Let: body
  const StmtNode* src = nullptr;    // traces and messages
};

// Deep enough for any program a scheduler produces (nesting grows with compute_at
// chains), small enough that compiling on the big stack cannot overflow it.
constexpr int kMaxCompileDepth = 1'000'000;

std::string at(SourceLoc l) { return l.line ? fmt::format(" (at {}:{})", l.line, l.col) : std::string(); }

class Compiler {
 public:
  // Deques: nodes and names are referred to by pointer, so their addresses must not move.
  std::deque<CExpr> exprs;
  std::deque<CStmt> stmts;
  std::deque<std::string> var_names, func_names;  // by slot

  explicit Compiler(std::string file) : file_(std::move(file)) {}

  uint32_t var_slot(const std::string& n) { return slot(n, var_slots_, var_names); }
  uint32_t func_slot(const std::string& n) { return slot(n, func_slots_, func_names); }

  const CExpr* expr(const Expr& e, SourceLoc parent, int depth) {
    if (!e) fail(parent, "malformed program: an expression is missing");
    if (depth > kMaxCompileDepth) throw ResourceLimit("the program is nested too deeply to run");
    CExpr& c = exprs.emplace_back();
    c.kind = e->kind;
    c.loc = e->loc;
    switch (e->kind) {
      case ExprKind::Const: c.value = as<ConstNode>(e).value; break;
      case ExprKind::Var:
        c.slot = var_slot(as<VarNode>(e).name);
        c.name = &var_names[c.slot];
        break;
      case ExprKind::Call: {
        const auto& n = as<CallNode>(e);
        c.slot = func_slot(n.func);
        c.name = &func_names[c.slot];
        c.label = n.label;
        for (const auto& a : n.args) c.args.push_back(expr(a, e->loc, depth + 1));
        break;
      }
      case ExprKind::Op: {
        const auto& n = as<OpNode>(e);
        c.op = n.op;
        if (n.type.is_typed() || is_halide_op(n.op)) c.typed = &n;
        if (int(n.args.size()) != op_arity(n.op))
          fail(e->loc, fmt::format("malformed program: operator '{}' takes {} operand(s), not {}", op_name(n.op),
                                   op_arity(n.op), n.args.size()));
        for (const auto& a : n.args) c.args.push_back(expr(a, e->loc, depth + 1));
        break;
      }
      case ExprKind::Hole:
        fail(e->loc, fmt::format("the program still has the hole {}: a Tgt program runs only once bounds "
                                 "inference has filled every hole (see `halo bounds`)",
                                 as<HoleNode>(e).label.to_string()));
    }
    return &c;
  }

  const CStmt* stmt(const Stmt& s, SourceLoc parent, int depth) {
    if (!s) fail(parent, "malformed program: a statement is missing");
    if (depth > kMaxCompileDepth) throw ResourceLimit("the program is nested too deeply to run");
    // Labels and one-element sequences are the same term as their content.
    if (s->kind == StmtKind::Label) return stmt(as<LabelStmt>(s).body, s->loc, depth + 1);
    if (s->kind == StmtKind::Seq && as<SeqStmt>(s).stmts.size() == 1)
      return stmt(as<SeqStmt>(s).stmts[0], s->loc, depth + 1);
    CStmt& c = stmts.emplace_back();
    c.kind = s->kind;
    c.src = s.get();
    auto sub = [&](const Expr& e) { return expr(e, s->loc, depth + 1); };
    auto body = [&](const Stmt& b) { return stmt(b, s->loc, depth + 1); };
    switch (s->kind) {
      case StmtKind::Nop: break;
      case StmtKind::Assert: c.exprs = {sub(as<AssertStmt>(s).cond)}; break;
      case StmtKind::Seq:
        if (as<SeqStmt>(s).stmts.empty()) c.kind = StmtKind::Nop;  // the empty sequence is nop
        for (const auto& x : as<SeqStmt>(s).stmts) c.stmts.push_back(body(x));
        break;
      case StmtKind::Allocate: {
        const auto& n = as<AllocateStmt>(s);
        c.slot = func_slot(n.func);
        for (const auto& [mn, ln] : n.bounds) {
          c.exprs.push_back(sub(mn));
          c.exprs.push_back(sub(ln));
        }
        break;
      }
      case StmtKind::Store: {
        const auto& n = as<StoreStmt>(s);
        c.exprs = {sub(n.value)};
        CExpr& t = exprs.emplace_back();
        t.kind = ExprKind::Call;
        t.slot = func_slot(n.func);
        t.name = &func_names[t.slot];
        t.label = n.label;
        t.loc = s->loc;
        for (const auto& a : n.args) t.args.push_back(sub(a));
        c.target = &t;
        break;
      }
      case StmtKind::If: {
        const auto& n = as<IfStmt>(s);
        c.exprs = {sub(n.cond)};
        c.stmts = {body(n.then_case), body(n.else_case)};
        break;
      }
      case StmtKind::For: {
        const auto& n = as<ForStmt>(s);
        c.slot = var_slot(n.binder());
        c.exprs = {sub(n.min), sub(n.len)};
        c.stmts = {body(n.body)};
        break;
      }
      case StmtKind::Let: {
        const auto& n = as<LetStmt>(s);
        c.slot = var_slot(n.var);
        c.exprs = {sub(n.value)};
        c.stmts = {body(n.body)};
        break;
      }
      case StmtKind::Label: break;  // handled above
    }
    return &c;
  }

  [[noreturn]] void fail(SourceLoc l, std::string msg) { throw InputError(Diagnostic{file_, l, std::move(msg)}); }

 private:
  static uint32_t slot(const std::string& n, std::unordered_map<std::string, uint32_t>& slots,
                       std::deque<std::string>& names) {
    auto [it, fresh] = slots.emplace(n, uint32_t(names.size()));
    if (fresh) names.push_back(n);
    return it->second;
  }
  std::string file_;
  std::unordered_map<std::string, uint32_t> var_slots_, func_slots_;
};

// ---------------------------------------------------------------- the machine state
// One frame kind per production of E (fig. 2.8); the frame is the production with its
// hole at the control. Frames that already hold constants (c1, ..., c_{i-1} of an
// operator, the c' of `E <- c'`, ...) keep them on the value stack from `base` on.
enum class FrameKind : uint8_t {
  Seq,          // E; s      where s = s_idx; ...; s_n, the rest of an n-ary sequence
  SeqLoop,      // E; s      where s = for x in (c+1, l-1) do body, left by FOR-ITER
  Alloc,        // allocate f((c, c), ..., E, ..., I_n)     idx: the dimension in the hole
  StoreValue,   // a <- E                                    (the right-hand side first)
  StoreTarget,  // E <- c'                                   (then the target's indices)
  If,           // if E then s1 else s2
  For,          // for x in E do s
  IntervalMin,  // (E, e_len)                                expr: e_len
  IntervalLen,  // (c_min, E)
  Let,          // let x = E in s
  Access,       // f[c1, ..., E, ..., en]                    idx: the index in the hole
  Operand,      // op(c1, ..., E, ..., ek)                   idx: the operand in the hole
  Assert,       // assert E
  Pipeline,     // pipeline f(p̄): E
};

struct Frame {
  FrameKind kind;
  uint32_t idx = 0;
  uint32_t base = 0;  // first value of this frame on the value stack
  const CStmt* stmt = nullptr;
  const CExpr* expr = nullptr;
};

// What is at the redex position: a statement, an expression, a constant just computed
// (on top of the value stack, to be plugged into the top frame), `nop`, or the loop
// `for x in (c_min, c_len) do s` whose interval is made of constants.
enum class Mode : uint8_t { Stmt, Expr, Value, Nop, Loop };

// σ(f): the values f̂ and the bounds given at allocation.
struct Buffer {
  bool allocated = false;
  std::vector<std::pair<Value, Value>> bounds;  // (min, len) per dimension, as allocated
  std::vector<int64_t> len, stride;             // meaningful when the buffer is not empty
  bool empty = false;                           // some length <= 0: no point is in bounds
  std::vector<Value> data;                      // row-major, first dimension fastest
  uint64_t generation = 0;                      // which [ALLOC] of f made the current buffer
  FuncStats stats;
  std::unordered_map<std::vector<Value>, size_t, PointHash> box_index;  // box → stats.allocations
};

// A binding of Σ.
struct Binding {
  Value value;
  bool bound = false;
};

// A stuck state: thrown from the rule that cannot apply, caught by run().
struct Stuck {
  RunStatus status;
  SourceLoc loc;
  std::string message;
};

// Constants in redexes are spelled as the Tgt printer spells them (`(-4)`, `err_mem`), so
// that a traced redex reads like the program; messages use plain to_string().
std::string show(const Value& v) { return print_expr(make_const(v)); }

std::string show_point(const Value* c, size_t n) {
  std::string out = "(";
  for (size_t i = 0; i < n; ++i) out.append(i ? ", " : "").append(c[i].to_string());
  return out + ")";
}

std::string show_bounds(const std::vector<std::pair<Value, Value>>& b) {
  std::string out = "(";
  for (size_t i = 0; i < b.size(); ++i)
    out += fmt::format("{}({}, {})", i ? ", " : "", b[i].first.to_string(), b[i].second.to_string());
  return out + ")";
}

class Machine {
 public:
  Machine(const TgtProgram& p, const Input& in, const Limits& lim, TraceSink* trace)
      : prog_(p), in_(in), lim_(lim), budget_(lim), trace_(trace), code_(p.file) {}

  RunResult run();

 private:
  // [REDUCE] fig. 2.8: one rule application, the named axiom applied at the redex of the
  // current context k_ (the context itself is untouched by the axiom). The redex text is
  // built only when tracing.
  template <typename F>
  void step(const char* rule, F&& redex) {
    budget_.step();
    if (trace_) [[unlikely]]
      trace_->rule(rule, redex());
  }

  [[noreturn]] void stuck(RunStatus st, SourceLoc l, std::string msg) { throw Stuck{st, l, std::move(msg)}; }

  // The constant v where an integer is required; stuck (ErrorInControl) otherwise. `where`
  // describes the place, built only when stuck.
  template <typename F>
  void need_int(const Value& v, SourceLoc l, F&& where) {
    if (!v.is_int()) [[unlikely]]
      stuck(RunStatus::ErrorInControl, l,
            fmt::format("{} is {}, but an integer is required there{}", where(), v.to_string(), at(l)));
  }

  void compile();
  RunResult execute();
  void realize();
  RunResult end();
  std::string pipeline_head() const;
  void finish_access(const CExpr* a, uint32_t base, Mode& mode);
  void allocate(const CStmt* s, uint32_t base);
  std::optional<size_t> locate(const Buffer& b, const Value* c, size_t n) const;
  std::string access_error(const char* what, const CExpr* a, const Buffer& b, const Value* c, size_t n) const;
  std::string interval_text(uint32_t base, size_t dims) const;
  Expr const_access(const CExpr* a, uint32_t base) const;

  const TgtProgram& prog_;
  const Input& in_;
  const Limits& lim_;
  Budget budget_;
  TraceSink* trace_;
  Compiler code_;
  const CStmt* body_ = nullptr;
  uint32_t output_slot_ = 0;
  std::vector<uint32_t> pipeline_vars_;  // p̄ then x_min, x_len per output dimension

  std::vector<Frame> k_;       // the context E, innermost frame last
  std::vector<Value> vals_;    // constants held by the frames
  std::vector<Binding> env_;   // Σ, by variable slot
  std::vector<Buffer> store_;  // σ, by func slot
  uint64_t live_bytes_ = 0, charged_bytes_ = 0;
  ParallelRaceCheck races_;    // not a rule of fig. 2.8: the race check of `parallel` loops
};

void Machine::compile() {
  if (!prog_.body) throw InputError(Diagnostic{prog_.file, prog_.loc, "malformed program: the pipeline has no body"});
  if (in_.params.size() != prog_.params.size())
    throw InputError(Diagnostic{prog_.file, prog_.loc,
                                fmt::format("the pipeline '{}' has {} parameter(s) but the input gives {}", prog_.name,
                                            prog_.params.size(), in_.params.size())});
  if (in_.window.size() != prog_.window.size())
    throw InputError(Diagnostic{prog_.file, prog_.loc,
                                fmt::format("the output '{}' has {} dimension(s) but the window has {} interval(s)",
                                            prog_.name, prog_.window.size(), in_.window.size())});
  for (const auto& iv : in_.window)
    if (!iv.min.is_int() || !iv.len.is_int() || iv.len.sign() < 0)
      throw InputError(Diagnostic{prog_.file, prog_.loc,
                                  fmt::format("window interval ({}, {}) is not a pair of integers with a length >= 0",
                                              iv.min.to_string(), iv.len.to_string())});
  for (const auto& p : prog_.params) pipeline_vars_.push_back(code_.var_slot(p));
  for (const auto& [mn, ln] : prog_.window) {
    pipeline_vars_.push_back(code_.var_slot(mn));
    pipeline_vars_.push_back(code_.var_slot(ln));
  }
  // The input buffers' geometry, bound by [REALIZE] after the window (docs/inputs.md).
  for (const auto& [name, value] : buffer_geometry_bindings(in_.buffers)) pipeline_vars_.push_back(code_.var_slot(name));
  output_slot_ = code_.func_slot(prog_.name);
  body_ = code_.stmt(prog_.body, prog_.loc, 0);
  env_.resize(code_.var_names.size());
  store_.resize(code_.func_names.size());
}

// [REALIZE] fig. 2.8: pipeline f(p̄): s; realize(c̄) → pipeline f(p̄): s, Σ[p̄ = c̄]. The
// pipeline's parameters are p̄ followed by x_min, x_len per output dimension (fig. 2.9),
// so z binds both.
void Machine::realize() {
  std::vector<Value> z = in_.params;
  for (const auto& iv : in_.window) {
    z.push_back(iv.min);
    z.push_back(iv.len);
  }
  for (const auto& [name, value] : buffer_geometry_bindings(in_.buffers)) z.push_back(value);
  step("REALIZE", [&] {
    std::string cs;
    for (size_t i = 0; i < z.size(); ++i) cs.append(i ? ", " : "").append(show(z[i]));
    return fmt::format("{}: …; realize({})", pipeline_head(), cs);
  });
  for (size_t i = 0; i < z.size(); ++i) env_[pipeline_vars_[i]] = Binding{z[i], true};
}

// `pipeline f(p̄)` as the figure writes it, p̄ including the window variables.
std::string Machine::pipeline_head() const {
  std::string ps;
  for (size_t i = 0; i < pipeline_vars_.size(); ++i)
    ps.append(i ? ", " : "").append(code_.var_names[pipeline_vars_[i]]);
  return fmt::format("pipeline {}({})", prog_.name, ps);
}

// InBounds(f[c̄], σ): the offset of c̄ in σ(f), or nullopt when f is not allocated, the
// point has the wrong number of coordinates or lies outside the allocated box.
std::optional<size_t> Machine::locate(const Buffer& b, const Value* c, size_t n) const {
  if (!b.allocated || b.empty || n != b.bounds.size()) return std::nullopt;
  size_t off = 0;
  for (size_t i = 0; i < n; ++i) {
    const Value& mn = b.bounds[i].first;
    int64_t d;
    if (c[i].is_small() && mn.is_small()) {
      if (!fast::sub(c[i].small(), mn.small(), d)) return std::nullopt;
    } else {
      auto dv = sub(c[i], mn).as_int64();
      if (!dv) return std::nullopt;
      d = *dv;
    }
    if (d < 0 || d >= b.len[i]) return std::nullopt;
    off += size_t(d) * size_t(b.stride[i]);
  }
  return off;
}

// Def. 2.13: which access, which func, which point, which bounds.
std::string Machine::access_error(const char* what, const CExpr* a, const Buffer& b, const Value* c, size_t n) const {
  std::string head = fmt::format("memory error: {} {} at {}", what, *a->name, show_point(c, n));
  if (!b.allocated) return fmt::format("{}, but {} was never allocated{}", head, *a->name, at(a->loc));
  if (n != b.bounds.size())
    return fmt::format("{}, but {} is allocated with {} dimension(s) {}{}", head, *a->name, b.bounds.size(),
                       show_bounds(b.bounds), at(a->loc));
  return fmt::format("{}, outside its allocated bounds {}{}{}", head, show_bounds(b.bounds),
                     b.empty ? " (an empty box: some length is <= 0)" : "", at(a->loc));
}

// The redex f^ℓ[c̄] as a tree, for print_expr (traces only).
Expr Machine::const_access(const CExpr* a, uint32_t base) const {
  std::vector<Expr> cs;
  for (size_t i = 0; i < a->args.size(); ++i) cs.push_back(make_const(vals_[base + i]));
  return make_call(*a->name, std::move(cs), {}, a->label);
}

// The access f[c̄] (its indices are vals_[base..]) is complete. As the target of a store
// (the frame below is `E <- c'`) it is the redex of ASSN; anywhere else, of READ.
void Machine::finish_access(const CExpr* a, uint32_t base, Mode& mode) {
  const size_t n = a->args.size();
  const Value* c = vals_.data() + base;
  const bool is_store = k_.back().kind == FrameKind::StoreTarget;
  for (size_t i = 0; i < n; ++i)
    need_int(c[i], a->loc, [&] {
      return fmt::format("coordinate {} of the {} {} at {}", i + 1, is_store ? "write to" : "read of", *a->name,
                         show_point(c, n));
    });
  Buffer& b = store_[a->slot];
  auto off = locate(b, c, n);
  if (is_store) {
    // [ASSN] fig. 2.8: InBounds(f[c̄], σ) ⟹ f[c̄] <- c' → nop, σ[f(c̄) = c'].
    const Frame& t = k_.back();
    if (!off) stuck(RunStatus::MemoryError, a->loc, access_error("write to", a, b, c, n));
    step("ASSN", [&] { return fmt::format("{} <- {}", print_expr(const_access(a, base)), show(vals_[t.base])); });
    if (trace_) [[unlikely]]
      trace_->stored(*a->name, std::span<const Value>(c, n), vals_[t.base]);
    if (races_.active()) [[unlikely]]
      races_.on_write({a->slot, b.generation, *off}, vals_[t.base], a->loc,
                      [&] { return *a->name + show_point(c, n); });
    b.data[*off] = std::move(vals_[t.base]);
    ++b.stats.stores;
    vals_.resize(t.base);
    k_.pop_back();
    mode = Mode::Nop;
  } else {
    // [READ] fig. 2.8: InBounds(f[c̄], σ) ⟹ f[c̄] → σ(f[c̄]).
    if (!off) stuck(RunStatus::MemoryError, a->loc, access_error("read of", a, b, c, n));
    step("READ", [&] { return print_expr(const_access(a, base)); });
    if (trace_) [[unlikely]]
      trace_->loaded(*a->name, std::span<const Value>(c, n));
    if (races_.active()) [[unlikely]]
      races_.on_read({a->slot, b.generation, *off}, a->loc, [&] { return *a->name + show_point(c, n); });
    ++b.stats.loads;
    vals_.resize(base);
    vals_.push_back(b.data[*off]);
    mode = Mode::Value;
  }
}

std::string Machine::interval_text(uint32_t base, size_t dims) const {
  std::string out;
  for (size_t i = 0; i < dims; ++i)
    out += fmt::format("{}({}, {})", i ? ", " : "", show(vals_[base + 2 * i]), show(vals_[base + 2 * i + 1]));
  return out;
}

// [ALLOC] fig. 2.8: allocate f(Ī) → nop, σ[f ↦ ⟨λx̄. ε_mem, Ī⟩]. The bounds are
// vals_[base..] as (min, len) pairs. A box with a length <= 0 holds no point: every
// access to it is out of bounds (the figure's InBounds on an empty interval).
void Machine::allocate(const CStmt* s, uint32_t base) {
  const auto& src = static_cast<const AllocateStmt&>(*s->src);
  const size_t dims = s->exprs.size() / 2;
  const Value* c = vals_.data() + base;
  for (size_t i = 0; i < dims; ++i) {
    need_int(c[2 * i], s->src->loc,
             [&] { return fmt::format("the minimum of dimension {} of `allocate {}`", i + 1, src.func); });
    need_int(c[2 * i + 1], s->src->loc,
             [&] { return fmt::format("the length of dimension {} of `allocate {}`", i + 1, src.func); });
  }
  step("ALLOC", [&] { return fmt::format("allocate {}({})", src.func, interval_text(base, dims)); });

  Buffer& b = store_[s->slot];
  b.allocated = true;
  ++b.generation;
  b.bounds.clear();
  b.len.assign(dims, 0);
  b.stride.assign(dims, 0);
  b.empty = false;
  for (size_t i = 0; i < dims; ++i) {
    b.bounds.emplace_back(c[2 * i], c[2 * i + 1]);
    if (c[2 * i + 1].sign() <= 0) b.empty = true;
  }
  // Refuse a box that cannot be held before touching memory (no bad_alloc).
  const uint64_t cap = std::max<uint64_t>(1, lim_.max_memory_bytes / sizeof(Value));
  uint64_t points = b.empty ? 0 : 1;
  for (size_t i = 0; i < dims && !b.empty; ++i) {
    auto l = c[2 * i + 1].as_int64();
    if (!l || uint64_t(*l) > cap / points)
      throw ResourceLimit(
          fmt::format("`allocate {}({})` needs more memory than the limit ({} MiB); raise it with "
                      "--max-memory",
                      src.func, interval_text(base, dims), lim_.max_memory_bytes >> 20));
    b.len[i] = *l;
    b.stride[i] = int64_t(points);
    points *= uint64_t(*l);
  }
  // Memory is charged at its high-water mark, so that re-allocation inside a loop
  // (compute_at / store_at) does not count the same bytes again.
  live_bytes_ -= b.data.capacity() * sizeof(Value);
  if (points > b.data.capacity()) std::vector<Value>().swap(b.data);
  live_bytes_ += std::max<uint64_t>(points, b.data.capacity()) * sizeof(Value);
  if (live_bytes_ > charged_bytes_) {
    budget_.charge_memory(live_bytes_ - charged_bytes_);
    charged_bytes_ = live_bytes_;
  }
  b.data.assign(points, Value::err_mem());
  // [ALLOC-INPUT] (docs/inputs.md): the allocation of an input takes the input buffer's
  // values on its box; a point outside the input buffer keeps ε_mem (the startup check
  // after the allocation stops the run before anything reads it).
  if (prog_.find_input(src.func))
    if (const InputBuffer* in = in_.buffer(src.func); in && !b.empty) {
      std::vector<int64_t> pt(dims);
      for (uint64_t i = 0; i < points; ++i) {
        uint64_t rest = i;
        bool ok = true;
        for (size_t d = 0; d < dims; ++d) {
          auto mn = c[2 * d].as_int64();
          ok &= mn && !__builtin_add_overflow(*mn, int64_t(rest % uint64_t(b.len[d])), &pt[d]);
          rest /= uint64_t(b.len[d]);
        }
        if (const Value* v = ok ? in->at(pt.data()) : nullptr) b.data[i] = *v;
      }
    }

  std::vector<Value> key(c, c + 2 * dims);
  auto [it, fresh] = b.box_index.emplace(std::move(key), b.stats.allocations.size());
  if (fresh) b.stats.allocations.emplace_back(b.bounds, 0);
  ++b.stats.allocations[it->second].second;
  vals_.resize(base);
  if (trace_) [[unlikely]]
    trace_->allocated(src.func, b.bounds);
}

// [END] fig. 2.8: σ(f) = ⟨f̂, …⟩ ⟹ pipeline f(p̄): nop → f̂; the result is f̂ on R(z).
RunResult Machine::end() {
  Buffer& b = store_[output_slot_];
  if (!b.allocated)
    stuck(RunStatus::MemoryError, prog_.loc,
          fmt::format("memory error: the pipeline ended but its output {} was never allocated", prog_.name));
  step("END", [&] { return pipeline_head() + ": nop"; });
  RunResult r;
  r.output.func = prog_.name;
  r.output.window = in_.window;
  const uint64_t n = window_volume(in_.window, lim_);
  budget_.charge_memory(n * sizeof(Value));
  r.output.values.reserve(n);
  uint64_t outside = 0;
  for (uint64_t i = 0; i < n; ++i) {
    std::vector<Value> pt = window_point(in_.window, i);
    auto off = locate(b, pt.data(), pt.size());
    if (!off) ++outside;
    r.output.values.push_back(off ? b.data[*off] : Value::err_mem());
  }
  if (outside)
    r.message = fmt::format(
        "{} point(s) of the window lie outside the allocation {} of {}; they are reported as "
        "err_mem",
        outside, show_bounds(b.bounds), prog_.name);
  return r;
}

RunResult Machine::run() {
  compile();
  RunResult result;
  try {
    result = execute();
  } catch (Stuck& st) {
    result.status = st.status;
    result.message = std::move(st.message);
    result.loc = st.loc;
    result.output.func = prog_.name;
    result.output.window = in_.window;
  }
  result.steps = budget_.steps();
  result.race = races_.report();
  for (size_t i = 0; i < store_.size(); ++i) result.stats[code_.func_names[i]] = std::move(store_[i].stats);
  return result;
}

// The machine proper: from `pipeline f(p̄): s; realize(z)` to [END] or a stuck state.
RunResult Machine::execute() {
  realize();
  k_.push_back({FrameKind::Pipeline});
  Mode mode = Mode::Stmt;
  const CStmt* s = body_;       // control, Mode::Stmt
  const CExpr* e = nullptr;     // control, Mode::Expr
  const CStmt* loop = nullptr;  // control, Mode::Loop: for x in (loop_min, loop_len) do body
  Value loop_min, loop_len;
  bool loop_continues = false;  // Mode::Loop: reached by NOP from a FOR-ITER (not a fresh loop)
  // Decomposition: the frame's hole now holds the subexpression `sub`, the new control.
  auto descend = [&](const Frame& f, const CExpr* sub) {
    k_.push_back(f);
    e = sub;
    mode = Mode::Expr;
  };
  for (;;) {
    switch (mode) {
      // ---- a statement at the redex position: decompose until an axiom applies
      case Mode::Stmt:
        switch (s->kind) {
          case StmtKind::Nop: mode = Mode::Nop; break;
          case StmtKind::Seq:
            k_.push_back({FrameKind::Seq, 1, 0, s, nullptr});
            s = s->stmts[0];
            break;
          case StmtKind::Assert: descend({FrameKind::Assert, 0, 0, s, nullptr}, s->exprs[0]); break;
          case StmtKind::Allocate:
            if (s->exprs.empty()) {  // a zero-dimensional buffer: the redex is already ALLOC's
              allocate(s, uint32_t(vals_.size()));
              mode = Mode::Nop;
              break;
            }
            k_.push_back({FrameKind::Alloc, 0, uint32_t(vals_.size()), s, nullptr});
            descend({FrameKind::IntervalMin, 0, 0, nullptr, s->exprs[1]}, s->exprs[0]);
            break;
          case StmtKind::Store: descend({FrameKind::StoreValue, 0, 0, s, nullptr}, s->exprs[0]); break;
          case StmtKind::If: descend({FrameKind::If, 0, 0, s, nullptr}, s->exprs[0]); break;
          case StmtKind::For:
            k_.push_back({FrameKind::For, 0, 0, s, nullptr});
            descend({FrameKind::IntervalMin, 0, 0, nullptr, s->exprs[1]}, s->exprs[0]);
            break;
          case StmtKind::Let: descend({FrameKind::Let, 0, 0, s, nullptr}, s->exprs[0]); break;
          case StmtKind::Label: throw std::logic_error("small-step: a label survived compilation");
        }
        break;

      // ---- an expression at the redex position
      case Mode::Expr:
        switch (e->kind) {
          case ExprKind::Const:  // already a constant: plug it, no step
            vals_.push_back(e->value);
            mode = Mode::Value;
            break;
          case ExprKind::Var: {
            // [VAR] fig. 2.8: v = Σ(x) ⟹ x → v.
            const Binding& b = env_[e->slot];
            if (!b.bound)
              stuck(RunStatus::UnboundVariable, e->loc,
                    fmt::format("the variable {} is not bound in Σ{}", *e->name, at(e->loc)));
            step("VAR", [&] { return *e->name; });
            vals_.push_back(b.value);
            mode = Mode::Value;
            break;
          }
          case ExprKind::Call:
            if (e->args.empty()) {
              finish_access(e, uint32_t(vals_.size()), mode);
              break;
            }
            descend({FrameKind::Access, 0, uint32_t(vals_.size()), nullptr, e}, e->args[0]);
            break;
          case ExprKind::Op: descend({FrameKind::Operand, 0, uint32_t(vals_.size()), nullptr, e}, e->args[0]); break;
          case ExprKind::Hole: throw std::logic_error("small-step: a hole survived compilation");
        }
        break;

      // ---- a constant on top of vals_: plug it into the innermost frame
      case Mode::Value: {
        Frame& f = k_.back();
        switch (f.kind) {
          case FrameKind::Operand: {
            if (++f.idx < f.expr->args.size()) {  // op(c1, ..., c_i, E, ...): next operand
              e = f.expr->args[f.idx];
              mode = Mode::Expr;
              break;
            }
            // [EVAL] fig. 2.8: op(c̄) = c' ⟹ op(c̄) → c'.
            const CExpr* op = f.expr;
            const uint32_t base = f.base;
            step("EVAL", [&] {
              // A typed operator is shown at its type, implicit casts written out:
              // `u8(300) : u8`, `200 + 100 : u8` (docs/types.md).
              const OpNode* t = op->typed;
              std::vector<Expr> cs;
              for (size_t i = base; i < vals_.size(); ++i)
                cs.push_back(make_const(vals_[i], {}, t ? t->args[i - base]->type : Type::z()));
              if (!t) return print_expr(make_op(op->op, std::move(cs)));
              return print_expr(std::make_shared<OpNode>(t->op, std::move(cs), t->loc, OpSugar::None, t->type)) + " : " +
                     t->type.to_string();
            });
            std::span<const Value> operands(vals_.data() + base, op->args.size());
            Value r = op->typed ? apply_op_node(*op->typed, operands) : apply_op(op->op, operands);
            vals_.resize(base);
            vals_.push_back(std::move(r));
            k_.pop_back();
            break;
          }
          case FrameKind::Access: {
            if (++f.idx < f.expr->args.size()) {  // f[c1, ..., c_i, E, ...]: next index
              e = f.expr->args[f.idx];
              mode = Mode::Expr;
              break;
            }
            const CExpr* a = f.expr;
            const uint32_t base = f.base;
            k_.pop_back();
            finish_access(a, base, mode);
            break;
          }
          case FrameKind::IntervalMin:  // (c_min, E): now the length
            f.kind = FrameKind::IntervalLen;
            e = f.expr;
            mode = Mode::Expr;
            break;
          case FrameKind::IntervalLen: {  // the interval (c_min, c_len) is complete
            k_.pop_back();
            Frame& g = k_.back();
            if (g.kind == FrameKind::For) {
              // The term is `for x in (c_min, c_len) do s`: the redex of FOR-ITER/FOR-STOP.
              loop = g.stmt;
              k_.pop_back();
              loop_len = std::move(vals_.back());
              vals_.pop_back();
              loop_min = std::move(vals_.back());
              vals_.pop_back();
              loop_continues = false;
              mode = Mode::Loop;
            } else if (++g.idx < g.stmt->exprs.size() / 2) {  // allocate f(..., (c, c), E, ...)
              const CStmt* a = g.stmt;
              descend({FrameKind::IntervalMin, 0, 0, nullptr, a->exprs[2 * g.idx + 1]}, a->exprs[2 * g.idx]);
            } else {
              const CStmt* a = g.stmt;
              const uint32_t base = g.base;
              k_.pop_back();
              allocate(a, base);
              mode = Mode::Nop;
            }
            break;
          }
          case FrameKind::StoreValue: {
            // a <- c': the target's indices next, in the context E <- c'.
            const CExpr* t = f.stmt->target;
            f.kind = FrameKind::StoreTarget;
            f.base = uint32_t(vals_.size() - 1);
            if (t->args.empty()) {
              finish_access(t, uint32_t(vals_.size()), mode);
              break;
            }
            descend({FrameKind::Access, 0, uint32_t(vals_.size()), nullptr, t}, t->args[0]);
            break;
          }
          case FrameKind::If: {
            const CStmt* st = f.stmt;
            const Value& c = vals_.back();
            need_int(c, st->src->loc, [] { return std::string("the condition of `if`"); });
            const bool taken = !c.is_zero();
            // [IF-T] fig. 2.8: c ≠ 0 ⟹ if c then s1 else s2 → s1.
            // [IF-F] fig. 2.8: if 0 then s1 else s2 → s2.
            step(taken ? "IF-T" : "IF-F", [&] { return fmt::format("if ({}) {{ … }} else {{ … }}", show(c)); });
            vals_.pop_back();
            k_.pop_back();
            s = st->stmts[taken ? 0 : 1];
            mode = Mode::Stmt;
            break;
          }
          case FrameKind::Let: {
            // [LET] fig. 2.8: let x = c in s → s, Σ[x = c].
            const CStmt* st = f.stmt;
            step("LET",
                 [&] { return fmt::format("let {} = {} in {{ … }}", code_.var_names[st->slot], show(vals_.back())); });
            env_[st->slot] = Binding{std::move(vals_.back()), true};
            vals_.pop_back();
            k_.pop_back();
            s = st->stmts[0];
            mode = Mode::Stmt;
            break;
          }
          case FrameKind::Assert: {
            const CStmt* st = f.stmt;
            const Value& c = vals_.back();
            need_int(c, st->src->loc, [] { return std::string("the condition of `assert`"); });
            if (c.is_zero()) {  // Def. 2.11: no rule applies to `assert 0`
              std::string cond = print_expr(static_cast<const AssertStmt&>(*st->src).cond);
              if (cond.size() > 200) cond = cond.substr(0, 200) + "…";
              stuck(
                  RunStatus::AssertionFailure, st->src->loc,
                  fmt::format("assertion failed: `assert {}` evaluated its condition to 0{}", cond, at(st->src->loc)));
            }
            // [ASSERT-TRUE] fig. 2.8: c ≠ 0 ⟹ assert c → nop.
            step("ASSERT-TRUE", [&] { return fmt::format("assert {}", show(c)); });
            vals_.pop_back();
            k_.pop_back();
            mode = Mode::Nop;
            break;
          }
          case FrameKind::Seq:
          case FrameKind::SeqLoop:
          case FrameKind::Alloc:
          case FrameKind::StoreTarget:
          case FrameKind::For:
          case FrameKind::Pipeline:
            // Their holes hold statements, intervals or accesses, never a lone constant.
            throw std::logic_error("small-step: a constant reached a frame whose hole is not an expression");
        }
        break;
      }

      // ---- nop at the redex position: NOP or END
      case Mode::Nop: {
        Frame& f = k_.back();
        if (f.kind == FrameKind::Seq) {
          // [NOP] fig. 2.8: nop; s → s  (s = s_idx; ...; s_n).
          step("NOP", [] { return std::string("nop; …"); });
          s = f.stmt->stmts[f.idx];
          if (++f.idx == f.stmt->stmts.size()) k_.pop_back();  // s_n alone is no longer a sequence
          mode = Mode::Stmt;
        } else if (f.kind == FrameKind::SeqLoop) {
          // [NOP] fig. 2.8: nop; for x in (c+1, l-1) do s → for x in (c+1, l-1) do s.
          step("NOP", [] { return std::string("nop; …"); });
          loop = f.stmt;
          loop_len = std::move(vals_[f.base + 1]);
          loop_min = std::move(vals_[f.base]);
          vals_.resize(f.base);
          k_.pop_back();
          loop_continues = true;
          mode = Mode::Loop;
        } else if (f.kind == FrameKind::Pipeline) {
          return end();
        } else {
          throw std::logic_error("small-step: nop reached a frame whose hole is not a statement");
        }
        break;
      }

      // ---- for x in (c_min, c_len) do s: FOR-ITER, FOR-STOP, or an rdom failure
      case Mode::Loop: {
        const auto& src = static_cast<const ForStmt&>(*loop->src);
        need_int(loop_min, src.loc, [&] { return fmt::format("the minimum of loop {}", print_loop_name(src)); });
        need_int(loop_len, src.loc, [&] { return fmt::format("the length of loop {}", print_loop_name(src)); });
        auto redex = [&] {
          return fmt::format("for {} in ({}, {}) {} {{ … }}", print_loop_name(src), show(loop_min), show(loop_len),
                             traversal_name(src.order));
        };
        const int sign = loop_len.sign();
        if (sign < 0)  // Def. 2.12: neither FOR-ITER nor FOR-STOP applies
          stuck(RunStatus::RdomFailure, src.loc,
                fmt::format("rdom failure: loop {} has the negative length {} (interval ({}, {})){}", print_loop_name(src),
                            loop_len.to_string(), loop_min.to_string(), loop_len.to_string(), at(src.loc)));
        if (sign == 0) {
          // [FOR-STOP] fig. 2.8: for x in (c_min, 0) do s → nop, Σ \ {x}.
          step("FOR-STOP", redex);
          env_[loop->slot].bound = false;
          if (src.order == Traversal::Parallel) races_.stop(loop);
          mode = Mode::Nop;
          break;
        }
        // [FOR-ITER] fig. 2.8: c_len > 0 ⟹ for x in (c_min, c_len) do s →
        //   s; for x in (c_min + 1, c_len - 1) do s, Σ[x = c_min].
        step("FOR-ITER", redex);
        if (trace_) [[unlikely]]
          trace_->iterated(src, loop_min);
        if (src.order == Traversal::Parallel) [[unlikely]]
          races_.iterate(loop, !loop_continues, print_loop_name(src), src.var, loop_min);
        k_.push_back({FrameKind::SeqLoop, 0, uint32_t(vals_.size()), loop, nullptr});
        vals_.push_back(add(loop_min, Value(int64_t{1})));
        vals_.push_back(sub(loop_len, Value(int64_t{1})));
        env_[loop->slot] = Binding{std::move(loop_min), true};
        s = loop->stmts[0];
        mode = Mode::Stmt;
        break;
      }
    }
  }
}

}  // namespace

RunResult run_tgt(const TgtProgram& p, const Input& in, const Limits& lim, TraceSink* trace) {
  // Compiling recurses over the program, and messages print expressions recursively:
  // both run on the big stack so that no program can overflow the thread's stack.
  RunResult r;
  run_on_big_stack([&] {
    Machine m(p, in, lim, trace);
    r = m.run();
  });
  return r;
}

}  // namespace halo

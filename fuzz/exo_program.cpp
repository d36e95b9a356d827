// The "program" family of the Exo generator (exo_program.hpp): drawing, range checks, and
// the two printers (Exo source and .halo spec) of one description.
#include "fuzz/exo_program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

namespace halo::fuzz {

namespace {

using Op = ExoExpr::Op;

ExoExprPtr mk(Op op, std::vector<ExoExprPtr> args = {}, int64_t value = 0, std::string name = "") {
  auto e = std::make_shared<ExoExpr>();
  e->op = op;
  e->args = std::move(args);
  e->value = value;
  e->name = std::move(name);
  return e;
}
ExoExprPtr cst(int64_t v) { return mk(Op::Const, {}, v); }
ExoExprPtr var(const std::string& n) { return mk(Op::Var, {}, 0, n); }
ExoExprPtr size(const std::string& n) { return mk(Op::Size, {}, 0, n); }

int64_t pick(std::mt19937_64& rng, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }
bool chance(std::mt19937_64& rng, int percent) { return pick(rng, 0, 99) < percent; }

// ---- index expressions: Exo's quasi-affine indexing, every grouping it allows -----------

ExoExprPtr index_leaf(std::mt19937_64& rng) {
  switch (pick(rng, 0, 5)) {
    case 0: case 1: return var("i");
    case 2: case 3: return var("j");
    case 4: return cst(pick(rng, 0, 7));
    default: return pick(rng, 0, 1) ? size("N") : size("M");
  }
}

ExoExprPtr index_expr(std::mt19937_64& rng, int depth) {
  if (depth <= 0 || chance(rng, 25)) return index_leaf(rng);
  switch (pick(rng, 0, 6)) {
    case 0: return mk(Op::Add, {index_expr(rng, depth - 1), index_expr(rng, depth - 1)});
    case 1: return mk(Op::Sub, {index_expr(rng, depth - 1), index_expr(rng, depth - 1)});
    case 2: return mk(Op::Mul, {cst(pick(rng, 2, 5)), index_expr(rng, depth - 1)});  // a * (b % c), ...
    case 3: return mk(Op::Mul, {index_expr(rng, depth - 1), cst(pick(rng, 2, 5))});
    case 4: return mk(Op::Div, {index_expr(rng, depth - 1), cst(pick(rng, 2, 6))});
    case 5: return mk(Op::Mod, {index_expr(rng, depth - 1), cst(pick(rng, 2, 6))});
    default: return mk(Op::Neg, {index_expr(rng, depth - 1)});
  }
}

struct Point {
  int64_t i, j, n, m;
};

// An index expression's value at a point; nullopt-like flag when a division's numerator
// is negative there (C truncates where the spec floors: never drawn).
bool eval_index(const ExoExpr& e, const Point& p, int64_t& out) {
  int64_t a = 0, b = 0;
  switch (e.op) {
    case Op::Const: out = e.value; return true;
    case Op::Var: out = e.name == "i" ? p.i : p.j; return true;
    case Op::Size: out = e.name == "N" ? p.n : p.m; return true;
    case Op::Neg:
      if (!eval_index(*e.args[0], p, a)) return false;
      out = -a;
      return true;
    default: break;
  }
  if (!eval_index(*e.args[0], p, a) || !eval_index(*e.args[1], p, b)) return false;
  switch (e.op) {
    case Op::Add: out = a + b; return true;
    case Op::Sub: out = a - b; return true;
    case Op::Mul: out = a * b; return true;
    case Op::Div: if (a < 0 || b <= 0) return false; out = a / b; return true;
    case Op::Mod: if (a < 0 || b <= 0) return false; out = a % b; return true;
    default: return false;
  }
}

// The least and greatest value of an index expression over the box a stage's loops cover
// under Exo's assertions (i < N <= n, j < M <= m: every smaller size too); false when a
// division's numerator is negative somewhere.
bool index_range(const ExoExpr& e, int64_t n, int64_t m, int64_t& lo, int64_t& hi) {
  lo = std::numeric_limits<int64_t>::max();
  hi = std::numeric_limits<int64_t>::min();
  for (int64_t nn = 1; nn <= n; ++nn)
    for (int64_t mm = 1; mm <= m; ++mm)
      for (int64_t i = 0; i < nn; ++i)
        for (int64_t j = 0; j < mm; ++j) {
          int64_t v = 0;
          if (!eval_index(e, {i, j, nn, mm}, v)) return false;
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
  return true;
}

// An index of a row or column of the tensor being written, always inside it: the aliasing reads.
ExoExprPtr alias_index(std::mt19937_64& rng, const std::string& v, const std::string& sz) {
  switch (pick(rng, 0, 5)) {
    case 0: case 1: return var(v);
    case 2: return mk(Op::Div, {var(v), cst(pick(rng, 2, 3))});
    case 3: return mk(Op::Sub, {mk(Op::Sub, {size(sz), cst(1)}), var(v)});  // reversed
    case 4: return mk(Op::Mul, {mk(Op::Div, {var(v), cst(2)}), cst(2)});
    default: return mk(Op::Sub, {var(v), mk(Op::Mod, {var(v), cst(pick(rng, 2, 3))})});
  }
}

// ---- value expressions -------------------------------------------------------------------

struct Range {
  int64_t lo = 0, hi = 0;
};
constexpr int64_t kValueBound = int64_t(1) << 20;

struct ValueContext {
  std::string elem;
  std::map<std::string, Range> buffers;  // X, Z and the current contents of Y, W
  std::map<std::string, Range> temps;    // t, tb
  std::string target;                    // the tensor being written (its reads alias)
};

ExoExprPtr value_expr(std::mt19937_64& rng, const ValueContext& c, int depth, bool temps_allowed);

ExoExprPtr value_leaf(std::mt19937_64& rng, const ValueContext& c, bool temps_allowed) {
  int k = int(pick(rng, 0, 9));
  if (k <= 3) {  // the inputs, at drawn indices
    if (k <= 2) return mk(Op::Read, {index_expr(rng, 2), index_expr(rng, 2)}, 0, "X");
    return mk(Op::Read, {index_expr(rng, 2)}, 0, "Z");
  }
  if (k <= 5) {
    std::vector<std::string> outs;
    for (const char* b : {"Y", "W"})
      if (c.buffers.count(b)) outs.push_back(b);
    if (outs.empty()) return mk(Op::Read, {index_expr(rng, 2), index_expr(rng, 2)}, 0, "X");
    std::string buf = outs[size_t(pick(rng, 0, int64_t(outs.size()) - 1))];
    return mk(Op::Read, {alias_index(rng, "i", "N"), alias_index(rng, "j", "M")}, 0, buf);
  }
  if (k <= 7 && temps_allowed && !c.temps.empty()) {
    auto it = c.temps.begin();
    std::advance(it, pick(rng, 0, int64_t(c.temps.size()) - 1));
    if (it->first == "tb") return mk(Op::Temp, {alias_index(rng, "j", "M")}, 0, "tb");
    return mk(Op::Temp, {}, 0, it->first);
  }
  return cst(pick(rng, -3, 9));
}

ExoExprPtr value_expr(std::mt19937_64& rng, const ValueContext& c, int depth, bool temps_allowed) {
  if (depth <= 0 || chance(rng, 20)) return value_leaf(rng, c, temps_allowed);
  auto sub = [&] { return value_expr(rng, c, depth - 1, temps_allowed); };
  switch (pick(rng, 0, 9)) {
    case 0: case 1: return mk(Op::Add, {sub(), sub()});
    case 2: case 3: return mk(Op::Sub, {sub(), sub()});
    case 4: return mk(Op::Mul, {sub(), sub()});
    case 5: return mk(Op::Neg, {sub()});
    case 6: return mk(Op::Select, {sub(), sub(), sub(), sub()});
    case 7:
      if (c.elem == "i32") return mk(Op::Div, {sub(), cst(pick(rng, 2, 5))});
      return mk(Op::Mul, {sub(), cst(pick(rng, 2, 3))});
    case 8:
      if (c.elem == "f32") return mk(Op::Relu, {sub()});
      return mk(Op::Add, {sub(), cst(pick(rng, 1, 4))});
    default: return mk(Op::Mul, {cst(pick(rng, 2, 3)), sub()});
  }
}

// A value expression's range, or false when a division's numerator can be negative or a
// value leaves ±2^20.
bool value_range(const ExoExpr& e, const ValueContext& c, Range& r) {
  auto ok = [](const Range& x) { return x.lo > -kValueBound && x.hi < kValueBound; };
  Range a, b;
  switch (e.op) {
    case Op::Const: r = {e.value, e.value}; return true;
    case Op::Read: {
      auto it = c.buffers.find(e.name);
      if (it == c.buffers.end()) return false;
      r = it->second;
      return true;
    }
    case Op::Temp: {
      auto it = c.temps.find(e.name);
      if (it == c.temps.end()) return false;
      r = it->second;
      return true;
    }
    case Op::Neg:
      if (!value_range(*e.args[0], c, a)) return false;
      r = {-a.hi, -a.lo};
      return true;
    case Op::Relu:
      if (!value_range(*e.args[0], c, a)) return false;
      r = {std::max<int64_t>(0, a.lo), std::max<int64_t>(0, a.hi)};
      return true;
    case Op::Select: {
      Range x, y;
      if (!value_range(*e.args[0], c, a) || !value_range(*e.args[1], c, b) || !value_range(*e.args[2], c, x) ||
          !value_range(*e.args[3], c, y))
        return false;
      r = {std::min(x.lo, y.lo), std::max(x.hi, y.hi)};
      return true;
    }
    default: break;
  }
  if (!value_range(*e.args[0], c, a) || !value_range(*e.args[1], c, b)) return false;
  switch (e.op) {
    case Op::Add: r = {a.lo + b.lo, a.hi + b.hi}; break;
    case Op::Sub: r = {a.lo - b.hi, a.hi - b.lo}; break;
    case Op::Mul: {
      int64_t p[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
      r = {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
      break;
    }
    case Op::Div:
      if (a.lo < 0 || b.lo <= 0) return false;
      r = {a.lo / b.hi, a.hi / b.lo};
      break;
    default: return false;
  }
  return ok(r);
}

// ---- printing ---------------------------------------------------------------------------

// How the printers name what an expression refers to: Exo's own names, or the spec's
// rdom variables and substituted temporaries.
struct Names {
  std::function<std::string(const std::string&)> var;              // i, j
  std::function<std::string(const ExoExpr&)> temp;                 // Temp
  std::function<std::string(const ExoExpr&, const std::string&)> read;  // Read, given the index text
  bool spec = false;
  std::string elem = "i32";
};

// `value`: the expression is a value, not an index: Exo writes its constants as floats in
// an f32 procedure (`3.0`); the indices of reads and the divisors stay integers.
std::string print(const ExoExpr& e, const Names& nm, bool value = false) {
  auto p = [&](size_t k) { return print(*e.args[k], nm, value); };
  auto index = [&](size_t k) { return print(*e.args[k], nm); };
  switch (e.op) {
    case Op::Const: {
      std::string digits = value && !nm.spec && nm.elem == "f32" ? fmt::format("{}.0", e.value) : fmt::format("{}", e.value);
      return e.value < 0 ? "(" + digits + ")" : digits;
    }
    case Op::Var: return nm.var(e.name);
    case Op::Size: return e.name;
    case Op::Temp: return nm.temp(e);
    case Op::Read: {
      std::string idx;
      for (size_t k = 0; k < e.args.size(); ++k) idx += (k ? ", " : "") + index(k);
      return nm.read(e, idx);
    }
    case Op::Add: return "(" + p(0) + " + " + p(1) + ")";
    case Op::Sub: return "(" + p(0) + " - " + p(1) + ")";
    case Op::Mul: return "(" + p(0) + " * " + p(1) + ")";
    case Op::Div: return "(" + p(0) + " / " + index(1) + ")";
    case Op::Mod: return "(" + p(0) + " % " + index(1) + ")";
    case Op::Eq: return p(0) + " == " + p(1);
    case Op::Lt: return p(0) + " < " + p(1);
    case Op::Neg: return nm.spec ? "(0 - " + p(0) + ")" : "(-" + p(0) + ")";
    case Op::Select:
      if (nm.spec) return "select(" + p(0) + " < " + p(1) + ", " + p(2) + ", " + p(3) + ")";
      return "select(" + p(0) + ", " + p(1) + ", " + p(2) + ", " + p(3) + ")";
    case Op::Relu: return nm.spec ? "max(0, " + p(0) + ")" : "relu(" + p(0) + ")";
  }
  return "?";
}


Names exo_names(const ExoProgram& p, const ExoStage& st) {
  Names nm;
  nm.elem = p.elem;
  nm.var = [](const std::string& v) { return v; };
  nm.temp = [&p, &st](const ExoExpr& e) {
    if (e.name == "tb") {
      Names inner = exo_names(p, st);
      return "tb[" + print(*e.args[0], inner) + "]";
    }
    return e.name;
  };
  nm.read = [&st](const ExoExpr& e, const std::string& idx) {
    // a read of the row being written, through the window when the stage has one
    if (st.window && e.name == st.target && e.args.size() == 2 && e.args[0]->op == Op::Var && e.args[0]->name == "i") {
      Names plain;
      plain.var = [](const std::string& v) { return v; };
      return "yr[" + print(*e.args[1], plain) + "]";
    }
    return e.name + "[" + idx + "]";
  };
  return nm;
}

ExoExprPtr draw_guard(std::mt19937_64& rng) {
  switch (pick(rng, 0, 4)) {
    case 0: return mk(Op::Lt, {var("j"), mk(Op::Sub, {size("M"), cst(1)})});
    case 1: return mk(Op::Eq, {mk(Op::Mod, {mk(Op::Add, {var("i"), var("j")}), cst(2)}), cst(0)});
    case 2: return mk(Op::Lt, {cst(0), var("i")});
    case 3: return mk(Op::Eq, {mk(Op::Mod, {var("j"), cst(3)}), cst(pick(rng, 0, 2))});
    default: return mk(Op::Lt, {mk(Op::Mul, {cst(2), var("j")}), size("M")});
  }
}

std::string input_formula(const std::string& name) {
  if (name == "X") return "(a * 7 + b * 3 + 1) % 13";
  if (name == "Z") return "(a * 5 + 2) % 11 - 5";
  if (name == "Y0") return "(a * 5 + b * 3 + 1) % 11 - 5";
  return "(a * 3 + b * 7 + 2) % 10";  // W0
}
Range input_range(const std::string& name) {
  if (name == "X") return {0, 12};
  if (name == "Z") return {-5, 5};
  if (name == "Y0" || name == "Y") return {-5, 5};
  return {0, 9};
}

}  // namespace

// Every read of X and Z with an index that goes negative on the box gets the offset that
// makes it start at 0 (a smaller box, as the shrinker makes, only raises the least value).
ExoExprPtr offset_reads(const ExoExprPtr& e, int64_t n, int64_t m) {
  if (!e) return e;
  auto copy = std::make_shared<ExoExpr>(*e);
  for (auto& a : copy->args) a = offset_reads(a, n, m);
  if (copy->op == Op::Read && (copy->name == "X" || copy->name == "Z"))
    for (auto& ix : copy->args) {
      int64_t lo, hi;
      if (index_range(*ix, n, m, lo, hi) && lo < 0) ix = mk(Op::Add, {ix, cst(-lo)});
    }
  return copy;
}

// A right operand of the same precedence (`a - (b - c)`, `a * (b % c)`) and a negation of
// a negation: the shapes exo-lang 1.0.0's C printer gets wrong (docs/findings/exo/). Each
// is kept with probability `percent`, else the operand is replaced by its own left operand,
// so that a campaign meets the printer's bugs at a rate it chooses and its other findings
// are not all buried under them.
ExoExprPtr tame_grouping(const ExoExprPtr& e, std::mt19937_64& rng, int percent) {
  if (!e) return e;
  auto copy = std::make_shared<ExoExpr>(*e);
  for (auto& a : copy->args) a = tame_grouping(a, rng, percent);
  auto additive = [](Op op) { return op == Op::Add || op == Op::Sub; };
  auto multiplicative = [](Op op) { return op == Op::Mul || op == Op::Div || op == Op::Mod; };
  if (copy->args.size() == 2) {
    Op o = copy->op, r = copy->args[1]->op;
    bool nested = (additive(o) && additive(r)) || (multiplicative(o) && multiplicative(r));
    if (nested && !chance(rng, percent)) copy->args[1] = copy->args[1]->args[0];
  }
  if (copy->op == Op::Neg && !chance(rng, percent)) {
    const ExoExprPtr& a = copy->args[0];
    if (a->op == Op::Neg) return a->args[0];
    if (a->op == Op::Const && a->value < 0) return cst(-a->value);
  }
  return copy;
}

bool finish_exo_program(ExoProgram& p) {
  for (const auto& st : p.stages)
    if (st.j_lo + st.j_hi_minus > p.m) return false;
  // the inputs' shapes: one past the greatest index any read of them takes
  int64_t px = 1, qx = 1, pz = 1;
  bool ok = true;
  std::function<void(const ExoExprPtr&)> visit = [&](const ExoExprPtr& e) {
    if (!e || !ok) return;
    if (e->op == Op::Read && (e->name == "X" || e->name == "Z")) {
      for (size_t k = 0; k < e->args.size(); ++k) {
        int64_t lo, hi;
        if (!index_range(*e->args[k], p.n, p.m, lo, hi) || lo < 0) {
          ok = false;
          return;
        }
        int64_t& dim = e->name == "Z" ? pz : (k == 0 ? px : qx);
        dim = std::max(dim, hi + 1);
      }
    }
    for (const auto& a : e->args) visit(a);
  };
  for (const auto& st : p.stages) {
    visit(st.rhs);
    visit(st.temp);
    visit(st.row);
  }
  if (!ok || px > 4096 || qx > 4096 || pz > 4096) return false;
  p.px = px;
  p.qx = qx;
  p.pz = pz;
  // value ranges, stage by stage, as the tensors' contents grow
  ValueContext c;
  c.elem = p.elem;
  c.buffers = {{"X", input_range("X")}, {"Z", input_range("Z")}, {"Y", input_range("Y")}};
  if (p.use_w) c.buffers["W"] = input_range("W");
  for (const auto& st : p.stages) {
    // Each element is written once per stage, from what the stage reads; a stage that
    // reads the tensor it writes can read an element it has already written in this stage
    // (which read another): its values are the fixed point, reached within one step per
    // element (else a value can leave the bound).
    const Range before = c.buffers[st.target];
    Range written = before;
    for (int64_t k = 0; k <= p.n * p.m; ++k) {
      c.buffers[st.target] = {std::min(before.lo, written.lo), std::max(before.hi, written.hi)};
      c.temps.clear();
      Range r;
      if (st.temp) {
        if (!value_range(*st.temp, c, r)) return false;
        c.temps["t"] = r;
      }
      if (st.row) {
        if (!value_range(*st.row, c, r)) return false;
        c.temps["tb"] = r;
      }
      if (!value_range(*st.rhs, c, r)) return false;
      Range next = st.reduce ? Range{before.lo + r.lo, before.hi + r.hi} : r;
      if (next.lo <= -kValueBound || next.hi >= kValueBound) return false;
      if (k > 0 && next.lo == written.lo && next.hi == written.hi) break;
      written = next;
      if (k == p.n * p.m) return false;  // still growing
    }
    c.buffers[st.target] = {std::min(before.lo, written.lo), std::max(before.hi, written.hi)};
  }
  return true;
}

ExoProgram generate_exo_program(std::mt19937_64& rng, int right_nested_percent, int window_percent) {
  static const int64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17};
  for (int attempt = 0;; ++attempt) {
    ExoProgram p;
    p.elem = chance(rng, 60) ? "i32" : "f32";
    p.n = sizes[pick(rng, 0, 8)];
    p.m = sizes[pick(rng, 0, 10)];
    p.use_w = chance(rng, 40);
    int nstages = int(pick(rng, 1, 3));
    p.use_w = p.use_w && nstages > 1;  // W's stage is the last of at least two
    ValueContext c;
    c.elem = p.elem;
    c.buffers = {{"X", input_range("X")}, {"Z", input_range("Z")}, {"Y", input_range("Y")}};
    for (int k = 0; k < nstages; ++k) {
      ExoStage st;
      // W's stages come after Y's: W reads Y's final contents, as the spec's W reads func Y
      st.target = p.use_w && k == nstages - 1 && k > 0 ? "W" : "Y";
      if (st.target == "W") c.buffers["W"] = input_range("W");
      c.target = st.target;
      st.reduce = chance(rng, 30);
      if (chance(rng, 25)) {
        st.j_lo = int(pick(rng, 0, 1));
        st.j_hi_minus = int(pick(rng, 0, 1));
      }
      st.reversed_write = st.j_lo == 0 && st.j_hi_minus == 0 && chance(rng, 12);
      if (chance(rng, 25)) st.guard = draw_guard(rng);
      c.temps.clear();
      if (chance(rng, 30)) {
        // the row is filled before the stage writes: it must not read what the stage writes
        ValueContext rc = c;
        rc.buffers.erase(st.target);
        st.row = value_expr(rng, rc, 2, false);
        st.j_lo = st.j_hi_minus = 0;  // the row is filled whole before the writes read it
        c.temps["tb"] = {};
      }
      if (chance(rng, 35)) {
        st.temp = value_expr(rng, c, 2, false);
        c.temps["t"] = {};
      }
      st.rhs = value_expr(rng, c, int(pick(rng, 1, 3)), true);
      st.window = !st.reversed_write && chance(rng, window_percent);
      p.stages.push_back(st);
    }
    for (auto& st : p.stages) {
      st.rhs = tame_grouping(st.rhs, rng, right_nested_percent);
      st.temp = tame_grouping(st.temp, rng, right_nested_percent);
      st.row = tame_grouping(st.row, rng, right_nested_percent);
      st.rhs = offset_reads(st.rhs, p.n, p.m);
      st.temp = offset_reads(st.temp, p.n, p.m);
      st.row = offset_reads(st.row, p.n, p.m);
    }
    if (finish_exo_program(p)) return p;
    if (attempt > 200) {  // the simplest program: never reached in practice, but always valid
      ExoProgram q;
      q.n = p.n;
      q.m = p.m;
      ExoStage st;
      st.target = "Y";
      st.rhs = mk(Op::Read, {var("i"), var("j")}, 0, "X");
      q.stages.push_back(st);
      finish_exo_program(q);
      return q;
    }
  }
}

std::string exo_program_proc(const ExoProgram& p) {
  const std::string& T = p.elem;
  std::string s = fmt::format("def kernel(N: size, M: size, X: {0}[{1}, {2}] @ DRAM, Z: {0}[{3}] @ DRAM, Y: {0}[N, M] @ DRAM",
                              T, p.px, p.qx, p.pz);
  if (p.use_w) s += fmt::format(", W: {}[N, M] @ DRAM", T);
  s += "):\n";
  s += fmt::format("    assert N <= {}\n    assert M <= {}\n", p.n, p.m);
  int64_t trimmed = 0;  // a loop seq(lo, M - k) needs M >= lo + k, as Exo checks
  for (const auto& st : p.stages) trimmed = std::max<int64_t>(trimmed, st.j_lo + st.j_hi_minus);
  if (trimmed > 0) s += fmt::format("    assert M >= {}\n", trimmed);
  for (const auto& st : p.stages) {
    Names nm = exo_names(p, st);
    std::string in1 = "        ", in2 = "            ";
    s += "    for i in seq(0, N):\n";
    if (st.window) s += fmt::format("{}yr = {}[i, 0:M]\n", in1, st.target);
    if (st.row) {
      s += fmt::format("{}tb: {}[M] @ DRAM\n{}for j in seq(0, M):\n{}tb[j] = {}\n", in1, T, in1, in2,
                       print(*st.row, nm, true));
    }
    std::string hi = st.j_hi_minus ? fmt::format("M - {}", st.j_hi_minus) : "M";
    s += fmt::format("{}for j in seq({}, {}):\n", in1, st.j_lo, hi);
    std::string ind = in2;
    if (st.temp) s += fmt::format("{}t: {} @ DRAM\n{}t = {}\n", ind, T, ind, print(*st.temp, nm, true));
    if (st.guard) {
      s += fmt::format("{}if {}:\n", ind, print(*st.guard, nm));
      ind += "    ";
    }
    std::string col = st.reversed_write ? "M - 1 - j" : "j";
    std::string lhs = st.window ? fmt::format("yr[{}]", col) : fmt::format("{}[i, {}]", st.target, col);
    s += fmt::format("{}{} {} {}\n", ind, lhs, st.reduce ? "+=" : "=", print(*st.rhs, nm, true));
  }
  return s;
}

std::string exo_program_spec(const ExoProgram& p) {
  std::string s = fmt::format("# halo fuzz --target exo: what the generated procedure beside this file computes.\n");
  s += fmt::format("pipeline {}(N, M) {{\n", p.use_w ? "W" : "Y");  // the output is the last func (Def. 2.10)
  s += fmt::format("  fun X(a, b) = {{ {} }}\n", input_formula("X"));
  s += fmt::format("  fun Z(a) = {{ {} }}\n", input_formula("Z"));
  s += fmt::format("  fun Y0(a, b) = {{ {} }}\n", input_formula("Y0"));
  if (p.use_w) s += fmt::format("  fun W0(a, b) = {{ {} }}\n", input_formula("W0"));
  std::map<std::string, std::vector<std::string>> updates;
  for (const auto& st : p.stages) {
    // the stage's loop variables in the spec: rj (j) innermost, ri (i) outermost
    Names nm;
    nm.spec = true;
    nm.var = [](const std::string& v) { return v == "i" ? std::string("ri") : std::string("rj"); };
    std::function<std::string(const ExoExpr&)> temp;
    Names row_nm = nm;
    temp = [&](const ExoExpr& e) -> std::string {
      if (e.name == "t") return "(" + print(*st.temp, nm) + ")";
      // tb[k] is what the row loop stored at j = k
      std::string k = print(*e.args[0], nm);
      Names at = nm;
      at.var = [k](const std::string& v) { return v == "i" ? std::string("ri") : "(" + k + ")"; };
      return "(" + print(*st.row, at) + ")";
    };
    nm.temp = temp;
    nm.read = [](const ExoExpr& e, const std::string& idx) { return e.name + "[" + idx + "]"; };
    std::string col = st.reversed_write ? "M - 1 - rj" : "rj";
    std::string rhs = print(*st.rhs, nm);
    std::string value = st.reduce ? fmt::format("{}[ri, {}] + {}", st.target, col, rhs) : rhs;
    std::string len = st.j_hi_minus || st.j_lo ? fmt::format("M - {}", st.j_hi_minus + st.j_lo) : "M";
    std::string u = fmt::format("    rdom(rj = ({}, {}), ri = (0, N)) in (ri, {}) <- {}", st.j_lo, len, col, value);
    if (st.guard) u += " if " + print(*st.guard, nm);
    updates[st.target].push_back(u);
  }
  for (const std::string& t : {std::string("Y"), std::string("W")}) {
    if (t == "W" && !p.use_w) continue;
    s += fmt::format("  fun {}(a, b) = {{\n    {}0[a, b]", t, t);
    for (const auto& u : updates[t]) s += ";\n" + u;
    s += "\n  }\n";
  }
  s += "}\n\n" + fmt::format("realize (N = {}, M = {}) over (0, {}), (0, {})\n", p.n, p.m, p.n, p.m);
  return s;
}

std::vector<std::pair<std::string, std::string>> exo_program_inits(const ExoProgram& p) {
  std::vector<std::pair<std::string, std::string>> v = {{"Y", "Y0"}};
  if (p.use_w) v.push_back({"W", "W0"});
  return v;
}

std::vector<ExoProgram> exo_program_shrinks(const ExoProgram& p) {
  std::vector<ExoProgram> out;
  auto offer = [&](ExoProgram q) {
    if (finish_exo_program(q)) out.push_back(std::move(q));
  };
  for (size_t k = 0; k < p.stages.size() && p.stages.size() > 1; ++k) {
    ExoProgram q = p;
    q.stages.erase(q.stages.begin() + std::ptrdiff_t(k));
    if (std::none_of(q.stages.begin(), q.stages.end(), [](const ExoStage& s) { return s.target == "W"; })) q.use_w = false;
    offer(q);
  }
  for (size_t k = 0; k < p.stages.size(); ++k) {
    const ExoStage& st = p.stages[k];
    auto with = [&](auto change) {
      ExoProgram q = p;
      change(q.stages[k]);
      offer(q);
    };
    if (st.guard) with([](ExoStage& s) { s.guard = nullptr; });
    if (st.window) with([](ExoStage& s) { s.window = false; });
    if (st.reduce) with([](ExoStage& s) { s.reduce = false; });
    if (st.reversed_write) with([](ExoStage& s) { s.reversed_write = false; });
    if (st.j_lo || st.j_hi_minus) with([](ExoStage& s) { s.j_lo = s.j_hi_minus = 0; });
    // an operand in place of its operator
    for (size_t a = 0; a < st.rhs->args.size(); ++a)
      if (st.rhs->op != Op::Read && st.rhs->op != Op::Temp && st.rhs->args[a]->op != Op::Const)
        with([a](ExoStage& s) { s.rhs = s.rhs->args[a]; });
  }
  for (int64_t smaller : {p.n / 2, p.n - 1})
    if (smaller >= 1 && smaller < p.n) {
      ExoProgram q = p;
      q.n = smaller;
      offer(q);
    }
  for (int64_t smaller : {p.m / 2, p.m - 1})
    if (smaller >= 1 && smaller < p.m) {
      ExoProgram q = p;
      q.m = smaller;
      offer(q);
    }
  // the inputs read at element 0: what is left is the shape of the statements
  for (size_t k = 0; k < p.stages.size(); ++k) {
    bool any = false;
    std::function<ExoExprPtr(const ExoExprPtr&)> zero = [&](const ExoExprPtr& e) -> ExoExprPtr {
      if (!e) return e;
      auto copy = std::make_shared<ExoExpr>(*e);
      if (copy->op == Op::Read && (copy->name == "X" || copy->name == "Z")) {
        for (auto& ix : copy->args)
          if (ix->op != Op::Const || ix->value != 0) {
            ix = cst(0);
            any = true;
          }
        return copy;
      }
      for (auto& a : copy->args) a = zero(a);
      return copy;
    };
    ExoProgram q = p;
    q.stages[k].rhs = zero(q.stages[k].rhs);
    q.stages[k].temp = zero(q.stages[k].temp);
    q.stages[k].row = zero(q.stages[k].row);
    if (any) offer(q);
  }
  return out;
}

}  // namespace halo::fuzz

// The dynamic check of a run against B(T): see query_check.hpp.
#include "bounds/query_check.hpp"

#include "bounds/extract.hpp"
#include "semantics/type_ops.hpp"
#include "semantics/printer.hpp"

#include <fmt/format.h>

#include <array>
#include <span>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace halo {

namespace {

using Point = std::vector<Value>;
using Buffer = std::unordered_map<Point, Value, PointHash>;

struct Found {  // unwinds the run at the first violation
  QueryViolation v;
};

bool holds(Op op, const Value& a, const Value& b) { return !apply_op(op, std::array<Value, 2>{a, b}).is_zero(); }

std::string values_text(const Point& p) {
  std::string s;
  for (size_t i = 0; i < p.size(); ++i) s += (i ? ", " : "") + p[i].to_string();
  return "(" + s + ")";
}

// The truth of a membership or cover: false with the values that make it so, or
// undefined (an error value where an integer is needed).
struct Truth {
  bool value = true;
  bool undefined = false;
  std::string detail;
};

class Checker {
 public:
  Checker(const TgtProgram& t, const HoleFilling& g, const Limits& lim)
      : t_(t), g_(g), sh_(query_shape(t)), budget_(lim) {
    for (const auto& [h, scope] : hole_scopes(t)) in_program_.insert(h);
  }

  void run(const Input& in) {
    for (auto& [name, v] : realize_bindings(t_, in)) env_.emplace_back(std::move(name), std::move(v));
    exec(t_.body);
    check(window_conjunct(t_, sh_));  // B(pipeline)'s last conjunct, after B(s)
  }

 private:
  // One statement: first the conjuncts B places here (with Σ, σ as they are before it
  // runs), then the statement itself, as fig. 2.8 runs it.
  void exec(const Stmt& s) {
    budget_.step();
    check(local(s));
    switch (s->kind) {
      case StmtKind::Nop:
      case StmtKind::Assert: return;  // a false assertion was the violated Pred above
      case StmtKind::Seq:
        for (const auto& x : as<SeqStmt>(s).stmts) exec(x);
        return;
      case StmtKind::Allocate:
        // ALLOC: a fresh buffer, every point ε_mem. The bounds are not enforced here:
        // B's memberships in ?mem f are what this check reports.
        buffers_[as<AllocateStmt>(s).func].clear();
        return;
      case StmtKind::Store: {
        const auto& n = as<StoreStmt>(s);
        Value v = eval(n.value);
        Point p;
        for (const auto& a : n.args) p.push_back(eval(a));  // integers: the membership held
        buffers_[n.func][p] = std::move(v);
        return;
      }
      case StmtKind::If: {
        const auto& n = as<IfStmt>(s);
        Value c = eval(n.cond);
        if (c.is_error())
          throw Found{{"(" + print_expr(n.cond) + ") ⇒ B(then) ∧ ¬(" + print_expr(n.cond) + ") ⇒ B(else)",
                       "the branches of an if", s->loc,
                       "the condition evaluates to " + c.to_string() + ", so neither implication has a truth value; " +
                           env_text()}};
        exec(c.is_zero() ? n.else_case : n.then_case);
        return;
      }
      case StmtKind::For: {
        const auto& n = as<ForStmt>(s);
        Value mn = eval(n.min), ln = eval(n.len);  // len >= 0 held: local(s)
        auto len = ln.as_int64();
        // The minimum may lie beyond 64 bits (the machine runs such loops); the length is
        // an iteration count, and one beyond 64 bits would never finish anyway.
        if (mn.is_error() || !len)
          throw Found{{fmt::format("∀ {} ∈ [{}, {}] : ...", n.binder(), print_expr(n.min), print_expr(n.len)),
                       "the range of a loop", s->loc,
                       fmt::format("the range evaluates to [{}, {}], not an integer minimum and a 64-bit length; {}",
                                   mn.to_string(), ln.to_string(), env_text())}};
        env_.emplace_back(n.binder(), mn);
        Value v = mn;
        for (int64_t i = 0; i < *len; ++i) {  // ∀ v ∈ [min, len]: the iterations
          env_.back().second = v;
          exec(n.body);
          std::array<Value, 2> next{v, Value(int64_t{1})};
          v = apply_op(Op::Add, next);
        }
        env_.pop_back();
        return;
      }
      case StmtKind::Let: {
        const auto& n = as<LetStmt>(s);
        env_.emplace_back(n.var, eval(n.value));
        exec(n.body);
        env_.pop_back();
        return;
      }
      case StmtKind::Label: {
        auto copy = copy_label(s);  // a specialization's copy: local conjuncts depend on it
        if (!copy) return exec(as<LabelStmt>(s).body);
        auto saved = copies_;
        copies_[copy->first] = copy->second;
        ran_copy_[copy->first] = copy->second;
        exec(as<LabelStmt>(s).body);
        copies_ = std::move(saved);
        return;
      }
    }
  }

  Query local(const Stmt& s) {
    // A statement shared by two specialization copies may contribute differently in each.
    std::pair<const StmtNode*, std::map<std::string, int64_t>> key{s.get(), {}};
    if (s->kind == StmtKind::Label) key.second = copies_;
    auto it = local_.find(key);
    if (it == local_.end()) it = local_.emplace(key, local_conjuncts(s, sh_, &copies_)).first;
    return it->second;
  }
  std::map<std::string, int64_t> copies_;
  // Each func's specialization copy that ran last (kept after it ends: the window conjunct
  // and later readers look at the copy that computed the func).
  std::map<std::string, int64_t> ran_copy_;

  // ---------------------------------------------------------------- the query

  [[noreturn]] void fail(const Query& q, const std::string& detail) {
    throw Found{{print_conjunct(q), q->origin, q->loc, detail}};
  }

  void check(const Query& q) {
    switch (q->kind) {
      case QueryKind::True: return;
      case QueryKind::And:
        for (const auto& k : q->kids) check(k);
        return;
      case QueryKind::Pred: {
        Value v = eval(q->expr);
        if (v.is_error()) fail(q, "evaluates to " + v.to_string() + "; " + env_text());
        if (v.is_zero()) fail(q, "is false; " + env_text());
        return;
      }
      case QueryKind::Member:
      case QueryKind::Cover: {
        Truth r = truth(q);
        if (r.undefined || !r.value) fail(q, r.detail);
        return;
      }
      case QueryKind::Implies: {
        if (q->expr) {
          Value c = eval(q->expr);
          if (c.is_error()) fail(q, "the antecedent evaluates to " + c.to_string() + "; " + env_text());
          if (!c.is_zero()) check(q->kids.back());
          return;
        }
        Truth a = truth(q->kids[0]);
        if (a.undefined) fail(q->kids[0], a.detail);
        if (a.value) check(q->kids[1]);
        return;
      }
      case QueryKind::Exists: check(q->kids[0]); return;  // the filling is the witness
      case QueryKind::Let:
        env_.emplace_back(q->var, eval(q->expr));
        check(q->kids[0]);
        env_.pop_back();
        return;
      case QueryKind::Forall: {
        // Local conjuncts have no ∀ (the program's loops are run instead); a bounded one is
        // still evaluated for completeness.
        if (!q->min) throw std::logic_error("check_run_against_query: an unbounded ∀ inside a statement's conjuncts");
        auto lo = eval(q->min).as_int64(), len = eval(q->len).as_int64();
        if (!lo || !len) fail(q, "the range is not a range of 64-bit integers");
        env_.emplace_back(q->var, Value(*lo));
        for (int64_t i = 0; i < *len; ++i) {
          budget_.step();
          env_.back().second = Value(*lo + i);
          check(q->kids[0]);
        }
        env_.pop_back();
        return;
      }
    }
  }

  // The box of a hole tuple under Γ, evaluated now.
  std::vector<std::pair<Value, Value>> hole_box(const HoleRef& h) {
    std::vector<std::pair<Value, Value>> box;
    for (size_t d = 0; d < h.vars.size(); ++d) {
      Value mn = hole_value(h.min_hole(d));
      box.emplace_back(std::move(mn), hole_value(h.len_hole(d)));
    }
    return box;
  }

  // That box in words: each hole with its filling and value.
  std::string hole_box_text(const HoleRef& h, const std::vector<std::pair<Value, Value>>& box) const {
    std::vector<std::string> parts;
    for (size_t d = 0; d < h.vars.size(); ++d)
      parts.push_back(fmt::format("{} = {} = {}, {} = {} = {}", h.min_hole(d).to_string(),
                                  print_expr(find_filling(h.min_hole(d))->second), box[d].first.to_string(),
                                  h.len_hole(d).to_string(), print_expr(find_filling(h.len_hole(d))->second),
                                  box[d].second.to_string()));
    return fmt::format("{} is {}", h.to_string(), fmt::join(parts, "; "));
  }

  // Only a false or undefined truth carries its detail, written when it is reported:
  // most memberships hold, and printing the fillings of every one cost half of a fuzz
  // case's time.
  Truth truth(const Query& q) {
    Truth r;
    auto hbox = hole_box(q->hole);
    std::vector<std::pair<Value, Value>> box;  // the point as a box of length-1 intervals
    if (q->kind == QueryKind::Member)
      for (const auto& e : q->point) box.emplace_back(eval(e), Value(int64_t(1)));
    else
      for (const auto& [mn, ln] : q->box) {
        Value m = eval(mn);
        box.emplace_back(std::move(m), eval(ln));
      }
    auto detail = [&] {
      Point flat;
      for (const auto& [mn, ln] : box) {
        flat.push_back(mn);
        if (q->kind != QueryKind::Member) flat.push_back(ln);
      }
      std::string what = q->kind == QueryKind::Member
                             ? fmt::format("the point {} of {}", values_text(flat), q->hole.func)
                             : fmt::format("the box (min, len per dimension) {}", values_text(flat));
      return fmt::format("{}; {}; {}", what, hole_box_text(q->hole, hbox), env_text());
    };
    if (box.size() != hbox.size()) {
      r.undefined = true;
      r.detail = fmt::format("{} dimensions against {} in the hole tuple; {}", box.size(), hbox.size(), detail());
      return r;
    }
    for (size_t d = 0; d < box.size(); ++d)
      for (const Value* v : {&box[d].first, &box[d].second, &hbox[d].first, &hbox[d].second})
        if (v->is_error()) {
          r.undefined = true;
          r.detail = "an error value where an integer is needed: " + detail();
          return r;
        }
    // An empty box is covered by anything.
    for (const auto& [mn, ln] : box)
      if (holds(Op::Le, ln, Value(int64_t(0)))) return r;
    for (size_t d = 0; d < box.size(); ++d) {
      const auto& [bm, bl] = box[d];
      const auto& [hm, hl] = hbox[d];
      if (!holds(Op::Le, hm, bm) || !holds(Op::Le, add(bm, bl), add(hm, hl))) {
        r.value = false;
        r.detail = fmt::format("dimension {} ({}) is outside: {}", d, q->hole.vars[d], detail());
        return r;
      }
    }
    return r;
  }

  // ---------------------------------------------------------------- expressions

  // A stage that does not iterate a dimension of its func (an update whose left-hand side
  // omits a pure variable) has no hole for it in T, yet B names it (the store's antecedent,
  // the window, the stage covers). Unless Γ says otherwise, such a hole takes the value of
  // the same hole of the previous stage, same specialization first: the stage computes
  // wherever its predecessor did along that dimension. Brute-force completions rely on this.
  // The last stage's holes are shared by the specializations (spec *): its predecessor is
  // the stage of the specialization whose copy ran (ran_copy_), not whichever
  // specialization the filling lists first.
  HoleFilling::const_iterator find_filling(HoleLabel h) const {
    auto it = g_.find(h);
    while (it == g_.end() && h.kind == HoleKind::Cpu && h.stage > 0 && !in_program_.count(h)) {
      --h.stage;
      if (auto ran = ran_copy_.find(h.func); h.spec == FuncLabel::kShared && ran != ran_copy_.end()) {
        HoleLabel in_copy = h;
        in_copy.spec = ran->second;
        it = g_.find(in_copy);
        if (it != g_.end()) break;
      }
      it = g_.find(h);
      for (auto k = g_.begin(); it == g_.end() && k != g_.end(); ++k) {
        const HoleLabel& c = k->first;
        if (c.kind == h.kind && c.func == h.func && c.var == h.var && c.stage == h.stage && c.is_len == h.is_len)
          it = k;
      }
    }
    return it;
  }

  Value hole_value(const HoleLabel& h) {
    auto it = find_filling(h);
    if (it == g_.end()) throw InputError(Diagnostic{t_.file, {}, "the filling has no expression for " + h.to_string()});
    if (in_hole_)
      throw InputError(Diagnostic{t_.file, {}, "the filling of a hole mentions the hole " + h.to_string()});
    in_hole_ = true;
    Value v = eval(it->second);  // in the current environment, as [Γ]T would evaluate it
    in_hole_ = false;
    return v;
  }

  Value eval(const Expr& e) {
    switch (e->kind) {
      case ExprKind::Const: return as<ConstNode>(e).value;
      case ExprKind::Var: {
        const auto& name = as<VarNode>(e).name;
        for (auto it = env_.rbegin(); it != env_.rend(); ++it)
          if (it->first == name) return it->second;
        in_hole_ = false;
        throw InputError(Diagnostic{t_.file, e->loc, "variable '" + name + "' is not bound here"});
      }
      case ExprKind::Op: {  // at most three operands (select): no allocation per operator
        const auto& n = as<OpNode>(e);
        std::array<Value, 3> args;
        size_t k = 0;
        for (const auto& a : n.args) args.at(k++) = eval(a);
        return apply_op_node(n, std::span<const Value>(args.data(), k));
      }
      case ExprKind::Call: {  // READ, on the buffers as the run has filled them so far
        const auto& n = as<CallNode>(e);
        Point p;
        for (const auto& a : n.args) p.push_back(eval(a));
        const Buffer& b = buffers_[n.func];
        auto it = b.find(p);
        return it == b.end() ? Value::err_mem() : it->second;
      }
      case ExprKind::Hole: return hole_value(as<HoleNode>(e).label);
    }
    return Value();
  }

  std::string env_text() const {
    std::vector<std::string> parts;
    for (const auto& [v, x] : env_) parts.push_back(v + " = " + x.to_string());
    return parts.empty() ? "no variables bound" : fmt::format("with {}", fmt::join(parts, ", "));
  }

  const TgtProgram& t_;
  const HoleFilling& g_;
  QueryShape sh_;
  Budget budget_;
  std::vector<std::pair<std::string, Value>> env_;
  std::unordered_map<std::string, Buffer> buffers_;
  std::map<std::pair<const StmtNode*, std::map<std::string, int64_t>>, Query> local_;
  std::set<HoleLabel> in_program_;  // the holes T contains
  bool in_hole_ = false;
};

}  // namespace

std::optional<QueryViolation> check_run_against_query(const TgtProgram& t, const HoleFilling& g, const Input& in,
                                                      const Limits& lim) {
  try {
    Checker(t, g, lim).run(in);
  } catch (Found& f) {
    return std::move(f.v);
  }
  return std::nullopt;
}

}  // namespace halo

// Query extraction B(T) (thesis fig. 2.10a), its printer and its JSON form; see
// extract.hpp and docs/bounds-query.md.
#include "bounds/extract.hpp"
#include "support/command_budget.hpp"

#include "semantics/printer.hpp"
#include "semantics/tgt_json.hpp"
#include "semantics/typing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>

namespace halo {

// ---------------------------------------------------------------- shape

HoleRef QueryShape::mem(const std::string& f) const {
  HoleRef r;
  r.kind = HoleKind::Mem;
  r.func = f;
  if (auto it = dims.find(f); it != dims.end()) r.vars = it->second;
  return r;
}

HoleRef QueryShape::cpu(const std::string& f, int64_t stage, int64_t spec) const {
  HoleRef r = mem(f);
  r.kind = HoleKind::Cpu;
  r.stage = stage;
  r.spec = spec;
  return r;
}

HoleRef QueryShape::output_cpu() const {
  // The last stage is the one whose tuple is shared (Def. 2.14); without one (a program
  // written by hand), the highest stage.
  std::optional<std::pair<int64_t, int64_t>> best;
  if (auto it = cpu_tuples.find(output); it != cpu_tuples.end())
    for (const auto& st : it->second) {
      bool better = !best || (st.second == FuncLabel::kShared) > (best->second == FuncLabel::kShared) ||
                    ((st.second == FuncLabel::kShared) == (best->second == FuncLabel::kShared) && st.first > best->first);
      if (better) best = st;
    }
  return best ? cpu(output, best->first, best->second) : cpu(output, 0, FuncLabel::kShared);
}

std::vector<HoleRef> QueryShape::cpu_of(const std::string& f) const {
  std::vector<HoleRef> out;
  if (auto it = cpu_tuples.find(f); it != cpu_tuples.end())
    for (const auto& [stage, spec] : it->second) out.push_back(cpu(f, stage, spec));
  return out;
}

QueryShape query_shape(const TgtProgram& t) {
  struct Walker : StmtVisitor {
    QueryShape s;
    std::map<std::string, std::vector<std::string>> cpu_dims;  // fallback dimension names
    void note(const std::string& f, FuncLabel l) {
      if (l.labelled()) s.cpu_tuples[f].insert({l.stage, l.spec});
    }
    void visit_expr(const Expr& e) override {
      struct Holes : ExprVisitor {
        Walker& w;
        explicit Holes(Walker& ww) : w(ww) {}
        void visit_hole(const HoleNode& h) override {
          if (h.label.kind != HoleKind::Cpu) return;
          w.s.cpu_tuples[h.label.func].insert({h.label.stage, h.label.spec});
          auto& d = w.cpu_dims[h.label.func];
          if (std::find(d.begin(), d.end(), h.label.var) == d.end()) d.push_back(h.label.var);
        }
        void visit_call(const CallNode& c) override {
          w.note(c.func, c.label);
          ExprVisitor::visit_call(c);
        }
      } holes(*this);
      holes.visit(e);
    }
    void visit_allocate(const AllocateStmt& a) override {
      std::vector<std::string> d;
      for (const auto& b : a.bounds)
        d.push_back(b.first->kind == ExprKind::Hole ? as<HoleNode>(b.first).label.var : std::string());
      s.dims[a.func] = d;
      StmtVisitor::visit_allocate(a);
    }
    void visit_store(const StoreStmt& st) override {
      note(st.func, st.label);
      StmtVisitor::visit_store(st);
    }
  } w;
  w.s.file = t.file;
  w.s.output = t.name;
  w.visit(t.body);
  for (auto& [f, d] : w.cpu_dims) w.s.dims.emplace(f, d);  // only where no allocate named them
  w.s.cpu_tuples[t.name];
  return w.s;
}

// ---------------------------------------------------------------- construction helpers

namespace {

using Node = std::shared_ptr<QueryNode>;

Query q_true() {
  static const Query t = std::make_shared<QueryNode>();
  return t;
}
bool is_true(const Query& q) { return q->kind == QueryKind::True; }

Node node(QueryKind k, SourceLoc loc, std::string origin = {}) {
  auto n = std::make_shared<QueryNode>();
  n->kind = k;
  n->loc = loc;
  n->origin = std::move(origin);
  return n;
}

// b1 ∧ ... ∧ bn: nested conjunctions flattened, true conjuncts dropped.
Query conj(const std::vector<Query>& parts) {
  std::vector<Query> kids;
  for (const auto& p : parts) {
    if (is_true(p)) continue;
    if (p->kind == QueryKind::And) kids.insert(kids.end(), p->kids.begin(), p->kids.end());
    else kids.push_back(p);
  }
  if (kids.empty()) return q_true();
  if (kids.size() == 1) return kids[0];
  auto n = node(QueryKind::And, kids[0]->loc);
  n->kids = std::move(kids);
  return n;
}

Query member(std::vector<Expr> point, HoleRef h, SourceLoc loc, std::string origin) {
  auto n = node(QueryKind::Member, loc, std::move(origin));
  n->point = std::move(point);
  n->hole = std::move(h);
  return n;
}

// The box of a hole tuple as hole expressions: what a stage-coverage Cover puts inside
// another tuple.
std::vector<std::pair<Expr, Expr>> hole_box(const HoleRef& h) {
  std::vector<std::pair<Expr, Expr>> box;
  for (size_t d = 0; d < h.vars.size(); ++d) box.emplace_back(make_hole(h.min_hole(d)), make_hole(h.len_hole(d)));
  return box;
}

Query cover(std::vector<std::pair<Expr, Expr>> box, HoleRef h, SourceLoc loc, std::string origin) {
  auto n = node(QueryKind::Cover, loc, std::move(origin));
  n->box = std::move(box);
  n->hole = std::move(h);
  return n;
}

// The body-carrying nodes; a true body makes the whole node true (nothing to satisfy),
// except ∃, which is kept because it says where a hole tuple is bound.
Query implies(Expr e, Query body, SourceLoc loc) {
  if (is_true(body)) return body;
  auto n = node(QueryKind::Implies, loc);
  n->expr = std::move(e);
  n->kids = {std::move(body)};
  return n;
}
Query implies_member(Query antecedent, Query body, SourceLoc loc) {
  if (is_true(body)) return body;
  auto n = node(QueryKind::Implies, loc);
  n->kids = {std::move(antecedent), std::move(body)};
  return n;
}
Query forall(std::string v, Expr mn, Expr ln, Query body, SourceLoc loc) {
  if (is_true(body)) return body;
  auto n = node(QueryKind::Forall, loc);
  n->var = std::move(v);
  n->min = std::move(mn);
  n->len = std::move(ln);
  n->kids = {std::move(body)};
  return n;
}
Query let(std::string v, Expr e, Query body, SourceLoc loc) {
  if (is_true(body)) return body;
  auto n = node(QueryKind::Let, loc);
  n->var = std::move(v);
  n->expr = std::move(e);
  n->kids = {std::move(body)};
  return n;
}
Query exists(HoleRef h, Query body, SourceLoc loc) {
  auto n = node(QueryKind::Exists, loc);
  n->hole = std::move(h);
  n->kids = {std::move(body)};
  return n;
}

std::string stage_text(FuncLabel l) {
  if (l.spec == FuncLabel::kShared || l.spec == FuncLabel::kNone) return fmt::format("stage {}", l.stage);
  return fmt::format("stage {}, spec {}", l.stage, l.spec);
}

// B_cpu(e) (cpu = true) or B_mem(e) (cpu = false), appended to `out`. `where` says which
// expression of which statement e is, for the origins.
//   B_cpu(f^{i,j}[ē]) = B_cpu(ē) ∧ ē ∈ ?mem f ∧ ē ∈ ?cpu f^{i,j}
//   B_mem(f[ē])       = B_cpu(ē) ∧ ē ∈ ?mem f
//   otherwise: the conjunction over the subexpressions (nothing for constants, variables
//   and holes).
void b_expr(const Expr& e, bool cpu, const std::string& where, const QueryShape& sh, std::vector<Query>& out) {
  switch (e->kind) {
    case ExprKind::Call: {  // B_cpu(f^{i,j}[ē]) / B_mem(f[ē]) fig. 2.10a
      const auto& c = as<CallNode>(e);
      for (const auto& a : c.args) b_expr(a, true, "an index of " + c.func + " in " + where, sh, out);
      out.push_back(member(c.args, sh.mem(c.func), e->loc,
                           fmt::format("read of {} in {} must be allocated", c.func, where)));
      // An unlabelled read is of an input buffer (docs/inputs.md): nothing computes it, so
      // it only has to be allocated, i.e. inside the region its startup check covers.
      if (cpu && c.label.labelled())
        out.push_back(member(c.args, sh.cpu(c.func, c.label.stage, c.label.spec), e->loc,
                             fmt::format("read of {} in {} must be computed", c.func, where)));
      return;
    }
    case ExprKind::Op:  // remaining cases fold with ∧ fig. 2.10a
      for (const auto& a : as<OpNode>(e).args) b_expr(a, cpu, where, sh, out);
      return;
    default: return;
  }
}

Query b_cpu(const Expr& e, const std::string& where, const QueryShape& sh) {
  std::vector<Query> out;
  b_expr(e, true, where, sh, out);
  return conj(out);
}

// `f<tag><i>` → (f, i), e.g. the stage labels `f.s<i>` lowering writes (docs/lowering.md)
// and the specialization copies `f.j<k>` specialize writes.
std::optional<std::pair<std::string, int64_t>> numbered_label(const std::string& label, const char* tag) {
  auto dot = label.rfind(tag);
  if (dot == std::string::npos || dot + 2 >= label.size()) return std::nullopt;
  int64_t i = 0;
  const char* b = label.data() + dot + 2;
  const char* e = label.data() + label.size();
  auto [p, ec] = std::from_chars(b, e, i);
  if (ec != std::errc() || p != e) return std::nullopt;
  return std::make_pair(label.substr(0, dot), i);
}
std::optional<std::pair<std::string, int64_t>> stage_label(const std::string& label) { return numbered_label(label, ".s"); }

// THE FIX (docs/semantics-decisions.md item 9): ?cpu f^i ⊆ ?cpu f^{i-1} for the stage i of
// f computed under `body` (a `label f.s<i>`), in the specialization(s) its loops name.
// Read literally, fig. 2.10a never relates consecutive stages, so a point stage i does not
// overwrite could be left uncomputed by stage i-1 and still satisfy B (counterexample in
// docs/bounds-query.md). The covers are placed at the start of stage i so that β0, which
// folds right to left, sees them after stage i's own demands and before stage i-1's loops.
Query stage_covers(const std::string& f, int64_t i, const Stmt& body, const std::map<std::string, int64_t>* copies,
                   SourceLoc loc, const QueryShape& sh) {
  if (i <= 0) return q_true();
  struct Walk : StmtVisitor {
    std::string f;
    std::set<int64_t> specs;                       // specializations of the copy we are in
    std::set<std::pair<int64_t, int64_t>> stores;  // the tuples stage i's stores name
    void visit_for(const ForStmt& s) override {
      if (s.func == f) specs.insert(s.spec);
      StmtVisitor::visit_for(s);
    }
    void visit_store(const StoreStmt& s) override {
      tick_command_budget();  // one walk per stage: quadratic in the stages, so it polls
      if (s.func == f) {
        stores.insert({s.label.stage, s.label.spec});
        if (s.label.spec != FuncLabel::kShared) specs.insert(s.label.spec);
      }
      StmtVisitor::visit_store(s);
    }
  } w;
  w.f = f;
  w.visit(body);
  // A stage with no loop of its own (a constant or rdom-only left-hand side) is in the
  // copy of the loops before it, not in every copy (semantics decision 18).
  if (w.specs.empty() && copies)
    if (auto it = copies->find(f); it != copies->end()) w.specs.insert(it->second);
  auto tuples = sh.cpu_tuples.find(f);
  if (tuples == sh.cpu_tuples.end()) return q_true();
  std::vector<Query> out;
  for (const auto& [stage, spec] : w.stores) {
    tick_command_budget();
    if (stage != i) continue;
    for (const auto& [pstage, pspec] : tuples->second) {
      if (pstage != i - 1) continue;
      // The stage's own specialization; for the shared last stage, the copy's (from its
      // loop names), or every specialization when the stage has no loop to tell.
      bool same = spec == FuncLabel::kShared ? (w.specs.empty() || w.specs.count(pspec)) : pspec == spec;
      if (!same) continue;
      HoleRef inner = sh.cpu(f, stage, spec), outer = sh.cpu(f, pstage, pspec);
      out.push_back(cover(hole_box(inner), outer, loc,
                          fmt::format("{} of {} must be computed wherever {} is (stage coverage, "
                                      "semantics decision 9)",
                                      stage_text({pstage, pspec}), f, stage_text({stage, spec}))));
    }
  }
  return conj(out);
}

std::string loop_text(const ForStmt& l) { return fmt::format("<{}, {}, {}, {}>", l.func, l.spec, l.stage, l.var); }

class Extractor {
 public:
  explicit Extractor(const QueryShape& sh) : sh_(sh) {}

  Query b(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::Nop: return q_true();                   // B(nop) fig. 2.10a
      case StmtKind::Assert: return local_conjuncts(s, sh_);  // B(assert) fig. 2.10a
      case StmtKind::Seq: return b_seq(as<SeqStmt>(s).stmts, 0);
      case StmtKind::Allocate: return b_seq({s}, 0);
      case StmtKind::Store: return local_conjuncts(s, sh_);  // B(store) fig. 2.10a
      case StmtKind::If: {  // B(if) fig. 2.10a: B_cpu(e) ∧ e ⇒ B(s1) ∧ ¬e ⇒ B(s2)
        const auto& n = as<IfStmt>(s);
        return conj({local_conjuncts(s, sh_), implies(n.cond, b(n.then_case), s->loc),
                     implies(make_op(Op::Not, {n.cond}, n.cond->loc), b(n.else_case), s->loc)});
      }
      case StmtKind::For: {  // B(for) fig. 2.10a: e_len >= 0 ∧ ∀ v ∈ [e_min, e_len] : B(s)
        const auto& n = as<ForStmt>(s);
        return conj({local_conjuncts(s, sh_), forall(n.binder(), n.min, n.len, b(n.body), s->loc)});
      }
      case StmtKind::Let: {  // B(let) fig. 2.10a: B_cpu(e) ∧ let v = e in B(s)
        const auto& n = as<LetStmt>(s);
        return conj({local_conjuncts(s, sh_), let(n.var, n.value, b(n.body), s->loc)});
      }
      case StmtKind::Label: return b_label(as<LabelStmt>(s), s);
    }
    return q_true();
  }

 private:
  // B(s1; s2) = B(s1) ∧ B(s2) fig. 2.10a, and B(allocate f(...); s) = ∃ ?mem f : B(s)
  // fig. 2.10a, where s is the rest of the enclosing sequence: the allocation's scope.
  Query b_seq(const std::vector<Stmt>& stmts, size_t from) {
    std::vector<Query> parts;
    for (size_t k = from; k < stmts.size(); ++k) {
      if (stmts[k]->kind == StmtKind::Allocate) {
        parts.push_back(exists(sh_.mem(as<AllocateStmt>(stmts[k]).func), b_seq(stmts, k + 1), stmts[k]->loc));
        break;
      }
      parts.push_back(b(stmts[k]));
    }
    return conj(parts);
  }

  // B(label f : s) = ∃ ?cpu f : B(s) fig. 2.10a, one ∃ per cpu tuple of f; a stage label
  // `f.s<i>` binds nothing and contributes the stage covers (local_conjuncts).
  Query b_label(const LabelStmt& n, const Stmt& s) {
    if (stage_label(n.label)) return conj({local_conjuncts(s, sh_, &copies_), b(n.body)});
    if (auto copy = copy_label(s)) {  // a specialization's copy: its stages are covered in it
      auto saved = copies_;
      copies_[copy->first] = copy->second;
      Query body = b(n.body);
      copies_ = std::move(saved);
      return body;
    }
    Query body = b(n.body);
    if (!has_stage_label(n.label, n.body)) body = conj({body, all_covers(n.label, n.body, s->loc)});
    auto tuples = sh_.cpu_of(n.label);
    std::set<std::pair<int64_t, int64_t>> here = tuples_in(n.label, n.body);
    for (auto it = tuples.rbegin(); it != tuples.rend(); ++it)
      if (here.empty() || here.count({it->stage, it->spec})) body = exists(*it, body, s->loc);
    return body;
  }

  // The cpu tuples f's holes and stores name inside `body`. A computation copied into every
  // specialization of its consumer (semantics decision 19) has one `label f` per copy, and
  // each binds only its own copy's tuples.
  static std::set<std::pair<int64_t, int64_t>> tuples_in(const std::string& f, const Stmt& body) {
    struct W : StmtVisitor {
      std::string f;
      std::set<std::pair<int64_t, int64_t>> out;
      void visit_store(const StoreStmt& s) override {
        if (s.func == f && s.label.labelled()) out.insert({s.label.stage, s.label.spec});
        StmtVisitor::visit_store(s);
      }
      void visit_expr(const Expr& e) override {
        struct Holes : ExprVisitor {
          W* w;
          void visit_hole(const HoleNode& h) override {
            if (h.label.kind == HoleKind::Cpu && h.label.func == w->f) w->out.insert({h.label.stage, h.label.spec});
          }
        } holes;
        holes.w = this;
        if (e) holes.visit(e);
      }
    } w;
    w.f = f;
    w.visit(body);
    return w.out;
  }

  // A hand-written program may compute f without stage labels; its covers then sit at the
  // end of f's ∃ (every stage of every specialization; β0 may need more than one pass).
  static bool has_stage_label(const std::string& f, const Stmt& body) {
    struct W : StmtVisitor {
      std::string f;
      bool found = false;
      void visit_label(const LabelStmt& l) override {
        auto st = stage_label(l.label);
        found |= st && st->first == f;
        StmtVisitor::visit_label(l);
      }
    } w;
    w.f = f;
    w.visit(body);
    return w.found;
  }
  Query all_covers(const std::string& f, const Stmt& body, SourceLoc loc) const {
    std::vector<Query> out;
    auto tuples = sh_.cpu_tuples.find(f);
    if (tuples == sh_.cpu_tuples.end()) return q_true();
    std::set<int64_t> stages;
    for (const auto& t : tuples->second) stages.insert(t.first);
    for (int64_t i : stages) out.push_back(stage_covers(f, i, body, &copies_, loc, sh_));
    return conj(out);
  }

  const QueryShape& sh_;
  std::map<std::string, int64_t> copies_;  // the enclosing specialization copy of each func
};

}  // namespace

std::optional<std::pair<std::string, int64_t>> copy_label(const Stmt& s) {
  if (s->kind != StmtKind::Label) return std::nullopt;
  return numbered_label(as<LabelStmt>(s).label, ".j");
}

Query local_conjuncts(const Stmt& s, const QueryShape& sh, const std::map<std::string, int64_t>* copies) {
  switch (s->kind) {
    case StmtKind::Assert: {  // B(assert e) = e fig. 2.10a
      auto n = node(QueryKind::Pred, s->loc, "the assertion must hold");
      n->expr = as<AssertStmt>(s).cond;
      return n;
    }
    case StmtKind::Let: {
      const auto& n = as<LetStmt>(s);
      return b_cpu(n.value, "the value of let " + n.var, sh);
    }
    case StmtKind::If: return b_cpu(as<IfStmt>(s).cond, "an if condition", sh);
    case StmtKind::For: {
      const auto& l = as<ForStmt>(s);
      auto n = node(QueryKind::Pred, s->loc, "loop " + loop_text(l) + " must not have a negative length");
      n->expr = make_op(Op::Ge, {l.len, make_const(Value(int64_t(0)))}, l.len->loc);
      return n;
    }
    case StmtKind::Store: {
      // B(f^{i,j}[ē] <- e0) = ē ∈ ?mem f ∧ B_cpu(ē) ∧ B_mem(e0) ∧ (ē ∈ ?cpu f^{i,j} ⇒ B_cpu(e0))
      const auto& st = as<StoreStmt>(s);
      std::string what = fmt::format("{} ({})", st.func, stage_text(st.label));
      std::vector<Query> parts;
      parts.push_back(member(st.args, sh.mem(st.func), s->loc, "write of " + what + " must be allocated"));
      for (const auto& a : st.args) b_expr(a, true, "an index of the write to " + what, sh, parts);
      std::string where = "the value stored to " + what;
      b_expr(st.value, false, where, sh, parts);
      Query antecedent = member(st.args, sh.cpu(st.func, st.label.stage, st.label.spec), s->loc,
                                "the point written to " + what + " is in its compute bounds");
      parts.push_back(implies_member(antecedent, b_cpu(st.value, where, sh), s->loc));
      return conj(parts);
    }
    case StmtKind::Label: {
      const auto& l = as<LabelStmt>(s);
      if (auto st = stage_label(l.label)) return stage_covers(st->first, st->second, l.body, copies, s->loc, sh);
      return q_true();
    }
    default: return q_true();
  }
}

Query window_conjunct(const TgtProgram& t, const QueryShape& sh) {
  std::vector<std::pair<Expr, Expr>> box;
  for (const auto& [mn, ln] : t.window) box.emplace_back(make_var(mn, t.loc), make_var(ln, t.loc));
  return cover(std::move(box), sh.output_cpu(), t.loc, "the output window must be computed by " + t.name);
}

// B(pipeline f(p̄, x̄_min, x̄_len) : s) = ∀ p ∈ [-∞, ∞] : B(s) ∧ [x_min, x_len] ∈ ?cpu f fig. 2.10a
Query extract_query(const TgtProgram& t) {
  QueryShape sh = query_shape(t);
  Query q = conj({Extractor(sh).b(t.body), window_conjunct(t, sh)});
  std::vector<std::string> vars = t.params;
  for (auto& g : t.geometry_vars()) vars.push_back(std::move(g));
  for (const auto& [mn, ln] : t.window) vars.push_back(mn), vars.push_back(ln);
  for (auto it = vars.rbegin(); it != vars.rend(); ++it) {
    auto n = node(QueryKind::Forall, t.loc);
    n->var = *it;
    n->kids = {q};
    q = n;
  }
  return q;
}

// ---------------------------------------------------------------- printing

namespace {

std::string join_exprs(const std::vector<Expr>& es) {
  std::string s;
  for (size_t i = 0; i < es.size(); ++i) s += (i ? ", " : "") + print_expr(es[i]);
  return s;
}

std::string box_text(const std::vector<std::pair<Expr, Expr>>& box) {
  if (box.empty()) return "[]";
  std::string s;
  for (size_t i = 0; i < box.size(); ++i)
    s += (i ? " × " : "") + fmt::format("[{}, {}]", print_expr(box[i].first), print_expr(box[i].second));
  return s;
}

// q's lines: `first` leads its first line, the others are indented `depth` levels. Each line
// is built once (no copying of a subtree's lines per enclosing level), so the text is linear
// in the query even when it nests thousands deep.
void lines(const Query& q, bool origins, std::vector<std::string>& out, const std::string& first = "",
           int depth = 0) {
  tick_command_budget();
  auto deeper = [depth] { return std::string(indent_width(depth + 1), ' '); };  // a binder's body
  switch (q->kind) {
    case QueryKind::True:
    case QueryKind::Pred:
    case QueryKind::Member:
    case QueryKind::Cover:
      out.push_back(first + print_conjunct(q) + (origins && !q->origin.empty() ? "  # " + q->origin : ""));
      return;
    case QueryKind::And:
      // Conjuncts aligned, each after the first introduced by ∧.
      for (size_t k = 0; k < q->kids.size(); ++k) {
        std::string lead = k == 0 ? (depth < kMaxIndentLevels ? first + "  " : first)
                                  : std::string(indent_width(depth), ' ') + "∧ ";
        lines(q->kids[k], origins, out, lead, depth + 1);
      }
      return;
    case QueryKind::Implies: {
      std::string head =
          q->expr ? print_expr(q->expr) : print_conjunct(q->kids[0]);
      out.push_back(first + "(" + head + ") ⇒" +
                    (!q->expr && origins && !q->kids[0]->origin.empty() ? "  # " + q->kids[0]->origin : ""));
      lines(q->kids.back(), origins, out, deeper(), depth + 1);
      return;
    }
    case QueryKind::Forall:
      out.push_back(first + (q->min ? fmt::format("∀ {} ∈ [{}, {}] :", q->var, print_expr(q->min), print_expr(q->len))
                                    : fmt::format("∀ {} ∈ [-∞, ∞] :", q->var)));
      lines(q->kids[0], origins, out, deeper(), depth + 1);
      return;
    case QueryKind::Exists:
      out.push_back(first + "∃ " + q->hole.to_string() + " :");
      lines(q->kids[0], origins, out, deeper(), depth + 1);
      return;
    case QueryKind::Let:
      out.push_back(first + fmt::format("let {} = {} in", q->var, print_expr(q->expr)));
      lines(q->kids[0], origins, out, deeper(), depth + 1);
      return;
  }
}

}  // namespace

std::string print_conjunct(const Query& q) {
  switch (q->kind) {
    case QueryKind::True: return "true";
    case QueryKind::Pred: return print_expr(q->expr);
    case QueryKind::Member: return "(" + join_exprs(q->point) + ") ∈ " + q->hole.to_string();
    case QueryKind::Cover: return box_text(q->box) + " ∈ " + q->hole.to_string();
    default: {
      std::vector<std::string> out;
      lines(q, false, out);
      return out.empty() ? std::string() : out[0];
    }
  }
}

namespace {
// q as a reader writes it: a qualified loop variable <f, j, i, x> (docs/semantics-decisions.md,
// "Qualified loop variables") is shown as x where the innermost ∀ or let a reader calls x
// binds it, as the target printer does (docs/target-syntax.md); a binder is shown by its
// short name unless an enclosing binder has the same one.
Query readable(const Query& q, std::vector<std::pair<std::string, std::string>>& scope) {
  tick_command_budget();
  auto shown = [&](const Expr& e) {
    if (!e) return e;
    // From the innermost binder out: a short name is shown for the first binder that has it.
    std::map<std::string, std::string> names;
    std::set<std::string> shadowed;
    for (auto it = scope.rbegin(); it != scope.rend(); ++it) {
      tick_command_budget();  // the scope of a chain of 20,000 funcs is that deep
      bool innermost = shadowed.insert(it->first).second;
      if (innermost && is_qualified_var(it->second) && !names.count(it->second)) names[it->second] = it->first;
    }
    return rename_vars(e, names);
  };
  auto n = std::make_shared<QueryNode>(*q);
  n->expr = shown(q->expr);
  n->min = shown(q->min);
  n->len = shown(q->len);
  for (Expr& e : n->point) e = shown(e);
  for (auto& [mn, ln] : n->box) mn = shown(mn), ln = shown(ln);
  bool binds = q->kind == QueryKind::Forall || q->kind == QueryKind::Let;
  if (binds) {
    std::string s = short_var(q->var);
    bool clash = std::any_of(scope.begin(), scope.end(), [&](const auto& b) { return b.first == s; });
    if (!clash) n->var = s;
    scope.emplace_back(s, q->var);
  }
  for (Query& k : n->kids) k = readable(k, scope);
  if (binds) scope.pop_back();
  return n;
}
}  // namespace

std::string print_query(const Query& q, bool with_origins) {
  std::vector<std::string> out;
  std::vector<std::pair<std::string, std::string>> scope;
  lines(q ? readable(q, scope) : q, with_origins, out);
  std::string s;
  for (const auto& l : out) s += l + "\n";
  return s;
}

// ---------------------------------------------------------------- JSON

namespace {

nlohmann::json loc_json(SourceLoc l) { return {{"line", l.line}, {"col", l.col}}; }
nlohmann::json spec_json(int64_t spec) {
  return spec == FuncLabel::kShared ? nlohmann::json("*") : nlohmann::json(spec);
}

nlohmann::json node_json(const Query& q, std::map<std::string, HoleRef>& holes) {
  static const char* names[] = {"true", "pred", "and", "implies", "forall", "exists", "let", "member", "cover"};
  tick_command_budget();
  nlohmann::json j = {{"op", names[size_t(q->kind)]}};
  auto leaf = [&] {
    j["text"] = print_conjunct(q);
    j["origin"] = q->origin;
    j["loc"] = loc_json(q->loc);
  };
  switch (q->kind) {
    case QueryKind::True: break;
    case QueryKind::Pred:
      j["expr"] = expr_to_json(q->expr);
      leaf();
      break;
    case QueryKind::And:
      j["args"] = nlohmann::json::array();
      for (const auto& k : q->kids) j["args"].push_back(node_json(k, holes));
      break;
    case QueryKind::Implies:
      // The antecedent is an expression ("if") or a membership ("if_member").
      if (q->expr) j["if"] = expr_to_json(q->expr);
      else j["if_member"] = node_json(q->kids[0], holes);
      j["then"] = node_json(q->kids.back(), holes);
      break;
    case QueryKind::Forall:
      j["var"] = q->var;
      j["min"] = q->min ? expr_to_json(q->min) : nlohmann::json(nullptr);
      j["len"] = q->len ? expr_to_json(q->len) : nlohmann::json(nullptr);
      j["body"] = node_json(q->kids[0], holes);
      break;
    case QueryKind::Exists:
      j["hole"] = q->hole.to_string();
      holes.emplace(q->hole.to_string(), q->hole);
      j["body"] = node_json(q->kids[0], holes);
      break;
    case QueryKind::Let:
      j["var"] = q->var;
      j["value"] = expr_to_json(q->expr);
      j["body"] = node_json(q->kids[0], holes);
      break;
    case QueryKind::Member:
      j["hole"] = q->hole.to_string();
      holes.emplace(q->hole.to_string(), q->hole);
      j["point"] = nlohmann::json::array();
      for (const auto& e : q->point) j["point"].push_back(expr_to_json(e));
      leaf();
      break;
    case QueryKind::Cover:
      j["hole"] = q->hole.to_string();
      holes.emplace(q->hole.to_string(), q->hole);
      j["box"] = nlohmann::json::array();
      for (const auto& [mn, ln] : q->box) j["box"].push_back({expr_to_json(mn), expr_to_json(ln)});
      leaf();
      break;
  }
  return j;
}

nlohmann::json to_json(const Query& q, const std::map<HoleLabel, std::vector<std::string>>* scopes) {
  std::map<std::string, HoleRef> holes;
  nlohmann::json body = node_json(q, holes);
  nlohmann::json tuples = nlohmann::json::array();
  for (const auto& [text, h] : holes) {
    nlohmann::json t = {{"tuple", text}, {"kind", h.kind == HoleKind::Mem ? "mem" : "cpu"}, {"func", h.func}};
    if (h.kind == HoleKind::Cpu) t["stage"] = h.stage, t["spec"] = spec_json(h.spec);
    t["dims"] = nlohmann::json::array();
    for (size_t d = 0; d < h.vars.size(); ++d) {
      nlohmann::json dim = {{"var", h.vars[d]}};
      for (bool len : {false, true}) {
        HoleLabel l = len ? h.len_hole(d) : h.min_hole(d);
        nlohmann::json hj = {{"text", l.to_string()}, {"label", hole_to_json(l)}};
        if (scopes) {
          auto it = scopes->find(l);
          hj["scope"] = it == scopes->end() ? nlohmann::json(nullptr) : nlohmann::json(it->second);
        }
        dim[len ? "len" : "min"] = hj;
      }
      t["dims"].push_back(dim);
    }
    tuples.push_back(t);
  }
  return {{"format", "halo-bounds-query"}, {"version", 1}, {"holes", tuples}, {"query", body}};
}

}  // namespace

nlohmann::json query_to_json(const Query& q) { return to_json(q, nullptr); }

nlohmann::json query_to_json(const Query& q, const TgtProgram& t) {
  auto scopes = hole_scopes(t);
  nlohmann::json j = to_json(q, &scopes);
  j["pipeline"] = t.name;
  j["params"] = t.params;
  // A typed program's query carries every expression's type (docs/types.md, "Typed target
  // programs"): an engine reads Halide's operators with their types, never as ℤ's.
  if (t.typed) {
    j["typed"] = true;
    j["param_types"] = nlohmann::json::array();
    for (size_t i = 0; i < t.params.size(); ++i) j["param_types"].push_back(t.param_type(i).to_string());
  }
  j["window"] = nlohmann::json::array();
  for (const auto& [mn, ln] : t.window) j["window"].push_back({{"min", mn}, {"len", ln}});
  // Input buffers (docs/inputs.md): their geometry variables are startup variables, like
  // the parameters; their reads carry no label and only demand ?mem.
  if (!t.inputs.empty()) j["buffer_geometry"] = t.geometry_vars();
  return j;
}

}  // namespace halo

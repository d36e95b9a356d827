// The bounds phase of scheduling (thesis §2.8, fig. 2.11; fig. 2.12 was lost, so the
// rewrites follow shared/spec/SEMANTICS.md): bound, bound_extent and align_bounds. They
// exist because a schedule sometimes wants a func's computed region chosen by hand rather
// than inferred — a constant-size tile, an aligned vector width — and the semantics must
// say what happens when the hand-chosen region does not cover what consumers demand.
//
// The reading (docs/schedule-bounds.md): in the stage loops of f, the compute hole of
// dimension x is a *demand* (what consumers need, filled by the bounds engine); each
// directive replaces the loops' use of that hole by the region the schedule chooses, and
// puts an assertion first in the stage that the demand fits inside it:
//   bound(f, x, m, l)       the region is exactly (m, l);
//                           assert l >= 0 && (?len <= 0 || m <= ?min && ?min + ?len <= m + l)
//   bound_extent(f, x, l)   the region is (?min, l);             assert ?len <= l
//   align_bounds(f, x, k, r) the region is ?min widened down to ≡ r (mod k), its length
//                           rounded up to a multiple of k;      assert k > 0
// The holes stay in the program (in the assertions), so the query B(T) and every bounds
// engine see the demand exactly as before; the loops now compute a region that contains
// it whenever the assertion passes, which is what Theorems 2.1 and 2.2 need. A failed
// assertion is an allowed outcome (Def. 2.3), exactly Halide's "bound too small" error.
// Because the rewrite only substitutes holes, it commutes with the loop rewrites that
// came before it (a split's `let` and guard mention the holes and are rewritten too).
#include "schedule/schedule.hpp"

#include "bounds/simplify.hpp"
#include "semantics/printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

namespace halo {

namespace {

[[noreturn]] void reject(const Program& prog, const Directive& d, const std::string& msg) {
  throw InputError(Diagnostic{prog.file, d.loc, msg});
}

Expr op(Op o, Expr a, Expr b, SourceLoc l) { return make_op(o, {std::move(a), std::move(b)}, l); }

bool is_bounds_directive(DirectiveKind k) {
  return k == DirectiveKind::Bound || k == DirectiveKind::BoundExtent || k == DirectiveKind::AlignBounds;
}

// The dimension a bounds directive names must be a pure variable of f (the region is a
// box over f's dimensions), and each dimension takes at most one bounds directive: a
// second would find the region already chosen, and silently composing two choices is what
// a user would not expect.
void check_dimension(const Directive& d, const Program& prog) {
  const FuncDef* f = prog.pipeline.find(d.func.text);
  if (!f) reject(prog, d, fmt::format("'{}' names unknown func '{}'", directive_name(d.kind), d.func.text));
  if (d.names.empty()) reject(prog, d, fmt::format("'{}' needs a dimension", directive_name(d.kind)));
  const std::string& x = d.names[0].text;
  if (std::none_of(f->vars.begin(), f->vars.end(), [&](const Name& v) { return v.text == x; }))
    reject(prog, d, fmt::format("'{}': '{}' is not a dimension of '{}' (§2.8: a bounds directive names one of the "
                                "func's pure variables)",
                                directive_name(d.kind), x, f->name.text));
  if (!prog.schedule) return;
  int count = 0;
  for (const Directive& other : *prog.schedule)
    if (is_bounds_directive(other.kind) && other.func.text == d.func.text && !other.names.empty() &&
        other.names[0].text == x)
      ++count;
  if (count > 1)
    reject(prog, d, fmt::format("'{}': dimension '{}' of '{}' has more than one bounds directive (§2.8: the "
                                "region of a dimension is chosen at most once)",
                                directive_name(d.kind), x, f->name.text));
}

// What one directive does to the compute hole of one stage: the loops' new min and len
// (over the hole's own min and len) and the assertion that the demand fits (none when the
// region only ever grows).
struct Pinning {
  std::function<Expr(const Expr& hole_min, const Expr& hole_len)> min, len, fits;
};

HoleLabel cpu_hole(const HoleLabel& like, bool is_len) {
  HoleLabel h = like;
  h.is_len = is_len;
  return h;
}

// The rewrite shared by the three directives: in every stage label `f.s<i>`, each compute
// hole tuple of f along x that the stage uses is replaced by the pinning, and the stage
// starts with the pinning's assertion for it.
class PinStages : public StmtMutator {
 public:
  PinStages(const std::string& f, const std::string& x, const Pinning& p, SourceLoc at)
      : f_(f), x_(x), pin_(p), at_(at) {}
  int pinned = 0;

 protected:
  Stmt mutate_label(const Stmt& s) override {
    const auto& l = as<LabelStmt>(s);
    if (l.label.rfind(f_ + ".s", 0) != 0) return StmtMutator::mutate_label(s);
    std::set<HoleLabel> mins = holes_of(l.body);
    if (mins.empty()) return s;
    HoleFilling g;
    std::vector<Stmt> seq;
    for (const HoleLabel& h : mins) {
      Expr hmin = make_hole(cpu_hole(h, false), at_), hlen = make_hole(cpu_hole(h, true), at_);
      g[cpu_hole(h, false)] = pin_.min(hmin, hlen);
      g[cpu_hole(h, true)] = pin_.len(hmin, hlen);
      if (pin_.fits) seq.push_back(make_assert(pin_.fits(hmin, hlen), at_));
      ++pinned;
    }
    seq.push_back(fill_holes(l.body, g));
    return make_label(l.label, make_seq(std::move(seq), l.loc), l.loc);
  }

 private:
  // The cpu hole tuples of f along x used in `s`, each named by its min hole.
  std::set<HoleLabel> holes_of(const Stmt& s) const {
    struct Finder : StmtVisitor {
      const PinStages* self;
      std::set<HoleLabel> found;
      void visit_expr(const Expr& e) override {
        struct Holes : ExprVisitor {
          Finder* finder;
          void visit_hole(const HoleNode& n) override {
            const HoleLabel& h = n.label;
            if (h.kind == HoleKind::Cpu && h.func == finder->self->f_ && h.var == finder->self->x_)
              finder->found.insert(cpu_hole(h, false));
          }
        } holes;
        holes.finder = this;
        holes.visit(e);
      }
    } finder;
    finder.self = this;
    finder.visit(s);
    return finder.found;
  }

  std::string f_, x_;
  const Pinning& pin_;
  SourceLoc at_;
};

TgtProgram pin(const TgtProgram& t, const Directive& d, const Program& prog, const Pinning& p,
               const std::vector<Expr>& startup_checks) {
  PinStages m(d.func.text, d.names[0].text, p, d.loc);
  Stmt body = m.mutate(t.body);
  if (m.pinned == 0)
    reject(prog, d, fmt::format("'{}': no loop of '{}' ranges over dimension '{}' any more (it is computed by "
                                "update stages over reduction variables only), so there is no region to choose",
                                directive_name(d.kind), d.func.text, d.names[0].text));
  TgtProgram out = t;
  out.body = with_startup_checks(startup_checks, body, d.loc);
  return out;
}

void collect(std::vector<Expr>& checks, std::optional<Expr> c) {
  if (c) checks.push_back(std::move(*c));
}

}  // namespace

// bound(f, x, m, l) SEMANTICS.md: f is computed on exactly (m, l) along x, and the demand
// is asserted to fit. An empty demand fits any region.
TgtProgram apply_bound(const TgtProgram& t, const Directive& d, const Program& prog) {
  check_dimension(d, prog);
  if (d.exprs.size() < 2) reject(prog, d, "'bound' needs a minimum and a length");
  Expr m = d.exprs[0], l = d.exprs[1];
  SourceLoc at = d.loc;
  std::vector<Expr> checks;
  collect(checks, startup_check(l, Op::Ge, prog, d, "the length"));
  Pinning p{
      [m](const Expr&, const Expr&) { return m; },
      [l](const Expr&, const Expr&) { return l; },
      [m, l, at](const Expr& hmin, const Expr& hlen) {
        Expr end = simplify(op(Op::Add, m, l, at));  // `8`, not `0 + 8`, for a constant bound
        Expr inside = op(Op::And, op(Op::Le, m, hmin, at), op(Op::Le, op(Op::Add, hmin, hlen, at), end, at), at);
        return op(Op::Or, op(Op::Le, hlen, make_const(Value(0), at), at), inside, at);
      }};
  return pin(t, d, prog, p, checks);
}

// bound_extent(f, x, l) SEMANTICS.md: the length is exactly l, the minimum is inferred
// (the demand's), and the demand's length is asserted to fit.
TgtProgram apply_bound_extent(const TgtProgram& t, const Directive& d, const Program& prog) {
  check_dimension(d, prog);
  if (d.exprs.empty()) reject(prog, d, "'bound_extent' needs a length");
  Expr l = d.exprs[0];
  SourceLoc at = d.loc;
  std::vector<Expr> checks;
  collect(checks, startup_check(l, Op::Ge, prog, d, "the length"));
  Pinning p{
      [](const Expr& hmin, const Expr&) { return hmin; },
      [l](const Expr&, const Expr&) { return l; },
      [l, at](const Expr&, const Expr& hlen) { return op(Op::Le, hlen, l, at); }};
  return pin(t, d, prog, p, checks);
}

// align_bounds(f, x, k, r) SEMANTICS.md: the region is widened so that its minimum is r
// modulo k and its length a multiple of k. With Euclidean modulo (values.md) the new
// minimum ?min - (?min - r) mod k is at most ?min, and the new end is at least the old.
TgtProgram apply_align_bounds(const TgtProgram& t, const Directive& d, const Program& prog) {
  check_dimension(d, prog);
  if (d.exprs.size() < 2) reject(prog, d, "'align_bounds' needs a modulus and a remainder");
  Expr k = d.exprs[0], r = d.exprs[1];
  SourceLoc at = d.loc;
  std::vector<Expr> checks;
  collect(checks, startup_check(k, Op::Gt, prog, d, "the modulus"));
  auto aligned_min = [k, r, at](const Expr& hmin) {
    return op(Op::Sub, hmin, op(Op::Mod, op(Op::Sub, hmin, r, at), k, at), at);
  };
  Pinning p{
      [aligned_min](const Expr& hmin, const Expr&) { return aligned_min(hmin); },
      [aligned_min, k, at](const Expr& hmin, const Expr& hlen) {
        // ((?min + ?len - new_min + k - 1) / k) * k
        Expr span = op(Op::Sub, op(Op::Add, hmin, hlen, at), aligned_min(hmin), at);
        Expr tiles = op(Op::Div, op(Op::Sub, op(Op::Add, span, k, at), make_const(Value(1), at), at), k, at);
        return op(Op::Mul, tiles, k, at);
      },
      nullptr};  // any demand fits a widened region
  return pin(t, d, prog, p, checks);
}

}  // namespace halo

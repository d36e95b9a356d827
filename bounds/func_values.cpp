// β1's value bounds of funcs: see func_values.hpp.
#include "bounds/func_values.hpp"

#include "bounds/simplify.hpp"
#include "semantics/printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace halo {

namespace {

constexpr int64_t kMaxRepeats = 16;    // pointwise executions iterated exactly
constexpr int kMaxRounds = 4;          // rounds towards a fixpoint before widening
constexpr size_t kMaxBoundChars = 4000;  // a bound larger than this is given up: [-∞, ∞]


bool same(const SymInterval& a, const SymInterval& b) { return a.to_string() == b.to_string(); }

// The sides of `next` that moved since `last` become unknown.
SymInterval widen(const SymInterval& last, const SymInterval& next) {
  Expr lo = next.lo(), hi = next.hi();
  auto text = [](const Expr& e) { return e ? print_expr(e) : std::string("∞"); };
  if (!last.lo() || text(last.lo()) != text(lo)) lo = nullptr;
  if (!last.hi() || text(last.hi()) != text(hi)) hi = nullptr;
  return SymInterval::half(lo, hi);
}

// x of a loop variable <f, j, s, x>, or the name itself.
std::string dimension_of(const std::string& var) {
  if (var.empty() || var.front() != '<' || var.back() != '>') return var;
  size_t comma = var.rfind(", ");
  return comma == std::string::npos ? var : var.substr(comma + 2, var.size() - comma - 3);
}

std::vector<SymInterval> anywhere(size_t n) { return std::vector<SymInterval>(n, SymInterval::everything()); }

bool is_anywhere(const std::vector<SymInterval>& args) {
  return std::all_of(args.begin(), args.end(), [](const SymInterval& a) { return a.unbounded && !a.lower && !a.upper; });
}

}  // namespace

FuncValueBounds::FuncValueBounds(const TgtProgram& t, const IntervalRules& rules) : rules_(rules) {
  rules_.func_values = this;
  params_.insert(t.params.begin(), t.params.end());
  for (auto& g : t.geometry_vars()) params_.insert(std::move(g));
  struct Loop {
    const ForStmt* loop;
    std::optional<SymInterval> range;  // when it has no hole
  };
  struct Collect : StmtVisitor {
    std::vector<Loop> loops;
    std::map<std::string, Func>& funcs;
    IntervalRules plain;  // bounds of loop lengths, the parameters unbounded
    std::set<std::string> params;
    explicit Collect(std::map<std::string, Func>& f) : funcs(f) {}
    void visit_for(const ForStmt& s) override {
      Loop l{&s, std::nullopt};
      if (!vars_of(s.min).holes && !vars_of(s.len).holes) l.range = SymInterval{s.min, s.len, false, nullptr, nullptr};
      loops.push_back(l);
      visit(s.body);
      loops.pop_back();
    }
    // How often a store may run at one point: the product of its stage's hole-free loop
    // lengths (its rdom loops; an inner split of a pure loop counts too, which only
    // overestimates), by the largest value each length takes for any parameter.
    int64_t repeats(const StoreStmt& s) const {
      int64_t n = 1;
      for (const Loop& l : loops) {
        if (l.loop->func != s.func || l.loop->stage != s.label.stage || !l.range) continue;
        IntervalEnv env;
        env.rules = &plain;
        for (const std::string& p : params) env.vars[p] = SymInterval::everything();
        Expr hi = interval_of(l.loop->len, env).hi();
        Expr c = hi ? simplify(hi) : nullptr;
        std::optional<int64_t> len = c && c->kind == ExprKind::Const ? as<ConstNode>(c).value.as_int64() : std::nullopt;
        if (!len || *len > kMaxRepeats) return -1;
        if (*len <= 0) return 0;
        n *= *len;
        if (n > kMaxRepeats) return -1;
      }
      return n;
    }
    void visit_store(const StoreStmt& s) override {
      Func& f = funcs[s.func];
      size_t stage = size_t(std::max<int64_t>(s.label.stage, 0));
      if (f.stages.size() <= stage) f.stages.resize(stage + 1);
      Site site;
      site.coords = s.args;
      site.value = s.value;
      for (const Loop& l : loops)
        if (l.range) {
          site.ranges[l.loop->var] = *l.range;
          site.ranges[l.loop->binder()] = *l.range;
        }
      site.repeats = repeats(s);
      if (stage == 0 && f.pure_vars.empty()) {
        bool plain_vars = std::all_of(s.args.begin(), s.args.end(), [](const Expr& a) { return a->kind == ExprKind::Var; });
        if (plain_vars)
          for (const Expr& a : s.args) f.pure_vars.push_back(dimension_of(as<VarNode>(a).name));
      }
      f.stages[stage].push_back(std::move(site));
    }
  } c(funcs_);
  c.plain.half_bounded = true;
  c.params = params_;
  c.visit(t.body);
  for (auto& [name, f] : funcs_)
    for (auto& stage : f.stages)
      for (Site& s : stage) {
        // Each stage's loops have names of their own (<f, j, s, x>): the dimension counts.
        s.pointwise = !f.pure_vars.empty() && s.coords.size() == f.pure_vars.size();
        for (size_t i = 0; s.pointwise && i < s.coords.size(); ++i)
          s.pointwise = s.coords[i]->kind == ExprKind::Var && dimension_of(as<VarNode>(s.coords[i]).name) == f.pure_vars[i];
        if (s.pointwise)
          for (const Expr& c : s.coords) s.point_vars.push_back(as<VarNode>(c).name);
      }
}

SymInterval FuncValueBounds::of_read(const CallNode& read, const IntervalEnv& env) const {
  auto it = funcs_.find(read.func);
  if (it == funcs_.end() || it->second.stages.empty()) return SymInterval::everything();
  const Func& f = it->second;
  bool by_point = f.pure_vars.size() == read.args.size();
  if (auto self = self_.find(read.func); self != self_.end()) {
    // A read of f inside a stage of f being bounded: at the point the stage writes, or
    // anywhere.
    const std::vector<std::string>& point = self->second.point_vars;
    bool at_point = point.size() == read.args.size();
    for (size_t i = 0; at_point && i < read.args.size(); ++i)
      at_point = read.args[i]->kind == ExprKind::Var && as<VarNode>(read.args[i]).name == point[i];
    return at_point ? self->second.at_point : self->second.anywhere;
  }
  std::vector<SymInterval> args = anywhere(f.pure_vars.size());
  if (by_point)
    for (size_t i = 0; i < read.args.size(); ++i) args[i] = interval_of(read.args[i], env);
  return through(read.func, f.stages.size() - 1, args);
}

SymInterval FuncValueBounds::site_value(const std::string& f, const Site& s, const std::vector<SymInterval>& args,
                                        const SymInterval& at_point, const SymInterval& elsewhere) const {
  ExprVars free = vars_of(s.value);
  IntervalEnv env;
  env.rules = &rules_;
  for (const std::string& v : free.vars) {
    if (params_.count(v)) continue;  // symbolic
    auto pure = std::find(s.point_vars.begin(), s.point_vars.end(), v);
    if (pure != s.point_vars.end()) env.vars[v] = args[size_t(pure - s.point_vars.begin())];
    else if (auto r = s.ranges.find(v); r != s.ranges.end()) env.vars[v] = r->second;
    else env.vars[v] = SymInterval::everything();
  }
  auto saved = self_.find(f) == self_.end() ? std::nullopt : std::optional<SelfRead>(self_.at(f));
  self_[f] = s.pointwise ? SelfRead{at_point, elsewhere, s.point_vars} : SelfRead{elsewhere, elsewhere, {}};
  SymInterval v = interval_of(s.value, env);
  if (saved) self_[f] = *saved;
  else self_.erase(f);
  return v;
}

SymInterval FuncValueBounds::through(const std::string& f, size_t stage, const std::vector<SymInterval>& args) const {
  std::string key = fmt::format("{}#{}", f, stage);
  for (const SymInterval& a : args) key += "#" + a.to_string();
  if (auto m = memo_.find(key); m != memo_.end()) return m->second;
  if (busy_.count(key)) return SymInterval::everything();
  busy_.insert(key);
  const Func& fn = funcs_.at(f);
  const std::vector<Site>& sites = fn.stages[stage];
  SymInterval v = SymInterval::everything();
  if (stage == 0) {
    std::optional<SymInterval> all;
    for (const Site& s : sites) {
      SymInterval i = site_value(f, s, args, SymInterval::everything(), SymInterval::everything());
      all = all ? hull_half(*all, i) : i;
    }
    if (all) v = *all;
  } else {
    v = through(f, stage - 1, args);
    bool global = is_anywhere(args);
    SymInterval elsewhere = global ? v : through(f, stage, anywhere(args.size()));
    // Rounds: the pointwise executions at the point, when they are few and known;
    // otherwise towards a fixpoint, widened if it is not reached.
    int64_t executions = 0;
    for (const Site& s : sites)
      if (s.pointwise) executions = s.repeats < 0 || executions < 0 ? -1 : executions + s.repeats;
    bool exact = !global && executions >= 0 && executions <= kMaxRepeats;
    int rounds = exact ? int(std::max<int64_t>(executions, 1)) : kMaxRounds;
    auto step = [&](const SymInterval& cur) {
      SymInterval next = cur;
      for (const Site& s : sites)
        next = hull_half(next, site_value(f, s, s.pointwise ? args : anywhere(args.size()), cur, global ? cur : elsewhere));
      return next;
    };
    bool stable = false;
    for (int k = 0; k < rounds && !stable; ++k) {
      SymInterval next = step(v);
      stable = same(next, v);
      if (!stable && !exact && k + 1 == rounds) next = widen(v, next);
      v = next;
    }
    // A widened bound is kept only where one more round stays inside it.
    if (!stable && !exact && !same(step(v), v)) v = SymInterval::everything();
  }
  if (v.to_string().size() > kMaxBoundChars) v = SymInterval::everything();
  busy_.erase(key);
  memo_[key] = v;
  return v;
}

}  // namespace halo

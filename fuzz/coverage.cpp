// Coverage of directives, language features and outcomes: see coverage.hpp.
#include "fuzz/coverage.hpp"

#include "bounds/simplify.hpp"
#include "fuzz/program_gen.hpp"
#include "schedule/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace halo::fuzz {

namespace {

// What one expression tree contains.
struct ExprFeatures : ExprVisitor {
  const std::vector<Name>* params = nullptr;
  bool div_mod = false, div_mod_by_zero = false, big_constant = false, mentions_param = false;
  bool clamped_data_index = false;
  void visit_const(const ConstNode& n) override { big_constant |= !n.value.is_small() && n.value.is_int(); }
  void visit_var(const VarNode& n) override {
    if (params)
      for (const Name& p : *params) mentions_param |= p.text == n.name;
  }
  void visit_call(const CallNode& n) override {
    for (const Expr& a : n.args) clamped_data_index |= is_clamped_read(a);
    ExprVisitor::visit_call(n);
  }
  void visit_op(const OpNode& n) override {
    if (n.op == Op::Div || n.op == Op::Mod) {
      div_mod = true;
      const Expr& d = n.args[1];
      if (d->kind == ExprKind::Const) {
        const Value& v = as<ConstNode>(d).value;
        div_mod_by_zero |= v.is_small() && v.small() == 0;
      }
    }
    ExprVisitor::visit_op(n);
  }
  // min(max(e, lo), hi) with a func read inside e: a data-dependent index kept in range.
  static bool is_clamped_read(const Expr& e) {
    if (e->kind != ExprKind::Op) return false;
    const auto& mn = as<OpNode>(e);
    if (mn.op != Op::Min || mn.args[0]->kind != ExprKind::Op) return false;
    const auto& mx = as<OpNode>(mn.args[0]);
    if (mx.op != Op::Max) return false;
    struct HasCall : ExprVisitor {
      bool found = false;
      void visit_call(const CallNode&) override { found = true; }
    } h;
    h.visit(mx.args[0]);
    return h.found;
  }
};

std::optional<Value> value_under(const Expr& e, const Program& prog) {
  if (!prog.realize) return std::nullopt;
  Substitution s;
  for (const ParamBinding& b : prog.realize->params) s.bindings.emplace_back(b.name.text, b.value);
  return const_value(simplify(substitute(e, s)));
}

}  // namespace

const std::vector<std::string>& directive_coverage_names() {
  static const std::vector<std::string> names = {
      "specialize",       "split.guard",      "split.shift",         "split.round",       "split.startup_factor",
      "split.reduction_loop",
      "fuse",             "swap",             "traverse.serial",     "traverse.parallel", "traverse.vectorized",
      "traverse.unrolled", "compute_at",      "compute_at.nested",   "store_at",          "store_at.above_compute",
      "bound",            "bound_extent",     "align_bounds"};
  return names;
}

const std::vector<std::string>& feature_coverage_names() {
  static const std::vector<std::string> names = {
      "params",          "func_0d",           "func_2d",           "update",
      "updates_2plus",   "rdom",              "rdom_2d",           "rdom_startup_bounds",
      "update_without_rdom", "predicate",     "scatter",           "self_reference",
      "reduction_over_other_func", "clamped_data_dependent_index", "div_mod", "div_mod_by_zero",
      "big_constant",    "negative_rdom_extent", "zero_rdom_extent", "empty_window"};
  return names;
}

std::vector<std::string> directives_in(const Program& prog) {
  std::set<std::string> out;
  if (!prog.schedule) return {};
  std::map<std::string, std::string> compute_loop;  // func → loop it is computed at
  // Reduction loop names per <func, spec, stage>: the rdom's, and what splits and fuses of
  // them introduce (Def. 2.16).
  std::set<std::string> reduction;  // "func/spec/stage/var"
  auto key = [](const LoopName& l, const std::string& var) {
    return fmt::format("{}/{}/{}/{}", l.func.text, l.spec, l.stage, var);
  };
  auto is_reduction = [&](const LoopName& l) {
    const FuncDef* f = prog.pipeline.find(l.func.text);
    if (f && l.stage >= 1 && size_t(l.stage) <= f->updates.size())
      for (const RVar& r : f->updates[size_t(l.stage) - 1].rdom)
        if (r.name.text == l.var.text) return true;
    return reduction.count(key(l, l.var.text)) > 0;
  };
  for (const Directive& d : *prog.schedule) {
    if ((d.kind == DirectiveKind::Split || d.kind == DirectiveKind::Fuse) && is_reduction(d.loop))
      for (const Name& n : d.names) reduction.insert(key(d.loop, n.text));
    switch (d.kind) {
      case DirectiveKind::Split:
        if (is_reduction(d.loop)) out.insert("split.reduction_loop");
        out.insert(std::string("split.") + tail_name(d.tail));
        if (!d.exprs.empty() && d.exprs[0]->kind != ExprKind::Const) out.insert("split.startup_factor");
        break;
      case DirectiveKind::Traverse: out.insert(std::string("traverse.") + traversal_name(d.order)); break;
      case DirectiveKind::ComputeAt:
        out.insert("compute_at");
        compute_loop[d.func.text] = d.loop.func.text + "." + d.loop.var.text;
        break;
      case DirectiveKind::StoreAt: {
        out.insert("store_at");
        auto it = compute_loop.find(d.func.text);
        if (it == compute_loop.end() || it->second != d.loop.func.text + "." + d.loop.var.text)
          out.insert("store_at.above_compute");
        break;
      }
      default: out.insert(directive_name(d.kind));
    }
  }
  // A func computed inside a loop of a func that is itself computed inside another loop.
  for (const auto& [f, loop] : compute_loop)
    if (compute_loop.count(loop.substr(0, loop.find('.')))) out.insert("compute_at.nested");
  return {out.begin(), out.end()};
}

const std::vector<std::string>& combination_coverage_names() {
  static const std::vector<std::string> names = {
      "compute_at.split_variable", "store_above_compute", "sliding_window", "split.predicating_tail",
      "vectorize.split_variable", "rfactor",          "fold_storage",     "async",
      "compute_with",             "hoist_storage",    "hoist_storage_root", "atomic",
      "prefetch",                 "memoize",          "store_in",         "fuse.non_adjacent",
      "compute_with.update",      "implicit_pure",    "atomic.vectorized_reduction",
      "reorder_storage",          "align_storage",    "bound_storage",    "align_extent",
      "ring_buffer",              "partition",        "specialize_fail",  "in",               "clone_in",
      "update.at_r",
      // A schedule chosen by one of Halide's autoschedulers (--weight autoscheduler=N).
      "autoscheduler.Mullapudi2016", "autoscheduler.Li2018", "autoscheduler.Adams2019", "autoscheduler.Anderson2021"};
  return names;
}

std::vector<std::string> combinations_in(const Program& prog) {
  std::set<std::string> out;
  if (prog.schedule_mode == ScheduleMode::Autoscheduler) return {"autoscheduler." + prog.autoscheduler};
  for (const FuncDef& f : prog.pipeline.funcs) {
    if (f.implicit_pure) out.insert("implicit_pure");
    // An update that writes at a reduction variable (f(r, y) = ...): a scatter over the rdom.
    for (const UpdateStage& u : f.updates)
      for (const Expr& a : u.lhs)
        if (a->kind == ExprKind::Var &&
            std::any_of(u.rdom.begin(), u.rdom.end(), [&](const RVar& r) { return r.name.text == as<VarNode>(a).name; }))
          out.insert("update.at_r");
  }
  if (!prog.schedule) return {out.begin(), out.end()};
  std::set<std::string> split_vars;  // "func/var" a split made
  std::set<std::string> atomic, vectorized_reduction;  // "func/spec/stage"
  std::map<std::string, std::string> compute_at, store_at;  // func → "consumer/var"
  for (const Directive& d : *prog.schedule) {
    std::string at = d.loop.func.text + "/" + d.loop.var.text;
    if (d.halide_implicit) out.insert("fuse.non_adjacent");
    if (d.kind == DirectiveKind::ComputeWith && (d.loop.stage > 0 || d.with.stage > 0)) out.insert("compute_with.update");
    if (d.kind == DirectiveKind::Atomic) atomic.insert(fmt::format("{}/{}/{}", d.loop.func.text, d.loop.spec, d.loop.stage));
    if (d.kind == DirectiveKind::Traverse && d.order == Traversal::Vectorized && d.loop.stage > 0)
      if (const FuncDef* f = prog.pipeline.find(d.loop.func.text); f && size_t(d.loop.stage) <= f->updates.size())
        for (const RVar& r : f->updates[size_t(d.loop.stage) - 1].rdom)
          if (r.name.text == d.loop.var.text)
            vectorized_reduction.insert(fmt::format("{}/{}/{}", d.loop.func.text, d.loop.spec, d.loop.stage));
    switch (d.kind) {
      case DirectiveKind::Split:
        for (const Name& n : d.names) split_vars.insert(d.loop.func.text + "/" + n.text);
        if (is_predicating(d.tail)) out.insert("split.predicating_tail");
        break;
      case DirectiveKind::Traverse:
        if (d.order == Traversal::Vectorized && split_vars.count(at)) out.insert("vectorize.split_variable");
        break;
      case DirectiveKind::ComputeAt: compute_at[d.func.text] = at; break;
      case DirectiveKind::StoreAt: store_at[d.func.text] = at; break;
      case DirectiveKind::ComputeInline: out.insert("compute_inline"); break;
      default:
        // Each of Halide's own directives is a combination of its own, but the markers that
        // change no code (unscheduled) or only what a traversal may do (allow_race_conditions).
        if (is_halide_only(d.kind) && d.kind != DirectiveKind::Unscheduled &&
            d.kind != DirectiveKind::AllowRaceConditions)
          out.insert(directive_name(d.kind));
        break;
    }
  }
  for (const std::string& s : vectorized_reduction)
    if (atomic.count(s)) out.insert("atomic.vectorized_reduction");
  for (const auto& [f, at] : compute_at) {
    bool in_split = split_vars.count(at) > 0;
    auto st = store_at.find(f);
    bool above = st == store_at.end() || st->second != at;  // no store_at: stored at root
    if (in_split) out.insert("compute_at.split_variable");
    if (above) out.insert("store_above_compute");
    if (in_split && above) out.insert("sliding_window");
  }
  return {out.begin(), out.end()};
}

std::vector<std::string> features_in(const Program& prog) {
  std::set<std::string> out;
  const Pipeline& p = prog.pipeline;
  if (!p.params.empty()) out.insert("params");
  for (const FuncDef& f : p.funcs) {
    if (f.vars.empty()) out.insert("func_0d");
    if (f.vars.size() >= 2) out.insert("func_2d");
    if (!f.updates.empty()) out.insert("update");
    if (f.updates.size() >= 2) out.insert("updates_2plus");
    ExprFeatures all;
    all.params = &p.params;
    all.visit(f.pure);
    for (const UpdateStage& u : f.updates) {
      if (u.rdom.empty()) out.insert("update_without_rdom");
      if (!u.rdom.empty()) out.insert("rdom");
      if (u.rdom.size() >= 2) out.insert("rdom_2d");
      if (u.predicate) out.insert("predicate");
      for (size_t j = 0; j < u.lhs.size() && j < f.vars.size(); ++j)
        if (!(u.lhs[j]->kind == ExprKind::Var && as<VarNode>(u.lhs[j]).name == f.vars[j].text)) out.insert("scatter");
      for (const RVar& r : u.rdom) {
        ExprFeatures b;
        b.params = &p.params;
        b.visit(r.min);
        b.visit(r.len);
        if (b.mentions_param) out.insert("rdom_startup_bounds");
        if (auto len = value_under(r.len, prog); len && len->is_int()) {
          if (len->sign() < 0) out.insert("negative_rdom_extent");
          if (len->sign() == 0) out.insert("zero_rdom_extent");
        }
      }
      std::set<std::string> calls = funcs_read_by_stage(f, size_t(&u - f.updates.data()) + 1);
      if (calls.count(f.name.text)) out.insert("self_reference");
      if (!u.rdom.empty() && std::any_of(calls.begin(), calls.end(), [&](const std::string& c) {
            return c != f.name.text;
          }))
        out.insert("reduction_over_other_func");
      all.visit(u.value);
      for (const Expr& e : u.lhs) all.visit(e);
      if (u.predicate) all.visit(u.predicate);
    }
    if (all.div_mod) out.insert("div_mod");
    if (all.div_mod_by_zero) out.insert("div_mod_by_zero");
    if (all.big_constant) out.insert("big_constant");
    if (all.clamped_data_index) out.insert("clamped_data_dependent_index");
  }
  if (prog.realize)
    for (const Interval& w : prog.realize->window)
      if (w.len.is_small() && w.len.small() == 0) out.insert("empty_window");
  return {out.begin(), out.end()};
}

namespace {
// The value types and the Halide operators (as written: not the typing pass's implicit
// casts) of every expression of the algorithm.
struct TypedParts : ExprVisitor {
  std::set<std::string> types, operators;
  void visit_const(const ConstNode& n) override { types.insert(n.type.to_string()); }
  void visit_var(const VarNode& n) override { types.insert(n.type.to_string()); }
  void visit_call(const CallNode& n) override {
    types.insert(n.type.to_string());
    ExprVisitor::visit_call(n);
  }
  void visit_op(const OpNode& n) override {
    types.insert(n.type.to_string());
    if (n.sugar != OpSugar::ImplicitCast && is_halide_op(n.op)) operators.insert(n.op == Op::Cast ? "cast" : op_name(n.op));
    ExprVisitor::visit_op(n);
  }

  explicit TypedParts(const Program& prog) {
    if (!prog.pipeline.typed) return;
    for (const FuncDef& f : prog.pipeline.funcs) {
      visit(f.pure);
      for (const UpdateStage& u : f.updates) {
        for (const RVar& r : u.rdom) visit(r.min), visit(r.len);
        for (const Expr& a : u.lhs) visit(a);
        visit(u.value);
        if (u.predicate) visit(u.predicate);
      }
    }
  }
};
}  // namespace

std::vector<std::string> types_in(const Program& prog) {
  TypedParts p(prog);
  return {p.types.begin(), p.types.end()};
}

std::vector<std::string> halide_operators_in(const Program& prog) {
  TypedParts p(prog);
  return {p.operators.begin(), p.operators.end()};
}

void Coverage::add_program(const Program& prog) {
  for (const std::string& n : directives_in(prog)) ++directives[n];
  for (const std::string& n : features_in(prog)) ++features[n];
  for (const std::string& n : types_in(prog)) ++types[n];
  for (const std::string& n : halide_operators_in(prog)) ++operators[n];
}

void Coverage::add_outcomes(const std::vector<std::string>& tags) {
  for (const std::string& t : tags)
    if (t != kRanTag) ++outcomes[t];
}

void Coverage::add_case(const Program& prog, const std::vector<std::string>& outcome_tags) {
  add_program(prog);
  add_outcomes(outcome_tags);
  bool ran = std::find(outcome_tags.begin(), outcome_tags.end(), kRanTag) != outcome_tags.end();
  for (const std::string& c : combinations_in(prog)) {
    ++combinations[c].cases;
    combinations[c].ran += ran;
  }
}

std::vector<std::string> Coverage::not_reached() const {
  std::vector<std::string> out;
  for (const std::string& n : directive_coverage_names())
    if (!directives.count(n)) out.push_back(n);
  for (const std::string& n : feature_coverage_names())
    if (!features.count(n)) out.push_back(n);
  return out;
}

nlohmann::json Coverage::to_json() const {
  auto table = [](const std::vector<std::string>& names, const std::map<std::string, uint64_t>& counts) {
    nlohmann::json j = nlohmann::json::object();
    size_t reached = 0;
    for (const std::string& n : names) {
      auto it = counts.find(n);
      j[n] = it == counts.end() ? 0 : it->second;
      reached += it != counts.end();
    }
    return std::pair{j, fmt::format("{}/{}", reached, names.size())};
  };
  auto [d, dr] = table(directive_coverage_names(), directives);
  auto [f, fr] = table(feature_coverage_names(), features);
  nlohmann::json o = nlohmann::json::object();
  for (const auto& [k, v] : outcomes) o[k] = v;
  nlohmann::json c = nlohmann::json::object();
  for (const std::string& n : combination_coverage_names()) {
    auto it = combinations.find(n);
    c[n] = {{"cases", it == combinations.end() ? 0 : it->second.cases},
            {"ran", it == combinations.end() ? 0 : it->second.ran}};
  }
  return {{"directives", d},          {"features", f},           {"outcomes", o},
          {"directives_reached", dr}, {"features_reached", fr}, {"not_reached", not_reached()},
          {"combinations", c},        {"types", types},          {"operators", operators}};
}

void Coverage::add_json(const nlohmann::json& j) {
  // to_json lists every name, reached or not: a zero stays unreached here too.
  auto add = [&](const char* key, std::map<std::string, uint64_t>& counts) {
    if (!j.contains(key) || !j[key].is_object()) return;
    for (const auto& [name, v] : j[key].items())
      if (v.is_number_unsigned() && v.get<uint64_t>() > 0) counts[name] += v.get<uint64_t>();
  };
  add("directives", directives);
  add("features", features);
  add("outcomes", outcomes);
  add("types", types);
  add("operators", operators);
  if (j.contains("combinations") && j["combinations"].is_object())
    for (const auto& [name, v] : j["combinations"].items()) {
      uint64_t cases = v.value("cases", uint64_t(0)), ran = v.value("ran", uint64_t(0));
      if (cases == 0) continue;
      combinations[name].cases += cases;
      combinations[name].ran += ran;
    }
}

}  // namespace halo::fuzz

// Halide's scheduling vocabulary expanded into fig. 2.11's directives (schedule_vocabulary.hpp).
#include "semantics/schedule_vocabulary.hpp"

#include "support/command_budget.hpp"
#include "semantics/printer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace halo {

namespace {

struct WordInfo {
  std::string_view word, usage, expansion;
};

const std::vector<WordInfo>& word_table() {
  static const std::vector<WordInfo> table = {
      {"tile", "tile(f, x, y, xo, yo, xi, yi, fx, fy[, tail]) or tile(f, x, y, xi, yi, fx, fy[, tail])",
       "split(<f, j, i, x>, xo, xi, fx, tail); split(<f, j, i, y>, yo, yi, fy, tail); swaps until the loops are xi, "
       "yi, xo, yo, innermost first (the 4-name form: the outer loops keep the names x, y, which halo reads as "
       "fresh loops x_o, y_o)"},
      {"reorder", "reorder(f, v1, v2, ...)",
       "swaps of neighbouring loops until v1, v2, ... stand in that order, v1 innermost, in the places they held"},
      {"vectorize", "vectorize(f, x[, n[, tail]])",
       "traverse(<f, j, i, x>, vectorized); with n: split(<f, j, i, x>, x_o, x_v, n, tail); traverse(<f, j, i, x_v>, "
       "vectorized)"},
      {"unroll", "unroll(f, x[, n[, tail]])",
       "traverse(<f, j, i, x>, unrolled); with n: split(<f, j, i, x>, x_o, x_u, n, tail); traverse(<f, j, i, x_u>, "
       "unrolled)"},
      {"parallel", "parallel(f, x[, n[, tail]])",
       "traverse(<f, j, i, x>, parallel); with n: split(<f, j, i, x>, x_o, x_p, n, tail); traverse(<f, j, i, x_o>, "
       "parallel), the outer loop keeping the name x"},
      {"fuse", "fuse(f, inner, outer, fused) (Halide's form; fuse(<f, j, i, v>, t) fuses v with the loop just inside it)",
       "swaps that move outer next to inner (just outside it), as Halide's fuse moves it, then fuse(<f, j, i, outer>, "
       "fused); the swaps are Halide's fuse's own, so the Halide translation runs the one fuse call"},
      {"compute_root", "compute_root(f)",
       "nothing: L(P) computes and stores every func at the root unless compute_at and store_at place it"},
      {"store_root", "store_root(f)",
       "nothing: a func's storage stays at the root unless store_at places it (compute_at moves only the "
       "computation)"},
  };
  return table;
}

const WordInfo* word_info(std::string_view w) {
  for (const auto& i : word_table())
    if (i.word == w) return &i;
  return nullptr;
}

using StageKey = std::tuple<std::string, int64_t, int64_t>;  // <f, j, i>

[[noreturn]] void fail(const std::string& file, SourceLoc loc, std::string message) {
  throw InputError(Diagnostic{file, loc, std::move(message)});
}

// The loops of every stage as the schedule so far leaves them, outermost first.
class LoopModel {
 public:
  explicit LoopModel(const Pipeline& p) : p_(p) {}

  void count_specializations(const std::vector<ScheduleItem>& items) {
    for (const auto& it : items)
      if (const auto* d = std::get_if<Directive>(&it); d && d->kind == DirectiveKind::Specialize)
        specs_[d->func.text] = int64_t(d->exprs.size());
  }

  // The loops of <f, j, i>; null when the stage does not exist.
  std::vector<std::string>* loops(const std::string& f, int64_t spec, int64_t stage) {
    const FuncDef* fd = p_.find(f);
    if (!fd || stage < 0 || size_t(stage) >= fd->stage_count() || spec < 0 || spec > specializations(f))
      return nullptr;
    StageKey k{f, spec, stage};
    auto it = loops_.find(k);
    if (it == loops_.end()) it = loops_.emplace(k, initial_loop_names(*fd, size_t(stage))).first;
    return &it->second;
  }

  int64_t specializations(const std::string& f) const {
    auto it = specs_.find(f);
    return it == specs_.end() ? 0 : it->second;
  }

  // A loop directive as written changes the model; one naming a loop the model does not
  // have is left to the scheduler, which reports it.
  void apply(const Directive& d) {
    if (d.kind != DirectiveKind::Split && d.kind != DirectiveKind::Fuse && d.kind != DirectiveKind::Swap) return;
    if (d.loop.spec == LoopName::kEverySpec) return;
    auto* ls = loops(d.loop.func.text, d.loop.spec, d.loop.stage);
    if (!ls) return;
    auto at = std::find(ls->begin(), ls->end(), d.loop.var.text);
    if (at == ls->end()) return;
    if (d.kind == DirectiveKind::Split && d.names.size() >= 2) {
      *at = d.names[1].text;
      ls->insert(at, d.names[0].text);
    } else if (d.kind == DirectiveKind::Fuse && !d.names.empty() && at + 1 != ls->end()) {
      *at = d.names[0].text;
      ls->erase(at + 1);
    } else if (d.kind == DirectiveKind::Swap && at + 1 != ls->end()) {
      std::iter_swap(at, at + 1);
    }
  }

 private:
  const Pipeline& p_;
  std::map<std::string, int64_t> specs_;
  std::map<StageKey, std::vector<std::string>> loops_;
};

class Expander {
 public:
  Expander(const Pipeline& p, const std::string& file, ScheduleMode mode)
      : p_(p), file_(file), model_(p), halide_(mode == ScheduleMode::Halide) {}

  std::vector<Directive> run(const std::vector<ScheduleItem>& items) {
    model_.count_specializations(items);
    std::vector<size_t> placements;  // written compute_at, store_at, ...: loop levels read at the end
    for (const auto& it : items) {
      if (const auto* d = std::get_if<Directive>(&it)) {
        Directive w = *d;
        if (directive_phase(w.kind) == 1) {
          std::string written = w.loop.var.text;
          w.loop.var.text = alias(w.loop, written);
          // Halide's split(x, x, xi, n): the outer loop keeps the name, here a fresh one.
          if (halide_ && w.kind == DirectiveKind::Split && w.names.size() == 2 && w.names[0].text == written &&
              w.loop.spec != LoopName::kEverySpec && model_.loops(w.loop.func.text, w.loop.spec, w.loop.stage)) {
            w.names[0].text = fresh(w.loop.func, w.loop.spec, w.loop.stage, written + "_o");
            aliases_[StageKey{w.loop.func.text, w.loop.spec, w.loop.stage}][written] = w.names[0].text;
            w.sugar = fmt::format("{} as written, whose outer loop keeps the name {} as in Halide: {} is {} (§2.8.2: "
                                  "a split makes fresh names)",
                                  print_directive(*d), written, written, w.names[0].text);
          }
        } else if (w.kind == DirectiveKind::ComputeAt || w.kind == DirectiveKind::StoreAt ||
                   w.kind == DirectiveKind::HoistStorage || w.kind == DirectiveKind::ComputeWith) {
          placements.push_back(out_.size());
        }
        emit(std::move(w));
      } else {
        expand(std::get<VocabularyCall>(it), items);
      }
    }
    // Halide resolves a LoopLevel after every split: `x` names the loop x's outer part ended
    // as, whichever comes first in the text.
    for (size_t k : placements) {
      Directive& d = out_[k];
      if (d.loop.stage == LoopName::kAnyStage) resolve_loop_level(d);
      d.loop.var.text = alias(d.loop, d.loop.var.text);
      if (d.kind == DirectiveKind::ComputeWith) d.with.var.text = alias(d.with, d.with.var.text);
    }
    if (halide_) add_halide_placements(items);
    std::stable_sort(out_.begin(), out_.end(), [](const Directive& a, const Directive& b) {
      return directive_phase(a.kind) < directive_phase(b.kind);
    });
    return std::move(out_);
  }

 private:
  const Pipeline& p_;
  const std::string& file_;
  LoopModel model_;
  bool halide_;
  std::vector<Directive> out_;
  std::map<StageKey, HalideSplitHistory> history_;
  // The loops that keep the name of the loop they split (tile's 4-name form, vectorize,
  // unroll and parallel with a factor in Halide's mode): the name as written -> halo's loop.
  std::map<StageKey, std::map<std::string, std::string>> aliases_;

  // compute_at(g, f, y) (LoopName::kAnyStage): Halide's LoopLevel(f, y) matches the loop y
  // of any stage of f (Schedule.cpp, LoopLevel::match), and g is realized at the first such
  // loop the lowered statement meets, the earliest stage's; for compute_at in every
  // specialization of f (as an import writes it, docs/import.md).
  void resolve_loop_level(Directive& d) {
    const FuncDef* f = p_.find(d.loop.func.text);
    if (!f) fail(file_, d.loop.loc, fmt::format("{}: there is no func '{}'", directive_name(d.kind), d.loop.func.text));
    std::string written = print_directive(d);
    std::vector<std::string> seen;
    for (size_t s = 0; s < f->stage_count(); ++s) {
      LoopName l{d.loop.func, 0, int64_t(s), d.loop.var, d.loop.loc};
      std::string v = alias(l, d.loop.var.text);
      auto* ls = model_.loops(l.func.text, 0, l.stage);
      if (!ls) continue;
      if (std::find(ls->begin(), ls->end(), v) == ls->end()) {
        for (auto it = ls->rbegin(); it != ls->rend(); ++it) seen.push_back(fmt::format("<{}, 0, {}, {}>", f->name.text, s, *it));
        continue;
      }
      if (d.kind == DirectiveKind::ComputeAt && model_.specializations(l.func.text) > 0) l.spec = LoopName::kEverySpec;
      d.loop = l;
      d.sugar = fmt::format("{} as written: Halide's LoopLevel({}, {}), the loop {} of the first stage of {} that has "
                            "one (stage {})",
                            written, f->name.text, l.var.text, l.var.text, f->name.text, s);
      return;
    }
    fail(file_, d.loop.loc,
         fmt::format("{}: no stage of {} has a loop '{}' (its loops, innermost first: {})", directive_name(d.kind),
                     f->name.text, d.loop.var.text, seen.empty() ? "none" : fmt::format("{}", fmt::join(seen, ", "))));
  }

  std::string alias(const LoopName& l, const std::string& v) const {
    auto st = aliases_.find(StageKey{l.func.text, l.spec, l.stage});
    if (st == aliases_.end()) return v;
    auto a = st->second.find(v);
    return a == st->second.end() ? v : a->second;
  }
  std::string alias(const VocabularyCall& c, int64_t spec, int64_t stage, const std::string& v) const {
    return alias(LoopName{c.func, spec, stage, {}, {}}, v);
  }

  // A name for the loop that keeps the name `v`: fresh in the stage (§2.8.2).
  std::string fresh(const VocabularyCall& c, int64_t spec, int64_t stage, const std::string& base) {
    return fresh(c.func, spec, stage, base);
  }
  std::string fresh(const Name& func, int64_t spec, int64_t stage, const std::string& base) {
    const FuncDef* f = p_.find(func.text);
    auto taken = [&](const std::string& n) {
      for (const Directive& d : out_)
        if (d.loop.func == func &&
            (d.loop.var.text == n || std::any_of(d.names.begin(), d.names.end(), [&](const Name& m) { return m.text == n; })))
          return true;
      for (const Name& x : f->vars)
        if (x.text == n) return true;
      for (const UpdateStage& u : f->updates)
        for (const RVar& r : u.rdom)
          if (r.name.text == n) return true;
      auto* ls = model_.loops(func.text, spec, stage);
      return std::find(ls->begin(), ls->end(), n) != ls->end();
    };
    std::string n = base;
    for (int k = 2; taken(n); ++k) n = base + std::to_string(k);
    return n;
  }

  HalideSplitHistory& history(const LoopName& l) {
    StageKey k{l.func.text, l.spec, l.stage};
    auto it = history_.find(k);
    if (it == history_.end()) it = history_.emplace(k, HalideSplitHistory(*p_.find(l.func.text), size_t(l.stage))).first;
    return it->second;
  }

  void emit(Directive d) {
    tick_command_budget();  // a vocabulary call expands to many directives: --timeout holds
    if (halide_ && d.loop.spec != LoopName::kEverySpec && model_.loops(d.loop.func.text, d.loop.spec, d.loop.stage)) {
      auto* ls = model_.loops(d.loop.func.text, d.loop.spec, d.loop.stage);
      auto at = std::find(ls->begin(), ls->end(), d.loop.var.text);
      if (at != ls->end() && d.kind == DirectiveKind::Split) {
        HalideSplitHistory& h = history(d.loop);
        if (d.tail == TailStrategy::Auto) {
          d.tail_auto = true;
          d.tail = h.resolve_auto(d, d.tail_note);
        }
        if (d.tail == TailStrategy::Round && d.loop.stage > 0 && h.from_inner(d.loop.var.text))
          fail(file_, d.loc,
               fmt::format("split {} with round: Halide refuses RoundUp for a loop that comes from the inner loop of "
                           "an earlier split of an update stage (\"It may redundantly recompute some values, which "
                           "could change the meaning of the algorithm\"); use guard",
                           print_loop_name(d.loop)));
        h.record_split(d);
      } else if (at != ls->end() && d.kind == DirectiveKind::Fuse && at + 1 != ls->end() && !d.names.empty()) {
        history(d.loop).record_fuse(*at, *(at + 1), d.names[0].text);
      }
    }
    model_.apply(d);
    out_.push_back(std::move(d));
  }

  // The stages a call schedules: <f, j, i> as written, or stage 0 of every specialization.
  std::vector<std::pair<int64_t, int64_t>> targets(const VocabularyCall& c) {
    const FuncDef* fd = p_.find(c.func.text);
    if (!fd) fail(file_, c.func.loc, fmt::format("{}: there is no func '{}'", c.word, c.func.text));
    if (c.stage) {
      if (!model_.loops(c.func.text, *c.spec, *c.stage))
        fail(file_, c.func.loc,
             fmt::format("{}: {} has no stage <{}, {}, {}> (stages 0..{}, specializations 0..{})", c.word, c.func.text,
                         c.func.text, *c.spec, *c.stage, fd->stage_count() - 1, model_.specializations(c.func.text)));
      return {{*c.spec, *c.stage}};
    }
    std::vector<std::pair<int64_t, int64_t>> t;
    for (int64_t j = 0; j <= model_.specializations(c.func.text); ++j) t.push_back({j, 0});
    return t;
  }

  Directive make(const VocabularyCall& c, DirectiveKind k, int64_t spec, int64_t stage, const std::string& var) {
    Directive d;
    d.kind = k;
    d.loop = LoopName{c.func, spec, stage, Name{var, c.loc}, c.loc};
    d.loc = c.loc;
    d.sugar = c.text;
    return d;
  }

  void require_loop(const VocabularyCall& c, int64_t spec, int64_t stage, const std::string& var) {
    auto* ls = model_.loops(c.func.text, spec, stage);
    if (std::find(ls->begin(), ls->end(), var) != ls->end()) return;
    std::string have;
    for (auto it = ls->rbegin(); it != ls->rend(); ++it) have += (have.empty() ? "" : ", ") + *it;
    fail(file_, c.loc,
         fmt::format("{}: stage <{}, {}, {}> has no loop '{}' at this point of the schedule; its loops, innermost "
                     "first, are {}",
                     c.word, c.func.text, spec, stage, var, have.empty() ? "none" : have));
  }

  void split(const VocabularyCall& c, int64_t spec, int64_t stage, const std::string& v, const std::string& vo,
             const std::string& vi, const Expr& factor) {
    require_loop(c, spec, stage, v);
    Directive d = make(c, DirectiveKind::Split, spec, stage, v);
    d.names = {Name{vo, c.loc}, Name{vi, c.loc}};
    d.exprs = {factor};
    d.tail = c.tail.value_or(halide_ ? TailStrategy::Auto : TailStrategy::Guard);
    emit(std::move(d));
  }

  // Halide's split(v, v, vi, n): the outer loop keeps the name v. It gets a fresh name here,
  // and `v` names it from now on; returns the fresh name.
  std::string split_keeping(const VocabularyCall& c, int64_t spec, int64_t stage, const std::string& v,
                            const std::string& vi, const Expr& factor, std::string& shown) {
    std::string loop = alias(c, spec, stage, v);
    std::string outer = fresh(c, spec, stage, v + "_o");
    split(c, spec, stage, loop, outer, vi, factor);
    aliases_[StageKey{c.func.text, spec, stage}][v] = outer;
    shown += fmt::format("{}{} is {}", shown.empty() ? "" : ", ", v, outer);
    return outer;
  }

  void traverse(const VocabularyCall& c, int64_t spec, int64_t stage, const std::string& v, Traversal order) {
    require_loop(c, spec, stage, v);
    Directive d = make(c, DirectiveKind::Traverse, spec, stage, v);
    d.order = order;
    emit(std::move(d));
  }

  // Halide's reorder: the named loops keep the places they hold, v1 taking the innermost;
  // reached by swaps of neighbours (bubble sort), the only reordering fig. 2.11 has.
  void reorder(const VocabularyCall& c, int64_t spec, int64_t stage, const std::vector<std::string>& innermost_first) {
    for (size_t k = 0; k < innermost_first.size(); ++k) {
      require_loop(c, spec, stage, innermost_first[k]);
      if (std::find(innermost_first.begin(), innermost_first.begin() + std::ptrdiff_t(k), innermost_first[k]) !=
          innermost_first.begin() + std::ptrdiff_t(k))
        fail(file_, c.loc, fmt::format("{}: the loop '{}' is named twice", c.word, innermost_first[k]));
    }
    std::vector<std::string>& ls = *model_.loops(c.func.text, spec, stage);
    // The sort below tells loops apart by name, and the model swaps a name's first loop:
    // with two loops of one name (a func declaring a variable twice, which validity
    // rejects later, Def. 2.10) it would swap forever.
    std::set<std::string> seen;
    for (const std::string& v : ls)
      if (!seen.insert(v).second)
        fail(file_, c.loc,
             fmt::format("{}: stage <{}, {}, {}> has two loops named '{}'; loop names must be unique (Def. 2.10)",
                         c.word, c.func.text, spec, stage, v));
    std::vector<size_t> places;
    for (size_t k = 0; k < ls.size(); ++k)
      if (std::find(innermost_first.begin(), innermost_first.end(), ls[k]) != innermost_first.end()) places.push_back(k);
    std::vector<std::string> goal = ls;
    for (size_t k = 0; k < places.size(); ++k) goal[places[places.size() - 1 - k]] = innermost_first[k];
    auto rank = [&](const std::string& v) { return std::find(goal.begin(), goal.end(), v) - goal.begin(); };
    for (bool swapped = true; swapped;) {
      swapped = false;
      for (size_t k = 0; k + 1 < ls.size(); ++k)
        if (rank(ls[k]) > rank(ls[k + 1])) {
          emit(make(c, DirectiveKind::Swap, spec, stage, ls[k]));  // the model swaps ls[k], ls[k + 1]
          swapped = true;
        }
    }
  }

  // Halide's fuse(inner, outer, fused) (Func.cpp, Stage::fuse): outer leaves its place and
  // the fused loop takes inner's, so the loops between them end outside the fused loop (or
  // inside it, when outer was the inner one of the two). Fig. 2.11's fuse joins a loop with
  // the one just inside it: outer is moved there by swaps, then fused.
  void fuse(const VocabularyCall& c, int64_t spec, int64_t stage, const std::string& inner, const std::string& outer,
            const std::string& fused) {
    require_loop(c, spec, stage, inner);
    require_loop(c, spec, stage, outer);
    if (inner == outer) fail(file_, c.loc, fmt::format("{}: the loop '{}' is named twice", c.word, inner));
    std::vector<std::string>& ls = *model_.loops(c.func.text, spec, stage);  // outermost first
    auto pos = [&](const std::string& v) { return size_t(std::find(ls.begin(), ls.end(), v) - ls.begin()); };
    auto implicit_swap = [&](const std::string& v) {
      Directive d = make(c, DirectiveKind::Swap, spec, stage, v);  // the model swaps v with the loop inside it
      d.halide_implicit = true;
      emit(std::move(d));
    };
    while (pos(outer) + 1 < pos(inner)) implicit_swap(outer);
    while (pos(outer) > pos(inner)) implicit_swap(ls[pos(outer) - 1]);
    Directive d = make(c, DirectiveKind::Fuse, spec, stage, outer);
    d.names = {Name{fused, c.loc}, Name{inner, c.loc}};
    emit(std::move(d));
  }

  void expand(const VocabularyCall& c, const std::vector<ScheduleItem>& items) {
    auto name = [&](size_t k) { return c.names.at(k).text; };
    if (c.word == "compute_root" || c.word == "store_root") {
      if (!p_.find(c.func.text))
        fail(file_, c.func.loc, fmt::format("{}: there is no func '{}'", c.word, c.func.text));
      bool compute = c.word == "compute_root";
      for (const auto& it : items)
        if (const auto* d = std::get_if<Directive>(&it);
            d && d->func == c.func &&
            (d->kind == DirectiveKind::StoreAt || (compute && d->kind == DirectiveKind::ComputeAt) ||
             d->kind == DirectiveKind::ComputeInline))
          fail(file_, c.loc,
               fmt::format("{}({}) and {} at {}:{} both place {}: keep one", c.word, c.func.text,
                           directive_name(d->kind), d->loc.line, d->loc.col, c.func.text));
      return;  // L(P) already computes and stores every func at the root
    }
    for (auto [spec, stage] : targets(c)) {
      size_t first = out_.size();
      std::string shown;  // the loops that keep their names: "x is x_o"
      // Captured by copy: a lambda may not capture a structured binding before C++20 P1091 (clang 16).
      auto loop = [&, spec = spec, stage = stage](size_t k) { return alias(c, spec, stage, name(k)); };
      if (c.word == "tile" && c.names.size() == 4) {
        std::string xo = split_keeping(c, spec, stage, name(0), name(2), c.factors.at(0), shown);
        std::string yo = split_keeping(c, spec, stage, name(1), name(3), c.factors.at(1), shown);
        reorder(c, spec, stage, {name(2), name(3), xo, yo});
      } else if (c.word == "tile") {
        split(c, spec, stage, loop(0), name(2), name(4), c.factors.at(0));
        split(c, spec, stage, loop(1), name(3), name(5), c.factors.at(1));
        reorder(c, spec, stage, {name(4), name(5), name(2), name(3)});
      } else if (c.word == "reorder") {
        std::vector<std::string> vs;
        for (size_t k = 0; k < c.names.size(); ++k) vs.push_back(loop(k));
        reorder(c, spec, stage, vs);
      } else if (c.word == "fuse") {
        fuse(c, spec, stage, loop(0), loop(1), name(2));
      } else if (c.word == "vectorize" || c.word == "unroll") {
        bool vec = c.word == "vectorize";
        Traversal order = vec ? Traversal::Vectorized : Traversal::Unrolled;
        if (c.factors.empty()) {
          traverse(c, spec, stage, loop(0), order);
        } else if (halide_) {
          std::string inner = fresh(c, spec, stage, name(0) + (vec ? "_v" : "_u"));
          split_keeping(c, spec, stage, name(0), inner, c.factors[0], shown);
          traverse(c, spec, stage, inner, order);
        } else {
          std::string inner = name(0) + (vec ? "_v" : "_u");
          split(c, spec, stage, loop(0), name(0) + "_o", inner, c.factors[0]);
          traverse(c, spec, stage, inner, order);
        }
      } else if (c.word == "parallel") {
        if (c.factors.empty()) {
          traverse(c, spec, stage, loop(0), Traversal::Parallel);
        } else {
          std::string inner = fresh(c, spec, stage, name(0) + "_p");
          std::string outer = split_keeping(c, spec, stage, name(0), inner, c.factors[0], shown);
          traverse(c, spec, stage, outer, Traversal::Parallel);
        }
      }
      if (!shown.empty())
        for (size_t k = first; k < out_.size(); ++k)
          out_[k].sugar = fmt::format("{}, whose outer loop{} keep{} the name{} as in Halide: {} (§2.8.2: a split "
                                      "makes fresh names)",
                                      c.text, shown.find(',') != std::string::npos ? "s" : "",
                                      shown.find(',') != std::string::npos ? "" : "s",
                                      shown.find(',') != std::string::npos ? "s" : "", shown);
    }
  }

  // ---------------------------------------------------------------- Halide's placements
  // Which funcs the schedule places: a compute_at, store_at, compute_inline, hoist_storage,
  // compute_with, or Halide's compute_root and store_root.
  std::set<std::string> placed(const std::vector<ScheduleItem>& items) const {
    std::set<std::string> s;
    for (const Directive& d : out_) {
      if (d.kind == DirectiveKind::ComputeAt || d.kind == DirectiveKind::StoreAt ||
          d.kind == DirectiveKind::ComputeInline || d.kind == DirectiveKind::HoistStorage)
        s.insert(d.func.text);
      if (d.kind == DirectiveKind::ComputeWith) s.insert(d.loop.func.text);
    }
    for (const auto& it : items)
      if (const auto* c = std::get_if<VocabularyCall>(&it); c && (c->word == "compute_root" || c->word == "store_root"))
        s.insert(c->func.text);
    return s;
  }

  Directive added(DirectiveKind k, const Name& f, SourceLoc at, std::string why) {
    Directive d;
    d.kind = k;
    d.func = Name{f.text, at};
    d.loc = at;
    d.default_note = std::move(why);
    return d;
  }

  // The stages that read f once inlined funcs are substituted: <consumer, stage> pairs.
  std::set<std::pair<std::string, size_t>> readers(const std::string& f, const std::set<std::string>& inlined) const {
    std::set<std::pair<std::string, size_t>> out;
    for (const FuncDef& g : p_.funcs)
      for (size_t i = 0; i < g.stage_count(); ++i) {
        if (g.name.text == f || !stage_reads(g, i, f)) continue;
        if (!inlined.count(g.name.text)) {
          out.insert({g.name.text, i});
          continue;
        }
        for (const auto& r : readers(g.name.text, inlined)) out.insert(r);
      }
    return out;
  }

  static bool stage_reads(const FuncDef& g, size_t i, const std::string& f) {
    struct Reads : ExprVisitor {
      const std::string& f;
      bool found = false;
      explicit Reads(const std::string& n) : f(n) {}
      void visit_call(const CallNode& n) override {
        found = found || n.func == f;
        ExprVisitor::visit_call(n);
      }
    } r(f);
    if (i == 0) {
      r.visit(g.pure);
    } else {
      const UpdateStage& u = g.updates[i - 1];
      for (const Expr& e : u.lhs) r.visit(e);
      r.visit(u.value);
      if (u.predicate) r.visit(u.predicate);
      for (const RVar& v : u.rdom) {
        r.visit(v.min);
        r.visit(v.len);
      }
    }
    return r.found;
  }

  void add_halide_placements(const std::vector<ScheduleItem>& items) {
    std::set<std::string> have = placed(items);
    std::set<std::string> inlined;
    for (const Directive& d : out_)
      if (d.kind == DirectiveKind::ComputeInline) inlined.insert(d.func.text);
    std::vector<Directive> more;
    // Unplaced funcs Halide can inline (one pure stage, no specialization: Function::can_be_inlined).
    for (const FuncDef& f : p_.funcs) {
      if (&f == &p_.output() || have.count(f.name.text) || !f.updates.empty() || model_.specializations(f.name.text))
        continue;
      for (const Directive& d : out_)
        if (d.loop.func == f.name && directive_phase(d.kind) == 1)
          fail(file_, d.loc,
               fmt::format("{} has no placement (compute_at, compute_root, ...), so Halide inlines it, and an "
                           "inlined func has no loops to schedule ('{}' here; Halide ignores its splits and rejects "
                           "parallel, vectorize and unroll): write compute_root({}) or compute_at",
                           f.name.text, print_directive(d), f.name.text));
      inlined.insert(f.name.text);
      more.push_back(added(DirectiveKind::ComputeInline, f.name, f.loc,
                           fmt::format("Halide's default: {} has no schedule, so Halide inlines it", f.name.text)));
    }
    // Unplaced funcs Halide cannot inline: realized around each store of the stage that reads
    // them (ScheduleFunctions.cpp, inline_to_provide), i.e. at its innermost loop.
    for (const FuncDef& f : p_.funcs) {
      if (&f == &p_.output() || have.count(f.name.text) || inlined.count(f.name.text)) continue;
      auto rs = readers(f.name.text, inlined);
      std::string why = f.updates.empty() ? "is specialized" : "has update stages";
      if (rs.empty()) continue;  // never read: Halide skips it, halo computes it at the root
      auto [g, i] = *rs.begin();
      if (rs.size() > 1 || model_.specializations(g))
        fail(file_, f.loc,
             fmt::format("{} {} and no placement: Halide cannot inline it and computes it around each store of "
                         "every stage that reads it ({}), which one compute_at cannot say: write compute_root({}) "
                         "or compute_at({}, ...)",
                         f.name.text, why,
                         rs.size() > 1 ? fmt::format("{} stages", rs.size()) : fmt::format("{} is specialized", g),
                         f.name.text, f.name.text));
      auto* ls = model_.loops(g, 0, int64_t(i));
      if (ls->empty()) continue;  // no loop: around the store is at the root, where L(P) computes it
      LoopName at{Name{g, f.loc}, 0, int64_t(i), Name{ls->back(), f.loc}, f.loc};
      std::string note = fmt::format("Halide's default: {} {}, so Halide cannot inline it and computes it around each "
                                     "store of <{}, 0, {}>, inside its innermost loop",
                                     f.name.text, why, g, i);
      Directive c = added(DirectiveKind::ComputeAt, f.name, f.loc, note);
      c.loop = at;
      more.push_back(c);
      Directive s = added(DirectiveKind::StoreAt, f.name, f.loc, note);
      s.loop = at;
      more.push_back(s);
    }
    // compute_at without storage: Halide stores at the same level.
    std::set<std::string> stored;
    for (const Directive& d : out_)
      if (d.kind == DirectiveKind::StoreAt || d.kind == DirectiveKind::HoistStorage) stored.insert(d.func.text);
    for (const auto& it : items)
      if (const auto* c = std::get_if<VocabularyCall>(&it); c && c->word == "store_root") stored.insert(c->func.text);
    for (Directive& d : out_) {
      if (d.kind != DirectiveKind::ComputeAt || stored.count(d.func.text)) continue;
      if (d.loop.spec == LoopName::kEverySpec) {
        // One store_at names one allocation site, and each specialization's copy would need
        // allocation holes of its own: the formal side keeps the storage at the root
        // (semantics decision 33), the Halide target runs what is written.
        d.formal_note = fmt::format(
            "Halide stores {} at loop {} of every specialization of {}; fig. 2.11's store_at names one allocation "
            "site, so halo's formal side stores {} at the root (semantics decision 33); --target halide runs the "
            "schedule as written",
            d.func.text, d.loop.var.text, d.loop.func.text, d.func.text);
        continue;
      }
      Directive s = added(DirectiveKind::StoreAt, d.func, d.loc,
                          fmt::format("Halide's default: compute_at without store_at stores {} at the same loop",
                                      d.func.text));
      s.loop = d.loop;
      more.push_back(s);
    }
    for (Directive& d : more) emit(std::move(d));
  }
};

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

bool is_vocabulary_word(std::string_view word) { return word_info(word) != nullptr; }

std::string vocabulary_usage(std::string_view word) {
  const WordInfo* i = word_info(word);
  return i ? std::string(i->usage) : std::string(word);
}

std::string vocabulary_expansion(std::string_view word) {
  const WordInfo* i = word_info(word);
  return i ? std::string(i->expansion) : std::string();
}

const std::vector<std::string_view>& vocabulary_words() {
  static const std::vector<std::string_view> words = [] {
    std::vector<std::string_view> w;
    for (const auto& i : word_table()) w.push_back(i.word);
    return w;
  }();
  return words;
}

std::vector<std::string> initial_loop_names(const FuncDef& f, size_t stage) {
  std::vector<std::string> names;  // outermost first
  for (const StageLoop& l : initial_stage_loops(f, stage)) names.insert(names.begin(), l.name);
  return names;
}

std::vector<Directive> expand_schedule(const Pipeline& p, const std::vector<ScheduleItem>& items,
                                       const std::string& file, ScheduleMode mode) {
  return Expander(p, file, mode).run(items);
}

// ---------------------------------------------------------------- Halide's split record
HalideSplitHistory::HalideSplitHistory(const FuncDef& f, size_t stage) : update_(stage > 0) {
  for (const StageLoop& l : initial_stage_loops(f, stage))
    if (l.rdom) rvars_.insert(l.name);
}

void HalideSplitHistory::record_split(const Directive& d) {
  const std::string &old = d.loop.var.text, &outer = d.names.at(0).text, &inner = d.names.at(1).text;
  if (inner_.count(old)) inner_.insert(outer);
  inner_.insert(inner);
  if (rvars_.count(old)) rvars_.insert({outer, inner});
  auto it = shift_outer_.find(old);
  if (d.tail == TailStrategy::Shift) {
    shift_outer_[outer] = d.exprs.at(0);
  } else if (it != shift_outer_.end()) {
    Expr f = it->second;
    shift_outer_[inner] = f;
    shift_outer_[outer] = f;
  }
}

void HalideSplitHistory::record_fuse(const std::string& outer, const std::string& inner, const std::string& fused) {
  if (inner_.count(outer) || inner_.count(inner)) inner_.insert(fused);
  if (rvars_.count(outer) && rvars_.count(inner)) rvars_.insert(fused);
}

namespace {
// Halide's can_prove(a >= b) for what a schedule writes: constants, or the same expression.
bool provably_at_least(const Expr& a, const Expr& b) {
  if (same_expr(a, b)) return true;
  if (a->kind != ExprKind::Const || b->kind != ExprKind::Const) return false;
  const Value &x = as<ConstNode>(a).value, &y = as<ConstNode>(b).value;
  return x.is_int() && y.is_int() && compare(x, y) >= 0;
}
}  // namespace

TailStrategy HalideSplitHistory::resolve_auto(const Directive& d, std::string& why) const {
  const std::string& v = d.loop.var.text;
  const char* versions = "Halide 14, 19 and 21 resolve auto alike (Func.cpp, Stage::split)";
  if (rvars_.count(v)) {
    why = fmt::format("auto is guard: {} is a reduction loop, whose split is exact (GuardWithIf); {}", v, versions);
    return TailStrategy::Guard;
  }
  if (update_) {
    if (inner_.count(v)) {
      why = fmt::format("auto is guard: {} of an update stage comes from the inner loop of an earlier split, where "
                        "RoundUp could recompute points (GuardWithIf); {}",
                        v, versions);
      return TailStrategy::Guard;
    }
    why = fmt::format("auto is round: {} is a pure loop of an update stage (RoundUp); {}", v, versions);
    return TailStrategy::Round;
  }
  auto it = shift_outer_.find(v);
  if (it != shift_outer_.end() && provably_at_least(it->second, d.exprs.at(0))) {
    why = fmt::format("auto is round: {} comes from the outer loop of an earlier ShiftInwards split by {}, at least "
                      "this factor, which already keeps it in range (RoundUp); {}",
                      v, print_expr(it->second), versions);
    return TailStrategy::Round;
  }
  why = fmt::format("auto is shift: {} is a loop of a pure stage (ShiftInwards); {}", v, versions);
  return TailStrategy::Shift;
}

bool splits_halide_inner_loop(const Program& prog, const Directive& d) {
  if (!prog.schedule || d.kind != DirectiveKind::Split || d.loop.stage == 0) return false;
  const FuncDef* f = prog.pipeline.find(d.loop.func.text);
  if (!f) return false;
  HalideSplitHistory h(*f, size_t(d.loop.stage));
  LoopModel model(prog.pipeline);
  for (const Directive& e : *prog.schedule) {
    if (&e == &d) return h.from_inner(d.loop.var.text);
    if (!(e.loop.func == d.loop.func) || e.loop.spec != d.loop.spec || e.loop.stage != d.loop.stage) continue;
    auto* ls = model.loops(e.loop.func.text, e.loop.spec, e.loop.stage);
    auto at = ls ? std::find(ls->begin(), ls->end(), e.loop.var.text) : std::vector<std::string>::iterator{};
    if (ls && at != ls->end()) {
      if (e.kind == DirectiveKind::Split && e.names.size() >= 2) h.record_split(e);
      if (e.kind == DirectiveKind::Fuse && at + 1 != ls->end() && !e.names.empty())
        h.record_fuse(*at, *(at + 1), e.names[0].text);
    }
    model.apply(e);
  }
  return h.from_inner(d.loop.var.text);
}

std::optional<std::string> closest_word(std::string_view word, const std::vector<std::string>& names) {
  std::optional<std::string> best;
  size_t best_d = 4;
  for (const auto& n : names) {
    size_t d = edit_distance(word, n);
    if (d < best_d) {
      best_d = d;
      best = n;
    }
  }
  return best;
}

}  // namespace halo

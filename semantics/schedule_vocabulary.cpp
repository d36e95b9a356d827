// Halide's scheduling vocabulary expanded into fig. 2.11's directives (schedule_vocabulary.hpp).
#include "semantics/schedule_vocabulary.hpp"

#include "support/command_budget.hpp"
#include "semantics/printer.hpp"

#include <fmt/format.h>

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
      {"tile", "tile(f, x, y, xo, yo, xi, yi, fx, fy[, tail])",
       "split(<f, j, i, x>, xo, xi, fx, tail); split(<f, j, i, y>, yo, yi, fy, tail); swaps until the loops are xi, "
       "yi, xo, yo, innermost first"},
      {"reorder", "reorder(f, v1, v2, ...)",
       "swaps of neighbouring loops until v1, v2, ... stand in that order, v1 innermost, in the places they held"},
      {"vectorize", "vectorize(f, x[, n[, tail]])",
       "traverse(<f, j, i, x>, vectorized); with n: split(<f, j, i, x>, x_o, x_v, n, tail); traverse(<f, j, i, x_v>, "
       "vectorized)"},
      {"unroll", "unroll(f, x[, n[, tail]])",
       "traverse(<f, j, i, x>, unrolled); with n: split(<f, j, i, x>, x_o, x_u, n, tail); traverse(<f, j, i, x_u>, "
       "unrolled)"},
      {"parallel", "parallel(f, x)", "traverse(<f, j, i, x>, parallel)"},
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
  Expander(const Pipeline& p, const std::string& file) : p_(p), file_(file), model_(p) {}

  std::vector<Directive> run(const std::vector<ScheduleItem>& items) {
    model_.count_specializations(items);
    for (const auto& it : items) {
      if (const auto* d = std::get_if<Directive>(&it)) {
        emit(*d);
      } else {
        expand(std::get<VocabularyCall>(it), items);
      }
    }
    std::stable_sort(out_.begin(), out_.end(), [](const Directive& a, const Directive& b) {
      return directive_phase(a.kind) < directive_phase(b.kind);
    });
    return std::move(out_);
  }

 private:
  const Pipeline& p_;
  const std::string& file_;
  LoopModel model_;
  std::vector<Directive> out_;

  void emit(Directive d) {
    tick_command_budget();  // a vocabulary call expands to many directives: --timeout holds
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
    d.tail = c.tail.value_or(TailStrategy::Guard);
    emit(std::move(d));
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
      if (c.word == "tile") {
        split(c, spec, stage, name(0), name(2), name(4), c.factors.at(0));
        split(c, spec, stage, name(1), name(3), name(5), c.factors.at(1));
        reorder(c, spec, stage, {name(4), name(5), name(2), name(3)});
      } else if (c.word == "reorder") {
        std::vector<std::string> vs;
        for (const auto& n : c.names) vs.push_back(n.text);
        reorder(c, spec, stage, vs);
      } else if (c.word == "vectorize" || c.word == "unroll") {
        bool vec = c.word == "vectorize";
        Traversal order = vec ? Traversal::Vectorized : Traversal::Unrolled;
        if (c.factors.empty()) {
          traverse(c, spec, stage, name(0), order);
        } else {
          std::string inner = name(0) + (vec ? "_v" : "_u");
          split(c, spec, stage, name(0), name(0) + "_o", inner, c.factors[0]);
          traverse(c, spec, stage, inner, order);
        }
      } else if (c.word == "parallel") {
        traverse(c, spec, stage, name(0), Traversal::Parallel);
      }
    }
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
                                       const std::string& file) {
  return Expander(p, file).run(items);
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

// The TVM case generator: see tvm_gen.hpp.
#include "fuzz/tvm_gen.hpp"

#include "candidates/tvm/translate.hpp"
#include "fuzz/halide_gen.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/validity.hpp"

#include <fmt/format.h>

#include <random>
#include <set>

namespace halo::fuzz {

namespace {

// The Halide generator's weights with everything TVM does not have switched off.
HalideGenWeights halide_weights(const TvmGenWeights& w) {
  HalideGenWeights h;
  for (const char* off : {"predicate_tail", "fold_storage", "async", "compute_with", "specialize", "hoist_storage",
                          "compute_with_update", "prefetch", "memoize", "atomic", "atomic_vectorize", "store_in",
                          "hoist_storage_root", "bound_storage", "align_extent", "ring_buffer", "partition",
                          "specialize_fail", "wrapper", "autoscheduler", "fuse_far", "vectorize_whole"})
    h.percent[off] = 0;
  h.percent["typed"] = w["typed"];
  h.percent["float"] = w["float"];
  h.percent["rfactor"] = w["rfactor"];
  h.percent["reorder_storage"] = w["transform_layout"];
  h.percent["align_storage"] = w["storage_align"];
  return h;
}

// Does the schedule change the loops of stage i of f (a split, fuse or swap names them)?
bool loops_changed(const Program& p, const std::string& f, int64_t stage) {
  if (!p.schedule) return false;
  for (const Directive& d : *p.schedule)
    if ((d.kind == DirectiveKind::Split || d.kind == DirectiveKind::Fuse || d.kind == DirectiveKind::Swap ||
         d.kind == DirectiveKind::Rfactor) &&
        d.loop.func.text == f && d.loop.stage == stage)
      return true;
  return false;
}

bool placed(const Program& p, const std::string& f) {
  if (!p.schedule) return false;
  for (const Directive& d : *p.schedule)
    if ((d.kind == DirectiveKind::ComputeAt || d.kind == DirectiveKind::ComputeInline) && d.func.text == f) return true;
  return false;
}

// TVM's primitives for this program, drawn with `rng`: the directives' text.
std::vector<std::string> draw_primitives(const Program& p, const TvmGenWeights& w, std::mt19937_64& rng) {
  auto chance = [&](const char* name) { return int(rng() % 100) < w[name]; };
  const Pipeline& pipe = p.pipeline;
  const FuncDef& out = pipe.output();
  const std::string& o = out.name.text;
  std::vector<std::string> lines;
  std::vector<const FuncDef*> root_producers;
  for (const FuncDef& f : pipe.funcs)
    if (&f != &out && !placed(p, f.name.text) && halo::reads_func(out.pure, f.name.text)) root_producers.push_back(&f);
  int64_t len = p.realize && !p.realize->window.empty() && p.realize->window[0].len.is_small()
                    ? p.realize->window[0].len.small()
                    : 0;
  bool out_plain = out.updates.empty() && !loops_changed(p, o, 0);
  // Read through a cache: any func the output's pure stage reads.
  if (!root_producers.empty() && chance("cache_read")) {
    const FuncDef* f = root_producers[rng() % root_producers.size()];
    lines.push_back(fmt::format("tvm_cache_read(<{}, 0, 0>, {})", o, f->name.text));
  }
  if (!root_producers.empty() && chance("cache_write")) {
    const FuncDef* f = root_producers[rng() % root_producers.size()];
    if (f->updates.empty()) lines.push_back(fmt::format("tvm_cache_write(<{}, 0, 0>)", f->name.text));
  }
  // A reduction's init made its own block, at its outermost pure loop.
  for (const FuncDef& f : pipe.funcs)
    if (f.updates.size() == 1 && tvm::tvm_reduction_update(f, f.updates[0]) && !loops_changed(p, f.name.text, 1) &&
        chance("decompose_reduction")) {
      lines.push_back(fmt::format("tvm_decompose_reduction(<{}, 0, 1, {}>)", f.name.text, f.vars.back().text));
      break;
    }
  if (out_plain && !root_producers.empty() && chance("reverse_compute_at")) {
    const FuncDef* f = root_producers[rng() % root_producers.size()];
    int64_t stage = int64_t(f->updates.size());
    if (!loops_changed(p, f->name.text, stage) && !f->vars.empty())
      lines.push_back(fmt::format("tvm_reverse_compute_at({}, <{}, 0, {}, {}>)", o, f->name.text, stage,
                                  f->vars.back().text));
    return lines;  // the output's loops are TVM's to make now
  }
  if (out_plain && len > 1 && chance("split_unpredicated")) {
    std::vector<int64_t> divisors;
    for (int64_t k = 2; k <= std::min<int64_t>(len, 16); ++k)
      if (len % k == 0) divisors.push_back(k);
    if (!divisors.empty()) {
      lines.push_back(fmt::format("tvm_split_unpredicated(<{}, 0, 0, {}>, {}_o, {}_i, {})", o, out.vars[0].text,
                                  out.vars[0].text, out.vars[0].text, divisors[rng() % divisors.size()]));
      out_plain = false;
    }
  }
  if (out_plain && len > 2 && chance("loop_partition")) {
    lines.push_back(fmt::format("tvm_loop_partition(<{}, 0, 0, {}>, {})", o, out.vars[0].text, 1 + int64_t(rng() % (len - 1))));
    out_plain = false;
  }
  if (out_plain && chance("blockize"))
    lines.push_back(fmt::format("tvm_blockize(<{}, 0, 0, {}>)", o, out.vars[0].text));
  return lines;
}

// TVM's split guards its tail with a predicate (fig. 2.11's guard); the shift and round
// tails the Halide generator draws are not TVM's, so the drawn splits are guarded.
Program guarded_splits(Program p) {
  if (!p.schedule) return p;
  for (Directive& d : *p.schedule)
    if (d.kind == DirectiveKind::Split) d.tail = TailStrategy::Guard;
  // TVM's rfactor factors a reduction block (one with T.init): the Halide generator's
  // rfactor of any other update would only be declined, so it is not drawn.
  Program q = p;
  size_t before = q.schedule->size();
  std::erase_if(*q.schedule, [&](const Directive& d) {
    if (d.on_intermediate) return true;
    if (d.kind != DirectiveKind::Rfactor) return false;
    const FuncDef* f = p.pipeline.find(d.loop.func.text);
    return !f || f->updates.size() != 1 || !tvm::tvm_reduction_update(*f, f->updates[0]) ||
           loops_changed(p, f->name.text, 0);
  });
  if (q.schedule->size() == before) return p;
  // The schedule without them, if it still stands on its own (printed and read back).
  try {
    Program r = parse_program(print_program(q), p.file);
    if (validate_program(r).empty()) return r;
  } catch (const InputError&) {
  }
  return p;
}

Program with_primitives(const Program& p, const std::vector<std::string>& lines) {
  if (lines.empty()) return p;
  std::string text = print_program(p);
  std::string add;
  for (const std::string& l : lines) add += "  " + l + ";\n";
  size_t at = text.find("\nschedule");
  if (at == std::string::npos) {
    size_t r = text.find("\nrealize");
    if (r == std::string::npos) return p;
    text.insert(r + 1, "schedule {\n" + add + "}\n\n");
  } else {
    size_t close = text.find("\n}", at);
    if (close == std::string::npos) return p;
    text.insert(close + 1, add);
  }
  try {
    Program q = parse_program(text, p.file);
    if (!validate_program(q).empty()) return p;
    return q;
  } catch (const InputError&) {
    return p;  // a draw that does not fit the program: the case without it
  }
}

}  // namespace

void TvmGenWeights::set(const std::string& assignment) { set_percent_weight(percent, assignment); }
nlohmann::json TvmGenWeights::to_json() const { return nlohmann::json(percent); }

rc::Shrinkable<Program> generate_tvm_case(const CaseSeed& s, const TvmGenWeights& w) {
  uint64_t salt = 0;
  for (uint64_t k : s.key) salt = salt * 1000003 + k;
  return rc::shrinkable::map(generate_halide_case(s, halide_weights(w)), [w, salt](Program drawn) {
    Program p = guarded_splits(std::move(drawn));
    // The same draw for a program and its shrinks: seeded by the key and the program text.
    std::mt19937_64 rng(salt ^ std::hash<std::string>{}(print_program(p)));
    return with_primitives(p, draw_primitives(p, w, rng));
  });
}

}  // namespace halo::fuzz

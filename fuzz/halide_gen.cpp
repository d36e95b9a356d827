// Cases for `halo fuzz --target halide`: see halide_gen.hpp.
//
// The case is written as .halo text and parsed, as a user's file would be: the text is the
// generator's whole model (one directive per line, so a rejected directive is found by its
// line), and what the parser and validity accept is what Halide is given.
#include "fuzz/halide_gen.hpp"

#include "fuzz/program_gen.hpp"
#include "fuzz/schedule_tree.hpp"
#include "support/diagnostics.hpp"
#include "semantics/parser.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

namespace halo::fuzz {

void HalideGenWeights::set(const std::string& assignment) { set_percent_weight(percent, assignment); }

nlohmann::json HalideGenWeights::to_json() const { return nlohmann::json(percent); }

HalideGenConfig halide_case_config(int size, const HalideGenWeights& w) {
  size = std::clamp(size, 0, kMaxCaseSize);
  HalideGenConfig c;
  c.weights = w;
  c.max_funcs = 2 + size / 40;                 // 2..4
  c.max_window = 8 + size * 56 / kMaxCaseSize;  // 8..64
  c.max_points = 256 + size * 18;               // 256..2056
  return c;
}

namespace {

struct Func {
  std::string name;
  Type type;          // typed cases: the func's declared type
  std::string text;  // its `fun` line(s)
  bool has_update = false;
  bool update_has_rdom_loop = false;  // the update iterates r (rfactor'able)
  std::string update_text;            // the update stage, as written in `text`
  // The update's parts, which reshape_update() may write another way: its rdom, the func it
  // reads, its predicate (" if ..." or empty), whether it has a second variable s, and
  // whether it is a max.
  std::string update_rdom, update_input, update_pred;
  bool update_two = false, update_max = false;
};

// At most one draw in the arguments of a call; the others are drawn before it, in
// statements of their own. Arguments are evaluated in an order the compiler picks, and GCC
// and clang pick differently (GCC's right to left is the order kept here, so cases and
// measurements made with GCC builds stand), so a libFuzzer input found by the clang build
// decoded to another case in the GCC build (.ci/fuzz now compares the two decodings).
class Builder {
 public:
  explicit Builder(const HalideGenConfig& c) : c_(c), w_(c.weights) {}

  std::string build() {
    two_d_ = chance(w_["two_d"]);
    int n = 2 + small_int(0, c_.max_funcs - 2);
    if (chance(w_["long_chain"])) {
      pyramid_ = true;
      n = std::max(n, 5 + small_int(0, 1));
    }
    use_param_ = chance(w_["specialize"]);
    // No draw at weight 0: the untyped cases of a seed stay what they were before types.
    typed_ = w_["typed"] > 0 && chance(w_["typed"]);
    floats_ = w_["float"] > 0 && chance(w_["float"]);
    typed_ = typed_ || floats_;
    // Two sibling producers of one consumer, fused at their outermost loops: Halide refuses
    // compute_with between a func and its own consumer, or between the stages of one func.
    if (chance(w_["compute_with"])) {
      n = std::max(n, 3);
      sibling_ = small_int(0, n - 3);
    }
    for (int i = 0; i < n; ++i) funcs_.push_back(make_func(i));
    auto pipeline = [&] {
      std::string out = fmt::format("pipeline {}({}) {{\n", funcs_.back().name, use_param_ ? "p" : "");
      for (const Func& f : funcs_) out += f.text;
      return out + "}\n\n";
    };
    schedule();
    std::string realize = realization();
    // Drawn last, and not at all at weight 0 (the default), so that every other draw of a
    // seed stays what it was: the case is the same program with its drawn schedule replaced.
    // Before the autoscheduler's draw, and in either case, so that an autoscheduled case
    // keeps the algorithm of the same case scheduled by hand.
    for (Func& f : funcs_) reshape_update(f);
    for (Func& f : funcs_) implicit_pure(f);
    if (w_["autoscheduler"] > 0 && chance(w_["autoscheduler"])) {
      const std::vector<std::string>& names = halide_autoscheduler_names();
      return pipeline() +
             fmt::format("schedule autoscheduler {} {{ }}\n\n", names[size_t(small_int(0, int(names.size()) - 1))]) +
             realize;
    }
    // After every other draw, so that the rest of a seed's case stays what it was before
    // these calls existed: the case gains directives, nothing else changes.
    halide_calls();
    storage_calls();
    // Drawn from the output down, each func's loops beside its placement; written in the
    // phase order of fig. 2.11, or validity would drop every directive after the first
    // placement (keep_valid).
    std::stable_sort(directives_.begin(), directives_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string sched = "schedule {\n";
    for (const auto& [phase, d] : directives_) sched += "  " + d + ";\n";
    sched += "}\n\n";
    return pipeline() + sched + realize;
  }

 private:
  const HalideGenConfig& c_;
  const HalideGenWeights& w_;
  bool two_d_ = true, use_param_ = false, typed_ = false, pyramid_ = false, floats_ = false;
  // The output's x vectorized whole: its realization's x is (min, length), as bounded.
  std::optional<std::pair<int, int>> whole_x_;
  int sibling_ = -1;  // funcs sibling_ and sibling_ + 1 both feed sibling_ + 2; -1: none
  std::vector<Func> funcs_;
  std::vector<std::pair<int, std::string>> directives_;  // (phase, text)

  // What halide_calls() draws on: producers left at the root with the consumer that reads
  // them and its loops (outermost first), producers computed at a loop.
  struct RootRead {
    std::string consumer;
    std::vector<std::string> loops;
    std::string producer;
  };
  struct Placed {
    std::string func;
    bool hoisted = false;
  };
  std::vector<RootRead> root_reads_;
  std::vector<Placed> placed_;
  std::set<std::string> implicit_;  // funcs given Halide's implicit pure definition
  std::set<std::string> bare_;      // funcs drawn for it, whose pure stage no directive names
  std::vector<std::pair<std::string, std::vector<std::string>>> pure_loops_;  // each scheduled func's, outermost first
  std::map<std::string, std::string> update_outer_;  // the outermost loop of a func's update (not rfactor'ed)
  // The siblings' compute_with: its directive, and each sibling's outermost pure loop.
  struct ComputeWith {
    size_t directive;
    std::string a, a_outer, b, b_outer;
  };
  std::optional<ComputeWith> compute_with_;

  // The siblings fused at an update stage instead (one or both): Halide's compute_with of
  // update stages, outermost loops.
  void compute_with_update() {
    const ComputeWith& cw = *compute_with_;
    auto a1 = update_outer_.find(cw.a), b1 = update_outer_.find(cw.b);
    std::vector<std::pair<int, int>> stages;  // (a's stage, b's stage)
    if (a1 != update_outer_.end()) stages.emplace_back(1, 0);
    if (b1 != update_outer_.end()) stages.emplace_back(0, 1);
    if (a1 != update_outer_.end() && b1 != update_outer_.end()) stages.emplace_back(1, 1);
    if (stages.empty()) return;
    auto [sa, sb] = pick(stages);
    directives_[cw.directive].second =
        fmt::format("compute_with(<{}, 0, {}, {}>, <{}, 0, {}, {}>)", cw.a, sa, sa ? a1->second : cw.a_outer, cw.b, sb,
                    sb ? b1->second : cw.b_outer);
  }

  // Halide's fuse of two loops with others between them (Halide moves the outer one next to
  // the inner one: the loops between change places, bench/recall fuse-rvars-implicit-reorder),
  // now and then the other way round; only loops no other directive names.
  void fuse_far(const std::string& f, const std::vector<std::string>& loops) {
    auto named = [&](const std::string& v) {
      std::string ref = fmt::format("<{}, 0, 0, {}>", f, v);
      for (const auto& [phase, d] : directives_)
        if (d.find(ref) != std::string::npos && d.rfind("split", 0) != 0 && d.rfind("swap", 0) != 0) return true;
      return false;
    };
    std::vector<std::pair<size_t, size_t>> pairs;  // (outer position, inner position), outermost first
    for (size_t i = 0; i < loops.size(); ++i)
      for (size_t j = i + 2; j < loops.size(); ++j)
        if (!named(loops[i]) && !named(loops[j])) pairs.emplace_back(i, j);
    if (pairs.empty()) return;
    auto [i, j] = pick(pairs);
    bool reversed = chance(25);
    const std::string& inner = reversed ? loops[i] : loops[j];
    const std::string& outer = reversed ? loops[j] : loops[i];
    add(DirectiveKind::Fuse, fmt::format("fuse(<{}, 0, 0>, {}, {}, t)", f, inner, outer));
  }

  // Halide's calls that change how a func is kept or fetched, never its values: prefetching
  // a root producer inside its consumer's loop, memoizing it, atomic updates, the memory a
  // placed producer lives in, its storage hoisted to the root.
  // A func drawn bare (schedule_loops) whose update is `(x, y) <- f[x, y] + e` (or at r,
  // `(r, y) <- f[r, y] + e`) loses its pure stage: Halide's `f(x, y) += e` with its implicit
  // pure definition f = 0 (the recall benchmark's implicit-pure-def-rvar-bounds). Only where
  // no directive names the pure stage's loops or the func's variables, which Halide names
  // itself then.
  void implicit_pure(Func& f) {
    std::string self = fmt::format("<- {}[{}] + ", f.name, args()), self_r = fmt::format("<- {}[{}] + ", f.name, r_lhs());
    if (!f.has_update || typed_ ||
        (f.update_text.find(self) == std::string::npos && f.update_text.find(self_r) == std::string::npos))
      return;
    std::string loops = fmt::format("<{}, 0, 0, ", f.name);
    for (const auto& [phase, d] : directives_)
      if (d.find(loops) != std::string::npos || d.rfind("bound(" + f.name + ",", 0) == 0 ||
          d.rfind("fold_storage(" + f.name + ",", 0) == 0 || d.rfind("specialize(" + f.name + ",", 0) == 0)
        return;
    if (bare_.count(f.name)) {
      f.text = fmt::format("  fun {}({}) = {{ {} }}\n", f.name, args(), f.update_text);
      implicit_.insert(f.name);
    }
  }

  // The left-hand side of an update that writes at r: (r) or (r, y).
  std::string r_lhs() const { return two_d_ ? "r, y" : "r"; }

  // An update written another way, drawn after the schedule (a seed's other draws stay
  // what they were): order-dependent, `f = g(...) - f` (an alternating sum: reordering or
  // fusing its reduction loops changes the value, which Halide must refuse or respect), and
  // writing at r instead of x, `f(r, y) = f(r, y) + g(r, y)`, a scatter over the rdom's
  // range (with Halide's implicit pure definition, the recall benchmark's
  // implicit-pure-def-rvar-bounds). Writing at r only where no directive names the update
  // stage (its x is gone), the func is not bounded, and the predicate does not read x.
  void reshape_update(Func& f) {
    if (!f.has_update || typed_ || f.update_rdom.empty()) return;
    bool order_dependent = chance(w_["update_order_dependent"]);
    bool at_r = chance(w_["update_at_r"]);
    if (at_r) {
      std::string stage = fmt::format("<{}, 0, 1", f.name);
      for (const auto& [phase, d] : directives_)
        if (d.find(stage) != std::string::npos || d.rfind("bound(" + f.name + ",", 0) == 0) at_r = false;
      if (f.update_pred.find('x') != std::string::npos) at_r = false;
    }
    if (!order_dependent && !at_r) return;
    std::string lhs = at_r ? r_lhs() : args();
    std::string rx = at_r ? "r" : "x + r";
    std::string at = two_d_ ? fmt::format("{}[{}, y{}]", f.update_input, rx, f.update_two ? " + s" : "")
                            : fmt::format("{}[{}]", f.update_input, rx);
    std::string self = fmt::format("{}[{}]", f.name, lhs);
    std::string value = order_dependent ? fmt::format("{} - {}", at, self)
                        : f.update_max  ? fmt::format("max({}, {})", self, at)
                                        : fmt::format("{} + {}", self, at);
    std::string update = fmt::format("{} in ({}) <- {}{}", f.update_rdom, lhs, value, f.update_pred);
    f.text.replace(f.text.find(f.update_text), f.update_text.size(), update);
    f.update_text = update;
    // A 1-D update at r has no pure loop left for compute_with to fuse at.
    if (at_r && !two_d_) update_outer_.erase(f.name);
  }

  void halide_calls() {
    if (compute_with_ && chance(w_["compute_with_update"])) compute_with_update();
    for (const auto& [f, loops] : pure_loops_)
      if (loops.size() >= 3 && chance(w_["fuse_far"])) fuse_far(f, loops);
    for (const RootRead& r : root_reads_) {
      if (chance(w_["prefetch"]) && !fuses_loops(r.consumer) && !implicit_.count(r.consumer)) {
        std::string at = r.loops[size_t(small_int(0, int(r.loops.size()) - 1))];
        add(DirectiveKind::Prefetch,
            fmt::format("prefetch(<{}, 0, 0, {}>, {}, {}, {})", r.consumer, at, r.producer, at, small_int(1, 2)));
      }
      if (chance(w_["memoize"])) add(DirectiveKind::Memoize, fmt::format("memoize({})", r.producer));
    }
    for (const Func& f : funcs_) {
      if (!f.has_update || !chance(w_["atomic"])) continue;
      add(DirectiveKind::Atomic, fmt::format("atomic(<{}, 0, 1>)", f.name));
      // An atomic update's reduction loop vectorized (which Halide allows only atomic): a
      // vector reduction. Not with a predicate or after an rfactor (its r is not this loop).
      bool plain_r = f.update_has_rdom_loop && update_outer_.count(f.name) && f.update_text.find(" if ") == std::string::npos;
      if (plain_r && chance(w_["atomic_vectorize"]))
        add(DirectiveKind::Traverse, fmt::format("traverse(<{}, 0, 1, r>, vectorized)", f.name));
    }
    for (const Placed& p : placed_) {
      if (chance(w_["store_in"]))
        add(DirectiveKind::StoreIn, fmt::format("store_in({}, {})", p.func, pick(std::vector<std::string>{"auto", "heap", "stack"})));
      if (!p.hoisted && chance(w_["hoist_storage_root"]))
        add(DirectiveKind::HoistStorageRoot, fmt::format("hoist_storage_root({})", p.func));
    }
  }

  // The rest of Halide's storage and loop-policy calls, after halide_calls: a producer's
  // storage dimensions reordered or aligned, its allocation bounded (now and then below what
  // it needs: Halide must then stop with its check), the extent it is computed on rounded
  // up, its hoisted storage made a ring buffer, a loop of the output's partitioning, and the
  // default of a specialized output failing.
  void storage_calls() {
    for (size_t i = 0; i + 1 < funcs_.size(); ++i) {
      const std::string& f = funcs_[i].name;
      if (implicit_.count(f)) continue;  // Halide names its storage dimensions itself
      // A storage dimension: x, or y half the time in 2-D.
      auto axis = [&] { return two_d_ && chance(50) ? "y" : "x"; };
      if (two_d_ && chance(w_["reorder_storage"])) add(DirectiveKind::ReorderStorage, fmt::format("reorder_storage({}, y, x)", f));
      if (chance(w_["align_storage"])) {
        const char* v = axis();
        int alignment = 1 << small_int(1, 4);
        add(DirectiveKind::AlignStorage, fmt::format("align_storage({}, {}, {})", f, v, alignment));
      }
      if (chance(w_["bound_storage"])) {
        const char* v = axis();
        int extent = small_int(1, 2 * c_.max_window);
        add(DirectiveKind::BoundStorage, fmt::format("bound_storage({}, {}, {})", f, v, extent));
      }
      if (chance(w_["align_extent"])) {
        const char* v = axis();
        int modulus = small_int(2, 5);
        add(DirectiveKind::AlignExtent, fmt::format("align_extent({}, {}, {})", f, v, modulus));
      }
    }
    for (const RootRead& r : root_reads_) wrapper(r);
    for (const Placed& p : placed_)
      if (p.hoisted && chance(w_["ring_buffer"])) {
        int copies = small_int(2, 3);
        add(DirectiveKind::RingBuffer, fmt::format("ring_buffer({}, {})", p.func, copies));
      }
    const std::string& out = funcs_.back().name;
    bool fused = fuses_loops(out);
    for (const auto& [f, loops] : pure_loops_)
      if (f == out && !fused && !loops.empty() && chance(w_["partition"])) {
        std::string v = loops[size_t(small_int(0, int(loops.size()) - 1))];
        // Always only now and then: Halide refuses it on a loop it finds nothing to partition in.
        const char* policy = chance(75) ? "never" : "always";
        add(DirectiveKind::Partition, fmt::format("partition(<{}, 0, 0, {}>, {})", f, v, policy));
      }
    // Not with an rfactor of the output: Halide crashes on that (the known finding
    // halide-specialize-fail-rfactor-segfault), which would drown the campaign's others.
    bool rfactored = std::any_of(directives_.begin(), directives_.end(),
                                 [&](const auto& d) { return d.second.rfind("rfactor(<" + out + ",", 0) == 0; });
    if (use_param_ && !typed_ && !rfactored && chance(w_["specialize_fail"]))
      add(DirectiveKind::SpecializeFail, fmt::format("specialize_fail({}, \"p is too small\")", out));
  }

  // A producer left at the root, read by its consumer through Halide's wrapper (`in`, or a
  // copy of its definition, `clone_in`), computed at one of the consumer's loops (or at the
  // root). Only where the consumer itself reads the producer (not through an inlined func),
  // has no update (whose stage would read the wrapper outside that loop), and prefetches
  // nothing of it (it would prefetch a func the stage no longer reads).
  void wrapper(const RootRead& r) {
    auto consumer = std::find_if(funcs_.begin(), funcs_.end(), [&](const Func& f) { return f.name == r.consumer; });
    if (consumer == funcs_.end() || consumer->has_update || consumer->text.find(r.producer + "[") == std::string::npos)
      return;
    std::string prefetch = fmt::format("prefetch(<{}, ", r.consumer), of = fmt::format(">, {}, ", r.producer);
    for (const auto& [phase, d] : directives_)
      if (d.rfind(prefetch, 0) == 0 && d.find(of) != std::string::npos) return;
    if (!chance(w_["wrapper"])) return;
    const char* call = chance(25) ? "clone_in" : "in";
    std::string name = r.producer + "_" + r.consumer;  // one per consumer: a producer may have two
    add(DirectiveKind::In, fmt::format("{}({}, {}, {})", call, r.producer, r.consumer, name));
    if (!fuses_loops(r.consumer) && !implicit_.count(r.consumer) && chance(70)) {
      std::string at = r.loops[size_t(small_int(0, int(r.loops.size()) - 1))];
      add(DirectiveKind::ComputeAt, fmt::format("compute_at({}, <{}, 0, 0, {}>)", name, r.consumer, at));
    }
  }

  // Whether Halide's fuse of non-adjacent loops (drawn after the loops were recorded) took
  // some of f's pure loops away: the loops recorded for f may no longer all exist.
  bool fuses_loops(const std::string& f) const {
    return std::any_of(directives_.begin(), directives_.end(),
                       [&](const auto& d) { return d.second.rfind("fuse(<" + f + ", 0, 0>", 0) == 0; });
  }

  void add(DirectiveKind kind, std::string text) { directives_.emplace_back(directive_phase(kind), std::move(text)); }

  std::string args() const { return two_d_ ? "x, y" : "x"; }

  // A read of func `g` near (x, y): offsets -2..2, now and then through x / 2 or 2 * x (half
  // the reads of a pyramid), at a negative stride (c - x), or transposed (g[y, x]).
  std::string read(const std::string& g) {
    auto coord = [&](const char* v) {
      if (chance(w_["flip"])) return fmt::format("{} - {}", small_int(-2, 6), v);
      int d = small_int(-2, 2);
      std::string base = v;
      if (chance(pyramid_ ? 50 : w_["resample"])) base = small_int(0, 1) ? fmt::format("{} / 2", v) : fmt::format("2 * {}", v);
      return d == 0 ? base : fmt::format("{} {} {}", base, d > 0 ? '+' : '-', std::abs(d));
    };
    if (!two_d_) return fmt::format("{}[{}]", g, coord("x"));
    std::string y = coord("y");
    std::string x = coord("x");
    if (chance(w_["transpose"])) std::swap(x, y);
    return fmt::format("{}[{}, {}]", g, x, y);
  }

  // The first func: a pattern over x and y (an input image), small integers.
  std::string source_value() {
    int a = small_int(-3, 5), b = small_int(-3, 5), k = small_int(0, 9);
    // A pyramid's upsampled coordinates grow with its depth: its values are kept small.
    if (pyramid_ && k == 0) k = 1;
    std::string e = two_d_ ? fmt::format("x * {} + y * {}", a, b) : fmt::format("x * {}", a);
    if (k > 0) e = fmt::format("({}) % {}", e, k + 7);
    if (use_param_ && chance(30)) e = fmt::format("{} + p", e);
    return e;
  }

  // The func that func i reads first: the previous one, except that the second sibling
  // reads what the first one reads.
  int input_of(int i) const { return sibling_ >= 0 && i == sibling_ + 1 ? i - 2 : i - 1; }

  // A stencil over the previous funcs: a sum of 1..3 reads with coefficients -1..2, now
  // and then clamped, halved or selected on x. Values stay small: each stage multiplies the
  // largest magnitude by at most 6 (by 7 for the consumer of two siblings).
  std::string stencil(int i) {
    int terms = 1 + small_int(0, 2);
    int in = input_of(i);
    // A sibling reads only its input, and their consumer reads both of them.
    bool second_read_allowed = in >= 1 && !(sibling_ >= 0 && (i == sibling_ + 1 || i == sibling_ + 2));
    std::string e;
    for (int t = 0; t < terms; ++t) {
      std::string g = funcs_[size_t(in)].name;
      if (second_read_allowed && chance(w_["second_read"])) g = funcs_[size_t(in - 1)].name;
      int k = small_int(-1, 2);
      std::string term = k == 1 ? read(g) : fmt::format("{} * {}", read(g), k == 0 ? 2 : k);
      e = e.empty() ? term : fmt::format("{} + {}", e, term);
    }
    switch (small_int(0, 7)) {
      case 1: {
        int hi = small_int(1, 60);
        return fmt::format("min(max({}, {}), {})", e, small_int(-20, 0), hi);
      }
      case 2: return fmt::format("({}) / 2", e);
      case 3: {
        std::string otherwise = read(funcs_[size_t(in)].name);
        return fmt::format("select(x < {}, {}, {})", small_int(-2, 8), e, otherwise);
      }
      default: return e;
    }
  }

  // An update reducing over an rdom r (and s): a sum or a max over reads of the previous
  // func, with a predicate now and then.
  std::string update(int i, Func& f) {
    const std::string& g = funcs_[size_t(input_of(i))].name;
    int r0 = small_int(-2, 0), rn = 1 + small_int(0, 7);
    bool two = two_d_ && chance(25);
    std::string rdom = fmt::format("rdom(r = ({}, {}))", r0, rn);
    if (two) {
      int sn = 1 + small_int(0, 2), s0 = small_int(-1, 0);
      rdom = fmt::format("rdom(r = ({}, {}), s = ({}, {}))", r0, rn, s0, sn);
    }
    std::string at = two_d_ ? fmt::format("{}[x + r, y{}]", g, two ? " + s" : "") : fmt::format("{}[x + r]", g);
    // In a float case a read of a float into an integer func saturates (a plain cast of an
    // out-of-range float is undefined, which would leave the case nothing to compare).
    if (typed_) at = floats_ && !f.type.is_float() && funcs_[size_t(input_of(i))].type.is_float()
                         ? fmt::format("saturating_cast<{}>({})", f.type.to_string(), at)
                         : fmt::format("{}({})", f.type.to_string(), at);
    std::string self = fmt::format("{}[{}]", f.name, args());
    f.update_max = chance(30);
    std::string value = f.update_max ? fmt::format("max({}, {})", self, at) : fmt::format("{} + {}", self, at);
    std::string pred;
    if (chance(w_["predicate"]))
      pred = pick(std::vector<std::string>{fmt::format(" if r < x + {}", small_int(0, 4)), " if (x + r) % 2 == 0",
                                           fmt::format(" if r != {}", small_int(-1, 2))});
    f.update_has_rdom_loop = true;
    f.update_rdom = rdom;
    f.update_input = g;
    f.update_pred = pred;
    f.update_two = two;
    return fmt::format("{} in ({}) <- {}{}", rdom, args(), value, pred);
  }

  Func make_func(int i) {
    Func f;
    f.name = fmt::format("f{}", i);
    std::string pure = floats_  ? (input_of(i) < 0 ? float_source(f) : float_stencil(i, f))
                       : typed_ ? (input_of(i) < 0 ? typed_source(f) : typed_stencil(i, f))
                                : (input_of(i) < 0 ? source_value() : stencil(i));
    if (sibling_ >= 0 && i == sibling_ + 2) {
      std::string other = read(funcs_[size_t(i - 2)].name);
      pure = typed_ ? fmt::format("{} + {}({})", pure, f.type.to_string(), other) : fmt::format("{} + {}", pure, other);
    }
    f.text = typed_ ? fmt::format("  fun {}({}) : {} = {{ {}", f.name, args(), f.type.to_string(), pure)
                    : fmt::format("  fun {}({}) = {{ {}", f.name, args(), pure);
    if (input_of(i) >= 0 && chance(w_["update"])) {
      f.has_update = true;
      f.update_text = update(i, f);
      f.text += "; " + f.update_text;
    }
    f.text += " }\n";
    return f;
  }

  // `bounded`: the stage's func has an explicit bound, which PredicateLoads must not meet:
  // its stores are not predicated, so Halide rightly asks for a rounded-up region and the
  // bound fails its check, while halo's rules read the tail as guard.
  std::string tail(bool bounded = false) {
    if (chance(w_["predicate_tail"])) {
      std::string t = pick(std::vector<std::string>{"predicate", "predicate_loads", "predicate_stores", "auto"});
      return bounded && t == "predicate_loads" ? "predicate_stores" : t;
    }
    return pick(std::vector<std::string>{"guard", "shift", "round"});
  }

  // `wide`: the split may draw 16 to 64 lanes (typed cases, the output's pure stage only: a
  // producer computed inside a vectorized loop of its consumer and vectorized 64 wide
  // itself takes Halide minutes to compile, which a campaign would report as a hang).
  std::string split_text(const std::string& loop, const char* outer, const char* inner, bool wide = false,
                         bool bounded = false) {
    std::string strategy = tail(bounded);
    // typed_ is false in every case drawn at weight typed=0: no draw is added there.
    int factor = typed_ && wide && chance(w_["wide_vector"]) ? 16 << small_int(0, 2)
                                                            : 1 + small_int(0, c_.max_factor - 1);
    return fmt::format("split({}, {}, {}, {}, {})", loop, outer, inner, factor, strategy);
  }

  // ---- float cases (docs/floats.md)
  // A Float(32) constant, now and then an IEEE edge: a tie, a subnormal, a huge value.
  std::string float_const() {
    static const std::vector<std::string> common = {"0.5f", "0.25f", "1.5f", "-0.75f", "2.0f", "0.1f", "3.0f", "-1.0f",
                                                    "255.0f", "0.003921569f"};
    static const std::vector<std::string> edges = {"1e-40f", "3e38f", "-0.0f", "16777216.0f", "0.49999997f", "1e-7f"};
    return chance(10) ? pick(edges) : pick(common);
  }

  // The first func: an 8-bit image, normalized to [0, 1] or scaled, or kept as integers.
  std::string float_source(Func& f) {
    f.type = pick(std::vector<Type>{Type::float_(32), Type::float_(32), Type::uint(8), Type::uint(16)});
    if (!f.type.is_float()) return fmt::format("{}({})", f.type.to_string(), source_value());
    std::string v = fmt::format("f32(u8({}))", source_value());
    return pick(std::vector<std::string>{fmt::format("{} / 255.0f", v), fmt::format("{} * {}", v, float_const()),
                                         fmt::format("{} - 127.5f", v)});
  }

  // A read of g as a Float(32): an integer func normalized or cast; now and then at float
  // coordinates, as a resampling filter reads (i32(f32(x) * s + o)).
  std::string float_read(int g) {
    std::string r = read(funcs_[size_t(g)].name);
    if (chance(w_["resample"]) && r.find('[') != std::string::npos) {
      const std::string& name = funcs_[size_t(g)].name;
      std::string fx = fmt::format("i32({}(f32(x) * {} + {}))",
                                   pick(std::vector<std::string>{"", "floor", "round", "trunc", "ceil"}),
                                   pick(std::vector<std::string>{"0.5f", "1.5f", "0.75f", "-0.5f", "2.0f"}),
                                   pick(std::vector<std::string>{"0.0f", "0.5f", "-1.25f", "0.49999997f"}));
      r = two_d_ ? fmt::format("{}[{}, y]", name, fx) : fmt::format("{}[{}]", name, fx);
    }
    Type t = funcs_[size_t(g)].type;
    if (t == Type::float_(32)) return r;
    if (t.is_float()) return fmt::format("f32({})", r);
    return chance(50) ? fmt::format("f32({}) / 255.0f", r) : fmt::format("f32({})", r);
  }

  // A float stage: a weighted sum of reads, then a curve, a clamp, a rounding, a root, a
  // remainder, a lerp or a division; kept in f32, widened to f64 now and then, or narrowed
  // back to u8 or u16 the way image pipelines do.
  std::string float_stencil(int i, Func& f) {
    int in = input_of(i);
    bool second_read_allowed = in >= 1 && !(sibling_ >= 0 && (i == sibling_ + 1 || i == sibling_ + 2));
    std::string e;
    int terms = 1 + small_int(0, 2);
    for (int k = 0; k < terms; ++k) {
      int g = second_read_allowed && chance(w_["second_read"]) ? in - 1 : in;
      std::string term = small_int(0, 1) ? float_read(g) : fmt::format("{} * {}", float_read(g), float_const());
      e = e.empty() ? term : fmt::format("{} + {}", e, term);
    }
    switch (small_int(0, 11)) {
      case 1: e = fmt::format("let t = {} in {} * t * t + {} * t + {}", e, float_const(), float_const(), float_const()); break;
      case 2: e = fmt::format("clamp({}, 0.0f, 1.0f)", e); break;
      case 3: e = fmt::format("{}({})", pick(std::vector<std::string>{"floor", "ceil", "round", "trunc"}), e); break;
      case 4: e = fmt::format("sqrt(abs({}))", e); break;
      case 5: e = fmt::format("({}) % {}", e, pick(std::vector<std::string>{"0.75f", "1.0f", "-2.5f", "0.1f"})); break;
      case 6: e = fmt::format("lerp({}, {}, {})", e, float_read(in), pick(std::vector<std::string>{"0.25f", "0.5f", "0.1f"})); break;
      case 7: e = fmt::format("({}) / ({} + {})", e, float_read(in), float_const()); break;
      case 8: e = fmt::format("select({} < {}, {}, -({}))", float_read(in), float_const(), e, e); break;
      case 9: e = fmt::format("min(max({}, {}), {})", e, float_const(), float_const()); break;
      case 10: e = fmt::format("f32(f64({}) * f64({}))", e, float_const()); break;
      default: break;
    }
    switch (small_int(0, 9)) {
      case 0: case 1: f.type = Type::uint(8); return fmt::format("u8(clamp({} * 255.0f + 0.5f, 0.0f, 255.0f))", e);
      case 2: f.type = Type::uint(8); return fmt::format("saturating_cast<u8>({})", e);
      case 3: f.type = Type::uint(16); return fmt::format("saturating_cast<u16>(({}) * 256.0f)", e);
      case 4: f.type = Type::float_(64); return fmt::format("f64({}) + f64(0.1)", e);
      default: f.type = Type::float_(32); return e;
    }
  }

  // ---- typed cases
  // The image type of the first func; the wider type a stage computes in (none beyond 32 bits).
  static Type wider(Type t) { return t.bits() >= 32 ? t : t.widen(); }

  std::string typed_source(Func& f) {
    f.type = pick(std::vector<Type>{Type::uint(8), Type::uint(16), Type::int_(16)});
    return fmt::format("{}({})", f.type.to_string(), source_value());
  }

  // A typed stencil: reads widened to W = wider(T), combined in W, narrowed to T or kept
  // in W. `in` is the func read first, of type T.
  std::string typed_stencil(int i, Func& f) {
    int in = input_of(i);
    Type t = funcs_[size_t(in)].type, w = wider(t);
    std::string wn = w.to_string();
    bool second_read_allowed = in >= 1 && !(sibling_ >= 0 && (i == sibling_ + 1 || i == sibling_ + 2));
    auto source = [&] {
      return second_read_allowed && chance(w_["second_read"]) ? funcs_[size_t(in - 1)].name : funcs_[size_t(in)].name;
    };
    auto widened = [&](const std::string& g) { return fmt::format("{}({})", wn, read(g)); };
    std::string e;
    int terms = 1 + small_int(0, 2);
    for (int k = 0; k < terms; ++k) {
      std::string term;
      std::string g = funcs_[size_t(in)].name;
      switch (w != t ? small_int(0, 4) : 0) {
        case 1: term = fmt::format("widening_add({}, {})", read(g), read(g)); break;
        case 2: term = fmt::format("widening_mul({}, {}({}))", read(g), t.to_string(), small_int(1, 3)); break;
        case 3: term = fmt::format("{}(absd({}, {}))", wn, read(g), read(g)); break;
        case 4: term = fmt::format("{}(rounding_halving_add({}, {}))", wn, read(g), read(g)); break;
        default: term = small_int(0, 1) ? widened(source()) : fmt::format("{} * {}", widened(source()), small_int(2, 3));
      }
      e = e.empty() ? term : fmt::format("{} + {}", e, term);
    }
    switch (small_int(0, 5)) {
      case 1: e = fmt::format("min(max({}, {}), {})", e, w.is_uint() ? 0 : small_int(-20, 0), small_int(1, 200)); break;
      case 2: e = fmt::format("({}) / 2", e); break;
      case 3: e = fmt::format("select({}({}) < {}({}), {}, {})", t.to_string(), read(funcs_[size_t(in)].name),
                              t.to_string(), read(funcs_[size_t(in)].name), e, widened(funcs_[size_t(in)].name));
        break;
      default: break;
    }
    // Narrow back to T, or keep W.
    f.type = chance(60) ? t : w;
    if (f.type == w) return e;
    switch (small_int(0, 3)) {
      case 1: return fmt::format("{}(({}) >> {})", t.to_string(), e, small_int(1, 3));
      case 2: return fmt::format("saturating_cast<{}>(rounding_shift_right({}, {}))", t.to_string(), e, small_int(1, 3));
      case 3: return fmt::format("{}({})", t.to_string(), e);
      default: return fmt::format("saturating_cast<{}>({})", t.to_string(), e);
    }
  }

  // Splits and tiles the pure stage of f; returns its loops, outermost first.
  std::vector<std::string> schedule_loops(const Func& f) {
    std::vector<std::string> loops = two_d_ ? std::vector<std::string>{"y", "x"} : std::vector<std::string>{"x"};
    auto loop = [&](const std::string& v, int stage = 0) { return fmt::format("<{}, 0, {}, {}>", f.name, stage, v); };
    // A func with an update drawn for Halide's implicit pure definition (implicit_pure(),
    // after the schedule): no directive may name its pure stage's loops, which Halide names
    // itself, so they stay as they are and what it reads goes to the root (schedule()). Not
    // drawn at weight 0, so that a seed's cases stay what they were without it.
    // Not the consumer of two siblings, whose pure stage is what reads both.
    bool reads_siblings = sibling_ >= 0 && &f == &funcs_[size_t(sibling_ + 2)];
    if (f.has_update && !typed_ && !reads_siblings && w_["implicit_pure"] > 0 && chance(w_["implicit_pure"])) {
      bare_.insert(f.name);
      return loops;
    }
    bool sx = chance(w_["split"]);
    if (sx) {
      add(DirectiveKind::Split, split_text(loop("x"), "xo", "xi", &f == &funcs_.back()));
      loops.pop_back();
      loops.push_back("xo");
      loops.push_back("xi");
    }
    bool sy = two_d_ && chance(w_["split_y"]);
    if (sy) {
      add(DirectiveKind::Split, split_text(loop("y"), "yo", "yi"));
      loops.erase(loops.begin());
      loops.insert(loops.begin(), {"yo", "yi"});
      if (sx && chance(w_["tile"])) {  // yo, xo, yi, xi: a tile
        add(DirectiveKind::Swap, fmt::format("swap({})", loop("yi")));
        std::swap(loops[1], loops[2]);
      }
    }
    // The output's whole x, bounded to a few points, vectorized: a vector of 1 to 8 lanes.
    if (!sx && &f == &funcs_.back() && chance(w_["vectorize_whole"])) {
      int lanes = pick(std::vector<int>{1, 2, 3, 4, 5, 7, 8});
      whole_x_ = std::pair{small_int(-3, 3), lanes};
      add(DirectiveKind::Bound, fmt::format("bound({}, x, {}, {})", f.name, whole_x_->first, lanes));
      add(DirectiveKind::Traverse, fmt::format("traverse({}, vectorized)", loop("x")));
    }
    if (sx && chance(w_["vectorize"])) add(DirectiveKind::Traverse, fmt::format("traverse({}, vectorized)", loop("xi")));
    else if (chance(w_["unroll"]) && (sx || sy)) add(DirectiveKind::Traverse, fmt::format("traverse({}, unrolled)", loop(sx ? "xi" : "yi")));
    if (chance(w_["parallel"])) add(DirectiveKind::Traverse, fmt::format("traverse({}, parallel)", loop(loops.front())));
    if (f.has_update) {
      bool split_update = chance(w_["update_split"]);
      if (split_update) {
        add(DirectiveKind::Split, split_text(loop("x", 1), "xo", "xi", false, whole_x_ && &f == &funcs_.back()));
        if (chance(w_["vectorize"])) add(DirectiveKind::Traverse, fmt::format("traverse({}, vectorized)", loop("xi", 1)));
      }
      update_outer_[f.name] = two_d_ ? "y" : split_update ? "xo" : "x";
      if (f.update_has_rdom_loop && chance(w_["rfactor"])) {
        add(DirectiveKind::Rfactor, fmt::format("rfactor({}, u)", loop("r", 1)));
        update_outer_.erase(f.name);  // its loops are rfactor's now
      }
    }
    pure_loops_.emplace_back(f.name, loops);
    return loops;
  }

  // From the output down: each consumer's loops, then where its producer goes.
  void schedule() {
    if (use_param_) add(DirectiveKind::Specialize, fmt::format("specialize({}, p > {})", funcs_.back().name, small_int(0, 4)));
    std::vector<std::string> loops = schedule_loops(funcs_.back());
    std::string fused_loop;  // the second sibling's outermost loop
    // The nearest consumer that is not inlined: an inlined func's reads stand in its own
    // consumer, whose loops `loops` still holds.
    std::string consumer_name = funcs_.back().name;
    // Where the consumer was computed (compute_at): the func whose loops hold it, those
    // loops, and the index of the loop; a producer may be computed at that same loop.
    struct Placement {
      std::string in;
      std::vector<std::string> loops;
      size_t at = 0;
    };
    std::optional<Placement> consumer_placed;
    for (int i = int(funcs_.size()) - 2; i >= 0; --i) {
      const Func& consumer = funcs_[size_t(i + 1)];
      const Func& producer = funcs_[size_t(i)];
      bool sibling_side = sibling_ >= 0 && (i == sibling_ || i == sibling_ + 1 || i + 1 == sibling_);
      if (!producer.has_update && !sibling_side && chance(w_["compute_inline"])) {
        add(DirectiveKind::ComputeInline, fmt::format("compute_inline({})", producer.name));
        continue;
      }
      std::string placed_in = consumer_name;  // the loops `loops` names are this func's
      consumer_name = producer.name;
      // The siblings stay at root, fused at their outermost loops, and so does what both
      // of them read (a loop of one sibling does not enclose the other's reads).
      if (sibling_ >= 0 && i == sibling_ + 1) {
        loops = schedule_loops(producer);
        fused_loop = loops.front();
        consumer_placed.reset();
        continue;
      }
      if (i == sibling_) {
        loops = schedule_loops(producer);
        consumer_placed.reset();
        compute_with_ = ComputeWith{directives_.size(), producer.name, loops.front(), consumer.name, fused_loop};
        add(DirectiveKind::ComputeWith, fmt::format("compute_with(<{}, 0, 0, {}>, <{}, 0, 0, {}>)", producer.name, loops.front(),
                                          consumer.name, fused_loop));
        continue;
      }
      if (i + 1 == sibling_ || bare_.count(placed_in) || chance(w_["compute_root"])) {
        root_reads_.push_back(RootRead{placed_in, loops, producer.name});
        loops = schedule_loops(producer);
        consumer_placed.reset();
        continue;
      }
      size_t at = chance(w_["compute_inner"]) ? loops.size() - 1 : size_t(small_int(0, int(loops.size()) - 1));
      // Computed where its consumer is computed (the consumer's consumer's loop), so that two
      // funcs of the chain share one loop, each with its own storage level.
      if (consumer_placed && chance(w_["shared_level"])) {
        placed_in = consumer_placed->in;
        loops = consumer_placed->loops;
        at = chance(50) ? consumer_placed->at : size_t(small_int(0, int(consumer_placed->at)));
      }
      auto loop = [&](size_t k) { return fmt::format("<{}, 0, 0, {}>", placed_in, loops[k]); };
      add(DirectiveKind::ComputeAt, fmt::format("compute_at({}, {})", producer.name, loop(at)));
      bool stored_above = false, hoisted = false;
      if (chance(w_["store_root"])) {
        stored_above = true;
      } else if (at > 0 && chance(w_["store_outer"])) {
        add(DirectiveKind::StoreAt, fmt::format("store_at({}, {})", producer.name, loop(size_t(small_int(0, int(at) - 1)))));
        stored_above = true;
      } else {
        add(DirectiveKind::StoreAt, fmt::format("store_at({}, {})", producer.name, loop(at)));
        // Stored where it is computed, its storage hoisted further out (Halide 19 and later).
        if (at > 0 && chance(w_["hoist_storage"])) {
          add(DirectiveKind::HoistStorage,
              fmt::format("hoist_storage({}, {})", producer.name, loop(size_t(small_int(0, int(at) - 1)))));
          hoisted = true;
        }
      }
      placed_.push_back(Placed{producer.name, hoisted});
      consumer_placed = Placement{placed_in, loops, at};
      if (stored_above && chance(w_["fold_storage"]))
        add(DirectiveKind::FoldStorage, fmt::format("fold_storage({}, {}, {})", producer.name, two_d_ ? "y" : "x", 1 << small_int(1, 3)));
      // An async producer whose storage is folded (explicitly, or by Halide itself when it is
      // stored above its compute level) hangs Halide when the fold is too small, instead of
      // failing its fold check: halide/Halide#3293, open, found again and again by every
      // campaign (docs/findings). By default async goes only where nothing is folded.
      if (chance(w_["async"]) && (!stored_above || chance(w_["async_folded"])))
        add(DirectiveKind::Async, fmt::format("async({})", producer.name));
      loops = schedule_loops(producer);
    }
  }

  std::string realization() {
    auto extent = [&](int cap) {
      switch (small_int(0, 2)) {
        case 0: return 1 + small_int(0, std::min(cap, 9) - 1);
        case 1: return 1 + small_int(0, std::min(cap, 32) - 1);
        default: return 1 + small_int(0, cap - 1);
      }
    };
    int xl = extent(c_.max_window);
    int xm = small_int(-3, 3);
    if (whole_x_) std::tie(xm, xl) = *whole_x_;
    std::string window = fmt::format("({}, {})", xm, xl);
    if (two_d_) {
      int yl = extent(std::max(1, std::min(c_.max_window, c_.max_points / xl)));
      window += fmt::format(", ({}, {})", small_int(-3, 3), yl);
    }
    return fmt::format("realize ({}) over {}\n", use_param_ ? fmt::format("p = {}", small_int(0, 8)) : "", window);
  }
};

}  // namespace

rc::Gen<Program> gen_halide_case(HalideGenConfig cfg) {
  return rc::gen::exec([cfg] {
    std::string text = Builder(cfg).build();
    Program prog = parse_program(text, "<halide-case>");
    if (prog.schedule_mode == ScheduleMode::Autoscheduler) return prog;  // nothing of fig. 2.11's to keep valid
    std::vector<Directive> ds = prog.schedule ? *prog.schedule : std::vector<Directive>{};
    return keep_valid(std::move(prog), std::move(ds));
  });
}

rc::Shrinkable<Program> generate_halide_case(const CaseSeed& s, const HalideGenWeights& w) {
  return gen_halide_case(halide_case_config(s.size, w))(rc::Random(s.key), rc::kNominalSize);
}

}  // namespace halo::fuzz

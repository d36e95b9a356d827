// `halo explain` (report/explain.hpp): the facts the report draws are checked against the
// thesis §2.2 figures (tile by 3: two tiles of g overlapping at g(3), 8 stores; round up by
// 4: f written on (0, 8) though computed on (0, 6), g allocated on (0, 9)) and against the
// machine's own counters; the trace ends with the traced store's [ASSN] and says what each
// step read; the page is escaped, self-contained and its internal links resolve; its table
// of contents is its sections' headings; the line diff is a longest common subsequence.
// The page in a browser: test_explain_browser.cpp.
#include "bounds/simplify.hpp"
#include "report/explain.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/validity.hpp"
#include "tools/cli.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <rapidcheck.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <unistd.h>

using namespace halo;
using namespace halo::explain;

namespace {

std::string example_path(const std::string& name) { return std::string(HALO_SOURCE_DIR) + "/examples/" + name; }

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Explanation explain_source(const std::string& src, const std::string& file, ExplainOptions o = {}) {
  Program p = parse_program(src, file);
  check_program(p);
  return explain_program(p, src, o);
}

Explanation explain_example(const std::string& name, ExplainOptions o = {}) {
  return explain_source(read(example_path(name)), example_path(name), std::move(o));
}

const FuncObservation& func(const Explanation& e, const std::string& name) {
  for (const auto& f : e.observation.funcs)
    if (f.func == name) return f;
  FAIL("no func " << name);
  throw std::logic_error("unreachable");
}

std::set<int64_t> xs(const TileObservation& t) {
  std::set<int64_t> s;
  for (const auto& [p, v] : t.written) s.insert(p.at(0));
  return s;
}

std::set<int64_t> range(int64_t lo, int64_t n) {
  std::set<int64_t> s;
  for (int64_t i = 0; i < n; ++i) s.insert(lo + i);
  return s;
}

std::pair<int64_t, int64_t> interval(int64_t m, int64_t l) { return {m, l}; }

std::vector<TraceEntry> trace_entries(const StoreTrace& t) {
  std::vector<TraceEntry> all = t.head;
  all.insert(all.end(), t.tail.begin(), t.tail.end());
  return all;
}

size_t count_of(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("explain: tile by 3 (fig. 2.2) draws two tiles of g overlapping at g(3)", "[explain]") {
  Explanation e = explain_example("thesis_2_2_tile3.halo");
  REQUIRE(e.observation.ran);
  REQUIRE(e.verdict);
  CHECK(e.verdict->holds());
  const FuncObservation& g = func(e, "g");
  CHECK(g.tile_loops == std::vector<std::string>{"<f, 0, 0, xo>"});
  REQUIRE(g.tiles.size() == 2);
  CHECK(g.tiles[0].label == "xo = 0");
  CHECK(g.tiles[1].label == "xo = 1");
  for (size_t i = 0; i < 2; ++i) {
    INFO("tile " << i);
    const int64_t lo = 3 * int64_t(i);
    REQUIRE(g.tiles[i].allocated);
    CHECK(g.tiles[i].allocated->dims == std::vector{interval(lo, 4)});
    REQUIRE(g.tiles[i].computed.size() == 1);
    CHECK(g.tiles[i].computed[0] == interval(lo, 4));
    CHECK(xs(g.tiles[i]) == range(lo, 4));  // 4 points of g per tile
    std::set<int64_t> read;
    for (const auto& p : g.tiles[i].read) read.insert(p.at(0));
    CHECK(read == range(lo, 4));  // f(lo..lo+2) reads g(lo..lo+3)
  }
  // g(3) is computed by both tiles: 8 stores in all, as the machine counts them.
  CHECK(g.stores == 8);
  CHECK(g.stores == e.verdict->run.stats.at("g").stores);
  CHECK(g.loads == e.verdict->run.stats.at("g").loads);
  CHECK(g.tiles[0].written.count({3}) == 1);
  CHECK(g.tiles[1].written.count({3}) == 1);

  const FuncObservation& f = func(e, "f");
  CHECK(f.is_output);
  REQUIRE(f.tiles.size() == 1);
  CHECK(f.tiles[0].label.empty());
  CHECK(f.tiles[0].allocated->dims == std::vector{interval(0, 6)});
  CHECK(xs(f.tiles[0]) == range(0, 6));
  // What the pictures show as written is what the big-step semantics defines on R(z).
  for (size_t i = 0; i < e.verdict->reference.values.size(); ++i)
    CHECK(f.last_values.at({int64_t(i)}) == e.verdict->reference.values[i]);
}

TEST_CASE("explain: round up by 4 (fig. 2.3) writes f past R(z) and allocates g on (0, 9)", "[explain]") {
  Explanation e = explain_example("thesis_2_2_round4.halo");
  REQUIRE(e.observation.ran);
  const FuncObservation& f = func(e, "f");
  REQUIRE(f.tiles.size() == 1);
  CHECK(f.tiles[0].allocated->dims == std::vector{interval(0, 8)});
  CHECK(f.tiles[0].computed.at(0) == interval(0, 6));  // ?cpu f covers R(z)...
  CHECK(xs(f.tiles[0]) == range(0, 8));                // ...the rounded loop writes (0, 8)
  const FuncObservation& g = func(e, "g");
  REQUIRE(g.tiles.size() == 1);
  CHECK(g.tiles[0].allocated->dims == std::vector{interval(0, 9)});
  std::set<int64_t> read;
  for (const auto& p : g.tiles[0].read) read.insert(p.at(0));
  CHECK(read == range(0, 9));
  REQUIRE(e.verdict);
  CHECK(e.verdict->holds());  // compared on R(z) only (Def. 2.2)
}

TEST_CASE("explain: the default schedule computes g on (0, 7) and f on (0, 6) (fig. 2.1)", "[explain]") {
  Explanation e = explain_example("thesis_2_2.halo");
  CHECK(e.steps.size() == 1);  // L(P) only
  const FuncObservation& g = func(e, "g");
  REQUIRE(g.tiles.size() == 1);
  CHECK(g.tiles[0].computed.at(0) == interval(0, 7));
  CHECK(xs(g.tiles[0]) == range(0, 7));
  CHECK(func(e, "f").tiles.at(0).computed.at(0) == interval(0, 6));
}

TEST_CASE("explain: the window and tile count follow the input", "[explain]") {
  ExplainOptions o;
  o.input.windows = {"0,9"};
  Explanation e = explain_example("thesis_2_2_tile3.halo", o);
  CHECK(func(e, "g").tiles.size() == 3);
  CHECK(func(e, "g").stores == 12);
  o.max_tiles = 2;
  Explanation capped = explain_example("thesis_2_2_tile3.halo", o);
  CHECK(func(capped, "g").tiles.size() == 2);
  CHECK(func(capped, "g").tiles_dropped == 1);
  CHECK(func(capped, "g").stores == 12);  // counted even when not drawn
  o.max_points = 5;
  Explanation few = explain_example("thesis_2_2_tile3.halo", o);
  CHECK(func(few, "g").last_values.size() == 5);
  // Stores of g in order: 0 1 2 3 | 3 4 5 6 | 6 7 8 9. Points 0..4 are kept; the stores to
  // 5, 6, 6, 7, 8, 9 are counted only. Each tile reads 4 points, under the limit.
  CHECK(func(few, "g").points_not_kept == 6);
  CHECK(func(few, "g").stores == 12);
}

TEST_CASE("explain: the trace runs from the iteration's FOR-ITER to the store's ASSN", "[explain]") {
  const std::set<std::string> fig_2_8 = {"REALIZE", "VAR",   "EVAL", "NOP",  "ASSERT-TRUE", "LET",  "FOR-ITER", "FOR-STOP",
                                         "IF-T",    "IF-F", "ASSN", "ALLOC", "READ",        "END"};
  ExplainOptions o;
  o.point = std::vector<Value>{Value(int64_t{4})};
  Explanation e = explain_example("thesis_2_2_tile3.halo", o);
  const StoreTrace& t = e.trace;
  REQUIRE(t.found);
  CHECK(t.func == "f");
  CHECK(t.point == Point{4});
  CHECK(t.stores_to_point == 1);
  std::vector<TraceEntry> all = t.head;
  all.insert(all.end(), t.tail.begin(), t.tail.end());
  REQUIRE(all.size() >= 3);
  CHECK(all.front().rule == "FOR-ITER");
  CHECK_THAT(all.front().redex, Catch::Contains("<f, 0, 0, xi>"));
  CHECK(all.back().rule == "ASSN");
  CHECK_THAT(all.back().redex, Catch::StartsWith("f^(0, *)[4] <- 43"));
  for (size_t i = 0; i < all.size(); ++i) {
    CHECK(fig_2_8.count(all[i].rule) == 1);
    if (i) CHECK(all[i].step == all[i - 1].step + 1 + (i == t.head.size() ? t.elided : 0));
  }
  // The point g(3) is stored by both tiles: the trace shows the last.
  o.trace_func = "g";
  o.trace_point = std::vector<Value>{Value(int64_t{3})};
  Explanation eg = explain_example("thesis_2_2_tile3.halo", o);
  REQUIRE(eg.trace.found);
  CHECK(eg.trace.stores_to_point == 2);
  CHECK_THAT(eg.trace.head.front().redex, Catch::Contains("<g, 0, 0, x>"));
  // The derivation is of the chosen output point, rooted at [REALIZE].
  REQUIRE(e.derivation);
  CHECK(e.derivation->rule == "REALIZE");
  CHECK(e.derivation->value == Value(int64_t{43}));
}

TEST_CASE("explain: a typed program shows its types in the derivation and the trace", "[explain][types]") {
  // sharpen(1, 0) of the uint8 unsharp mask: input 37, blur (0 + 2 * 37 + 74) / 4 = 37 in
  // uint8, then saturating_cast<u8>(37 * 2 - 37) = 37.
  ExplainOptions o;
  o.point = std::vector<Value>{Value(int64_t{1}), Value(int64_t{0})};
  Explanation e = explain_example("types/unsharp_u8.halo", o);
  REQUIRE(e.derivation);
  CHECK(e.derivation->value == Value(int64_t{37}));
  CHECK_THAT(e.derivation->judgment, Catch::EndsWith("sharpen(1, 0) := 37 : u8"));
  // Somewhere below, blur's sum wraps in uint8 and says so.
  std::vector<DerivationPtr> todo{e.derivation};
  bool blur_u8 = false;
  while (!todo.empty() && !blur_u8) {
    DerivationPtr d = todo.back();
    todo.pop_back();
    blur_u8 = d->judgment.find("blur[1, 0] ⇓ 37 : u8") != std::string::npos;
    for (const auto& p : d->premises) todo.push_back(p);
  }
  CHECK(blur_u8);
  REQUIRE(e.trace.found);
  std::vector<TraceEntry> all = e.trace.head;
  all.insert(all.end(), e.trace.tail.begin(), e.trace.tail.end());
  bool typed_eval = false;
  for (const TraceEntry& t : all) typed_eval |= t.rule == "EVAL" && t.redex.find(" : i16") != std::string::npos;
  CHECK(typed_eval);
  // What the steps read: the values the funcs stored (never ε_mem on a run that holds), a
  // typed [EVAL]'s operands but no result (its redex lacks their types).
  size_t input_reads = 0;
  for (const TraceEntry& t : all) {
    INFO(t.rule << " " << t.redex << " | " << t.reads);
    if (t.rule == "READ") CHECK(t.reads.find("err_mem") == std::string::npos);
    input_reads += t.rule == "READ" && t.reads.rfind("input[", 0) == 0;
    if (t.rule == "EVAL" && t.redex.find(" : ") != std::string::npos) {
      CHECK_THAT(t.reads, Catch::StartsWith("operands "));
      CHECK(t.reads.find("result") == std::string::npos);
    }
  }
  CHECK(input_reads > 0);
  // An input buffer's points hold its values from [ALLOC] on (docs/inputs.md): the
  // [READ]s of img say the PNG's values, and blur_x(0, -1) is their sum over 3 (repeat_edge
  // reads img(0, 0) for x = -1).
  ExplainOptions png;
  png.trace_func = "blur_x";
  Explanation blur = explain_example("inputs/blur_png.halo", png);
  REQUIRE(blur.trace.found);
  int64_t sum = 0;
  size_t img_reads = 0;
  std::smatch m;
  for (const TraceEntry& t : trace_entries(blur.trace))
    if (t.rule == "READ") {
      INFO(t.reads);
      REQUIRE(std::regex_match(t.reads, m, std::regex("img\\[-?[0-9]+, -?[0-9]+\\] = ([0-9]+)")));
      sum += std::stoll(m[1]);
      ++img_reads;
    }
  CHECK(img_reads == 3);
  CHECK(trace_entries(blur.trace).back().reads == fmt::format("blur_x[0, -1] = {} (σ held err_mem)", sum / 3));
  CHECK_THAT(all.back().redex, Catch::StartsWith("sharpen^(0, *)[1, 0] <- 37"));
  CHECK(render_html(e).find("37 : u8") != std::string::npos);
}

TEST_CASE("explain: options that do not fit the program are bad input", "[explain][cli]") {
  auto run = [](std::vector<std::string> args) {
    args.insert(args.begin(), "halo");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    int status = run_cli(int(argv.size()), argv.data(), out, err);
    return std::make_tuple(status, out.str(), err.str());
  };
  std::string tile3 = example_path("thesis_2_2_tile3.halo");
  auto [s1, o1, e1] = run({"explain", tile3, "--point", "1,2"});
  CHECK(s1 == 2);
  CHECK_THAT(e1, Catch::Contains("--point: the func 'f' has 1 dimension(s), the point has 2"));
  auto [s2, o2, e2] = run({"explain", tile3, "--trace-func", "h"});
  CHECK(s2 == 2);
  CHECK_THAT(e2, Catch::Contains("no func 'h'"));
  auto [s3, o3, e3] = run({"explain", tile3, "--point", "x"});
  CHECK(s3 == 2);
  auto path = std::filesystem::temp_directory_path() / "halo_test_explain_cli.html";
  auto [s4, o4, e4] = run({"explain", tile3, "-o", path.string()});
  CHECK(s4 == 0);
  CHECK(o4.empty());
  std::string page = read(path.string());
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  std::filesystem::remove(path);
  auto [s5, o5, e5] = run({"explain", tile3, "-o", "/nonexistent-dir/report.html"});
  CHECK(s5 == 2);
}

TEST_CASE("explain: the page is escaped, self-contained, and its links resolve", "[explain]") {
  // `<`, `&` and quotes in the program must reach the page only escaped.
  const std::string src =
      "# a < b & \"quotes\"\npipeline f() {\n  fun g(x) = { select(x < 3, x, 0 - x) }\n"
      "  fun f(x) = { g[x] + g[x + 1] }\n}\nschedule {\n  split(<f, 0, 0, x>, xo, xi, 2, guard);\n}\n"
      "realize () over (0, 5)\n";
  Explanation e = explain_source(src, "<escape>");
  std::string page = render_html(e);
  CHECK(page.find("x < 3") == std::string::npos);
  CHECK(page.find("x &lt; 3") != std::string::npos);
  CHECK(page.find("a &lt; b &amp; &quot;quotes&quot;") != std::string::npos);
  CHECK(page.find("http://") == std::string::npos);
  CHECK(page.find("https://") == std::string::npos);
  CHECK(page.find(" src=") == std::string::npos);  // no external script, image or frame
  for (const char* id : {"algorithm", "lowered", "schedule", "bounds", "completed", "verdict", "pictures", "buffers",
                         "derivation", "trace", "glossary"})
    CHECK(page.find(std::string("id=\"") + id + "\"") != std::string::npos);
  // Every internal link has its target.
  std::set<std::string> ids;
  std::regex id_re("id=\"([^\"]+)\""), href_re("href=\"#([^\"]+)\"");
  for (std::sregex_iterator it(page.begin(), page.end(), id_re), end; it != end; ++it) ids.insert((*it)[1]);
  size_t links = 0;
  for (std::sregex_iterator it(page.begin(), page.end(), href_re), end; it != end; ++it, ++links) {
    INFO((*it)[1]);
    CHECK(ids.count((*it)[1]) == 1);
  }
  CHECK(links > 20);
  // The split's change is highlighted: its new loops are added lines.
  CHECK(page.find("<span class=\"add\">+       for &lt;f, 0, 0, xo&gt;") != std::string::npos);
  // Tags balance.
  for (const char* tag : {"details", "svg", "section", "table", "figure", "pre"}) {
    INFO(tag);
    auto count = [&](const std::string& s) {
      size_t n = 0;
      for (size_t p = page.find(s); p != std::string::npos; p = page.find(s, p + 1)) ++n;
      return n;
    };
    CHECK(count(std::string("<") + tag + " ") + count(std::string("<") + tag + ">") == count(std::string("</") + tag + ">"));
  }
}

TEST_CASE("explain: 2-D funcs, failed bounds and empty windows still give a page", "[explain]") {
  Explanation blur = explain_example("blur.halo");
  const FuncObservation& g = func(blur, "g");
  REQUIRE(g.tiles.size() == 1);  // 6 rows, split by 8: one tile
  CHECK(g.tiles[0].label == "yo = 0");
  CHECK(g.tiles[0].allocated->dims.size() == 2);
  std::string page = render_html(blur);
  CHECK(page.find("class=\"iteration-space\"") != std::string::npos);
  CHECK(page.find("class=\"heat\"") != std::string::npos);

  // β0 gives up on the scatter; β1 bounds it (the input's values are bounded), so the
  // pictures and the trace are of β1's completion, and say so.
  Explanation hist = explain_example("histogram.halo");
  CHECK_FALSE(hist.beta0_ok);
  CHECK(hist.observation.ran);
  CHECK(hist.observation.drawn_by == "β1");
  CHECK_THAT(hist.observation.note, Catch::Contains("these pictures are of β1's completion"));
  CHECK(hist.trace.found);
  CHECK_FALSE(func(hist, "hist").tiles.empty());
  std::string hist_page = render_html(hist);
  CHECK(hist_page.find("id=\"glossary\"") != std::string::npos);
  CHECK(hist_page.find("these pictures are of β1") != std::string::npos);
  // Indices read from a func whose update multiplies them a parameter's number of times
  // have no value bounds for β1 either (both sides widen): nothing runs, and the page
  // says why.
  Explanation none = explain_source(
      "pipeline h(p) {\n  fun a(x) = { x - 1; rdom(r = (0, p)) in (x) <- a[x] * 3 }\n"
      "  fun h(x) = { 0; rdom(r = (0, 3)) in (a[r]) <- h[a[r]] + 1 }\n}\nrealize (p = 1) over (0, 4)\n",
      "<scatter>");
  CHECK_FALSE(none.beta0_ok);
  CHECK_FALSE(none.observation.ran);
  CHECK(none.observation.drawn_by == "β0");
  CHECK_THAT(none.observation.note, Catch::Contains("β0 found no finite bounds"));
  CHECK_FALSE(none.trace.found);

  // Values beyond a double's range (2^1100) still get a colour in the heat map.
  Explanation big = explain_source(
      "pipeline f() {\n  fun f(x) = { 1; rdom(r = (0, 1100)) in (x) <- f[x] * 2 }\n}\nrealize () over (0, 2)\n",
      "<big>");
  CHECK(render_html(big).find("class=\"heat\"") != std::string::npos);

  ExplainOptions o;
  o.input.windows = {"0,0"};
  Explanation empty = explain_example("thesis_2_2.halo", o);
  CHECK_FALSE(empty.derivation);
  CHECK_THAT(empty.derivation_note, Catch::Contains("R(z) is empty"));
  CHECK(render_html(empty).find("id=\"derivation\"") != std::string::npos);
}

TEST_CASE("explain: a limit stops a part of the report, not the report", "[explain]") {
  ExplainOptions o;
  o.limits.max_steps = 150;  // the oracle's run of tile3 takes 260 steps
  Explanation e = explain_example("thesis_2_2_tile3.halo", o);
  CHECK_FALSE(e.verdict);
  CHECK_THAT(e.verdict_note, Catch::Contains("--max-steps"));
  CHECK_THAT(e.observation.note, Catch::Contains("limit"));
  CHECK(render_html(e).find("id=\"pictures\"") != std::string::npos);
}

TEST_CASE("explain: the line diff is a longest common subsequence of the two programs", "[explain][props]") {
  rc::check("both sides are recovered and the common part is as long as an LCS", [] {
    auto lines = rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>("a", "b", "c", "{", "}"));
    const auto a = *rc::gen::resize(12, lines), b = *rc::gen::resize(12, lines);
    auto join = [](const std::vector<std::string>& ls) {
      std::string s;
      for (const auto& l : ls) s += l + "\n";
      return s;
    };
    std::vector<DiffLine> d = line_diff(join(a), join(b));
    std::vector<std::string> left, right;
    size_t same = 0;
    for (const auto& l : d) {
      if (l.kind != DiffKind::Added) left.push_back(l.text);
      if (l.kind != DiffKind::Removed) right.push_back(l.text);
      same += l.kind == DiffKind::Same;
    }
    RC_ASSERT(left == a);
    RC_ASSERT(right == b);
    // The LCS length by the textbook recursion, memoized.
    std::map<std::pair<size_t, size_t>, size_t> memo;
    std::function<size_t(size_t, size_t)> lcs = [&](size_t i, size_t j) -> size_t {
      if (i == a.size() || j == b.size()) return 0;
      auto k = std::make_pair(i, j);
      if (auto it = memo.find(k); it != memo.end()) return it->second;
      size_t r = a[i] == b[j] ? 1 + lcs(i + 1, j + 1) : std::max(lcs(i + 1, j), lcs(i, j + 1));
      return memo[k] = r;
    };
    RC_ASSERT(same == lcs(0, 0));
  });
}

TEST_CASE("explain: a rejected directive shows the steps before it then the error", "[explain]") {
  const std::string src = R"(pipeline f() {
  fun g(x) = { x * x + 1 }
  fun f(x) = { g[x] + g[x + 1] }
}
schedule {
  split(<f, 0, 0, x>, xo, xi, 3, guard);
  swap(<f, 0, 0, xi>);
}
realize () over (0, 6)
)";
  Explanation e = explain_source(src, "rejected.halo");
  REQUIRE(e.steps.size() == 2);  // L(P) and the split
  CHECK(e.steps[1].title == "after split(<f, 0, 0, x>, xo, xi, 3, guard)");
  REQUIRE(e.schedule_rejected.size() == 1);
  CHECK(e.schedule_rejected[0].loc.line == 7);
  CHECK_FALSE(e.verdict);
  std::string html = render_html(e);
  CHECK(html.find("id=\"schedule-rejected\"") != std::string::npos);
  CHECK(html.find("Not reached: the schedule was rejected") != std::string::npos);
  // The command writes the page, then fails with the error (exit 2).
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("halo_explain_rejected_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "rejected.halo") << src;
  std::ostringstream out, err;
  std::string file = (dir / "rejected.halo").string(), page = (dir / "page.html").string();
  const char* argv[] = {"halo", "explain", file.c_str(), "-o", page.c_str()};
  CHECK(run_cli(5, argv, out, err) == 2);
  CHECK(err.str().find(file + ":7:3: error: ") != std::string::npos);
  CHECK(read(page).find("id=\"schedule-rejected\"") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("explain: holes get their values under z and intervals say min .. max and len", "[explain]") {
  Explanation e = explain_example("thesis_2_2_tile3.halo");
  bool constant = false, per_tile = false;
  for (const auto& h : e.filling) {
    INFO(h.hole << " = " << h.expression << " -> " << h.value);
    CHECK_FALSE(h.value.empty());
    constant |= std::regex_match(h.value, std::regex("-?[0-9]+"));
    per_tile |= h.value.rfind("per iteration of xo: ", 0) == 0;
  }
  CHECK(constant);  // e.g. ?mem<f, x>.len = 6
  CHECK(per_tile);  // g's ?cpu inside f's loop xo
  std::string html = render_html(e);
  CHECK(html.find("x ∈ 0 .. 5 (min 0, len 6)") != std::string::npos);
  // An input other than the file's realize section is said to be so.
  ExplainOptions o;
  o.input.windows = {"2,4"};
  Explanation w = explain_example("thesis_2_2_tile3.halo", o);
  CHECK_FALSE(w.realize_overridden.empty());
  CHECK(render_html(w).find("not the file&#39;s realize () over (0, 6)") != std::string::npos);
  CHECK(e.realize_overridden.empty());
}

TEST_CASE("explain: --slice chooses the two dimensions a 3-D func is drawn in", "[explain]") {
  const std::string src = R"(pipeline f() {
  fun f(x, y, c) = { x + 10 * y + 100 * c }
}
realize () over (0, 3), (0, 2), (0, 4)
)";
  ExplainOptions o;
  o.slice = std::array<size_t, 2>{0, 2};
  Explanation e = explain_source(src, "slice.halo", o);
  CHECK(func(e, "f").axes == std::array<size_t, 2>{0, 2});
  std::string html = render_html(e);
  CHECK(html.find("draws x across and c down") != std::string::npos);
  // The heat map: 3 columns (x) by 4 rows (c); y is projected.
  std::regex heat("<svg class=\"heat\" data-view=\"merged\" width=\"([0-9]+)\" height=\"([0-9]+)\"");
  std::smatch m;
  REQUIRE(std::regex_search(html, m, heat));
  Explanation d = explain_source(src, "slice.halo");
  std::string plain = render_html(d);
  std::smatch n;
  REQUIRE(std::regex_search(plain, n, heat));
  CHECK(std::stoi(m[2]) > std::stoi(n[2]));  // 4 rows drawn instead of 2
  // Dimensions the program does not have, or the same one twice, are bad input.
  o.slice = std::array<size_t, 2>{0, 3};
  CHECK_THROWS_AS(explain_source(src, "slice.halo", o), InputError);
  std::string file = example_path("thesis_2_2.halo");
  const char* argv[] = {"halo", "explain", file.c_str(), "--slice", "1,1"};
  std::ostringstream out, err;
  CHECK(run_cli(5, argv, out, err) == 2);
  CHECK(err.str().find("--slice expects two different dimensions") != std::string::npos);
}

TEST_CASE("explain: each step of the trace says what it read", "[explain]") {
  // f(4) = g(4) + g(5) = 17 + 26 in the tile xo = 1, iteration xi = 1 (x = 3 + 1).
  ExplainOptions o;
  o.point = std::vector<Value>{Value(int64_t{4})};
  Explanation e = explain_example("thesis_2_2_tile3.halo", o);
  REQUIRE(e.trace.found);
  std::vector<TraceEntry> all = trace_entries(e.trace);
  std::multiset<std::string> reads;
  for (const auto& t : all) {
    INFO(t.step << " [" << t.rule << "] " << t.redex << " | " << t.reads);
    reads.insert(t.reads);
    if (t.rule == "NOP" || t.rule == "END") CHECK(t.reads.empty());
    else CHECK_FALSE(t.reads.empty());
  }
  // [READ]: the point and the value σ holds there, as the machine stored it.
  CHECK(reads.count("g[4] = 17") == 1);
  CHECK(reads.count("g[5] = 26") == 1);
  // [VAR]: Σ(x), for a window variable, a loop variable and a let.
  CHECK(reads.count("x_min = 0") >= 1);
  CHECK(reads.count("<f, 0, 0, xi> = 1") >= 1);
  CHECK(reads.count("<f, 0, 0, x> = 4") >= 1);
  // [EVAL], [FOR-ITER], [LET], [IF-T] and [ASSN].
  CHECK(reads.count("operands 17, 26; result 43") == 1);
  CHECK(all.front().reads == "min 1, len 2; Σ[<f, 0, 0, xi> = 1]");
  CHECK(reads.count("value 4; Σ[<f, 0, 0, x> = 4]") == 1);
  CHECK(reads.count("condition 1") >= 1);
  CHECK(all.back().reads == "f[4] = 43 (σ held err_mem)");
  // g(3) is computed in both tiles: the second tile's [ALLOC] gave g a fresh buffer.
  o.trace_func = "g";
  o.trace_point = std::vector<Value>{Value(int64_t{3})};
  Explanation eg = explain_example("thesis_2_2_tile3.halo", o);
  REQUIRE(eg.trace.found);
  CHECK(trace_entries(eg.trace).back().reads == "g[3] = 10 (σ held err_mem)");
  // A trace from the start of the run: [REALIZE] binds z, [ALLOC] gives a box (or a
  // single point), each of them said.
  ExplainOptions z;
  z.trace_func = "f";
  Explanation zero = explain_source(
      "pipeline f(p) {\n  fun g(x) = { x + p }\n  fun f() = { g[2] * 2 }\n}\nrealize (p = 5)\n", "<zero>", z);
  REQUIRE(zero.trace.found);
  std::vector<std::string> zero_reads;
  for (const auto& t : trace_entries(zero.trace)) zero_reads.push_back(t.rule + ": " + t.reads);
  CHECK(zero_reads == std::vector<std::string>{
                          "REALIZE: Σ[p = 5]", "ALLOC: σ[g ↦ ε_mem on min 2, len 1]", "NOP: ",
                          "FOR-ITER: min 2, len 1; Σ[<g, 0, 0, x> = 2]", "IF-T: condition 1", "VAR: <g, 0, 0, x> = 2",
                          "VAR: p = 5", "EVAL: operands 2, 5; result 7", "VAR: <g, 0, 0, x> = 2",
                          "ASSN: g[2] = 7 (σ held err_mem)", "NOP: ", "FOR-STOP: min 3, len 0", "NOP: ",
                          "ALLOC: σ[f ↦ ε_mem on a single point]", "NOP: ", "IF-T: condition 1", "READ: g[2] = 7",
                          "EVAL: operands 7, 2; result 14", "ASSN: f[] = 14 (σ held err_mem)"});
  // The page: a column of its own.
  std::string html = render_html(e);
  CHECK(html.find("<th>reads</th>") != std::string::npos);
  CHECK(html.find("<td class=\"mono reads\">g[4] = 17</td>") != std::string::npos);
}

TEST_CASE("explain: every hole's expression simplified, the raw form beside it", "[explain]") {
  Explanation e = explain_example("thesis_2_2_tile3.halo");
  REQUIRE_FALSE(e.filling.empty());
  // The page shows each hole through simplify_with_ranges (bounds/simplify.hpp); β0 builds
  // its answers through simplify only, so where ranges decide a guard or a clamp the two
  // forms differ and the raw one is in a <details> beside it.
  bool guarded = false;
  for (const auto& h : e.filling) {
    INFO(h.hole << ": " << h.expression);
    CHECK(h.simplified == print_expr(simplify_with_ranges(parse_tgt_expr(h.expression, "<hole>"))));
    guarded |= h.expression.rfind("select(", 0) == 0;
  }
  CHECK(guarded);  // ?mem<f, x>.len = select((x_len + 2) / 3 > 0, ...)
  // ... which reads select(x_len >= 1, (x_len + 2) / 3 * 3, 0): the only form that differs.
  CHECK(count_of(render_html(e), "<details class=\"raw\">") == 1);
  // A raw form the simplifier shortens: the page shows the simplified form, the raw one in
  // a <details> beside it, and both have the same value under z (x_min = 0, x_len = 6).
  const std::string raw = "select(1 > 0, max(x_min * 1 + (x_len - x_len) + 0 * x_len, x_min), 0 - 7)";
  const Expr simplified = simplify(parse_tgt_expr(raw, "<raw>"));
  HoleAnswer h{"?mem<h, x>.min", raw, print_expr(simplified), "0"};
  CHECK(h.simplified == "x_min");
  CHECK(h.simplified.size() < h.expression.size());
  for (int64_t x_min : {0, -3, 5}) {
    Substitution z;
    z.bindings = {{"x_min", Value(x_min)}, {"x_len", Value(int64_t{6})}};
    auto a = const_value(simplify(substitute(parse_tgt_expr(raw, "<raw>"), z)));
    auto b = const_value(simplify(substitute(simplified, z)));
    REQUIRE(a);
    REQUIRE(b);
    CHECK(*a == Value(x_min));
    CHECK(*a == *b);
  }
  e.filling.push_back(h);
  std::string html = render_html(e);
  CHECK(count_of(html, "<details class=\"raw\">") == 2);
  CHECK(html.find("<span class=\"simplified\">x_min</span><details class=\"raw\"><summary>as β0 built it") !=
        std::string::npos);
  CHECK(html.find("<pre class=\"raw-expression\">select(1 &gt; 0, max(x_min * 1") != std::string::npos);
  CHECK(html.find("data-open-all=\"details.raw\"") != std::string::npos);
}

TEST_CASE("explain: one heat map per allocation beside the merged one", "[explain]") {
  Explanation e = explain_example("thesis_2_2_tile3.halo");
  CHECK(func(e, "g").allocations == 2);
  CHECK(func(e, "g").tiles.at(1).allocation == 2);
  std::string html = render_html(e);
  // g is allocated once per tile of f (store_at, compute_at at xo): two maps, each of its
  // own four points, and the merged map; f is allocated once: its merged map alone.
  std::regex alloc_map("<svg class=\"heat heat-allocation\" data-view=\"([0-9]+)\"[^>]*aria-label=\"heat map of ([a-z]+), ");
  std::vector<std::pair<std::string, std::string>> maps;
  for (std::sregex_iterator it(html.begin(), html.end(), alloc_map), end; it != end; ++it) maps.emplace_back((*it)[2], (*it)[1]);
  CHECK(maps == std::vector<std::pair<std::string, std::string>>{{"g", "1"}, {"g", "2"}});
  CHECK(count_of(html, "<svg class=\"heat\" data-view=\"merged\"") == 2);
  CHECK(html.find("xo = 0: allocated 0 .. 3 (min 0, len 4); 4 points written") != std::string::npos);
  CHECK(html.find("xo = 1: allocated 3 .. 6 (min 3, len 4); 4 points written") != std::string::npos);
  CHECK(html.find("merged: each point&#39;s last value, whichever allocation held it") != std::string::npos);
  CHECK(html.find("data-view=\"per-allocation\"") != std::string::npos);  // the switch
  // Each allocation's map shows what was stored in it: g(3) = 10 in both.
  for (const auto& t : func(e, "g").tiles) CHECK(t.written.at({3}).first == Value(int64_t{10}));
  // Bounded: tiles beyond max_tiles are counted and said to be left out.
  ExplainOptions o;
  o.input.windows = {"0,9"};
  o.max_tiles = 2;
  Explanation capped = explain_example("thesis_2_2_tile3.halo", o);
  CHECK(func(capped, "g").allocations == 3);
  std::string capped_html = render_html(capped);
  CHECK(count_of(capped_html, "<svg class=\"heat heat-allocation\"") == 2);
  CHECK(capped_html.find("1 more tile ran (1 more allocation) and is left out: the report keeps the first 2 tiles of "
                         "each func") != std::string::npos);
  // Computed per tile but allocated once (store_at outside compute_at's loop): one
  // allocation, so the merged map alone, however many tiles.
  Explanation blur = explain_example("tiled_blur.halo");
  for (const auto& f : blur.observation.funcs) {
    INFO(f.func);
    std::set<uint64_t> allocs;
    for (const auto& t : f.tiles) allocs.insert(t.allocation);
    const std::string page = render_html(blur);
    std::regex mine("<svg class=\"heat heat-allocation\"[^>]*aria-label=\"heat map of " + f.func + ", ");
    const auto n = std::distance(std::sregex_iterator(page.begin(), page.end(), mine), std::sregex_iterator());
    CHECK(size_t(n) == (allocs.size() > 1 ? allocs.size() : 0));
  }
}

TEST_CASE("explain: the sections are numbered as emitted and the table of contents is their headings", "[explain]") {
  Explanation e = explain_example("thesis_2_2_tile3.halo");
  auto check_sections = [](const Explanation& ex, const std::vector<std::string>& ids) {
    std::vector<RenderedSection> secs = render_sections(ex);
    std::vector<std::string> got;
    for (const auto& s : secs) got.push_back(s.id);
    CHECK(got == ids);
    std::string page = render_html(ex);
    for (size_t i = 0; i < secs.size(); ++i) {
      INFO(secs[i].title);
      CHECK(secs[i].title.rfind(std::to_string(i + 1) + ". ", 0) == 0);
      // The section is its own element, headed by its title; the page holds it whole, and
      // its table of contents links to it with the same words.
      CHECK(secs[i].html.rfind("<section id=\"" + secs[i].id + "\"><h2>" + escape_html(secs[i].title) + "</h2>", 0) == 0);
      CHECK(secs[i].html.substr(secs[i].html.size() - 10) == "</section>");
      CHECK(page.find(secs[i].html) != std::string::npos);
      CHECK(page.find("<li><a href=\"#" + secs[i].id + "\">" + escape_html(secs[i].title) + "</a></li>") !=
            std::string::npos);
    }
    CHECK(count_of(page, "<li><a href=") == secs.size());
    return secs;
  };
  check_sections(e, {"algorithm", "lowered", "schedule", "bounds", "completed", "verdict", "pictures", "buffers",
                     "derivation", "trace", "glossary"});
  // Halide's side, when present, is number 7 and shifts the rest.
  e.halide = HalideSide{};
  e.halide->note = "not run in this test";
  auto secs = check_sections(e, {"algorithm", "lowered", "schedule", "bounds", "completed", "verdict", "halide",
                                 "pictures", "buffers", "derivation", "trace", "glossary"});
  CHECK(secs[6].title == "7. The compiler's side: Halide (--target halide)");
  CHECK(secs[7].title.rfind("8. Iteration spaces", 0) == 0);
  // The style and the script every embedding page includes; the page calls the script's
  // init function with its own sections.
  std::string page = render_html(e);
  CHECK(page_script().find("window.haloExplainInit = function (root, expected)") != std::string_view::npos);
  CHECK(page.find(std::string(page_style())) != std::string::npos);
  CHECK(page.find(std::string(page_script())) != std::string::npos);
  CHECK(page.find("window.haloExplainInit(document, ['algorithm', 'lowered', 'schedule', 'bounds', 'completed', "
                  "'verdict', 'halide', 'pictures', 'buffers', 'derivation', 'trace', 'glossary'])") != std::string::npos);
  // No section leans on the page around it: the input is in the first section.
  CHECK(secs[0].html.find("input z: parameters none; output window R(z): x ∈ 0 .. 5 (min 0, len 6)") != std::string::npos);
  // The ids one rendering makes are unique across its sections.
  std::set<std::string> ids;
  std::regex id_re("id=\"([^\"]+)\"");
  for (std::sregex_iterator it(page.begin(), page.end(), id_re), end; it != end; ++it) {
    INFO((*it)[1]);
    CHECK(ids.insert((*it)[1]).second);
  }
}

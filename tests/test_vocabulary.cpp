// Halide's vocabulary in .halo (semantics/schedule_vocabulary.hpp, docs/halide-users.md):
// tile, reorder, vectorize, unroll, parallel and compute_root expand into fig. 2.11's
// directives; the schedule is applied in phase order whatever order it is written in; a
// misspelled directive names the closest one; clamp and abs are built from min, max and
// negation and print back as written. The loop model the expansion uses is checked
// against the loops lowering and the rewrites really build.
#include "interp/fast_eval.hpp"
#include "interp/input.hpp"
#include "lower/lower.hpp"
#include "schedule/schedule.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/schedule_vocabulary.hpp"
#include "semantics/tgt.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace halo;
using halo::test::parse_valid;
using halo::test::require_error;
using halo::test::scheduled_oracle;

namespace {

// The loops of stage <f, spec, stage> in T, outermost first.
struct StageLoops : StmtVisitor {
  std::string func;
  int64_t spec, stage;
  std::vector<std::string> loops;
  StageLoops(std::string f, int64_t j, int64_t i) : func(std::move(f)), spec(j), stage(i) {}
  void visit_for(const ForStmt& s) override {
    if (s.func == func && s.spec == spec && s.stage == stage) loops.push_back(s.var);
    StmtVisitor::visit_for(s);
  }
};

std::vector<std::string> loops_of(const TgtProgram& t, const std::string& f, int64_t spec = 0, int64_t stage = 0) {
  StageLoops v(f, spec, stage);
  v.visit(t.body);
  return v.loops;
}

std::vector<std::string> kinds(const Program& p) {
  std::vector<std::string> k;
  for (const auto& d : *p.schedule) k.push_back(print_directive(d));
  return k;
}

const std::string kBlur2d = R"(pipeline out() {
  fun img(x, y) = { x * 7 - y * 3 }
  fun out(x, y) = { img[x - 1, y] + img[x, y] + img[x + 1, y + 1] }
}
)";

std::string with_schedule(const std::string& directives, const std::string& window = "(0, 13), (0, 11)") {
  return kBlur2d + "schedule {\n" + directives + "\n}\nrealize () over " + window + "\n";
}

void require_holds(const Program& p) {
  OracleVerdict v = scheduled_oracle(p, resolve_input(p, {}));
  INFO(v.detail);
  CHECK(v.memory_safe);
  CHECK(v.confluent);
}

}  // namespace

TEST_CASE("vocabulary: tile is two splits and the swap that leaves xi yi xo yo innermost first", "[vocabulary]") {
  Program p = parse_valid(with_schedule("tile(out, x, y, xo, yo, xi, yi, 4, 3, guard);"));
  CHECK(kinds(p) == std::vector<std::string>{"split(<out, 0, 0, x>, xo, xi, 4, guard)",
                                             "split(<out, 0, 0, y>, yo, yi, 3, guard)", "swap(<out, 0, 0, yi>)"});
  for (const auto& d : *p.schedule) CHECK(d.sugar == "tile(out, x, y, xo, yo, xi, yi, 4, 3, guard)");
  TgtProgram t = schedule_pipeline(p);
  CHECK(loops_of(t, "out") == std::vector<std::string>{"yo", "xo", "yi", "xi"});
  require_holds(p);
  // Without a tail the tile guards, as split's default in the vocabulary.
  Program q = parse_valid(with_schedule("tile(out, x, y, xo, yo, xi, yi, 4, 3);"));
  CHECK(q.schedule->at(0).tail == TailStrategy::Guard);
}

TEST_CASE("vocabulary: reorder lists loops innermost first and reaches any order by swaps", "[vocabulary]") {
  Program p = parse_valid(with_schedule("reorder(out, y, x);"));
  CHECK(kinds(p) == std::vector<std::string>{"swap(<out, 0, 0, y>)"});
  CHECK(loops_of(schedule_pipeline(p), "out") == std::vector<std::string>{"x", "y"});
  // Three loops after a split, reversed: the named loops keep the places they held.
  Program q = parse_valid(with_schedule("split(<out, 0, 0, x>, xo, xi, 4, guard);\n  reorder(out, y, xo, xi);"));
  TgtProgram t = schedule_pipeline(q);
  CHECK(loops_of(t, "out") == std::vector<std::string>{"xi", "xo", "y"});
  require_holds(q);
  // Reordering a subset leaves the other loops where they are.
  Program r = parse_valid(with_schedule("split(<out, 0, 0, x>, xo, xi, 4, guard);\n  reorder(out, y, xi);"));
  CHECK(loops_of(schedule_pipeline(r), "out") == std::vector<std::string>{"xi", "xo", "y"});
  // Already in the order asked for: no swap.
  Program s = parse_valid(with_schedule("split(<out, 0, 0, x>, xo, xi, 4, guard);\n  reorder(out, xi, y);"));
  CHECK(s.schedule->size() == 1);
}

TEST_CASE("vocabulary: vectorize unroll and parallel are a split and a traversal", "[vocabulary]") {
  Program p = parse_valid(with_schedule("vectorize(out, x, 4);\n  unroll(out, y, 2, shift);\n  parallel(out, y_o);"));
  CHECK(kinds(p) == std::vector<std::string>{"split(<out, 0, 0, x>, x_o, x_v, 4, guard)",
                                             "traverse(<out, 0, 0, x_v>, vectorized)",
                                             "split(<out, 0, 0, y>, y_o, y_u, 2, shift)",
                                             "traverse(<out, 0, 0, y_u>, unrolled)",
                                             "traverse(<out, 0, 0, y_o>, parallel)"});
  require_holds(p);
  Program q = parse_valid(with_schedule("vectorize(out, x);"));
  CHECK(kinds(q) == std::vector<std::string>{"traverse(<out, 0, 0, x>, vectorized)"});
}

TEST_CASE("vocabulary: a stage other than the pure one is named <f, j, i>", "[vocabulary]") {
  const std::string src = R"(pipeline h() {
  fun h(x, y) = { 0; rdom(r = (0, 3)) in (x, y) <- h[x, y] + x * r + y }
}
schedule { reorder(<h, 0, 1>, y, r); }
realize () over (0, 5), (0, 4)
)";
  Program p = parse_valid(src);
  TgtProgram t = schedule_pipeline(p);
  // L(P): y, x outside r; reorder puts y inside r, the other places keep x.
  CHECK(loops_of(t, "h", 0, 1) == std::vector<std::string>{"r", "x", "y"});
  require_holds(p);
}

TEST_CASE("vocabulary: a func name schedules stage 0 of every specialization", "[vocabulary]") {
  Program p = parse_valid(with_schedule("specialize(out, 1 > 0);\n  vectorize(out, x, 2);"));
  CHECK(kinds(p) == std::vector<std::string>{"specialize(out, 1 > 0)", "split(<out, 0, 0, x>, x_o, x_v, 2, guard)",
                                             "traverse(<out, 0, 0, x_v>, vectorized)",
                                             "split(<out, 1, 0, x>, x_o, x_v, 2, guard)",
                                             "traverse(<out, 1, 0, x_v>, vectorized)"});
  require_holds(p);
}

TEST_CASE("vocabulary: compute_root and store_root are L(P)'s own placement", "[vocabulary][errors]") {
  Program p = parse_valid(with_schedule("compute_root(img);"));
  CHECK(p.schedule->empty());
  require_error([](const std::string& s) { return parse_program(s, "f.halo"); },
                with_schedule("compute_root(img);\n  compute_at(img, <out, 0, 0, y>);"), "f.halo", "6:1",
                "compute_root(img) and compute_at at 7:3 both place img");
  // store_root with compute_at is Halide's sliding-window idiom: the storage stays at the root.
  Program s = parse_valid(with_schedule("store_root(img);\n  compute_at(img, <out, 0, 0, y>);"));
  CHECK(kinds(s) == std::vector<std::string>{"compute_at(img, <out, 0, 0, y>)"});
  require_holds(s);
  require_error([](const std::string& src) { return parse_program(src, "f.halo"); },
                with_schedule("store_root(img);\n  store_at(img, <out, 0, 0, y>);"), "f.halo", "6:1",
                "store_root(img) and store_at at 7:3 both place img");
}

TEST_CASE("vocabulary: the schedule applies in phase order whatever order it is written in", "[vocabulary]") {
  // Halide users chain store_at before compute_at, and schedule producers after consumers.
  Program p = parse_valid(with_schedule("store_at(img, <out, 0, 0, yo>);\n  compute_at(img, <out, 0, 0, yi>);\n"
                                        "  split(<out, 0, 0, y>, yo, yi, 4, guard);"));
  CHECK(kinds(p) == std::vector<std::string>{"split(<out, 0, 0, y>, yo, yi, 4, guard)",
                                             "compute_at(img, <out, 0, 0, yi>)", "store_at(img, <out, 0, 0, yo>)"});
  require_holds(p);
}

TEST_CASE("vocabulary: errors name the call and the loops that exist", "[vocabulary][errors]") {
  auto parse = [](const std::string& s) { return parse_program(s, "f.halo"); };
  require_error(parse, with_schedule("tile(out, x, z, xo, yo, xi, yi, 4, 4);"), "f.halo", "6:1",
                "tile: stage <out, 0, 0> has no loop 'z' at this point of the schedule; its loops, innermost first, "
                "are xi, xo, y");
  require_error(parse, with_schedule("vectorize(nothing, x, 4);"), "f.halo", "6:11", "there is no func 'nothing'");
  require_error(parse, with_schedule("reorder(out, x);"), "f.halo", "6:1", "reorder needs more arguments");
  require_error(parse, with_schedule("reorder(out, x, y, x);"), "f.halo", "6:1", "reorder: the loop 'x' is named twice");
  require_error(parse, with_schedule("tile(out, x, x, xo, yo, xi, yi, 4, 4);"), "f.halo", "6:1", "no loop 'x'");
  require_error(parse, with_schedule("parallel(out, x, 4, guard, 2);"), "f.halo", "6:28",
                "parallel takes at most 4 arguments");
  require_error(parse, with_schedule("vectorise(out, x, 4);"), "f.halo", "6:1",
                "did you mean 'vectorize'? vectorize(f, x[, n[, tail]]) expands into");
  require_error(parse, with_schedule("splt(<out, 0, 0, x>, xo, xi, 4, guard);"), "f.halo", "6:1",
                "did you mean 'split'? split(<f, j, i, v>, vo, vi, factor, guard|shift|round)");
  require_error(parse, with_schedule("tile(<out, 0, 3>, x, y, xo, yo, xi, yi, 4, 4);"), "f.halo", "6:7",
                "out has no stage <out, 0, 3>");
  // A loop name where the stage goes: the call names the stage and the loop apart.
  require_error(parse, with_schedule("unroll(<out, 0, 0, x>, 4);"), "f.halo", "6:8",
                "unroll names the stage (f or <f, j, i>) and then the loop: unroll(<out, 0, 0>, x, ...)");
}

// Found by libFuzzer (halo_fuzz_halo, 8 million executions in): a func declaring a
// variable twice between the two it tiles made reorder's swaps never end, and `halo check`
// grew past 14 GB, ignoring --timeout. Validity rejects the func (Def. 2.10), but the
// vocabulary expands while parsing, before validity runs.
TEST_CASE("vocabulary: a stage with two loops of one name is an error, not an endless reorder", "[vocabulary][errors]") {
  auto parse = [](const std::string& s) { return parse_program(s, "f.halo"); };
  const std::string src =
      "pipeline g() {\n  fun g(x, b, b, y) = { x + y }\n}\n\nschedule {\n  tile(g, x, y, xo, yo, xi, yi, 8, 4);\n}\n\n"
      "realize () over (0, 2), (0, 2), (0, 2), (0, 2)\n";
  require_error(parse, src, "f.halo", "6:3", "tile: stage <g, 0, 0> has two loops named 'b'; loop names must be unique");
  // The same reorder without the duplicate sorts as usual.
  std::string fine = src;
  fine.replace(fine.find("x, b, b, y"), 10, "x, b, c, y");
  Program p = parse_program(fine, "f.halo");
  CHECK(validate_program(p).empty());
  CHECK(std::count_if(p.schedule->begin(), p.schedule->end(),
                      [](const Directive& d) { return d.kind == DirectiveKind::Split; }) == 2);
  CHECK(std::count_if(p.schedule->begin(), p.schedule->end(),
                      [](const Directive& d) { return d.kind == DirectiveKind::Swap; }) > 0);
}

TEST_CASE("vocabulary: the loop model is the nest lowering builds, for every stage of the examples", "[vocabulary]") {
  namespace fs = std::filesystem;
  int stages = 0;
  for (const auto& e : fs::recursive_directory_iterator(std::string(HALO_SOURCE_DIR) + "/examples")) {
    if (e.path().extension() != ".halo") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    Program p = parse_program(text.str(), e.path().string());
    if (p.pipeline.typed) continue;  // typed programs are not lowered yet (docs/types.md)
    p.schedule.reset();
    TgtProgram t = lower_pipeline(p);
    for (const auto& f : p.pipeline.funcs)
      for (size_t i = 0; i < f.stage_count(); ++i, ++stages) {
        INFO(e.path().string() << ": " << f.name.text << " stage " << i);
        CHECK(initial_loop_names(f, i) == loops_of(t, f.name.text, 0, int64_t(i)));
      }
  }
  CHECK(stages > 50);
}

TEST_CASE("vocabulary: clamp and abs are min max and negation and print back as written", "[vocabulary][parser]") {
  const std::string src = R"(pipeline g() {
  fun f(x) = { x * 5 - 12 }
  fun g(x) = { clamp(f[x], 0 - 3, 9) + abs(f[clamp(x - 2, 0, 4)]) * 100 }
}
realize () over (0, 6)
)";
  Program p = parse_valid(src);
  std::string printed = print_program(p);
  CHECK_THAT(printed, Catch::Contains("clamp(f[x], 0 - 3, 9) + abs(f[clamp(x - 2, 0, 4)]) * 100"));
  CHECK(same_program(parse_valid(printed), p));
  OutputBuffer out = evaluate_fast(p.pipeline, resolve_input(p, {}), Limits{});
  std::vector<int64_t> expected;
  for (int64_t x = 0; x < 6; ++x) {
    auto f = [](int64_t v) { return v * 5 - 12; };
    expected.push_back(std::clamp<int64_t>(f(x), -3, 9) + std::abs(f(std::clamp<int64_t>(x - 2, 0, 4))) * 100);
  }
  REQUIRE(out.values.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) CHECK(out.values[i] == Value(expected[i]));
  auto parse = [](const std::string& s) { return parse_program(s, "f.halo"); };
  require_error(parse, "pipeline g() {\n  fun g(x) = { clamp(x, 0) }\n}\n", "f.halo", "2:16",
                "clamp expects 3 arguments, found 2: clamp(e, lo, hi), which is max(min(e, hi), lo)");
  // Not reserved: a func may be called abs, and is accessed with brackets.
  Program q = parse_valid("pipeline g() {\n  fun abs(x) = { x }\n  fun g(x) = { abs[x] + abs(0 - x) }\n}\n");
  CHECK(q.pipeline.funcs.size() == 2);
}

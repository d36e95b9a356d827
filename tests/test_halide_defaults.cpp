// `schedule halide { }` (docs/halide-users.md, "Halide's defaults"): each default Halide
// applies is added to the schedule, marked, and means what it means in Halide; the plain
// `schedule { }` keeps the thesis's meaning; the Halide translation runs the schedule as
// written. One example per default, the round-trip of the mode, and a property: a
// halide-mode program's effective schedule, printed and read back, means the same.
#include "candidates/halide/emit_cpp.hpp"
#include "candidates/halide/plan.hpp"
#include "candidates/halide/versions.hpp"
#include "interp/fast_eval.hpp"
#include "interp/input.hpp"
#include "schedule/schedule.hpp"
#include "semantics/parser.hpp"
#include "semantics/lexer.hpp"
#include "semantics/printer.hpp"
#include "semantics/schedule_vocabulary.hpp"
#include "semantics/tgt_printer.hpp"
#include "cli_support.hpp"
#include "support.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <rapidcheck.h>

using namespace halo;
using halo::test::parse_valid;
using halo::test::require_error;
using halo::test::scheduled_oracle;

namespace {

const std::string kChain = R"(pipeline out() {
  fun g(x, y) = { x * 3 + y }
  fun h(x, y) = { g[x, y] + g[x + 1, y] }
  fun out(x, y) = { h[x, y - 1] + h[x, y + 1] }
}
)";

const std::string kUpdates = R"(pipeline out() {
  fun f(x) = { x; (x) <- f[x] * 2 + 1 }
  fun out(x) = { f[x] + f[x + 1] }
}
)";

Program in_halide_mode(const std::string& pipeline, const std::string& schedule,
               const std::string& realize = "realize () over (0, 11), (0, 7)\n") {
  return parse_valid(pipeline + "schedule halide {\n" + schedule + "}\n" + realize);
}

const Directive* find(const Program& p, DirectiveKind k, const std::string& func) {
  for (const Directive& d : *p.schedule)
    if (d.kind == k && (d.func.text == func || d.loop.func.text == func)) return &d;
  return nullptr;
}

std::string cpp_of(const Program& p) {
  Input in = resolve_input(p, {});
  auto r = halide::translate_to_halide(p, in);
  REQUIRE(std::holds_alternative<halide::HalidePlan>(r));
  return halide::emit_reproducer_cpp(std::get<halide::HalidePlan>(r), evaluate_fast(p.pipeline, in, {}), {});
}

}  // namespace

TEST_CASE("schedule halide: the mode is recorded, printed back, and the plain schedule keeps the thesis's meaning",
          "[halide-defaults]") {
  Program h = in_halide_mode(kChain, "");
  CHECK(h.schedule_mode == ScheduleMode::Halide);
  std::string text = print_program(h);
  CHECK_THAT(text, Catch::Contains("schedule halide {"));
  CHECK_THAT(text, Catch::Contains("compute_inline(g);  # Halide's default: g has no schedule"));
  Program again = parse_program(text, "<printed>");
  CHECK(same_program(again, h));
  // The thesis's mode: nothing added, everything at the root.
  Program t = parse_valid(kChain + "schedule { }\nrealize () over (0, 11), (0, 7)\n");
  CHECK(t.schedule_mode == ScheduleMode::Thesis);
  CHECK(t.schedule->empty());
  CHECK(same_program(t, parse_program(print_program(t), "<t>")));
  // `halide` is an ordinary name elsewhere.
  parse_valid("pipeline halide() {\n  fun halide(x) = { x }\n}\nschedule halide { }\n");
}

TEST_CASE("schedule halide: an unplaced pure func is inlined, and compute_at stores at its own level",
          "[halide-defaults]") {
  Program p = in_halide_mode(kChain, "  compute_at(h, <out, 0, 0, y>);\n");
  const Directive* inl = find(p, DirectiveKind::ComputeInline, "g");
  REQUIRE(inl);
  CHECK_THAT(inl->default_note, Catch::Contains("Halide's default"));
  const Directive* store = find(p, DirectiveKind::StoreAt, "h");
  REQUIRE(store);
  CHECK(print_loop_name(store->loop) == "<out, 0, 0, y>");
  CHECK_THAT(store->default_note, Catch::Contains("compute_at without store_at"));
  CHECK(find(p, DirectiveKind::ComputeInline, "h") == nullptr);  // h is placed
  scheduled_oracle(p, resolve_input(p, {}));
  // The translation runs the schedule as written: no compute_root or store_root for g or h,
  // no store_at (Halide's own default), and the compute_at.
  std::string cpp = cpp_of(p);
  INFO(cpp);
  CHECK_THAT(cpp, !Catch::Contains("f_g.compute_root()") && !Catch::Contains("f_h.store_root()") &&
                      !Catch::Contains("f_h.store_at") && Catch::Contains("f_h.compute_at"));
  // store_root written: kept at the root, and said to Halide.
  Program q = in_halide_mode(kChain, "  store_root(h);\n  compute_at(h, <out, 0, 0, y>);\n");
  CHECK(find(q, DirectiveKind::StoreAt, "h") == nullptr);
  CHECK_THAT(cpp_of(q), Catch::Contains("f_h.store_root()"));
  // compute_root written: no default, and the translation says compute_root.
  Program r = in_halide_mode(kChain, "  compute_root(g);\n");
  CHECK(find(r, DirectiveKind::ComputeInline, "g") == nullptr);
  CHECK_THAT(cpp_of(r), Catch::Contains("f_g.compute_root()"));
}

TEST_CASE("schedule halide: a func with updates is computed around its consumer's stores, not at the root",
          "[halide-defaults]") {
  Program p = in_halide_mode(kUpdates, "  vectorize(out, x, 4);\n", "realize () over (0, 10)\n");
  const Directive* at = find(p, DirectiveKind::ComputeAt, "f");
  REQUIRE(at);
  CHECK(print_loop_name(at->loop) == "<out, 0, 0, x_v>");  // the innermost loop after the split
  CHECK_THAT(at->default_note, Catch::Contains("cannot inline"));
  REQUIRE(find(p, DirectiveKind::StoreAt, "f"));
  scheduled_oracle(p, resolve_input(p, {}));
  CHECK_THAT(cpp_of(p), !Catch::Contains("f_f.compute"));
  // Read by two stages: one compute_at cannot say it.
  require_error([](const std::string& s) { parse_program(s, "<test>"); },
                "pipeline out() {\n  fun f(x) = { x; (x) <- f[x] + 1 }\n  fun g(x) = { f[x] }\n"
                "  fun out(x) = { f[x] + g[x] }\n}\nschedule halide { compute_root(g); }\n",
                "<test>", "2:3", "which one compute_at cannot say");
  // An inlined func whose loops are scheduled: Halide rejects it, halo says why.
  require_error([](const std::string& s) { parse_program(s, "<test>"); },
                kChain + "schedule halide { vectorize(g, x, 4); }\n", "<test>", "6:19",
                "so Halide inlines it");
}

TEST_CASE("schedule halide: auto tails are resolved as Halide's Stage::split resolves them", "[halide-defaults]") {
  SECTION("pure stage: shift; a loop from a wider shift split's outer: round") {
    Program p = in_halide_mode(kChain, "  compute_root(h);\n  vectorize(out, x, 8);\n  unroll(out, x, 4);\n");
    std::vector<const Directive*> splits;
    for (const Directive& d : *p.schedule)
      if (d.kind == DirectiveKind::Split) splits.push_back(&d);
    REQUIRE(splits.size() == 2);
    CHECK(splits[0]->tail_auto);
    CHECK(splits[0]->tail == TailStrategy::Shift);
    CHECK(splits[1]->tail == TailStrategy::Round);  // f.vectorize(x, 8).unroll(x, 4)
    CHECK(print_loop_name(splits[1]->loop) == "<out, 0, 0, x_o>");  // `x` names the outer loop
    CHECK_THAT(splits[1]->tail_note, Catch::Contains("earlier ShiftInwards split by 8"));
    CHECK_THAT(print_directive(*splits[0]), Catch::EndsWith("auto)"));
    scheduled_oracle(p, resolve_input(p, {}));
    CHECK_THAT(cpp_of(p), Catch::Contains("TailStrategy::Auto"));
  }
  SECTION("update stage: round on a pure loop, guard on a reduction loop and on an inner loop") {
    Program p = parse_valid(R"(pipeline out() {
  fun f(x) = { x; rdom(r = (0, 5)) in (x) <- f[x] + r }
  fun out(x) = { f[x] }
}
schedule halide {
  compute_root(f);
  split(<f, 0, 1, x>, xo, xi, 4, auto);
  split(<f, 0, 1, xi>, a, b, 3, auto);
  split(<f, 0, 1, r>, ro, ri, 2, auto);
}
realize () over (0, 10)
)");
    std::vector<TailStrategy> tails;
    for (const Directive& d : *p.schedule)
      if (d.kind == DirectiveKind::Split) tails.push_back(d.tail);
    CHECK(tails == std::vector<TailStrategy>{TailStrategy::Round, TailStrategy::Guard, TailStrategy::Guard});
    scheduled_oracle(p, resolve_input(p, {}));
  }
}

TEST_CASE("schedule halide: round on an update's pure loop is accepted where Halide accepts it (reading 32)",
          "[halide-defaults]") {
  std::string prog = kUpdates + "schedule halide {\n  compute_root(f);\n  split(<f, 0, 1, x>, xo, xi, 4, round);\n}\n"
                                "realize () over (0, 10)\n";
  Program p = parse_valid(prog);
  scheduled_oracle(p, resolve_input(p, {}));
  // The thesis refuses it, as §2.8.2 does.
  std::string thesis = prog;
  thesis.replace(thesis.find("schedule halide"), 15, "schedule");
  test::check_schedule_rejected(thesis, "7:3", "allowed only on pure stages");
  // From the inner loop of an earlier split: Halide refuses, and so does halo.
  require_error([](const std::string& s) { parse_program(s, "<test>"); },
                kUpdates + "schedule halide {\n  compute_root(f);\n  split(<f, 0, 1, x>, xo, xi, 4, guard);\n"
                           "  split(<f, 0, 1, xi>, a, b, 3, round);\n}\n",
                "<test>", "8:3", "Halide refuses RoundUp");
}

TEST_CASE("schedule halide: the 4-name tile and parallel with a factor keep the outer names", "[halide-defaults]") {
  Program p = in_halide_mode(kChain, "  tile(out, x, y, xi, yi, 4, 3);\n  parallel(out, y, 2);\n"
                             "  compute_at(h, <out, 0, 0, x>);\n");
  const Directive* at = find(p, DirectiveKind::ComputeAt, "h");
  REQUIRE(at);
  CHECK(print_loop_name(at->loop) == "<out, 0, 0, x_o>");
  bool parallel_outer = false;
  for (const Directive& d : *p.schedule)
    if (d.kind == DirectiveKind::Traverse && d.order == Traversal::Parallel)
      parallel_outer = print_loop_name(d.loop) == "<out, 0, 0, y_o2>";  // y is y_o, split again: y_o2
  CHECK(parallel_outer);
  CHECK_THAT(schedule_step_title(p, 0), Catch::Contains("x is x_o"));
  scheduled_oracle(p, resolve_input(p, {}));
  // Halide's split(x, x, xi, n), written as a directive: the same renaming.
  Program q = in_halide_mode(kChain, "  compute_at(h, <out, 0, 0, x>);\n  split(<out, 0, 0, x>, x, xi, 4, auto);\n");
  const Directive* split = find(q, DirectiveKind::Split, "out");
  REQUIRE(split);
  CHECK(split->names[0].text == "x_o");
  CHECK(print_loop_name(find(q, DirectiveKind::ComputeAt, "h")->loop) == "<out, 0, 0, x_o>");
  scheduled_oracle(q, resolve_input(q, {}));
  // The thesis's mode keeps §2.8.2's rule: the outer name must be fresh.
  test::check_schedule_rejected(kChain + "schedule {\n  split(<out, 0, 0, x>, x, xi, 4, guard);\n}\n", "7:25",
                                "not a fresh name");
}

TEST_CASE("schedule halide: the effective schedule, printed and read back, means the same", "[halide-defaults]") {
  // Property: over every split factor and tail choice of a small schedule family, the
  // printed program of a halide-mode program parses back to the same program, and that
  // program's scheduled target program is the same.
  REQUIRE(rc::check("parse ∘ print = id in Halide's mode, and the same target program", [] {
    int fx = *rc::gen::inRange(1, 6);
    int fy = *rc::gen::inRange(1, 5);
    bool place_h = *rc::gen::arbitrary<bool>();
    std::string tail = *rc::gen::element<std::string>("", ", auto", ", guard", ", shift", ", round");
    std::string sched = "  tile(out, x, y, xi, yi, " + std::to_string(fx) + ", " + std::to_string(fy) + tail + ");\n";
    if (place_h) sched += "  compute_at(h, <out, 0, 0, x>);\n";
    Program p = parse_program(kChain + "schedule halide {\n" + sched + "}\n", "<prop>");
    Program q = parse_program(print_program(p), "<printed>");
    RC_ASSERT(same_program(p, q));
    RC_ASSERT(print_tgt(schedule_pipeline(p)) == print_tgt(schedule_pipeline(q)));
  }));
}

TEST_CASE("compute_at(g, f, y): Halide's LoopLevel, the loop y of f's first stage that has one", "[halide-defaults]") {
  const std::string updates = R"(pipeline out() {
  fun g(x, y) = { x + y }
  fun h(x, y) = { x * y }
  fun out(x, y) = { g[x, y]; rdom(r = (0, 2)) in (x, y) <- out[x, y] + h[x + r, y] }
}
)";
  // x after the 4-name tile is the tile's outer loop (x_o); r exists only in the update.
  Program p = in_halide_mode(updates, "  tile(out, x, y, xi, yi, 2, 2);\n  compute_at(g, out, x);\n"
                                      "  store_at(g, out, y);\n  compute_at(h, out, r);\n");
  const Directive* g = find(p, DirectiveKind::ComputeAt, "g");
  REQUIRE(g);
  CHECK(print_loop_name(g->loop) == "<out, 0, 0, x_o>");
  CHECK_THAT(g->sugar, Catch::Contains("compute_at(g, out, x) as written: Halide's LoopLevel(out, x)"));
  const Directive* hc = find(p, DirectiveKind::ComputeAt, "h");
  REQUIRE(hc);
  CHECK(print_loop_name(hc->loop) == "<out, 0, 1, r>");
  const Directive* gs = find(p, DirectiveKind::StoreAt, "g");
  REQUIRE(gs);
  CHECK(print_loop_name(gs->loop) == "<out, 0, 0, y_o>");  // stage 0 is the first with y
  scheduled_oracle(p, resolve_input(p, {}));
  CHECK(same_program(p, parse_program(print_program(p), "<printed>")));
  // The same in the thesis's mode (storage stays at the root there) and with the stage named.
  Program t = parse_valid(kChain + "schedule {\n  compute_at(h, out, y);\n}\nrealize () over (0, 11), (0, 7)\n");
  REQUIRE(t.schedule->size() == 1);
  CHECK(print_loop_name((*t.schedule)[0].loop) == "<out, 0, 0, y>");
  // A specialized consumer: the producer is computed in every copy, as Halide does.
  Program s = in_halide_mode(kChain, "  specialize(out, 1 < 2);\n  store_root(h);\n  compute_at(h, out, y);\n");
  const Directive* sc = find(s, DirectiveKind::ComputeAt, "h");
  REQUIRE(sc);
  CHECK(print_loop_name(sc->loop) == "<out, *, 0, y>");
  // No stage with that loop: located at the loop level, listing the loops there are.
  std::string bad = kChain + "schedule halide {\n  compute_at(h, out, q);\n}\n";
  require_error([](const std::string& src) { parse_valid(src); }, bad, "<test>", test::position_of(bad, "out, q"),
                "no stage of out has a loop 'q' (its loops, innermost first: <out, 0, 0, x>, <out, 0, 0, y>)");
  std::string none = kChain + "schedule halide {\n  compute_at(h, nope, y);\n}\n";
  require_error([](const std::string& src) { parse_valid(src); }, none, "<test>", test::position_of(none, "nope"),
                "there is no func 'nope'");
}

TEST_CASE("a Halide program as written: input, boundary condition, let, defaults, LoopLevels, on every Halide",
          "[halide-defaults][halide][cli]") {
  std::string file = std::string(HALO_SOURCE_DIR) + "/examples/halide/as_written_sharpen.halo";
  Program p = parse_program(read_source_file(file), file);
  check_program(p);
  CHECK(print_loop_name(find(p, DirectiveKind::ComputeAt, "blur_x")->loop) == "<sharpen, 0, 0, x_o>");
  auto j = test::require_holds_on_every_halide(file);
  // The program's own effective schedule travels in the JSON too.
  CHECK_THAT(j["effective_schedule"].get<std::string>(), Catch::Contains("schedule halide {"));
}

TEST_CASE("schedule halide: compute_root and store_root as written travel with the printed program",
          "[halide-defaults][halide][cli]") {
  // The Halide worker reads the printed program: a compute_root it dropped would be Halide's
  // default, inlining (a split g then an error, an unsplit one silently inlined).
  for (const char* schedule : {"  split(<g, 0, 0, x>, x_1, v0, 4, shift);\n  compute_root(g);\n",
                               "  compute_root(g);\n", "  store_root(h);\n  compute_at(h, <out, 0, 0, y>);\n"}) {
    CAPTURE(schedule);
    Program p = in_halide_mode(kChain, schedule);
    std::string text = print_program(p);
    Program again = parse_program(text, "<printed>");
    CHECK(same_program(again, p));
    CHECK((find(again, DirectiveKind::ComputeInline, "g") == nullptr) == (find(p, DirectiveKind::ComputeInline, "g") == nullptr));
    std::string cpp = cpp_of(again);
    INFO(cpp);
    if (std::string(schedule).find("compute_root(g)") != std::string::npos) {
      CHECK_THAT(text, Catch::Contains("compute_root(g);"));
      CHECK_THAT(cpp, Catch::Contains("f_g.compute_root()"));
    } else {
      CHECK_THAT(cpp, Catch::Contains("f_h.store_root()"));
    }
  }
  // End to end: Halide computes g at the root (it loads g), never inlines it.
  std::string file = (std::filesystem::temp_directory_path() / fmt::format("halo_roots_{}.halo", ::getpid())).string();
  std::ofstream(file) << kChain << "schedule halide {\n  split(<g, 0, 0, x>, x_1, v0, 4, shift);\n  compute_root(g);\n}\n"
                      << "realize () over (0, 11), (0, 7)\n";
  test::CliResult r = test::run_halo({"oracle", file, "--target", "halide", "--json"});
  std::filesystem::remove(file);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["verdict"] == "holds");
  CHECK(j["memcheck"]["realizations"] == 2);  // g's buffer and the output's
  CHECK(j["memcheck"]["loads"].get<int64_t>() > 0);
}

TEST_CASE("schedule halide: storage in every specialization is Halide's, the formal side's is the root, and both say so",
          "[halide-defaults][halide][cli]") {
  // Halide's h.compute_at(out, y) in a specialized out computes and stores h at y of every
  // specialization; fig. 2.11's store_at names one (semantics decision 33).
  Program p = in_halide_mode(kChain, "  specialize(out, 1 < 2);\n  compute_at(h, out, y);\n");
  const Directive* at = find(p, DirectiveKind::ComputeAt, "h");
  REQUIRE(at);
  CHECK(print_loop_name(at->loop) == "<out, *, 0, y>");
  CHECK_THAT(at->formal_note, Catch::Contains("Halide stores h at loop y of every specialization of out") &&
                                  Catch::Contains("stores h at the root"));
  CHECK(find(p, DirectiveKind::StoreAt, "h") == nullptr);  // nothing added: the root, on the formal side
  CHECK_THAT(print_effective_schedule(p), Catch::Contains("formal side stores h at the root"));
  CHECK(same_program(p, parse_program(print_program(p), "<printed>")));
  scheduled_oracle(p, resolve_input(p, {}));
  // Halide gets the schedule as written: the compute_at, no storage directive.
  std::string cpp = cpp_of(p);
  CHECK_THAT(cpp, Catch::Contains("f_h.compute_at") && !Catch::Contains("f_h.store_at") &&
                      !Catch::Contains("f_h.store_root"));
  // Storage written: no note, and the thesis's mode has none either.
  Program q = in_halide_mode(kChain, "  specialize(out, 1 < 2);\n  store_root(h);\n  compute_at(h, out, y);\n");
  CHECK(find(q, DirectiveKind::ComputeAt, "h")->formal_note.empty());
  Program t = parse_valid(kChain + "schedule {\n  specialize(out, 1 < 2);\n  compute_at(h, <out, *, 0, y>);\n}\n");
  CHECK(find(t, DirectiveKind::ComputeAt, "h")->formal_note.empty());
  // Every installed Halide runs it and agrees; the report carries the note.
  if (halide::installed_halide_versions().empty()) return;
  std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("halo_every_spec_{}.halo", ::getpid())).string();
  std::ofstream(path) << print_program(p);
  auto j = test::require_holds_on_every_halide(path);
  CHECK_THAT(j["effective_schedule"].get<std::string>(), Catch::Contains("formal side stores h at the root"));
  std::filesystem::remove(path);
}

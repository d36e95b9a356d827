// `halo import` (candidates/halide/import.hpp, docs/import.md): the version an .hlpipe
// records, the refusals (tests/import/*.hlpipe, written by tests/import/make_fixtures.py),
// the round trip halo program → Halide (the oracle's translation) → serialize_pipeline →
// import → the same algorithm, for every installed Halide that serializes, and the example
// generator's output (examples/import/). Needs a Halide wheel (19 or later): without one
// the checks say so and are skipped.
#include "candidates/halide/import.hpp"
#include "candidates/halide/versions.hpp"
#include "interp/fast_eval.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/validity.hpp"
#include "support/run_process.hpp"
#include "support.hpp"
#include "cli_support.hpp"
#include "typed_edges.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

namespace halo {
namespace {

using namespace halo::test;

std::string fixture(const std::string& name) { return std::string(HALO_SOURCE_DIR) + "/tests/import/" + name; }

// The installed versions that serialize (19 and later); says so when there is none.
std::vector<halide::HalideVersion> serializing_versions() {
  std::vector<halide::HalideVersion> vs;
  for (const auto& v : halide::installed_halide_versions())
    if (v.major >= 19) vs.push_back(v);
  if (vs.empty()) {
    std::fprintf(stderr, "SKIPPED: no Halide 19 or later is installed (scripts/setup.sh): halo import is not tested\n");
    WARN("no Halide 19 or later installed: the import checks are skipped");
  }
  return vs;
}

bool have_version(int major) {
  if (halide::find_halide_version(major)) return true;
  std::fprintf(stderr, "SKIPPED: Halide %d is not installed\n", major);
  WARN("Halide " << major << " is not installed: check skipped");
  return false;
}

TEST_CASE("import: the Halide version an .hlpipe records, read without Halide", "[import]") {
  std::ifstream f(fixture("accept_histogram.hlpipe"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  CHECK(halide::hlpipe_writer_version(bytes) == "21.0.0");
  CHECK_FALSE(halide::hlpipe_writer_version(""));
  CHECK_FALSE(halide::hlpipe_writer_version("pipeline f() { fun f(x) = { x } }"));
  CHECK_FALSE(halide::hlpipe_writer_version(bytes.substr(0, 40)));  // truncated
  std::string garbage(4096, '\xff');
  CHECK_FALSE(halide::hlpipe_writer_version(garbage));
  // A .halo file given as an .hlpipe is named as such.
  auto r = run_halo({"import", std::string(HALO_SOURCE_DIR) + "/examples/blur.halo"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("not a serialized Halide pipeline"));
}

TEST_CASE("import: what halo cannot express is refused, naming the construct and the func", "[import][halide]") {
  if (!have_version(21)) return;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"refuse_transcendental", "func 'soft_1': exp_f32 (Halide computes exp with its own approximation"},
      {"refuse_tuple", "func 'pair': a Tuple of 2 values"},
      {"refuse_gpu", "func 'gpu_out': the GPU loop"},
      {"refuse_extern", "func 'ext': an extern stage (define_extern)"},
      {"refuse_inline_update", "func 'acc': a func with update stages and no compute level"},
      {"refuse_specializations", "func 'spec', update 0: specializations other than the pure definition's"},
  };
  for (const auto& [name, message] : cases) {
    INFO(name);
    std::string file = fixture(name + ".hlpipe");
    auto r = run_halo({"import", file});
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::StartsWith(file + ":0:0: error: " + message));
    // The other commands refuse it the same way.
    auto o = run_halo({"oracle", file, "--target", "halide@21"});
    CHECK(o.status == 2);
    CHECK_THAT(o.err, Catch::Contains(message));
  }
}

TEST_CASE("import: a version without serialization, and a version not installed, are named", "[import][halide]") {
  if (!have_version(21)) return;
  std::string file = fixture("accept_histogram.hlpipe");
  if (halide::find_halide_version(14)) {
    auto r = run_halo({"import", file, "--halide-version", "14"});
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("Halide 14.0.0 cannot read an .hlpipe"));
  }
  auto r = run_halo({"import", file, "--halide-version", "99"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("written by Halide 21.0.0") && Catch::Contains("no worker for Halide 99"));
}

TEST_CASE("import: an integer pipeline with an RDom update and a vectorized split", "[import][halide]") {
  if (!have_version(21)) return;
  std::string text = halide::import_hlpipe(fixture("accept_histogram.hlpipe"), {});
  CHECK_THAT(text, Catch::StartsWith("# Imported by `halo import` from accept_histogram.hlpipe: written by Halide "
                                     "21.0.0, read with Halide 21.0.0."));
  Program p = parse_valid(text, "imported");
  REQUIRE(p.pipeline.funcs.size() == 2);
  CHECK_FALSE(p.pipeline.typed);  // every type Int(32): the thesis's ℤ program
  const FuncDef& hist = p.pipeline.funcs[0];
  CHECK(hist.name.text == "hist");
  REQUIRE(hist.updates.size() == 1);
  REQUIRE(hist.updates[0].rdom.size() == 1);
  CHECK(hist.updates[0].rdom[0].name.text == "r_x");
  CHECK(print_expr(hist.updates[0].value) == "hist[r_x % 4] + r_x");
  REQUIRE(p.schedule);
  std::vector<std::string> directives;
  for (const Directive& d : *p.schedule) directives.push_back(print_directive(d));
  CHECK(directives == std::vector<std::string>{"split(<hist_out, 0, 0, x>, xo, xi, 2, shift)",
                                               "traverse(<hist_out, 0, 0, xi>, vectorized)"});
  // The file's realization defaults, then the flags'.
  REQUIRE(p.realize);
  CHECK(p.realize->window == std::vector<Interval>{Interval{0, 16, {}}});
  halide::ImportOptions o;
  o.realization.windows = {"-3,5"};
  Program q = parse_valid(halide::import_hlpipe(fixture("accept_histogram.hlpipe"), o), "imported");
  CHECK(q.realize->window == std::vector<Interval>{Interval{-3, 5, {}}});
  // `halo oracle FILE.hlpipe` runs the imported program: halo's pipeline, then Halide.
  auto self = run_halo({"oracle", fixture("accept_histogram.hlpipe")});
  CHECK(self.status == 0);
  auto hl = run_halo({"oracle", fixture("accept_histogram.hlpipe"), "--target", "halide@21", "--window", "0,8"});
  CHECK(hl.status == 0);
  CHECK_THAT(hl.out, Catch::Contains("verdict: holds"));
  // Every command that reads a program reads an .hlpipe.
  for (const char* command : {"check", "eval", "lower", "schedule", "bounds", "run", "explain"}) {
    INFO(command);
    CHECK(run_halo({command, fixture("accept_histogram.hlpipe")}).status == 0);
  }
}

// examples/import/blur_generator.cpp's .hlpipe, as each version's generator wrote it at
// build time: its input, its boundary condition, its types and its schedule come back.
TEST_CASE("import: the example generator's pipeline (examples/import/)", "[import][halide]") {
  for (const halide::HalideVersion& v : serializing_versions()) {
    std::string file = fmt::format("{}/halide{}/import_blur.hlpipe", HALO_IMPORT_EXAMPLE_DIR, v.major);
    INFO(file);
    if (!std::filesystem::exists(file)) {
      WARN("the example generator of Halide " << v.version << " was not built: " << file);
      continue;
    }
    Program p = parse_valid(halide::import_hlpipe(file, {}), file);
    REQUIRE(p.pipeline.inputs.size() == 1);
    CHECK(p.pipeline.inputs[0].name.text == "input_");
    CHECK(p.pipeline.inputs[0].type == Type::uint(8));
    CHECK(p.pipeline.inputs[0].dims() == 2);
    std::vector<std::string> funcs;
    for (const FuncDef& f : p.pipeline.funcs) funcs.push_back(f.name.text);
    CHECK(funcs == std::vector<std::string>{"repeat_edge", "blur_x", "blur_y"});
    const FuncDef& clamped = p.pipeline.funcs[0];
    REQUIRE(clamped.boundary);
    CHECK(clamped.boundary->kind == BoundaryKind::RepeatEdge);
    CHECK(clamped.boundary->source.text == "input_");
    CHECK(p.pipeline.funcs[1].declared == Type::uint(16));
    CHECK(p.pipeline.funcs[2].declared == Type::uint(8));
    REQUIRE(p.schedule);
    std::vector<std::string> directives;
    for (const Directive& d : *p.schedule) directives.push_back(print_directive(d));
    for (const char* d : {"split(<blur_y, 0, 0, x>, xo, xi, 8, shift)", "split(<blur_y, 0, 0, y>, yo, yi, 4, shift)",
                          "compute_inline(repeat_edge)", "compute_at(blur_x, <blur_y, 0, 0, xo>)",
                          "store_at(blur_x, <blur_y, 0, 0, xo>)"}) {
      INFO(d);
      CHECK(std::find(directives.begin(), directives.end(), d) != directives.end());
    }
    REQUIRE(p.realize->inputs.size() == 1);
    CHECK(p.realize->inputs[0].source == InputSourceKind::Seeded);
    CHECK(p.realize->inputs[0].box == std::vector<Interval>{Interval{0, 16, {}}, Interval{0, 16, {}}});
    // halo's own pipeline on it: Theorems 2.1 and 2.2.
    CHECK(run_halo({"oracle", file, "--window", "0,12", "--window", "0,8"}).status == 0);
  }
}

// Every boundary condition of Halide on an input: repeat_edge, repeat_image and
// mirror_image come back as such; constant_exterior (which reads a repeat_edge func of its
// own) and mirror_interior (whose abs Halide casts back) stay Halide's formulas. Either way
// the values are Halide's.
TEST_CASE("import: Halide's boundary conditions on an input", "[import][halide]") {
  if (!have_version(21)) return;
  std::string file = fixture("accept_boundaries.hlpipe");
  Program p = parse_valid(halide::import_hlpipe(file, {}), file);
  std::map<std::string, std::optional<BoundaryKind>> kinds;
  for (const FuncDef& f : p.pipeline.funcs)
    kinds[f.name.text] = f.boundary ? std::optional<BoundaryKind>(f.boundary->kind) : std::nullopt;
  CHECK(kinds.at("repeat_edge") == BoundaryKind::RepeatEdge);
  CHECK(kinds.at("repeat_image") == BoundaryKind::RepeatImage);
  CHECK(kinds.at("mirror_image") == BoundaryKind::MirrorImage);
  CHECK_FALSE(kinds.at("constant_exterior"));
  CHECK_FALSE(kinds.at("mirror_interior"));
  auto r = run_halo({"oracle", file, "--target", "halide@21", "--window", "0,8", "--window", "0,6"});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("verdict: holds"));
}

TEST_CASE("import: a func with updates left inline is computed around the stores of the stage that reads it",
          "[import][halide]") {
  if (!have_version(21)) return;
  // What an inline sum() or maximum() makes: Halide cannot inline it and realizes it inside
  // the innermost loop of its one reader (here through an inlined func), as halo's
  // `schedule halide` defaults say. Before, import refused it.
  std::string file = fixture("accept_inline_update.hlpipe");
  Program p = parse_valid(halide::import_hlpipe(file, {}), file);
  REQUIRE(p.schedule);
  std::vector<std::string> directives;
  for (const Directive& d : *p.schedule) directives.push_back(print_directive(d));
  CHECK(directives == std::vector<std::string>{"split(<inline_reduction_out, 0, 0, x>, xo, xi, 4, shift)",
                                               "compute_inline(partial_plus)",
                                               "compute_at(partial, <inline_reduction_out, 0, 0, xi>)",
                                               "store_at(partial, <inline_reduction_out, 0, 0, xi>)"});
  auto r = run_halo({"oracle", file, "--target", "halide@21"});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("verdict: holds"));
}

TEST_CASE("import: compute_inline comes before a placement at the loop of an inlined func's reader",
          "[import][halide]") {
  if (!have_version(21)) return;
  // produced.compute_at(out, y) where out reads produced through `through`, which Halide
  // inlines: `through` comes after `produced` in realization order, and written in that
  // order halo's dominance check (applied in the written order) refused the import's own
  // schedule.
  std::string file = fixture("accept_inline_reader.hlpipe");
  Program p = parse_valid(halide::import_hlpipe(file, {}), file);
  REQUIRE(p.schedule);
  std::vector<std::string> directives;
  for (const Directive& d : *p.schedule) directives.push_back(print_directive(d));
  CHECK(directives == std::vector<std::string>{"compute_inline(through)",
                                               "compute_at(produced, <inline_reader_out, 0, 0, y>)",
                                               "store_at(produced, <inline_reader_out, 0, 0, y>)"});
  auto r = run_halo({"oracle", file, "--target", "halide@21"});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("verdict: holds"));
}

// `file` translated to Halide as the oracle does, serialized by Halide `v` (its worker's
// --serialize) and imported back with the program's own realization.
Program round_trip(const halide::HalideVersion& v, const std::string& file, const Program& orig, const WorkDir& dir) {
  std::string hlpipe = dir.file("p.hlpipe");
  ProcessResult s = run_process({v.worker, "--serialize", file, hlpipe}, {}, ".", ProcessLimits{});
  INFO(s.output);
  REQUIRE((s.exited && s.exit_code == 0));
  halide::ImportOptions o;
  for (const ParamBinding& b : orig.realize->params) o.realization.params.push_back(b.name.text + "=" + b.value.to_string());
  for (const Interval& w : orig.realize->window) o.realization.windows.push_back(w.min.to_string() + "," + w.len.to_string());
  std::string text = halide::import_hlpipe(hlpipe, o);
  INFO(text);
  Program back = parse_program(text, "imported");
  check_program(back);
  return back;
}

OutputBuffer output_of(const Program& p) { return evaluate_fast(p.pipeline, resolve_input(p, {}), Limits{}); }

// The two programs compute the same output on the original's realization; the first point
// where they differ is shown.
void require_same_output(const Program& orig, const Program& back) {
  OutputBuffer a = output_of(orig), b = output_of(back);
  REQUIRE(a.values.size() == b.values.size());
  for (size_t i = 0; i < a.values.size(); ++i) {
    INFO("point " << i << " of " << a.values.size() << ": " << a.values[i].to_string() << " before, "
                  << b.values[i].to_string() << " imported");
    REQUIRE(a.values[i] == b.values[i]);
  }
}

// Programs of examples/ without inputs: the oracle's translation serialized by each
// version and imported back computes the same output on the program's realization, with the
// same funcs, variables and stages (rfactor adds its intermediate func), and the same
// Halide-only directives.
TEST_CASE("import: round trip halo → Halide → serialize_pipeline → import is the same algorithm",
          "[import][halide]") {
  const std::vector<std::string> files = {
      "examples/blur.halo", "examples/tiled_blur.halo", "examples/halide_style_blur.halo",
      "examples/histogram.halo", "examples/matmul.halo", "examples/sched_fuse.halo",
      "examples/thesis_2_2_tile3.halo", "examples/types/unsharp_u8.halo", "examples/halide/rfactor_sum.halo",
      "examples/specialized_blur.halo", "examples/sched_specialize.halo", "examples/halide/compute_with.halo",
      "examples/halide/async.halo", "examples/halide/fold_storage.halo", "examples/halide/hoist_storage.halo",
      "examples/halide/predicate_tail.halo"};
  for (const halide::HalideVersion& v : serializing_versions()) {
    WorkDir dir("halo-import-test");
    for (const std::string& rel : files) {
      INFO(v.version << " " << rel);
      std::string file = std::string(HALO_SOURCE_DIR) + "/" + rel;
      Program orig = parse_file(file);
      check_program(orig);
      Program back = round_trip(v, file, orig, dir);
      CHECK(back.pipeline.typed == orig.pipeline.typed);
      CHECK(back.pipeline.params.size() == orig.pipeline.params.size());
      for (const FuncDef& f : orig.pipeline.funcs) {
        const FuncDef* g = back.pipeline.find(f.name.text);
        REQUIRE(g);
        CHECK(g->vars == f.vars);
        CHECK(g->stage_count() == f.stage_count());
        if (f.declared) CHECK(g->declared == f.declared);
      }
      CHECK(back.pipeline.funcs.size() == orig.pipeline.funcs.size() + (rel.find("rfactor") != std::string::npos));
      require_same_output(orig, back);
      std::set<DirectiveKind> halide_only, imported;
      // A program without a schedule section has none to compare (never dereference it).
      for (const Directive& d : orig.schedule.value_or(std::vector<Directive>{}))
        if (is_halide_only(d)) halide_only.insert(d.kind);
      for (const Directive& d : back.schedule.value_or(std::vector<Directive>{}))
        if (is_halide_only(d)) imported.insert(d.kind);
      halide_only.erase(DirectiveKind::Rfactor);  // imported as what it built: the intermediate func
      CHECK(imported == halide_only);
    }
  }
}

// Every operator and intrinsic of docs/types.md at every type's edges (typed_edges.hpp), one
// program per type whose rows are the operators: Halide's IR of each (its casts, literals
// of the operand's type, intrinsics) imports back to the same values, undefined points too.
TEST_CASE("import: round trip of every typed operator at every type's edges", "[import][halide][types]") {
  for (const halide::HalideVersion& v : serializing_versions()) {
    WorkDir dir("halo-import-test");
    for (const test::EdgeType& t : test::edge_types()) {
      test::EdgeTable e = test::edge_table(t);
      std::string rows = "0";
      size_t k = 0;
      for (const std::string& op : test::edge_ops()) {
        std::string row = fmt::format("i64({})", test::edge_op(op, t, "a[x]", fmt::format("a[y % {}]", e.size)));
        auto program = [&](const std::string& body, size_t n) {
          return fmt::format("pipeline f({}) {{\n  fun a(x) : {} = {{ {} }}\n  fun f(x, y) : i64 = {{ {} }}\n}}\n"
                             "realize ({}) over (0, {}), (0, {})\n", e.params, t.name, e.table, body, e.binds, e.size, e.size * n);
        };
        try {
          check_program(parse_program(program(row, 1), "<edge>"));
        } catch (const InputError&) {
          continue;  // refused by the typing pass, as by Halide (widening a 64-bit type)
        }
        rows = fmt::format("select(y / {} == {}, {}, {})", e.size, k, row, rows);
        ++k;
        if (k % 8 == 0 || &op == &test::edge_ops().back()) {  // a program every eight operators
          std::string file = dir.file(fmt::format("{}_{}.halo", t.name, k));
          std::ofstream(file) << program(rows, k);
          INFO(v.version << " " << t.name << " up to " << op);
          Program orig = parse_program(program(rows, k), file);
          check_program(orig);
          Program back = round_trip(v, file, orig, dir);
          INFO(print_program(back));
          require_same_output(orig, back);
          rows = "0";
          k = 0;
        }
      }
    }
  }
}

// Floats (docs/floats.md): a float stage with Halide's float functions, serialized by the
// Python bindings of Halide 21, imports to the program halo judges; and a float program of
// every float operator survives the round trip through each installed Halide's serialization.
TEST_CASE("import: float pipelines", "[import][halide][floats]") {
  if (!have_version(21)) return;
  std::string file = fixture("float_stage.hlpipe");
  auto r = run_halo({"import", file});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("fun soft(x) : f32 = { floor(f32(x) * 0.5f) + sqrt(f32(x))"));
  CHECK_THAT(r.out, Catch::Contains("is_nan(f32(x))"));
  auto o = run_halo({"oracle", file, "--target", "halide@21"});
  INFO(o.out << o.err);
  CHECK(o.status == 0);
  const char* src = R"(pipeline f(g : f32) {
  fun a(x) = { f32(x) * 0.1f - g }
  fun b(x) = { f64(a[x]) * f64(0.3) + f64(round(a[x])) + f64(trunc(a[x]) % 0.75f) }
  fun f(x) = { select(b[x] > f64(1), f64(sqrt(abs(a[x]))), floor(b[x])) + f64(reinterpret<f32>(reinterpret<u32>(a[x]) ^ u32(1)))
               + f64(saturating_cast<u8>(a[x] * 100.0f)) + f64(min(a[x], 0.5f)) + f64(lerp(a[x], 2.0f, 0.25f)) }
}
realize (g = 0.45) over (-3, 9)
)";
  for (const halide::HalideVersion& v : serializing_versions()) {
    WorkDir dir("halo-import-float");
    std::string path = dir.file("floats.halo");
    std::ofstream(path) << src;
    Program orig = parse_file(path);
    Program back = round_trip(v, path, orig, dir);
    INFO(v.version << "\n" << print_program(back));
    CHECK(back.pipeline.typed);
    CHECK(back.pipeline.find("b")->type == Type::float_(64));
    require_same_output(orig, back);
  }
}

}  // namespace
}  // namespace halo

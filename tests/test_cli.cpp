// The command line contract of LANGUAGE.md §2: exit statuses, located errors for every
// file of the malformed-input corpus, and the JSON shape of `halo eval --json`.
#include "tests/cli_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

using namespace halo;

namespace {
using test::CliResult;
CliResult run(std::vector<std::string> args) { return test::run_halo(std::move(args)); }

std::string example(const char* name) { return std::string(HALO_SOURCE_DIR) + "/examples/" + name; }
}  // namespace

TEST_CASE("cli: every malformed input gets exit 2 and a located message", "[cli]") {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(std::string(HALO_SOURCE_DIR) + "/tests/invalid"))
    if (e.path().extension() == ".halo" || e.path().extension() == ".tgt") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 30);
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string first;
    std::getline(in, first);
    std::smatch m;
    INFO(f.string());
    REQUIRE(std::regex_search(first, m, std::regex(R"(# expect: (\d+):(\d+))")));
    CliResult r = run({"check", f.string()});
    CHECK(r.status == 2);
    std::string want = f.string() + ":" + m[1].str() + ":" + m[2].str() + ": error: ";
    INFO(r.err);
    CHECK(r.err.rfind(want, 0) == 0);
  }
}

TEST_CASE("cli: negative counts, limits and durations are usage errors, not huge values", "[cli]") {
  // CLI11 converts "-1" to an unsigned option by wrapping it; each numeric limit checks its sign.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"eval", example("blur.halo"), "--max-steps", "-1"},
           {"run", example("blur.halo"), "--max-memory", "-5"},
           {"oracle", example("blur.halo"), "--timeout", "-2"},
           {"fuzz", "--cases", "-3"},
           {"fuzz", "--cases", "0"},
           {"fuzz", "--time", "-1"},
           {"fuzz", "--max-findings", "-1"},
           {"comply", "--engine", "true", "--engine-timeout", "-1"},
           {"explain", example("blur.halo"), "--max-steps", "-1"},
           {"oracle", example("blur.halo"), "--target", "halide", "--halide-timeout", "-1"}}) {
    INFO(fmt::format("{}", fmt::join(args, " ")));
    CliResult r = run(args);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
  }
}

TEST_CASE("cli: check accepts every example silently", "[cli][examples]") {
  for (const char* name : {"thesis_2_2.halo", "thesis_2_2_tile3.halo", "thesis_2_2_round4.halo", "blur.halo",
                           "histogram.halo", "matmul.halo"}) {
    INFO(name);
    CliResult r = run({"check", example(name)});
    CHECK(r.status == 0);
    CHECK(r.out.empty());
    CHECK(r.err.empty());
  }
}

TEST_CASE("cli: eval --json has the LANGUAGE.md shape", "[cli]") {
  CliResult r = run({"eval", example("thesis_2_2.halo"), "--json"});
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["func"] == "f");
  CHECK(j["window"] == nlohmann::json::parse("[[0, 6]]"));
  CHECK(j["values"] == nlohmann::json::parse("[3, 7, 15, 27, 43, 63]"));
}

TEST_CASE("cli: --param and --window override the realize section", "[cli]") {
  CliResult r = run({"eval", example("blur.halo"), "--param", "w=0", "--window", "0,2", "--window", "0,1", "--json"});
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  // With w = 0 the blur is the identity on f: triangle wave of x + y, minus 4.
  CHECK(j["values"] == nlohmann::json::parse("[-4, -3]"));
  CHECK(run({"eval", example("blur.halo"), "--param", "q=1"}).status == 2);
  CHECK(run({"eval", example("blur.halo"), "--param", "w=abc"}).status == 2);
  CHECK(run({"eval", example("blur.halo"), "--window", "0,2"}).status == 2);  // 2-D output
  CHECK(run({"eval", example("blur.halo"), "--window", "0,-1", "--window", "0,1"}).status == 2);
}

TEST_CASE("cli: big integers and errors in JSON", "[cli]") {
  namespace fs = std::filesystem;
  fs::path p = fs::temp_directory_path() / "halo_cli_big.halo";
  std::ofstream(p) << "pipeline f() {\n  fun bad(x) = { 0; rdom(r = (0, -1)) in (x) <- 1 }\n"
                      "  fun f(x) = { select(x == 0, bad[x], 9007199254740993 * x) }\n}\n"
                      "realize () over (0, 2)\n";
  CliResult r = run({"eval", p.string(), "--json"});
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["values"][0] == "err_rdom");  // strict select
  CHECK(j["values"][1] == "err_rdom");
  std::ofstream(p) << "pipeline f() { fun f(x) = { 9007199254740993 * x } }\nrealize () over (0, 2)\n";
  j = nlohmann::json::parse(run({"eval", p.string(), "--json"}).out);
  CHECK(j["values"][0] == 0);
  CHECK(j["values"][1] == "9007199254740993");  // beyond 53 bits: a decimal string
}

TEST_CASE("cli: both evaluators print the same table", "[cli]") {
  CliResult fast = run({"eval", example("blur.halo")});
  CliResult slow = run({"eval", example("blur.halo"), "--evaluator", "derivation"});
  REQUIRE(fast.status == 0);
  CHECK(fast.out == slow.out);
  CHECK(fast.out.find("h on x in (0, 8), y in (0, 6)") == 0);
}

TEST_CASE("cli: --derivation prints the rules of fig. 2.6", "[cli][bigstep]") {
  CliResult r = run({"eval", example("thesis_2_2.halo"), "--derivation", "2"});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("REALIZE") != std::string::npos);
  CHECK(r.out.find("FUNC-EVAL") != std::string::npos);
  CHECK(r.out.find("15") != std::string::npos);  // f(2) = g(2) + g(3) = 5 + 10
  // c reads a past b: the context drops b by FUNC-SKIP.
  namespace fs = std::filesystem;
  fs::path p = fs::temp_directory_path() / "halo_cli_skip.halo";
  std::ofstream(p) << "pipeline c() {\n  fun a(x) = { x }\n  fun b(x) = { x + 1 }\n"
                      "  fun c(x) = { a[x] + b[x] }\n}\nrealize () over (0, 1)\n";
  CliResult skip = run({"eval", p.string(), "--derivation", "3"});
  REQUIRE(skip.status == 0);
  CHECK(skip.out.find("FUNC-SKIP") != std::string::npos);
  CHECK(skip.out.find("7") != std::string::npos);  // c(3) = 3 + 4
  CHECK(run({"eval", example("thesis_2_2.halo"), "--derivation", "1,2"}).status == 2);
}

TEST_CASE("cli: usage errors and resource limits", "[cli]") {
  CHECK(run({}).status == 2);
  CHECK(run({"frobnicate"}).status == 2);
  CHECK(run({"eval"}).status == 2);
  CliResult missing = run({"check", "/nonexistent/file.halo"});
  CHECK(missing.status == 2);
  CHECK(missing.err.find("error:") != std::string::npos);
  CliResult lim = run({"eval", example("matmul.halo"), "--max-steps", "10"});
  CHECK(lim.status == 3);
  CHECK(lim.err.find("--max-steps") != std::string::npos);
  CHECK(run({"--version"}).status == 0);
}

TEST_CASE("cli: lower prints a target program that parses back", "[cli][lower]") {
  for (const char* name : {"thesis_2_2.halo", "blur.halo", "histogram.halo", "matmul.halo"}) {
    INFO(name);
    CliResult r = run({"lower", example(name)});
    REQUIRE(r.status == 0);
    CHECK(r.out.rfind("target pipeline ", 0) == 0);
    namespace fs = std::filesystem;
    fs::path p = fs::temp_directory_path() / "halo_cli_lowered.tgt";
    std::ofstream(p) << r.out;
    CliResult again = run({"check", p.string()});
    CHECK(again.status == 0);
    CliResult j = run({"lower", example(name), "--json"});
    REQUIRE(j.status == 0);
    CHECK(nlohmann::json::parse(j.out).is_object());
  }
}

TEST_CASE("cli: run with a hand-written filling", "[cli][smallstep]") {
  std::string fill = example("thesis_2_2.fill.json");
  CliResult r = run({"run", example("thesis_2_2.halo"), "--fill", fill, "--json"});
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["status"] == "ok");
  CHECK(j["output"]["values"] == nlohmann::json::parse("[3, 7, 15, 27, 43, 63]"));
  // g is computed on (0, 7) and f on (0, 6), as the thesis says of this filling.
  CHECK(j["stats"]["g"]["stores"] == 7);
  CHECK(j["stats"]["f"]["stores"] == 6);
  CHECK(j["stats"]["g"]["allocations"][0]["bounds"] == nlohmann::json::parse("[[0, 7]]"));
  CHECK(j["steps"].get<uint64_t>() > 0);

  // One point too few of g: the last read of g is out of bounds, a memory error (exit 1).
  namespace fs = std::filesystem;
  fs::path shortfill = fs::temp_directory_path() / "halo_short_fill.json";
  std::ofstream(shortfill) << R"({"?mem<g, x>.min": "x_min", "?mem<g, x>.len": "x_len",
    "?cpu<g, *, 0, x>.min": "x_min", "?cpu<g, *, 0, x>.len": "x_len",
    "?mem<f, x>.min": "x_min", "?mem<f, x>.len": "x_len",
    "?cpu<f, *, 0, x>.min": "x_min", "?cpu<f, *, 0, x>.len": "x_len"})";
  CliResult stuck = run({"run", example("thesis_2_2.halo"), "--fill", shortfill.string(), "--json"});
  CHECK(stuck.status == 1);
  CHECK(nlohmann::json::parse(stuck.out)["status"] == "memory_error");

  // A hole filled with a variable outside its scope is bad input.
  fs::path scoped = fs::temp_directory_path() / "halo_scope_fill.json";
  std::ofstream(scoped) << R"({"?mem<g, x>.min": "x"})";
  CliResult bad = run({"run", example("thesis_2_2.halo"), "--fill", scoped.string()});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("not in the hole's scope") != std::string::npos);

  // A filling that leaves holes is bad input too.
  fs::path partial = fs::temp_directory_path() / "halo_partial_fill.json";
  std::ofstream(partial) << R"({"?mem<g, x>.min": "x_min"})";
  CliResult holes = run({"run", example("thesis_2_2.halo"), "--fill", partial.string()});
  CHECK(holes.status == 2);
  CHECK(holes.err.find("still has holes") != std::string::npos);
}

TEST_CASE("cli: run --fill brute-force agrees with eval on every example", "[cli][smallstep]") {
  for (const char* name : {"thesis_2_2.halo", "blur.halo", "histogram.halo", "matmul.halo"}) {
    INFO(name);
    CliResult r = run({"run", example(name), "--fill", "brute-force", "--json"});
    REQUIRE(r.status == 0);
    CliResult e = run({"eval", example(name), "--json"});
    CHECK(nlohmann::json::parse(r.out)["output"] == nlohmann::json::parse(e.out));
  }
}

TEST_CASE("cli: run --trace names the rules of fig. 2.8", "[cli][smallstep]") {
  CliResult r = run({"run", example("thesis_2_2.halo"), "--fill", example("thesis_2_2.fill.json"), "--trace",
                     "--window", "0,1"});
  REQUIRE(r.status == 0);
  for (const char* rule : {"[REALIZE]", "[ALLOC]", "[FOR-ITER]", "[FOR-STOP]", "[IF-T]", "[ASSN]", "[READ]",
                           "[EVAL]", "[VAR]", "[NOP]", "[END]"})
    CHECK(r.out.find(rule) != std::string::npos);
}

TEST_CASE("cli: run completes with β0 by default", "[cli][beta0]") {
  CliResult r = run({"run", example("thesis_2_2.halo"), "--json"});
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["output"]["values"] == nlohmann::json::parse("[3, 7, 15, 27, 43, 63]"));
  // Thesis §2.2, default schedule: g computed and allocated on (0, 7), f on (0, 6).
  CHECK(j["stats"]["g"]["allocations"][0]["bounds"] == nlohmann::json::parse("[[0, 7]]"));
  CHECK(j["stats"]["g"]["stores"] == 7);
  CHECK(j["stats"]["f"]["allocations"][0]["bounds"] == nlohmann::json::parse("[[0, 6]]"));
  CHECK(j["stats"]["f"]["stores"] == 6);
  // β0 has no finite bounds for a data-dependent scatter: the completion is `assert 0`.
  CliResult h = run({"run", example("histogram.halo"), "--json"});
  CHECK(h.status == 1);
  CHECK(nlohmann::json::parse(h.out)["status"] == "assertion_failure");
  CHECK(h.err.find("β0 found no finite bounds") != std::string::npos);
}

TEST_CASE("cli: bounds prints the query, β0's substitution and the completed program", "[cli][beta0]") {
  CliResult r = run({"bounds", example("thesis_2_2.halo")});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("∀ x_min") != std::string::npos);
  CHECK(r.out.find("[x_min, x_len] ∈ ?cpu<f, *, 0>") != std::string::npos);
  // Over an empty window g is empty too (semantics decision 17).
  CHECK(r.out.find("?mem<g, x>.len = select(x_len > 0, x_len + 1, 0)") != std::string::npos);
  CHECK(r.out.find("allocate g((x_min, select(x_len > 0, x_len + 1, 0)));") != std::string::npos);
  CliResult j = run({"bounds", example("blur.halo"), "--json"});
  REQUIRE(j.status == 0);
  auto doc = nlohmann::json::parse(j.out);
  CHECK(doc["beta0"]["ok"] == true);
  CHECK(doc.contains("query"));
  CHECK(doc.contains("completed"));
}

TEST_CASE("cli: bounds --literal and the literal figure as an engine", "[cli][beta0][literal]") {
  CliResult r = run({"bounds", example("downsample.halo"), "--literal", "--json"});
  REQUIRE(r.status == 0);
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["beta0"]["rules"] == "literal");
  CHECK(doc["beta0"]["ok"] == true);
  CliResult ours = run({"bounds", example("downsample.halo"), "--json"});
  CHECK(nlohmann::json::parse(ours.out)["beta0"]["rules"] == "halo");
  CHECK(doc["beta0"]["substitution"] != nlohmann::json::parse(ours.out)["beta0"]["substitution"]);
  CliResult text = run({"bounds", example("downsample.halo"), "--literal"});
  CHECK(text.out.find("as fig. 2.10b prints them") != std::string::npos);
  CHECK(run({"bounds", example("downsample.halo"), "--literal", "--engine", "beta1"}).status == 2);
  // As an engine: Def. 2.5 holds here, and the points stored say how much looser it is.
  CliResult o = run({"oracle", example("downsample.halo"), "--engine", "beta0-literal", "--json"});
  REQUIRE(o.status == 0);
  auto v = nlohmann::json::parse(o.out);
  CHECK(v["stores"]["beta0"] == 12);   // g on 0..3, out on 0..7
  CHECK(v["stores"]["engine"] == 23);  // g on -7..7
  CliResult t = run({"oracle", example("downsample.halo"), "--engine", "beta0-literal"});
  CHECK(t.out.find("points stored: the engine's completion 23, β0's 12") != std::string::npos);
}

TEST_CASE("cli: oracle holds on every example", "[cli][oracle]") {
  for (const char* name : {"thesis_2_2.halo", "thesis_2_2_tile3.halo", "thesis_2_2_round4.halo", "blur.halo",
                           "histogram.halo", "matmul.halo"}) {
    INFO(name);
    CliResult r = run({"oracle", example(name), "--json"});
    CHECK(r.status == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["verdict"] == "holds");
    CHECK(j["memory_safe"] == true);
    CHECK(j["confluent"] == true);
    for (const char* key : {"assertion_failed", "reference_has_error", "detail"}) CHECK(j.contains(key));
  }
  CliResult text = run({"oracle", example("blur.halo"), "--param", "w=2"});
  CHECK(text.status == 0);
  CHECK(text.out.find("Theorem 2.1 (memory safety):        holds") != std::string::npos);
}

namespace {
// A shell engine that ignores the query and answers `answer`.
std::string engine_answering(const std::string& name, const std::string& answer) {
  namespace fs = std::filesystem;
  fs::path ans = fs::temp_directory_path() / (name + ".json");
  std::ofstream(ans) << answer;
  return "cat > /dev/null; cat " + ans.string();
}
const char* kTight = R"({"holes": {"?mem<g, x>.min": "x_min", "?mem<g, x>.len": "x_len + 1",
  "?cpu<g, *, 0, x>.min": "x_min", "?cpu<g, *, 0, x>.len": "x_len + 1",
  "?mem<f, x>.min": "x_min", "?mem<f, x>.len": "x_len",
  "?cpu<f, *, 0, x>.min": "x_min", "?cpu<f, *, 0, x>.len": "x_len"}})";
}  // namespace

TEST_CASE("cli: external bounds engines and Def. 2.5", "[cli][oracle][engine]") {
  std::string file = example("thesis_2_2.halo");
  auto oracle = [&](const std::string& engine, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"oracle", file, "--json", "--engine", engine};
    args.insert(args.end(), extra.begin(), extra.end());
    CliResult r = run(args);
    INFO(r.out << r.err);
    REQUIRE(!r.out.empty());
    return std::pair{r.status, nlohmann::json::parse(r.out)};
  };
  {  // As good as β0: everything holds.
    auto [status, j] = oracle(engine_answering("tight", kTight));
    CHECK(status == 0);
    CHECK(j["verdict"] == "holds");
    CHECK(j["quality"] == true);
  }
  {  // Unsound: g's buffer one point short. Theorem 2.1 is violated, and the query says why.
    std::string ans = kTight;
    ans.replace(ans.find("\"x_len + 1\""), 11, "\"x_len\"");
    auto [status, j] = oracle(engine_answering("short", ans));
    CHECK(status == 1);
    CHECK(j["memory_safe"] == false);
    CHECK(j["detail"].get<std::string>().find("first violated conjunct of B(T)") != std::string::npos);
  }
  {  // Weak: always gives up. Safe, but Def. 2.5 catches it.
    auto [status, j] = oracle(R"(cat > /dev/null; echo '{"fail": "I never try"}')");
    CHECK(status == 1);
    CHECK(j["quality"] == false);
    CHECK(j["assertion_failed"] == true);
    CHECK(j["detail"].get<std::string>().find("Def. 2.5") != std::string::npos);
  }
  // Engines that misbehave are findings, never crashes of halo.
  for (const std::string& bad : {std::string("kill -SEGV $$"), std::string("cat > /dev/null; echo not json"),
                                 std::string("exit 3"), std::string("echo '{\"holes\": {\"?mem<g, x>.min\": \"x\"}}'"),
                                 std::string("echo '{\"holes\": {}}'")}) {
    INFO(bad);
    auto [status, j] = oracle(bad);
    CHECK(status == 1);
    CHECK(j["engine_failed"] == true);
  }
  auto [status, j] = oracle("sleep 30", {"--engine-timeout", "0.5"});
  CHECK(status == 1);
  CHECK(j["detail"].get<std::string>().find("no answer within") != std::string::npos);
  // run and bounds take the same engines.
  CliResult r = run({"run", file, "--engine", engine_answering("tight2", kTight), "--json"});
  CHECK(r.status == 0);
  CHECK(nlohmann::json::parse(r.out)["output"]["values"] == nlohmann::json::parse("[3, 7, 15, 27, 43, 63]"));
  CliResult b = run({"bounds", file, "--engine", engine_answering("tight3", kTight)});
  CHECK(b.status == 0);
  CHECK(b.out.find("?mem<g, x>.len = x_len + 1") != std::string::npos);
}

TEST_CASE("cli: check reports a directive that breaks a rule of §2.8", "[cli][schedule]") {
  namespace fs = std::filesystem;
  fs::path p = fs::temp_directory_path() / "halo_bad_schedule.halo";
  std::ofstream(p) << "pipeline f() {\n  fun g(x) = { x }\n  fun f(x) = { g[x] }\n}\n"
                      "schedule {\n  swap(<f, 0, 0, x>);\n}\nrealize () over (0, 2)\n";
  CliResult r = run({"check", p.string()});
  CHECK(r.status == 2);
  CHECK(r.err.rfind(p.string() + ":6:3: error: ", 0) == 0);
}

namespace {
std::string temp_halo(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / fmt::format("halo-cli-{}-{}.halo", name, ::getpid());
  std::ofstream(path) << text;
  return path.string();
}
const char* const kTwoFuncs = R"(pipeline f() {
  fun g(x) = { x * 3 }
  fun f(x) = { g[x] + g[x + 1] }
}
)";
}  // namespace

TEST_CASE("cli: check takes the common options --param and --window", "[cli]") {
  CHECK(run({"check", example("blur.halo"), "--param", "w=2", "--window", "0,8", "--window", "0,6"}).status == 0);
  CliResult unknown = run({"check", example("blur.halo"), "--param", "nothing=1"});
  CHECK(unknown.status == 2);
  CHECK_THAT(unknown.err, Catch::Contains("nothing"));
  CliResult dims = run({"check", example("blur.halo"), "--window", "0,8"});
  CHECK(dims.status == 2);
}

TEST_CASE("cli: eval and lower warn about an invalid schedule they never use", "[cli]") {
  std::string invalid = temp_halo("invalid-schedule", std::string(kTwoFuncs) +
                                                          "schedule {\n  compute_at(h, <f, 0, 0, x>);\n}\n"
                                                          "realize () over (0, 4)\n");
  std::string broken = temp_halo("broken-schedule", std::string(kTwoFuncs) +
                                                        "schedule {\n  split(<f, 0, 0, x>, xo\n}\n"
                                                        "realize () over (0, 4)\n");
  std::string bare = temp_halo("no-schedule", std::string(kTwoFuncs) + "realize () over (0, 4)\n");
  CliResult reference = run({"eval", bare, "--json"});
  REQUIRE(reference.status == 0);
  for (const auto& [file, at] : {std::pair{invalid, ":6:14: "}, std::pair{broken, ":7:1: "}}) {
    INFO(file);
    CliResult e = run({"eval", file, "--json"});
    CHECK(e.status == 0);
    CHECK(e.out == reference.out);
    CHECK_THAT(e.err, Catch::Contains(file + at + "warning: ") &&
                          Catch::Contains("(the schedule is not used here)"));
    CliResult l = run({"lower", file});
    CHECK(l.status == 0);
    CHECK_THAT(l.err, Catch::Contains(": warning: "));
    CliResult c = run({"check", file});
    CHECK(c.status == 2);
    CHECK_THAT(c.err, Catch::Contains(file + at + "error: "));
  }
  for (const auto& f : {invalid, broken, bare}) std::filesystem::remove(f);
}

TEST_CASE("cli: schedule --steps shows the steps before a rejected directive then the error", "[cli]") {
  std::string file = temp_halo("rejected-step", std::string(kTwoFuncs) +
                                                    "schedule {\n  split(<f, 0, 0, x>, xo, xi, 2, guard);\n"
                                                    "  swap(<f, 0, 0, xi>);\n}\nrealize () over (0, 4)\n");
  CliResult r = run({"schedule", file, "--steps"});
  CHECK(r.status == 2);
  CHECK_THAT(r.out, Catch::Contains("# L(P): the lowered program") &&
                        Catch::Contains("# after split(<f, 0, 0, x>, xo, xi, 2, guard)") &&
                        Catch::Contains("# after swap(<f, 0, 0, xi>): rejected (the error follows on stderr)"));
  CHECK_THAT(r.err, Catch::Contains(file + ":7:3: error: "));
  std::filesystem::remove(file);
}

TEST_CASE("cli: schedule --steps names the vocabulary call of each step and the directives phase order moved",
          "[cli][vocabulary]") {
  CliResult r = run({"schedule", example("halide_style_blur.halo"), "--steps"});
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("# after split(<blur_y, 0, 0, x>, xo, xi, 8, guard) (from tile(blur_y, x, y, xo, "
                                    "yo, xi, yi, 8, 4) at 18:3)"));
  CHECK_THAT(r.out, Catch::Contains("# after compute_at(blur_x, <blur_y, 0, 0, xo>)"));
  CHECK_THAT(r.out, Catch::Contains("# after compute_inline(image)"));
  // store_at was written before compute_at and compute_inline, and applied after them.
  CHECK_THAT(r.out, Catch::Contains("# after store_at(blur_x, <blur_y, 0, 0, xo>)"));
  CHECK_THAT(r.out, Catch::Contains("applied in fig. 2.11's phase order"));
}

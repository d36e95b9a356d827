// Campaigns end to end, through the `halo` binary where a process boundary matters
// (issue "fuzzing campaigns"): the oracle catches halo builds with a deliberately broken
// directive (HALO_MUTATION, support/test_mutation.hpp) and the finding is the mutation's; --shard
// partitions a campaign exactly; Ctrl-C stops a campaign and keeps its findings;
// `halo comply` catches the weak and the unsound example engines of examples/engines/ and
// passes β0 itself; the libFuzzer-style target replays a corpus and aborts on a finding.
#include "support/test_mutation.hpp"
#include "candidates/halide/versions.hpp"
#include "tests/cli_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

using namespace halo;
namespace fs = std::filesystem;

namespace {

struct Proc {
  int status = -1;  // the exit status, or 128 + the signal, as a shell reports it
  std::string out;
};

// Runs a shell command line, capturing its standard output.
Proc shell(const std::string& command) {
  Proc p;
  FILE* f = popen(command.c_str(), "r");
  REQUIRE(f != nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) p.out.append(buf, n);
  int st = pclose(f);
  p.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return p;
}

using test::CliResult;
CliResult run(std::vector<std::string> args) { return test::run_halo(std::move(args)); }

// Per process: two test runs at once (a Release and a sanitizer build) must not share one.
fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

const std::string kHalo = HALO_BINARY;
const std::string kSource = HALO_SOURCE_DIR;

}  // namespace

TEST_CASE("campaign: each deliberately broken directive is caught, and the finding is the mutation's",
          "[fuzz][campaign][mutation]") {
  for (std::string_view mutation : kTestMutations) {
    std::string m(mutation);
    INFO("HALO_MUTATION=" << m);
    fs::path dir = fresh_dir("halo_test_mutation_" + m);
    Proc p = shell("HALO_MUTATION=" + m + " " + kHalo + " fuzz --target self --cases 2000 --seed 1 --max-findings 1 " +
                   "--shrink-tries 150 --json --out " + dir.string() + " 2>/dev/null");
    INFO(p.out);
    CHECK(p.status == 1);
    nlohmann::json j = nlohmann::json::parse(p.out);
    REQUIRE(j["findings"] == 1);
    const nlohmann::json& f = j["finding_records"][0];
    std::string verdict = f["verdict"];
    CHECK((verdict == "confluence" || verdict == "memory-safety"));
    std::string file = (dir / f["halo"].get<std::string>()).string();
    REQUIRE(fs::exists(file));
    // The minimized case fails with the mutation; without it, it passes, or its schedule
    // is rejected by the very rule the mutation skips (exit 2, as `halo check` would).
    CHECK(shell("HALO_MUTATION=" + m + " " + kHalo + " fuzz --replay " + file + " 2>/dev/null").status == 1);
    Proc clean = shell(kHalo + " fuzz --replay " + file + " 2>&1");
    INFO(clean.out);
    if (m == "compute-at-no-dominance") {
      CHECK(clean.status == 2);
      CHECK(clean.out.find("would break dominance (Lemma 2.5") != std::string::npos);
    } else {
      CHECK(clean.status == 0);
    }
    // And so does the libFuzzer input of the original case: the target aborts (a crash,
    // for libFuzzer) with the mutation, and `halo fuzz --fuzzer-input` shrinks it again.
    fs::path input = dir / "input";
    {
      std::ofstream bytes(input, std::ios::binary);
      std::string hex = f["fuzzer_input"];
      for (size_t i = 0; i + 1 < hex.size(); i += 2) bytes.put(char(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    CHECK(shell("HALO_MUTATION=" + m + " " + HALO_FUZZ_TARGET + " " + input.string() + " 2>/dev/null").status ==
          128 + SIGABRT);
    CHECK(shell(std::string(HALO_FUZZ_TARGET) + " " + input.string() + " 2>/dev/null").status == 0);
    Proc again = shell("HALO_MUTATION=" + m + " " + kHalo + " fuzz --fuzzer-input " + input.string() +
                       " --shrink-tries 0 --json 2>/dev/null");
    CHECK(again.status == 1);
    CHECK(nlohmann::json::parse(again.out)["finding_records"][0]["verdict"] == verdict);
    fs::remove_all(dir);
  }
}

TEST_CASE("campaign: the libFuzzer-style target replays a seed corpus", "[fuzz][campaign]") {
  fs::path dir = fresh_dir("halo_test_corpus");
  REQUIRE(shell(std::string(HALO_FUZZ_TARGET) + " --write-corpus " + dir.string() + " 12 20261121").status == 0);
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += fs::file_size(e.path()) == 33;
  CHECK(files == 12);
  CHECK(shell(std::string(HALO_FUZZ_TARGET) + " " + dir.string() + " 2>/dev/null").status == 0);
  CHECK(shell(std::string(HALO_FUZZ_TARGET) + " 2>/dev/null").status == 2);
  fs::remove_all(dir);
}

// The Halide decoder (HALO_FUZZ_CASES_HALIDE): case 348 of campaign seed 3 of the Halide
// generator (`halo fuzz --target halide@14 --seed 3`) crashes Halide 14's compiler and
// passes in 19 and 21 (its record's history). The target aborts on it against 14 alone,
// and `halo fuzz --fuzzer-input` classifies it the same way.
TEST_CASE("campaign: the libFuzzer-style Halide target aborts on a Halide finding and replays it", "[fuzz][campaign][halide]") {
  fs::path dir = fresh_dir("halo_test_halide_target");
  fs::create_directories(dir);
  fs::path input = dir / "input";
  {
    std::ofstream bytes(input, std::ios::binary);
    const std::string hex = "03000000000000005c01000000000000657361636f6c6168000000000000000060";
    for (size_t i = 0; i + 1 < hex.size(); i += 2) bytes.put(char(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  const std::string target = HALO_FUZZ_HALIDE_TARGET;
  Proc crash = shell("HALO_FUZZ_HALIDE=14 " + target + " " + input.string() + " 2>&1");
  CHECK(crash.status == 128 + SIGABRT);
  CHECK(crash.out.find("halo fuzz target: finding: halide-crash:compile") != std::string::npos);
  Proc replay = shell(kHalo + " fuzz --target halide@14 --fuzzer-input " + input.string() +
                      " --shrink-tries 0 --json 2>/dev/null");
  CHECK(replay.status == 1);
  CHECK(nlohmann::json::parse(replay.out)["finding_records"][0]["verdict"].get<std::string>().rfind(
            "halide-crash:compile", 0) == 0);
  if (!halide::find_halide_version(19) && !halide::find_halide_version(21))
    WARN("no Halide 19 or 21 installed: the input's passing in a newer Halide is not checked");
  for (int newer : {19, 21})
    if (halide::find_halide_version(newer))
      CHECK(shell("HALO_FUZZ_HALIDE=" + std::to_string(newer) + " " + target + " " + input.string() + " 2>/dev/null")
                .status == 0);
  Proc missing = shell("HALO_FUZZ_HALIDE=7 " + target + " " + input.string() + " 2>&1");
  CHECK(missing.status == 2);
  CHECK(missing.out.find("halide@7: not an installed Halide") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("campaign: --shard i/n splits a campaign into exactly its cases", "[fuzz][campaign]") {
  auto campaign = [](const std::string& shard) {
    CliResult r = run({"fuzz", "--target", "self", "--cases", "30", "--seed", "11", "--shard", shard, "--json"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.out);
  };
  nlohmann::json whole = campaign("0/1");
  CHECK(whole["cases"] == 30);
  std::map<std::string, uint64_t> sum;
  uint64_t cases = 0;
  for (const char* shard : {"0/3", "1/3", "2/3"}) {
    nlohmann::json part = campaign(shard);
    CHECK(part["cases"] == 10);
    cases += part["cases"].get<uint64_t>();
    for (const char* table : {"directives", "features"})
      for (const auto& [name, n] : part["coverage"][table].items()) sum[std::string(table) + "." + name] += n.get<uint64_t>();
  }
  CHECK(cases == 30);
  for (const char* table : {"directives", "features"})
    for (const auto& [name, n] : whole["coverage"][table].items()) {
      INFO(table << "." << name);
      CHECK(sum[std::string(table) + "." + name] == n.get<uint64_t>());
    }
  // Malformed shards are usage errors.
  for (const char* bad : {"3/3", "1", "a/b", "-1/2", "0/0"}) {
    INFO(bad);
    CliResult r = run({"fuzz", "--cases", "1", "--shard", bad});
    CHECK(r.status == 2);
    CHECK(r.err.find("--shard") != std::string::npos);
  }
}

TEST_CASE("campaign: Ctrl-C stops a campaign cleanly and keeps its findings", "[fuzz][campaign]") {
  fs::path dir = fresh_dir("halo_test_interrupt");
  fs::path out = fresh_dir("halo_test_interrupt.json");
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    setenv("HALO_MUTATION", "split-guard-dropped", 1);
    FILE* o = freopen(out.c_str(), "w", stdout);
    FILE* e = freopen("/dev/null", "w", stderr);
    (void)o, (void)e;
    execl(kHalo.c_str(), "halo", "fuzz", "--target", "self", "--time", "120", "--seed", "1", "--shrink-tries", "50",
          "--json", "--out", dir.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait for the first finding on disk, then interrupt.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(100);
  bool found = false;
  while (!found && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) found |= e.path().extension() == ".json";
  }
  CHECK(found);
  auto sent = std::chrono::steady_clock::now();
  kill(pid, SIGINT);
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK(std::chrono::steady_clock::now() - sent < std::chrono::seconds(30));
  REQUIRE(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 1);
  std::ifstream in(out);
  nlohmann::json j = nlohmann::json::parse(in);
  CHECK(j["interrupted"] == true);
  REQUIRE(j["findings"].get<uint64_t>() >= 1);
  for (const auto& f : j["finding_records"]) CHECK(fs::exists(dir / f["halo"].get<std::string>()));
  fs::remove_all(dir);
  fs::remove(out);
}

TEST_CASE("comply: the weak and the unsound example engines are caught with minimized cases, and β0 complies",
          "[fuzz][campaign][engine]") {
  auto comply = [&](const std::string& engine, const std::string& dir) {
    CliResult r = run({"comply", "--engine", "HALO=" + kHalo + " " + engine, "--cases", "40", "--seed", "3",
                       "--max-findings", "1", "--shrink-tries", "60", "--json", "--out", dir});
    INFO(r.out << r.err);
    REQUIRE(!r.out.empty());
    return std::pair{r.status, nlohmann::json::parse(r.out)};
  };
  {  // Always gives up: safe, but Def. 2.5 rejects it.
    fs::path dir = fresh_dir("halo_test_comply_weak");
    auto [status, j] = comply(kSource + "/examples/engines/give_up.sh", dir.string());
    CHECK(status == 1);
    REQUIRE(j["findings"] == 1);
    CHECK(j["finding_records"][0]["verdict"] == "quality");
    CHECK(j["finding_records"][0]["shrink"]["minimized_chars"].get<uint64_t>() < 100);
    fs::remove_all(dir);
  }
  {  // Shrinks a bound: Theorem 2.1, and the minimized case replays with `halo oracle --engine`.
    fs::path dir = fresh_dir("halo_test_comply_unsound");
    std::string engine = kSource + "/examples/engines/shrink_bound.sh";
    auto [status, j] = comply(engine, dir.string());
    CHECK(status == 1);
    REQUIRE(j["findings"] == 1);
    const nlohmann::json& f = j["finding_records"][0];
    std::string verdict = f["verdict"];
    CHECK((verdict == "memory-safety" || verdict == "confluence"));
    CHECK(f["engine"].get<std::string>().find("shrink_bound.sh") != std::string::npos);
    CliResult o = run({"oracle", (dir / f["halo"].get<std::string>()).string(), "--json", "--engine",
                       "HALO=" + kHalo + " " + engine});
    CHECK(o.status == 1);
    CHECK(nlohmann::json::parse(o.out)["verdict"] == "violated");
    fs::remove_all(dir);
  }
  {  // β0 itself, behind the engine protocol, complies.
    CliResult r = run({"comply", "--engine", kHalo + " beta0-engine", "--cases", "25", "--seed", "3", "--json"});
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["findings"] == 0);
    CHECK(j["coverage"]["outcomes"]["engine:filled"].get<uint64_t>() > 0);
  }
}

TEST_CASE("beta0-engine: answers a query document with β0's substitution, and rejects other input", "[fuzz][engine]") {
  // The document halo sends, from `halo oracle --engine` with an engine that saves it.
  fs::path doc = fresh_dir("halo_test_query_doc.json");
  std::string example = kSource + "/examples/thesis_2_2.halo";
  run({"oracle", example, "--engine", "cat > " + doc.string() + "; echo '{\"fail\": \"x\"}'"});
  REQUIRE(fs::exists(doc));
  CliResult r = run({"beta0-engine", doc.string()});
  CHECK(r.status == 0);
  nlohmann::json answer = nlohmann::json::parse(r.out);
  CHECK(answer["holes"]["?mem<g, x>.len"] == "select(x_len > 0, x_len + 1, 0)");
  // One hole per line, for line-oriented tools.
  CHECK(size_t(std::count(r.out.begin(), r.out.end(), '\n')) >= answer["holes"].size() + 2);
  fs::path bad = fresh_dir("halo_test_not_a_doc.json");
  std::ofstream(bad) << "{\"holes\": []}";
  CliResult e = run({"beta0-engine", bad.string()});
  CHECK(e.status == 2);
  CHECK(e.err.find("\"program\"") != std::string::npos);
  fs::remove(doc);
  fs::remove(bad);
}

TEST_CASE("replay --shrink minimizes a finding file again and keeps the failure", "[fuzz][cli]") {
  // The literal figure's Def. 2.5 violation (docs/beta0.md) with a needlessly long f0: the
  // structural reductions bring f0 back to 0 and the shrunk file fails the same way.
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("halo_replay_shrink_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "case.halo") << R"(pipeline f1() {
  fun f0(x) = { x * 0 + 0 * 7 }
  fun f1(x) = { f0[x] }
}
schedule {
  specialize(f1, 0);
  split(<f1, 1, 0, x>, xo, xi, 3, round);
  bound(f0, x, 0, 3);
}
realize () over (0, 1)
)";
  test::CliResult r = test::run_halo({"comply", "--engine", "beta0-literal", "--replay", (dir / "case.halo").string(),
                                      "--shrink", "--out", (dir / "out").string(), "--json"});
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["replayed"][0].contains("shrunk"));
  std::ifstream in(j["replayed"][0]["shrunk"].get<std::string>());
  std::string shrunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(shrunk.find("fun f0(x) = { 0 }") != std::string::npos);
  CHECK(shrunk.find("still: quality") != std::string::npos);
  test::CliResult again = test::run_halo({"comply", "--engine", "beta0-literal", "--replay",
                                          j["replayed"][0]["shrunk"].get<std::string>()});
  CHECK(again.status == 1);
  std::filesystem::remove_all(dir);
}

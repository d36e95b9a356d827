// Adversarial inputs and candidates (issue 20): each case reproduces a failure that once
// crashed, hung or misreported halo, quickly, and requires the documented outcome: exit 2
// with a located message for bad input, exit 3 for a resource limit, a classified finding
// for a bad candidate, halo back within its limit plus one second, and no process of a
// candidate left running.
#include "support/big_stack.hpp"
#include "candidates/halide/halide_oracle.hpp"
#include "fuzz/campaign.hpp"
#include "candidates/halide/versions.hpp"
#include "support/worker_process.hpp"
#include "candidates/kernel/kernel_manifest.hpp"
#include "support/candidate_output.hpp"
#include "support/child_processes.hpp"
#include "support/run_process.hpp"
#include "support/json_text.hpp"
#include "support/diagnostics.hpp"
#include "support/run_process.hpp"
#include "support/output_file.hpp"
#include "support/standard_output.hpp"
#include "semantics/lexer.hpp"
#include "semantics/parser.hpp"
#include "schedule/schedule.hpp"
#include "support.hpp"
#include "support/diagnostics.hpp"
#include "tests/cli_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <functional>
#include <sstream>
#include <iterator>
#include <map>
#include <string>
#include <thread>

using namespace halo;
namespace fs = std::filesystem;

namespace {

using test::CliResult;
CliResult run(std::vector<std::string> args) { return test::run_halo(std::move(args)); }

const std::string kSource = HALO_SOURCE_DIR;
std::string example(const std::string& name) { return kSource + "/examples/" + name; }

struct Scratch : test::Scratch {
  explicit Scratch(const std::string& name) : test::Scratch("rel", name) {}
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// How many live (not zombie) processes have a /proc/PID/`file` for which `matches` holds.
int count_processes(const char* file, const std::function<bool(const std::string&)>& matches) {
  int n = 0;
  // A process may exit while it is read: libstdc++ then throws from the read (ESRCH), and
  // the process no longer counts.
  auto read_proc = [](const fs::path& path) -> std::optional<std::string> {
    try {
      std::ifstream in(path, std::ios::binary);
      return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    } catch (const std::exception&) {
      return std::nullopt;
    }
  };
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::optional<std::string> stat = read_proc(e.path() / "stat");
    if (!stat) continue;
    auto close = stat->rfind(')');
    if (close != std::string::npos && close + 2 < stat->size() && (*stat)[close + 2] == 'Z') continue;
    std::optional<std::string> text = read_proc(e.path() / file);
    if (text && matches(*text)) ++n;
  }
  return n;
}

// Processes that carry a candidate marker of process `pid` (support/child_processes.hpp).
int marked_processes(pid_t pid = ::getpid()) {
  std::string prefix = "HALO_CANDIDATE=" + std::to_string(pid) + "-";
  return count_processes("environ", [&](const std::string& env) { return env.find(prefix) != std::string::npos; });
}

// `halo run PROGRAM --engine ENGINE` as a separate process (output discarded), so that a
// signal to it ends halo and not the tests.
pid_t start_halo_run(const std::string& program, const std::string& engine) {
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execl(HALO_BINARY, "halo", "run", program.c_str(), "--engine", engine.c_str(), "--engine-timeout", "30",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// A killed process takes a moment to disappear from /proc. `baseline`: the candidates that
// ran before (a long-lived Halide worker an earlier test of the same run left warm).
bool no_candidate_left(int baseline = 0) {
  for (int i = 0; i < 50; ++i) {
    if (marked_processes() <= baseline) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace

TEST_CASE("reliability: files that are not regular files are refused with exit 2", "[reliability]") {
  Scratch s("files");
  for (const std::string cmd : {"check", "bounds", "run"}) {
    CliResult r = run({cmd, s.dir.string()});
    CHECK(r.status == 2);
    CHECK(r.err.find("is a directory") != std::string::npos);
  }
  auto t0 = std::chrono::steady_clock::now();
  CliResult z = run({"check", "/dev/zero"});
  CHECK(z.status == 2);
  CHECK(z.err.find("not a regular file") != std::string::npos);
  CliResult fill = run({"run", example("thesis_2_2.halo"), "--fill", "/dev/zero"});
  CHECK(fill.status == 2);
  CliResult fi = run({"fuzz", "--target", "self", "--fuzzer-input", s.dir.string()});
  CHECK(fi.status == 2);
  CHECK(fi.err.find("is a directory") != std::string::npos);
  CHECK(seconds_since(t0) < 5);
  CHECK_THROWS_AS(read_source_file("/dev/zero"), InputError);
}

TEST_CASE("reliability: out-of-range flags are usage errors", "[reliability]") {
  std::string p = example("thesis_2_2.halo");
  CHECK(run({"eval", p, "--max-memory", "17592186044416"}).status == 2);
  CHECK(run({"eval", p, "--timeout", "nan"}).status == 2);
  CHECK(run({"eval", p, "--timeout", "inf"}).status == 2);
  CHECK(run({"eval", p, "--max-steps", "-1"}).status == 2);
  CHECK(run({"fuzz", "--target", "self", "--time", "nan"}).status == 2);
  CHECK(run({"fuzz", "--target", "self", "--seed", "-1"}).status == 2);
  CHECK(run({"fuzz", "--target", "self", "--case-timeout", "nan"}).status == 2);
  // The shard's stride does not wrap: 5/(2^64 - 1) is case 5 alone.
  CliResult one = run({"fuzz", "--target", "self", "--shard", "5/18446744073709551615", "--json"});
  INFO(one.err);
  REQUIRE(one.status == 0);
  CHECK(nlohmann::json::parse(one.out)["cases"] == 1);
}

TEST_CASE("reliability: numbers out of range and bad UTF-8 in JSON input are located input errors",
          "[reliability]") {
  Scratch s("json");
  std::string fill = s.write("fill.json", R"({"?mem<g, x>.min": 1e400})");
  CliResult r = run({"run", example("thesis_2_2.halo"), "--fill", fill});
  CHECK(r.status == 2);
  CHECK(r.err.find("fill.json") != std::string::npos);
  std::string q = s.write("q.json", R"({"program": 1e400})");
  CHECK(run({"beta0-engine", q}).status == 2);
  CHECK_THROWS_AS(parse_kernel_manifest_text(R"({"platform": "c", "x": 1e400})", "m.json"), InputError);
  // A path longer than the system's limit (found by libFuzzer in halo_fuzz_manifest: the
  // filesystem call threw, an internal error) is a file that does not exist.
  const std::string long_name(5000, 'g');
  for (const std::string& key : {"spec", "sources"}) {
    std::string value = key == std::string("spec") ? "\"" + long_name + "\"" : "[\"" + long_name + "\"]";
    try {
      parse_kernel_manifest_text(R"({"platform": "c", ")" + key + "\": " + value + "}", "m.json");
      FAIL("a manifest naming a path of 5000 characters was accepted");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains("no such file"));
    }
  }
  // Nesting beyond the limit is refused before anything recurses over it.
  std::string deep = std::string(200000, '[') + std::string(200000, ']');
  CHECK(json_nesting_depth(deep) == 200000);
  CHECK_THROWS_AS(parse_json_text(deep, "deep.json"), InputError);
  // Output never throws on bytes that are not UTF-8.
  CHECK(json_text(nlohmann::json{{"x", std::string("a\xff\xfe")}}).find("\xef\xbf\xbd") != std::string::npos);
}

TEST_CASE("reliability: engines that misbehave are classified findings, and leave nothing running",
          "[reliability][engine]") {
  std::string p = example("thesis_2_2.halo");
  auto engine = [&](const std::string& script, const std::string& timeout = "2") {
    auto t0 = std::chrono::steady_clock::now();
    CliResult r = run({"run", p, "--engine", script, "--engine-timeout", timeout});
    double took = seconds_since(t0);
    INFO(script << "\n" << r.out << r.err);
    CHECK(took < std::stod(timeout) + 1);
    CHECK(no_candidate_left());
    return r;
  };
  // 200,000 levels of nesting in the answer: a failed engine, not a stack overflow.
  CliResult deep = engine("python3 -c \"print('{\\\"fail\\\": ' + '[' * 200000 + ']' * 200000 + '}')\"");
  CHECK(deep.status == 1);
  CHECK(deep.out.find("not JSON") != std::string::npos);
  // A number out of range in the answer.
  CliResult big = engine(R"(echo '{"holes": {"?mem<g, x>.min": 1e400}}')");
  CHECK(big.status == 1);
  // Invalid UTF-8 in the reason it gives up: the JSON report replaces it.
  CliResult utf = run({"oracle", p, "--engine", R"(printf '{"fail": "\377\376"}')", "--json"});
  INFO(utf.err);
  CHECK((utf.status == 0 || utf.status == 1));
  CHECK_NOTHROW(nlohmann::json::parse(utf.out));
  CHECK(no_candidate_left());
  // Never reads its input, never answers: stopped at the deadline.
  CliResult hang = engine("exec sleep 30", "1");
  CHECK(hang.status == 1);
  CHECK(hang.out.find("no answer within") != std::string::npos);
  // Answers, closes its output and keeps running: stopped at the deadline, not waited for.
  CliResult linger = engine(R"(echo '{"fail": "x"}'; exec >&-; sleep 30)", "1");
  CHECK(linger.status == 1);
  // Answers and exits while a background child holds its output open: it answered.
  CliResult bg = engine(R"(sleep 30 & echo '{"fail": "gave up in the background test"}')");
  CHECK(bg.err.find("the engine gave up (gave up in the background test)") != std::string::npos);
  CHECK(bg.out.find("the bounds engine failed") == std::string::npos);
  // A child that leaves the engine's process group (setsid) is found and killed too.
  CliResult escaped = engine(R"(setsid sleep 30 & echo '{"fail": "escaped"}')");
  CHECK(escaped.err.find("the engine gave up (escaped)") != std::string::npos);
}

TEST_CASE("reliability: a candidate's escaped child is killed when its guard ends", "[reliability]") {
  std::string marker = new_candidate_marker();
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    putenv(marker.data());
    setpgid(0, 0);
    execl("/bin/sh", "sh", "-c", "setsid sleep 30 & sleep 30", static_cast<char*>(nullptr));
    _exit(127);
  }
  {
    ChildGuard guard(pid, marker);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK(marked_processes() >= 2);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(no_candidate_left());
}

TEST_CASE("reliability: SIGTERM to halo kills the engine's processes", "[reliability][engine]") {
  // A separate halo process, so that the signal ends it and not the tests.
  pid_t pid = start_halo_run(example("thesis_2_2.halo"), "setsid sleep 30 & sleep 30");
  REQUIRE(pid >= 0);
  auto count = [&] { return marked_processes(pid); };
  for (int i = 0; i < 100 && count() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(count() >= 2);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status));
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    gone = count() == 0;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(gone);
}

TEST_CASE("reliability: explain on a window at the end of int64 ends", "[reliability][explain]") {
  Scratch s("explain");
  auto t0 = std::chrono::steady_clock::now();
  CliResult r = run({"explain", example("thesis_2_2.halo"), "--window", "9223372036854775806,2", "-o",
                     (s.dir / "page.html").string()});
  INFO(r.err);
  CHECK((r.status == 0 || r.status == 1 || r.status == 3));
  CHECK(seconds_since(t0) < 20);
}

TEST_CASE("reliability: growing integers stop at the limits with exit 3", "[reliability][values]") {
  Scratch s("bigint");
  // 64 squarings of 2: 2^(2^64) would need 2^64 bits.
  std::string stages;
  for (int i = 0; i < 64; ++i) stages += ";\n    (x) <- f[x] * f[x]";
  std::string prog = s.write("square.halo", "pipeline f() {\n  fun f(x) = {\n    2" + stages + "\n  }\n}\n\n"
                                            "realize () over (0, 1)\n");
  auto t0 = std::chrono::steady_clock::now();
  CliResult r = run({"eval", prog, "--timeout", "10"});
  INFO(r.err);
  CHECK(r.status == 3);
  CHECK(r.err.find("bits") != std::string::npos);
  CHECK(seconds_since(t0) < 11);
  // Big integers are charged to --max-memory: 2000 points of about 4000 bits each.
  std::string grow;
  for (int i = 0; i < 130; ++i) grow += ";\n    (x) <- f[x] * 1000000007 * 1000000007 * 1000000007 * 1000000007";
  std::string wide = s.write("grow.halo", "pipeline f() {\n  fun f(x) = {\n    x + 1" + grow +
                                              "\n  }\n}\n\nrealize () over (0, 20000)\n");
  CliResult m = run({"eval", wide, "--max-memory", "16", "--timeout", "20"});
  INFO(m.err);
  CHECK(m.status == 3);
}

TEST_CASE("reliability: bounds inference stops at --max-memory with exit 3", "[reliability][bounds]") {
  // A down/up-sampling pyramid (bench/bench_bounds.cpp): β0's fills grow with its depth,
  // and the expressions it builds are charged to --max-memory (command_budget.hpp).
  Scratch s("pyramid");
  std::string src = "pipeline out() {\n  fun in0(x) = { x * 3 + 1 }\n";
  std::string prev = "in0";
  const int levels = 12;
  for (int k = 1; k <= levels; ++k) {
    src += "  fun d" + std::to_string(k) + "(x) = { " + prev + "[2 * x] + " + prev + "[2 * x + 1] }\n";
    prev = "d" + std::to_string(k);
  }
  for (int k = levels; k >= 1; --k) {
    std::string skip = k == 1 ? "in0" : "d" + std::to_string(k - 1);
    src += "  fun u" + std::to_string(k) + "(x) = { " + prev + "[x / 2] + " + skip + "[x] }\n";
    prev = "u" + std::to_string(k);
  }
  src += "  fun out(x) = { " + prev + "[x] }\n}\n\nrealize () over (0, 16)\n";
  std::string prog = s.write("pyramid.halo", src);
  CliResult ok = run({"bounds", prog});
  INFO(ok.err);
  CHECK(ok.status == 0);
  CliResult r = run({"bounds", prog, "--max-memory", "1"});
  INFO(r.err);
  CHECK(r.status == 3);
  // Whichever notices first: the expressions' charge, or the process's resident growth.
  CHECK_THAT(r.err, Catch::Contains("memory limit reached: expressions") ||
                        Catch::Contains("memory limit reached: halo holds"));
  CHECK_THAT(r.err, Catch::Contains("--max-memory"));
}

TEST_CASE("reliability: a chain of 10,000 funcs does not overflow the stack, 20,000 update stages stop in time",
          "[reliability]") {
  Scratch s("deep");
#if defined(__SANITIZE_ADDRESS__)
  const int n = 2000;  // frames are several times larger under AddressSanitizer
#else
  const int n = 10000;  // the recursion over the query tree overflowed the 8 MiB stack here
#endif
  std::string chain = "pipeline f" + std::to_string(n - 1) + "() {\n  fun f0(x) = { x }\n";
  for (int i = 1; i < n; ++i) chain += "  fun f" + std::to_string(i) + "(x) = { f" + std::to_string(i - 1) + "[x] }\n";
  chain += "}\n\nrealize () over (0, 2)\n";
  std::string funcs = s.write("chain.halo", chain);
  CliResult r = run({"run", funcs, "--timeout", "60"});
  INFO(r.err.substr(0, 500));
  CHECK((r.status == 0 || r.status == 3));
  // Bounds extraction walks each stage once per stage: with 20,000 stages every phase must
  // poll the command's budget for --timeout to hold (it once ran past 90 s under --timeout 5).
  std::string stages;
  for (int i = 0; i < 20000; ++i) stages += ";\n    (x) <- f[x] + 1";
  std::string updates = s.write("updates.halo", "pipeline f() {\n  fun f(x) = {\n    x" + stages +
                                                    "\n  }\n}\n\nrealize () over (0, 2)\n");
  CliResult u = run({"run", updates, "--timeout", "3"});
  INFO(u.err.substr(0, 500));
  CHECK(u.status == 3);
  // How often every phase polls the limit, the machine's load aside: tests/test_limits.cpp.
}

TEST_CASE("reliability: halo reads the target program it prints for a 200-variable rdom", "[reliability][tgt]") {
  Scratch s("rdom200");
  std::string vars, sum = "f[x]";
  for (int i = 0; i < 200; ++i) {
    vars += (i ? ", " : "") + std::string("r") + std::to_string(i) + " = (0, 1)";
  }
  std::string prog = s.write("rdom.halo", "pipeline f() {\n  fun f(x) = {\n    x;\n    rdom(" + vars +
                                              ") in (x) <- f[x] + 1\n  }\n}\n\nrealize () over (0, 2)\n");
  REQUIRE(run({"check", prog}).status == 0);
  CliResult sched = run({"schedule", prog});
  REQUIRE(sched.status == 0);
  std::string tgt = s.write("rdom.tgt", sched.out);
  CliResult back = run({"check", tgt});
  INFO(back.err);
  CHECK(back.status == 0);
  // β0 behind the engine protocol reads halo's own query document for it.
  CliResult engine = run({"run", prog, "--engine", std::string(HALO_BINARY) + " beta0-engine"});
  INFO(engine.out << engine.err);
  CHECK(engine.status == 0);
  CHECK(engine.out.find("the bounds engine failed") == std::string::npos);
}

TEST_CASE("reliability: the manifest contract's init_func and 0/1 bools, and a linear location scan",
          "[reliability][kernel]") {
  Scratch s("manifest");
  s.write("k.c", "void k(void) {}\n");
  s.write("spec.halo", "pipeline out() {\n  fun x(i) = { i }\n  fun out(i) = { x[i] }\n}\n");
  const std::string path = (s.dir / "m.json").string();
  std::string base = R"({"platform": "c", "sources": ["k.c"], "function": "k", "spec": "spec.halo", "args": [)";
  KernelManifest m = parse_kernel_manifest_text(
      base + R"({"kind": "inout", "type": "int32_t", "shape": [4], "func": "out", "init_func": "x"},
               {"kind": "scalar", "type": "bool", "value": 1}, {"kind": "scalar", "type": "bool", "value": 0}]})",
      path);
  REQUIRE(m.args.size() == 3);
  CHECK(m.args[0].init == "x");
  CHECK(m.args[1].integer == 1);
  CHECK(m.args[2].integer == 0);
  CHECK_THROWS_AS(parse_kernel_manifest_text(base + R"({"kind": "scalar", "type": "bool", "value": 2}]})", path),
                  InputError);
  CHECK_THROWS_AS(
      parse_kernel_manifest_text(
          base + R"({"kind": "inout", "type": "int32_t", "shape": [4], "func": "out", "init": "x", "init_func": "x"}]})",
          path),
      InputError);
  // A 1 MB manifest: the location of each of its 100,000 values is found in one pass (the
  // scan restarted from the first byte for each value, minutes for this size).
  std::string comment = "[";
  for (int i = 0; i < 100000; ++i) comment += (i ? ",\n" : "") + std::to_string(i);
  comment += "]";
  auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(parse_kernel_manifest_text(R"({"comment": )" + comment + R"(, "platform": 7})", "big.json"),
                  InputError);
  CHECK(seconds_since(t0) < 10);
}

TEST_CASE("reliability: a kernel that writes into an input buffer is a memory-safety finding", "[reliability][kernel]") {
  Scratch s("inputwrite");
  s.write("spec.halo", "pipeline out(n) {\n  fun x(i) = { i * 3 - 7 }\n  fun out(i) = { x[i] * 2 }\n}\n"
                       "realize (n = 8) over (0, 8)\n");
  s.write("k.c", "#include <stdint.h>\nvoid k(const int32_t* x, int32_t* out) {\n"
                 "  for (int i = 0; i < 8; ++i) out[i] = x[i] * 2;\n  ((int32_t*)x)[5] = 0;\n}\n");
  std::string manifest = s.write("k.json", R"({"platform": "c", "sources": ["k.c"], "function": "k", "spec": "spec.halo",
  "params": {"n": 8},
  "args": [{"kind": "input", "type": "int32_t", "shape": ["n"], "func": "x"},
           {"kind": "output", "type": "int32_t", "shape": [8], "func": "out"}]})");
  CliResult r = run({"kernel", manifest, "--json"});
  INFO(r.err << r.out);
  REQUIRE(r.status == 1);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["memory_safe"] == false);
  bool found = false;
  for (const auto& f : j["findings"])
    if (f["kind"] == "input-write" && f["message"].get<std::string>().find("input x") != std::string::npos &&
        f["message"].get<std::string>().find("element 5") != std::string::npos)
      found = true;
  CHECK(found);
}

TEST_CASE("reliability: the same seed gives the same cases and summary, and --resume continues a campaign",
          "[reliability][fuzz][campaign]") {
  auto summary = [](const std::string& out) {
    nlohmann::json j = nlohmann::json::parse(out);
    j.erase("seconds");
    j.erase("cases_per_second");
    j.erase("time_split");
    return j;
  };
  CliResult a = run({"fuzz", "--target", "self", "--cases", "24", "--seed", "9", "--json"});
  CliResult b = run({"fuzz", "--target", "self", "--cases", "24", "--seed", "9", "--json"});
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  CHECK(summary(a.out) == summary(b.out));

  Scratch s("resume");
  std::string dir = (s.dir / "findings").string();
  // One process (--jobs 1): its record has one next case, which the test edits.
  CliResult whole = run({"fuzz", "--target", "self", "--cases", "24", "--seed", "9", "--jobs", "1", "--out", dir, "--json"});
  REQUIRE(whole.status == 0);
  // A kill after case 9: the progress record says case 10 comes next.
  std::vector<std::pair<std::string, nlohmann::json>> records = fuzz::campaign_progress_records(dir);
  REQUIRE(records.size() == 1);
  records[0].second["next_case"] = 10;
  records[0].second["finished"] = false;
  std::ofstream(records[0].first) << records[0].second.dump() << "\n";
  // No flag: the recorded campaign (seed 9, 24 cases) continues, not the default 1000 cases.
  CliResult rest = run({"fuzz", "--resume", dir, "--json"});
  INFO(rest.err);
  REQUIRE(rest.status == 0);
  nlohmann::json r = summary(rest.out);
  CHECK(r["cases"] == 14);  // cases 10..23 of seed 9
  CHECK(r["seed"] == 9);
  CHECK(r["target"] == "self");
  CHECK(r["resumed"]["first_case"] == 10);
  CHECK(run({"fuzz", "--target", "self", "--resume", (s.dir / "nothing").string()}).status == 2);
  // A flag that contradicts the record is refused, naming both values.
  CliResult other = run({"fuzz", "--resume", dir, "--cases", "3000"});
  CHECK(other.status == 2);
  CHECK(other.err.find("--cases 3000") != std::string::npos);
  CHECK(other.err.find("--cases 24") != std::string::npos);
}

TEST_CASE("reliability: campaigns sharing an output directory keep their own progress, and --resume picks one",
          "[reliability][fuzz][campaign]") {
  Scratch s("two-campaigns");
  std::string dir = (s.dir / "findings").string();
  // One process each (--jobs 1): their records have one next case, which the test edits.
  REQUIRE(run({"fuzz", "--target", "self", "--cases", "6", "--seed", "1", "--jobs", "1", "--out", dir, "--json"}).status == 0);
  REQUIRE(run({"fuzz", "--target", "self", "--cases", "8", "--seed", "2", "--jobs", "1", "--out", dir, "--json"}).status == 0);
  REQUIRE(fuzz::campaign_progress_records(dir).size() == 2);
  for (auto& [path, record] : fuzz::campaign_progress_records(dir)) {  // both killed after their case 3
    record["next_case"] = 4;
    record["finished"] = false;
    std::ofstream(path) << record.dump() << "\n";
  }
  CliResult both = run({"fuzz", "--resume", dir});
  CHECK(both.status == 2);
  CHECK(both.err.find("2 campaigns recorded here") != std::string::npos);
  CliResult second = run({"fuzz", "--resume", dir, "--seed", "2", "--json"});
  INFO(second.err);
  REQUIRE(second.status == 0);
  nlohmann::json j = nlohmann::json::parse(second.out);
  CHECK(j["seed"] == 2);
  CHECK(j["cases"] == 4);  // cases 4..7 of seed 2's 8
  CliResult first = run({"fuzz", "--resume", dir, "--seed", "1", "--json"});
  REQUIRE(first.status == 0);
  CHECK(nlohmann::json::parse(first.out)["cases"] == 2);  // cases 4, 5 of seed 1's 6
  CHECK(run({"fuzz", "--resume", dir, "--seed", "3"}).status == 2);
}

namespace {
// The finding files of a campaign directory, by name, with the minimized program of each.
std::map<std::string, std::string> finding_files(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (e.path().extension() != ".json" || name == "triage.json") continue;
    std::ifstream in(e.path());
    nlohmann::json r = nlohmann::json::parse(in);
    out[name] = r.value("program", std::string()) + "|" + r.value("verdict", std::string());
    CHECK(fs::exists(dir / r["halo"].get<std::string>()));
  }
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".halo") CHECK(fs::exists(fs::path(e.path()).replace_extension(".json")));
  return out;
}
}  // namespace

TEST_CASE("reliability: a campaign killed and resumed finds what the same seed finds straight through",
          "[reliability][fuzz][campaign][engine]") {
  Scratch s("kill-resume");
  std::string engine = "HALO=" + std::string(HALO_BINARY) + " " + kSource + "/examples/engines/give_up.sh";
  std::vector<std::string> args = {"comply", "--engine", engine, "--cases", "40", "--seed", "3", "--shrink-tries", "15",
                                   "--json"};
  fs::path straight = s.dir / "straight", killed = s.dir / "killed";
  std::vector<std::string> a = args;
  a.insert(a.end(), {"--out", straight.string()});
  CliResult whole = run(a);
  INFO(whole.err);
  REQUIRE(whole.status == 1);
  std::map<std::string, std::string> expected = finding_files(straight);
  REQUIRE(expected.size() >= 2);
  CHECK(nlohmann::json::parse(whole.out)["duplicates"].get<int>() > 0);  // the case duplicate detection is for

  // The same campaign, SIGKILLed once its second finding is on disk.
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::vector<std::string> argv = {"halo"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--out", killed.string()});
    std::vector<char*> c;
    for (std::string& x : argv) c.push_back(x.data());
    c.push_back(nullptr);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execv(HALO_BINARY, c.data());
    _exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  for (size_t found = 0; found < 2 && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::error_code ec;
    found = 0;
    for (const auto& e : fs::directory_iterator(killed, ec)) found += e.path().extension() == ".json";
  }
  kill(pid, SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  // What a kill between writing and renaming leaves: a temporary of a dead process (removed)
  // and one of a live process (this one: kept); a finding whose record never got written.
  std::ofstream(killed / ".self-3-0.json.tmp.999999999") << "{";
  std::string live = ".other.json.tmp." + std::to_string(::getppid());  // a live process (halo runs in this one)
  std::ofstream(killed / live) << "{";
  std::vector<std::pair<std::string, nlohmann::json>> records = fuzz::campaign_progress_records(killed.string());
  REQUIRE(records.size() == 1);
  uint64_t next = records[0].second["next_case"];
  WARN("killed before case " << next << " of 40");
  std::string first_json = (straight / expected.begin()->first).string();
  nlohmann::json first_record = nlohmann::json::parse(std::ifstream(first_json));
  if (first_record["case"].get<uint64_t>() < next) fs::remove(killed / expected.begin()->first);
  // A .halo without its record for an earlier case that files nothing (a pass or a duplicate):
  // redone, and gone.
  std::string orphan;
  for (uint64_t k = 0; k < next && orphan.empty(); ++k)
    if (!expected.count("engine-3-" + std::to_string(k) + ".json")) orphan = "engine-3-" + std::to_string(k) + ".halo";
  if (!orphan.empty()) std::ofstream(killed / orphan) << "pipeline f() {\n";

  CliResult resumed = run({"comply", "--resume", killed.string(), "--json"});
  INFO(resumed.err);
  CHECK((resumed.status == 0 || resumed.status == 1));
  CHECK(finding_files(killed) == expected);
  CHECK(!fs::exists(killed / ".self-3-0.json.tmp.999999999"));
  CHECK(fs::exists(killed / live));
  if (!orphan.empty()) CHECK(!fs::exists(killed / orphan));
}

TEST_CASE("reliability: a finding that cannot be written stops the campaign with the system error, none half written",
          "[reliability][fuzz][campaign][engine]") {
  Scratch s("disk-full");
  // A file-size limit of 1 KiB (two of dash's 512-byte blocks) stands in for a full disk: the
  // .halo of the first finding (about 500 bytes) fits, its JSON record (about 1100) does not
  // (EFBIG; SIGXFSZ ignored, as a full disk sends no signal).
  std::string dir = (s.dir / "out").string();
  std::string cmd = "trap '' XFSZ; ulimit -f 2; exec " + std::string(HALO_BINARY) + " comply --engine 'HALO=" +
                    HALO_BINARY + " " + kSource + "/examples/engines/give_up.sh' --cases 20 --seed 3 --shrink-tries 5 " +
                    "--json --out " + dir + " 2>" + (s.dir / "err").string();
  FILE* f = popen(cmd.c_str(), "r");  // sh -c: dash's ulimit -f counts 512-byte blocks
  REQUIRE(f);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  int st = pclose(f);
  REQUIRE(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 2);
  std::ifstream e(s.dir / "err");
  std::string err((std::istreambuf_iterator<char>(e)), std::istreambuf_iterator<char>());
  INFO(out << err);
  CHECK(err.find("could not be written") != std::string::npos);
  nlohmann::json j = nlohmann::json::parse(out);  // the summary is there and says why it stopped
  CHECK(j.contains("write_error"));
  CHECK(j["findings"] == 0);
  for (const auto& x : fs::directory_iterator(dir)) {
    INFO(x.path());
    CHECK(x.path().filename().string().find(".tmp.") == std::string::npos);
    CHECK(x.path().extension() != ".halo");  // no case without its record
  }
}

TEST_CASE("reliability: a Halide worker that cannot start stops the campaign with its error, no finding filed",
          "[reliability][fuzz][campaign][halide]") {
  int major = 0;
  for (int m : {21, 19, 14})
    if (!major && halide::find_halide_version(m)) major = m;
  if (!major) {
    WARN("no Halide worker built: not checked");
    return;
  }
  Scratch s("halide-worker-cannot-start");
  std::string dir = (s.dir / "out").string();
  // A target string Halide understands but cannot JIT for on this machine: the worker dies in
  // its warm-up, every time. It once made every case an internal-error finding.
  CliResult r = run({"fuzz", "--target", "halide@" + std::to_string(major), "--halide-target", "arm-64-linux",
                     "--cases", "3", "--shrink-tries", "2", "--out", dir});
  INFO(r.out << r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("cannot run for the Halide target 'arm-64-linux'") != std::string::npos);
  for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().extension() != ".json");
}

TEST_CASE("reliability: a Halide finding whose record a kill left without its signature is redone on resume",
          "[reliability][fuzz][campaign][halide]") {
  if (!halide::find_halide_version(14)) {
    WARN("no Halide 14 worker built: not checked");
    return;
  }
  Scratch s("halide-incomplete");
  std::string dir = (s.dir / "out").string();
  // Case 348 of seed 3 crashes Halide 14's compiler (docs/fuzzing.md); shard 348/349 runs it alone.
  CliResult whole = run({"fuzz", "--target", "halide@14", "--cases", "349", "--seed", "3", "--shard", "348/349",
                         "--shrink-tries", "5", "--out", dir, "--json"});
  INFO(whole.err);
  REQUIRE(whole.status == 1);
  fs::path json = fs::path(dir) / "halide@14-3-348.json", cpp = fs::path(dir) / "halide@14-3-348.cpp";
  nlohmann::json complete = nlohmann::json::parse(std::ifstream(json));
  REQUIRE(complete.contains("signature"));
  // Killed after the case, before the end of the campaign wrote its signature and reproducer.
  nlohmann::json partial = complete;
  partial.erase("signature");
  std::ofstream(json) << partial.dump(2) << "\n";
  fs::remove(cpp);
  auto records = fuzz::campaign_progress_records(dir);
  REQUIRE(records.size() == 1);
  records[0].second["finished"] = false;
  std::ofstream(records[0].first) << records[0].second.dump() << "\n";
  CliResult resumed = run({"fuzz", "--resume", dir, "--json"});
  INFO(resumed.err);
  CHECK(resumed.status == 1);
  nlohmann::json again = nlohmann::json::parse(std::ifstream(json));
  CHECK(again["signature"] == complete["signature"]);
  CHECK(again["program"] == complete["program"]);
  CHECK(fs::exists(cpp));
}

TEST_CASE("reliability: --target exo takes --resume and --shard as the other targets do", "[reliability][fuzz][exo]") {
  Scratch s("exo-flags");
  CliResult missing = run({"fuzz", "--target", "exo", "--resume", (s.dir / "nothing").string()});
  CHECK(missing.status == 2);
  CHECK(missing.err.find("no campaign to resume") != std::string::npos);
  fs::create_directories(s.dir / "empty");
  CHECK(run({"fuzz", "--target", "exo", "--resume", (s.dir / "empty").string()}).status == 2);
  CliResult shard = run({"fuzz", "--target", "exo", "--shard", "3/2"});
  CHECK(shard.status == 2);
  CHECK(shard.err.find("--shard") != std::string::npos);
}

namespace {
// Processes whose command line is exactly `sleep <arg>` (a unique argument per test).
int sleeping_with(const std::string& arg) {
  std::string cmdline = std::string("sleep\0", 6) + arg + std::string(1, '\0');
  return count_processes("cmdline", [&](const std::string& c) { return c == cmdline; });
}

bool none_sleeping_with(const std::string& arg) {
  for (int i = 0; i < 50; ++i) {
    if (sleeping_with(arg) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}
}  // namespace

TEST_CASE("reliability: a candidate runs in a PID namespace of its own where the system allows",
          "[reliability][engine]") {
  std::string p = example("thesis_2_2.halo");
  CliResult who = run({"run", p, "--engine", R"(echo "{\"fail\": \"pid $$\"}")"});
  INFO(who.err);
  REQUIRE(who.err.find("the engine gave up (pid ") != std::string::npos);
  // The namespace's first process is halo's small init; the candidate is the second.
  if (who.err.find("the engine gave up (pid 2)") == std::string::npos) {
    WARN("no PID namespace for candidates on this system (no privilege, no user namespaces): "
         "only the marker tracks their processes");
    return;
  }
  // A descendant that clears its environment (no marker) and leaves the group: only the
  // namespace can find it. It dies with the engine.
  CliResult gone = run({"run", p, "--engine", R"(env -i setsid sleep 31.4159 & echo '{"fail": "escaped"}')"});
  INFO(gone.err);
  CHECK(gone.err.find("the engine gave up (escaped)") != std::string::npos);
  CHECK(none_sleeping_with("31.4159"));
  // The same for a kernel's child: the namespace ends with the kernel's process.
  Scratch s("pidns");
  s.write("spec.halo", "pipeline out() {\n  fun out(i) = { i }\n}\nrealize () over (0, 4)\n");
  s.write("k.c", "#include <stdint.h>\n#include <stdlib.h>\nvoid k(int32_t* out) {\n"
                 "  system(\"env -i setsid sleep 31.2718 &\");\n  for (int i = 0; i < 4; ++i) out[i] = i;\n}\n");
  std::string manifest = s.write("k.json", R"({"platform": "c", "sources": ["k.c"], "function": "k", "spec": "spec.halo",
  "args": [{"kind": "output", "type": "int32_t", "shape": [4], "func": "out"}]})");
  CliResult k = run({"kernel", manifest});
  INFO(k.out << k.err);
  CHECK(k.status == 0);
  CHECK(none_sleeping_with("31.2718"));

  // SIGKILL to halo itself (no handler can run): the namespace dies with it.
  pid_t halo = start_halo_run(p, "env -i setsid sleep 31.1415 & sleep 31.1416");
  REQUIRE(halo >= 0);
  for (int i = 0; i < 100 && (sleeping_with("31.1415") == 0 || sleeping_with("31.1416") == 0); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(sleeping_with("31.1415") == 1);
  kill(halo, SIGKILL);
  int killed = 0;
  waitpid(halo, &killed, 0);
  CHECK(none_sleeping_with("31.1415"));
  CHECK(none_sleeping_with("31.1416"));

  // HALO_PID_NAMESPACE=0: no namespace; the marker still finds a descendant that kept it.
  setenv("HALO_PID_NAMESPACE", "0", 1);
  CliResult plain = run({"run", p, "--engine", R"(setsid sleep 31.5772 & echo "{\"fail\": \"pid $$\"}")"});
  unsetenv("HALO_PID_NAMESPACE");
  INFO(plain.err);
  CHECK(plain.err.find("the engine gave up (pid 2)") == std::string::npos);
  CHECK(none_sleeping_with("31.5772"));
}

TEST_CASE("reliability: deep queries and programs print in linear size", "[reliability][bounds]") {
  // A chain of funcs reading x and x + 1 nests its query three levels per func; indenting
  // every level made the text quadratic (3000 funcs: 237 MB of text, 7.4 GB of JSON).
  Scratch s("linear");
  auto chain = [&](int n) {
    std::string src = "pipeline f" + std::to_string(n - 1) + "() {\n  fun f0(x) = { x }\n";
    for (int i = 1; i < n; ++i)
      src += "  fun f" + std::to_string(i) + "(x) = { f" + std::to_string(i - 1) + "[x] + f" + std::to_string(i - 1) +
             "[x + 1] }\n";
    return s.write("chain" + std::to_string(n) + ".halo", src + "}\n\nrealize () over (0, 2)\n");
  };
  std::string small = chain(150), large = chain(300);
  for (bool json : {false, true}) {
    std::vector<std::string> a{"bounds", small}, b{"bounds", large};
    if (json) a.push_back("--json"), b.push_back("--json");
    CliResult rs = run(a), rl = run(b);
    REQUIRE(rs.status == 0);
    REQUIRE(rl.status == 0);
    INFO("json " << json << ": " << rs.out.size() << " then " << rl.out.size() << " bytes");
    CHECK(double(rl.out.size()) / double(rs.out.size()) < 2.5);  // twice the funcs: about twice the text
    if (json) CHECK_NOTHROW(nlohmann::json::parse(rl.out));
  }
  // The printed target program still reads back (the indentation stops, the braces do not).
  CliResult sched = run({"schedule", large});
  REQUIRE(sched.status == 0);
  std::string tgt = s.write("chain.tgt", sched.out);
  CHECK(run({"check", tgt}).status == 0);
}

// ---------------------------------------------------------------- the kernel's environment
// (issue 31): TMPDIR, $CC, a slow compile, and an Exo script that fails in every way.

namespace {

// Sets (or, with nullptr, unsets) an environment variable for one scope.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> saved;
  ScopedEnv(std::string n, const char* value) : name(std::move(n)) {
    if (const char* old = std::getenv(name.c_str())) saved = old;
    if (value) ::setenv(name.c_str(), value, 1);
    else ::unsetenv(name.c_str());
  }
  ~ScopedEnv() {
    if (saved) ::setenv(name.c_str(), saved->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};

// A plain-C kernel that holds: out[i] = i.
std::string write_identity_kernel(const Scratch& s, const std::string& source = "") {
  s.write("spec.halo", "pipeline out() {\n  fun out(i) = { i }\n}\nrealize () over (0, 4)\n");
  s.write("k.c", source.empty() ? "#include <stdint.h>\nvoid k(int32_t* out) { for (int i = 0; i < 4; ++i) out[i] = i; }\n"
                                : source);
  return s.write("k.json", R"({"platform": "c", "sources": ["k.c"], "function": "k", "spec": "spec.halo",
  "args": [{"kind": "output", "type": "int32_t", "shape": [4], "func": "out"}]})");
}

}  // namespace

TEST_CASE("reliability: a TMPDIR that is missing, a file or not writable is refused with exit 2",
          "[reliability][kernel-env]") {
  Scratch s("tmpdir");
  std::string manifest = write_identity_kernel(s);
  std::string file = s.write("a-file", "x");
  fs::create_directories(s.dir / "readonly");
  fs::permissions(s.dir / "readonly", fs::perms::owner_read | fs::perms::owner_exec);
  // root writes into a 0555 folder; sysfs refuses it even to root.
  std::string readonly = ::geteuid() == 0 ? "/sys" : (s.dir / "readonly").string();
  for (const std::string& tmpdir : {(s.dir / "missing").string(), file, readonly}) {
    ScopedEnv env("TMPDIR", tmpdir.c_str());
    CliResult r = run({"kernel", manifest});
    INFO(tmpdir << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("cannot create a temporary folder in TMPDIR=" + tmpdir + ": ") != std::string::npos);
    CHECK(r.err.find("internal error") == std::string::npos);
    CHECK_THROWS_AS(WorkDir("halo-test"), InputError);
  }
  fs::permissions(s.dir / "readonly", fs::perms::owner_all);
  ScopedEnv env("TMPDIR", s.dir.c_str());  // a good TMPDIR is where the work happens
  WorkDir d("halo-test");
  CHECK(fs::path(d.path).parent_path() == s.dir);
}

TEST_CASE("reliability: $CC is a command line, and a missing or broken compiler is exit 2",
          "[reliability][kernel-env]") {
  Scratch s("cc");
  std::string manifest = write_identity_kernel(s);
  CHECK(command_words("  ccache  gcc -O0 ") == std::vector<std::string>{"ccache", "gcc", "-O0"});
  for (const char* cc : {"cc -O0", "  cc  ", "cc -Wall -Wextra"}) {
    ScopedEnv env("CC", cc);
    CliResult r = run({"kernel", manifest});
    INFO(cc << ": " << r.err << r.out);
    CHECK(r.status == 0);
  }
  if (!find_program("ccache").empty()) {
    ScopedEnv env("CC", "ccache cc");
    CliResult r = run({"kernel", manifest});
    INFO(r.err << r.out);
    CHECK(r.status == 0);
  }
  {
    ScopedEnv env("CC", "halo-no-such-compiler -O1");
    CliResult r = run({"kernel", manifest});
    CHECK(r.status == 2);
    CHECK(r.err.find("no C compiler: CC='halo-no-such-compiler -O1' names 'halo-no-such-compiler', which is not on "
                     "PATH") != std::string::npos);
  }
  {
    ScopedEnv cc("CC", nullptr);
    ScopedEnv path("PATH", s.dir.c_str());  // a folder without cc
    CliResult r = run({"kernel", manifest});
    CHECK(r.status == 2);
    CHECK(r.err.find("no C compiler: cc is not on PATH; set CC or install cc") != std::string::npos);
  }
  {
    // The compiler itself fails on every program: the environment's fault, not the kernel's.
    ScopedEnv env("CC", "cc -Wl,--halo-no-such-linker-option");
    CliResult r = run({"kernel", manifest});
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("the C compiler does not work") != std::string::npos);
    CHECK(r.err.find("the kernel does not compile") == std::string::npos);
  }
}

TEST_CASE("reliability: --timeout bounds the kernel's compile, and hitting it is exit 3",
          "[reliability][kernel-env]") {
  Scratch s("slowcompile");
  // Each include level doubles the work: level 18 took 5 s of CPU with gcc 12, so 26 takes
  // about 20 minutes, in a few KiB of memory.
  std::string manifest = write_identity_kernel(
      s, "#include <stdint.h>\n#if __INCLUDE_LEVEL__ < 26\n#include __FILE__\n#include __FILE__\n#endif\n"
         "#if __INCLUDE_LEVEL__ == 0\nvoid k(int32_t* out) { for (int i = 0; i < 4; ++i) out[i] = i; }\n#endif\n");
  auto t0 = std::chrono::steady_clock::now();
  CliResult r = run({"kernel", manifest, "--timeout", "2"});
  INFO(r.err << r.out);
  CHECK(r.status == 3);
  CHECK(r.err.find("time limit reached (2 s) while compiling the kernel; raise it with --timeout") != std::string::npos);
  CHECK(seconds_since(t0) < 2 + 30);  // generous: the machine may be loaded
}

namespace {

// A stand-in for Exo's Python: a shell script run as `PYTHON HELPER SCRIPT PROC OUTDIR`.
CliResult run_fake_exo(const Scratch& s, const std::string& body, std::vector<std::string> extra = {}) {
  std::string fake = s.write("fake-python", "#!/bin/sh\n" + body + "\n");
  fs::permissions(fake, fs::perms::owner_all);
  std::string script = s.write("user.py", "# the user's script\n");
  std::string spec = s.write("spec.halo", "pipeline out() {\n  fun out(i) = { i }\n}\nrealize () over (0, 4)\n");
  ScopedEnv env("HALO_EXO_PYTHON", fake.c_str());
  std::vector<std::string> args = {"exo", script, "p", "--spec", spec};
  args.insert(args.end(), extra.begin(), extra.end());
  return run(args);
}

}  // namespace

TEST_CASE("reliability: every way an Exo script fails is a clear message with the right status",
          "[reliability][kernel-env]") {
  Scratch s("exofail");
  struct Case {
    const char* what;
    std::string body;
    const char* says;
  };
  const std::vector<Case> cases = {
      {"malformed signature", "echo '{\"function\": 7' > \"$4/signature.json\"; exit 0", "no usable signature"},
      {"signature of the wrong shape", "echo '{\"function\": \"p\", \"source\": \"p.c\", \"platform\": \"c\", "
                                       "\"args\": [5]}' > \"$4/signature.json\"; touch \"$4/p.c\"; exit 0",
       "an argument needs"},
      {"no signature", "exit 0", "the file is missing"},
      {"exit status 3 of its own", "echo 'the script gave up'; exit 3", "ended with status 3"},
      {"exit status 7", "exit 7", "ended with status 7"},
      {"a signal", "kill -SEGV $$", "killed by SIGSEGV"},
  };
  for (const auto& c : cases) {
    CliResult r = run_fake_exo(s, c.body);
    INFO(c.what << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK(r.err.find("setup.sh") == std::string::npos);
  }
  // Only the helper's own failure to import exo asks for the set-up.
  CliResult missing = run_fake_exo(s, "echo 'exo-lang is not importable by fake: No module named exo'; exit 3");
  CHECK(missing.status == 2);
  CHECK(missing.err.find("run scripts/setup.sh") != std::string::npos);
  // A hang is a limit, with the flag that raises it.
  auto t0 = std::chrono::steady_clock::now();
  CliResult hang = run_fake_exo(s, "exec sleep 60", {"--exo-timeout", "1"});
  INFO(hang.err);
  CHECK(hang.status == 3);
  CHECK(hang.err.find("Exo did not finish within 1 s; raise it with --exo-timeout") != std::string::npos);
  CHECK(seconds_since(t0) < 30);
}

namespace {
// A standard output that accepts nothing, as a full disk does.
struct RefusingBuffer : std::streambuf {
  int_type overflow(int_type) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

// Runs `body` in a child process (a file-size limit or a redirected descriptor must not touch
// the test process); true when it returned true.
bool in_child(const std::function<bool()>& body) {
  pid_t pid = fork();
  if (pid == 0) {
    bool ok = false;
    try {
      ok = body();
    } catch (...) {
    }
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool only_entry(const fs::path& dir, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names == std::vector<std::string>{name};
}
}  // namespace

TEST_CASE("reliability: a standard output that cannot be written fails the command with exit 2",
          "[reliability][output]") {
  std::string p = example("thesis_2_2.halo");
  RefusingBuffer refusing;
  std::ostream full(&refusing);
  std::ostringstream err;
  std::vector<const char*> argv{"halo", "eval", p.c_str(), "--json"};
  CHECK(run_cli(int(argv.size()), argv.data(), full, err) == 2);
  CHECK_THAT(err.str(), Catch::Contains("halo: error: cannot write standard output"));
  // A command that writes nothing there succeeds.
  full.clear();
  std::vector<const char*> check{"halo", "check", p.c_str()};
  CHECK(run_cli(int(check.size()), check.data(), full, err) == 0);
  // The executable's own buffer keeps the system's reason.
  CHECK(in_child([] {
    int fd = open("/dev/full", O_WRONLY);
    if (fd < 0 || dup2(fd, 1) != 1) return false;
    StandardOutput so(false);
    so.stream() << std::string(100000, 'x');
    return so.finish() == ENOSPC && standard_output_error(ENOSPC) == "cannot write standard output: No space left on device";
  }));
  CHECK(in_child([] {
    StandardOutput so(true);  // descriptor 1 was closed at start
    if (so.finish() != 0) return false;  // nothing written: nothing lost
    so.stream() << "x";
    return so.finish() == EBADF;
  }));
}

TEST_CASE("reliability: output files are written whole or not at all", "[reliability][output]") {
  Scratch s("output-files");
  std::string ok = (s.dir / "ok.txt").string();
  write_file_atomically(ok, "first");
  write_file_atomically(ok, "second");
  CHECK(read_source_file(ok) == "second");
  CHECK(only_entry(s.dir, "ok.txt"));
  // A file-size limit (RLIMIT_FSIZE): EFBIG, reported about the target, nothing left.
  std::string big = (s.dir / "big.html").string();
  CHECK(in_child([&] {
    report_file_size_limit_as_error();
    struct rlimit lim {4096, 4096};
    setrlimit(RLIMIT_FSIZE, &lim);
    try {
      write_file_atomically(big, std::string(100000, 'x'));
    } catch (const InputError& e) {
      std::string m = e.what();
      return m.find(big + ":0:0: error: cannot write the file: File too large") == 0 && m.find(".tmp") == std::string::npos;
    }
    return false;
  }));
  CHECK(only_entry(s.dir, "ok.txt"));
  // A device is written in place, still checked.
  CHECK_THROWS_WITH(write_file_atomically("/dev/full", "x"), Catch::Contains("No space left on device"));
  CHECK_THROWS_WITH(write_file_atomically((s.dir / "none" / "x").string(), "x"),
                    Catch::Contains("none/x:0:0: error: cannot write the file: No such file or directory"));
  // A full disk: a 64 KiB tmpfs where the system lets the test mount one.
  fs::path small = s.dir / "tmpfs";
  fs::create_directories(small);
  if (mount("tmpfs", small.c_str(), "tmpfs", 0, "size=64k") != 0) {
    WARN("no tmpfs mounted (" << std::strerror(errno) << "): the full-disk case is covered by the file-size limit");
  } else {
    std::string page = (small / "page.html").string();
    CHECK_THROWS_WITH(write_file_atomically(page, std::string(1 << 20, 'x')),
                      Catch::Contains("cannot write the file: No space left on device"));
    CHECK(fs::is_empty(small));
    umount(small.c_str());
  }
  fs::remove(small);
  // explain -o on a file-size limit: exit 2, no page.
  std::string page = (s.dir / "page.html").string(), thesis = example("thesis_2_2.halo");
  CHECK(in_child([&] {
    report_file_size_limit_as_error();
    struct rlimit lim {4096, 4096};
    setrlimit(RLIMIT_FSIZE, &lim);
    CliResult r = run({"explain", thesis, "-o", page});
    return r.status == 2 && r.err.find("File too large") != std::string::npos;
  }));
  CHECK(only_entry(s.dir, "ok.txt"));
}

TEST_CASE("reliability: a FIFO as an input is refused at once", "[reliability][output]") {
  Scratch s("fifo");
  std::string fifo = (s.dir / "fifo").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(read_source_file(fifo), Catch::Contains("not a regular file"));
  CHECK(run({"check", fifo}).status == 2);
  CHECK(run({"run", example("thesis_2_2.halo"), "--fill", fifo}).status == 2);
  CHECK(run({"kernel", fifo}).status == 2);
  CHECK(run({"beta0-engine", fifo}).status == 2);
  CHECK(run({"fuzz", "--target", "self", "--fuzzer-input", fifo}).status == 2);
  CHECK(seconds_since(t0) < 30);  // each refusal is immediate; open() of a FIFO never returns
}

TEST_CASE("reliability: an output folder that cannot be made is bad input", "[reliability][output]") {
  std::string under_file = example("thesis_2_2.halo") + "/out";
  CHECK_THROWS_WITH(create_output_directory(under_file), Catch::StartsWith("halo: error: cannot create " + under_file));
  CliResult r = run({"fuzz", "--target", "self", "--replay", example("thesis_2_2.halo"), "--shrink", "--out", under_file});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("halo: error: cannot create"));
  CHECK(run({"fuzz", "--target", "self", "--replay", example("thesis_2_2.halo"), "--shrink", "--out", "/proc/halo"})
            .status == 2);
}

TEST_CASE("reliability: --param and --window for every command, usage errors in halo's format",
          "[reliability][output]") {
  std::string p = example("thesis_2_2.halo");
  for (const std::string cmd : {"lower", "schedule", "bounds"}) {
    CliResult r = run({cmd, p, "--window", "0,5"});
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("(0, 5)"));
    CHECK(run({cmd, p, "--param", "nope=1"}).status == 2);
  }
  CliResult u = run({"eval", p, "--no-such-flag"});
  CHECK(u.status == 2);
  CHECK_THAT(u.err, Catch::StartsWith("halo: error: ") && Catch::Contains("halo eval --help"));
  CHECK(run({"--help"}).status == 0);
}

namespace {
// 200 funcs reading their producer at three points: halo's reference takes well under a
// second, Halide's JIT compile (with the traced memcheck run) a minute and more.
std::string slow_halide_program(const Scratch& s) {
  std::string src = "pipeline f200() {\n  fun f0(x, y) = { x + y }\n";
  for (int i = 1; i <= 200; ++i)
    src += "  fun f" + std::to_string(i) + "(x, y) = { (f" + std::to_string(i - 1) + "[x, y] + f" +
           std::to_string(i - 1) + "[x + 1, y] + f" + std::to_string(i - 1) + "[x, y + 1]) % 1000 }\n";
  return s.write("slow_halide.halo", src + "}\n\nrealize () over (0, 8), (0, 8)\n");
}

// `halo oracle FILE --target halide --halide-timeout 0` as a separate process.
pid_t start_halo_oracle_halide(const std::string& program) {
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    signal(SIGINT, SIG_DFL);
    execl(HALO_BINARY, "halo", "oracle", program.c_str(), "--target", "halide", "--halide-timeout", "0",
          "--timeout", "600", static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}
}  // namespace

TEST_CASE("reliability: what a candidate prints is kept to its head, its last lines and a note",
          "[reliability][engine]") {
  int baseline = marked_processes();
  CappedOutput c("the engine's standard error", 1000, 200, 3);
  std::string line = "y\n";
  for (int i = 0; i < 100000; ++i) c.append(line.data(), line.size());
  c.append("last line 1\nlast line 2\nlast line 3\n", 36);
  CHECK(c.total_bytes() == 200036);
  CHECK(c.head().size() == 1000);
  std::string rest = c.rest();
  CHECK(rest.find("more of the engine's standard error left out") != std::string::npos);
  CHECK(rest.size() < 200);
  CHECK(rest.substr(rest.size() - 36) == "last line 1\nlast line 2\nlast line 3\n");
  CHECK(c.left_out_bytes() == 200036 - 1000 - 36);
  CappedOutput small("x", 1000, 200, 3);
  small.append("short\n", 6);
  CHECK(small.text() == "short\n");
  CHECK(human_byte_count(3'100'000'000) == "3.1 GB");
  CHECK(human_byte_count(17) == "17 bytes");

  // A process that prints 50 MB: its output is a pipe read as it comes, kept within the cap.
  ProcessLimits lim;
  lim.wall_seconds = 30;
  ProcessResult r = run_process({"/bin/sh", "-c", "yes | head -c 50000000; echo the end"}, {}, "", lim, 64 * 1024);
  CHECK(r.exited);
  CHECK(r.output.size() < 70 * 1024);
  CHECK(r.output.find("more of its output left out") != std::string::npos);
  CHECK(r.output.find("the end") != std::string::npos);

  // An engine writing on its standard error without end: what reaches halo's stays small.
  fflush(stderr);
  char path[] = "/tmp/halo-test-stderr-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  int saved = dup(2);
  dup2(fd, 2);
  auto t0 = std::chrono::steady_clock::now();
  CliResult flood = run({"run", example("thesis_2_2.halo"), "--engine", "yes >&2", "--engine-timeout", "2"});
  double took = seconds_since(t0);
  dup2(saved, 2);
  close(saved);
  off_t size = lseek(fd, 0, SEEK_END);
  std::string tail(4096, '\0');
  tail.resize(size_t(std::max<ssize_t>(0, pread(fd, tail.data(), tail.size(), std::max<off_t>(0, size - 4096)))));
  close(fd);
  unlink(path);
  INFO(flood.out << flood.err);
  CHECK(flood.status == 1);
  CHECK(took < 3 + 1);
  CHECK(size < 256 * 1024);
  CHECK(tail.find("more of the engine's standard error left out") != std::string::npos);
  CHECK(no_candidate_left(baseline));
}

TEST_CASE("reliability: the Halide worker is a candidate: marked, in its own group, killed with its guard",
          "[reliability][halide]") {
  int baseline = marked_processes();
  const auto& v = halide::newest_halide_version();
  {
    Worker w(v.worker, {"--serve", "--no-warm-up", "--target", "host"});
    IsolatedRun ready = w.call("", 60, 0);
    CHECK(ready.end == IsolatedRun::End::Exited);
    CHECK(marked_processes() >= 1);
    // What the signal handlers do: the worker dies, and the next look sees it gone.
    kill_all_candidates();
    CHECK(no_candidate_left(baseline));
    bool alive = true;
    for (int i = 0; i < 100 && (alive = w.alive()); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK_FALSE(alive);
  }
  {
    Worker w(v.worker, {"--serve", "--no-warm-up", "--target", "host"});
    CHECK(w.call("", 60, 0).end == IsolatedRun::End::Exited);
    CHECK(marked_processes() >= 1);
  }
  CHECK(no_candidate_left(baseline));
}

TEST_CASE("reliability: --timeout bounds the Halide step and --halide-timeout is a Halide hang",
          "[reliability][halide]") {
  int baseline = marked_processes();
  Scratch s("halide-timeout");
  std::string slow = slow_halide_program(s);
  auto t0 = std::chrono::steady_clock::now();
  CliResult r = run({"oracle", slow, "--target", "halide", "--timeout", "3"});
  double took = seconds_since(t0);
  INFO(r.out << r.err);
  CHECK(r.status == 3);
  CHECK(r.err.find("raise it with --timeout") != std::string::npos);
  CHECK(took < 3 + 1);
  CHECK(no_candidate_left(baseline));

  t0 = std::chrono::steady_clock::now();
  CliResult hang = run({"oracle", slow, "--target", "halide", "--halide-timeout", "2", "--timeout", "600"});
  took = seconds_since(t0);
  INFO(hang.out << hang.err);
  CHECK(hang.status == 1);
  CHECK(hang.out.find("did not finish within 2 s") != std::string::npos);
  CHECK(took < 2 + 2);
  CHECK(no_candidate_left(baseline));
}

TEST_CASE("reliability: SIGINT, SIGTERM, SIGHUP or SIGKILL to halo leaves no Halide worker compiling",
          "[reliability][halide]") {
  Scratch s("halide-signals");
  std::string slow = slow_halide_program(s);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGKILL}) {
    INFO("signal " << sig);
    pid_t pid = start_halo_oracle_halide(slow);
    REQUIRE(pid >= 0);
    for (int i = 0; i < 200 && marked_processes(pid) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    REQUIRE(marked_processes(pid) >= 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // compiling by now
    auto t0 = std::chrono::steady_clock::now();
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(seconds_since(t0) < 1);
    CHECK(WIFSIGNALED(status));
    if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == sig);
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
      gone = marked_processes(pid) == 0;
      if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHECK(gone);
  }
}

TEST_CASE("reliability: a campaign's Ctrl-C abandons the Halide case in progress at once", "[reliability][halide]") {
  int baseline = marked_processes();
  Scratch s("halide-interrupt");
  std::ifstream in(slow_halide_program(s));
  std::string src((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Program p = test::parse_valid(src);
  schedule_pipeline(p);
  Input input = resolve_input(p, {});
  halide::HalideOptions o;  // a campaign's: the long-lived worker, 60 s for Halide
  o.timeout_seconds = 60;
  // What campaign_cli.cpp's SIGINT handler does, a moment after the case began.
  std::thread ctrl_c([] {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    set_candidate_waits_interrupted(true);
  });
  auto t0 = std::chrono::steady_clock::now();
  bool stopped = false;
  try {
    halide::run_halide_case(p, input, o);
  } catch (const ResourceLimit& e) {
    stopped = std::string(e.what()).find("interrupted") != std::string::npos;
  }
  double took = seconds_since(t0);
  ctrl_c.join();
  set_candidate_waits_interrupted(false);
  CHECK(stopped);
  CHECK(took < 2 + 1.5);
  CHECK(no_candidate_left(baseline));
}

TEST_CASE("reliability: a case abandoned by a campaign's Ctrl-C is not counted, and --resume runs it again",
          "[reliability][campaign]") {
  fuzz::CampaignOptions opts;
  opts.cases = 10;
  bool interrupted = false;
  int checked = 0;
  // The third case is in a candidate when Ctrl-C comes: it ends as interrupted (a limit).
  auto check = [&](const Program&) {
    fuzz::CaseResult r;
    if (++checked == 3) {
      interrupted = true;
      r.verdict = fuzz::CaseResult::Verdict::Limit;
      r.detail = "interrupted";
    }
    return r;
  };
  fuzz::CampaignSummary s = fuzz::run_campaign(opts, check, [&] { return interrupted; });
  CHECK(s.interrupted);
  CHECK(s.cases == 2);
  CHECK(s.limits == 0);
}

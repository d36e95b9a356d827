// The student guide (docs/guide/) cannot rot: every example in it is a fenced block
//
//   ```halo-run            (or ```halo-run exit=N when the command must exit with N)
//   $ halo eval examples/thesis_2_2.halo
//   the output the command prints
//   ```
//
// and this test runs each command in-process (run_cli, as `halo` would) and compares what
// it prints (stdout, then stderr) with the block, line by line, trailing spaces ignored. A
// line `...` in the expected output stands for any number of lines, so a page may show an
// excerpt of a long output. Paths under examples/, docs/ and tests/ are taken relative to
// the repository, and the repository's path is removed from what halo prints.
#include "tools/cli.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace halo;
namespace fs = std::filesystem;

namespace {

struct DocExample {
  std::string file;
  size_t line = 0;  // of the opening fence
  std::vector<std::string> args;
  int exit_status = 0;
  std::vector<std::string> expected;
};

std::string rstrip(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string l;
  while (std::getline(ss, l)) out.push_back(rstrip(l));
  while (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false, any = false;
  for (char c : s) {
    if (c == '\'') {
      quoted = !quoted;
      any = true;
    } else if (!quoted && (c == ' ' || c == '\t')) {
      if (any) out.push_back(cur);
      cur.clear();
      any = false;
    } else {
      cur += c;
      any = true;
    }
  }
  if (any) out.push_back(cur);
  return out;
}

std::vector<DocExample> examples_in(const fs::path& md) {
  std::vector<DocExample> out;
  std::ifstream in(md);
  std::string line;
  size_t n = 0;
  DocExample* cur = nullptr;
  bool in_other_fence = false;
  while (std::getline(in, line)) {
    ++n;
    line = rstrip(line);
    if (cur) {
      if (line == "```") {
        cur = nullptr;
        continue;
      }
      if (cur->args.empty()) {
        INFO(md.string() << ":" << n);
        REQUIRE(line.rfind("$ halo ", 0) == 0);
        cur->args = split_words(line.substr(2));
      } else {
        cur->expected.push_back(line);
      }
      continue;
    }
    if (line.rfind("```", 0) != 0) continue;
    if (in_other_fence) {
      in_other_fence = false;
      continue;
    }
    if (line.rfind("```halo-run", 0) == 0) {
      DocExample e;
      e.file = md.string();
      e.line = n;
      auto pos = line.find("exit=");
      if (pos != std::string::npos) e.exit_status = std::stoi(line.substr(pos + 5));
      out.push_back(std::move(e));
      cur = &out.back();
    } else {
      in_other_fence = true;
    }
  }
  return out;
}

// Does `got` match `want`, where a `...` line in `want` matches any run of lines?
bool lines_match(const std::vector<std::string>& want, size_t i, const std::vector<std::string>& got, size_t j) {
  if (i == want.size()) return j == got.size();
  if (want[i] == "...") {
    for (size_t k = j; k <= got.size(); ++k)
      if (lines_match(want, i + 1, got, k)) return true;
    return false;
  }
  return j < got.size() && want[i] == got[j] && lines_match(want, i + 1, got, j + 1);
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

}  // namespace

TEST_CASE("docs: every halo-run example of the guide prints what the page says", "[docs]") {
  const std::string root = HALO_SOURCE_DIR;
  std::vector<fs::path> pages;
  for (const auto& e : fs::recursive_directory_iterator(root + "/docs/guide"))
    if (e.path().extension() == ".md") pages.push_back(e.path());
  std::sort(pages.begin(), pages.end());
  REQUIRE(pages.size() >= 8);
  size_t total = 0;
  for (const auto& page : pages) {
    for (DocExample& ex : examples_in(page)) {
      ++total;
      INFO(ex.file << ":" << ex.line << ": $ " << [&] {
        std::string s;
        for (const auto& a : ex.args) s += a + " ";
        return s;
      }());
      REQUIRE(!ex.args.empty());
      REQUIRE(ex.args[0] == "halo");
      for (auto& a : ex.args)
        for (const char* dir : {"examples/", "docs/", "tests/"})
          if (a.rfind(dir, 0) == 0) a = root + "/" + a;
      std::vector<const char*> argv;
      for (const auto& a : ex.args) argv.push_back(a.c_str());
      std::ostringstream out, err;
      int status = run_cli(int(argv.size()), argv.data(), out, err);
      std::string printed = replace_all(out.str() + err.str(), root + "/", "");
      INFO("printed:\n" << printed);
      CHECK(status == ex.exit_status);
      CHECK(lines_match(ex.expected, 0, lines_of(printed), 0));
    }
  }
  CHECK(total >= 30);  // the guide is made of runnable examples
}

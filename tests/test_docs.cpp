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
//
// The next non-empty line after every such block is its playground link,
//
//   [try it](../../build/playground/index.html#cmd=halo%20eval%20examples%2Fthesis_2_2.halo)
//
// whose fragment is the block's command line (the text after "$ ") encoded as JavaScript's
// encodeURIComponent encodes it; the second test checks that link, the third that every link
// of the guide to a page exists and every link into glossary.md names one of its anchors.
#include "tools/cli.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

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

std::vector<fs::path> guide_pages() {
  std::vector<fs::path> pages;
  for (const auto& e : fs::recursive_directory_iterator(std::string(HALO_SOURCE_DIR) + "/docs/guide"))
    if (e.path().extension() == ".md") pages.push_back(e.path());
  std::sort(pages.begin(), pages.end());
  return pages;
}

std::vector<std::string> file_lines(const fs::path& p) {
  std::vector<std::string> out;
  std::ifstream in(p);
  std::string l;
  while (std::getline(in, l)) out.push_back(rstrip(l));
  return out;
}

// JavaScript's encodeURIComponent: every byte but A-Z a-z 0-9 - _ . ! ~ * ' ( ) as %XX.
std::string encode_uri_component(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || std::string_view("-_.!~*'()").find(char(c)) != std::string_view::npos) {
      out += char(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// decodeURIComponent; nullopt for a malformed escape.
std::optional<std::string> percent_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    int hi = hex_digit(s[i + 1]), lo = hex_digit(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += char(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// Each halo-run block of a page: the line of its command and the index of its closing fence.
struct RunBlock {
  size_t fence = 0;    // index (0-based) of the opening fence
  size_t closing = 0;  // index of the closing fence
  std::string command;
};

std::vector<RunBlock> run_blocks(const std::vector<std::string>& lines) {
  std::vector<RunBlock> out;
  bool in_other_fence = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.rfind("```", 0) != 0) continue;
    if (in_other_fence) {
      in_other_fence = false;
      continue;
    }
    if (l.rfind("```halo-run", 0) != 0) {
      in_other_fence = true;
      continue;
    }
    RunBlock b;
    b.fence = i;
    size_t j = i + 1;
    if (j < lines.size() && lines[j].rfind("$ ", 0) == 0) b.command = lines[j].substr(2);
    while (j < lines.size() && lines[j] != "```") ++j;
    b.closing = j;
    out.push_back(b);
    i = j;
  }
  return out;
}

}  // namespace

TEST_CASE("docs: every halo-run example of the guide prints what the page says", "[docs]") {
  const std::string root = HALO_SOURCE_DIR;
  std::vector<fs::path> pages = guide_pages();
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

TEST_CASE("docs: every halo-run block of the guide is followed by its playground link", "[docs]") {
  const std::string prefix = "[try it](../../build/playground/index.html#cmd=";
  size_t total = 0;
  for (const auto& page : guide_pages()) {
    std::vector<std::string> lines = file_lines(page);
    for (const RunBlock& b : run_blocks(lines)) {
      ++total;
      INFO(page.string() << ":" << b.fence + 1 << ": $ " << b.command);
      REQUIRE(!b.command.empty());
      REQUIRE(b.closing < lines.size());
      size_t k = b.closing + 1;
      while (k < lines.size() && lines[k].empty()) ++k;
      REQUIRE(k < lines.size());
      const std::string& link = lines[k];
      INFO("line " << k + 1 << ": " << link);
      REQUIRE(link.rfind(prefix, 0) == 0);
      REQUIRE(link.back() == ')');
      std::string fragment = link.substr(prefix.size(), link.size() - prefix.size() - 1);
      std::optional<std::string> decoded = percent_decode(fragment);
      REQUIRE(decoded.has_value());
      CHECK(*decoded == b.command);
      CHECK(fragment == encode_uri_component(b.command));
    }
  }
  CHECK(total >= 30);
}

TEST_CASE("docs: the guide's links name pages that exist and glossary entries that exist", "[docs]") {
  const fs::path guide = fs::path(HALO_SOURCE_DIR) / "docs" / "guide";
  // The glossary's anchors: its `<a id="...">` entries and its headings, slugged as GitHub
  // slugs them (lower case, spaces to '-', other punctuation dropped).
  std::set<std::string> anchors;
  for (const std::string& l : file_lines(guide / "glossary.md")) {
    for (size_t p = l.find("<a id=\""); p != std::string::npos; p = l.find("<a id=\"", p + 1)) {
      size_t start = p + 7, end = l.find('"', start);
      REQUIRE(end != std::string::npos);
      CHECK(anchors.insert(l.substr(start, end - start)).second);  // no anchor twice
    }
    if (l.rfind("## ", 0) == 0) {
      std::string slug;
      for (unsigned char c : l.substr(3)) {
        if (std::isalnum(c)) slug += char(std::tolower(c));
        else if (c == ' ' || c == '-') slug += '-';
        else if (c == '_' || c >= 0x80) slug += char(c);
      }
      CHECK(anchors.insert(slug).second);
    }
  }
  REQUIRE(anchors.size() >= 60);
  size_t glossary_links = 0;
  for (const auto& page : guide_pages()) {
    std::vector<std::string> lines = file_lines(page);
    bool in_fence = false;
    // Join the page's prose so that a link broken across two lines is seen whole.
    std::string text;
    for (const std::string& l : lines) {
      if (l.rfind("```", 0) == 0) in_fence = !in_fence;
      else if (!in_fence) text += l + "\n";
    }
    for (size_t p = text.find("]("); p != std::string::npos; p = text.find("](", p + 2)) {
      size_t start = p + 2, end = text.find(')', start);
      if (end == std::string::npos) continue;
      std::string target = text.substr(start, end - start);
      if (target.find("://") != std::string::npos || target.find("playground/") != std::string::npos ||
          target.find('\n') != std::string::npos || target.find(' ') != std::string::npos)
        continue;
      INFO(page.string() << ": link (" << target << ")");
      std::string file = target.substr(0, target.find('#'));
      std::string anchor = target.find('#') == std::string::npos ? "" : target.substr(target.find('#') + 1);
      fs::path linked = file.empty() ? page : page.parent_path() / file;
      CHECK(fs::exists(linked));
      if (!anchor.empty() && linked.filename() == "glossary.md") {
        ++glossary_links;
        CHECK(anchors.count(anchor) == 1);
      }
    }
  }
  CHECK(glossary_links >= 50);  // the pages send the reader to the glossary
}

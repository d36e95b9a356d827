// The `halo explain` page in a real browser: headless Chromium (Debian's `chromium`,
// installed by scripts/setup.sh) loads the reports of the thesis tile-by-3 example (1-D
// funcs, one row per tile) and of the blur (2-D funcs, one grid per tile) and dumps the DOM
// after the page's script ran. The script sets body[data-loaded] to "ok" only when it ran
// without an exception, found every section and every internal link's target; the test
// then checks the pictures, the derivation and the trace are in the DOM. Without Chromium
// the test says so and is skipped, except where HALO_REQUIRE_BROWSER is set (CI sets it).
#include "report/explain.hpp"
#include "semantics/parser.hpp"
#include "semantics/validity.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <unistd.h>

using namespace halo;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t count(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

bool have_chromium() { return std::system("command -v chromium >/dev/null 2>&1") == 0; }

// The DOM of the page after load, as Chromium serializes it.
std::string dump_dom(const fs::path& page, const fs::path& dir) {
  const fs::path dom = dir / (page.stem().string() + ".dom.html");
  const std::string cmd = fmt::format(
      "timeout 90 chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir='{}' "
      "--dump-dom 'file://{}' > '{}' 2> '{}'",
      (dir / "profile").string(), page.string(), dom.string(), (dir / "chromium.log").string());
  int status = std::system(cmd.c_str());
  INFO("chromium log:\n" << read(dir / "chromium.log").substr(0, 2000));
  REQUIRE(status == 0);
  return read(dom);
}

fs::path write_report(const std::string& example, const fs::path& dir, const explain::ExplainOptions& o = {}) {
  const std::string path = std::string(HALO_SOURCE_DIR) + "/examples/" + example;
  const std::string src = read(path);
  Program p = parse_program(src, path);
  check_program(p);
  fs::path out = dir / (fs::path(example).stem().string() + ".html");
  std::ofstream(out) << explain::render_html(explain::explain_program(p, src, o));
  return out;
}

}  // namespace

TEST_CASE("explain: the report loads in headless Chromium with its pictures, derivation and trace",
          "[explain][browser]") {
  if (!have_chromium()) {
    // CI (.ci/run) sets HALO_REQUIRE_BROWSER: there, a missing browser fails the test.
    INFO("chromium is not installed (apt-get install chromium, as scripts/setup.sh does)");
    REQUIRE(std::getenv("HALO_REQUIRE_BROWSER") == nullptr);
    WARN("chromium is not installed: the browser check of `halo explain` is skipped");
    return;
  }
  const fs::path dir = fs::temp_directory_path() / fmt::format("halo_explain_browser_{}", ::getpid());
  fs::create_directories(dir);

  const std::string tile3 = dump_dom(write_report("thesis_2_2_tile3.halo", dir), dir);
  INFO(tile3.substr(0, 400));
  std::smatch m;
  REQUIRE(std::regex_search(tile3, m, std::regex("<body[^>]*data-loaded=\"([^\"]*)\"")));
  CHECK(m[1] == "ok");
  // One picture per func (g, f), g's with its two tiles xo = 0 and xo = 1.
  CHECK(count(tile3, "class=\"iteration-space\"") == 2);
  CHECK(count(tile3, "class=\"tile\"") == 3);
  CHECK(tile3.find(">xo = 1<") != std::string::npos);
  CHECK(count(tile3, "class=\"layer written recomputed\"") == 2);  // g(3), in both tiles
  CHECK(count(tile3, "class=\"heat\"") == 2);
  CHECK(tile3.find("id=\"derivation-tree\"") != std::string::npos);
  CHECK(count(tile3, "<details") >= 3);
  CHECK(tile3.find("href=\"#rule-2.8-ASSN\"") != std::string::npos);
  CHECK(tile3.find("data-verdict=\"holds\"") != std::string::npos);

  const std::string blur = dump_dom(write_report("blur.halo", dir), dir);
  REQUIRE(std::regex_search(blur, m, std::regex("<body[^>]*data-loaded=\"([^\"]*)\"")));
  CHECK(m[1] == "ok");
  CHECK(count(blur, "class=\"iteration-space\"") == 3);  // f, g, h: one grid each (one tile each)
  CHECK(blur.find("data-func=\"g\"") != std::string::npos);

  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST_CASE("explain: with --target halide the report shows the compiler's side and loads in headless Chromium",
          "[explain][browser][halide-only]") {
  if (!have_chromium()) {
    REQUIRE(std::getenv("HALO_REQUIRE_BROWSER") == nullptr);
    WARN("chromium is not installed: the browser check of `halo explain --target halide` is skipped");
    return;
  }
  const fs::path dir = fs::temp_directory_path() / fmt::format("halo_explain_halide_{}", ::getpid());
  fs::create_directories(dir);
  explain::ExplainOptions o;
  o.halide.emplace_back();  // the newest installed Halide
  o.halide.back().reuse_process = false;
  const std::string page = dump_dom(write_report("halide_style_blur.halo", dir, o), dir);
  std::smatch m;
  REQUIRE(std::regex_search(page, m, std::regex("<body[^>]*data-loaded=\"([^\"]*)\"")));
  CHECK(m[1] == "ok");  // every section the table of contents names is there, every link resolves
  CHECK(page.find("<section id=\"halide\">") != std::string::npos);
  CHECK(page.find("href=\"#halide\"") != std::string::npos);
  CHECK(count(page, "class=\"halide-versions\"") == 1);
  // The regions: image is inlined (no realization), blur_x and blur_y realized, each
  // interval written as "min .. max (min m, len l)".
  CHECK(page.find("not realized (inlined)") != std::string::npos);
  // Halide realizes the whole output window R(z) = (0, 30) × (0, 17) for blur_y.
  CHECK(page.find("blur_y</td><td class=\"mono\">0 .. 29 (min 0, len 30) × 0 .. 16 (min 0, len 17)</td>") !=
        std::string::npos);
  CHECK(std::regex_search(page, std::regex("blur_x</td><td class=\"mono\">0 \\.\\. [0-9]+ \\(min 0, len [0-9]+\\)")));
  CHECK(page.find("0 outside their func") != std::string::npos);
  CHECK(page.find("class=\"reproducer\"") != std::string::npos);
  CHECK(page.find("blur_y.split(") != std::string::npos);  // the reproducer's schedule
  // P(z) as a grid with one cell per point of R(z) (30 × 17), none marked.
  CHECK(count(page, "<table class=\"grid\">") == 1);
  CHECK(count(page, "class=\"differs\"") == 0);
  // β0's holes and their values under z.
  CHECK(page.find("its value under z") != std::string::npos);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

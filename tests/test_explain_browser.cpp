// The `halo explain` page in a real browser: headless Chromium (Debian's `chromium`,
// installed by scripts/setup.sh) loads the reports of the thesis tile-by-3 example (1-D
// funcs, one row per tile) and of the blur (2-D funcs, one grid per tile) and dumps the DOM
// after the page's script ran. The script sets body[data-loaded] to "ok" only when it ran
// without an exception, found every section and every internal link's target; the test
// then checks the pictures, the derivation and the trace are in the DOM. A page of panes, as
// the playground makes from render_sections(), checks that window.haloExplainInit wires
// each pane alone. Without Chromium the test says so and is skipped, except where
// HALO_REQUIRE_BROWSER is set (CI sets it).
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

explain::Explanation explain_example(const std::string& example, const explain::ExplainOptions& o = {}) {
  const std::string path = std::string(HALO_SOURCE_DIR) + "/examples/" + example;
  const std::string src = read(path);
  Program p = parse_program(src, path);
  check_program(p);
  return explain::explain_program(p, src, o);
}

fs::path write_report(const std::string& example, const fs::path& dir, const explain::ExplainOptions& o = {}) {
  fs::path out = dir / (fs::path(example).stem().string() + ".html");
  std::ofstream(out) << explain::render_html(explain_example(example, o));
  return out;
}

// The element `<tag ... data-pane="pane">` as the DOM has it after the script (its start tag).
std::string start_tag(const std::string& dom, const std::string& pane, const std::string& id) {
  std::smatch m;
  std::regex re("<section id=\"" + id + "\"[^>]*data-pane=\"" + pane + "\"[^>]*>");
  return std::regex_search(dom, m, re) ? m.str() : "";
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
  CHECK(count(tile3, "class=\"heat heat-allocation\"") == 2);  // g's two allocations, beside its merged map
  CHECK(count(tile3, "<td class=\"mono reads\">") > 10);
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

TEST_CASE("explain: haloExplainInit wires the sections of each pane alone", "[explain][browser]") {
  if (!have_chromium()) {
    REQUIRE(std::getenv("HALO_REQUIRE_BROWSER") == nullptr);
    WARN("chromium is not installed: the browser check of haloExplainInit is skipped");
    return;
  }
  const fs::path dir = fs::temp_directory_path() / fmt::format("halo_explain_panes_{}", ::getpid());
  fs::create_directories(dir);
  // Two panes, as the playground shows them: the sections of two programs, each section in
  // a pane of its own, with the style and the script and no header. The ids repeat across
  // the two renderings; the script must not mix them up.
  std::string page = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>";
  page += explain::page_style();
  page += "</style></head><body data-loaded=\"no-script\">";
  for (const auto& [pane, example] : {std::pair<std::string, std::string>{"a", "thesis_2_2_tile3.halo"}, {"b", "blur.halo"}})
    for (const auto& sec : explain::render_sections(explain_example(example))) {
      if (sec.id != "pictures" && sec.id != "buffers" && sec.id != "derivation" && sec.id != "bounds") continue;
      std::string html = sec.html;  // mark the section with its pane, for the checks below
      html.insert(html.find('>'), " data-pane=\"" + pane + "\"");
      page += "<div class=\"pane\" id=\"pane-" + pane + "-" + sec.id + "\">" + html + "</div>";
    }
  page += "<script>";
  page += explain::page_script();
  page += R"JS(
var results = [];
document.querySelectorAll('.pane').forEach(function (pane) { results.push(window.haloExplainInit(pane)); });
results.push(window.haloExplainInit(document.getElementById('pane-a-pictures'), ['pictures']));
results.push(window.haloExplainInit(document.getElementById('pane-b-buffers'), ['trace']));
results.push(window.haloExplainInit(document.getElementById('pane-a-pictures')));  // wired once, still ok
// Pane a: hide the allocated layer and the per-allocation maps, close the derivation.
var box = document.querySelector('#pane-a-pictures input[data-layer="allocated"]');
box.checked = false;
box.dispatchEvent(new Event('change'));
var view = document.querySelector('#pane-a-buffers input[data-view="per-allocation"]');
view.checked = false;
view.dispatchEvent(new Event('change'));
document.querySelector('#pane-a-derivation button[data-open="false"]').click();
document.querySelector('#pane-a-bounds button[data-open-all="details.raw"][data-open="true"]').click();
document.body.dataset.loaded = results.join('|');
)JS";
  page += "</script></body></html>";
  const fs::path file = dir / "panes.html";
  std::ofstream(file) << page;
  const std::string dom = dump_dom(file, dir);
  std::smatch m;
  REQUIRE(std::regex_search(dom, m, std::regex("<body[^>]*data-loaded=\"([^\"]*)\"")));
  CHECK(m[1] == "ok|ok|ok|ok|ok|ok|ok|ok|ok|missing: trace|ok");
  // Each switch acted on its own pane's section only.
  CHECK_THAT(start_tag(dom, "a", "pictures"), Catch::Contains("hide-allocated"));
  CHECK_THAT(start_tag(dom, "b", "pictures"), !Catch::Contains("hide-allocated"));
  CHECK_THAT(start_tag(dom, "a", "buffers"), Catch::Contains("hide-per-allocation"));
  CHECK_THAT(start_tag(dom, "b", "buffers"), !Catch::Contains("hide-per-allocation"));
  // Pane a's derivation is closed, pane b's first levels still open.
  auto section = [&](const std::string& pane, const std::string& id) {
    size_t at = dom.find("id=\"pane-" + pane + "-" + id + "\"");
    REQUIRE(at != std::string::npos);
    return dom.substr(at, dom.find("</section>", at) - at);
  };
  CHECK(count(section("a", "derivation"), "<details") > 3);
  CHECK(count(section("a", "derivation"), " open=") == 0);
  CHECK(count(section("b", "derivation"), " open=") > 0);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

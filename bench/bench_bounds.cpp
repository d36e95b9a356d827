// Scaling of bounds inference (issue 15): β0 and β1 on a down/up-sampling pyramid of
// depth 1..N (per level a downsample reading x*2 and x*2+1, and an upsample reading x/2
// and the level's skip input), the shape that made fills grow exponentially with depth
// before min/max chains were flattened and deduplicated. For each depth it prints the
// time of extraction + inference + lifting, the total size of the filled expressions
// (printed characters), and the growth factor of both over the previous depth: fills
// must grow polynomially (a factor that falls towards 1), and depth 8 must take seconds.
// The completed program is run and compared with the big-step reference at every depth.
#include "bounds/beta0.hpp"
#include "bounds/extract.hpp"
#include "interp/input.hpp"
#include "oracle/theorems.hpp"
#include "schedule/schedule.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <string>

namespace {

using namespace halo;

std::string pyramid(int levels) {
  std::string s = "pipeline out() {\n  fun in0(x) = { x * 3 + 1 }\n";
  std::string prev = "in0";
  for (int k = 1; k <= levels; ++k) {
    s += fmt::format("  fun d{}(x) = {{ {}[2 * x] + {}[2 * x + 1] }}\n", k, prev, prev);
    prev = fmt::format("d{}", k);
  }
  for (int k = levels; k >= 1; --k) {
    std::string skip = k == 1 ? "in0" : fmt::format("d{}", k - 1);
    s += fmt::format("  fun u{}(x) = {{ {}[x / 2] + {}[x] }}\n", k, prev, skip);
    prev = fmt::format("u{}", k);
  }
  s += fmt::format("  fun out(x) = {{ {}[x] }}\n}}\n\nrealize () over (0, 16)\n", prev);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bounds inference on a down/up-sampling pyramid"};
  int max_depth = 8;
  app.add_option("--depth", max_depth, "the deepest pyramid (default 8)");
  CLI11_PARSE(app, argc, argv);
  fmt::print("{:>5} {:>6} {:>10} {:>12} {:>8} {:>8} {:>8}\n", "depth", "engine", "seconds", "fill chars", "x time",
             "x size", "verdict");
  for (BoundsEngine e : {BoundsEngine::Beta0, BoundsEngine::Beta1}) {
    double prev_s = 0;
    size_t prev_chars = 0;
    for (int d = 1; d <= max_depth; ++d) {
      Program p = parse_program(pyramid(d), "<pyramid>");
      TgtProgram t = schedule_pipeline(p);
      auto t0 = std::chrono::steady_clock::now();
      Beta0Result r = run_builtin_engine(extract_query(t), t, e);
      Beta0Completion c = complete_with_beta0(r, t);
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      size_t chars = 0;
      for (const auto& [h, x] : r.filling) chars += print_expr(x).size();
      OracleVerdict v = check_theorems(p, c.program, resolve_input(p, {}), Limits{});
      fmt::print("{:>5} {:>6} {:>10.4f} {:>12} {:>8} {:>8} {:>8}\n", d, e == BoundsEngine::Beta0 ? "beta0" : "beta1", s,
                 chars, prev_s > 0 ? fmt::format("{:.2f}", s / prev_s) : "-",
                 prev_chars ? fmt::format("{:.2f}", double(chars) / double(prev_chars)) : "-",
                 !c.ok ? "gave-up" : v.holds() ? "holds" : "VIOLATED");
      prev_s = s;
      prev_chars = chars;
    }
  }
  return 0;
}

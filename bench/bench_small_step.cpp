// Throughput of the small-step machine (interp/small_step): steps per second on the
// lowered form of a two-stage blur and of a matrix product, the programs `halo run`
// spends its time on. Target: at least 5 million steps per second (Release, one core,
// no trace). The programs are built with the constructors of tgt.hpp as lowering and β0
// would produce them (default schedule, window-relative bounds), so this benchmark does
// not depend on the lowering (the Tgt parser only resolves the loops' variables, see
// with_loop_binders); each run's output is checked against
// the same values computed natively before its rate is reported.
#include "interp/small_step.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/tgt_printer.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace {

using namespace halo;
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------- building Tgt
Expr v(const char* n) { return make_var(n); }
Expr c(int64_t x) { return make_const(Value(x)); }
Expr add(Expr a, Expr b) { return make_op(Op::Add, {std::move(a), std::move(b)}); }
Expr sub(Expr a, Expr b) { return make_op(Op::Sub, {std::move(a), std::move(b)}); }
Expr mul(Expr a, Expr b) { return make_op(Op::Mul, {std::move(a), std::move(b)}); }
Expr div(Expr a, Expr b) { return make_op(Op::Div, {std::move(a), std::move(b)}); }
Expr mod(Expr a, Expr b) { return make_op(Op::Mod, {std::move(a), std::move(b)}); }
// A read of another func's last stage: f^(last, *)[...].
Expr rd(const char* f, int64_t last_stage, std::vector<Expr> idx) {
  return make_call(f, std::move(idx), {}, FuncLabel{last_stage, FuncLabel::kShared});
}
Stmt loop(const char* f, int64_t stage, const char* var, Expr mn, Expr ln, Stmt body) {
  return make_for(f, 0, stage, var, std::move(mn), std::move(ln), Traversal::Serial, std::move(body));
}
// The programs below read each loop's variable by its short name (x inside for <f, 0, 0, x>);
// a loop binds its qualified variable <f, 0, 0, x> (docs/target-syntax.md), so the program
// goes through its text form once, whose reader resolves each short name to its loop.
TgtProgram with_loop_binders(const TgtProgram& p) { return parse_tgt(print_tgt(p), p.file); }

// allocate f(...); label f: label f.s0: <loops>, as fig. 2.9 lays out a pure func.
Stmt pure_func(const char* f, std::vector<std::pair<Expr, Expr>> mem, Stmt loops) {
  return make_seq(
      {make_allocate(f, std::move(mem)), make_label(f, make_label(std::string(f) + ".s0", std::move(loops)))});
}

// input(x, y) = (x*7 + y*13) % 256; bx(x, y) = (input[x-1, y] + input[x, y] + input[x+1, y]) / 3;
// by(x, y) = (bx[x, y-1] + bx[x, y] + bx[x, y+1]) / 3 — the blur of bench_main.cpp.
TgtProgram blur_program() {
  Expr xm = v("x_min"), xl = v("x_len"), ym = v("y_min"), yl = v("y_len"), x = v("x"), y = v("y");
  Stmt in = pure_func(
      "input", {{sub(xm, c(1)), add(xl, c(2))}, {sub(ym, c(1)), add(yl, c(2))}},
      loop("input", 0, "y", sub(ym, c(1)), add(yl, c(2)),
           loop("input", 0, "x", sub(xm, c(1)), add(xl, c(2)),
                make_store("input", FuncLabel{0, 0}, {x, y}, mod(add(mul(x, c(7)), mul(y, c(13))), c(256))))));
  Expr bx_val =
      div(add(add(rd("input", 0, {sub(x, c(1)), y}), rd("input", 0, {x, y})), rd("input", 0, {add(x, c(1)), y})), c(3));
  Stmt bx = pure_func("bx", {{xm, xl}, {sub(ym, c(1)), add(yl, c(2))}},
                      loop("bx", 0, "y", sub(ym, c(1)), add(yl, c(2)),
                           loop("bx", 0, "x", xm, xl, make_store("bx", FuncLabel{0, 0}, {x, y}, bx_val))));
  Expr by_val =
      div(add(add(rd("bx", 0, {x, sub(y, c(1))}), rd("bx", 0, {x, y})), rd("bx", 0, {x, add(y, c(1))})), c(3));
  Stmt by = pure_func(
      "by", {{xm, xl}, {ym, yl}},
      loop("by", 0, "y", ym, yl, loop("by", 0, "x", xm, xl, make_store("by", FuncLabel{0, 0}, {x, y}, by_val))));
  TgtProgram p;
  p.file = "<bench blur>";
  p.name = "by";
  p.window = {{"x_min", "x_len"}, {"y_min", "y_len"}};
  p.body = make_seq({in, bx, by});
  return with_loop_binders(p);
}

// The same values by direct recursion on the definitions (every value is non-negative,
// so C++'s truncating division is the Euclidean one).
std::vector<int64_t> native_blur(int64_t W, int64_t H) {
  auto input = [](int64_t x, int64_t y) { return ((x * 7 + y * 13) % 256 + 256) % 256; };
  auto bx = [&](int64_t x, int64_t y) { return (input(x - 1, y) + input(x, y) + input(x + 1, y)) / 3; };
  std::vector<int64_t> out;
  for (int64_t y = 0; y < H; ++y)
    for (int64_t x = 0; x < W; ++x) out.push_back((bx(x, y - 1) + bx(x, y) + bx(x, y + 1)) / 3);
  return out;
}

// a(k, i) = (k*7 + i*13) % 256 - 128; b(j, k) = (j*5 + k*11 + 3) % 256 - 128;
// c(j, i) = { 0; rdom(k = (0, k_size)) in (j, i) <- c[j, i] + a[k, i] * b[j, k] }.
TgtProgram matmul_program() {
  Expr jm = v("j_min"), jl = v("j_len"), im = v("i_min"), il = v("i_len"), K = v("k_size");
  Expr i = v("i"), j = v("j"), k = v("k");
  Stmt a = pure_func(
      "a", {{c(0), K}, {im, il}},
      loop("a", 0, "i", im, il,
           loop("a", 0, "k", c(0), K,
                make_store("a", FuncLabel{0, 0}, {k, i}, sub(mod(add(mul(k, c(7)), mul(i, c(13))), c(256)), c(128))))));
  Stmt b = pure_func("b", {{jm, jl}, {c(0), K}},
                     loop("b", 0, "k", c(0), K,
                          loop("b", 0, "j", jm, jl,
                               make_store("b", FuncLabel{0, 0}, {j, k},
                                          sub(mod(add(add(mul(j, c(5)), mul(k, c(11))), c(3)), c(256)), c(128))))));
  Stmt s0 = make_label(
      "c.s0", loop("c", 0, "i", im, il, loop("c", 0, "j", jm, jl, make_store("c", FuncLabel{-1, 0}, {j, i}, c(0)))));
  Expr upd = add(make_call("c", {j, i}, {}, FuncLabel{0, 0}), mul(rd("a", 0, {k, i}), rd("b", 0, {j, k})));
  Stmt s1 = make_label(
      "c.s1", loop("c", 1, "i", im, il,
                   loop("c", 1, "j", jm, jl,
                        loop("c", 1, "k", c(0), K, make_if(c(1), make_store("c", FuncLabel{1, 0}, {j, i}, upd))))));
  TgtProgram p;
  p.file = "<bench matmul>";
  p.name = "c";
  p.params = {"k_size"};
  p.window = {{"j_min", "j_len"}, {"i_min", "i_len"}};
  p.body = make_seq({a, b, make_allocate("c", {{jm, jl}, {im, il}}), make_label("c", make_seq({s0, s1}))});
  return with_loop_binders(p);
}

std::vector<int64_t> native_matmul(int64_t M, int64_t N, int64_t K) {
  auto emod = [](int64_t x, int64_t m) { return ((x % m) + m) % m; };
  std::vector<int64_t> c(M * N, 0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j)
      for (int64_t k = 0; k < K; ++k)
        c[i * N + j] += (emod(k * 7 + i * 13, 256) - 128) * (emod(j * 5 + k * 11 + 3, 256) - 128);
  return c;
}

// Runs the machine `reps` times, reports the best rate, and checks the values.
bool measure(const std::string& name, const TgtProgram& p, const Input& in, const std::vector<int64_t>& expect,
             int reps, double target) {
  double best = 1e300;
  RunResult r;
  for (int rep = 0; rep < reps; ++rep) {
    auto t0 = Clock::now();
    r = run_tgt(p, in, Limits{});
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  bool same = r.status == RunStatus::Ok && r.output.values.size() == expect.size();
  for (size_t i = 0; same && i < expect.size(); ++i) same = r.output.values[i] == Value(expect[i]);
  double rate = double(r.steps) / best;
  fmt::print("{:<28} {:>12} steps  {:8.3f} s  {:8.2f} M steps/s  (target >= {} M){}\n", name, r.steps, best, rate / 1e6,
             target / 1e6, same ? "" : fmt::format("   WRONG RESULT ({}: {})", run_status_name(r.status), r.message));
  return same && rate >= target;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"halo_bench_small_step: steps per second of the Tgt small-step machine"};
  int reps = 3;
  int64_t blur_size = 512, mm_m = 128, mm_n = 128, mm_k = 64;
  double target = 5e6;
  app.add_option("--reps", reps, "repetitions (best time is reported)")->capture_default_str();
  app.add_option("--blur-size", blur_size, "blur image width and height")->capture_default_str();
  app.add_option("--mm-m", mm_m)->capture_default_str();
  app.add_option("--mm-n", mm_n)->capture_default_str();
  app.add_option("--mm-k", mm_k)->capture_default_str();
  app.add_option("--target", target, "steps per second required")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  bool ok = true;
  {
    Input in;
    in.window = {Interval{Value(0), Value(blur_size), {}}, Interval{Value(0), Value(blur_size), {}}};
    ok &= measure(fmt::format("blur 3x3 {}x{}", blur_size, blur_size), blur_program(), in,
                  native_blur(blur_size, blur_size), reps, target);
  }
  {
    Input in;
    in.params = {Value(mm_k)};
    in.window = {Interval{Value(0), Value(mm_n), {}}, Interval{Value(0), Value(mm_m), {}}};
    ok &= measure(fmt::format("matmul {}x{}x{}", mm_m, mm_n, mm_k), matmul_program(), in,
                  native_matmul(mm_m, mm_n, mm_k), reps, target);
  }
  return ok ? 0 : 1;
}

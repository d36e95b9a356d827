// Benchmarks of the fast big-step evaluator against native C++ loop nests computing the
// same values, measured in the same run: the untyped cases with 64-bit integers (within
// 50x), the typed uint8 blur with uint8_t/uint16_t (within 20x, issue 29).
// Every case checks that both produce the same values before it reports a ratio.
#include "interp/fast_eval.hpp"
#include "semantics/parser.hpp"
#include "semantics/validity.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

int64_t emod(int64_t a, int64_t b) {
  int64_t m = a % b;
  return m < 0 ? m + (b > 0 ? b : -b) : m;
}
int64_t ediv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b < 0) ? (b > 0 ? q - 1 : q + 1) : q;
}

struct Result {
  double seconds;
  int64_t checksum;
};

template <typename F>
Result best_of(int reps, F&& f) {
  Result best{1e300, 0};
  for (int i = 0; i < reps; ++i) {
    auto t0 = Clock::now();
    int64_t sum = f();
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (s < best.seconds) best = {s, sum};
  }
  return best;
}

int64_t run_halo(const std::string& src, const std::vector<halo::Value>& params,
                 const std::vector<std::pair<int64_t, int64_t>>& window) {
  halo::Program prog = halo::parse_program(src, "<bench>");
  halo::check_program(prog);
  halo::Input in;
  in.params = params;
  for (auto [mn, len] : window) in.window.push_back(halo::Interval{mn, len, {}});
  halo::OutputBuffer out = halo::evaluate_fast(prog.pipeline, in, halo::Limits{});
  int64_t sum = 0;
  for (const auto& v : out.values) sum = int64_t(uint64_t(sum) * 31 + uint64_t(v.is_small() ? v.small() : -1));
  return sum;
}

const char* kBlur = R"(
pipeline by() {
  fun input(x, y) = { (x * 7 + y * 13) % 256 }
  fun bx(x, y) = { (input[x - 1, y] + input[x, y] + input[x + 1, y]) / 3 }
  fun by(x, y) = { (bx[x, y - 1] + bx[x, y] + bx[x, y + 1]) / 3 }
}
)";

int64_t native_blur(int64_t W, int64_t H) {
  // Each stage materialized over exactly what the next one needs, as a C programmer would.
  std::vector<int64_t> in((W + 2) * (H + 2)), bx(W * (H + 2)), out(W * H);
  for (int64_t y = -1; y <= H; ++y)
    for (int64_t x = -1; x <= W; ++x) in[(y + 1) * (W + 2) + (x + 1)] = emod(x * 7 + y * 13, 256);
  for (int64_t y = -1; y <= H; ++y)
    for (int64_t x = 0; x < W; ++x) {
      const int64_t* row = &in[(y + 1) * (W + 2) + (x + 1)];
      bx[(y + 1) * W + x] = ediv(row[-1] + row[0] + row[1], 3);
    }
  for (int64_t y = 0; y < H; ++y)
    for (int64_t x = 0; x < W; ++x)
      out[y * W + x] = ediv(bx[y * W + x] + bx[(y + 1) * W + x] + bx[(y + 2) * W + x], 3);
  int64_t sum = 0;
  for (int64_t v : out) sum = sum * 31 + v;
  return sum;
}

const char* kMatmul = R"(
pipeline c(k_size) {
  fun a(k, i) = { (k * 7 + i * 13) % 256 - 128 }
  fun b(j, k) = { (j * 5 + k * 11 + 3) % 256 - 128 }
  fun c(j, i) = {
    0;
    rdom(k = (0, k_size)) in (j, i) <- c[j, i] + a[k, i] * b[j, k]
  }
}
)";

int64_t native_matmul(int64_t M, int64_t N, int64_t K) {
  std::vector<int64_t> a(M * K), b(K * N), c(M * N, 0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) a[i * K + k] = emod(k * 7 + i * 13, 256) - 128;
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < N; ++j) b[k * N + j] = emod(j * 5 + k * 11 + 3, 256) - 128;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) {
      int64_t aik = a[i * K + k];
      for (int64_t j = 0; j < N; ++j) c[i * N + j] += aik * b[k * N + j];
    }
  int64_t sum = 0;
  for (int64_t v : c) sum = sum * 31 + v;
  return sum;
}

// A uint8 image pipeline as Halide users write one: widen to uint16, a 3x3 [1 2 1] blur,
// narrow back with a saturating cast.
const char* kTypedBlur = R"(
pipeline out() {
  fun input(x, y) : u8 = { u8(x * 7 + y * 13) }
  fun bx(x, y) : u16 = { widening_add(input[x - 1, y], input[x + 1, y]) + 2 * u16(input[x, y]) }
  fun by(x, y) : u16 = { bx[x, y - 1] + 2 * bx[x, y] + bx[x, y + 1] }
  fun out(x, y) : u8 = { saturating_cast<u8>(by[x, y] / 14) }
}
)";

int64_t native_typed_blur(int64_t W, int64_t H) {
  std::vector<uint8_t> in((W + 2) * (H + 2)), out(W * H);
  std::vector<uint16_t> bx(W * (H + 2));
  for (int64_t y = -1; y <= H; ++y)
    for (int64_t x = -1; x <= W; ++x) in[(y + 1) * (W + 2) + (x + 1)] = uint8_t(x * 7 + y * 13);
  for (int64_t y = -1; y <= H; ++y)
    for (int64_t x = 0; x < W; ++x) {
      const uint8_t* row = &in[(y + 1) * (W + 2) + (x + 1)];
      bx[(y + 1) * W + x] = uint16_t(uint16_t(row[-1] + row[1]) + uint16_t(2 * row[0]));
    }
  for (int64_t y = 0; y < H; ++y)
    for (int64_t x = 0; x < W; ++x) {
      uint16_t v = uint16_t(bx[y * W + x] + 2 * bx[(y + 1) * W + x] + bx[(y + 2) * W + x]) / 14;
      out[y * W + x] = uint8_t(v > 255 ? 255 : v);
    }
  uint64_t sum = 0;
  for (uint8_t v : out) sum = sum * 31 + v;
  return int64_t(sum);
}

bool report(const std::string& name, const Result& h, const Result& n, double target) {
  double ratio = h.seconds / n.seconds;
  bool same = h.checksum == n.checksum;
  fmt::print("{:<34} halo {:8.3f} s   native {:8.4f} s   ratio {:6.1f}x   (target <= {}x){}\n", name, h.seconds,
             n.seconds, ratio, target, same ? "" : "   VALUES DIFFER");
  return same && ratio <= target;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"halo_bench: the fast evaluator against native loop nests"};
  int reps = 3;
  int64_t blur_size = 1024, mm_m = 3136, mm_n = 512, mm_k = 128;
  app.add_option("--reps", reps, "repetitions (best time is reported)")->capture_default_str();
  app.add_option("--blur-size", blur_size, "blur image width and height")->capture_default_str();
  app.add_option("--mm-m", mm_m)->capture_default_str();
  app.add_option("--mm-n", mm_n)->capture_default_str();
  app.add_option("--mm-k", mm_k)->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  bool ok = true;
  {
    auto h = best_of(reps, [&] { return run_halo(kBlur, {}, {{0, blur_size}, {0, blur_size}}); });
    auto n = best_of(reps, [&] { return native_blur(blur_size, blur_size); });
    ok &= report(fmt::format("blur 3x3, two stages, {}x{}", blur_size, blur_size), h, n, 50);
  }
  {
    auto h = best_of(reps, [&] { return run_halo(kMatmul, {halo::Value(mm_k)}, {{0, mm_n}, {0, mm_m}}); });
    auto n = best_of(reps, [&] { return native_matmul(mm_m, mm_n, mm_k); });
    ok &= report(fmt::format("matmul int8 {}x{}x{}", mm_m, mm_n, mm_k), h, n, 50);
  }
  {
    auto h = best_of(reps, [&] { return run_halo(kTypedBlur, {}, {{0, blur_size}, {0, blur_size}}); });
    auto n = best_of(reps, [&] { return native_typed_blur(blur_size, blur_size); });
    ok &= report(fmt::format("typed u8 blur, widen/narrow, {}x{}", blur_size, blur_size), h, n, 20);
  }
  return ok ? 0 : 1;
}

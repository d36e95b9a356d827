// Removing salt-and-pepper noise with a 3x3 median filter: each column's three pixels
// sorted once (helper lambdas of min and max), then the median of the sorted columns; the
// sorted columns computed per row of the output, the output parallel over rows.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> noisy(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      const int h = (x * 73 + y * 151) % 101;
      noisy(x, y) = h < 5 ? 0 : h > 95 ? 255 : (uint8_t)(90 + x + y);
    }

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func clamped = BoundaryConditions::repeat_edge(input);
  auto min3 = [](Expr a, Expr b, Expr c) { return min(a, min(b, c)); };
  auto max3 = [](Expr a, Expr b, Expr c) { return max(a, max(b, c)); };
  auto mid3 = [](Expr a, Expr b, Expr c) { return max(min(max(a, b), c), min(a, b)); };

  Func low("low"), middle("middle"), high("high"), median("median");
  auto column = [&](Expr x, Expr y) { return std::vector<Expr>{clamped(x, y - 1), clamped(x, y), clamped(x, y + 1)}; };
  auto c = column(x, y);
  low(x, y) = min3(c[0], c[1], c[2]);
  middle(x, y) = mid3(c[0], c[1], c[2]);
  high(x, y) = max3(c[0], c[1], c[2]);
  median(x, y) = mid3(max3(low(x - 1, y), low(x, y), low(x + 1, y)),
                      mid3(middle(x - 1, y), middle(x, y), middle(x + 1, y)),
                      min3(high(x - 1, y), high(x, y), high(x + 1, y)));

  low.compute_at(median, y);
  middle.compute_at(median, y);
  high.compute_at(median, y);
  median.parallel(y);

  input.set(noisy);
  Buffer<uint8_t> output = median.realize({width, height});
  halo_check::save(argv[1], "median3x3", median, output, {input});
  return 0;
}

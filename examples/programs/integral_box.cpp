// A fast 5x5 box filter through an integral image (summed-area table): two scans as update
// stages, each scheduled on its own (parallel rows, vectorized columns), then four lookups
// per output pixel, read clamped to the image.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height);
  uint32_t seed = 4242;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      seed = seed * 1664525u + 1013904223u;
      photo(x, y) = (uint8_t)(seed >> 24);
    }

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  RDom across(1, width - 1), down(1, height - 1);
  Func integral("integral"), box("box");
  integral(x, y) = cast<uint32_t>(input(x, y));
  integral(across, y) += integral(across - 1, y);
  integral(x, down) += integral(x, down - 1);
  auto at = [&](Expr x, Expr y) {
    return select(x < 0 || y < 0, cast<uint32_t>(0), integral(max(x, 0), max(y, 0)));
  };
  Expr x0 = max(x - 3, -1), x1 = min(x + 2, width - 1), y0 = max(y - 3, -1), y1 = min(y + 2, height - 1);
  Expr total = at(x1, y1) - at(x0, y1) - at(x1, y0) + at(x0, y0);
  box(x, y) = cast<uint8_t>(total / cast<uint32_t>((x1 - x0) * (y1 - y0)));

  integral.compute_root();
  integral.update(0).parallel(y);
  integral.update(1).vectorize(x, 8);
  box.parallel(y);

  input.set(photo);
  Buffer<uint8_t> output = box.realize({width, height});
  halo_check::save(argv[1], "integral_box", box, output, {input});
  return 0;
}

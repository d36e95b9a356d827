// Stretching an image's contrast through a 256-entry lookup table computed once
// (compute_root), indexed by each pixel's value.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)(60 + (x * 5 + y * 3) % 120);

  ImageParam input(UInt(8), 2, "input");
  Param<uint8_t> black("black"), white("white");
  Var x("x"), y("y"), i("i");
  Func lut("lut"), stretched("stretched");
  Expr span = max(cast<int>(white) - cast<int>(black), 1);
  lut(i) = cast<uint8_t>(clamp((i - cast<int>(black)) * 255 / span, 0, 255));
  stretched(x, y) = lut(cast<int>(input(x, y)));

  lut.compute_root();
  stretched.vectorize(x, 8);

  input.set(photo);
  black.set(60);
  white.set(180);
  Buffer<uint8_t> output = stretched.realize({width, height});
  halo_check::save(argv[1], "contrast_lut", stretched, output, {input}, {black, white});
  return 0;
}

// Gamma-correcting a uint8 photo with a gamma of 2 (out = 255 * sqrt(in / 255)), in floats as
// users write it: once per pixel, vectorized, and once through a 256-entry lookup table
// computed at the root. sqrt is correctly rounded, so halo judges it bit for bit
// (docs/floats.md); gamma.cpp's pow is refused.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)(x * 8 + y / 3);

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y"), i("i");
  Func lut("lut"), direct("direct"), corrected("corrected");
  lut(i) = cast<uint8_t>(clamp(sqrt(cast<float>(i) / 255.0f) * 255.0f + 0.5f, 0.0f, 255.0f));
  Expr linear = cast<float>(input(x, y)) / 255.0f;
  direct(x, y) = cast<uint8_t>(clamp(sqrt(linear) * 255.0f + 0.5f, 0.0f, 255.0f));
  corrected(x, y) = select(x % 2 == 0, direct(x, y), lut(cast<int>(input(x, y))));

  lut.compute_root();
  corrected.vectorize(x, 8);

  input.set(photo);
  Buffer<uint8_t> output = corrected.realize({width, height});
  halo_check::save(argv[1], "gamma_sqrt", corrected, output, {input});
  return 0;
}

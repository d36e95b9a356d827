// White balance and saturation of an RGB photo: per-channel gains (a 3x1 input of 8.8
// fixed-point factors), the result pushed away from its gray by a run-time factor; a 3-D
// output with its channels innermost and unrolled (reorder, bound, unroll).
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 16, height = 12;
  Buffer<uint8_t> photo(width, height, 3);
  for (int c = 0; c < 3; c++)
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++) photo(x, y, c) = (uint8_t)((x * 13 + y * 7 + c * 50) % 256);
  Buffer<uint16_t> factors(3);
  factors(0) = 300, factors(1) = 256, factors(2) = 200;

  ImageParam input(UInt(8), 3, "input"), gains(UInt(16), 1, "gains");
  Param<int16_t> saturation("saturation");
  Var x("x"), y("y"), c("c");
  Func balanced("balanced"), gray("gray"), adjusted("adjusted");
  balanced(x, y, c) = min(cast<int16_t>((cast<uint32_t>(input(x, y, c)) * gains(c)) >> 8), 255);
  gray(x, y) = (balanced(x, y, 0) + balanced(x, y, 1) + balanced(x, y, 2)) / 3;
  adjusted(x, y, c) = saturating_cast<uint8_t>(gray(x, y) + (balanced(x, y, c) - gray(x, y)) * saturation / 16);

  balanced.compute_at(adjusted, y).reorder(c, x, y);
  adjusted.reorder(c, x, y).bound(c, 0, 3).unroll(c);

  input.set(photo);
  gains.set(factors);
  saturation.set(24);
  Buffer<uint8_t> output = adjusted.realize({width, height, 3});
  halo_check::save(argv[1], "color_adjust", adjusted, output, {input, gains}, {saturation});
  return 0;
}

// halo-refuses: Halide computes pow with its own approximation
// Gamma-correcting a uint8 photo (out = 255 * (in / 255)^(1/2.2)), in floats as users write
// it, vectorized.
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
  Var x("x"), y("y");
  Func corrected("corrected");
  Expr linear = cast<float>(input(x, y)) / 255.0f;
  corrected(x, y) = cast<uint8_t>(clamp(pow(linear, 1.0f / 2.2f) * 255.0f + 0.5f, 0.0f, 255.0f));

  corrected.vectorize(x, 8);

  input.set(photo);
  Buffer<uint8_t> output = corrected.realize({width, height});
  halo_check::save(argv[1], "gamma", corrected, output, {input});
  return 0;
}

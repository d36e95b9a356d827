// A general 3x3 convolution whose kernel is a second input (int16 weights) and whose
// normalization is a run-time shift: Halide's inline sum() over an RDom, mirrored edges,
// the result saturated to uint8; vectorized and parallel.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)((x * 19 + y * 7 + (x * y) % 23) % 256);
  Buffer<int16_t> weights(3, 3);
  const int16_t sharpen[3][3] = {{0, -2, 0}, {-2, 12, -2}, {0, -2, 0}};
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 3; i++) weights(i, j) = sharpen[j][i];

  ImageParam input(UInt(8), 2, "input"), kernel(Int(16), 2, "kernel");
  Param<int32_t> shift("shift");
  Var x("x"), y("y");
  Func mirrored = BoundaryConditions::mirror_image(input);
  RDom r(0, 3, 0, 3);
  Func filtered("filtered");
  Expr weighted = sum(cast<int32_t>(kernel(r.x, r.y)) * cast<int32_t>(mirrored(x + r.x - 1, y + r.y - 1)));
  filtered(x, y) = saturating_cast<uint8_t>(weighted >> shift);

  filtered.vectorize(x, 8).parallel(y);

  input.set(photo);
  kernel.set(weights);
  shift.set(2);
  Buffer<uint8_t> output = filtered.realize({width, height});
  halo_check::save(argv[1], "convolve", filtered, output, {input, kernel}, {shift});
  return 0;
}

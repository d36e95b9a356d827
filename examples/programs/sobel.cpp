// Edge detection (Sobel gradient magnitude, |gx| + |gy| clamped to 255) on a uint8 image
// with a black border (constant_exterior), tiled 16x8 with both gradients computed per tile
// (compute_at without store_root).
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)(((x / 4 + y / 3) % 2) * 180 + (x * y) % 50);

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
  Func padded = BoundaryConditions::constant_exterior(input, 0);
  auto in = [&](Expr x, Expr y) { return cast<int16_t>(padded(x, y)); };

  Func gx("gx"), gy("gy"), magnitude("magnitude");
  gx(x, y) = (in(x + 1, y - 1) + 2 * in(x + 1, y) + in(x + 1, y + 1)) -
             (in(x - 1, y - 1) + 2 * in(x - 1, y) + in(x - 1, y + 1));
  gy(x, y) = (in(x - 1, y + 1) + 2 * in(x, y + 1) + in(x + 1, y + 1)) -
             (in(x - 1, y - 1) + 2 * in(x, y - 1) + in(x + 1, y - 1));
  magnitude(x, y) = cast<uint8_t>(clamp(abs(gx(x, y)) + abs(gy(x, y)), 0, 255));

  magnitude.tile(x, y, xo, yo, xi, yi, 16, 8);
  gx.compute_at(magnitude, xo);
  gy.compute_at(magnitude, xo);

  input.set(photo);
  Buffer<uint8_t> output = magnitude.realize({width, height});
  halo_check::save(argv[1], "sobel", magnitude, output, {input});
  return 0;
}

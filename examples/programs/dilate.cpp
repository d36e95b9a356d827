// Morphological dilation (3x3 maximum) of a binary-ish mask, mirrored inside the image at
// the edges; the horizontal maxima kept in a sliding window over rows (store_root with
// compute_at the output's rows).
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> mask(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) mask(x, y) = ((x * 7 + y * 13) % 17 == 0) ? 255 : (uint8_t)((x + y) % 9);

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func mirrored = BoundaryConditions::mirror_interior(input);
  auto max3 = [](Expr a, Expr b, Expr c) { return max(a, max(b, c)); };

  Func max_x("max_x"), dilated("dilated");
  max_x(x, y) = max3(mirrored(x - 1, y), mirrored(x, y), mirrored(x + 1, y));
  dilated(x, y) = max3(max_x(x, y - 1), max_x(x, y), max_x(x, y + 1));

  max_x.store_root().compute_at(dilated, y);

  input.set(mask);
  Buffer<uint8_t> output = dilated.realize({width, height});
  halo_check::save(argv[1], "dilate", dilated, output, {input});
  return 0;
}

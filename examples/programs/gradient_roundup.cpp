// The horizontal contrast of an image (absolute difference of neighbours, summed over three
// rows), its producer computed per row in whole vectors of 8: the split rounded up
// (RoundUp), which computes a few columns beyond the 30 the output needs.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 30, height = 20;
  Buffer<uint8_t> photo(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)((x * 41 + y * y * 7) % 256);

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y"), xo("xo"), xi("xi");
  Func clamped = BoundaryConditions::repeat_edge(input);
  Func difference("difference"), contrast("contrast");
  difference(x, y) = absd(clamped(x + 1, y), clamped(x, y));
  contrast(x, y) = cast<uint8_t>(min(cast<uint16_t>(difference(x, y - 1)) + difference(x, y) + difference(x, y + 1), 255));

  difference.compute_at(contrast, y).split(x, xo, xi, 8, TailStrategy::RoundUp).vectorize(xi);

  input.set(photo);
  Buffer<uint8_t> output = contrast.realize({width, height});
  halo_check::save(argv[1], "gradient_roundup", contrast, output, {input});
  return 0;
}

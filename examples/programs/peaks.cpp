// Detecting bright spots (keypoints): a pixel is a peak when it exceeds every neighbour in
// its 5x5 window by a margin, the neighbourhood's maximum taken with Halide's inline
// maximum() over an RDom that skips the centre (RDom::where); the window's maxima
// computed per strip of rows.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height);
  uint32_t seed = 2024;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      seed = seed * 1103515245u + 12345u;
      photo(x, y) = (uint8_t)(((seed >> 16) % 97) + (((x * 3 + y * 5) % 29 == 0) ? 150 : 0));
    }

  ImageParam input(UInt(8), 2, "input");
  Param<uint8_t> margin("margin");
  Var x("x"), y("y"), yo("yo"), yi("yi");
  Func clamped = BoundaryConditions::constant_exterior(input, 0);
  RDom r(-2, 5, -2, 5);
  r.where(r.x != 0 || r.y != 0);
  Func neighbours("neighbours"), peak("peak");
  neighbours(x, y) = maximum(clamped(x + r.x, y + r.y));
  peak(x, y) = select(cast<uint16_t>(clamped(x, y)) > cast<uint16_t>(neighbours(x, y)) + margin,
                      cast<uint8_t>(255), cast<uint8_t>(0));

  peak.split(y, yo, yi, 8);
  neighbours.compute_at(peak, yo);

  input.set(photo);
  margin.set(20);
  Buffer<uint8_t> output = peak.realize({width, height});
  halo_check::save(argv[1], "peaks", peak, output, {input}, {margin});
  return 0;
}

// halo-refuses: a wrapper (Func::in)
// A box blur whose input rows are first copied into a small staging buffer per tile (a
// wrapper, Func::in, computed at the tile), as users stage data for locality.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)((x * 9 + y * 15) % 256);

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
  Func clamped("clamped"), blur("blur");
  clamped = BoundaryConditions::repeat_edge(input);
  blur(x, y) = cast<uint8_t>((cast<uint16_t>(clamped(x - 1, y)) + clamped(x, y) + clamped(x + 1, y) +
                              clamped(x, y - 1) + clamped(x, y + 1)) / 5);

  blur.tile(x, y, xo, yo, xi, yi, 16, 8);
  clamped.in(blur).compute_at(blur, xo);

  input.set(photo);
  Buffer<uint8_t> output = blur.realize({width, height});
  halo_check::save(argv[1], "staged_blur", blur, output, {input});
  return 0;
}

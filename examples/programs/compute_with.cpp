// A structure-tensor style edge strength: the horizontal and the vertical differences of an
// image computed in one loop nest (compute_with), both stored for the whole image, then
// combined.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)((x * 13 + y * 31 + (x ^ y) * 3) % 256);

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func clamped = BoundaryConditions::repeat_edge(input);
  Func dx("dx"), dy("dy"), strength("strength");
  dx(x, y) = cast<int16_t>(clamped(x + 1, y)) - cast<int16_t>(clamped(x - 1, y));
  dy(x, y) = cast<int16_t>(clamped(x, y + 1)) - cast<int16_t>(clamped(x, y - 1));
  strength(x, y) = saturating_cast<uint8_t>((abs(dx(x, y)) + abs(dy(x, y))) / 2);

  dx.compute_root();
  dy.compute_root();
  dy.compute_with(dx, y);

  input.set(photo);
  Buffer<uint8_t> output = strength.realize({width, height});
  halo_check::save(argv[1], "compute_with", strength, output, {input});
  return 0;
}

// Mirror an image left to right, reading the input at its own width, then halve it with mirror_interior edges.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  Buffer<uint8_t> photo(18, 10);
  for (int y = 0; y < 10; y++)
    for (int x = 0; x < 18; x++) photo(x, y) = (uint8_t)((x * 29 + y * 53 + 7 * x * y) % 256);

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func flipped("flipped"), half("half");
  flipped(x, y) = input(input.width() - 1 - x, y);
  Func reflected = BoundaryConditions::mirror_interior(flipped, {{0, input.width()}, {0, input.height()}});
  half(x, y) = rounding_halving_add(reflected(2 * x - 1, y), reflected(2 * x + 1, y));

  flipped.compute_root();

  input.set(photo);
  Buffer<uint8_t> output = half.realize({9, 10});
  halo_check::save(argv[1], "mirror_flip", half, output, {input});
  return 0;
}

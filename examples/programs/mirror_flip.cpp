// Mirror an image left to right, reading the input at its own width, then halve it with mirror_interior edges.
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func flipped("flipped"), reflected, half("half");
  flipped(x, y) = input(input.width() - 1 - x, y);
  reflected = BoundaryConditions::mirror_interior(flipped, {{0, input.width()}, {0, input.height()}});
  half(x, y) = rounding_halving_add(reflected(2 * x - 1, y), reflected(2 * x + 1, y));

  flipped.compute_root();

  Buffer<uint8_t> photo = halo_check::test_image(18, 10, 13);
  input.set(photo);
  Buffer<uint8_t> out = half.realize({9, 10});
  return halo_check::save(argv[1], "mirror_flip", half, out, {halo_check::input("input", photo)});
}

// Halve a uint8 image by averaging 2x2 blocks, vectorized by 8 over an odd width: predicated stores (the input padded to a multiple of 8, as Halide requires).
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y"), xo("xo"), xi("xi");
  Func down("down");
  Expr sum = cast<uint16_t>(input(2 * x, 2 * y)) + input(2 * x + 1, 2 * y) + input(2 * x, 2 * y + 1) +
             input(2 * x + 1, 2 * y + 1);
  down(x, y) = cast<uint8_t>((sum + 2) / 4);

  down.split(x, xo, xi, 8, TailStrategy::PredicateStores).vectorize(xi);

  Buffer<uint8_t> photo = halo_check::test_image(32, 14, 7);
  input.set(photo);
  Buffer<uint8_t> out = down.realize({13, 7});
  return halo_check::save(argv[1], "downsample_tail", down, out, {halo_check::input("input", photo)});
}

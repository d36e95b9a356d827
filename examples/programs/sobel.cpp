// Sobel edge magnitude of a uint8 image, black outside it, in int16 arithmetic saturated back to uint8.
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func padded = BoundaryConditions::constant_exterior(input, 0);
  Func in16("in16"), gx("gx"), gy("gy"), edges("edges");
  in16(x, y) = cast<int16_t>(padded(x, y));
  gx(x, y) = (in16(x + 1, y - 1) + 2 * in16(x + 1, y) + in16(x + 1, y + 1)) -
             (in16(x - 1, y - 1) + 2 * in16(x - 1, y) + in16(x - 1, y + 1));
  gy(x, y) = (in16(x - 1, y + 1) + 2 * in16(x, y + 1) + in16(x + 1, y + 1)) -
             (in16(x - 1, y - 1) + 2 * in16(x, y - 1) + in16(x + 1, y - 1));
  edges(x, y) = saturating_cast<uint8_t>(abs(gx(x, y)) + abs(gy(x, y)));

  in16.compute_root();
  edges.parallel(y).vectorize(x, 8);

  Buffer<uint8_t> photo = halo_check::test_image(24, 16, 3);
  input.set(photo);
  Buffer<uint8_t> out = edges.realize({24, 16});
  return halo_check::save(argv[1], "sobel", edges, out, {halo_check::input("input", photo)});
}

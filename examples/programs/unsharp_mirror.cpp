// Unsharp masking of a uint8 image with mirrored edges, a strength parameter and saturating arithmetic.
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  ImageParam input(UInt(8), 2, "input");
  Param<int> strength("strength");
  Var x("x"), y("y");
  Func mirrored = BoundaryConditions::mirror_image(input);
  Func blur_x("blur_x"), blur_y("blur_y"), sharpened("sharpened");
  blur_x(x, y) = (cast<uint16_t>(mirrored(x - 1, y)) + 2 * cast<uint16_t>(mirrored(x, y)) + mirrored(x + 1, y)) / 4;
  blur_y(x, y) = (blur_x(x, y - 1) + 2 * blur_x(x, y) + blur_x(x, y + 1)) / 4;
  Expr detail = cast<int16_t>(mirrored(x, y)) - cast<int16_t>(blur_y(x, y));
  sharpened(x, y) = saturating_cast<uint8_t>(cast<int16_t>(mirrored(x, y)) + detail * cast<int16_t>(strength));

  blur_y.compute_at(sharpened, y);
  blur_x.store_root().compute_at(sharpened, y);

  Buffer<uint8_t> photo = halo_check::test_image(20, 14, 12);
  input.set(photo);
  strength.set(2);
  Buffer<uint8_t> out = sharpened.realize({20, 14});
  return halo_check::save(argv[1], "unsharp_mirror", sharpened, out, {halo_check::input("input", photo)},
                          {{"strength", 2}});
}

// A 3x3 box blur of a uint8 image with clamped edges, tiled, the horizontal pass computed per tile.
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y"), xi("xi"), yi("yi");
  Func clamped = BoundaryConditions::repeat_edge(input);
  auto sum3 = [](Expr a, Expr b, Expr c) { return cast<uint16_t>(a) + b + c; };
  Func blur_x("blur_x"), blur_y("blur_y");
  blur_x(x, y) = sum3(clamped(x - 1, y), clamped(x, y), clamped(x + 1, y));
  blur_y(x, y) = cast<uint8_t>(sum3(blur_x(x, y - 1), blur_x(x, y), blur_x(x, y + 1)) / 9);

  blur_y.tile(x, y, xi, yi, 8, 8).vectorize(xi, 4);
  blur_x.compute_at(blur_y, x).vectorize(x, 4);

  Buffer<uint8_t> photo = halo_check::test_image(32, 24, 2);
  input.set(photo);
  Buffer<uint8_t> out = blur_y.realize({32, 24});
  return halo_check::save(argv[1], "blur3x3", blur_y, out, {halo_check::input("input", photo)});
}

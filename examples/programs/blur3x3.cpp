// A user's first Halide program: a 3x3 box blur of a grayscale photo, with the edges
// repeated and the sums kept in uint16, and no schedule at all (Halide's defaults).
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)((x * 37 + y * 91 + x * y) % 256);

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func clamped = BoundaryConditions::repeat_edge(input);
  auto widen = [&](Expr x, Expr y) { return cast<uint16_t>(clamped(x, y)); };

  Func blur_x("blur_x"), blur_y("blur_y");
  blur_x(x, y) = widen(x - 1, y) + widen(x, y) + widen(x + 1, y);
  blur_y(x, y) = cast<uint8_t>((blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 9);

  input.set(photo);
  Buffer<uint8_t> output = blur_y.realize({width, height});
  halo_check::save(argv[1], "blur3x3", blur_y, output, {input});
  return 0;
}

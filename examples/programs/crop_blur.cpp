// A 3x3 blur without any boundary condition, realized only over the interior where every
// read is inside the image (an output buffer whose min is (1, 1)), as Halide's tutorials
// do; the vertical pass vectorized.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)((x * 11 + y * 29) % 256);

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func blur_x("blur_x"), blur_y("blur_y");
  blur_x(x, y) = cast<uint16_t>(input(x - 1, y)) + input(x, y) + input(x + 1, y);
  blur_y(x, y) = cast<uint8_t>((blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 9);

  blur_x.compute_root();
  blur_y.vectorize(x, 8);

  input.set(photo);
  Buffer<uint8_t> output(width - 2, height - 2);
  output.set_min(1, 1);
  blur_y.realize(output);
  halo_check::save(argv[1], "crop_blur", blur_y, output, {input});
  return 0;
}

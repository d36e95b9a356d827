// A separable blur whose rows are vectorized only on wide images, its horizontal pass computed per row of each specialization.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  Buffer<uint8_t> photo(24, 8);
  for (int y = 0; y < 8; y++)
    for (int x = 0; x < 24; x++) photo(x, y) = (uint8_t)((x * 37 + y * 91 + x * y) % 256);

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func clamped = BoundaryConditions::repeat_edge(input);
  Func blur_x("blur_x"), blur("blur");
  blur_x(x, y) = cast<uint16_t>(clamped(x - 1, y)) + clamped(x, y) + clamped(x + 1, y);
  blur(x, y) = cast<uint8_t>((blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 9);

  blur.specialize(input.width() >= 16).vectorize(x, 8);
  blur_x.compute_at(blur, y);

  input.set(photo);
  Buffer<uint8_t> output = blur.realize({24, 8});
  halo_check::save(argv[1], "specialized_storage", blur, output, {input});
  return 0;
}

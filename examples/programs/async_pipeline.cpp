// A two-stage denoise (a vertical then a horizontal 3-tap average) whose first stage runs
// as its own task, ahead of the second, per strip of 8 rows (compute_at with async).
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height);
  uint32_t seed = 99;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      seed = seed * 22695477u + 1u;
      photo(x, y) = (uint8_t)(100 + x + y + ((seed >> 16) % 32));
    }

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y"), yo("yo"), yi("yi");
  Func clamped = BoundaryConditions::repeat_edge(input);
  Func vertical("vertical"), denoised("denoised");
  vertical(x, y) = (cast<uint16_t>(clamped(x, y - 1)) + clamped(x, y) + clamped(x, y + 1)) / 3;
  denoised(x, y) = cast<uint8_t>((vertical(x - 1, y) + vertical(x, y) + vertical(x + 1, y)) / 3);

  denoised.split(y, yo, yi, 8);
  vertical.compute_at(denoised, yo).async();

  input.set(photo);
  Buffer<uint8_t> output = denoised.realize({width, height});
  halo_check::save(argv[1], "async_pipeline", denoised, output, {input});
  return 0;
}

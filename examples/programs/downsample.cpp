// Halving an image's resolution (2x2 average, rounded) for a thumbnail whose width, 15, is
// not a multiple of the split: the tail of the split guarded with an if (GuardWithIf).
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 30, height = 24;
  Buffer<uint8_t> photo(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)((x * 17) ^ (y * 9));

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y"), xo("xo"), xi("xi");
  auto pixel = [&](Expr x, Expr y) { return cast<uint16_t>(input(x, y)); };
  Func thumbnail("thumbnail");
  thumbnail(x, y) = cast<uint8_t>((pixel(2 * x, 2 * y) + pixel(2 * x + 1, 2 * y) +
                                   pixel(2 * x, 2 * y + 1) + pixel(2 * x + 1, 2 * y + 1) + 2) / 4);

  thumbnail.split(x, xo, xi, 4, TailStrategy::GuardWithIf).vectorize(xi);

  input.set(photo);
  Buffer<uint8_t> output = thumbnail.realize({width / 2, height / 2});
  halo_check::save(argv[1], "downsample", thumbnail, output, {input});
  return 0;
}

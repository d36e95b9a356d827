// Converting an interleaved-planar RGB photo to grayscale with the usual integer luma
// weights (77 R + 150 G + 29 B) / 256, and a color-channel brightness boost computed per
// row with its channels unrolled (a 3-D input, bound, reorder, unroll).
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 24, height = 16;
  Buffer<uint8_t> photo(width, height, 3);
  for (int c = 0; c < 3; c++)
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++) photo(x, y, c) = (uint8_t)((x * (c + 3) * 11 + y * (7 - c) * 5) % 256);

  ImageParam input(UInt(8), 3, "input");
  Var x("x"), y("y"), c("c");
  Func boosted("boosted"), gray("gray");
  boosted(x, y, c) = saturating_cast<uint8_t>(cast<uint16_t>(input(x, y, c)) * 5 / 4);
  auto channel = [&](int k) { return cast<uint16_t>(boosted(x, y, k)); };
  gray(x, y) = cast<uint8_t>((77 * channel(0) + 150 * channel(1) + 29 * channel(2)) >> 8);

  boosted.compute_at(gray, y).bound(c, 0, 3).reorder(c, x, y).unroll(c);
  gray.vectorize(x, 8);

  input.set(photo);
  Buffer<uint8_t> output = gray.realize({width, height});
  halo_check::save(argv[1], "rgb_to_gray", gray, output, {input});
  return 0;
}

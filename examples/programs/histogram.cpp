// A 16-bin brightness histogram of a uint8 image: an RDom over the whole input, an update
// that counts each pixel into its bin.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 24, height = 16;
  Buffer<uint8_t> photo(width, height);
  uint32_t seed = 7;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      seed = seed * 1664525u + 1013904223u;
      photo(x, y) = (uint8_t)((seed >> 24) / 2 + x * 4);
    }

  ImageParam input(UInt(8), 2, "input");
  Var bin("bin");
  RDom r(0, input.width(), 0, input.height());
  Func histogram("histogram");
  histogram(bin) = 0;
  Expr b = cast<int>(input(r.x, r.y)) / 16;
  histogram(b) += 1;

  input.set(photo);
  Buffer<int> output = histogram.realize({16});
  halo_check::save(argv[1], "histogram", histogram, output, {input});
  return 0;
}

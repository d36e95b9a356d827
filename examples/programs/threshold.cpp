// Binarizing a scan at a brightness level chosen at run time (a Param), with a fast path
// specialized for level 0 (everything white) and the general case vectorized.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> scan(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) scan(x, y) = (uint8_t)(128 + ((x * 29 + y * 53) % 97) - 48);

  ImageParam input(UInt(8), 2, "input");
  Param<uint8_t> level("level");
  Var x("x"), y("y");
  Func binary("binary");
  binary(x, y) = select(input(x, y) >= level, cast<uint8_t>(255), cast<uint8_t>(0));

  binary.specialize(level == 0);
  binary.vectorize(x, 8).parallel(y);

  input.set(scan);
  level.set(130);
  Buffer<uint8_t> output = binary.realize({width, height});
  halo_check::save(argv[1], "threshold", binary, output, {input}, {level});
  return 0;
}

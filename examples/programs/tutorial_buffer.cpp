// halo-refuses: Buffer
// Halide's tutorial style (lesson 2): brightening an image held in a Buffer that the Func
// reads directly, with no ImageParam, so the Buffer is embedded in the pipeline.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height, "photo");
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)(x * 5 + y * 3);

  Var x("x"), y("y");
  Func brighter("brighter");
  brighter(x, y) = cast<uint8_t>(min(cast<uint16_t>(photo(x, y)) * 3 / 2, 255));

  Buffer<uint8_t> output = brighter.realize({width, height});
  halo_check::save(argv[1], "tutorial_buffer", brighter, output, {});
  return 0;
}

// Cross-fading two photos with an opacity chosen at run time (Halide's lerp on uint8, the
// weight a Param), and a vignette darkening the corners computed in the same pass; the
// output tiled and parallel over tiles.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> first(width, height), second(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      first(x, y) = (uint8_t)(x * 8);
      second(x, y) = (uint8_t)(255 - ((x * y * 3 + y * 17) % 256));
    }

  ImageParam a(UInt(8), 2, "a"), b(UInt(8), 2, "b");
  Param<uint8_t> opacity("opacity");
  Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), tile("tile");
  Func mixed("mixed"), vignetted("vignetted");
  mixed(x, y) = lerp(a(x, y), b(x, y), opacity);
  Expr distance = absd(x, width / 2) + absd(y, height / 2);
  vignetted(x, y) = cast<uint8_t>(cast<uint16_t>(mixed(x, y)) * (64 - min(cast<uint16_t>(distance), 32)) / 64);

  vignetted.tile(x, y, xo, yo, xi, yi, 16, 8).fuse(xo, yo, tile).parallel(tile);

  a.set(first);
  b.set(second);
  opacity.set(100);
  Buffer<uint8_t> output = vignetted.realize({width, height});
  halo_check::save(argv[1], "blend", vignetted, output, {a, b}, {opacity});
  return 0;
}

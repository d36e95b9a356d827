// Sharpening a photo (unsharp mask): the image plus the difference to its blur, mirrored at
// the edges, in int16, saturated back to uint8; the blur computed once (compute_root),
// vectorized and parallel.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height);
  uint32_t seed = 12345;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      seed = seed * 1103515245u + 12345u;
      photo(x, y) = (uint8_t)(seed >> 24);
    }

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func mirrored = BoundaryConditions::mirror_image(input);
  auto as_int16 = [&](Expr e) { return cast<int16_t>(e); };

  Func blur_x("blur_x"), blur("blur"), sharpened("sharpened");
  blur_x(x, y) = (as_int16(mirrored(x - 1, y)) + 2 * as_int16(mirrored(x, y)) + as_int16(mirrored(x + 1, y))) / 4;
  blur(x, y) = (blur_x(x, y - 1) + 2 * blur_x(x, y) + blur_x(x, y + 1)) / 4;
  Expr original = as_int16(mirrored(x, y));
  sharpened(x, y) = saturating_cast<uint8_t>(original + (original - blur(x, y)) * 3 / 2);

  blur_x.compute_root().vectorize(x, 8);
  blur.compute_root().parallel(y).vectorize(x, 8);
  sharpened.parallel(y).vectorize(x, 8);

  input.set(photo);
  Buffer<uint8_t> output = sharpened.realize({width, height});
  halo_check::save(argv[1], "unsharp", sharpened, output, {input});
  return 0;
}

// The average brightness of each row band of an image: a sum over an RDom, split with
// rfactor into partial sums per column that run in parallel.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)((x * x + 3 * y * y + 11 * x * y) % 251);

  ImageParam input(UInt(8), 2, "input");
  Var band("band"), u("u");
  RDom r(0, 32, 0, 4);
  Func total("total"), mean("mean");
  total(band) = cast<uint32_t>(0);
  total(band) += cast<uint32_t>(input(r.x, band * 4 + r.y));
  mean(band) = cast<uint8_t>(total(band) / 128);

  Func partial = total.update().rfactor(r.x, u);
  partial.compute_root().update().parallel(u);
  total.compute_root();

  input.set(photo);
  Buffer<uint8_t> output = mean.realize({height / 4});
  halo_check::save(argv[1], "brightness_rfactor", mean, output, {input});
  return 0;
}

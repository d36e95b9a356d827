// Histogram equalization of a dim photo: a 256-bin histogram, its cumulative sum (a scan
// over an RDom), and a lookup of each pixel's rank scaled to 0..255; each table computed
// once (compute_root), the output parallel.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)(40 + (x * 3 + y * 5 + (x * y) % 11) % 64);

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y"), i("i");
  RDom pixels(0, width, 0, height);
  RDom bins(1, 255);
  Func histogram("histogram"), cdf("cdf"), equalized("equalized");
  histogram(i) = 0;
  histogram(cast<int>(input(pixels.x, pixels.y))) += 1;
  cdf(i) = histogram(i);
  cdf(bins) = cdf(bins - 1) + histogram(bins);
  equalized(x, y) = cast<uint8_t>(cdf(cast<int>(input(x, y))) * 255 / (width * height));

  histogram.compute_root();
  cdf.compute_root();
  equalized.parallel(y);

  input.set(photo);
  Buffer<uint8_t> output = equalized.realize({width, height});
  halo_check::save(argv[1], "equalize", equalized, output, {input});
  return 0;
}

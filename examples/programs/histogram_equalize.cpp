// Histogram equalization of a uint8 image: a histogram, its cumulative sum, and the remapped image.
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y"), i("i");
  RDom r(0, input.width(), 0, input.height());
  Func hist("hist"), cdf("cdf"), equalized("equalized");
  hist(i) = 0;
  hist(clamp(cast<int>(input(r.x, r.y)), 0, 255)) += 1;
  RDom b(1, 255);
  cdf(i) = hist(i);
  cdf(b) = cdf(b - 1) + hist(b);
  Expr pixels = input.width() * input.height();
  equalized(x, y) = cast<uint8_t>(clamp(cdf(cast<int>(input(x, y))) * 255 / pixels, 0, 255));

  hist.compute_root();
  cdf.compute_root();

  Buffer<uint8_t> photo = halo_check::test_image(16, 12, 5);
  input.set(photo);
  Buffer<uint8_t> out = equalized.realize({16, 12});
  return halo_check::save(argv[1], "histogram_equalize", equalized, out, {halo_check::input("input", photo)});
}

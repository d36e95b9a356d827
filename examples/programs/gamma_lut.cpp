// A gamma curve as a 256-entry integer lookup table, applied to every pixel of a uint8 image.
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y"), i("i");
  Func lut("lut"), curved("curved");
  lut(i) = cast<uint8_t>((i * i + 127) / 255);
  curved(x, y) = lut(cast<int>(input(x, y)));

  lut.compute_root();
  curved.vectorize(x, 8);

  Buffer<uint8_t> photo = halo_check::test_image(16, 8, 11);
  input.set(photo);
  Buffer<uint8_t> out = curved.realize({16, 8});
  return halo_check::save(argv[1], "gamma_lut", curved, out, {halo_check::input("input", photo)});
}

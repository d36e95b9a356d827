// A brightness curve computed by an asynchronous producer while its consumer adds a vignette.
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func curve("curve"), vignette("vignette");
  curve(x, y) = cast<uint8_t>(min(cast<uint16_t>(input(x, y)) * 3 / 2, 255));
  Expr dx = x - 12, dy = y - 8;
  vignette(x, y) = saturating_cast<uint8_t>(cast<int>(curve(x, y)) - (dx * dx + dy * dy) / 4);

  curve.compute_root().async();

  Buffer<uint8_t> photo = halo_check::test_image(24, 16, 8);
  input.set(photo);
  Buffer<uint8_t> out = vignette.realize({24, 16});
  return halo_check::save(argv[1], "async_producer", vignette, out, {halo_check::input("input", photo)});
}

// A gamma curve computed in float, the way most image pipelines compute one.
// halo-refuses: the floating-point type float32
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func curved("curved");
  Expr v = cast<float>(input(x, y)) / 255.0f;
  curved(x, y) = cast<uint8_t>(clamp(v * v * 255.0f + 0.5f, 0.0f, 255.0f));

  Buffer<uint8_t> photo = halo_check::test_image(16, 8, 15);
  input.set(photo);
  Buffer<uint8_t> out = curved.realize({16, 8});
  return halo_check::save(argv[1], "gamma_float", curved, out, {halo_check::input("input", photo)});
}

// A horizontal blur vectorized only when the image is wide enough: a specialization on the input's width.
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func clamped = BoundaryConditions::repeat_edge(input);
  Func blur("blur");
  blur(x, y) = cast<uint8_t>((cast<uint16_t>(clamped(x - 1, y)) + clamped(x, y) + clamped(x + 1, y)) / 3);

  blur.specialize(input.width() >= 16).vectorize(x, 8);

  Buffer<uint8_t> photo = halo_check::test_image(24, 8, 10);
  input.set(photo);
  Buffer<uint8_t> out = blur.realize({24, 8});
  return halo_check::save(argv[1], "specialize_width", blur, out, {halo_check::input("input", photo)});
}

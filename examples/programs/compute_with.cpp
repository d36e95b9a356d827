// Local minimum and maximum of a uint8 image computed in one fused loop nest (compute_with), then the local contrast.
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func clamped = BoundaryConditions::repeat_edge(input);
  Func lo("lo"), hi("hi"), contrast("contrast");
  lo(x, y) = min(clamped(x - 1, y), min(clamped(x, y), clamped(x + 1, y)));
  hi(x, y) = max(clamped(x - 1, y), max(clamped(x, y), clamped(x + 1, y)));
  contrast(x, y) = hi(x, y) - lo(x, y);

  lo.compute_root();
  hi.compute_root();
  hi.compute_with(lo, y);

  Buffer<uint8_t> photo = halo_check::test_image(20, 12, 9);
  input.set(photo);
  Buffer<uint8_t> out = contrast.realize({20, 12});
  return halo_check::save(argv[1], "compute_with", contrast, out, {halo_check::input("input", photo)});
}

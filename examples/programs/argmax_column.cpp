// The brightest row of each column of a uint8 image: argmax, a Tuple of the maximum and where it is.
// halo-refuses: a Tuple of 2 values
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  ImageParam input(UInt(8), 2, "input");
  Var x("x");
  RDom r(0, 12);
  Func brightest("brightest");
  brightest(x) = argmax(r, input(x, r.x))[0];

  Buffer<uint8_t> photo = halo_check::test_image(16, 12, 14);
  input.set(photo);
  Buffer<int> out = brightest.realize({16});
  return halo_check::save(argv[1], "argmax_column", brightest, out, {halo_check::input("input", photo)});
}

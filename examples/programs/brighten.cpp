// Brighten a uint8 photo by a constant, saturating at white: the first program of every Halide tutorial.
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func brighter("brighter");
  Expr value = cast<uint16_t>(input(x, y)) + 70;
  brighter(x, y) = cast<uint8_t>(min(value, 255));

  Buffer<uint8_t> photo = halo_check::test_image(32, 24);
  input.set(photo);
  Buffer<uint8_t> out = brighter.realize({32, 24});
  return halo_check::save(argv[1], "brighten", brighter, out, {halo_check::input("input", photo)});
}

// halo-refuses: a Tuple of 2 values
// Finding the brightest pixel of each row (argmax): a reduction over a Tuple of the best
// value and its column, as Halide users write it.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 32, height = 24;
  Buffer<uint8_t> photo(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)((x * 97 + y * 61 + x * y * 5) % 256);

  ImageParam input(UInt(8), 2, "input");
  Var y("y");
  RDom r(0, width);
  Func brightest("brightest");
  brightest(y) = Tuple(cast<uint8_t>(0), 0);
  Expr better = input(r, y) > brightest(y)[0];
  brightest(y) = Tuple(select(better, input(r, y), brightest(y)[0]), select(better, r, brightest(y)[1]));

  input.set(photo);
  Realization result = brightest.realize({height});
  Buffer<int> column = result[1];
  halo_check::save(argv[1], "argmax", brightest, column, {input});
  return 0;
}

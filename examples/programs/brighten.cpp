// Brightening an image by a gain set at run time (in sixteenths, saturating at 255), over a
// width, 30, that the vector width 8 does not divide: the scaled row computed per row with
// its tail's loads predicated (PredicateLoads: it stores a whole last vector), the output's
// tail predicated in full (Predicate: it writes no column beyond 30).
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 30, height = 20;
  Buffer<uint8_t> photo(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)(x * 8 + y);

  ImageParam input(UInt(8), 2, "input");
  Param<uint16_t> gain("gain");
  Var x("x"), y("y"), xo("xo"), xi("xi");
  Func scaled("scaled"), brighter("brighter");
  scaled(x, y) = cast<uint16_t>(input(x, y)) * gain / 16;
  brighter(x, y) = saturating_cast<uint8_t>(scaled(x, y));

  scaled.compute_at(brighter, y).split(x, xo, xi, 8, TailStrategy::PredicateLoads).vectorize(xi);
  brighter.split(x, xo, xi, 8, TailStrategy::Predicate).vectorize(xi);

  input.set(photo);
  gain.set(21);
  Buffer<uint8_t> output = brighter.realize({width, height});
  halo_check::save(argv[1], "brighten", brighter, output, {input}, {gain});
  return 0;
}

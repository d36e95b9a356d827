// A vertical 3-tap blur whose producer slides down the image: stored at the root, computed per row, folded to 4 rows.
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func clamped = BoundaryConditions::repeat_edge(input);
  Func squared("squared"), smooth("smooth");
  squared(x, y) = cast<uint16_t>(clamped(x, y)) * clamped(x, y) / 16;
  smooth(x, y) = cast<uint8_t>(min((squared(x, y - 1) + squared(x, y) + squared(x, y + 1)) / 3, 255));

  squared.store_root().compute_at(smooth, y).fold_storage(y, 4);

  Buffer<uint8_t> photo = halo_check::test_image(16, 20, 4);
  input.set(photo);
  Buffer<uint8_t> out = smooth.realize({16, 20});
  return halo_check::save(argv[1], "sliding_window", smooth, out, {halo_check::input("input", photo)});
}

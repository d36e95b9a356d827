// A vertical 5-tap smoothing filter streamed over rows: its producer stored once for the
// whole image but folded into a ring of 8 rows (store_root, compute_at, fold_storage), as a
// camera pipeline keeps a line buffer.
#include "Halide.h"
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int width = 24, height = 24;
  Buffer<uint8_t> photo(width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) photo(x, y) = (uint8_t)((y * 23 + x * 5 + (y * x) % 7) % 256);

  ImageParam input(UInt(8), 2, "input");
  Var x("x"), y("y");
  Func clamped = BoundaryConditions::repeat_edge(input);
  Func row("row"), smoothed("smoothed");
  row(x, y) = cast<uint16_t>(clamped(x, y)) * 2;
  smoothed(x, y) = cast<uint8_t>((row(x, y - 2) + 4 * row(x, y - 1) + 6 * row(x, y) + 4 * row(x, y + 1) + row(x, y + 2)) / 32);

  row.store_root().compute_at(smoothed, y).fold_storage(y, 8);

  input.set(photo);
  Buffer<uint8_t> output = smoothed.realize({width, height});
  halo_check::save(argv[1], "line_buffer", smoothed, output, {input});
  return 0;
}

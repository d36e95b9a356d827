// The sum of each row of a uint8 image, the reduction split and factored (rfactor) into partial sums computed in parallel.
#include "halo_check.h"

using namespace Halide;

int main(int argc, char** argv) {
  ImageParam input(UInt(8), 2, "input");
  Var y("y"), u("u");
  RDom r(0, 32);
  Func row_sum("row_sum");
  row_sum(y) = 0;
  row_sum(y) += cast<int>(input(r.x, y));

  RVar rxo("rxo"), rxi("rxi");
  row_sum.update().split(r.x, rxo, rxi, 8);
  Func partial = row_sum.update().rfactor(rxo, u);
  partial.compute_root().vectorize(u, 2);
  partial.update().parallel(u);

  Buffer<uint8_t> photo = halo_check::test_image(32, 10, 6);
  input.set(photo);
  Buffer<int> out = row_sum.realize({10});
  return halo_check::save(argv[1], "row_sums_rfactor", row_sum, out, {halo_check::input("input", photo)});
}

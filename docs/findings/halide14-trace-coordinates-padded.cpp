// Halide 14 finding (tracing): HalideRuntime.h documents the coordinates of a vector load or
// store event as "an array of vectors of coordinates (the vector dimension is innermost)"
// of length `dimensions` (= dims * lanes). For a vector of a lane count that is not a power of
// two, each coordinate vector is laid out padded to the next power of two: a 6-lane store of
// a 2-D Func puts its second coordinate at index 8, not 6, so a handler that follows the
// documentation reads garbage. Found by halo's memory check (a campaign reported stores at
// (-1, 1960854847)); halo now reads the padded layout (candidates/halide/jit.cpp).
// Build: g++ -std=c++17 halide14-trace-coordinates-padded.cpp -I/usr/include/halide14 -lHalide14 -lpthread -ldl
// Prints: store lanes 6 dims 12 coords: 0 0 0 0 0 0 0 0 4 5 6 7  (documented: 0 0 0 0 0 0 4 5 6 7 8 9)
#include "Halide.h"
#include <cstdio>
using namespace Halide;
int32_t tr(JITUserContext*, const halide_trace_event_t* e) {
  if (e->event == halide_trace_store && std::string(e->func) == "f") {
    printf("store lanes %d dims %d coords:", e->type.lanes, e->dimensions);
    for (int i = 0; i < e->dimensions; i++) printf(" %d", e->coordinates[i]);
    printf("\n");
  }
  return 1;
}
int main() {
  Func f("f"), g("g"); Var x("x"), y("y");
  f(x, y) = x + y;
  g(x) = f(0, 4) + f(0, 9);
  f.compute_root().vectorize(y);
  f.trace_stores();
  JITUserContext ctx; ctx.handlers.custom_trace = tr;
  Buffer<int> o = g.realize(&ctx, {1});
  printf("%d\n", o(0));
}

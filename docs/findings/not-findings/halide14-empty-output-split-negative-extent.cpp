// A Halide 14 reproducer written by halo (an executable formal semantics of Halide-style
// languages, used as a test oracle) for halide14-empty-output-split-negative-extent.halo.
// halo's verdict: runtime_assertion (runtime_assertion:bounds_query:the bounds query answers a negative extent (-N) for dimension N of the output #)
// Halide's runtime check fails (the bounds query answers a negative extent (-3) for dimension 0 of the output f) where halo's own completed program runs without an assertion failure
// Halide target when found: x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_sapphirerapids-avx512_skylake-f16c-fma-jit-sse41
// The .halo program:
//   pipeline f() {
//     fun f(x) = { x }
//   }
//   
//   schedule {
//     split(<f, 0, 0, x>, xo, xi, 3, guard);
//   }
//   
//   realize () over (0, 0)
//
// Build and run:
//   g++ -std=c++17 repro.cpp -I/usr/include/halide14 -lHalide14 -lpthread -ldl -o repro && ./repro
// It prints every point of the output window where Halide's value differs from the value
// of halo's reference semantics, and exits 0 when they all agree, 1 when some differ, 2
// when Halide reports an error.
#include "Halide.h"

#include <cinttypes>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace Halide;

// Halide's runtime errors (a failed check) arrive here rather than as exceptions, since a
// JITUserContext is passed to realize.
static bool runtime_error_seen = false;
static void on_runtime_error(JITUserContext *, const char *msg) {
  printf("Halide runtime error: %s\n", msg);
  runtime_error_seen = true;
}

int main() {
  try {
    // Parameters, with their values under the realization z.
    // Variables: the funcs' pure variables and the loops the schedule introduces.
    Var v_x("x");
    Var v_xi("xi");
    Var v_xo("xo");
    // Funcs, in definition order; every value is Int(32).
    Func f_f("f");

    // The algorithm. RDom dimension i is the reduction variable r(i+1) (r1 innermost).
    f_f(v_x) = v_x;

    // The schedule. First the formal default: every func computed and stored at the root
    // (Halide's own default would inline it). Then each halo directive.
    // halo: split(<f, 0, 0, x>, xo, xi, 3, guard)
    f_f.split(v_x, v_xo, v_xi, Expr(3), TailStrategy::GuardWithIf);

    // Realize on R(z). The bounds query may ask for a larger buffer (a rounded-up split of the
    // output); only R(z) is compared.
    Target target = get_jit_target_from_environment();
    Pipeline pipeline(f_f);
    JITUserContext ctx;
    ctx.handlers.custom_error = on_runtime_error;
    Buffer<int32_t> out(nullptr, std::vector<int>{0});
    out.set_min(std::vector<int>{0});
    pipeline.realize(&ctx, out, target);  // the bounds query
    if (runtime_error_seen) return 2;
    for (int d = 0; d < out.dimensions(); d++)
      if (out.dim(d).extent() < 0) {
        printf("the bounds query answers a negative extent (%d) for dimension %d of the output\n", out.dim(d).extent(), d);
        return 2;
      }
    out.allocate();
    pipeline.realize(&ctx, out, target);
    if (runtime_error_seen) return 2;

    // halo's reference values on R(z) (fig. 2.6), first dimension fastest.
    static const int64_t expected[] = {
        0};
    long mismatches = 0, i = 0;
    for (int c0 = 0; c0 < 0; c0++)
      {
        int64_t got = out(c0), want = expected[i++];
        if (got != want && mismatches++ < 50)
          printf("f(%d) = %" PRId64 ", expected %" PRId64 "\n", c0, got, want);
      }
    printf("%ld of %ld point(s) differ from halo's reference\n", mismatches, i);
    return mismatches ? 1 : 0;
  } catch (const Halide::Error &e) {
    printf("Halide error: %s\n", e.what());
    return 2;
  }
}

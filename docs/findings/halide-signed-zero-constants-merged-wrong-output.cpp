// A Halide reproducer written by halo (an executable formal semantics of Halide-style
// languages, used as a test oracle) for docs/findings/halide-signed-zero-constants-merged-wrong-output.halo.
// halo's verdict: wrong_output (wrong_output:run:default_schedule)
// Theorem 2.2 violated: Halide's output differs from the reference at 4 of 4 point(s) of R(z), first f(0) = -0, expected 0
// Halide target when found: x86-64-linux-tune_znver5-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-avx512_zen4-avx512_zen5-avxvnni-f16c-fma-jit-sse41-strict_float
// The .halo program:
//   pipeline f() {
//     fun g(x) = { f32(x) * 0.0f }
//     fun f(x) = { select(g[x] < (-0.0f), g[x], -g[x]) }
//   }
//   
//   realize () over (0, 4)
//
// Build and run with Debian's Halide 14, or with a Halide wheel from PyPI (pip install
// halide==21.0.0; ROOT is what `python -c 'import halide; print(halide.install_dir())'`
// prints in its environment, e.g. halo's .venv/halide/21.0.0/halide):
//   g++ -std=c++17 repro.cpp -I/usr/include/halide14 -lHalide14 -lpthread -ldl -o repro && ./repro
//   g++ -std=c++17 repro.cpp -I$ROOT/include $ROOT/lib64/libHalide.so -Wl,-rpath,$ROOT/lib64 -lpthread -ldl -o repro
// It prints every point of the output window where Halide's value differs from the value
// of halo's reference semantics, and exits 0 when they all agree, 1 when some differ, 2
// when Halide reports an error.
#include "Halide.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <iterator>
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
#ifdef HALIDE_VERSION_MAJOR
  printf("Halide %d.%d.%d\n", HALIDE_VERSION_MAJOR, HALIDE_VERSION_MINOR, HALIDE_VERSION_PATCH);
#else
  printf("Halide 14 or older (its Halide.h has no HALIDE_VERSION_MAJOR)\n");
#endif
  try {
    // Parameters, with their values under the realization z.
    // Variables: the funcs' pure variables and the loops the schedule introduces.
    Var v_x("x");
    // Funcs, in definition order; each has its definition's type.
    Func f_g("g");
    Func f_f("f");

    // The algorithm. RDom dimension i is the reduction variable r(i+1) (r1 innermost).
    f_g(v_x) = (cast<float>(v_x) * Expr(0.0f));
    f_f(v_x) = select((f_g(v_x) < Expr(-0.0f)), f_g(v_x), (-f_g(v_x)));

    // The schedule. First the formal default: every func computed and stored at the root
    // (Halide's own default would inline it). Then each halo directive.
    f_g.compute_root();
    f_g.store_root();

    // Realize on R(z). The bounds query may ask for a larger buffer (a rounded-up split of the
    // output); only R(z) is compared.
    Target target = get_jit_target_from_environment();
    // Floats are compared bit for bit: strict_float keeps every operation IEEE's.
    target = target.with_feature(Target::StrictFloat);
    Pipeline pipeline(f_f);
    JITUserContext ctx;
    ctx.handlers.custom_error = on_runtime_error;
    Buffer<float> out(nullptr, std::vector<int>{4});
    out.set_min(std::vector<int>{0});
    pipeline.realize(&ctx, out, target);  // the bounds query
    if (runtime_error_seen) return 2;
    if (out.dim(0).extent() < 0 || out.dim(0).min() > 0 || out.dim(0).max() < 3) {
      printf("the bounds query answers a region that does not contain the window: realized on a buffer over the window instead\n");
      out = Buffer<float>(nullptr, std::vector<int>{4});
      out.set_min(std::vector<int>{0});
    }
    out.allocate();
    // A point Halide never writes must not pass for a computed value.
    std::memset(out.raw_buffer()->host, 0xDE, out.raw_buffer()->size_in_bytes());
    pipeline.realize(&ctx, out, target);
    if (runtime_error_seen) return 2;

    // halo's reference values on R(z) (fig. 2.6), first dimension fastest.
    static const float expected[] = {
        0.0f, 0.0f, 0.0f, 0.0f,
        0};
    long mismatches = 0, i = 0;
    for (int c0 = 0; c0 < 4; c0++)
      {
        float got = (float)out(c0), want = expected[i++];
        if ((std::isnan(got) != std::isnan(want) || (!std::isnan(got) && std::memcmp(&got, &want, sizeof got) != 0)) && mismatches++ < 50)
          printf("f(%d) = %.9g (%a), expected %.9g (%a)\n", c0, (double)got, (double)got, (double)want, (double)want);
      }
    printf("%ld of %ld point(s) differ from halo's reference\n", mismatches, i);
    return mismatches ? 1 : 0;
  } catch (const Halide::Error &e) {
    printf("Halide error: %s\n", e.what());
    return 2;
  }
}

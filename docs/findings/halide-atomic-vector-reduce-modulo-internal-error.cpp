// A Halide reproducer written by halo (an executable formal semantics of Halide-style
// languages, used as a test oracle) for docs/findings/halide-atomic-vector-reduce-modulo-internal-error.halo.
// halo's verdict: internal_error (internal_error:compile:Vector reduce output lanes must be a divisor of the number of lanes in the argument N N)
// Halide raised an InternalError during compile: Vector reduce output lanes must be a divisor of the number of lanes in the argument 0 3
// Halide target when found: x86-64-linux-tune_znver5-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-avx512_zen4-avx512_zen5-avxvnni-f16c-fma-jit-sse41
// The .halo program:
//   pipeline f() {
//     fun f(x) = {
//       0;
//       rdom(r = (0, 3)) in (x) <- f[x] + (x + r) % 3
//     }
//   }
//   
//   schedule {
//     atomic(<f, 0, 1>);
//     traverse(<f, 0, 1, r>, vectorized);
//   }
//   
//   realize () over (0, 1)
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
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
    // Funcs, in definition order; every value is Int(32).
    Func f_f("f");

    // The algorithm. RDom dimension i is the reduction variable r(i+1) (r1 innermost).
    f_f(v_x) = Expr(0);
    RDom r_f_1({{Expr(0), Expr(3)}}, "r");  // r
    f_f(v_x) = (f_f(v_x) + ((v_x + r_f_1[0]) % Expr(3)));

    // The schedule. First the formal default: every func computed and stored at the root
    // (Halide's own default would inline it). Then each halo directive.
    // halo: atomic(<f, 0, 1>)
    f_f.update(0).atomic();
    // halo: traverse(<f, 0, 1, r>, vectorized)
    f_f.update(0).vectorize(r_f_1[0]);

    // Realize on R(z). The bounds query may ask for a larger buffer (a rounded-up split of the
    // output); only R(z) is compared.
    Target target = get_jit_target_from_environment();
    Pipeline pipeline(f_f);
    JITUserContext ctx;
    ctx.handlers.custom_error = on_runtime_error;
    Buffer<int32_t> out(nullptr, std::vector<int>{1});
    out.set_min(std::vector<int>{0});
    pipeline.realize(&ctx, out, target);  // the bounds query
    if (runtime_error_seen) return 2;
    if (out.dim(0).extent() < 0 || out.dim(0).min() > 0 || out.dim(0).max() < 0) {
      printf("the bounds query answers a region that does not contain the window: realized on a buffer over the window instead\n");
      out = Buffer<int32_t>(nullptr, std::vector<int>{1});
      out.set_min(std::vector<int>{0});
    }
    out.allocate();
    // A point Halide never writes must not pass for a computed value.
    std::memset(out.raw_buffer()->host, 0xDE, out.raw_buffer()->size_in_bytes());
    pipeline.realize(&ctx, out, target);
    if (runtime_error_seen) return 2;

    // halo's reference values on R(z) (fig. 2.6), first dimension fastest.
    static const int64_t expected[] = {
        3LL,
        0};
    long mismatches = 0, i = 0;
    for (int c0 = 0; c0 < 1; c0++)
      {
        int64_t got = (int64_t)out(c0), want = expected[i++];
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

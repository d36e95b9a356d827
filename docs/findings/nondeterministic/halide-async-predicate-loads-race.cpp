// A Halide reproducer written by halo (an executable formal semantics of Halide-style
// languages, used as a test oracle) for min.halo.
// halo's verdict: wrong_output (wrong_output:run:async+compute_at+split.guard+split.predicate_loads+traverse.vectorized)
// Theorem 2.2 violated: Halide's output differs from the reference at 1 of 176 point(s) of R(z), first f2(9, 8) = 0, expected 1
// Halide target when found: x86-64-linux-tune_znver3-avx-avx2-f16c-fma-jit-sse41
// The .halo program:
//   pipeline f2() {
//     fun f0(x, y) = { 1 }
//     fun f1(x, y) = { f0[x, y] }
//     fun f2(x, y) = { f1[x, y] }
//   }
//   
//   schedule {
//     split(<f2, 0, 0, y>, yo, yi, 8, guard);
//     split(<f1, 0, 0, x>, xo, xi, 2, predicate_loads);
//     traverse(<f1, 0, 0, xi>, vectorized);
//     compute_at(f1, <f2, 0, 0, x>);
//     async(f1);
//   }
//   
//   realize () over (0, 11), (0, 16)
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
#ifdef HALIDE_VERSION_MAJOR
  printf("Halide %d.%d.%d\n", HALIDE_VERSION_MAJOR, HALIDE_VERSION_MINOR, HALIDE_VERSION_PATCH);
#else
  printf("Halide 14 or older (its Halide.h has no HALIDE_VERSION_MAJOR)\n");
#endif
  try {
    // Parameters, with their values under the realization z.
    // Variables: the funcs' pure variables and the loops the schedule introduces.
    Var v_x("x");
    Var v_xi("xi");
    Var v_xo("xo");
    Var v_y("y");
    Var v_yi("yi");
    Var v_yo("yo");
    // Funcs, in definition order; every value is Int(32).
    Func f_f0("f0");
    Func f_f1("f1");
    Func f_f2("f2");

    // The algorithm. RDom dimension i is the reduction variable r(i+1) (r1 innermost).
    f_f0(v_x, v_y) = Expr(1);
    f_f1(v_x, v_y) = f_f0(v_x, v_y);
    f_f2(v_x, v_y) = f_f1(v_x, v_y);

    // The schedule. First the formal default: every func computed and stored at the root
    // (Halide's own default would inline it). Then each halo directive.
    f_f0.compute_root();
    f_f0.store_root();
    f_f1.compute_root();
    f_f1.store_root();
    // halo: split(<f2, 0, 0, y>, yo, yi, 8, guard)
    f_f2.split(v_y, v_yo, v_yi, Expr(8), TailStrategy::GuardWithIf);
    // halo: split(<f1, 0, 0, x>, xo, xi, 2, predicate_loads)
    f_f1.split(v_x, v_xo, v_xi, Expr(2), TailStrategy::PredicateLoads);
    // halo: traverse(<f1, 0, 0, xi>, vectorized)
    f_f1.vectorize(v_xi);
    // halo: compute_at(f1, <f2, 0, 0, x>)
    f_f1.compute_at(LoopLevel(f_f2, v_x));
    // halo: async(f1)
    f_f1.async();

    // Realize on R(z). The bounds query may ask for a larger buffer (a rounded-up split of the
    // output); only R(z) is compared.
    Target target = get_jit_target_from_environment();
    Pipeline pipeline(f_f2);
    JITUserContext ctx;
    ctx.handlers.custom_error = on_runtime_error;
    Buffer<int32_t> out(nullptr, std::vector<int>{11, 16});
    out.set_min(std::vector<int>{0, 0});
    pipeline.realize(&ctx, out, target);  // the bounds query
    if (runtime_error_seen) return 2;
    if (out.dim(0).extent() < 0 || out.dim(0).min() > 0 || out.dim(0).max() < 10 || out.dim(1).extent() < 0 || out.dim(1).min() > 0 || out.dim(1).max() < 15) {
      printf("the bounds query answers a region that does not contain the window: realized on a buffer over the window instead\n");
      out = Buffer<int32_t>(nullptr, std::vector<int>{11, 16});
      out.set_min(std::vector<int>{0, 0});
    }
    out.allocate();
    out.fill(int32_t(0xDEADBEEFu));  // a point Halide never writes must not pass for a computed 0
    pipeline.realize(&ctx, out, target);
    if (runtime_error_seen) return 2;

    // halo's reference values on R(z) (fig. 2.6), first dimension fastest.
    static const int64_t expected[] = {
        1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL,
        1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL,
        1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL,
        1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL,
        1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL,
        1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL,
        1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL,
        1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL,
        1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL,
        1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL,
        1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL,
        1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL,
        1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL,
        1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL,
        1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL, 1LL,
        0};
    long mismatches = 0, i = 0;
    for (int c1 = 0; c1 < 16; c1++)
      for (int c0 = 0; c0 < 11; c0++)
        {
          int64_t got = out(c0, c1), want = expected[i++];
          if (got != want && mismatches++ < 50)
            printf("f2(%d, %d) = %" PRId64 ", expected %" PRId64 "\n", c0, c1, got, want);
        }
    printf("%ld of %ld point(s) differ from halo's reference\n", mismatches, i);
    return mismatches ? 1 : 0;
  } catch (const Halide::Error &e) {
    printf("Halide error: %s\n", e.what());
    return 2;
  }
}

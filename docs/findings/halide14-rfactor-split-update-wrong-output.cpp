// A Halide reproducer written by halo (an executable formal semantics of Halide-style
// languages, used as a test oracle) for halide14-rfactor-split-update-wrong-output.halo.
// halo's verdict: wrong_output (wrong_output:run:rfactor+split.guard)
// Theorem 2.2 violated: Halide's output differs from the reference at 216 of 216 point(s) of R(z), first f1(1, -2) = 456, expected 85
// Halide target when found: x86-64-linux-avx-avx2-f16c-fma-jit-sse41
// The .halo program:
//   pipeline f1() {
//     fun f0(x, y) = { (x * 1 + y * 3) % 13 }
//     fun f1(x, y) = {
//       f0[x - 2, y + 2] + f0[x - 1, y / 2] * 2;
//       rdom(r = (0, 8)) in (x, y) <- f1[x, y] + f0[x + r, y]
//     }
//   }
//   
//   schedule {
//     split(<f1, 0, 1, x>, xo, xi, 7, guard);
//     rfactor(<f1, 0, 1, r>, u);
//   }
//   
//   realize () over (1, 8), (-2, 27)
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
    Var v_u("u");
    Var v_x("x");
    Var v_xi("xi");
    Var v_xo("xo");
    Var v_y("y");
    // Funcs, in definition order; every value is Int(32).
    Func f_f0("f0");
    Func f_f1("f1");

    // The algorithm. RDom dimension i is the reduction variable r(i+1) (r1 innermost).
    f_f0(v_x, v_y) = (((v_x * Expr(1)) + (v_y * Expr(3))) % Expr(13));
    f_f1(v_x, v_y) = (f_f0((v_x - Expr(2)), (v_y + Expr(2))) + (f_f0((v_x - Expr(1)), (v_y / Expr(2))) * Expr(2)));
    RDom r_f1_1({{Expr(0), Expr(8)}}, "r");  // r
    f_f1(v_x, v_y) = (f_f1(v_x, v_y) + f_f0((v_x + r_f1_1[0]), v_y));

    // The schedule. First the formal default: every func computed and stored at the root
    // (Halide's own default would inline it). Then each halo directive.
    f_f0.compute_root();
    f_f0.store_root();
    // halo: split(<f1, 0, 1, x>, xo, xi, 7, guard)
    f_f1.update(0).split(v_x, v_xo, v_xi, Expr(7), TailStrategy::GuardWithIf);
    // halo: rfactor(<f1, 0, 1, r>, u)
    f_f1.update(0).rfactor(r_f1_1[0], v_u).compute_root();

    // Realize on R(z). The bounds query may ask for a larger buffer (a rounded-up split of the
    // output); only R(z) is compared.
    Target target = get_jit_target_from_environment();
    Pipeline pipeline(f_f1);
    JITUserContext ctx;
    ctx.handlers.custom_error = on_runtime_error;
    Buffer<int32_t> out(nullptr, std::vector<int>{8, 27});
    out.set_min(std::vector<int>{1, -2});
    pipeline.realize(&ctx, out, target);  // the bounds query
    if (runtime_error_seen) return 2;
    if (out.dim(0).extent() < 0 || out.dim(0).min() > 1 || out.dim(0).max() < 8 || out.dim(1).extent() < 0 || out.dim(1).min() > -2 || out.dim(1).max() < 24) {
      printf("the bounds query answers a region that does not contain the window: realized on a buffer over the window instead\n");
      out = Buffer<int32_t>(nullptr, std::vector<int>{8, 27});
      out.set_min(std::vector<int>{1, -2});
    }
    out.allocate();
    out.fill(int32_t(0xDEADBEEFu));  // a point Halide never writes must not pass for a computed 0
    pipeline.realize(&ctx, out, target);
    if (runtime_error_seen) return 2;

    // halo's reference values on R(z) (fig. 2.6), first dimension fastest.
    static const int64_t expected[] = {
        85LL, 70LL, 68LL, 40LL, 38LL, 36LL, 47LL, 58LL, 60LL, 58LL, 56LL, 41LL,
        52LL, 63LL, 74LL, 85LL, 41LL, 52LL, 63LL, 74LL, 85LL, 83LL, 81LL, 79LL,
        68LL, 79LL, 77LL, 75LL, 73LL, 58LL, 56LL, 54LL, 75LL, 73LL, 58LL, 56LL,
        54LL, 52LL, 50LL, 61LL, 50LL, 48LL, 46LL, 44LL, 55LL, 66LL, 77LL, 88LL,
        44LL, 55LL, 66LL, 77LL, 88LL, 99LL, 97LL, 69LL, 71LL, 82LL, 93LL, 91LL,
        89LL, 87LL, 72LL, 44LL, 91LL, 89LL, 87LL, 72LL, 44LL, 42LL, 40LL, 38LL,
        66LL, 64LL, 62LL, 60LL, 32LL, 43LL, 54LL, 65LL, 60LL, 32LL, 43LL, 54LL,
        65LL, 76LL, 87LL, 85LL, 74LL, 59LL, 70LL, 81LL, 79LL, 77LL, 75LL, 60LL,
        81LL, 79LL, 77LL, 75LL, 60LL, 58LL, 56LL, 54LL, 69LL, 54LL, 52LL, 50LL,
        48LL, 46LL, 57LL, 68LL, 50LL, 48LL, 46LL, 57LL, 68LL, 79LL, 90LL, 101LL,
        51LL, 62LL, 73LL, 84LL, 95LL, 93LL, 91LL, 89LL, 84LL, 95LL, 93LL, 91LL,
        89LL, 48LL, 46LL, 44LL, 85LL, 83LL, 68LL, 66LL, 64LL, 36LL, 34LL, 45LL,
        66LL, 64LL, 36LL, 34LL, 45LL, 56LL, 67LL, 78LL, 54LL, 65LL, 50LL, 61LL,
        72LL, 83LL, 81LL, 79LL, 61LL, 72LL, 83LL, 81LL, 79LL, 77LL, 62LL, 60LL,
        75LL, 73LL, 71LL, 56LL, 54LL, 52LL, 50LL, 48LL, 56LL, 54LL, 52LL, 50LL,
        48LL, 59LL, 70LL, 81LL, 44LL, 42LL, 53LL, 64LL, 75LL, 86LL, 97LL, 95LL,
        64LL, 75LL, 86LL, 97LL, 95LL, 93LL, 65LL, 50LL, 91LL, 89LL, 87LL, 85LL,
        70LL, 68LL, 40LL, 38LL, 85LL, 70LL, 68LL, 40LL, 38LL, 36LL, 47LL, 58LL,
        0};
    long mismatches = 0, i = 0;
    for (int c1 = -2; c1 < 25; c1++)
      for (int c0 = 1; c0 < 9; c0++)
        {
          int64_t got = out(c0, c1), want = expected[i++];
          if (got != want && mismatches++ < 50)
            printf("f1(%d, %d) = %" PRId64 ", expected %" PRId64 "\n", c0, c1, got, want);
        }
    printf("%ld of %ld point(s) differ from halo's reference\n", mismatches, i);
    return mismatches ? 1 : 0;
  } catch (const Halide::Error &e) {
    printf("Halide error: %s\n", e.what());
    return 2;
  }
}

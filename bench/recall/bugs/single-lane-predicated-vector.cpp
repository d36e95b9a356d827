// Recall benchmark, bug "single-lane-predicated-vector".
// Upstream: halide/Halide#8922, fixed by #8924 (commit 10f3261497, "Fix predicated
// load/store of one-lane vectors") after 21.0.0. A producer f1 vectorized over its whole
// x loop, whose extent is the natural vector width plus one (the consumer reads f1(x) and
// f1(x + 1) per tile of the natural width); the single leftover lane becomes a predicated
// load/store of a one-lane vector, which Halide hands to LLVM as a scalar. LLVM's IR
// builder asserts ("Val should be a vector", or a call signature mismatch): the process
// aborts (SIGABRT) during compile_jit. The wheels' LLVM has its assertions on.
// Exit: 0 right, 1 wrong values, 2 a Halide error; the bug itself kills the process.
#include "Halide.h"
#include <cstdio>
using namespace Halide;

int main() {
    setvbuf(stdout, nullptr, _IONBF, 0);
#ifdef HALIDE_VERSION_MAJOR
    printf("Halide %d.%d.%d\n", HALIDE_VERSION_MAJOR, HALIDE_VERSION_MINOR, HALIDE_VERSION_PATCH);
#else
    printf("Halide 14 or older (no HALIDE_VERSION_MAJOR)\n");
#endif
    try {
        // 8 on an AVX2 host (the .halo form writes 8).
        const int w = get_jit_target_from_environment().natural_vector_size<int32_t>();
        printf("natural vector width of int32: %d\n", w);
        Func f1("f1"), f2("f2");
        Var x("x"), xo("xo"), xi("xi");
        f1(x) = x * 2 + 1;
        f2(x) = select(x < w, 0, f1(x) + f1(x + 1));
        f2.split(x, xo, xi, w);
        f1.compute_at(f2, xo).vectorize(x);

        const int W = 4 * w;
        Buffer<int> out = f2.realize({W});
        int bad = 0;
        for (int i = 0; i < W; i++) {
            int want = i < w ? 0 : (2 * i + 1) + (2 * (i + 1) + 1);
            if (out(i) != want && bad++ < 10) printf("f2(%d) = %d, expected %d\n", i, out(i), want);
        }
        printf("%d of %d points differ\n", bad, W);
        return bad ? 1 : 0;
    } catch (const InternalError &e) {
        printf("Halide internal error: %s\n", e.what());
        return 1;
    } catch (const Error &e) {
        printf("Halide error: %s\n", e.what());
        return 2;
    }
}

// Recall benchmark, bug "flipped-vector-load-before-buffer".
// Upstream: halide/Halide#9310 (commit 03a18bb9c7, "Fix TBAA metadata for loads/stores
// with negative indices"), fixed after 21.0.0. g(x) = f(-x) vectorized by 4 with
// GuardWithIf, f computed inside g's vector loop: the last, partial vector is a predicated
// load with stride -1, emitted as a dense load of the flipped ramp, whose masked-off lanes
// start before f's buffer. Code generation asserts that the TBAA base is non-negative
// ("Condition failed: base >= 0" in CodeGen_LLVM.cpp; 21 prints an empty message).
// Exit: 0 right, 1 the bug (internal error or wrong value), 2 another error.
#include "Halide.h"
#include <cstdint>
#include <cstdio>
using namespace Halide;

int main() {
#ifdef HALIDE_VERSION_MAJOR
    printf("Halide %d.%d.%d\n", HALIDE_VERSION_MAJOR, HALIDE_VERSION_MINOR, HALIDE_VERSION_PATCH);
#else
    printf("Halide 14 or older (no HALIDE_VERSION_MAJOR)\n");
#endif
    try {
        Func f("f"), g("g"), h("h");
        Var x("x");
        f(x) = cast<uint8_t>(x * 3);
        g(x) = f(-x);
        h(x) = g(x) + g(x - 1);
        f.compute_at(g, x);
        g.compute_at(h, x).vectorize(x, 4, TailStrategy::GuardWithIf);

        const int W = 15;
        Buffer<uint8_t> out = h.realize({W});
        int bad = 0;
        for (int i = 0; i < W; i++) {
            uint8_t want = (uint8_t)((uint8_t)(-3 * i) + (uint8_t)(-3 * (i - 1)));
            if (out(i) != want && bad++ < 10) printf("h(%d) = %d, expected %d\n", i, out(i), want);
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

// Recall benchmark, bug "fast-integer-divide-by-one".
// Upstream: halide/Halide#9271 (commit 0dba9f1810, "Fix fast_integer_divide for signed
// numerator with denominator == 1"), fixed after 21.0.0. For a signed numerator,
// fast_integer_divide(n, 1) returned the numerator with its bits flipped for negative n
// (int8 -128 / 1 gave 127, -5 / 1 gave 4).
// Exit: 0 right, 1 the bug (wrong values), 2 another error.
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
        Var x("x");
        Func f("f");
        f(x) = fast_integer_divide(cast<int8_t>(x - 128), cast<uint8_t>(1));
        const int W = 256;
        Buffer<int8_t> out = f.realize({W});
        int bad = 0;
        for (int i = 0; i < W; i++) {
            int want = i - 128;
            if (out(i) != want && bad++ < 10) printf("f(%d) = fast_integer_divide(%d, 1) = %d, expected %d\n", i, i - 128, out(i), want);
        }
        printf("%d of %d points differ\n", bad, W);
        return bad ? 1 : 0;
    } catch (const Error &e) {
        printf("Halide error: %s\n", e.what());
        return 2;
    }
}

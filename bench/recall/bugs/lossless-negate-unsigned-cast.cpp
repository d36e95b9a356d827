// Recall benchmark, bug "lossless-negate-unsigned-cast".
// Upstream: halide/Halide#9165, fixed by #9166 (commit 82d225a4b2, "Fix lossless_negate
// for casts from unsigned inner types") after 21.0.0. FindIntrinsics rewrites
// int16(a) - int16(b_u8) with the negation of int16(b_u8) pushed into uint8 arithmetic,
// where negation wraps: vectorized code turns the subtraction into a wrong addition (off
// by 256). The same expression computed without vectorization is right.
//   a = int8(-16) + int8(32) / int8(in(x))       in(x) = uint8(x)
//   b = uint8(223) * uint8((a / int8(-33)) * int8(-33))
//   f(x) = int64(int16(a) - int16(b)),  f.vectorize(x, 8)
// Exit: 0 right, 1 the bug (wrong values), 2 another error.
#include "Halide.h"
#include <cstdint>
#include <cstdio>
using namespace Halide;

// Halide's integer division on a narrow signed type: Euclidean, x / 0 == 0, then wrap.
static int8_t div_i8(int a, int b) {
    if (b == 0) return 0;
    int q = a / b;
    if (a % b != 0 && a % b < 0) q += (b > 0 ? -1 : 1);
    return (int8_t)q;
}

int main() {
#ifdef HALIDE_VERSION_MAJOR
    printf("Halide %d.%d.%d\n", HALIDE_VERSION_MAJOR, HALIDE_VERSION_MINOR, HALIDE_VERSION_PATCH);
#else
    printf("Halide 14 or older (no HALIDE_VERSION_MAJOR)\n");
#endif
    try {
        Var x("x");
        Func in("in"), f("f");
        in(x) = cast<uint8_t>(x);
        in.compute_root();
        Expr a = cast<int8_t>(-16) + cast<int8_t>(32) / cast<int8_t>(in(x));
        Expr b = cast<uint8_t>(223) * cast<uint8_t>((a / cast<int8_t>(-33)) * cast<int8_t>(-33));
        f(x) = cast<int64_t>(cast<int16_t>(a) - cast<int16_t>(b));
        f.vectorize(x, 8);

        const int W = 256;
        Buffer<int64_t> out = f.realize({W});
        int bad = 0;
        for (int i = 0; i < W; i++) {
            int8_t av = (int8_t)(-16 + div_i8(32, (int8_t)(uint8_t)i));
            int8_t inner = (int8_t)(div_i8(av, -33) * -33);
            uint8_t bv = (uint8_t)(223 * (uint8_t)inner);
            long long want = (int16_t)av - (int16_t)bv;
            if (out(i) != want && bad++ < 10) printf("f(%d) = %lld, expected %lld\n", i, (long long)out(i), want);
        }
        printf("%d of %d points differ\n", bad, W);
        return bad ? 1 : 0;
    } catch (const Error &e) {
        printf("Halide error: %s\n", e.what());
        return 2;
    }
}

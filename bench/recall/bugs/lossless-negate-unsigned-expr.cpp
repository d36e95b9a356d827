// Recall benchmark, bug "lossless-negate-unsigned-expr".
// Upstream: halide/Halide#9278, fixed by #9279 (commit 5e2424ce63, "Fix lossless_negate()
// for unsigned expressions") after 21.0.0. lossless_negate treated cast(uint8, -v) as
// -cast(uint8, v) when v does not fit in uint8; FindIntrinsics' Sub -> widening_add
// rewrite then adds a wrong operand, and the vectorized code is off by 256 where the same
// expression computed without vectorization is right. The expression is the one of the
// issue (found by Halide's own fuzzer), over two computed input funcs:
//   u = in_u8(x), s = in_i8(x), t = uint8(140) + uint8(uint16(u))
//   f(x) = int64(int32(int16(140) - int16(uint8(183) * uint8((int16(-123) / int16(183)) * int16(t)))))
//        + int64(int16((uint8(140) - t) - uint8(183)) + int16(s + int8(uint8(243))))
// (183 = uint8(43) + uint8(140); 243 = uint8(183 + 133) + 183, folded).
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
        Func in_u8("in_u8"), in_i8("in_i8"), f("f");
        in_u8(x) = cast<uint8_t>(x * 37 + 11);
        in_i8(x) = cast<int8_t>(x * 53 - 7);
        in_u8.compute_root();
        in_i8.compute_root();
        Expr u = in_u8(x), s = in_i8(x);
        Expr c43 = cast<uint8_t>(43), c140 = cast<uint8_t>(140);
        Expr t = c140 + cast<uint8_t>(cast<uint16_t>(u));
        Expr lhs = cast<int64_t>(cast<int32_t>(
            cast<int16_t>(140) -
            cast<int16_t>((c43 + c140) * cast<uint8_t>((cast<int16_t>(-123) / cast<int16_t>(c43 + c140)) * cast<int16_t>(t)))));
        Expr rhs = cast<int64_t>(cast<int16_t>((c140 - t) - cast<uint8_t>(cast<uint16_t>(c43 + c140))) +
                                 cast<int16_t>(s + cast<int8_t>(((c43 + c140) + cast<uint8_t>(133)) + (c43 + c140))));
        f(x) = lhs + rhs;
        f.vectorize(x, 8);

        const int W = 256;
        Buffer<int64_t> out = f.realize({W});
        int bad = 0;
        for (int i = 0; i < W; i++) {
            uint8_t uv = (uint8_t)(i * 37 + 11);
            int8_t sv = (int8_t)(i * 53 - 7);
            uint8_t tv = (uint8_t)(140 + uv);
            // int16(-123) / int16(183) is -1 (Euclidean); times int16(t), then cast to uint8.
            uint8_t m = (uint8_t)(int16_t)(-1 * (int16_t)tv);
            uint8_t p = (uint8_t)(183 * m);
            long long l = (int16_t)(140 - (int16_t)p);
            uint8_t d = (uint8_t)((uint8_t)(140 - tv) - 183);
            int8_t e = (int8_t)(sv + (int8_t)(uint8_t)243);
            long long want = l + (int16_t)((int16_t)d + (int16_t)e);
            if (out(i) != want && bad++ < 10) printf("f(%d) = %lld, expected %lld\n", i, (long long)out(i), want);
        }
        printf("%d of %d points differ\n", bad, W);
        return bad ? 1 : 0;
    } catch (const Error &e) {
        printf("Halide error: %s\n", e.what());
        return 2;
    }
}

// Recall benchmark, bug "rfactor-bogus-saturating-add-pattern".
// Upstream: halide/Halide#8839 (commit 8704a8f5ff, "Fix saturating add patterns in
// rfactor"), fixed after 21.0.0. rfactor's table of associative operators listed
// "saturating add" for unsigned types as select(x > max - y, max, y) (and
// select(x < -y, y, max)): the sum x + y is missing, so the table calls an operator
// associative that is not. An update written in that form, g = select(g > 255 - v, 255, v)
// over uint8, is accepted by rfactor and computes another value (here 255 instead of 17).
// Exit: 0 right (or rfactor refused: the fixed Halide no longer matches it), 1 the bug
// (wrong value), 2 another error.
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
        Func f("f"), g("g");
        Var x("x"), u("u");
        RDom r(0, 16, "r");
        RVar ro("ro"), ri("ri");
        f(x) = cast<uint8_t>(x * 17 + 18);
        f.compute_root();
        g() = cast<uint8_t>(0);
        g() = select(g() > cast<uint8_t>(255) - f(r), cast<uint8_t>(255), f(r));
        g.update(0).split(r, ro, ri, 4);
        g.update(0).rfactor(ri, u).compute_root();

        Buffer<uint8_t> out = g.realize();
        int want = 0;  // the update applied in the order of r
        for (int i = 0; i < 16; i++) {
            int v = (uint8_t)(i * 17 + 18);
            want = want > 255 - v ? 255 : v;
        }
        printf("g() = %d, expected %d\n", out(), want);
        return out() != want;
    } catch (const CompileError &e) {
        printf("Halide refused the rfactor (the fixed behaviour): %s\n", e.what());
        return 0;
    } catch (const Error &e) {
        printf("Halide error: %s\n", e.what());
        return 2;
    }
}

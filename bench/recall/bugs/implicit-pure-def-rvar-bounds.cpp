// Recall benchmark, bug "implicit-pure-def-rvar-bounds".
// Upstream: halide/Halide#9102, fixed by #9103 (commit d5efca0c6f, "Fix bounds inference
// for implicit pure def with RVar args") after 21.0.0. A Func whose first definition is an
// update with a reduction variable as its left-hand side, h(r) += 10 * r, gets an implicit
// pure definition h(x) = 0 whose dimension took the RVar's name; bounds inference then runs
// the update's r loop over the output buffer instead of the RDom, and points outside the
// RDom are updated too. No schedule is needed (variant A); variant B vectorizes r by 4
// (the upstream report's shape).
// Exit: 0 right, 1 the bug (wrong values), 2 another error.
#include "Halide.h"
#include <cstdio>
using namespace Halide;

static int run(char variant) {
    try {
        RDom r(2, 5, "r");
        Func h("h");
        h(r) += cast<int>(r) * 10;
        if (variant == 'B') h.update().vectorize(r, 4, TailStrategy::GuardWithIf);
        const int W = 10;
        Buffer<int> out = h.realize({W});
        int bad = 0;
        for (int i = 0; i < W; i++) {
            int want = (i >= 2 && i < 7) ? 10 * i : 0;
            if (out(i) != want && bad++ < 10) printf("  h(%d) = %d, expected %d\n", i, out(i), want);
        }
        printf("variant %c: %d of %d points differ\n", variant, bad, W);
        return bad ? 1 : 0;
    } catch (const Error &e) {
        printf("variant %c: Halide error: %s\n", variant, e.what());
        return 2;
    }
}

int main() {
#ifdef HALIDE_VERSION_MAJOR
    printf("Halide %d.%d.%d\n", HALIDE_VERSION_MAJOR, HALIDE_VERSION_MINOR, HALIDE_VERSION_PATCH);
#else
    printf("Halide 14 or older (no HALIDE_VERSION_MAJOR)\n");
#endif
    int a = run('A'), b = run('B');
    return a > b ? a : b;
}

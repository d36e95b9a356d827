// Recall benchmark, bug "hoist-storage-into-updated-consumer".
// Upstream: halide/Halide#9340 (commit bfabe099fa, "Don't assert on empty hoisted storage
// nodes"), fixed after 21.0.0. A producer prod computed inside a consumer cons that has an
// update stage (which does not read prod), with prod's storage hoisted to a loop level that
// every stage of cons has: Halide makes one HoistedStorage node per stage of cons, prod is
// only realized in the stage that reads it, and storage flattening fails on the empty node
// ("Couldn't find a matching Realize node for Hoisted storage prod").
// Two variants: A hoists to Var::outermost() (the shape of the upstream test), B to the
// outer loop yo of a split of y made in both stages (the shape of the .halo form).
// Exit: 0 right, 1 the bug (internal error or wrong value), 2 another error, 3 the
// version lacks the API (hoist_storage is 19+).
#include "Halide.h"
#include <cstdio>
using namespace Halide;

#ifdef HALIDE_VERSION_MAJOR
static int run(char variant) {
    try {
        Var x("x"), y("y"), yo("yo"), yi("yi");
        Func prod("prod"), cons("cons"), out("out");
        prod(x, y) = 3 * x - y;
        cons(x, y) = prod(x, y) + 1;
        RDom r(1, 2, "r");
        cons(r, y) = cons(r, y) * 10;
        out(x, y) = cons(x, y);
        if (variant == 'A') {
            prod.compute_at(cons, x).store_at(cons, y).hoist_storage(cons, Var::outermost());
            cons.compute_at(out, y);
        } else {
            cons.split(y, yo, yi, 2, TailStrategy::GuardWithIf);
            cons.update().split(y, yo, yi, 2, TailStrategy::GuardWithIf);
            prod.compute_at(cons, x).store_at(cons, yi).hoist_storage(cons, yo);
            cons.compute_root();
        }
        const int W = 6, H = 4;
        Buffer<int> res = out.realize({W, H});
        int bad = 0;
        for (int j = 0; j < H; j++)
            for (int i = 0; i < W; i++) {
                int want = (3 * i - j + 1) * ((i >= 1 && i < 3) ? 10 : 1);
                if (res(i, j) != want && bad++ < 10)
                    printf("  out(%d, %d) = %d, expected %d\n", i, j, res(i, j), want);
            }
        printf("variant %c: %d of %d points differ\n", variant, bad, W * H);
        return bad ? 1 : 0;
    } catch (const InternalError &e) {
        printf("variant %c: Halide internal error: %s\n", variant, e.what());
        return 1;
    } catch (const Error &e) {
        printf("variant %c: Halide error: %s\n", variant, e.what());
        // Halide 21 reports this internal_assert as a plain Error without "Internal".
        return 1;
    }
}
#endif

int main() {
#ifdef HALIDE_VERSION_MAJOR
    printf("Halide %d.%d.%d\n", HALIDE_VERSION_MAJOR, HALIDE_VERSION_MINOR, HALIDE_VERSION_PATCH);
    int a = run('A'), b = run('B');
    return a > b ? a : b;
#else
    printf("Halide 14 (no HALIDE_VERSION_MAJOR): hoist_storage does not exist there\n");
    return 3;
#endif
}

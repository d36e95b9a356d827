// Recall benchmark, bug "clone-in-of-wrapped-func".
// Upstream: halide/Halide#3661 (open since 2019), fixed by #9277 (commit 0360667966,
// "Eager in/clone_in"), after 21.0.0. A func g read by two consumers gets a wrapper for
// one of them (g.in(h)) and then a clone for the other (g.clone_in(out)): deep-copying g,
// which already carries the wrapper, cannot remap it, and lowering stops with an internal
// error ("Condition failed: copied_func.defined()" in 14 and 19; 21 reports the wrapper's
// name, "g_wrapper$0"). In the other order, or with two in() calls, every version agrees.
// Exit: 0 right, 1 the bug (internal error or wrong value), 2 another error.
#include "Halide.h"
#include <cstdio>
using namespace Halide;

int main() {
#ifdef HALIDE_VERSION_MAJOR
    printf("Halide %d.%d.%d\n", HALIDE_VERSION_MAJOR, HALIDE_VERSION_MINOR, HALIDE_VERSION_PATCH);
#else
    printf("Halide 14 or older\n");
#endif
    try {
        Var x("x"), y("y");
        Func g("g"), h("h"), out("out");
        g(x, y) = x + 2 * y;
        h(x, y) = g(x, y) + g(x + 1, y);
        out(x, y) = h(x, y) + g(x, y + 1);
        g.compute_root();
        h.compute_root();
        Func g_h = g.in(h);
        Func g_out = g.clone_in(out);
        g_h.compute_at(h, y);
        g_out.compute_at(out, y);
        const int W = 10, H = 4;
        Buffer<int> res = out.realize({W, H});
        int bad = 0;
        for (int j = 0; j < H; j++)
            for (int i = 0; i < W; i++) {
                int want = (i + 2 * j) + (i + 1 + 2 * j) + (i + 2 * (j + 1));
                if (res(i, j) != want && bad++ < 10) printf("  out(%d, %d) = %d, expected %d\n", i, j, res(i, j), want);
            }
        printf("%d of %d points differ\n", bad, W * H);
        return bad ? 1 : 0;
    } catch (const InternalError &e) {
        printf("Halide internal error: %s\n", e.what());
        return 1;
    } catch (const Error &e) {
        // Halide 21 reports this internal_assert as a plain Error without "Internal".
        printf("Halide error: %s\n", e.what());
        return 1;
    }
}

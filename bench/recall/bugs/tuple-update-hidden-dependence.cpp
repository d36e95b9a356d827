// Recall benchmark, bug "tuple-update-hidden-dependence".
// Upstream: commit b24ef1c972 (halide/Halide#9065, "Add more missing recursive
// mutations/visits"), fixed after 21.0.0: SplitTuples decides which components of a Tuple
// update read the old value of another component, but did not look inside the arguments
// of a call. In f(r) = {f(r)[0] + 5, f(clamp(f(r)[0], 0, w-1))[1]}, component 1 reads
// component 0's old value inside an index; Halide splits the update into two stages and
// component 1 then sees the new value of component 0.
// Exit: 0 right, 1 the bug (wrong values), 2 another error.
#include "Halide.h"
#include <algorithm>
#include <cstdio>
#include <vector>
using namespace Halide;

int main() {
#ifdef HALIDE_VERSION_MAJOR
    printf("Halide %d.%d.%d\n", HALIDE_VERSION_MAJOR, HALIDE_VERSION_MINOR, HALIDE_VERSION_PATCH);
#else
    printf("Halide 14 or older (no HALIDE_VERSION_MAJOR)\n");
#endif
    try {
        const int w = 40;
        Func f("f"), g("g");
        Var x("x"), y("y");
        f(x) = Tuple(x + 3, 2 * x);
        RDom r(0, w, "r");
        f(r) = Tuple(f(r)[0] + 5, f(clamp(f(r)[0], 0, w - 1))[1]);
        g(x, y) = select(y == 0, f(x)[0], f(x)[1]);
        f.compute_root();

        Buffer<int> out = g.realize({w, 2});
        // Reference: both components of each update are computed from the old values, then
        // stored together; the updates run in the order of r.
        std::vector<int> c0(w), c1(w);
        for (int i = 0; i < w; i++) { c0[i] = i + 3; c1[i] = 2 * i; }
        for (int i = 0; i < w; i++) {
            int n0 = c0[i] + 5, n1 = c1[std::min(std::max(c0[i], 0), w - 1)];
            c0[i] = n0;
            c1[i] = n1;
        }
        int bad = 0;
        for (int i = 0; i < w; i++)
            for (int j = 0; j < 2; j++) {
                int want = j ? c1[i] : c0[i];
                if (out(i, j) != want && bad++ < 10) printf("g(%d, %d) = %d, expected %d\n", i, j, out(i, j), want);
            }
        printf("%d of %d points differ\n", bad, 2 * w);
        return bad ? 1 : 0;
    } catch (const Error &e) {
        printf("Halide error: %s\n", e.what());
        return 2;
    }
}

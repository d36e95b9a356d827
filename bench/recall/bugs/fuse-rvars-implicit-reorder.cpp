// Recall benchmark, bug "fuse-rvars-implicit-reorder".
// Upstream: halide/Halide#9186 (commit e78f11b057, "Detect illegal reorderings in
// Stage::fuse"), fixed after 21.0.0; the fixed Halide rejects the schedule
// (test/error/rvar_fuse_reorder.cpp). Fusing two reduction variables that are not
// adjacent in the loop nest (here rxi, the inner half of a split of r.x, with r.y, with rxo
// between them) moves rxo outside both, i.e. it reorders the reduction loops. For an update
// that is not commutative, f(x) = f(x) * 2 + r.x * 5 + r.y, Halide accepts the fuse and
// silently computes another value.
// Exit: 0 right (or the schedule refused, as the fixed Halide does), 1 the bug (wrong
// value), 2 another error.
#include "Halide.h"
#include <cstdio>
#include <cstring>
using namespace Halide;

int main() {
#ifdef HALIDE_VERSION_MAJOR
    printf("Halide %d.%d.%d\n", HALIDE_VERSION_MAJOR, HALIDE_VERSION_MINOR, HALIDE_VERSION_PATCH);
#else
    printf("Halide 14 or older (no HALIDE_VERSION_MAJOR)\n");
#endif
    try {
        Func f("f");
        Var x("x");
        RDom r(0, 4, 0, 3, "r");
        RVar rxo("rxo"), rxi("rxi"), rf("rf");
        f(x) = x + 1;
        f(x) = f(x) * 2 + r.x * 5 + r.y;
        f.update().split(r.x, rxo, rxi, 2).fuse(rxi, r.y, rf);

        const int W = 3;
        Buffer<int> out = f.realize({W});
        int bad = 0;
        for (int i = 0; i < W; i++) {
            long long v = i + 1;
            for (int ry = 0; ry < 3; ry++)       // r.x innermost, as the RDom says
                for (int rx = 0; rx < 4; rx++) v = v * 2 + rx * 5 + ry;
            if (out(i) != v && bad++ < 10) printf("f(%d) = %d, expected %lld\n", i, out(i), v);
        }
        printf("%d of %d points differ\n", bad, W);
        return bad ? 1 : 0;
    } catch (const CompileError &e) {
        printf("Halide refused the schedule (the fixed behaviour): %s\n", e.what());
        return 0;
    } catch (const Error &e) {
        printf("Halide error: %s\n", e.what());
        return 2;
    }
}

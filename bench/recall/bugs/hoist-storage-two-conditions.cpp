// Recall benchmark, bug "hoist-storage-two-conditions".
// Upstream: commit d48a69d8ca (halide/Halide#8832, "Delay storage hoisting into its own
// mutator"), fixed after 21.0.0: when two hoisted allocations are merged, their conditions
// were not combined (only the first was kept). Two funcs computed per row of out, both
// hoisted to the root, are read by out's two stages under different conditions on y; the
// merged root allocation is made with the wrong condition (here 0 bytes) and the rows are
// then written into it: a heap buffer overrun. A guarded allocator (custom_malloc with 32
// guard bytes before and 64 KiB after, checked at free) detects it; the values may still be
// right.
// Exit: 0 right, 1 the bug (an overrun or a wrong value), 2 another error, 3 the version
// lacks the API (hoist_storage is 19+).
#include "Halide.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
using namespace Halide;

// Guard bands: 32 bytes before each allocation, 64 KiB after it (the overrun writes whole
// rows of out's width into a 0-byte allocation, far past a small guard).
static const size_t kAfter = 65536;
static int overruns = 0;
static void *guarded_malloc(JITUserContext *, size_t n) {
    unsigned char *o = (unsigned char *)malloc(n + 48 + kAfter);
    *(size_t *)o = n;
    memset(o + 16, 0xAB, 32);
    memset(o + 48 + n, 0xAB, kAfter);
    return o + 48;
}
static void guarded_free(JITUserContext *, void *p) {
    unsigned char *o = (unsigned char *)p - 48;
    size_t n = *(size_t *)o;
    for (size_t i = 0; i < kAfter; i++)
        if ((i < 32 && o[16 + i] != 0xAB) || o[48 + n + i] != 0xAB) {
            printf("write outside a heap allocation of %zu bytes\n", n);
            overruns++;
            break;
        }
    free(o);
}

int main() {
    setvbuf(stdout, nullptr, _IONBF, 0);
#ifndef HALIDE_VERSION_MAJOR
    printf("Halide 14 (no HALIDE_VERSION_MAJOR): hoist_storage does not exist there\n");
    return 3;
#else
    printf("Halide %d.%d.%d\n", HALIDE_VERSION_MAJOR, HALIDE_VERSION_MINOR, HALIDE_VERSION_PATCH);
    try {
        Var x("x"), y("y");
        Func loaded("loaded"), used("used"), out("out");
        loaded(x, y) = x + 2 * y;
        used(x, y) = loaded(x, y) * 3;
        out(x, y) = select(y < 75, 0, used(x, y));
        out(x, y) = select(y > 25, out(x, y), used(x, y));
        loaded.compute_at(out, y).hoist_storage_root();
        used.compute_at(out, y).hoist_storage_root();
        out.jit_handlers().custom_malloc = guarded_malloc;
        out.jit_handlers().custom_free = guarded_free;

        const int W = 50, H = 50;
        Buffer<int> res = out.realize({W, H});
        int bad = 0;
        for (int j = 0; j < H; j++)
            for (int i = 0; i < W; i++) {
                int want = j > 25 ? 0 : 3 * (i + 2 * j);
                if (res(i, j) != want && bad++ < 10) printf("out(%d, %d) = %d, expected %d\n", i, j, res(i, j), want);
            }
        printf("%d of %d points differ; %d heap allocation(s) overrun\n", bad, W * H, overruns);
        return (bad || overruns) ? 1 : 0;
    } catch (const InternalError &e) {
        printf("Halide internal error: %s\n", e.what());
        return 1;
    } catch (const Error &e) {
        printf("Halide error: %s\n", e.what());
        return 2;
    }
#endif
}

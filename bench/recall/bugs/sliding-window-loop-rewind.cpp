// Recall benchmark, bug "sliding-window-loop-rewind".
// Upstream: halide/Halide#8140, "Sliding window by backing up the loop min is busted"
// (open; the sliding-window fuzzer of halide/Halide#8144 works around it). f0 is stored at
// the outer loop yo of a split of the output's y and computed at its innermost loop x, f1
// is stored at the root and computed at x too, and f1 reads f0: sliding window rewinds
// the loops to warm both up, and f2 reads points of f0 or f1 that were never computed.
// The shape of the issue (uint8 input, repeat_edge, bound(x, 0, 1), RoundUp, factor 1) is
// variant A; variant B is the same chain in Int(32) without an input or bounds, y split by
// 2 with GuardWithIf, over 5x5 (the .halo form). Measured on 21 with variant B's chain:
// f2 need not read f0 itself; with f0 stored at the root, f0 and f1 both stored at yo, or
// f0 computed at f1's x instead of f2's, the values are right.
// Exit: 0 right, 1 the bug (wrong values), 2 another error.
#include "Halide.h"
#include <cstdint>
#include <cstdio>
using namespace Halide;

static int run_a() {
    try {
        Buffer<uint8_t> in(8, 8, "in");
        for (int j = 0; j < 8; j++)
            for (int i = 0; i < 8; i++) in(i, j) = (uint8_t)(i * 7 + j * 13 + 1);
        Var x("x"), y("y"), yo("yo"), yi("yi");
        Func f0("f0"), f1("f1"), f2("f2");
        f0 = BoundaryConditions::repeat_edge(in);
        f1(x, y) = (f0(x + 1, y + 1) + f0(x - 1, y - 1)) * 2;
        f2(x, y) = (f0(x + 1, y + 1) + f0(x - 1, y - 1)) + (f1(x + 1, y + 1) + f1(x - 1, y - 1));
        f2.bound(x, 0, 1).bound(y, 0, 1).split(y, yo, yi, 1, TailStrategy::RoundUp);
        f0.store_at(f2, yo).compute_at(f2, x);
        f1.store_root().compute_at(f2, x);
        Buffer<uint8_t> out = f2.realize({1, 1});
        auto e = [&](int i, int j) { return (int)in(std::min(std::max(i, 0), 7), std::min(std::max(j, 0), 7)); };
        auto g1 = [&](int i, int j) { return (uint8_t)((uint8_t)(e(i + 1, j + 1) + e(i - 1, j - 1)) * 2); };
        uint8_t want = (uint8_t)((uint8_t)(e(1, 1) + e(-1, -1)) + (uint8_t)(g1(1, 1) + g1(-1, -1)));
        printf("variant A: f2(0, 0) = %d, expected %d\n", out(0, 0), want);
        return out(0, 0) != want;
    } catch (const Error &e) {
        printf("variant A: Halide error: %s\n", e.what());
        return 2;
    }
}

static int run_b() {
    try {
        Var x("x"), y("y"), yo("yo"), yi("yi");
        Func f0("f0"), f1("f1"), f2("f2");
        f0(x, y) = x * 7 + y * 13 + 1;
        f1(x, y) = (f0(x + 1, y + 1) + f0(x - 1, y - 1)) * 2;
        f2(x, y) = (f0(x + 1, y + 1) + f0(x - 1, y - 1)) + (f1(x + 1, y + 1) + f1(x - 1, y - 1));
        f2.split(y, yo, yi, 2, TailStrategy::GuardWithIf);
        f0.store_at(f2, yo).compute_at(f2, x);
        f1.store_root().compute_at(f2, x);
        const int W = 5, H = 5;
        Buffer<int> out = f2.realize({W, H});
        auto g0 = [](int i, int j) { return i * 7 + j * 13 + 1; };
        auto g1 = [&](int i, int j) { return (g0(i + 1, j + 1) + g0(i - 1, j - 1)) * 2; };
        int bad = 0;
        for (int j = 0; j < H; j++)
            for (int i = 0; i < W; i++) {
                int want = (g0(i + 1, j + 1) + g0(i - 1, j - 1)) + (g1(i + 1, j + 1) + g1(i - 1, j - 1));
                if (out(i, j) != want && bad++ < 10) printf("  f2(%d, %d) = %d, expected %d\n", i, j, out(i, j), want);
            }
        printf("variant B: %d of %d points differ\n", bad, W * H);
        return bad ? 1 : 0;
    } catch (const Error &e) {
        printf("variant B: Halide error: %s\n", e.what());
        return 2;
    }
}

int main() {
#ifdef HALIDE_VERSION_MAJOR
    printf("Halide %d.%d.%d\n", HALIDE_VERSION_MAJOR, HALIDE_VERSION_MINOR, HALIDE_VERSION_PATCH);
#else
    printf("Halide 14 or older (no HALIDE_VERSION_MAJOR)\n");
#endif
    int a = run_a(), b = run_b();
    return a > b ? a : b;
}

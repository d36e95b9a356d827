// Deterministic variant of min.cpp (halo finding halide@21-1-44, minimized by hand).
// Same pipeline and schedule as min.halo / min.cpp; two extern calls that return 0 only
// add delays, to force the interleaving that the fuzzing run hit by chance:
//  * the async producer f1 sleeps 200 ms while computing f1(0, 9), i.e. in its iteration
//    for f2(0, 9) (yo = 1, yi = 1, x = 0), right after it re-stored the 2-lane vector of
//    row 8 whose lane 1 (x = 1) comes from a masked-off load (TailStrategy::PredicateLoads);
//  * the consumer f2 sleeps 20 ms at f2(0, 8) before reading f1(1, 8), which the producer
//    computed and released (semaphore) in its previous iteration.
// Expected: every f2(x, y) == 1. Build: g++ -std=c++17 min_det.cpp -I$R/include
// $R/lib64/libHalide.so -Wl,-rpath,$R/lib64 -rdynamic -lpthread -ldl -o min_det
// Arguments: "noasync" drops f1.async(); "guard" uses TailStrategy::GuardWithIf instead.
#include "Halide.h"
#include <atomic>
#include <cstdio>
#include <string>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
using namespace Halide;

static std::atomic<int> producer_slept{0};
extern "C" __attribute__((visibility("default"))) int producer_delay(int x, int y) {
    if (x == 0 && y == 9 && producer_slept.exchange(1) == 0) usleep(200000);
    return 0;
}
extern "C" __attribute__((visibility("default"))) int consumer_delay(int x, int y) {
    if (x == 0 && y == 8) usleep(20000);
    return 0;
}
// Every Halide allocation (f0's and f1's buffers) is pre-filled with 0x7f bytes, so a 0 read
// from f1 is a value some store wrote, not untouched memory.
static void *filled_malloc(JITUserContext *, size_t n) {
    size_t m = (n + 63) / 64 * 64 + 64;
    void *p = aligned_alloc(64, m);
    memset(p, 0x7f, m);
    return p;
}
static void plain_free(JITUserContext *, void *p) { free(p); }
HalideExtern_2(int, producer_delay, int, int);
HalideExtern_2(int, consumer_delay, int, int);

int main(int argc, char **argv) {
    std::string mode = argc > 1 ? argv[1] : "";
    Var x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi");
    Func f0("f0"), f1("f1"), f2("f2");
    f0(x, y) = 1;
    f1(x, y) = f0(x, y) + producer_delay(x, y);
    f2(x, y) = f1(x, y) + consumer_delay(x, y);

    f0.compute_root();
    f1.store_root().compute_at(f2, x)
        .split(x, xo, xi, 2, mode == "guard" ? TailStrategy::GuardWithIf : TailStrategy::PredicateLoads)
        .vectorize(xi);
    if (mode != "noasync") f1.async();
    f2.split(y, yo, yi, 8, TailStrategy::GuardWithIf);

    JITUserContext ctx;
    ctx.handlers.custom_malloc = filled_malloc;
    ctx.handlers.custom_free = plain_free;
    Buffer<int> out(11, 16);
    Pipeline(f2).realize(&ctx, out, get_jit_target_from_environment());
    int wrong = 0;
    for (int j = 0; j < 16; j++)
        for (int i = 0; i < 11; i++)
            if (out(i, j) != 1 && wrong++ < 10) printf("f2(%d, %d) = %d, expected 1\n", i, j, out(i, j));
    printf("%d of %d point(s) wrong\n", wrong, 11 * 16);
    return wrong ? 1 : 0;
}

// Recall benchmark, bug "shift-overflow-infinite-recursion".
// Upstream: halide/Halide#9108, fixed by #9109 (commit bb8d4d808e, "Fix infinite recursion
// in FindIntrinsics") after 21.0.0. An int32 shift whose right-hand side overflows,
// x << (x << 67), sends FindIntrinsics into unbounded recursion: the compiler's stack
// overflows and the process dies (SIGSEGV). Halide 19 reports "Signed integer overflow
// occurred during constant-folding" instead.
// Exit: 0 compiled and ran (values are not judged: the shift amount is out of range, so
// they are unspecified), 2 a Halide error; the bug kills the process.
#include "Halide.h"
#include <cstdio>
using namespace Halide;

int main() {
    setvbuf(stdout, nullptr, _IONBF, 0);
#ifdef HALIDE_VERSION_MAJOR
    printf("Halide %d.%d.%d\n", HALIDE_VERSION_MAJOR, HALIDE_VERSION_MINOR, HALIDE_VERSION_PATCH);
#else
    printf("Halide 14 or older (no HALIDE_VERSION_MAJOR)\n");
#endif
    try {
        Var x("x");
        Func f("f");
        f(x) = x << (x << 67);
        f.vectorize(x, 8);
        printf("compiling...\n");
        Buffer<int> out = f.realize({16});
        printf("compiled and ran\n");
        return 0;
    } catch (const Error &e) {
        printf("Halide error: %s\n", e.what());
        return 2;
    }
}

// A Halide reproducer written by halo (an executable formal semantics of Halide-style
// languages, used as a test oracle) for docs/findings/halide-traced-saturating-abs-int64-wrong-output.halo.
// halo's verdict: wrong_output (wrong_output:memcheck_run:compute_inline+split.guard+traverse.vectorized)
// Theorem 2.2 violated: Halide's output differs from the reference at 2 of 26 point(s) of R(z) (in the traced run only), first f(20) = -9223372036854775808, expected 9223372036854775807
// Halide target when found: x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_sapphirerapids-avx512_skylake-avxvnni-f16c-fma-jit-sse41
// The .halo program:
//   pipeline f() {
//     fun in_i64(x) : i64 = { select(x % 2 == 0, i64(u64(1) << 63), i64(u64(x + 0) * u64(1) * u64(1))) }
//     fun in_u64(x) : u64 = { select(x % 3 == 2, u64(0), u64(u64(x + 52) * u64(10463) * u64(434663599))) }
//     fun f(x) = { saturating_cast<i64>(abs(min(i64(absd(i64(rounding_shift_right(in_u64[x], in_u64[x])), i64(in_u64[x] + in_u64[x]))), in_i64[x]))) }
//   }
//   
//   schedule {
//     split(<f, 0, 0, x>, x_o, x_v, 16, guard);
//     traverse(<f, 0, 0, x_v>, vectorized);
//     compute_inline(in_u64);
//   }
//   
//   realize () over (4, 26)
//
// Build and run with Debian's Halide 14, or with a Halide wheel from PyPI (pip install
// halide==21.0.0; ROOT is what `python -c 'import halide; print(halide.install_dir())'`
// prints in its environment, e.g. halo's .venv/halide/21.0.0/halide):
//   g++ -std=c++17 repro.cpp -I/usr/include/halide14 -lHalide14 -lpthread -ldl -o repro && ./repro
//   g++ -std=c++17 repro.cpp -I$ROOT/include $ROOT/lib64/libHalide.so -Wl,-rpath,$ROOT/lib64 -lpthread -ldl -o repro
// It prints every point of the output window where Halide's value differs from the value
// of halo's reference semantics, and exits 0 when they all agree, 1 when some differ, 2
// when Halide reports an error.
#include "Halide.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace Halide;

// Halide 19 and later declare the fixed-point intrinsics (widening_add, ...) in namespace
// Halide, Halide 14 in Halide::Internal (its Halide.h has no HALIDE_VERSION_MAJOR).
#ifdef HALIDE_VERSION_MAJOR
namespace fixed_point = Halide;
#else
namespace fixed_point = Halide::Internal;
#endif

// Halide's runtime errors (a failed check) arrive here rather than as exceptions, since a
// JITUserContext is passed to realize.
static bool runtime_error_seen = false;
static void on_runtime_error(JITUserContext *, const char *msg) {
  printf("Halide runtime error: %s\n", msg);
  runtime_error_seen = true;
}

// The memory check halo ran: every load and store of every Func, traced, must lie inside
// the region of the innermost open realization of that Func (the output: its buffer).
// Parallel loops run serially so that realizations nest.
struct TracedRegion { std::vector<int> min, max; };
struct MemcheckContext : JITUserContext {
  std::string output;
  TracedRegion output_region;
  std::map<std::string, std::vector<TracedRegion>> open;
  long violations = 0;
};
static int32_t memcheck_trace(JITUserContext *u, const halide_trace_event_t *e) {
  auto *c = static_cast<MemcheckContext *>(u);
  if (e->event == halide_trace_begin_realization) {
    TracedRegion r;
    for (int d = 0; d + 1 < e->dimensions; d += 2) {
      r.min.push_back(e->coordinates[d]);
      r.max.push_back(e->coordinates[d] + e->coordinates[d + 1] - 1);
    }
    c->open[e->func].push_back(r);
  } else if (e->event == halide_trace_end_realization) {
    if (!c->open[e->func].empty()) c->open[e->func].pop_back();
  } else if (e->event == halide_trace_load || e->event == halide_trace_store) {
    const TracedRegion *r = nullptr;
    if (c->output == e->func) r = &c->output_region;
    else if (!c->open[e->func].empty()) r = &c->open[e->func].back();
    // Halide 14 pads each coordinate vector to a power of two lanes in memory.
    int lanes = e->type.lanes > 0 ? e->type.lanes : 1, dims = e->dimensions / lanes, stride = 1;
    while (stride < lanes) stride *= 2;
    for (int lane = 0; lane < lanes; lane++) {
      bool inside = r != nullptr;
      for (int d = 0; inside && d < dims; d++) {
        int v = e->coordinates[d * stride + lane];
        inside = v >= r->min[d] && v <= r->max[d];
      }
      if (!inside && c->violations++ < 20) {
        printf("%s of %s at (", e->event == halide_trace_store ? "store" : "load", e->func);
        for (int d = 0; d < dims; d++) printf("%s%d", d ? ", " : "", e->coordinates[d * stride + lane]);
        printf(") is outside its realized region\n");
      }
    }
  }
  return 1;
}
static int memcheck_serial_par_for(JITUserContext *u, int (*f)(JITUserContext *, int, uint8_t *), int min,
                                   int extent, uint8_t *closure) {
  for (int i = min; i < min + extent; i++)
    if (int r = f(u, i, closure)) return r;
  return 0;
}

int main() {
#ifdef HALIDE_VERSION_MAJOR
  printf("Halide %d.%d.%d\n", HALIDE_VERSION_MAJOR, HALIDE_VERSION_MINOR, HALIDE_VERSION_PATCH);
#else
  printf("Halide 14 or older (its Halide.h has no HALIDE_VERSION_MAJOR)\n");
#endif
  try {
    // Parameters, with their values under the realization z.
    // Variables: the funcs' pure variables and the loops the schedule introduces.
    Var v_x("x");
    Var v_x_o("x_o");
    Var v_x_v("x_v");
    // Funcs, in definition order; each has its definition's type.
    Func f_in_i64("in_i64");
    Func f_in_u64("in_u64");
    Func f_f("f");

    // The algorithm. RDom dimension i is the reduction variable r(i+1) (r1 innermost).
    f_in_i64(v_x) = select(((v_x % Expr(2)) == Expr(0)), cast<int64_t>((cast<uint64_t>(Expr(1)) << Internal::make_const(UInt(64), UINT64_C(63)))), cast<int64_t>(((cast<uint64_t>((v_x + Expr(0))) * cast<uint64_t>(Expr(1))) * cast<uint64_t>(Expr(1)))));
    f_in_u64(v_x) = select(((v_x % Expr(3)) == Expr(2)), cast<uint64_t>(Expr(0)), cast<uint64_t>(((cast<uint64_t>((v_x + Expr(52))) * cast<uint64_t>(Expr(10463))) * cast<uint64_t>(Expr(434663599)))));
    f_f(v_x) = saturating_cast<int64_t>(abs(min(cast<int64_t>(absd(cast<int64_t>(fixed_point::rounding_shift_right(f_in_u64(v_x), f_in_u64(v_x))), cast<int64_t>((f_in_u64(v_x) + f_in_u64(v_x))))), f_in_i64(v_x))));

    // The schedule. First the formal default: every func computed and stored at the root
    // (Halide's own default would inline it). Then each halo directive.
    f_in_i64.compute_root();
    f_in_i64.store_root();
    // halo: split(<f, 0, 0, x>, x_o, x_v, 16, guard)
    f_f.split(v_x, v_x_o, v_x_v, Expr(16), TailStrategy::GuardWithIf);
    // halo: traverse(<f, 0, 0, x_v>, vectorized)
    f_f.vectorize(v_x_v);

    // Realize on R(z). The bounds query may ask for a larger buffer (a rounded-up split of the
    // output); only R(z) is compared.
    Target target = get_jit_target_from_environment();
    Pipeline pipeline(f_f);
    for (Func f : {f_in_i64, f_in_u64, f_f}) f.trace_loads().trace_stores().trace_realizations();
    MemcheckContext ctx;
    ctx.handlers.custom_trace = memcheck_trace;
    ctx.handlers.custom_do_par_for = memcheck_serial_par_for;
    ctx.output = f_f.name();
    ctx.handlers.custom_error = on_runtime_error;
    Buffer<int64_t> out(nullptr, std::vector<int>{26});
    out.set_min(std::vector<int>{4});
    pipeline.realize(&ctx, out, target);  // the bounds query
    if (runtime_error_seen) return 2;
    if (out.dim(0).extent() < 0 || out.dim(0).min() > 4 || out.dim(0).max() < 29) {
      printf("the bounds query answers a region that does not contain the window: realized on a buffer over the window instead\n");
      out = Buffer<int64_t>(nullptr, std::vector<int>{26});
      out.set_min(std::vector<int>{4});
    }
    out.allocate();
    // A point Halide never writes must not pass for a computed value.
    std::memset(out.raw_buffer()->host, 0x5B, out.raw_buffer()->size_in_bytes());
    for (int d = 0; d < out.dimensions(); d++) {
      ctx.output_region.min.push_back(out.dim(d).min());
      ctx.output_region.max.push_back(out.dim(d).max());
    }
    pipeline.realize(&ctx, out, target);
    if (runtime_error_seen) return 2;
    if (ctx.violations) printf("%ld load(s)/store(s) outside their realized region\n", ctx.violations);

    // halo's reference values on R(z) (fig. 2.6), first dimension fastest.
    static const int64_t expected[] = {
        0 /* err_undef */, 0LL, 0 /* err_undef */, 0 /* err_undef */, 9223372036854775807LL, 0 /* err_undef */, 0 /* err_undef */, 0LL, 0 /* err_undef */, 0 /* err_undef */, 9223372036854775807LL, 0 /* err_undef */,
        0 /* err_undef */, 0LL, 0 /* err_undef */, 0 /* err_undef */, 9223372036854775807LL, 0 /* err_undef */, 0 /* err_undef */, 0LL, 0 /* err_undef */, 0 /* err_undef */, 9223372036854775807LL, 0 /* err_undef */,
        0 /* err_undef */, 0LL,
        0};
    // 0 where the reference is undefined (err_undef: an operation Halide leaves undefined).
    static const unsigned char compared[] = {
        0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0,
        0, 1,
        0};
    long mismatches = 0, i = 0;
    for (int c0 = 4; c0 < 30; c0++)
      {
        int64_t got = (int64_t)out(c0), want = expected[i++];
        if (compared[i - 1] && got != want && mismatches++ < 50)
          printf("f(%d) = %" PRId64 ", expected %" PRId64 "\n", c0, got, want);
      }
    printf("%ld of %ld point(s) differ from halo's reference\n", mismatches, i);
    return mismatches || ctx.violations ? 1 : 0;
  } catch (const Halide::Error &e) {
    printf("Halide error: %s\n", e.what());
    return 2;
  }
}

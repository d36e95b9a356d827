// A Halide reproducer written by halo (an executable formal semantics of Halide-style
// languages, used as a test oracle) for docs/findings/halide-fused-guarded-split-rdom-predicate-heap-overrun.halo.
// halo's verdict: memory_violation (memory_violation:run:fuse+split.guard+split.shift+swap)
// Theorem 2.1 violated: a heap buffer of 40 bytes was written 1 byte(s) past its end
// Halide target when found: x86-64-linux-tune_znver5-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-avx512_zen4-avx512_zen5-avxvnni-f16c-fma-jit-sse41
// The .halo program:
//   pipeline f1() {
//     fun f0(x, y) = { x + y }
//     fun f1(x, y) = {
//       f0[x, y];
//       rdom(r = (-1, 5)) in (x, y) <- f1[x, y] + f0[x + r, y] if r < x + 2
//     }
//   }
//   
//   schedule {
//     split(<f1, 0, 0, y>, yo, yi, 5, shift);
//     split(<f0, 0, 0, x>, xo, xi, 3, guard);
//     fuse(<f0, 0, 0>, y, xi, t);
//   }
//   
//   realize () over (-2, 1), (2, 1)
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

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <iterator>
#include <string>
#include <vector>

using namespace Halide;

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
    Var v_t("t");
    Var v_x("x");
    Var v_xi("xi");
    Var v_xo("xo");
    Var v_y("y");
    Var v_yi("yi");
    Var v_yo("yo");
    // Funcs, in definition order; every value is Int(32).
    Func f_f0("f0");
    Func f_f1("f1");

    // The algorithm. RDom dimension i is the reduction variable r(i+1) (r1 innermost).
    f_f0(v_x, v_y) = (v_x + v_y);
    f_f1(v_x, v_y) = f_f0(v_x, v_y);
    RDom r_f1_1({{(-Expr(1)), Expr(5)}}, "r");  // r
    r_f1_1.where((r_f1_1[0] < (v_x + Expr(2))));
    f_f1(v_x, v_y) = (f_f1(v_x, v_y) + f_f0((v_x + r_f1_1[0]), v_y));

    // The schedule. First the formal default: every func computed and stored at the root
    // (Halide's own default would inline it). Then each halo directive.
    f_f0.compute_root();
    f_f0.store_root();
    // halo: split(<f1, 0, 0, y>, yo, yi, 5, shift)
    f_f1.split(v_y, v_yo, v_yi, Expr(5), TailStrategy::ShiftInwards);
    // halo: split(<f0, 0, 0, x>, xo, xi, 3, guard)
    f_f0.split(v_x, v_xo, v_xi, Expr(3), TailStrategy::GuardWithIf);
    // halo: fuse(<f0, 0, 0>, y, xi, t)
    f_f0.fuse(v_y, v_xi, v_t);

    // Realize on R(z). The bounds query may ask for a larger buffer (a rounded-up split of the
    // output); only R(z) is compared.
    Target target = get_jit_target_from_environment();
    Pipeline pipeline(f_f1);
    for (Func f : {f_f0, f_f1}) f.trace_loads().trace_stores().trace_realizations();
    MemcheckContext ctx;
    ctx.handlers.custom_trace = memcheck_trace;
    ctx.handlers.custom_do_par_for = memcheck_serial_par_for;
    ctx.output = f_f1.name();
    ctx.handlers.custom_error = on_runtime_error;
    Buffer<int32_t> out(nullptr, std::vector<int>{1, 1});
    out.set_min(std::vector<int>{-2, 2});
    pipeline.realize(&ctx, out, target);  // the bounds query
    if (runtime_error_seen) return 2;
    if (out.dim(0).extent() < 0 || out.dim(0).min() > -2 || out.dim(0).max() < -2 || out.dim(1).extent() < 0 || out.dim(1).min() > 2 || out.dim(1).max() < 2) {
      printf("the bounds query answers a region that does not contain the window: realized on a buffer over the window instead\n");
      out = Buffer<int32_t>(nullptr, std::vector<int>{1, 1});
      out.set_min(std::vector<int>{-2, 2});
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
        -1LL,
        0};
    long mismatches = 0, i = 0;
    for (int c1 = 2; c1 < 3; c1++)
      for (int c0 = -2; c0 < -1; c0++)
        {
          int64_t got = (int64_t)out(c0, c1), want = expected[i++];
          if (got != want && mismatches++ < 50)
            printf("f1(%d, %d) = %" PRId64 ", expected %" PRId64 "\n", c0, c1, got, want);
        }
    printf("%ld of %ld point(s) differ from halo's reference\n", mismatches, i);
    return mismatches || ctx.violations ? 1 : 0;
  } catch (const Halide::Error &e) {
    printf("Halide error: %s\n", e.what());
    return 2;
  }
}

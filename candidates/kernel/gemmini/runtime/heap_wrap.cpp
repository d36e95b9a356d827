// Heap tracking for Gemmini kernels: linked with -Wl,--wrap=malloc (and calloc, realloc,
// free, aligned_alloc, posix_memalign), every allocation the kernel makes while it runs
// becomes a main-memory region that mvin and mvout may touch, with exact bounds. This file
// is its own object in the static library, so a program linked without --wrap (the
// benchmark) never pulls it in and needs no __real_* symbols.
#include <cstddef>
#include <cstdint>

extern "C" {
void halo_gemmini_heap_block(void* p, uint64_t bytes);
void halo_gemmini_heap_release(void* p);

void* __real_malloc(size_t n);
void* __real_calloc(size_t n, size_t size);
void* __real_realloc(void* p, size_t n);
void __real_free(void* p);
void* __real_aligned_alloc(size_t align, size_t n);
int __real_posix_memalign(void** out, size_t align, size_t n);

void* __wrap_malloc(size_t n) {
  void* p = __real_malloc(n);
  halo_gemmini_heap_block(p, n);
  return p;
}
void* __wrap_calloc(size_t n, size_t size) {
  void* p = __real_calloc(n, size);
  halo_gemmini_heap_block(p, uint64_t(n) * size);
  return p;
}
void* __wrap_realloc(void* p, size_t n) {
  void* q = __real_realloc(p, n);
  if (q || n == 0) halo_gemmini_heap_release(p);
  halo_gemmini_heap_block(q, n);
  return q;
}
void __wrap_free(void* p) {
  halo_gemmini_heap_release(p);
  __real_free(p);
}
void* __wrap_aligned_alloc(size_t align, size_t n) {
  void* p = __real_aligned_alloc(align, n);
  halo_gemmini_heap_block(p, n);
  return p;
}
int __wrap_posix_memalign(void** out, size_t align, size_t n) {
  int r = __real_posix_memalign(out, align, n);
  if (r == 0) halo_gemmini_heap_block(*out, n);
  return r;
}
}

/* Force-included (-include) into every source of an "avx512" kernel that `halo kernel`
 * compiles without native AVX-512 (docs/kernels.md): unmodified code written with the
 * _mm512_* intrinsics of <immintrin.h> runs on SIMDe's portable implementations, which
 * are plain C loads and stores that AddressSanitizer checks. The host's own <immintrin.h>
 * is included first so that a later #include of it in the kernel is a no-op, then SIMDe
 * with its native aliases (_mm512_loadu_ps -> simde_mm512_loadu_ps, __m512 -> simde__m512).
 *
 * SIMDe 0.7.4 lacks the masked loads and stores (_mm512_mask_loadu_ps,
 * _mm512_maskz_loadu_ps, _mm512_mask_storeu_ps and their load/store, epi32, pd and epi64
 * forms). They are defined here lane by lane: a masked-off lane is never touched, as on
 * hardware, so an out-of-bounds lane that the mask enables is exactly what
 * AddressSanitizer reports. */
#ifndef HALO_KERNEL_AVX512_H
#define HALO_KERNEL_AVX512_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

#define HALO_MASKED_MEMORY(SUFFIX, VEC, ELEM, LANES, MASK)                                                   \
  static inline VEC halo_mm512_mask_loadu_##SUFFIX(VEC src, MASK k, const void* p) {                         \
    ELEM lanes[LANES];                                                                                       \
    memcpy(lanes, &src, sizeof lanes);                                                                       \
    for (int i = 0; i < LANES; ++i)                                                                          \
      if ((k >> i) & 1) memcpy(&lanes[i], (const char*)p + i * sizeof(ELEM), sizeof(ELEM));                 \
    VEC r;                                                                                                   \
    memcpy(&r, lanes, sizeof r);                                                                             \
    return r;                                                                                                \
  }                                                                                                          \
  static inline VEC halo_mm512_maskz_loadu_##SUFFIX(MASK k, const void* p) {                                 \
    VEC zero;                                                                                                \
    memset(&zero, 0, sizeof zero);                                                                           \
    return halo_mm512_mask_loadu_##SUFFIX(zero, k, p);                                                       \
  }                                                                                                          \
  static inline void halo_mm512_mask_storeu_##SUFFIX(void* p, MASK k, VEC a) {                               \
    ELEM lanes[LANES];                                                                                       \
    memcpy(lanes, &a, sizeof lanes);                                                                         \
    for (int i = 0; i < LANES; ++i)                                                                          \
      if ((k >> i) & 1) memcpy((char*)p + i * sizeof(ELEM), &lanes[i], sizeof(ELEM));                        \
  }

HALO_MASKED_MEMORY(ps, simde__m512, float, 16, simde__mmask16)
HALO_MASKED_MEMORY(pd, simde__m512d, double, 8, simde__mmask8)
HALO_MASKED_MEMORY(epi32, simde__m512i, int32_t, 16, simde__mmask16)
HALO_MASKED_MEMORY(epi64, simde__m512i, int64_t, 8, simde__mmask8)
#undef HALO_MASKED_MEMORY

/* The unaligned forms, and the aligned ones (alignment is not checked). */
#undef _mm512_mask_loadu_ps
#undef _mm512_maskz_loadu_ps
#undef _mm512_mask_storeu_ps
#undef _mm512_mask_load_ps
#undef _mm512_maskz_load_ps
#undef _mm512_mask_store_ps
#define _mm512_mask_loadu_ps(src, k, p) halo_mm512_mask_loadu_ps((src), (k), (p))
#define _mm512_maskz_loadu_ps(k, p) halo_mm512_maskz_loadu_ps((k), (p))
#define _mm512_mask_storeu_ps(p, k, a) halo_mm512_mask_storeu_ps((p), (k), (a))
#define _mm512_mask_load_ps(src, k, p) halo_mm512_mask_loadu_ps((src), (k), (p))
#define _mm512_maskz_load_ps(k, p) halo_mm512_maskz_loadu_ps((k), (p))
#define _mm512_mask_store_ps(p, k, a) halo_mm512_mask_storeu_ps((p), (k), (a))
#undef _mm512_mask_loadu_pd
#undef _mm512_maskz_loadu_pd
#undef _mm512_mask_storeu_pd
#undef _mm512_mask_load_pd
#undef _mm512_maskz_load_pd
#undef _mm512_mask_store_pd
#define _mm512_mask_loadu_pd(src, k, p) halo_mm512_mask_loadu_pd((src), (k), (p))
#define _mm512_maskz_loadu_pd(k, p) halo_mm512_maskz_loadu_pd((k), (p))
#define _mm512_mask_storeu_pd(p, k, a) halo_mm512_mask_storeu_pd((p), (k), (a))
#define _mm512_mask_load_pd(src, k, p) halo_mm512_mask_loadu_pd((src), (k), (p))
#define _mm512_maskz_load_pd(k, p) halo_mm512_maskz_loadu_pd((k), (p))
#define _mm512_mask_store_pd(p, k, a) halo_mm512_mask_storeu_pd((p), (k), (a))
#undef _mm512_mask_loadu_epi32
#undef _mm512_maskz_loadu_epi32
#undef _mm512_mask_storeu_epi32
#undef _mm512_mask_load_epi32
#undef _mm512_maskz_load_epi32
#undef _mm512_mask_store_epi32
#define _mm512_mask_loadu_epi32(src, k, p) halo_mm512_mask_loadu_epi32((src), (k), (p))
#define _mm512_maskz_loadu_epi32(k, p) halo_mm512_maskz_loadu_epi32((k), (p))
#define _mm512_mask_storeu_epi32(p, k, a) halo_mm512_mask_storeu_epi32((p), (k), (a))
#define _mm512_mask_load_epi32(src, k, p) halo_mm512_mask_loadu_epi32((src), (k), (p))
#define _mm512_maskz_load_epi32(k, p) halo_mm512_maskz_loadu_epi32((k), (p))
#define _mm512_mask_store_epi32(p, k, a) halo_mm512_mask_storeu_epi32((p), (k), (a))
#undef _mm512_mask_loadu_epi64
#undef _mm512_maskz_loadu_epi64
#undef _mm512_mask_storeu_epi64
#undef _mm512_mask_load_epi64
#undef _mm512_maskz_load_epi64
#undef _mm512_mask_store_epi64
#define _mm512_mask_loadu_epi64(src, k, p) halo_mm512_mask_loadu_epi64((src), (k), (p))
#define _mm512_maskz_loadu_epi64(k, p) halo_mm512_maskz_loadu_epi64((k), (p))
#define _mm512_mask_storeu_epi64(p, k, a) halo_mm512_mask_storeu_epi64((p), (k), (a))
#define _mm512_mask_load_epi64(src, k, p) halo_mm512_mask_loadu_epi64((src), (k), (p))
#define _mm512_maskz_load_epi64(k, p) halo_mm512_maskz_loadu_epi64((k), (p))
#define _mm512_mask_store_epi64(p, k, a) halo_mm512_mask_storeu_epi64((p), (k), (a))

#endif /* HALO_KERNEL_AVX512_H */

/* BROKEN on purpose (an out-of-bounds masked load): the mask for the rows of B enables one
 * lane too many in the tail strip, so the last row's load reads one float past the end of
 * B. The results are unaffected (the extra lane is never stored); AddressSanitizer reports
 * the read under emulation, which is what `halo kernel` must flag.
 *
 * An AVX-512 SGEMM micro-kernel: C[M][N] += A[M][K] B[K][N] for M <= 6, any N, in the
 * style of the C that Exo emits for x86 (_mm512_* intrinsics from <immintrin.h>). Each
 * strip of 16 columns keeps its M rows of C in registers across the k loop; the last strip
 * is a masked tail (_mm512_maskz_loadu_ps / _mm512_mask_storeu_ps), so no lane outside the
 * matrices is touched. Spec: avx512_sgemm.halo; manifest: avx512_sgemm.json. */
#include <immintrin.h>
#include <stdint.h>

void sgemm_micro(void* ctxt, int_fast32_t M, int_fast32_t N, int_fast32_t K, const float* A, const float* B,
                 float* C) {
  (void)ctxt;
  __m512 c[6];
  for (int_fast32_t j = 0; j < N; j += 16) {
    const int_fast32_t lanes = N - j < 16 ? N - j : 16;
    const __mmask16 mask = (__mmask16)((1u << lanes) - 1);
    const __mmask16 load_mask = (__mmask16)((1u << (lanes + 1)) - 1);
    for (int_fast32_t i = 0; i < M && i < 6; ++i) c[i] = _mm512_maskz_loadu_ps(mask, &C[i * N + j]);
    for (int_fast32_t k = 0; k < K; ++k) {
      const __m512 b = _mm512_maskz_loadu_ps(load_mask, &B[k * N + j]);
      for (int_fast32_t i = 0; i < M && i < 6; ++i) c[i] = _mm512_fmadd_ps(_mm512_set1_ps(A[i * K + k]), b, c[i]);
    }
    for (int_fast32_t i = 0; i < M && i < 6; ++i) _mm512_mask_storeu_ps(&C[i * N + j], mask, c[i]);
  }
}

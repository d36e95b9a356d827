/* Exo's scratchpad allocator (exo/libs/gemm_malloc.h), implemented by halo's Gemmini
 * runtime: gemm_malloc(bytes) returns the row address of ceil(bytes / DIM) scratchpad
 * rows; the simulator checks every access against the live allocations. */
#ifndef HALO_GEMM_MALLOC_H
#define HALO_GEMM_MALLOC_H

#ifndef HEAP_SIZE
#define HEAP_SIZE 100000
#endif
#include "include/gemmini.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif
void gemm_init_mem(void);
uint32_t gemm_malloc(long unsigned int size);
void gemm_free(uint32_t addr);
#ifdef __cplusplus
}
#endif

#endif /* HALO_GEMM_MALLOC_H */

/* Exo's accumulator allocator (exo/libs/gemm_acc_malloc.h), implemented by halo's Gemmini
 * runtime: gemm_acc_malloc(bytes) returns, with bit 31 set, the row address of
 * ceil(bytes / (4 * DIM)) accumulator rows of int32; the simulator checks every access
 * against the live allocations. */
#ifndef HALO_GEMM_ACC_MALLOC_H
#define HALO_GEMM_ACC_MALLOC_H

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
void gemm_acc_init_mem(void);
uint32_t gemm_acc_malloc(long unsigned int size);
void gemm_acc_free(uint32_t addr);
#ifdef __cplusplus
}
#endif

#endif /* HALO_GEMM_ACC_MALLOC_H */

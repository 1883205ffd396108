/* The sort lab's pairs library rows: cub::DeviceRadixSort::SortPairs, the values the
 * keys' input indices, checked for stability like a pairs step. The pairs steps'
 * target.
 *
 * Two rows, one file, as library-cub-keys.cu: an `int` item count (row cub-pairs) and
 * a 64-bit one (row cub-pairs-i64, -DSORT_CUB_COUNT=int64_t from lab.mk). On sm_90
 * CUB's onesweep tile for 32-bit keys with 32-bit values is 384 threads of 23 pairs
 * with a 32-bit count and of 17 with a 64-bit one; the faster row is the target. The
 * DoubleBuffer form and narrower bit ranges are left out for the reasons
 * library-cub-keys.cu gives.
 * Run:  make run LAB=sort STEP=cub-pairs    (STEP=cub-pairs-i64) */
#include <stdint.h>

#include <cub/device/device_radix_sort.cuh>

#include "kept_buffer.h"
#include "sort.h"
#include "step_kernel.h"

static struct kept_buffer cub_temp; /* CUB's temporary storage */

#ifndef SORT_CUB_COUNT
#define SORT_CUB_COUNT int
#endif

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct sort_problem *p = (const struct sort_problem *)problem;
    SORT_CUB_COUNT n = (SORT_CUB_COUNT)p->n;
    size_t need = 0;
    cudaError_t status = cub::DeviceRadixSort::SortPairs(NULL, need, p->keys_in, p->keys_out,
                                                         p->values_in, p->values_out, n, 0, 32,
                                                         stream);
    if (status == cudaSuccess)
        status = kept_buffer_reserve(&cub_temp, need);
    if (status == cudaSuccess)
        status = cub::DeviceRadixSort::SortPairs(cub_temp.data, need, p->keys_in, p->keys_out,
                                                 p->values_in, p->values_out, n, 0, 32, stream);
    return status != cudaSuccess ? status : cudaGetLastError();
}

#define LIBRARY_NAME(count) "cub::DeviceRadixSort::SortPairs, " #count " count"
#define LIBRARY_NAME_OF(count) LIBRARY_NAME(count)
DEFINE_LIBRARY(LIBRARY_NAME_OF(SORT_CUB_COUNT), launch);

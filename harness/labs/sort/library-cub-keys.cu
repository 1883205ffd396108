/* The sort lab's keys-only library rows: cub::DeviceRadixSort::SortKeys on the same
 * keys, checked and timed by the same harness as the steps. They are what the keys
 * steps aim at: onesweep (Adinets and Merrill 2022), tuned per architecture by
 * NVIDIA. The full 32 bits are sorted (begin_bit 0, end_bit 32), as the steps do.
 *
 * Two rows, one file, each CUB's documented call with another type of item count
 * (SORT_CUB_COUNT): `int` (row cub-keys) and a 64-bit count (row cub-keys-i64, which
 * lab.mk compiles with -DSORT_CUB_COUNT=int64_t: the CSV's flags column names it).
 * CUB picks its tuning from the count's size: on sm_90 its onesweep tile for 32-bit
 * keys is 384 threads of 20 keys with a 32-bit count and of 19 with a 64-bit one
 * (cub/device/dispatch/tuning/tuning_radix_sort.cuh), so the two can differ in speed;
 * the faster is the keys steps' target. What the rows leave out, and why:
 *   - a narrower bit range (begin_bit, end_bit): it sorts other keys than the lab's,
 *     whose 32 bits all vary;
 *   - the DoubleBuffer form: CUB then ping-pongs between the caller's two buffers
 *     instead of its own temporary one, the same kernels over the same passes, and
 *     writes the buffer the keys came in, which the lab's input is not (sort.h).
 * Run:  make run LAB=sort STEP=cub-keys    (STEP=cub-keys-i64) */
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
    cudaError_t status = cub::DeviceRadixSort::SortKeys(NULL, need, p->keys_in, p->keys_out, n,
                                                        0, 32, stream);
    if (status == cudaSuccess)
        status = kept_buffer_reserve(&cub_temp, need);
    if (status == cudaSuccess)
        status = cub::DeviceRadixSort::SortKeys(cub_temp.data, need, p->keys_in, p->keys_out, n, 0, 32,
                                                stream);
    return status != cudaSuccess ? status : cudaGetLastError();
}

#define LIBRARY_NAME(count) "cub::DeviceRadixSort::SortKeys, " #count " count"
#define LIBRARY_NAME_OF(count) LIBRARY_NAME(count)
DEFINE_LIBRARY(LIBRARY_NAME_OF(SORT_CUB_COUNT), launch);

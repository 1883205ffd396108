/* The sort lab's keys-only library row: cub::DeviceRadixSort::SortKeys on the same
 * keys, checked and timed by the same harness as the steps. It is what the keys
 * steps aim at: onesweep (Adinets and Merrill 2022), tuned per architecture by
 * NVIDIA. The full 32 bits are sorted (begin_bit 0, end_bit 32), as the steps do.
 * Run:  make run LAB=sort STEP=cub-keys */
#include <cub/device/device_radix_sort.cuh>

#include "cub_temp.h"
#include "sort.h"
#include "step_kernel.h"

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct sort_problem *p = (const struct sort_problem *)problem;
    int n = (int)p->n;
    size_t need = 0;
    cudaError_t status = cub::DeviceRadixSort::SortKeys(NULL, need, p->keys_in, p->keys_out, n,
                                                        0, 32, stream);
    if (status == cudaSuccess)
        status = cub_temp_reserve(need);
    if (status == cudaSuccess)
        status = cub::DeviceRadixSort::SortKeys(cub_temp, need, p->keys_in, p->keys_out, n, 0, 32,
                                                stream);
    return status != cudaSuccess ? status : cudaGetLastError();
}

DEFINE_LIBRARY("cub::DeviceRadixSort::SortKeys", launch);

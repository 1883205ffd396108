/* The sort lab's pairs library row: cub::DeviceRadixSort::SortPairs, the values the
 * keys' input indices, checked for stability like a pairs step. The pairs steps'
 * target.
 * Run:  make run LAB=sort STEP=cub-pairs */
#include <cub/device/device_radix_sort.cuh>

#include "cub_temp.h"
#include "sort.h"
#include "step_kernel.h"

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct sort_problem *p = (const struct sort_problem *)problem;
    int n = (int)p->n;
    size_t need = 0;
    cudaError_t status = cub::DeviceRadixSort::SortPairs(NULL, need, p->keys_in, p->keys_out,
                                                         p->values_in, p->values_out, n, 0, 32,
                                                         stream);
    if (status == cudaSuccess)
        status = cub_temp_reserve(need);
    if (status == cudaSuccess)
        status = cub::DeviceRadixSort::SortPairs(cub_temp, need, p->keys_in, p->keys_out,
                                                 p->values_in, p->values_out, n, 0, 32, stream);
    return status != cudaSuccess ? status : cudaGetLastError();
}

DEFINE_LIBRARY("cub::DeviceRadixSort::SortPairs", launch);

/* Frees a list of device buffers, every one of them even after a failure, and returns
 * the first error (cudaSuccess when all were freed): for a step that keeps device
 * buffers between launches, and for a lab's teardown (where a failure is a warning, not
 * a stop). A NULL entry is skipped: nothing to free, and no CUDA call, which on a
 * machine without a GPU (a CPU run's teardown) would fail. C and CUDA C. */
#ifndef LAB_CUDA_FREE_ALL_H
#define LAB_CUDA_FREE_ALL_H

#include <stddef.h>
#include <cuda_runtime_api.h>

static inline cudaError_t cuda_free_all(void *const *buffers, size_t count)
{
    cudaError_t status = cudaSuccess, freed;
    for (size_t b = 0; b < count; ++b)
        if (buffers[b] != NULL && (freed = cudaFree(buffers[b])) != cudaSuccess && status == cudaSuccess)
            status = freed;
    return status;
}

#endif

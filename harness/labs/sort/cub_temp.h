/* CUB's temporary storage for the two library rows: the first launch of a size asks
 * how much and allocates it (the runner never times a size's first launch); every
 * launch then lets CUB use it, as a program would. */
#ifndef LAB_SORT_CUB_TEMP_H
#define LAB_SORT_CUB_TEMP_H

#include <cuda_runtime_api.h>

static void *cub_temp;
static size_t cub_temp_capacity;

static cudaError_t cub_temp_reserve(size_t need)
{
    cudaError_t status = cudaSuccess;
    if (need <= cub_temp_capacity)
        return status;
    if (cub_temp != NULL && ((status = cudaDeviceSynchronize()) != cudaSuccess ||
                             (status = cudaFree(cub_temp)) != cudaSuccess))
        return status;
    cub_temp = NULL;
    cub_temp_capacity = 0;
    if ((status = cudaMalloc(&cub_temp, need)) != cudaSuccess)
        return status;
    cub_temp_capacity = need;
    return status;
}

#endif

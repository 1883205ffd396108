/* The scan lab's library row: cub::DeviceScan::InclusiveSum on the same inputs,
 * checked and timed by the same harness as the steps. It is what the steps aim at:
 * a single-pass scan with decoupled look-back (Merrill and Garland 2016), tuned per
 * architecture by NVIDIA.
 *
 * CUB asks for temporary storage (its tile flags): the first launch asks how much
 * and allocates it (the runner never times a size's first launch); every launch
 * then lets CUB clear and use it, as a program would. num_items is a 64-bit type,
 * so sizes past 2^31 elements run as one scan.
 * Run:  make run LAB=scan STEP=cub */
#include <cub/device/device_scan.cuh>

#include "scan.h"
#include "step_kernel.h"

static void *temp;
static size_t temp_capacity;

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct scan_problem *p = (const struct scan_problem *)problem;
    long long n = p->n;
    size_t need = 0;
    cudaError_t status = cub::DeviceScan::InclusiveSum(NULL, need, p->in, p->out, n, stream);
    if (status != cudaSuccess)
        return status;
    if (need > temp_capacity) {
        if (temp != NULL && ((status = cudaDeviceSynchronize()) != cudaSuccess ||
                             (status = cudaFree(temp)) != cudaSuccess))
            return status;
        temp = NULL;
        temp_capacity = 0;
        if ((status = cudaMalloc(&temp, need)) != cudaSuccess)
            return status;
        temp_capacity = need;
    }
    status = cub::DeviceScan::InclusiveSum(temp, need, p->in, p->out, n, stream);
    return status != cudaSuccess ? status : cudaGetLastError();
}

DEFINE_LIBRARY("cub::DeviceScan::InclusiveSum", launch);

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

#include "kept_buffer.h"
#include "scan.h"
#include "step_kernel.h"

static struct kept_buffer temp;

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct scan_problem *p = (const struct scan_problem *)problem;
    long long n = p->n;
    size_t need = 0;
    cudaError_t status = cub::DeviceScan::InclusiveSum(NULL, need, p->in, p->out, n, stream);
    if (status != cudaSuccess)
        return status;
    if ((status = kept_buffer_reserve(&temp, need)) != cudaSuccess)
        return status;
    status = cub::DeviceScan::InclusiveSum(temp.data, need, p->in, p->out, n, stream);
    return status != cudaSuccess ? status : cudaGetLastError();
}

DEFINE_LIBRARY("cub::DeviceScan::InclusiveSum", launch);

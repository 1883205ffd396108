/* The reduction lab's library row: CUB's cub::DeviceReduce::Sum (CCCL, shipped with
 * the CUDA Toolkit) on the same input, the target the steps aim at. CUB picks its
 * own tuning for this GPU and data type and sums in one pass of its own design; it
 * needs scratch memory ("temporary storage"), asked for with a first call that only
 * sizes it. The scratch is allocated at the first launch of a size (the runner's
 * first launch is never timed) and kept; the timed launches only run the sum.
 * CUB's order is fixed: the same bits every run.
 * Run:  make run LAB=reduce STEP=cub */
#include <cstdint>
#include <cub/device/device_reduce.cuh>

#include "kept_buffer.h"
#include "reduce.h"
#include "step_kernel.h"

static struct kept_buffer scratch;

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct reduce_problem *p = (const struct reduce_problem *)problem;
    const int64_t n = (int64_t)p->n; /* 64-bit item counts: n may pass 2^31 */
    size_t need = 0;
    cudaError_t status = cub::DeviceReduce::Sum(nullptr, need, p->in, p->out, n, stream);
    if (status != cudaSuccess)
        return status;
    if ((status = kept_buffer_reserve(&scratch, need)) != cudaSuccess)
        return status;
    status = cub::DeviceReduce::Sum(scratch.data, need, p->in, p->out, n, stream);
    return status != cudaSuccess ? status : cudaGetLastError();
}

DEFINE_LIBRARY("CUB cub::DeviceReduce::Sum", launch);

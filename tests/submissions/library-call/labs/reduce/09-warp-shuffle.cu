/* tests/submissions/library-call: a shortcut step 09 for the grading tests
 * (tests/test_grading.c without a GPU,
 * harness/labs/reduce/tests/test_reduce_grading_gpu.c).
 *
 * A library call instead of a kernel: the step's kernel is here and is what
 * DEFINE_STEP names, but launch calls CUB's cub::DeviceReduce::Sum (header-only, so
 * it builds against the harness alone). Correct, sanitizers clean, as fast as the
 * library.
 * Expect: technique FAIL naming CUB's kernel (statically: CUB's kernels are
 * instantiated into this object, its --report lists them; and from what the speed run
 * launched), no speed points. (The same folder holds sort step 08 calling CUB.)
 */
#include <cub/device/device_reduce.cuh>

#include "reduce.h"
#include "step_kernel.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#define PER_THREAD 16

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

/* The block's sum, in thread 0 (every thread of the block must call it). */
__device__ __forceinline__ float block_sum(float v)
{
    __shared__ float warp_sums[WARPS];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    v = 0.0f;
    if (warp == 0) {
        v = lane < WARPS ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
    }
    return v;
}

__global__ void reduce_warp_shuffle(const float *in, float *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * (PER_THREAD * THREADS) + threadIdx.x;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; k += 2) {
        size_t at = i + (size_t)k * THREADS;
        if (at < n)
            sum += in[at];
        if (at + THREADS < n)
            sum += in[at + THREADS];
    }
    sum = block_sum(sum);
    if (threadIdx.x == 0)
        atomicAdd(out, sum);
}

static void *scratch;
static size_t scratch_bytes;

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct reduce_problem *p = (const struct reduce_problem *)problem;
    size_t need = 0;
    cudaError_t status = cub::DeviceReduce::Sum(nullptr, need, p->in, p->out, (long long)p->n, stream);
    if (status != cudaSuccess)
        return status;
    if (need > scratch_bytes) {
        if (scratch != nullptr && ((status = cudaDeviceSynchronize()) != cudaSuccess ||
                                   (status = cudaFree(scratch)) != cudaSuccess))
            return status;
        scratch = nullptr;
        scratch_bytes = 0;
        if ((status = cudaMalloc(&scratch, need)) != cudaSuccess)
            return status;
        scratch_bytes = need;
    }
    status = cub::DeviceReduce::Sum(scratch, scratch_bytes, p->in, p->out, (long long)p->n, stream);
    return status != cudaSuccess ? status : cudaGetLastError();
}

DEFINE_STEP(reduce_warp_shuffle, THREADS, 0, launch);

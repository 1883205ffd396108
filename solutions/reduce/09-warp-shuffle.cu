/* Step 09: warp sums with shuffles instead of shared memory.
 * Guide: labs/reduce/README.md#steps-09-12--shuffles-float4-a-resident-grid-one-fixed-order-pass
 *
 * What changed from step 08: the tree is no longer in shared memory. Each warp adds
 * its 32 values in registers with __shfl_down_sync (offsets 16, 8, 4, 2, 1: lane i
 * reads lane i + offset's register); lane 0 of each warp writes the warp's sum to
 * shared memory (8 floats for 256 threads); after one barrier the first warp adds
 * those 8 the same way. One __syncthreads() instead of four, no volatile tail.
 * Why: a shuffle moves a register between the lanes of a warp in one instruction
 * (SHFL.DOWN in the SASS), with no shared-memory store and load around it, and the
 * _sync variant names the lanes taking part (the full mask): it is correct under
 * Volta's independent thread scheduling by construction, where step 06's tail needed
 * __syncwarp() between every load and store.
 * Expect: a small gain at most: after step 08 the tree was already a small share of
 * the time. The shared memory per block drops from 1 KB to 32 bytes.
 * Run:  make run LAB=reduce STEP=09 */
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

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct reduce_problem *p = (const struct reduce_problem *)problem;
    size_t blocks = (p->n + PER_THREAD * THREADS - 1) / (PER_THREAD * THREADS);
    dim3 grid((unsigned)(blocks < 0xFFFFFFFFu ? blocks : 0xFFFFFFFFu));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    if ((status = cudaMemsetAsync(p->out, 0, sizeof(float), stream)) != cudaSuccess)
        return status;
    reduce_warp_shuffle<<<grid, THREADS, 0, stream>>>(p->in, p->out, p->n);
    return cudaGetLastError();
}

DEFINE_STEP(reduce_warp_shuffle, THREADS, 0, launch);

/* Step 10: 16-byte vector loads.   *** YOUR TURN ***
 * Guide: labs/reduce/README.md#steps-09-12--shuffles-float4-a-resident-grid-one-fixed-order-pass
 *
 * What changed from step 09: the input is read as float4: each block covers 1024
 * float4 (4096 floats, as before), each thread loads 4 of them, 256 float4 apart, and
 * adds their 16 floats. The n % 4 floats past the last whole float4 are loaded
 * singly by the thread whose float4 would hold them.
 * Why: one LDG.E.128 instead of four LDG.E: a quarter of the load instructions and of
 * the memory requests for the same bytes; each warp's request is 512 contiguous bytes
 * (4 full 128-byte lines). Reading in + 4i as a float4 needs in to be 16-byte aligned:
 * cudaMalloc's 256-byte alignment gives it (reduce.h).
 * Expect: a gain where the load instructions were the limit; ncu's
 * l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / ...requests... goes from 4 sectors
 * per request to 16.
 * Run:  make run LAB=reduce STEP=10
 *
 * This file is step 09's solution with this step's kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
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

/* TODO (step 10). Read const float4 *in4 = (const float4 *)in: each block covers VECTORS * THREADS
 * float4 (VECTORS 4), each thread loads 4 of them, THREADS apart. The n % 4 floats
 * after the last whole float4 are added by the thread whose float4 index is n / 4. */

__global__ void reduce_vector_loads(const float *in, float *out, size_t n)
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
    reduce_vector_loads<<<grid, THREADS, 0, stream>>>(p->in, p->out, p->n);
    return cudaGetLastError();
}

STEP_TODO("read the input as float4 (16-byte loads); the last n % 4 floats singly");
DEFINE_STEP(reduce_vector_loads, THREADS, 0, launch);

/* Step 11: a grid sized to the GPU, each thread striding over the whole array.   *** YOUR TURN ***
 * Guide: labs/reduce/README.md#steps-09-12--shuffles-float4-a-resident-grid-one-fixed-order-pass
 *
 * What changed from step 10: the grid is no longer n / 4096 blocks but as many as
 * the GPU holds at once: SMs x blocks per SM (the occupancy API, asked once), or
 * fewer when n is small. Thread t of the grid reads float4 t, t + stride, t + 2
 * stride, ... (stride = every thread of the grid), so each block reads a slice of
 * every part of the array, and each thread adds as many float4 as it takes.
 * Why: with one block per 4096 floats, a 2^28-float input launched 65536 blocks, each
 * with its own start-up, tree, barrier and atomicAdd, and a last wave of blocks that
 * leaves most SMs idle. A resident grid pays for the tree and the atomic once per
 * block, about a thousand times in all, whatever n is, and has no tail wave.
 * Expect: about step 10's rate at large n (both near the copy bandwidth), better
 * where a partial last wave of blocks mattered; each thread now runs a loop, so its
 * loads are only as independent as the loop lets them be (step 13).
 * Run:  make run LAB=reduce STEP=11
 *
 * This file is step 10's solution with this step's kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "reduce.h"
#include "step_kernel.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#define VECTORS 4 /* float4 loads per thread */

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

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

/* TODO (step 11). Launch p->sms * (blocks per SM from cudaOccupancyMaxActiveBlocksPerMultiprocessor)
 * blocks (fewer when n is small) and let each thread loop: for (at = its index;
 * at < n / 4; at += gridDim.x * THREADS). */

__global__ void reduce_grid_stride(const float *in, float *out, size_t n)
{
    const float4 *in4 = (const float4 *)in;
    size_t n4 = n / 4; /* whole float4 */
    size_t v = (size_t)blockIdx.x * (VECTORS * THREADS) + threadIdx.x;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < VECTORS; ++k) {
        size_t at = v + (size_t)k * THREADS;
        if (at < n4) {
            float4 q = in4[at];
            sum += (q.x + q.y) + (q.z + q.w);
        } else if (at == n4) { /* the last n % 4 floats */
            for (size_t j = 4 * n4; j < n; ++j)
                sum += in[j];
        }
    }
    sum = block_sum(sum);
    if (threadIdx.x == 0)
        atomicAdd(out, sum);
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct reduce_problem *p = (const struct reduce_problem *)problem;
    size_t per_block = 4 * VECTORS * THREADS;
    size_t blocks = (p->n + per_block - 1) / per_block;
    dim3 grid((unsigned)(blocks < 0xFFFFFFFFu ? blocks : 0xFFFFFFFFu));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    if ((status = cudaMemsetAsync(p->out, 0, sizeof(float), stream)) != cudaSuccess)
        return status;
    reduce_grid_stride<<<grid, THREADS, 0, stream>>>(p->in, p->out, p->n);
    return cudaGetLastError();
}

STEP_TODO("a grid of SMs x blocks per SM, each thread striding over the whole array");
DEFINE_STEP(reduce_grid_stride, THREADS, 0, launch);

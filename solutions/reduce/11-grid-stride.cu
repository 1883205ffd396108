/* Step 11: a grid sized to the GPU, each thread striding over the whole array.
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
 * Run:  make run LAB=reduce STEP=11 */
#include "reduce.h"
#include "step_kernel.h"

#define THREADS 256
#define WARPS (THREADS / 32)

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

__global__ void reduce_grid_stride(const float *in, float *out, size_t n)
{
    const float4 *in4 = (const float4 *)in;
    size_t n4 = n / 4;
    size_t first = (size_t)blockIdx.x * THREADS + threadIdx.x;
    size_t stride = (size_t)gridDim.x * THREADS;
    float sum = 0.0f;
    for (size_t at = first; at < n4; at += stride) {
        float4 q = in4[at];
        sum += (q.x + q.y) + (q.z + q.w);
    }
    if (first < n - 4 * n4) /* the last n % 4 floats, one per thread */
        sum += in[4 * n4 + first];
    sum = block_sum(sum);
    if (threadIdx.x == 0)
        atomicAdd(out, sum);
}

/* Blocks of THREADS that fit on one SM at once, asked of the runtime once. */
static int blocks_per_sm(void)
{
    static int blocks;
    if (blocks == 0 &&
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reduce_grid_stride, THREADS, 0) !=
            cudaSuccess)
        blocks = 0;
    return blocks;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct reduce_problem *p = (const struct reduce_problem *)problem;
    int resident = blocks_per_sm();
    if (resident <= 0)
        return step_refuse_launch("the occupancy API found no room for one block of this step");
    size_t blocks = (size_t)p->sms * (size_t)resident;
    size_t needed = (p->n / 4 + THREADS - 1) / THREADS; /* no block without a float4 */
    if (needed < blocks)
        blocks = needed > 0 ? needed : 1;
    dim3 grid((unsigned)blocks);
    cudaError_t status;
    if ((status = cudaMemsetAsync(p->out, 0, sizeof(float), stream)) != cudaSuccess)
        return status;
    reduce_grid_stride<<<grid, THREADS, 0, stream>>>(p->in, p->out, p->n);
    return cudaGetLastError();
}

DEFINE_STEP(reduce_grid_stride, THREADS, 0, launch);

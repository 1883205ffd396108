/* Step 12: one pass, the last block to finish adds the block sums (no atomicAdd on   *** YOUR TURN ***
 * the sum).
 * Guide: labs/reduce/README.md#steps-09-12--shuffles-float4-a-resident-grid-one-fixed-order-pass
 *
 * What changed from step 11: each block writes its sum to partial[blockIdx.x]
 * instead of atomicAdd-ing it into the total; then __threadfence() (the sum is
 * visible to the whole GPU before what follows), and thread 0 takes a ticket with
 * atomicAdd(counter, 1). The block that draws the last ticket knows every other sum
 * is written: it adds partial[0 .. gridDim) in a fixed order (each thread a strided
 * share, then the block's shuffle tree), writes the total, and sets the counter back
 * to zero for the next launch. The launch no longer zeroes the total: one kernel, no
 * memset.
 * Why: the atomicAdd of steps 04-11 adds the block sums in whatever order the blocks
 * finish: on data whose sums round, the bits change from run to run. Here the order
 * of every addition is fixed by the code, so the same input gives the same bits every
 * run (the determinism check holds it to that), still in one launch. This is the
 * pattern of the CUDA samples' threadFenceReduction; CUB's single-pass reductions
 * make the same trade.
 * Expect: the speed of step 11 (one extra pass over about a thousand floats, by one
 * block), with a deterministic result.
 * Run:  make run LAB=reduce STEP=12
 *
 * This file is step 11's solution with this step's kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
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

/* TODO (step 12). Each block writes its sum to partial[blockIdx.x], __threadfence(), and thread 0 takes
 * a ticket atomicAdd(counter, 1). The block with ticket gridDim.x - 1 adds
 * partial[0 .. gridDim.x) (read with __ldcg), writes *out, and sets *counter = 0.
 * No cudaMemsetAsync any more. */

__global__ void reduce_last_block(const float *in, float *out, size_t n)
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
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reduce_last_block, THREADS, 0) !=
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
    reduce_last_block<<<grid, THREADS, 0, stream>>>(p->in, p->out, p->n);
    return cudaGetLastError();
}

STEP_TODO("block sums to p->partial, the last block (atomicAdd ticket on p->counter) adds them in order");
DEFINE_STEP(reduce_last_block, THREADS, 0, launch);

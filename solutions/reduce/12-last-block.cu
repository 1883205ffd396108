/* Step 12: one pass, the last block to finish adds the block sums (no atomicAdd on
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
 * Run:  make run LAB=reduce STEP=12 */
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

__global__ void reduce_last_block(const float *in, float *out, size_t n, float *partial,
                                  unsigned int *counter)
{
    __shared__ bool last;
    const float4 *in4 = (const float4 *)in;
    size_t n4 = n / 4;
    size_t first = (size_t)blockIdx.x * THREADS + threadIdx.x;
    size_t stride = (size_t)gridDim.x * THREADS;
    float sum = 0.0f;
    for (size_t at = first; at < n4; at += stride) {
        float4 q = in4[at];
        sum += (q.x + q.y) + (q.z + q.w);
    }
    if (first < n - 4 * n4)
        sum += in[4 * n4 + first];
    sum = block_sum(sum);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sum;
        __threadfence(); /* the sum reaches L2 before the ticket is taken */
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    /* the last block: every block's sum is written; add them in a fixed order
     * (__ldcg reads L2, past this SM's L1, which may hold nothing of them anyway) */
    float total = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += THREADS)
        total += __ldcg(&partial[b]);
    total = block_sum(total); /* the barrier above ended the first tree's reads */
    if (threadIdx.x == 0) {
        *out = total;
        *counter = 0; /* ready for the next launch */
    }
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
    size_t needed = (p->n / 4 + THREADS - 1) / THREADS;
    if (needed < blocks)
        blocks = needed > 0 ? needed : 1;
    if (blocks > p->partial_capacity)
        return step_refuse_launch("the block sums do not fit the scratch array");
    reduce_last_block<<<(unsigned)blocks, THREADS, 0, stream>>>(p->in, p->out, p->n, p->partial,
                                                                p->counter);
    return cudaGetLastError();
}

DEFINE_STEP(reduce_last_block, THREADS, 0, launch);

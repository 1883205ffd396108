/* tests/submissions/never-finishes: a deliberately wrong step 12 of the reduction lab
 * for the grading tests (harness/labs/reduce/tests, tests/verify-on-gpu.sh grading).
 *
 * Never finishes: the first block to finish (not the last) takes the job of adding
 * the block sums, and spins until the ticket counter reaches gridDim.x + 1, which it
 * never does (gridDim.x tickets are taken in all). The kernel spins forever; grading
 * kills it at the time limit and goes on; the GPU stays usable.
 * Expect: correct FAIL (did not finish within the limit), sanitizers not run.
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
        last = atomicAdd(counter, 1u) == 0; /* the first block to finish waits for the rest */
        if (last) /* ...counting to gridDim.x, though the counter never passes gridDim.x - 1 */
            while (atomicAdd(counter, 0u) < gridDim.x + 1)
                ;
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

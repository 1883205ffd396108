/* Step 13: tuned: several independent 16-byte loads in flight per thread, and the   *** YOUR TURN ***
 * block shape chosen by measurement.
 * Guide: labs/reduce/README.md#step-13--tuned
 *
 * What changed from step 12: each iteration of a thread's loop issues REDUCE_LOADS
 * float4 loads (stride apart) into separate registers before adding any of them, and
 * then sums them; the loop runs while a whole group fits, and a second loop takes
 * the float4 left over one at a time. The kernel carries __launch_bounds__ so the
 * compiler keeps the registers to what REDUCE_BLOCKS_PER_SM blocks of REDUCE_THREADS
 * allow. All three are build variables (lab.mk: make run LAB=reduce STEP=13
 * SRC=solutions REDUCE_LOADS=8), recorded in the CSV's flags column.
 * Why: DRAM bandwidth is latency times bytes in flight (Little's law): an H100 needs
 * several MB in flight to stream at full rate, tens of KB per SM. In step 12's loop
 * a thread's next load waits for nothing, but the compiler does not move loads
 * across iterations, so each thread has one float4 (16 B) outstanding; with four
 * issued back to back it has 64 B, and the SMs keep the memory busy with fewer
 * resident warps.
 * Expect: the copy bandwidth (the goal: at least 0.95x CUB's DeviceReduce::Sum at
 * 2^28 floats in the same run). Deterministic, as step 12.
 * Run:  make run LAB=reduce STEP=13
 *
 * This file is step 12's solution with this step's kernel name: it runs and is
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

/* TODO (step 13). In the loop, issue REDUCE_LOADS (4) float4 loads, stride apart, into an array of
 * registers before adding any of them; a second loop takes what is left. Then time
 * 256, 512 and 1024 threads per block and 2, 4 and 8 loads (lab.mk's variables). */

__global__ void reduce_tuned(const float *in, float *out, size_t n, float *partial,
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
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reduce_tuned, THREADS, 0) !=
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
    reduce_tuned<<<(unsigned)blocks, THREADS, 0, stream>>>(p->in, p->out, p->n, p->partial,
                                                                p->counter);
    return cudaGetLastError();
}

STEP_TODO("several independent float4 loads in flight per thread; block shape chosen by measurement");
DEFINE_STEP(reduce_tuned, THREADS, 0, launch);

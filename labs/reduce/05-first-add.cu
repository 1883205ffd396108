/* Step 05: first add during the global load (Harris's kernel 4).   *** YOUR TURN ***
 * Guide: labs/reduce/README.md#steps-05-07--first-add-unrolled-last-warp-complete-unroll-harris-4-6
 *
 * What changed from step 04: each block covers 2 x 256 elements; each thread loads
 * two, 256 apart (both loads coalesced), and stores their sum to shared memory. The
 * grid has half as many blocks.
 * Why: in step 04 half the threads went idle at the first level of the tree; now
 * every thread adds once before the tree starts, and there are half as many blocks
 * (and atomics) for the same data.
 * Expect: on the 8800 GTX, 1.78x (Harris, over his kernel 3). Here, with half the
 * atomics of step 04, close to twice step 04: the atomics still set the pace (one per
 * 512 floats). On the 8800 GTX the tree itself was now the cost: each of its 8 levels
 * ends at a barrier, and the last five run one partly busy warp (ncu's warp stall
 * reasons: smsp__pcsamp_warps_issue_stalled_barrier).
 * Run:  make run LAB=reduce STEP=05
 *
 * This file is step 04's solution with this step's kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "reduce.h"
#include "step_kernel.h"

#define THREADS 256

/* TODO (step 05). Each block covers 2 * THREADS elements: thread tid loads in[i] and in[i + THREADS]
 * (i = blockIdx.x * 2 * THREADS + tid, each checked against n) and stores their sum.
 * The grid shrinks to (n + 2 * THREADS - 1) / (2 * THREADS) blocks. */

__global__ void reduce_first_add(const float *in, float *out, size_t n)
{
    __shared__ float sdata[THREADS];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * THREADS + tid; /* n may pass 2^31: size_t */
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        atomicAdd(out, sdata[0]);
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct reduce_problem *p = (const struct reduce_problem *)problem;
    size_t blocks = (p->n + THREADS - 1) / THREADS;
    dim3 grid((unsigned)(blocks < 0xFFFFFFFFu ? blocks : 0xFFFFFFFFu));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    if ((status = cudaMemsetAsync(p->out, 0, sizeof(float), stream)) != cudaSuccess)
        return status;
    reduce_first_add<<<grid, THREADS, 0, stream>>>(p->in, p->out, p->n);
    return cudaGetLastError();
}

STEP_TODO("each thread adds two elements, THREADS apart, while loading; half the blocks");
DEFINE_STEP(reduce_first_add, THREADS, 0, launch);

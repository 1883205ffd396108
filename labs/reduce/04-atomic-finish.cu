/* Step 04: the block sums finished with atomicAdd (Nickolls and Kirk's figure   *** YOUR TURN ***
 * B.8.9, "CUDA implementation of plus-reduction").
 * Guide: labs/reduce/README.md#step-04--atomic-finish-appendix-b8-figure-b89
 *
 * What changed from step 03: the kernel is step 03's (sequential addressing), but
 * thread 0 of each block adds the block's sum straight into the total with
 * atomicAdd(out, sum), instead of writing it to a scratch array for another launch.
 * The launch zeroes the total first (cudaMemsetAsync), then runs one kernel.
 * Where it comes from: figure B.8.9 of Nickolls and Kirk's appendix B ("Scan and
 * Reduction", B.8) is exactly Harris's kernel 3 with this ending, written for ints
 * (it calls atomicAdd "an efficient atomic read-modify-write primitive supported by
 * the memory subsystem"); here in float, with a size_t index (the figure's unsigned
 * int index wraps past 2^32 elements).
 * Why: the second, third... launches of steps 01-03 each cost a launch and a pass
 * over a few thousand sums; one atomic per block replaces them all.
 * Expect: better at small n, where the launches of steps 01-03 dominate; at large n,
 * slower than step 03: every block's atomicAdd goes to the same address, and the L2
 * slice that owns it performs them one after another (n / 256 of them: a million at
 * 2^28 floats). That, not the memory, is now the limit: ncu shows the kernel far from
 * the DRAM's bandwidth with warps stalled at the atomic (lts__t_requests_op_red).
 * Steps 05 and 08 cut the number of blocks, and so of atomics. The other price: the
 * blocks' sums arrive in whatever order the blocks finish, so on data whose additions
 * round the bits can change from run to run (the distinct_sums column; the lab's own
 * inputs never round).
 * Run:  make run LAB=reduce STEP=04
 *
 * This file is step 03's solution with this step's kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "reduce.h"
#include "step_kernel.h"

#define THREADS 256

/* TODO (step 04). Thread 0 adds the block's sum into the total with atomicAdd(out, sdata[0]); the
 * launch zeroes *out with cudaMemsetAsync first and runs the kernel once over n
 * (the scratch array and the loop over levels go). */

__global__ void reduce_atomic_finish(const float *in, float *out, size_t n)
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
        out[blockIdx.x] = sdata[0];
}

/* One launch per level: n elements, then n/256 block sums, ... until one block
 * writes the total into p->out. Each level's sums go to the next free part of the
 * scratch array, so no launch overwrites what it reads. */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct reduce_problem *p = (const struct reduce_problem *)problem;
    const float *from = p->in;
    float *scratch = p->partial;
    size_t count = p->n;
    for (;;) {
        size_t blocks = (count + THREADS - 1) / THREADS;
        dim3 grid((unsigned)(blocks < 0xFFFFFFFFu ? blocks : 0xFFFFFFFFu));
        cudaError_t fits = step_check_grid(grid);
        if (fits != cudaSuccess)
            return fits;
        if (blocks > 1 && scratch + blocks > p->partial + p->partial_capacity)
            return step_refuse_launch("the block sums do not fit the scratch array");
        float *to = blocks == 1 ? p->out : scratch;
        reduce_atomic_finish<<<grid, THREADS, 0, stream>>>(from, to, count);
        cudaError_t status = cudaGetLastError();
        if (status != cudaSuccess || blocks == 1)
            return status;
        from = to;
        scratch += blocks;
        count = blocks;
    }
}

STEP_TODO("finish with atomicAdd(out, block sum) in one launch instead of one launch per level");
DEFINE_STEP(reduce_atomic_finish, THREADS, 0, launch);

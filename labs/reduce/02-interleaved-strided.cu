/* Step 02: interleaved addressing with a strided index (Harris's kernel 2).   *** YOUR TURN ***
 * Guide: labs/reduce/README.md#steps-01-03--the-tree-in-shared-memory-harris-1-3
 *
 * What changed from step 01: the same pairs are added, but by the first threads of
 * the block: thread tid handles index = 2*s*tid, so at level s the busy threads are
 * 0 .. 256/(2s) - 1, packed into as few warps as possible. No modulo.
 * Why: step 01 kept every warp running while most of its lanes idled; now whole warps
 * drop out as the levels go on, and the ones left do full work.
 * Expect: on the 8800 GTX, 2.33x step 01 (Harris). The new cost is shared-memory
 * bank conflicts: at level s the warp's 32 lanes touch addresses 2s floats apart, so
 * 2s lanes share a bank (32 banks of 4 bytes): ncu's
 * l1tex__data_bank_conflicts_pipe_lsu_mem_shared shows them. On a modern GPU, whose
 * scheduler skips idle lanes cheaply, the conflicts can cost more than the divergence
 * saved: this step may be slower than step 01 (the table says). Step 03 removes them.
 * Run:  make run LAB=reduce STEP=02
 *
 * This file is step 01's solution with this step's kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "reduce.h"
#include "step_kernel.h"

#define THREADS 256

/* TODO (step 02). In the tree loop, let thread tid add the pair at index = 2 * s * tid:
 *     unsigned index = 2 * s * tid;
 *     if (index < THREADS) sdata[index] += sdata[index + s];
 * The same pairs as before, now done by threads 0, 1, 2, ... Then count the bank
 * conflicts with ncu (l1tex__data_bank_conflicts_pipe_lsu_mem_shared). */

__global__ void reduce_interleaved_strided(const float *in, float *out, size_t n)
{
    __shared__ float sdata[THREADS];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * THREADS + tid; /* n may pass 2^31: size_t */
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < THREADS; s *= 2) {
        if (tid % (2 * s) == 0)
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
        reduce_interleaved_strided<<<grid, THREADS, 0, stream>>>(from, to, count);
        cudaError_t status = cudaGetLastError();
        if (status != cudaSuccess || blocks == 1)
            return status;
        from = to;
        scratch += blocks;
        count = blocks;
    }
}

STEP_TODO("replace tid % (2*s) == 0 by a strided index: index = 2*s*tid, if (index < THREADS)");
DEFINE_STEP(reduce_interleaved_strided, THREADS, 0, launch);

/* Step 01: interleaved addressing with a divergent branch (Harris's kernel 1).
 * Guide: labs/reduce/README.md#steps-01-03--the-tree-in-shared-memory-harris-1-3
 *
 * What: each block of 256 threads loads 256 elements into shared memory and adds
 * them pairwise in a tree: at level s (1, 2, 4, ...) every thread whose index is a
 * multiple of 2s adds the element s to its right. Thread 0 writes the block's sum
 * to the scratch array; the launch then reduces the block sums the same way, one
 * launch per level, until one block writes the total.
 * Why: the tree is the parallel shape of a sum: log2(256) = 8 levels instead of 255
 * dependent additions, and shared memory is where a block's threads meet.
 * Expect: far below the memory's bandwidth. `tid % (2*s) == 0` keeps every second,
 * fourth, eighth... thread busy: each warp stays active while most of its threads
 * idle (divergence), the modulo is slow, and every level waits at a barrier. The
 * appendix of Nickolls and Kirk (figure B.8.9) reaches the same tree with sequential
 * addressing; steps 02 and 03 get there.
 * Run:  make run LAB=reduce STEP=01    (bin/reduce/01-interleaved-divergent --n 1000003) */
#include "reduce.h"
#include "step_kernel.h"

#define THREADS 256

__global__ void reduce_interleaved_divergent(const float *in, float *out, size_t n)
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
        reduce_interleaved_divergent<<<grid, THREADS, 0, stream>>>(from, to, count);
        cudaError_t status = cudaGetLastError();
        if (status != cudaSuccess || blocks == 1)
            return status;
        from = to;
        scratch += blocks;
        count = blocks;
    }
}

DEFINE_STEP(reduce_interleaved_divergent, THREADS, 0, launch);

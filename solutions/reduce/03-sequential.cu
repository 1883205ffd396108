/* Step 03: sequential addressing (Harris's kernel 3; the tree of Nickolls and Kirk's
 * appendix B.8, figure B.8.9).
 * Guide: labs/reduce/README.md#steps-01-03--the-tree-in-shared-memory-harris-1-3
 *
 * What changed from step 02: the tree is folded the other way: at level s, from
 * blockDim/2 down to 1, thread tid < s adds sdata[tid + s] to sdata[tid]. The busy
 * threads are still the first ones, and a warp now reads 32 consecutive floats.
 * Why: 32 consecutive floats lie in 32 different banks: no bank conflicts, and no
 * divergence inside a warp until fewer than 32 threads are busy.
 * Expect: faster than step 02 (Harris: 2.01x on the 8800 GTX). Half the threads still
 * do nothing after the load: at the first level only 128 of 256 add. Step 05 puts
 * them to work.
 * Run:  make run LAB=reduce STEP=03 */
#include "reduce.h"
#include "step_kernel.h"

#define THREADS 256

__global__ void reduce_sequential(const float *in, float *out, size_t n)
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
        reduce_sequential<<<grid, THREADS, 0, stream>>>(from, to, count);
        cudaError_t status = cudaGetLastError();
        if (status != cudaSuccess || blocks == 1)
            return status;
        from = to;
        scratch += blocks;
        count = blocks;
    }
}

DEFINE_STEP(reduce_sequential, THREADS, 0, launch);

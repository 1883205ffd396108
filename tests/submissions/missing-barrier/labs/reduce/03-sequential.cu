/* tests/submissions/missing-barrier: a deliberately wrong step 03 of the reduction lab
 * for the grading tests (harness/labs/reduce/tests, tests/verify-on-gpu.sh grading).
 *
 * A missing barrier: the __syncthreads() at the end of each level of the tree is gone,
 * so a warp of the first half reads sdata[tid + s] before the warp that writes it has
 * added its own level (levels above 32 span several warps). Whether the sum comes out
 * wrong depends on timing; racecheck finds the shared-memory hazard every time.
 * Expect: racecheck FAIL; correct may pass or fail.
 */
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

/* Step 07: the whole tree unrolled for a block size known at compile time (Harris's   *** YOUR TURN ***
 * kernel 6).
 * Guide: labs/reduce/README.md#steps-05-07--first-add-unrolled-last-warp-complete-unroll-harris-4-6
 *
 * What changed from step 06: the block size is a template parameter, BLOCK, of the
 * tree (block_tree<BLOCK>), and every level is written out under `if (BLOCK >= 2s)`:
 * for BLOCK = 256 the compiler keeps levels 128, 64 and the warp tail, and drops
 * the loop, its counter and its tests. Harris's launch switches over the ten block
 * sizes from 512 down to 1, one instantiation each; this lab runs one, 256.
 * Why: with the loop gone the tree is straight-line code: no loop counter, no branch
 * back, no shift per level.
 * Expect: on the 8800 GTX, 1.41x step 06 (Harris); here, as for step 06, the same
 * time while the atomics set the pace. Each thread still reads only two elements and
 * each block still ends with an atomic: step 08 fixes both.
 * Run:  make run LAB=reduce STEP=07
 *
 * This file is step 06's solution with this step's kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "reduce.h"
#include "step_kernel.h"

#define THREADS 256

/* The last six levels in the first warp: sdata[0..63] -> sdata[0]. */
__device__ __forceinline__ void warp_tail(volatile float *sdata, unsigned tid)
{
    float v = sdata[tid];
    v += sdata[tid + 32]; __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 16]; __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 8];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 4];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 2];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 1];  __syncwarp(); sdata[tid] = v;
}

/* TODO (step 07). Write the tree as template <unsigned BLOCK> block_tree(sdata, tid): one level per
 * `if (BLOCK >= 2s) { if (tid < s) sdata[tid] += sdata[tid + s]; __syncthreads(); }`,
 * then the warp tail, and call block_tree<THREADS>. */

__global__ void reduce_complete_unroll(const float *in, float *out, size_t n)
{
    __shared__ float sdata[THREADS];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * THREADS) + tid;
    float sum = i < n ? in[i] : 0.0f;
    if (i + THREADS < n)
        sum += in[i + THREADS];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = THREADS / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32)
        warp_tail(sdata, tid);
    if (tid == 0)
        atomicAdd(out, sdata[0]);
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct reduce_problem *p = (const struct reduce_problem *)problem;
    size_t blocks = (p->n + 2 * THREADS - 1) / (2 * THREADS);
    dim3 grid((unsigned)(blocks < 0xFFFFFFFFu ? blocks : 0xFFFFFFFFu));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    if ((status = cudaMemsetAsync(p->out, 0, sizeof(float), stream)) != cudaSuccess)
        return status;
    reduce_complete_unroll<<<grid, THREADS, 0, stream>>>(p->in, p->out, p->n);
    return cudaGetLastError();
}

STEP_TODO("unroll the whole tree with the block size as a template parameter (block_tree<THREADS>)");
DEFINE_STEP(reduce_complete_unroll, THREADS, 0, launch);

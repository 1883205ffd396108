/* Step 06: the last warp unrolled (Harris's kernel 5), made correct for Volta and   *** YOUR TURN ***
 * later with __syncwarp().
 * Guide: labs/reduce/README.md#steps-05-07--first-add-unrolled-last-warp-complete-unroll-harris-4-6
 *
 * What changed from step 05: the tree's loop stops when 32 threads are left
 * (s > 32); the last six levels (64 -> 1 values) are written out for the first warp
 * alone, with no __syncthreads() and no `if (tid < s)`.
 * Why: once one warp is left, a block-wide barrier is wasted: a warp's lanes can
 * wait for one another with __syncwarp(), which costs next to nothing.
 * The trick that is wrong since Volta: Harris (2007) wrote the tail as
 *     volatile float *v = sdata; v[tid] += v[tid + 32]; v[tid] += v[tid + 16]; ...
 * with no synchronisation at all, trusting that a warp's 32 lanes run in lockstep.
 * Volta (2017) gave every thread its own program counter (independent thread
 * scheduling): a warp's lanes may now be at different instructions, so lane 0 may
 * read v[16] before lane 16 has added v[48] into it. `volatile` only keeps the
 * compiler from caching v[] in registers; it orders nothing between lanes. That is a
 * data race (compute-sanitizer --tool racecheck reports it), and wrong sums when the
 * lanes do drift apart. The fix (CUDA 9's "Using CUDA Warp-Level Primitives"):
 * read into a register, __syncwarp(), write, __syncwarp(), every level.
 * Expect: on the 8800 GTX, 1.8x step 05 (Harris). Here the same time as step 05
 * while the atomics (one per 512 floats, as in step 05) set the pace: a cheaper tree
 * does not show until step 08 removes most of them. Step 09 replaces this
 * shared-memory tail with register shuffles.
 * Run:  make run LAB=reduce STEP=06
 *
 * This file is step 05's solution with this step's kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "reduce.h"
#include "step_kernel.h"

#define THREADS 256

/* TODO (step 06). Stop the loop at s > 32 and let the first warp (tid < 32) do the last six levels
 * without __syncthreads(): v = sdata[tid]; v += sdata[tid + 32]; __syncwarp();
 * sdata[tid] = v; __syncwarp(); ... down to + 1, through a volatile pointer. Try it
 * without the __syncwarp() calls under compute-sanitizer --tool racecheck. */

__global__ void reduce_unroll_last_warp(const float *in, float *out, size_t n)
{
    __shared__ float sdata[THREADS];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * THREADS) + tid;
    float sum = i < n ? in[i] : 0.0f;
    if (i + THREADS < n)
        sum += in[i + THREADS];
    sdata[tid] = sum;
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
    size_t blocks = (p->n + 2 * THREADS - 1) / (2 * THREADS);
    dim3 grid((unsigned)(blocks < 0xFFFFFFFFu ? blocks : 0xFFFFFFFFu));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    if ((status = cudaMemsetAsync(p->out, 0, sizeof(float), stream)) != cudaSuccess)
        return status;
    reduce_unroll_last_warp<<<grid, THREADS, 0, stream>>>(p->in, p->out, p->n);
    return cudaGetLastError();
}

STEP_TODO("unroll the last warp: loop while s > 32, then a warp_tail with volatile and __syncwarp()");
DEFINE_STEP(reduce_unroll_last_warp, THREADS, 0, launch);

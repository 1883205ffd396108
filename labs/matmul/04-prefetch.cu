/* Step 04 - prefetching: the next tiles are loaded while this one is used.   *** YOUR TURN ***
 * Guide: labs/matmul/README.md#step-04--prefetch
 *
 * What changed from 03: each thread loads its elements of the *next* A and B tiles
 * from global memory into two registers before it starts on the multiply-adds of the
 * current tiles, and only stores them into shared memory at the top of the next
 * iteration. The loop is rotated: load tile 0 into registers before the loop; in
 * the loop, registers -> shared memory, barrier, issue the loads of tile t + 1,
 * compute on tile t, barrier.
 * Why: in step 03 a warp that has loaded its tile waits at the barrier, and then the
 * whole block computes with no loads in flight. Here the global loads of tile t + 1
 * are in flight during the 16 multiply-adds of tile t, so one warp can hide its own
 * load latency, not only rely on other warps doing so.
 * Expect: two more registers per thread (the prefetched values). On the 8800 GTX that
 * was the lesson: 11 registers instead of 9 cost a block (2 instead of 3 per SM), and
 * the step ran slower, 87.10 against 91.14 GFLOP/s (PPoPP'08). On an H100 the extra
 * registers cost nothing (8 blocks per SM, limited by threads, with 64 registers
 * to spare), and with many resident warps the latency was mostly hidden anyway:
 * expect a small gain or none.
 * Run:  make run LAB=matmul STEP=04
 *
 * This file is step 03's solution with the new kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "matmul.h"
#include "step_kernel.h"

#define TILE 16

/* TODO (step 04). Prefetch the next tiles into registers:
 *  1. Before the loop, load this thread's element of the first A tile and of the
 *     first B tile into two registers, a_next and b_next (0.0f outside the matrices,
 *     the same guards as now with t = 0).
 *  2. At the top of the loop, store a_next and b_next into a_tile[ty][tx] and
 *     b_tile[ty][tx] instead of reading global memory there.
 *  3. Right after the first __syncthreads(), load the elements of the *next* tiles
 *     (k offset u = t + TILE) into a_next and b_next, with the same guards (u + tx < k,
 *     u + ty < k). Nothing uses them until the next iteration, so the loads are in
 *     flight during the 16 multiply-adds.
 *  4. Keep the unrolled inner loop and both barriers as they are.
 * Count the registers afterwards (make report): the G80 lost a block per SM here. */

__global__ void matmul_prefetch(const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;

    float sum = 0.0f;
    for (int t = 0; t < k; t += TILE) {
        a_tile[ty][tx] = (row < m && t + tx < k) ? a[(size_t)row * k + t + tx] : 0.0f;
        b_tile[ty][tx] = (t + ty < k && col < n) ? b[(size_t)(t + ty) * n + col] : 0.0f;
        __syncthreads();

#pragma unroll /* TILE is a constant: all 16 iterations are written out */
        for (int i = 0; i < TILE; ++i)
            sum += a_tile[ty][i] * b_tile[i][tx];
        __syncthreads();
    }
    if (row < m && col < n)
        c[(size_t)row * n + col] = sum;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    dim3 block(TILE, TILE);
    dim3 grid((unsigned)((p->n + TILE - 1L) / TILE), (unsigned)((p->m + TILE - 1L) / TILE));
    cudaError_t fits = step_check_grid(grid); /* refuse, rather than fail, a grid too large */
    if (fits != cudaSuccess)
        return fits;
    matmul_prefetch<<<grid, block, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    return cudaGetLastError();
}

STEP_TODO("load the next tiles into registers while computing on the current ones");
DEFINE_STEP(matmul_prefetch, TILE * TILE, 0, launch);

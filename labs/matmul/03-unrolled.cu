/* Step 03 - tiled, with the inner loop fully unrolled.   *** YOUR TURN ***
 * Guide: labs/matmul/README.md#step-03--unrolled
 *
 * What changed from 02: `#pragma unroll` on the 16-iteration inner loop, so the
 * compiler writes out all 16 multiply-adds with constant shared-memory offsets.
 * The tile side is fixed at 16 again (a compile-time constant is what makes full
 * unrolling possible).
 * Why: in a rolled loop every multiply-add comes with a counter increment, a compare,
 * a branch and address arithmetic. Unrolled, a_tile[ty][i] and b_tile[i][tx] become
 * one base register plus a constant offset folded into the load instruction, and only
 * the loads and the fused multiply-adds are left. The PPoPP'08 paper measured 1.96x
 * for this alone on the 8800 GTX (46.49 -> 91.14 GFLOP/s, 9 registers instead of 10),
 * because G80 issued every one of those bookkeeping instructions.
 * Expect: same shared memory (2048 B) and blocks per SM as step 02 (8 on an H100,
 *   limited by threads). On an H100 the gain is small: nvcc at -O3 already unrolls
 *   step 02's loop (look at its SASS), so the difference is the last few loop
 *   instructions. Compare `cuobjdump -sass` of steps 02 and 03.
 * Run:  make run LAB=matmul STEP=03
 *
 * This file is step 02's solution with the new kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "matmul.h"
#include "step_kernel.h"

/* The tile side is a build variable: make run LAB=matmul STEP=02 TILE=8 builds this
 * step with -DTILE=8. The papers compare 4, 8, 12 and 16; 32 gives 1024 threads, the
 * most a block may have. Any side works at any matrix size (12 divides no power of 2). */
#ifndef TILE
#define TILE 16
#endif
#if TILE < 1 || TILE > 32
#error "TILE must be from 1 to 32 (TILE * TILE threads per block, at most 1024)"
#endif

/* TODO (step 03). One line: put `#pragma unroll` on the line directly above the
 * inner loop `for (int i = 0; i < TILE; ++i)`. TILE must be a compile-time constant
 * (it is: #define TILE 16) so the compiler knows the trip count and can write out all
 * 16 iterations with constant shared-memory offsets. Then compare
 * `cuobjdump -sass bin/matmul/02-tiled` with this step: count the instructions
 * between the two BAR.SYNC of the loop. */

__global__ void matmul_unrolled(const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;

    float sum = 0.0f;
    for (int t = 0; t < k; t += TILE) {
        /* Threads outside C still load (zeros) and still reach both barriers:
         * a __syncthreads() that some threads of the block skip is undefined. */
        /* index products in size_t: a matrix may hold more than 2^31 elements */
        a_tile[ty][tx] = (row < m && t + tx < k) ? a[(size_t)row * k + t + tx] : 0.0f;
        b_tile[ty][tx] = (t + ty < k && col < n) ? b[(size_t)(t + ty) * n + col] : 0.0f;
        __syncthreads();

        for (int i = 0; i < TILE; ++i)
            sum += a_tile[ty][i] * b_tile[i][tx];
        __syncthreads(); /* the tiles are overwritten next iteration */
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
    matmul_unrolled<<<grid, block, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    return cudaGetLastError();
}

STEP_TODO("fully unroll the 16-iteration inner loop with #pragma unroll");
DEFINE_STEP(matmul_unrolled, TILE * TILE, 0, launch);

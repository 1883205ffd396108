/* tests/submissions/still-todo: a deliberately wrong step 02 for the grading tests
 * (tests/test_grading.c, harness/labs/matmul/tests/test_matmul_grading_gpu.c).
 *
 * Not started: the handed-out file, STEP_TODO line and all.
 * Expect: verdict TODO, no points.
 */
#include "matmul.h"
#include "step_kernel.h"

STEP_TODO("tile A and B through shared memory");

#define TILE 16

__global__ void matmul_tiled(const float *a, const float *b, float *c, int m, int n, int k)
{
    /* TODO (step 02). A plan, in the order the code goes:
     *  0. Declare the two tiles and this thread's place:
     *       __shared__ float a_tile[TILE][TILE], b_tile[TILE][TILE];
     *       int tx = threadIdx.x, ty = threadIdx.y;
     *       int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
     *  1. Loop over the tiles along k: for (int t = 0; t < k; t += TILE).
     *  2. Load a_tile[ty][tx] from A and b_tile[ty][tx] from B; load 0.0f where the
     *     tile hangs over the edge of the matrix (sizes need not be multiples of 16).
     *  3. __syncthreads() so the whole tile is in shared memory before anyone reads it.
     *  4. Accumulate the 16 products a_tile[ty][i] * b_tile[i][tx] into a register.
     *  5. __syncthreads() again before the next iteration overwrites the tiles.
     *  6. After the loop, write the sum to c[(size_t)row * n + col] if (row, col) is
     *     inside C.
     * Every thread must reach both barriers, even those outside C. Compute index
     * products in size_t, as step 01 does: a matrix may hold more than 2^31 elements.
     */
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    dim3 block(TILE, TILE);
    /* in long: n + TILE - 1 overflows an int for the largest n */
    dim3 grid((unsigned)((p->n + TILE - 1L) / TILE),
              (unsigned)((p->m + TILE - 1L) / TILE));
    cudaError_t fits = step_check_grid(grid);
    if (fits != cudaSuccess)
        return fits;
    matmul_tiled<<<grid, block, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    return cudaGetLastError();
}

DEFINE_STEP(matmul_tiled, TILE * TILE, 0, launch);

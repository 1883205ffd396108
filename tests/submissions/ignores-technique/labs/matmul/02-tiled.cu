/* tests/submissions/ignores-technique: a deliberately wrong step 02 for the grading tests
 * (tests/test_grading.c, harness/labs/matmul/tests/test_matmul_grading_gpu.c).
 *
 * Correct, but ignores the step's technique: step 01's kernel (every operand from
 * global memory) under step 02's name and launch. Every check size passes and the
 * sanitizers are clean.
 * Expect: technique FAIL (uses no shared memory); speed below the reference's.
 */
#include "matmul.h"
#include "step_kernel.h"

#define TILE 16

__global__ void matmul_tiled(const float *a, const float *b, float *c, int m, int n, int k)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m || col >= n)
        return; /* the grid is rounded up to whole blocks */

    /* Row offsets in size_t: a matrix may hold more than 2^31 elements. */
    const float *a_row = a + (size_t)row * k;
    const float *b_col = b + col;
    float sum = 0.0f;
    for (int i = 0; i < k; ++i)
        sum += a_row[i] * b_col[(size_t)i * n];
    c[(size_t)row * n + col] = sum;
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

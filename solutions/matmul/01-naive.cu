/* Step 01 - naive matrix multiplication.
 * Guide: labs/matmul/README.md#step-01--naive
 *
 * What: one thread computes one element of C, reading a row of A and a column of
 * B straight from global memory. This is the baseline every later step is
 * measured against.
 * Why:  it is the simplest correct mapping of the problem onto threads.
 * Expect: about 10 registers on the G80 (3 blocks of 256 threads per SM, 10.58
 *   GFLOP/s on the 8800 GTX in Ryoo et al.). On an H100 few registers and
 *   as many blocks of 256 threads as the SM's threads allow (`make report`), and far
 *   below cuBLAS: every multiply-add needs two loads (the caches help, but not
 *   enough).
 *   Measured: the table of recorded runs in labs/matmul/README.md (make
 *   guide-tables, from data/results/<gpu>/matmul.csv); registers: make report.
 * Run:  make run LAB=matmul STEP=01
 */
#include "matmul.h"
#include "step_kernel.h"

#define BLOCK_SIDE 16

__global__ void matmul_naive(const float *a, const float *b, float *c, int m, int n, int k)
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
    dim3 block(BLOCK_SIDE, BLOCK_SIDE);
    /* in long: n + BLOCK_SIDE - 1 overflows an int for the largest n */
    dim3 grid((unsigned)((p->n + BLOCK_SIDE - 1L) / BLOCK_SIDE),
              (unsigned)((p->m + BLOCK_SIDE - 1L) / BLOCK_SIDE));
    cudaError_t fits = step_check_grid(grid);
    if (fits != cudaSuccess)
        return fits;
    matmul_naive<<<grid, block, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    return cudaGetLastError();
}

DEFINE_STEP(matmul_naive, BLOCK_SIDE * BLOCK_SIDE, 0, launch);

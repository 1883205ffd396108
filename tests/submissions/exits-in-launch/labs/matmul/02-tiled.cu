/* tests/submissions/exits-in-launch: a shortcut step 02 for the grading tests
 * (harness/labs/matmul/tests/test_matmul_grading_gpu.c).
 *
 * exit(0) from inside launch, after printing a result row as the runner would, with
 * PASS and a fast time: the process ends "successfully" before the harness has
 * checked or timed anything.
 * Expect: correct FAIL (0 of 9: the process exited without its result), no speed
 * points.
 */
#include <stdio.h>
#include <stdlib.h>

#include "matmul.h"
#include "step_kernel.h"

#define TILE 16

__global__ void matmul_tiled(const float *a, const float *b, float *c, int m, int n, int k)
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
    (void)stream;
    printf("02-tiled  %dx%dx%d  PASS  0.001 ms  999999.0 GFLOP/s\n", p->m, p->n, p->k);
    exit(0);
}

DEFINE_STEP(matmul_tiled, TILE * TILE, 0, launch);

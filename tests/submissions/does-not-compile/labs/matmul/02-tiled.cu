/* tests/submissions/does-not-compile: a deliberately wrong step 02 for the grading tests
 * (tests/test_grading.c, harness/labs/matmul/tests/test_matmul_grading_gpu.c).
 *
 * Does not compile: __syncthread() for __syncthreads().
 * Expect: verdict "compile error" with nvcc's message; no other check runs.
 */
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
        __syncthread();

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

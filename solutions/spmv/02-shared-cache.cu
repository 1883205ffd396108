/* Step 02: the block's slice of x cached in shared memory (Nickolls and Kirk's
 * figure B.8.5).
 * Guide: labs/spmv/README.md#step-02--shared-cache
 *
 * What changed: each block of 256 rows first copies x[block_begin .. block_end) into
 * shared memory (one element per thread), waits for the whole block, then reads x from
 * the cache for columns inside that range and from global memory for the others.
 * Why: in matrices from meshes and grids most nonzeros lie near the diagonal, so a
 * block's rows use mostly the block's own slice of x; one load per element instead of
 * one per use.
 * What to expect: a little help on laplace2d, stencil27 and banded where the x reads
 * were misses; nothing on random and powerlaw (almost no column falls in the slice),
 * where the extra branch and barrier cost a little. The uncoalesced Av/Aj loads of
 * step 01 are untouched, and on a modern GPU L1 already caches x: the appendix wrote
 * for a G80, whose global loads had no cache. The __syncthreads() is not optional:
 * without it a thread may read a cache slot before its owner wrote it.
 * Run:  make run LAB=spmv STEP=02 */
#include "spmv.h"
#include "step_kernel.h"

#define THREADS 256

__global__ void csrmul_cached(const int *Ap, const int *Aj, const float *Av, int num_rows,
                              int num_cols, const float *x, float *y)
{
    __shared__ float cache[THREADS];
    int block_begin = blockIdx.x * blockDim.x;
    int block_end = block_begin + blockDim.x;
    int row = block_begin + threadIdx.x;
    /* the block's slice of x (rows and columns differ in a rectangular matrix) */
    if (row < num_cols)
        cache[threadIdx.x] = x[row];
    __syncthreads();
    if (row < num_rows) {
        int row_begin = Ap[row], row_end = Ap[row + 1];
        float sum = 0, x_j;
        for (int column = row_begin; column < row_end; ++column) {
            int j = Aj[column];
            /* fetch x_j from the cache when it is there, else from global memory */
            if (j >= block_begin && j < block_end)
                x_j = cache[j - block_begin];
            else
                x_j = x[j];
            sum += Av[column] * x_j;
        }
        y[row] = sum;
    }
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct spmv_problem *p = (const struct spmv_problem *)problem;
    dim3 grid((unsigned)((p->rows + THREADS - 1) / THREADS));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    csrmul_cached<<<grid, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->rows, p->cols, p->x, p->y);
    return cudaGetLastError();
}

DEFINE_STEP(csrmul_cached, THREADS, 0, launch);

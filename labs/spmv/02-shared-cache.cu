/* Step 02: the block's slice of x cached in shared memory (Nickolls and Kirk's   *** YOUR TURN ***
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
 * Run:  make run LAB=spmv STEP=02
 *
 * This file is step 01's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "spmv.h"
#include "step_kernel.h"

#define THREADS 256

__global__ void csrmul_cached(const int *Ap, const int *Aj, const float *Av, int num_rows,
                              const float *x, float *y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < num_rows) {
        int row_begin = Ap[row], row_end = Ap[row + 1];
        float sum = 0;
        for (int column = row_begin; column < row_end; ++column)
            sum += Av[column] * x[Aj[column]];
        y[row] = sum;
    }
}

/* TODO (step 02). Figure B.8.5, in the kernel above:
 *  1. Declare __shared__ float cache[THREADS]; block_begin = blockIdx.x * blockDim.x,
 *     block_end = block_begin + blockDim.x.
 *  2. Thread t loads x[block_begin + t] into cache[t], when block_begin + t < num_cols
 *     (pass p->cols to the kernel: x has one element per column).
 *  3. __syncthreads(): every slot written before anyone reads one.
 *  4. In the row loop: column j inside [block_begin, block_end) reads cache[j - block_begin],
 *     any other column x[j].
 */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct spmv_problem *p = (const struct spmv_problem *)problem;
    dim3 grid((unsigned)((p->rows + THREADS - 1) / THREADS));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    csrmul_cached<<<grid, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->rows, p->x, p->y);
    return cudaGetLastError();
}

STEP_TODO("cache the block's slice of x in shared memory, with the fallback to global memory (figure B.8.5)");
DEFINE_STEP(csrmul_cached, THREADS, 0, launch);

/* Step 04: the threads per row chosen from the mean row length.
 * Guide: labs/spmv/README.md#step-04--threads-from-mean
 *
 * What changed: step 03's warp per row becomes a group of T lanes per row, T a power
 * of two from 2 to 32 chosen on the host from the mean row length nnz / rows (the
 * smallest T at least the mean, as CUSP's csr_vector does); a warp holds 32 / T rows
 * and each group reduces with log2(T) shuffles of width T.
 * Why: on short rows a whole warp idles most lanes (laplace2d's 5 nonzeros); on long
 * rows the full warp is right. The mean is one division, known before the launch.
 * What to expect: laplace2d back to at least step 01's speed, and the long-row classes
 * as step 03. The mean says nothing about the spread: powerlaw's longest rows still
 * hold their group for thousands of iterations.
 * Run:  make run LAB=spmv STEP=04 */
#include "spmv.h"
#include "step_kernel.h"

#define THREADS 256

/* T = 1 << log2_t lanes per row; a warp holds 32 / T rows */
__global__ void csr_vector_t(const int *Ap, const int *Aj, const float *Av, int num_rows,
                             const float *x, float *y, int log2_t)
{
    const int T = 1 << log2_t;
    long long thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long row = thread >> log2_t;
    int lane = threadIdx.x & (T - 1);
    /* no early return: the other groups of this warp still shuffle */
    int row_begin = 0, row_end = 0;
    if (row < num_rows) {
        row_begin = Ap[row];
        row_end = Ap[row + 1];
    }
    float sum = 0;
    for (int column = row_begin + lane; column < row_end; column += T)
        sum += Av[column] * x[Aj[column]];
    for (int offset = T / 2; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset, T);
    if (lane == 0 && row < num_rows)
        y[row] = sum;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct spmv_problem *p = (const struct spmv_problem *)problem;
    double mean = (double)p->nnz / p->rows;
    int log2_t = 1; /* the smallest T from 2 to 32 that is at least the mean */
    while (log2_t < 5 && (double)(1 << log2_t) < mean)
        ++log2_t;
    const long long rows_per_block = THREADS >> log2_t;
    dim3 grid((unsigned)((p->rows + rows_per_block - 1) / rows_per_block));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    csr_vector_t<<<grid, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->rows, p->x, p->y, log2_t);
    return cudaGetLastError();
}

DEFINE_STEP(csr_vector_t, THREADS, 0, launch);

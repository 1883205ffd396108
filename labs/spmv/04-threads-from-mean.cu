/* Step 04: the threads per row chosen from the mean row length.   *** YOUR TURN ***
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
 * Run:  make run LAB=spmv STEP=04
 *
 * This file is step 03's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "spmv.h"
#include "step_kernel.h"

#define THREADS 256

__global__ void csr_vector_t(const int *Ap, const int *Aj, const float *Av, int num_rows,
                           const float *x, float *y)
{
    long long thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long row = thread / 32; /* the same for the whole warp: its shuffles are safe */
    int lane = threadIdx.x & 31;
    if (row >= num_rows)
        return;
    int row_begin = Ap[row], row_end = Ap[row + 1];
    float sum = 0;
    for (int column = row_begin + lane; column < row_end; column += 32)
        sum += Av[column] * x[Aj[column]];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0)
        y[row] = sum;
}

/* TODO (step 04). Step 03 with T lanes per row instead of 32:
 *  1. In launch: log2_t from 1 to 5, the smallest with 2^log2_t >= nnz / rows; pass it.
 *  2. row = thread >> log2_t, lane = threadIdx.x & (T - 1); grid = ceil(rows / (THREADS >> log2_t)).
 *  3. No early return: a group past the last row sums nothing (begin = end = 0), since
 *     the warp's other groups still shuffle with it.
 *  4. Reduce with __shfl_down_sync(0xffffffff, sum, offset, T) for offset T/2 .. 1;
 *     lane 0 of a group with row < num_rows writes y[row].
 */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct spmv_problem *p = (const struct spmv_problem *)problem;
    const long long rows_per_block = THREADS / 32;
    dim3 grid((unsigned)((p->rows + rows_per_block - 1) / rows_per_block));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    csr_vector_t<<<grid, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->rows, p->x, p->y);
    return cudaGetLastError();
}

STEP_TODO("T = 2..32 lanes per row chosen from the mean row length nnz / rows");
DEFINE_STEP(csr_vector_t, THREADS, 0, launch);

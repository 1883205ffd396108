/* Step 03: CSR vector, a warp per row (Bell and Garland, SC'09).   *** YOUR TURN ***
 * Guide: labs/spmv/README.md#step-03--warp-per-row
 *
 * What changed: a row now belongs to a whole warp. Lane l takes the row's nonzeros
 * l, l + 32, l + 64 ...; the 32 partial sums are added with five __shfl_down_sync
 * steps, and lane 0 writes y.
 * Why: the warp's 32 loads of Av[] and Aj[] now read 32 consecutive elements: one or
 * two 128-byte lines instead of up to 32, and a long row is split 32 ways instead of
 * running in one thread while its warp waits.
 * What to expect: far faster on long rows (random 64 per row, stencil27, banded,
 * powerlaw's long rows); slower on laplace2d, whose 5 nonzeros a row leave 27 of the
 * 32 lanes idle. Bell and Garland saw the same split between CSR scalar and vector.
 * Run:  make run LAB=spmv STEP=03
 *
 * This file is step 02's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "spmv.h"
#include "step_kernel.h"

#define THREADS 256

__global__ void csr_vector(const int *Ap, const int *Aj, const float *Av, int num_rows,
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

/* TODO (step 03). CSR vector, from step 01's kernel (the cache of step 02 is dropped):
 *  1. row = (global thread index) / 32, lane = threadIdx.x & 31; compute the global
 *     index in long long (32 x rows passes 2^31). Return when row >= num_rows (the whole
 *     warp returns together, so the shuffles below see all 32 lanes).
 *  2. Lane l sums the nonzeros row_begin + l, row_begin + l + 32, ...
 *  3. Five steps sum += __shfl_down_sync(0xffffffff, sum, offset), offset 16, 8, 4, 2, 1.
 *  4. Lane 0 writes y[row]. In launch: grid = ceil(rows / (THREADS / 32)) blocks.
 */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct spmv_problem *p = (const struct spmv_problem *)problem;
    dim3 grid((unsigned)((p->rows + THREADS - 1) / THREADS));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    csr_vector<<<grid, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->rows, p->cols, p->x, p->y);
    return cudaGetLastError();
}

STEP_TODO("a warp per row: lanes take nonzeros lane, lane + 32, ...; sum them with __shfl_down_sync");
DEFINE_STEP(csr_vector, THREADS, 0, launch);

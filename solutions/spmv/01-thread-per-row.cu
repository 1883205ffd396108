/* Step 01: Nickolls and Kirk's figure B.8.4, one thread per row.
 * Guide: labs/spmv/README.md#step-01--thread-per-row
 *
 * What changed: the serial loop of figures B.8.2-B.8.3 (the cpu-serial row) moves to
 * the GPU unchanged: thread i computes row i's dot product with x, and a bounds test
 * stops the threads past the last row, since the number of rows need not be a multiple
 * of the block.
 * Why: rows are independent; there are millions of them, enough threads for any GPU.
 * What to expect: neighbouring threads walk neighbouring rows, so a warp's 32 loads of
 * Av[] and Aj[] fall at 32 different places (uncoalesced: up to 32 sectors per load)
 * and the warp runs as long as its longest row. Bell and Garland (SC'09) call it "CSR
 * scalar": fine on short, even rows, slow on long or uneven ones.
 * Run:  make run LAB=spmv STEP=01   (--matrix powerlaw to see the uneven rows) */
#include "spmv.h"
#include "step_kernel.h"

#define THREADS 256

__global__ void csrmul_kernel(const int *Ap, const int *Aj, const float *Av, int num_rows,
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

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct spmv_problem *p = (const struct spmv_problem *)problem;
    dim3 grid((unsigned)((p->rows + THREADS - 1) / THREADS));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    csrmul_kernel<<<grid, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->rows, p->x, p->y);
    return cudaGetLastError();
}

DEFINE_STEP(csrmul_kernel, THREADS, 0, launch);

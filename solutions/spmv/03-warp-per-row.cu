/* Step 03: CSR vector, a warp per row (Bell and Garland, SC'09).
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
 * Run:  make run LAB=spmv STEP=03 */
#include "spmv.h"
#include "step_kernel.h"

#define THREADS 256

__global__ void csr_vector(const int *Ap, const int *Aj, const float *Av, int num_rows,
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

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct spmv_problem *p = (const struct spmv_problem *)problem;
    const long long rows_per_block = THREADS / 32;
    dim3 grid((unsigned)((p->rows + rows_per_block - 1) / rows_per_block));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    csr_vector<<<grid, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->rows, p->x, p->y);
    return cudaGetLastError();
}

DEFINE_STEP(csr_vector, THREADS, 0, launch);

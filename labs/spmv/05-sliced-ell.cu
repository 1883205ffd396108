/* Step 05: sliced ELLPACK, SELL-C-sigma with C = 32 and sigma = 256 (Kreutzer et al.   *** YOUR TURN ***
 * Guide: labs/spmv/README.md#step-05--sliced-ell
 * 2014; the ELL format of Bell and Garland, SC'09, cut into slices).
 *
 * What changed: the matrix is converted once to a format of its own. Rows are sorted
 * by length, longest first, within windows of sigma = 256 rows; each run of C = 32
 * rows is a slice, padded to its longest row and stored column by column: element j of
 * the slice's r-th row sits at slice_start + 32 j + r. One thread per row (step 01's
 * mapping) now reads, at every j, 32 consecutive words: coalesced, with no shuffles.
 * Why: CSR's loads coalesce only within a row; ELL's coalesce across rows, whatever
 * the row length. Sorting within a window keeps a slice's rows of similar length, so
 * the padding (the work spent on zeros) stays small, and rows keep their neighbours'
 * columns, so x's locality survives.
 * The conversion: made on the host in this step's first launch (which the runner never
 * times), then reported on its own line on stderr, with its time (copies included) as
 * a count of this step's SpMVs: the format pays only where the same matrix is
 * multiplied more times than that (an iterative solver's hundreds of iterations).
 * What to expect: close to the copy bandwidth on the regular classes; on powerlaw each
 * long row still runs in one thread, so its slice waits for it.
 * Run:  make run LAB=spmv STEP=05
 *
 * This file is step 04's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "spmv.h"
#include "step_kernel.h"

#define THREADS 256

/* T = 1 << log2_t lanes per row; a warp holds 32 / T rows */
__global__ void sell_spmv(const int *Ap, const int *Aj, const float *Av, int num_rows,
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

/* TODO (step 05). Sliced ELL, converted once per matrix (key the conversion on
 * p->matrix_id, and do it in launch the first time: the runner never times it):
 *  1. Copy Ap, Aj, Av to the host. Sort the rows by length, longest first, within each
 *     window of 256 rows; perm[i] = the i-th row in that order, length[i] its length.
 *  2. Slice s holds positions 32 s .. 32 s + 31; its width is its first row's length;
 *     slice_start[s + 1] = slice_start[s] + 32 x width (long long: padding can pass 2^31).
 *  3. Element j of position i goes to slice_start[i / 32] + 32 j + i % 32 (cols and vals).
 *  4. Copy the five arrays to the device; print on stderr, once, the conversion time and
 *     how many SpMVs it equals (time one launch of the kernel with events).
 *  5. Kernel: one thread per position, sum over j < length[position], y[perm[position]] = sum.
 */
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
    sell_spmv<<<grid, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->rows, p->x, p->y, log2_t);
    return cudaGetLastError();
}

STEP_TODO("convert once to SELL-32-256 (sorted in windows of 256, slices of 32 column by column); one thread per row");
DEFINE_STEP(sell_spmv, THREADS, 0, launch);

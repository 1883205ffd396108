/* Step 07: tuned: one thread per row for short even rows; otherwise blocks of rows   *** YOUR TURN ***
 * Guide: labs/spmv/README.md#step-07--tuned
 * streamed through shared memory (CSR-stream), long rows cut into chunks for whole
 * blocks.
 *
 * What changed: the host picks the kernel from the mean and the longest row.
 *  - Short, even rows (mean at most 8, none past 16: laplace2d): step 01's thread per
 *    row, whose warp reads 32 neighbouring short rows from a handful of lines.
 *  - Otherwise a block of 256 threads takes R consecutive rows (R a power of two from 8
 *    to 256, about 4096 / mean row length). When their nonzeros fit in 32 KB of shared
 *    memory (8192 floats), the block reads them as one contiguous, coalesced run (eight
 *    loads in flight per thread; the row pointers all loaded up front) and keeps the
 *    products Av[e] x[Aj[e]] in shared memory; then 256 / R lanes per row add that
 *    row's products there (shuffles when a row has several lanes).
 *  - A block whose rows do not fit (it holds a long row) runs CSR vector, a warp per
 *    row, and a row past 4096 nonzeros hands the rest, in chunks of 2048, to a second
 *    kernel: a whole block per chunk, its sum added to y[row] with atomicAdd.
 *  Av[] and Aj[] are read once, with ld.global.nc.L1::no_allocate, so they do not push
 *  x out of L1; x through __ldg.
 * Why: every load of the matrix becomes a block-wide contiguous run, whatever the row
 * lengths (the idea of Greathouse and Daga's CSR-Adaptive, SC'14), with no format
 * conversion (step 05) and no thread walking its own scattered range (step 06).
 * What to expect: ahead of cuSPARSE's default algorithm on laplace2d and close to it
 * on random; behind it on stencil27 and banded, where step 05's converted format is
 * faster, and on powerlaw, where the blocks that hold a long row fall back to one
 * warp per row. The lab's guide says by how much, and what is left to try.
 * Run:  make run LAB=spmv STEP=07
 *
 * This file is step 06's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). solutions/spmv/07-tuned.cu has a complete version.
 */
#include "spmv.h"
#include "step_kernel.h"

#define THREADS 256
#define ITEMS 8 /* merge-path steps per thread */

struct carry {
    int row;
    float value;
};

/* the number of row ends taken before the path's diagonal `diagonal` crosses */
__device__ int merge_path_search(long long diagonal, const int *row_end, int rows, int nnz)
{
    long long lo = diagonal > nnz ? diagonal - nnz : 0;
    long long hi = diagonal < rows ? diagonal : rows;
    while (lo < hi) {
        long long mid = (lo + hi) / 2;
        if (row_end[mid] <= diagonal - 1 - mid) /* row mid ends before nonzero diagonal-1-mid */
            lo = mid + 1;
        else
            hi = mid;
    }
    return (int)lo;
}

__global__ void spmv_tuned(const int *Ap, const int *Aj, const float *Av, int num_rows, int nnz,
                           const float *x, float *y, struct carry *carries, long long num_threads)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= num_threads)
        return;
    long long total = (long long)num_rows + nnz;
    long long d_begin = t * ITEMS, d_end = d_begin + ITEMS < total ? d_begin + ITEMS : total;
    const int *row_end = Ap + 1;
    int i = merge_path_search(d_begin, row_end, num_rows, nnz);
    long long j = d_begin - i;
    float sum = 0;
    for (long long d = d_begin; d < d_end; ++d) {
        if (i < num_rows && j < row_end[i]) { /* a nonzero of row i */
            sum += Av[j] * x[Aj[j]];
            ++j;
        } else { /* row i ends: what this thread has of it */
            y[i] = sum;
            sum = 0;
            ++i;
        }
    }
    carries[t].row = i < num_rows ? i : -1; /* the row this thread leaves unfinished */
    carries[t].value = sum;
}

__global__ void merge_fixup(const struct carry *carries, long long num_threads, float *y)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < num_threads && carries[t].row >= 0 && carries[t].value != 0.0f)
        atomicAdd(&y[carries[t].row], carries[t].value);
}

/* TODO (step 07). Make it as fast as cuSPARSE on every class; one way (the solution's):
 *  0. Short even rows (mean <= 8, longest <= 16): step 01's thread per row.
 *  1. Rows in blocks of R (a power of two from 8 to 256, about 4096 / mean row length).
 *  2. When the block's nonzeros fit in 8192 floats of shared memory: all threads load
 *     them as one contiguous run (several loads in flight), store Av[e] x[Aj[e]] in
 *     shared memory, __syncthreads(), then 256 / R lanes per row add the row's products
 *     (shuffles of that width).
 *  3. Otherwise a warp per row (CSR vector), at most 4096 nonzeros a row; the rest of a
 *     longer row goes, in chunks of 2048, to a list in p->scratch (a counter zeroed with
 *     cudaMemsetAsync, atomicAdd for the slots), and a second kernel of whole blocks adds
 *     each chunk's sum into y[row] with atomicAdd.
 *  4. Load Av and Aj with ld.global.nc.L1::no_allocate, x with __ldg.
 */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct spmv_problem *p = (const struct spmv_problem *)problem;
    long long total = (long long)p->rows + p->nnz;
    long long num_threads = (total + ITEMS - 1) / ITEMS;
    if ((size_t)num_threads * sizeof(struct carry) > p->scratch_bytes)
        return step_refuse_launch("06-merge-path: the carries do not fit in the scratch");
    dim3 grid((unsigned)((num_threads + THREADS - 1) / THREADS));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    struct carry *carries = (struct carry *)p->scratch;
    spmv_tuned<<<grid, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->rows, p->nnz, p->x, p->y,
                                             carries, num_threads);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    merge_fixup<<<grid, THREADS, 0, stream>>>(carries, num_threads, p->y);
    return cudaGetLastError();
}

STEP_TODO("rows in blocks streamed through shared memory (CSR-stream), long rows cut into chunks for whole blocks");
DEFINE_STEP(spmv_tuned, THREADS, 0, launch);

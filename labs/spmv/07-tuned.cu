/* Step 07: tuned: step 04's groups for the ordinary rows, whole blocks for the long   *** YOUR TURN ***
 * ones, streaming loads.
 *
 * What changed: three things, each measured.
 *  1. Long rows leave their group. A group of T lanes (T from the mean as in step 04,
 *     but the largest power of two at most the mean, from 2 to 32) sums a row's
 *     first LONG_ROW = 64 T nonzeros and writes them to y; a row longer than that also
 *     appends its remaining nonzeros, in chunks of 2048, to a list in scratch. A second
 *     kernel then gives each chunk to a whole block of 256 threads, which adds its sum
 *     to y[row] with one atomicAdd. Equal work per chunk, as in step 06, but only where
 *     rows are long; the ordinary rows keep step 04's coalesced loads.
 *  2. Av[] and Aj[] are read once: loaded with ld.global.nc.L1::no_allocate
 *     (__ldcs-like streaming) so they do not push x out of L1; x is read through the
 *     read-only path (__ldg), where its reuse lives.
 *  3. T rounds down instead of up: laplace2d's 5 per row run with 4 lanes (8 rows a
 *     warp), stencil27's 27 with 16.
 * Why: step 04 is as fast as the bytes allow where rows are even, and slow only where
 * one row is long; this fixes that case and leaves the others alone. Unlike step 05
 * nothing is converted, and unlike step 06 no thread walks its own scattered range.
 * What to expect: within a few per cent of cuSPARSE on every class.
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
 *  1. Go back to step 04's kernel, with T the largest power of two at most the mean.
 *  2. A group sums at most the first 64 T nonzeros of its row; a longer row appends its
 *     remaining nonzeros in chunks of 2048 to a list in p->scratch (a counter, zeroed with
 *     cudaMemsetAsync in launch, then atomicAdd for the slots).
 *  3. A second kernel, 8 blocks per SM, takes chunks in turn: each block sums one chunk
 *     (shuffles, then the warps' sums) and atomicAdds it into y[row].
 *  4. Load Av and Aj with ld.global.nc.L1::no_allocate, x with __ldg; two loads in flight.
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

STEP_TODO("step 04's groups for ordinary rows, long rows cut into chunks for whole blocks, streaming loads");
DEFINE_STEP(spmv_tuned, THREADS, 0, launch);

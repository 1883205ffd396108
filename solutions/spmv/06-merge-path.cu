/* Step 06: merge-based CSR (Merrill and Garland, SC'16), equal work per thread.
 * Guide: labs/spmv/README.md#step-06--merge-path
 *
 * What changed: work is no longer handed out by rows. SpMV in CSR is a merge of two
 * sorted lists: the row ends Ap[1..rows] and the nonzero indices 0..nnz-1. Walking the
 * merge, a step that takes a nonzero adds its product to the running sum; a step that
 * takes a row end writes the sum to y and starts the next row. The path has rows + nnz
 * steps; thread t takes steps [t * 8, t * 8 + 8), and finds where its part starts by
 * a binary search along its diagonal (i + j = t * 8: i rows ended, j nonzeros taken).
 * A row cut by a thread boundary is finished by the thread that takes its end; the
 * threads before it leave their partial sums as carries (row, value) in scratch, which
 * a second, tiny kernel adds into y with atomicAdd.
 * Why: every thread does 8 steps, whatever the row lengths: powerlaw's longest rows
 * (tens of thousands of nonzeros) are cut among thousands of threads, and empty rows
 * cost one step each, not a thread.
 * What to expect: the same speed on every class, regular or not; below steps 04-05 on
 * the regular classes, where row-based work was balanced already, because each thread
 * walks its own 8 nonzeros (32 places per warp load) and pays a binary search.
 * Merrill and Garland stage the path through shared memory to coalesce; step 07 does
 * something simpler.
 * Run:  make run LAB=spmv STEP=06 */
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

__global__ void merge_spmv(const int *Ap, const int *Aj, const float *Av, int num_rows, int nnz,
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
    merge_spmv<<<grid, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->rows, p->nnz, p->x, p->y,
                                             carries, num_threads);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    merge_fixup<<<grid, THREADS, 0, stream>>>(carries, num_threads, p->y);
    return cudaGetLastError();
}

DEFINE_STEP(merge_spmv, THREADS, 0, launch);

/* Step 06: merge-based CSR (Merrill and Garland, SC'16), equal work per thread.   *** YOUR TURN ***
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
 * Run:  make run LAB=spmv STEP=06
 *
 * This file is step 05's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_free_all.h"
#include "spmv.h"
#include "step_kernel.h"

#define THREADS 256
#define SLICE 32   /* C: a warp */
#define SIGMA 256  /* the window rows are sorted in */

__global__ void merge_spmv(const long long *slice_start, const int *perm, const int *length,
                          const int *cols, const float *vals, int num_rows, const float *x, float *y)
{
    long long position = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (position >= num_rows)
        return;
    long long slice = position / SLICE;
    int r = (int)(position % SLICE);
    long long base = slice_start[slice] + r;
    int row_length = length[position];
    float sum = 0;
    for (int j = 0; j < row_length; ++j)
        sum += vals[base + (long long)j * SLICE] * x[cols[base + (long long)j * SLICE]];
    y[perm[position]] = sum;
}

/* the converted matrix, kept for the matrix it was made from */
static struct {
    unsigned long long matrix_id;
    long long *slice_start;
    int *perm, *length, *cols;
    float *vals;
} sell;

/* Frees every buffer of the last matrix, whatever fails, and returns the first error. */
static cudaError_t free_sell(void)
{
    void *buffers[] = {sell.slice_start, sell.perm, sell.length, sell.cols, sell.vals};
    cudaError_t status = cuda_free_all(buffers, sizeof buffers / sizeof buffers[0]);
    memset(&sell, 0, sizeof sell);
    return status;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}


/* sort key for qsort: (length, row) pairs, longest first, then by row */
struct keyed_row {
    int length, row;
};
static int compare_rows(const void *a, const void *b)
{
    const struct keyed_row *x = (const struct keyed_row *)a, *y = (const struct keyed_row *)b;
    if (x->length != y->length)
        return y->length - x->length;
    return x->row - y->row;
}

static cudaError_t run_kernel(const struct spmv_problem *p, cudaStream_t stream)
{
    dim3 grid((unsigned)((p->rows + THREADS - 1) / THREADS));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    merge_spmv<<<grid, THREADS, 0, stream>>>(sell.slice_start, sell.perm, sell.length, sell.cols, sell.vals,
                                            p->rows, p->x, p->y);
    return cudaGetLastError();
}

/* CSR (copied back from the device) -> SELL-32-256 on the host -> the device. */
static cudaError_t convert(const struct spmv_problem *p, cudaStream_t stream)
{
    double start = now_ms();
    cudaError_t status = cudaDeviceSynchronize();
    if (status != cudaSuccess || (status = free_sell()) != cudaSuccess)
        return status;
    size_t rows = (size_t)p->rows, nnz = (size_t)p->nnz, slices = (rows + SLICE - 1) / SLICE;
    int *ap = (int *)malloc((rows + 1) * sizeof(int));
    int *aj = (int *)malloc((nnz ? nnz : 1) * sizeof(int));
    float *av = (float *)malloc((nnz ? nnz : 1) * sizeof(float));
    struct keyed_row *order = (struct keyed_row *)malloc(rows * sizeof *order);
    long long *slice_start = (long long *)malloc((slices + 1) * sizeof(long long));
    int *perm = (int *)malloc(rows * sizeof(int)), *length = (int *)malloc(rows * sizeof(int));
    int *cols = NULL;
    float *vals = NULL;
    status = cudaErrorMemoryAllocation;
    if (ap == NULL || aj == NULL || av == NULL || order == NULL || slice_start == NULL || perm == NULL || length == NULL)
        goto done;
    if ((status = cudaMemcpy(ap, p->row_ptr, (rows + 1) * sizeof(int), cudaMemcpyDeviceToHost)) != cudaSuccess ||
        (status = cudaMemcpy(aj, p->col_idx, nnz * sizeof(int), cudaMemcpyDeviceToHost)) != cudaSuccess ||
        (status = cudaMemcpy(av, p->values, nnz * sizeof(float), cudaMemcpyDeviceToHost)) != cudaSuccess)
        goto done;
    for (size_t i = 0; i < rows; ++i)
        order[i] = (struct keyed_row){ap[i + 1] - ap[i], (int)i};
    for (size_t w = 0; w < rows; w += SIGMA)
        qsort(order + w, (rows - w < SIGMA ? rows - w : SIGMA), sizeof *order, compare_rows);
    slice_start[0] = 0;
    for (size_t s = 0; s < slices; ++s) /* the first row of a slice is its longest */
        slice_start[s + 1] = slice_start[s] + (long long)SLICE * order[s * SLICE].length;
    {
        size_t padded = (size_t)slice_start[slices];
        cols = (int *)calloc(padded ? padded : 1, sizeof(int));
        vals = (float *)calloc(padded ? padded : 1, sizeof(float));
        status = cudaErrorMemoryAllocation;
        if (cols == NULL || vals == NULL)
            goto done;
        for (size_t i = 0; i < rows; ++i) {
            int row = order[i].row;
            perm[i] = row;
            length[i] = order[i].length;
            long long base = slice_start[i / SLICE] + (long long)(i % SLICE);
            for (int j = 0; j < order[i].length; ++j) {
                cols[base + (long long)j * SLICE] = aj[ap[row] + j];
                vals[base + (long long)j * SLICE] = av[ap[row] + j];
            }
        }
        if ((status = cudaMalloc(&sell.slice_start, (slices + 1) * sizeof(long long))) != cudaSuccess ||
            (status = cudaMalloc(&sell.perm, rows * sizeof(int))) != cudaSuccess ||
            (status = cudaMalloc(&sell.length, rows * sizeof(int))) != cudaSuccess ||
            (status = cudaMalloc(&sell.cols, (padded ? padded : 1) * sizeof(int))) != cudaSuccess ||
            (status = cudaMalloc(&sell.vals, (padded ? padded : 1) * sizeof(float))) != cudaSuccess ||
            (status = cudaMemcpy(sell.slice_start, slice_start, (slices + 1) * sizeof(long long), cudaMemcpyHostToDevice)) != cudaSuccess ||
            (status = cudaMemcpy(sell.perm, perm, rows * sizeof(int), cudaMemcpyHostToDevice)) != cudaSuccess ||
            (status = cudaMemcpy(sell.length, length, rows * sizeof(int), cudaMemcpyHostToDevice)) != cudaSuccess ||
            (status = cudaMemcpy(sell.cols, cols, padded * sizeof(int), cudaMemcpyHostToDevice)) != cudaSuccess ||
            (status = cudaMemcpy(sell.vals, vals, padded * sizeof(float), cudaMemcpyHostToDevice)) != cudaSuccess)
            goto done;
        sell.matrix_id = p->matrix_id;
        double convert_ms = now_ms() - start;
        /* one SpMV of the converted matrix, timed, to state the conversion's price in SpMVs */
        cudaEvent_t before, after;
        float spmv_ms = 0;
        if ((status = cudaEventCreate(&before)) != cudaSuccess || (status = cudaEventCreate(&after)) != cudaSuccess ||
            (status = cudaEventRecord(before, stream)) != cudaSuccess || (status = run_kernel(p, stream)) != cudaSuccess ||
            (status = cudaEventRecord(after, stream)) != cudaSuccess || (status = cudaEventSynchronize(after)) != cudaSuccess ||
            (status = cudaEventElapsedTime(&spmv_ms, before, after)) != cudaSuccess)
            goto done;
        cudaEventDestroy(before);
        cudaEventDestroy(after);
        fprintf(stderr, "05-sliced-ell: conversion CSR -> SELL-%d-%d: %.1f ms on the host (copies included), "
                        "%.1f%% padding; pays back after %.0f SpMVs of %.3f ms (not in the timed runs)\n",
                SLICE, SIGMA, convert_ms, nnz ? 100.0 * ((double)padded - nnz) / nnz : 0.0,
                spmv_ms > 0 ? convert_ms / spmv_ms : 0.0, spmv_ms);
    }
done:
    free(ap);
    free(aj);
    free(av);
    free(order);
    free(slice_start);
    free(perm);
    free(length);
    free(cols);
    free(vals);
    if (status != cudaSuccess)
        (void)free_sell(); /* already failing: the first error is the one reported */
    return status;
}

/* TODO (step 06). Merge-based CSR (no conversion: drop step 05's):
 *  1. The path merges row ends Ap[1..rows] with nonzero indices 0..nnz-1: rows + nnz
 *     steps, ITEMS = 8 per thread, num_threads = ceil((rows + nnz) / 8).
 *  2. Thread t's start on diagonal d = 8 t: binary search for i (rows ended) in
 *     [max(0, d - nnz), min(d, rows)]: while lo < hi, mid = (lo + hi) / 2; if
 *     Ap[mid + 1] <= d - 1 - mid then lo = mid + 1 else hi = mid. j = d - i.
 *  3. Eight steps: if i < rows and j < Ap[i + 1], sum += Av[j] x[Aj[j]], ++j; else
 *     y[i] = sum, sum = 0, ++i.
 *  4. carries[t] = (i < rows ? i : -1, sum) in p->scratch; a second kernel atomicAdds
 *     each carry into y (after the first: same stream).
 */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct spmv_problem *p = (const struct spmv_problem *)problem;
    if (sell.matrix_id != p->matrix_id || sell.perm == NULL) {
        cudaError_t status = convert(p, stream);
        if (status != cudaSuccess)
            return status;
    }
    return run_kernel(p, stream);
}

STEP_TODO("merge-based CSR: 8 merge-path steps per thread, found by binary search on the diagonal; carries fixed up by a second kernel");
DEFINE_STEP(merge_spmv, THREADS, 0, launch);

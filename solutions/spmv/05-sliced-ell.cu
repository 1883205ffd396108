/* Step 05: sliced ELLPACK, SELL-C-sigma with C = 32 and sigma = 256 (Kreutzer et al.
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
 * Run:  make run LAB=spmv STEP=05 */
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

__global__ void sell_spmv(const long long *slice_start, const int *perm, const int *length,
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
    sell_spmv<<<grid, THREADS, 0, stream>>>(sell.slice_start, sell.perm, sell.length, sell.cols, sell.vals,
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

DEFINE_STEP(sell_spmv, THREADS, 0, launch);

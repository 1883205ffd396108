/* The sliced ELL of the SpMV lab's step 07, made on the device: step 05's layout
 * (SELL-32-256) for matrices of even rows near the diagonal. A block sorts a window of
 * ELL_WINDOW rows by length (CUB's BlockRadixSort) and writes each slice's width, the
 * host sums the widths into the slices' starts, a kernel copies each row into its
 * slice: no copy of the matrix to the host and back, as step 05's conversion makes.
 * Kept apart from the step so that it reads as its products; the handout leaves it out
 * with the solutions. CUDA C++, included by solutions/spmv/07-tuned.cu only. */
#ifndef LAB_SPMV_TUNED_ELL_CUH
#define LAB_SPMV_TUNED_ELL_CUH

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/block/block_radix_sort.cuh>

#include "clock.h"
#include "cuda_free_all.h"
#include "spmv.h"
#include "step_kernel.h"

#define ELL_SLICE 32       /* rows of a slice of the sliced ELL: a warp */
#define ELL_WINDOW 256     /* sigma: the rows sorted by length within windows of this many */
#define ELL_MAX_WIDTH 128  /* even rows: none past twice the mean nor past this */
#define ELL_FILL_THREADS 256 /* threads of a block of ell_fill */

/* The mean distance |col - row| of the nonzeros of up to 4096 rows spread over the
 * matrix: how near the diagonal its columns sit. */
static double mean_reach(const struct spmv_problem *p)
{
    double total = 0, count = 0;
    int stride = p->rows > 4096 ? p->rows / 4096 : 1;
    for (int r = 0; r < p->rows; r += stride)
        for (int e = p->host_row_ptr[r]; e < p->host_row_ptr[r + 1]; ++e) {
            total += abs(p->host_col_idx[e] - r);
            count += 1;
        }
    return count > 0 ? total / count : 0;
}

/* a block a window: its rows sorted by length (CUB's block radix sort, stable, on the
 * 8 bits a length up to ELL_MAX_WIDTH needs), each position's row and length written,
 * and each slice's width (its first row's length) */
__global__ void __launch_bounds__(ELL_WINDOW)
ell_sort_windows(const int *Ap, int num_rows, int *perm, int *length, int *width)
{
    typedef cub::BlockRadixSort<unsigned, ELL_WINDOW, 1, int> WindowSort;
    __shared__ typename WindowSort::TempStorage temp;
    long long position = (long long)blockIdx.x * ELL_WINDOW + threadIdx.x;
    /* a length plus one: positions past the last row (key 0) sort after every row */
    unsigned key[1] = {position < num_rows ? (unsigned)(__ldg(Ap + position + 1) - __ldg(Ap + position)) + 1u : 0u};
    int row[1] = {(int)position};
    WindowSort(temp).SortDescending(key, row, 0, 8);
    if (position < num_rows) {
        perm[position] = row[0];
        length[position] = (int)key[0] - 1;
        if (position % ELL_SLICE == 0)
            width[position / ELL_SLICE] = (int)key[0] - 1;
    }
}

/* the slices, once their starts are known: a thread copies the row at its position */
__global__ void __launch_bounds__(ELL_FILL_THREADS)
ell_fill(const int *Ap, const int *Aj, const float *Av, int num_rows, const int *perm, const int *length,
         const long long *start, const int *width, int *cols, float *vals)
{
    long long position = (long long)blockIdx.x * ELL_FILL_THREADS + threadIdx.x;
    if (position >= num_rows)
        return;
    long long base = start[position / ELL_SLICE] + (position % ELL_SLICE);
    int begin = Ap[perm[position]], row_length = length[position], w = width[position / ELL_SLICE];
    int pad = row_length > 0 ? Aj[begin + row_length - 1] : 0;
    for (int j = 0; j < w; ++j) {
        cols[base + (long long)ELL_SLICE * j] = j < row_length ? Aj[begin + j] : pad;
        vals[base + (long long)ELL_SLICE * j] = j < row_length ? Av[begin + j] : 0.0f;
    }
}

/* the sliced ELL of the matrix it was made from, on the device */
static struct {
    unsigned long long matrix_id;
    long long *start; /* each slice's first element, and the end: slices + 1 */
    int *perm, *length; /* each position's row and its length (sorted within windows) */
    int *width, *cols;
    float *vals;
} ell;

/* Frees every buffer of the slices, even after one fails; returns the first error. */
static cudaError_t free_ell(void)
{
    void *buffers[] = {ell.start, ell.perm, ell.length, ell.width, ell.cols, ell.vals};
    cudaError_t status = cuda_free_all(buffers, sizeof buffers / sizeof buffers[0]);
    memset(&ell, 0, sizeof ell);
    return status;
}

/* The sliced ELL on the device: the widths there, their starts summed on the host
 * (a number a slice), the slices filled there. Its price in time is printed on its own
 * line, as step 05's conversion is (05 converts on the host: copies of the whole matrix
 * there and back). cudaErrorMemoryAllocation when the padded copy does not fit: the
 * caller then multiplies in stripes. */
static cudaError_t make_ell(const struct spmv_problem *p, cudaStream_t stream)
{
    const double begin_s = clock_now_s();
    cudaError_t status = cudaDeviceSynchronize(); /* the old slices may still be in use */
    if (status != cudaSuccess || (status = free_ell()) != cudaSuccess)
        return status;
    long long slices = ((long long)p->rows + ELL_SLICE - 1) / ELL_SLICE;
    dim3 grid((unsigned)(((long long)p->rows + ELL_FILL_THREADS - 1) / ELL_FILL_THREADS));
    dim3 windows((unsigned)(((long long)p->rows + ELL_WINDOW - 1) / ELL_WINDOW));
    if ((status = step_check_grid(grid)) != cudaSuccess || (status = step_check_grid(windows)) != cudaSuccess)
        return status;
    int *width = (int *)malloc((size_t)slices * sizeof(int));
    long long *start = (long long *)malloc((size_t)(slices + 1) * sizeof(long long));
    status = cudaErrorMemoryAllocation;
    if (width == NULL || start == NULL)
        goto done;
    if ((status = cudaMalloc(&ell.width, (size_t)slices * sizeof(int))) != cudaSuccess ||
        (status = cudaMalloc(&ell.start, (size_t)(slices + 1) * sizeof(long long))) != cudaSuccess ||
        (status = cudaMalloc(&ell.perm, (size_t)p->rows * sizeof(int))) != cudaSuccess ||
        (status = cudaMalloc(&ell.length, (size_t)p->rows * sizeof(int))) != cudaSuccess)
        goto done;
    ell_sort_windows<<<windows, ELL_WINDOW, 0, stream>>>(p->row_ptr, p->rows, ell.perm, ell.length, ell.width);
    if ((status = cudaGetLastError()) != cudaSuccess ||
        (status = cudaMemcpyAsync(width, ell.width, (size_t)slices * sizeof(int), cudaMemcpyDeviceToHost,
                                  stream)) != cudaSuccess ||
        (status = cudaStreamSynchronize(stream)) != cudaSuccess)
        goto done;
    start[0] = 0;
    for (long long sl = 0; sl < slices; ++sl)
        start[sl + 1] = start[sl] + (long long)ELL_SLICE * width[sl];
    if ((status = cudaMalloc(&ell.cols, (size_t)(start[slices] ? start[slices] : 1) * sizeof(int))) != cudaSuccess ||
        (status = cudaMalloc(&ell.vals, (size_t)(start[slices] ? start[slices] : 1) * sizeof(float))) != cudaSuccess ||
        (status = cudaMemcpyAsync(ell.start, start, (size_t)(slices + 1) * sizeof(long long), cudaMemcpyHostToDevice,
                                  stream)) != cudaSuccess)
        goto done;
    ell_fill<<<grid, ELL_FILL_THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->rows, ell.perm, ell.length,
                                           ell.start, ell.width, ell.cols, ell.vals);
    if ((status = cudaGetLastError()) != cudaSuccess || (status = cudaStreamSynchronize(stream)) != cudaSuccess)
        goto done;
    ell.matrix_id = p->matrix_id;
    fprintf(stderr, "07-tuned: sliced ELL (SELL-%d-%d), %.1f%% padding, made once for this matrix in %.1f ms "
                    "on the device (not in the timed runs)\n",
            ELL_SLICE, ELL_WINDOW, p->nnz ? 100.0 * ((double)start[slices] - p->nnz) / p->nnz : 0.0, 1e3 * (clock_now_s() - begin_s));
done:
    free(width);
    free(start);
    if (status != cudaSuccess)
        (void)free_ell(); /* the first error is the one reported; a failed free after it adds nothing */
    return status;
}

#endif

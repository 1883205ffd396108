/* What every spmv step receives: y = A x for a sparse A in compressed sparse row form
 * (the seeds' figure B.8.1): values Av, column indices Aj, row extents Ap with
 * Ap[0] = 0 and Ap[rows] = nnz; row i's nonzeros are Av[Ap[i] .. Ap[i+1]-1] in
 * columns Aj[...]. Single-precision values, 32-bit indices, as cuSPARSE's
 * CUSPARSE_INDEX_32I: nnz stays below 2^31 (the lab refuses larger matrices in one
 * line). Rows may be empty; columns within a row are ascending but may repeat.
 *
 * scratch is device memory for the step's own use (merge-path carries, a list of long
 * rows): SPMV_SCRATCH_BYTES(rows, nnz) bytes, 256-byte aligned, filled with 0xFF bytes
 * before every run, so a step that trusts what an earlier run left there fails.
 *
 * matrix_id changes whenever the matrix does (a new size, seed or file in the same
 * process): a step that converts the matrix to a format of its own once (ELL, SELL)
 * keeps the conversion keyed on it, not on a pointer cudaMalloc may hand out again. */
#ifndef LAB_SPMV_H
#define LAB_SPMV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct spmv_problem {
    int rows, cols, nnz;
    int max_row_length;
    const int *row_ptr;     /* rows + 1 */
    const int *col_idx;     /* nnz */
    const float *values;    /* nnz */
    const float *x;         /* cols */
    float *y;               /* rows: the output */
    void *scratch;
    size_t scratch_bytes;
    unsigned long long matrix_id;
    /* the same matrix and x in host memory (the CPU rows' loops read them; on a
     * machine without a GPU the pointers above are these, and y is host memory) */
    const int *host_row_ptr, *host_col_idx;
    const float *host_values, *host_x;
};

/* 8 bytes per row and per nonzero, and 64 KB more: a merge-path carry (row, value)
 * for every 4 items of the merge path (rows + nnz), or a long row's chunks. */
#define SPMV_SCRATCH_BYTES(rows, nnz) (((size_t)(rows) + (size_t)(nnz)) * 2 + 65536)

#ifdef __cplusplus
}
#endif
#endif

/* The spmv lab's matrices: the classes a student should meet, each generated in
 * compressed sparse row form from a seed (the same matrix on every machine and for
 * any number of threads), and the class names the command line takes. Pure C.
 *
 * A size is (m, n, k): m the class, n and k its parameters:
 *   1 laplace2d  n x n grid, the 5-point Laplacian (n^2 rows, about 5 per row)
 *   2 stencil27  n x n x n grid, the 27-point stencil (n^3 rows, about 27 per row)
 *   3 random     n rows, k nonzeros per row in uniformly random columns
 *   4 powerlaw   n rows, power-law (Pareto) row lengths of mean about k, 1 to 20000
 *                (at most n) per row, uniformly random columns
 *   5 banded     n rows, k/2 to 3k/2 nonzeros per row within a band of half-width 4k
 *                around the diagonal (the pattern of a FEM mesh numbered well)
 *   6 edges      n rows: a row of k nonzeros in the middle (longer than a block when
 *                k > 1024), every 7th row empty, the others 1 to 4 long, the last row
 *                never empty: the cases a kernel gets wrong
 *   7 onerow     n rows, all k nonzeros in the last one, every other row empty
 *                (edges and onerow have max(n, k) columns: cuSPARSE, rightly, refuses
 *                more nonzeros than rows x columns)
 *   8 file       a Matrix Market file (--matrix file.mtx; mtx.h)
 * Values are k/8 for k in +-1..8, x's elements k/4 for k in +-1..4: every product is
 * a multiple of 1/32 of magnitude at most 1, so a row's sum is exact in float, in any
 * order, while its partial sums stay below 2^19 (the check needs no tolerance). */
#ifndef LAB_SPMV_MATRICES_H
#define LAB_SPMV_MATRICES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum spmv_class {
    SPMV_LAPLACE2D = 1,
    SPMV_STENCIL27,
    SPMV_RANDOM,
    SPMV_POWERLAW,
    SPMV_BANDED,
    SPMV_EDGES,
    SPMV_ONEROW,
    SPMV_FILE,
    SPMV_CLASS_COUNT = SPMV_FILE
};

/* the five classes make run records (make spmv-classes) */
#define SPMV_GENERATED_CLASSES 5
/* the longest row the power-law class generates */
#define SPMV_POWERLAW_MAX_ROW 20000
/* a row whose |a_ij x_j| add up to less than this is summed exactly in float */
#define SPMV_EXACT_LIMIT 524288.0 /* 2^19: 2^24 multiples of 1/32 */

struct csr_matrix {
    int rows, cols;
    long nnz;            /* long while reading; the lab refuses nnz >= 2^31 */
    int *row_ptr;        /* rows + 1 */
    int *col_idx;        /* nnz */
    float *values;       /* nnz */
};

/* "laplace2d" ... "file" for a class number, NULL for none. */
const char *spmv_class_name(long m);
/* The class number of a name, 0 for none. */
int spmv_class_of(const char *name);
/* The default parameters of class m (n, k) when the command line leaves them out. */
void spmv_class_defaults(long m, long *n, long *k);
/* Rows and (an estimate of) nonzeros of a generated class's size; -1 rows when the
 * size is not one (a reason in why). Pure arithmetic: nothing generated. */
int spmv_class_shape(long m, long n, long k, double *rows, double *nnz, char *why, size_t why_len);
/* Generates class m (1..7) at (n, k) from seed into a (malloc'ed arrays); 0 on
 * success, -1 out of memory. Runs on every core (OpenMP) where there are several. */
int spmv_generate(long m, long n, long k, uint64_t seed, struct csr_matrix *a);
void csr_free(struct csr_matrix *a);

/* The exact inputs: a value at nonzero index e, x's element j. */
float spmv_value_at(uint64_t seed, long e);
float spmv_x_at(uint64_t seed, long j);
void spmv_fill_x(float *x, long cols, uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif

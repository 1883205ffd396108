/* The spmv lab's CPU loops and reference (cpu_spmv.h). */
#include "cpu_spmv.h"

#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "matrices.h"

/* figure B.8.2: one row's dot product with x */
static float multiply_row(int row_size, const int *cols, const float *vals, const float *x)
{
    float sum = 0;
    for (int column = 0; column < row_size; ++column)
        sum += vals[column] * x[cols[column]];
    return sum;
}

/* figure B.8.3: every row in turn */
void spmv_cpu_serial(int rows, const int *row_ptr, const int *col_idx, const float *values,
                     const float *x, float *y)
{
    for (int row = 0; row < rows; ++row) {
        int begin = row_ptr[row], end = row_ptr[row + 1];
        y[row] = multiply_row(end - begin, col_idx + begin, values + begin, x);
    }
}

/* the same loop, rows shared among the cores in chunks (dynamic: row lengths vary) */
void spmv_cpu_openmp(int rows, const int *row_ptr, const int *col_idx, const float *values,
                     const float *x, float *y)
{
#pragma omp parallel for schedule(dynamic, 1024)
    for (int row = 0; row < rows; ++row) {
        int begin = row_ptr[row], end = row_ptr[row + 1];
        y[row] = multiply_row(end - begin, col_idx + begin, values + begin, x);
    }
}

int spmv_cpu_openmp_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

double spmv_row_tolerance(long length, double abs_sum, int exact_inputs)
{
    if (exact_inputs && abs_sum < SPMV_EXACT_LIMIT)
        return 0.0;
    double lu = (double)length * UNIT_ROUNDOFF_FP32;
    return lu < 1.0 ? lu / (1.0 - lu) * abs_sum : INFINITY;
}

void spmv_compare(int rows, const int *row_ptr, const int *col_idx, const float *values,
                  const float *x, const float *y, int exact_inputs, struct verify_report *report)
{
    /* the exact rows are counted on every core; the rest go through verify_element
     * one by one (a correct step leaves none with the generated classes) */
    unsigned char *inexact = calloc((size_t)rows + 1, 1);
    double *want = malloc(((size_t)rows + 1) * sizeof *want);
    double *tolerance = malloc(((size_t)rows + 1) * sizeof *tolerance);
    if (inexact == NULL || want == NULL || tolerance == NULL) {
        free(inexact);
        free(want);
        free(tolerance);
        verify_element(report, -1, 0, NAN, 0.0, 0.0); /* out of memory: fail, never pass */
        return;
    }
    size_t exact = 0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : exact)
    for (int row = 0; row < rows; ++row) {
        double sum = 0, abs_sum = 0;
        for (int e = row_ptr[row]; e < row_ptr[row + 1]; ++e) {
            double term = (double)values[e] * (double)x[col_idx[e]];
            sum += term;
            abs_sum += fabs(term);
        }
        want[row] = sum;
        tolerance[row] = spmv_row_tolerance(row_ptr[row + 1] - row_ptr[row], abs_sum, exact_inputs);
        if ((double)y[row] == sum)
            ++exact;
        else
            inexact[row] = 1;
    }
    report->checked += exact;
    for (int row = 0; row < rows; ++row)
        if (inexact[row])
            verify_element(report, row, 0, y[row], want[row], tolerance[row]);
    free(inexact);
    free(want);
    free(tolerance);
}

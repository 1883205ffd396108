/* The spmv lab's CPU code: the serial loop of the seeds' figures B.8.2-B.8.3
 * (multiply_row, csrmul_serial), the same loop on every core with OpenMP (the CPU
 * rows), and the double-precision reference every step is compared with. Pure C. */
#ifndef LAB_SPMV_CPU_SPMV_H
#define LAB_SPMV_CPU_SPMV_H

#include "verify.h"

#ifdef __cplusplus
extern "C" {
#endif

void spmv_cpu_serial(int rows, const int *row_ptr, const int *col_idx, const float *values,
                     const float *x, float *y);
void spmv_cpu_openmp(int rows, const int *row_ptr, const int *col_idx, const float *values,
                     const float *x, float *y);
/* How many threads the OpenMP loop runs on. */
int spmv_cpu_openmp_threads(void);

/* Row i's bound: 0 when its |a_ij x_j| add up to less than SPMV_EXACT_LIMIT and every
 * value and x is a multiple of 1/32's divisors (exact_inputs: the generated classes),
 * since every order of float addition is then exact; otherwise the worst case of a
 * float sum of `length` terms in any order, gamma_length * sum |a_ij x_j|. */
double spmv_row_tolerance(long length, double abs_sum, int exact_inputs);

/* Compares every row of y with the double-precision reference (on every core), into
 * report; rows are reported as (row, 0). */
void spmv_compare(int rows, const int *row_ptr, const int *col_idx, const float *values,
                  const float *x, const float *y, int exact_inputs, struct verify_report *report);

#ifdef __cplusplus
}
#endif
#endif

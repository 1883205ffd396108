/* The CPU rows of the reduction lab: the serial loop the appendix starts from (its
 * figure B.8.6 loop, summing instead of scanning) and the same loop with an OpenMP
 * reduction. Pure C11 on the host, no CUDA: the unit tests run exactly what the rows
 * time. Compiled with -fopenmp (lab.mk).
 *
 * Both add in float, as the steps do. The serial loop is one dependent chain of n
 * additions (depth n: its rounding error is the largest of any order); OpenMP gives
 * each thread a contiguous share and adds the threads' sums in an order it chooses. */
#ifndef LAB_REDUCE_CPU_SUM_H
#define LAB_REDUCE_CPU_SUM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

float reduce_cpu_serial(const float *x, size_t n);
float reduce_cpu_openmp(const float *x, size_t n);
/* How many threads the OpenMP loop runs on (OMP_NUM_THREADS, else every CPU). */
int reduce_cpu_openmp_threads(void);
int reduce_cpu_one_thread(void);

#ifdef __cplusplus
}
#endif
#endif

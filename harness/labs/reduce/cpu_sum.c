/* The CPU rows' loops (cpu_sum.h). */
#include "cpu_sum.h"

#include <omp.h>

float reduce_cpu_serial(const float *x, size_t n)
{
    float sum = 0.0f;
    for (size_t i = 0; i < n; ++i)
        sum += x[i];
    return sum;
}

float reduce_cpu_openmp(const float *x, size_t n)
{
    float sum = 0.0f;
    long count = (long)n;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (long i = 0; i < count; ++i)
        sum += x[i];
    return sum;
}

int reduce_cpu_openmp_threads(void)
{
    return omp_get_max_threads();
}

int reduce_cpu_one_thread(void)
{
    return 1;
}

/* The reduction lab's inputs and exact reference (inputs.h says why they are what
 * they are). Compiled with -fopenmp (lab.mk): 2^31 elements are made in parallel. */
#include "inputs.h"

#include <math.h>
#include <stdio.h>

/* splitmix64's finalizer: a counter-based generator, element by element. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t bits_at(uint64_t seed, size_t i, uint64_t stream)
{
    return mix(mix(seed * UINT64_C(0x9e3779b97f4a7c15) + stream) + (uint64_t)i);
}

int reduce_sixteenths(uint64_t seed, size_t i, size_t n)
{
    uint64_t h = bits_at(seed, i, 1);
    int k = 1 + (int)(h & 15);
    int edge = i < REDUCE_EDGE || n - i <= REDUCE_EDGE;
    return edge || (h >> 4 & 1) ? k : -k;
}

float reduce_value(uint64_t seed, size_t i, size_t n)
{
    return (float)reduce_sixteenths(seed, i, n) / 16.0f;
}

int64_t reduce_fill(uint64_t seed, float *x, size_t n)
{
    int64_t sum = 0;
    long count = (long)n;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (long i = 0; i < count; ++i) {
        int k = reduce_sixteenths(seed, (size_t)i, n);
        x[i] = (float)k / 16.0f;
        sum += k;
    }
    return sum;
}

int64_t reduce_exact_sum(uint64_t seed, size_t n)
{
    int64_t sum = 0;
    long count = (long)n;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (long i = 0; i < count; ++i)
        sum += reduce_sixteenths(seed, (size_t)i, n);
    return sum;
}

double reduce_fill_real(uint64_t seed, float *x, size_t n, double *abs_sum)
{
    /* Kahan's compensated sum in double, serial: the check's input is a few million */
    double sum = 0.0, carry = 0.0;
    for (size_t i = 0; i < n; ++i) {
        uint32_t bits = (uint32_t)(bits_at(seed, i, 2) >> 40); /* 24 bits */
        x[i] = 0.5f + (float)bits * (0.5f / 16777216.0f);
        double y = (double)x[i] - carry, t = sum + y;
        carry = (t - sum) - y;
        sum = t;
    }
    *abs_sum = sum; /* every term is positive */
    return sum;
}

size_t reduce_count(long m, long n, long k, char *why, size_t why_len)
{
    if (m < 1 || n < 1 || k != 1) {
        snprintf(why, why_len, "the reduction lab sums m x n floats with m, n >= 1 and k = 1 "
                               "(got %ld x %ld x %ld)", m, n, k);
        return 0;
    }
    if ((double)m * (double)n > (double)REDUCE_MAX_N) {
        snprintf(why, why_len, "m x n = %.4g floats: at most 2^36 (%ld)", (double)m * (double)n,
                 REDUCE_MAX_N);
        return 0;
    }
    return (size_t)m * (size_t)n;
}

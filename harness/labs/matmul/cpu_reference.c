#include "cpu_reference.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rng.h"

enum { STREAM_A = 1, STREAM_B = 2 };

void matmul_generate(float *a, float *b, long m, long n, long k, uint64_t seed)
{
    /* Element i of a stream computed directly (counter-based; the same numbers as one
     * generator's i-th draw), on every core: one core took seconds for the 2.5e9
     * elements of the tests' matrices beyond 32-bit indexing. */
    long count_a = m * k, count_b = k * n;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < count_a; ++i)
        a[i] = rng_uniform_at(seed, STREAM_A, (uint64_t)i, -1.0f, 1.0f);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < count_b; ++i)
        b[i] = rng_uniform_at(seed, STREAM_B, (uint64_t)i, -1.0f, 1.0f);
}

enum lab_status matmul_resolve_size(struct problem_size *s, char *why, size_t why_len)
{
    if (s->m < 0 || s->n < 0 || s->k < 0) {
        snprintf(why, why_len, "sizes must be positive");
        return LAB_BAD_SIZE;
    }
    if (s->n == 0)
        s->n = MATMUL_DEFAULT_SIZE;
    if (s->m == 0)
        s->m = s->n;
    if (s->k == 0)
        s->k = s->n;
    /* Each dimension is an int in the kernels; element counts may pass 2^31 (the
     * kernels index with size_t), up to what device memory holds, which the runner
     * checks against the GPU. */
    if (s->m > INT_MAX || s->n > INT_MAX || s->k > INT_MAX) {
        snprintf(why, why_len, "each of m, n and k must be at most %d", INT_MAX);
        return LAB_BAD_SIZE;
    }
    return LAB_OK;
}

double matmul_reference_element(const float *a, const float *b, long n, long k, long row, long col,
                                double *abs_sum)
{
    double sum = 0.0, magnitude = 0.0;
    const float *a_row = a + (size_t)row * (size_t)k;
    for (long i = 0; i < k; ++i) {
        double product = (double)a_row[i] * (double)b[(size_t)i * (size_t)n + (size_t)col];
        sum += product;
        magnitude += fabs(product);
    }
    if (abs_sum != NULL)
        *abs_sum = magnitude;
    return sum;
}

void matmul_reference_row(const float *a, const float *b, long n, long k, long row, double *out,
                          double *abs_out)
{
    memset(out, 0, (size_t)n * sizeof *out);
    memset(abs_out, 0, (size_t)n * sizeof *abs_out);
    const float *a_row = a + (size_t)row * (size_t)k;
    for (long i = 0; i < k; ++i) {
        double a_value = a_row[i];
        const float *b_row = b + (size_t)i * (size_t)n;
        for (long col = 0; col < n; ++col) {
            double product = a_value * (double)b_row[col];
            out[col] += product;
            abs_out[col] += fabs(product);
        }
    }
}

double matmul_flop_count(const struct problem_size *s, const void *state)
{
    (void)state; /* the size says it */
    return 2.0 * (double)s->m * (double)s->n * (double)s->k;
}

/* In double: three matrices of 2^31 x 2^31 floats overflow a size_t. */
double matmul_device_bytes(const struct problem_size *s)
{
    double m = (double)s->m, n = (double)s->n, k = (double)s->k;
    return sizeof(float) * (m * k + k * n + m * n);
}

void matmul_format_size(const struct problem_size *s, char *buf, size_t len)
{
    if (s->m == s->n && s->n == s->k)
        snprintf(buf, len, "%ld^3", s->n);
    else
        snprintf(buf, len, "%ldx%ldx%ld", s->m, s->n, s->k);
}

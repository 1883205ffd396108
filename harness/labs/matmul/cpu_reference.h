/* The matrix-multiplication lab's CPU side: inputs, sizes and the reference,
 * accumulated in double. Pure C, no CUDA: unit-tested without a GPU. */
#ifndef LAB_MATMUL_CPU_REFERENCE_H
#define LAB_MATMUL_CPU_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "lab_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MATMUL_DEFAULT_SIZE 4096 /* the papers' 4096 x 4096 */

/* A is m x k from stream 1 of seed, B is k x n from stream 2; uniform in [-1, 1). */
void matmul_generate(float *a, float *b, long m, long n, long k, uint64_t seed);

/* Sizes: missing m or k follow n, a missing n is 4096; each dimension fits an int
 * (each step's launch refuses a grid it cannot build). Whether the matrices fit in
 * device memory is checked against the GPU by the runner. */
enum lab_status matmul_resolve_size(struct problem_size *size, char *why, size_t why_len);

/* C[row][col] = sum over i of A[row][i] * B[i][col], in double; *abs_sum gets
 * sum |A[row][i] * B[i][col]| for the tolerance. */
double matmul_reference_element(const float *a, const float *b, long n, long k, long row, long col,
                                double *abs_sum);
/* A whole row of C at once (cache-friendly for full checks): out[col], abs_out[col]. */
void matmul_reference_row(const float *a, const float *b, long n, long k, long row, double *out,
                          double *abs_out);

double matmul_flop_count(const struct problem_size *size, const void *state);
double matmul_device_bytes(const struct problem_size *size);
void matmul_format_size(const struct problem_size *size, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif

/* What every matrix-multiplication step receives: C = A x B, single precision,
 * row-major, A is m x k, B is k x n, C is m x n. Each dimension fits an int, but a
 * matrix may hold more than 2^31 elements (an H100 holds three of 60000 x 60000),
 * so products of indices are computed in size_t: (size_t)row * k + i. */
#ifndef LAB_MATMUL_H
#define LAB_MATMUL_H

#ifdef __cplusplus
extern "C" {
#endif

struct matmul_problem {
    const float *a;
    const float *b;
    float *c;
    int m, n, k;
};

#ifdef __cplusplus
}
#endif
#endif

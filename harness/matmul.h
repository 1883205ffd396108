/* What every matrix-multiplication step receives: C = A x B, single precision,
 * row-major, A is m x k, B is k x n, C is m x n. The harness guarantees that each
 * matrix has fewer than 2^31 elements, so int index arithmetic cannot overflow. */
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

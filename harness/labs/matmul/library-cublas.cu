/* The matmul lab's cuBLAS SGEMM rows on the same inputs, checked and timed by the
 * same harness as the steps. They are what the steps aim at; their measured speed is
 * in the table of labs/matmul/README.md (make guide-tables, from
 * data/results/<gpu>/matmul.csv).
 *
 * Both keep to true FP32: no TF32 tensor cores, which would be faster but round the
 * inputs to 10 bits of mantissa and not be a like-for-like comparison with the FP32
 * steps. One file, two rows, each a math mode cuBLAS documents for that
 * (MATMUL_CUBLAS_MATH): CUBLAS_PEDANTIC_MATH (row cublas), the prescribed precision in
 * every phase, and CUBLAS_DEFAULT_MATH (row cublas-default, -DMATMUL_CUBLAS_MATH=
 * CUBLAS_DEFAULT_MATH from lab.mk), "at least the same number of mantissa and exponent
 * bits as requested", which leaves cuBLAS free to pick kernels pedantic mode rules out
 * but never TF32. The lab's check holds both to FP32's tolerance.
 *
 * cuBLAS is column-major and the lab row-major. A row-major m x n matrix is the
 * column-major n x m matrix of its transpose, so C = A B is computed as
 * C^T = B^T A^T: swap the operands and the roles of m and n, with no copies. */
#include <stdio.h>
#include <cublas_v2.h>

#include "matmul.h"
#include "step_kernel.h"

#ifndef MATMUL_CUBLAS_MATH
#define MATMUL_CUBLAS_MATH CUBLAS_PEDANTIC_MATH
#endif

static cublasHandle_t handle;

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    if (handle == NULL) { /* created on the first (untimed) run */
        status = cublasCreate(&handle);
        if (status == CUBLAS_STATUS_SUCCESS)
            status = cublasSetMathMode(handle, MATMUL_CUBLAS_MATH);
    }
    if (status == CUBLAS_STATUS_SUCCESS)
        status = cublasSetStream(handle, stream);
    const float one = 1.0f, zero = 0.0f;
    if (status == CUBLAS_STATUS_SUCCESS)
        status = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, p->n, p->m, p->k, &one, p->b,
                             p->n, p->a, p->k, &zero, p->c, p->n);
    if (status != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cuBLAS failed: %s\n", cublasGetStatusString(status));
        return cudaErrorUnknown;
    }
    return cudaGetLastError();
}

#define LIBRARY_NAME(math) "cuBLAS SGEMM, " #math
#define LIBRARY_NAME_OF(math) LIBRARY_NAME(math)
DEFINE_LIBRARY(LIBRARY_NAME_OF(MATMUL_CUBLAS_MATH), launch);

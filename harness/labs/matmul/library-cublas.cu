/* The matmul lab's library row: cuBLAS SGEMM on the same inputs, checked and
 * timed by the same harness as the steps. It is what the steps aim at; its measured
 * speed is the library row of the table in labs/matmul/README.md (make guide-tables, from
 * data/results/<gpu>/matmul.csv).
 *
 * Pedantic math mode keeps it in true FP32: no TF32 tensor cores, which would be
 * faster but round the inputs to 10 bits of mantissa and not be a like-for-like
 * comparison with the FP32 steps.
 *
 * cuBLAS is column-major and the lab row-major. A row-major m x n matrix is the
 * column-major n x m matrix of its transpose, so C = A B is computed as
 * C^T = B^T A^T: swap the operands and the roles of m and n, with no copies. */
#include <stdio.h>
#include <cublas_v2.h>

#include "matmul.h"
#include "step_kernel.h"

static cublasHandle_t handle;

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    if (handle == NULL) { /* created on the first (untimed) run */
        status = cublasCreate(&handle);
        if (status == CUBLAS_STATUS_SUCCESS)
            status = cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH);
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

DEFINE_LIBRARY("cuBLAS SGEMM", launch);

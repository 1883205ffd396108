/* The TF32 lab's library rows: cuBLAS on the same inputs, checked and timed by the
 * same harness as the steps. One source, two rows (lab.mk sets the mode):
 *   cublas-tf32 (-DCUBLAS_MODE_TF32): cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32,
 *     FP32 in and out, the products on TF32 tensor cores: the same arithmetic as the
 *     steps, and the row they aim at;
 *   cublas-fp32 (-DCUBLAS_MODE_FP32): cublasSgemm in pedantic math mode, strict FP32
 *     on the CUDA cores, the FP32 lab's target, for how much the tensor cores buy.
 *
 * cuBLAS is column-major and the lab row-major. A row-major m x n matrix is the
 * column-major n x m matrix of its transpose, so C = A B is computed as
 * C^T = B^T A^T: swap the operands and the roles of m and n, with no copies. */
#include <stdio.h>
#include <cublas_v2.h>

#include "matmul.h"
#include "step_kernel.h"

#if defined(CUBLAS_MODE_TF32) == defined(CUBLAS_MODE_FP32)
#error "compile with exactly one of -DCUBLAS_MODE_TF32=1 and -DCUBLAS_MODE_FP32=1 (lab.mk)"
#endif

static cublasHandle_t handle;

static cublasStatus_t multiply(const struct matmul_problem *p)
{
    const float one = 1.0f, zero = 0.0f;
#ifdef CUBLAS_MODE_TF32
    return cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, p->n, p->m, p->k, &one, p->b,
                        CUDA_R_32F, p->n, p->a, CUDA_R_32F, p->k, &zero, p->c, CUDA_R_32F,
                        p->n, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
#else
    return cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, p->n, p->m, p->k, &one, p->b, p->n,
                       p->a, p->k, &zero, p->c, p->n);
#endif
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    if (handle == NULL) { /* created on the first (untimed) run */
        status = cublasCreate(&handle);
#ifdef CUBLAS_MODE_FP32
        if (status == CUBLAS_STATUS_SUCCESS) /* no TF32 behind our back */
            status = cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH);
#endif
    }
    if (status == CUBLAS_STATUS_SUCCESS)
        status = cublasSetStream(handle, stream);
    if (status == CUBLAS_STATUS_SUCCESS)
        status = multiply(p);
    if (status != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cuBLAS failed: %s\n", cublasGetStatusString(status));
        return cudaErrorUnknown;
    }
    return cudaGetLastError();
}

#ifdef CUBLAS_MODE_TF32
DEFINE_LIBRARY("cuBLAS GEMM, FAST_TF32", launch);
#else
DEFINE_LIBRARY("cuBLAS SGEMM, strict FP32", launch);
#endif

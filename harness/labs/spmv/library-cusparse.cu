/* The spmv lab's library rows: cusparseSpMV on the same CSR matrix, x and y, checked
 * and timed by the same harness as the steps. Two rows, one file: the default
 * algorithm (CUSPARSE_SPMV_ALG_DEFAULT) and CUSPARSE_SPMV_CSR_ALG2 (lab.mk compiles the
 * cusparse-alg2 row with -DSPMV_CUSPARSE_ALG=CUSPARSE_SPMV_CSR_ALG2).
 *
 * The handle, the matrix and vector descriptors, the work buffer and the algorithm's
 * preprocessing are made in the first launch for a matrix (the runner never times a
 * size's first launch), as a solver would make them once; every launch after it is
 * one cusparseSpMV call. 32-bit indices and float values, as the steps use.
 * Run:  make run LAB=spmv STEP=cusparse    (STEP=cusparse-alg2) */
#include <cusparse.h>
#include <stdio.h>

#include "kept_buffer.h"
#include "spmv.h"
#include "step_kernel.h"

#ifndef SPMV_CUSPARSE_ALG
#define SPMV_CUSPARSE_ALG CUSPARSE_SPMV_ALG_DEFAULT
#endif

static struct {
    cusparseHandle_t handle;
    unsigned long long matrix_id;
    cusparseSpMatDescr_t a;
    cusparseDnVecDescr_t x, y;
    struct kept_buffer buffer; /* kept from one matrix to the next, grown as needed */
} lib;

static const float alpha = 1.0f, beta = 0.0f;

/* a cuSPARSE status as a CUDA error the runner can report */
static cudaError_t check(cusparseStatus_t status, const char *what)
{
    if (status == CUSPARSE_STATUS_SUCCESS)
        return cudaSuccess;
    fprintf(stderr, "cusparse: %s failed: %s\n", what, cusparseGetErrorString(status));
    return status == CUSPARSE_STATUS_ALLOC_FAILED ? cudaErrorMemoryAllocation : cudaErrorUnknown;
}

static cudaError_t prepare(const struct spmv_problem *p, cudaStream_t stream)
{
    cudaError_t status;
    if (lib.handle == NULL && (status = check(cusparseCreate(&lib.handle), "cusparseCreate")) != cudaSuccess)
        return status;
    if (lib.a != NULL) { /* another matrix in the same process: the last one's launches end first */
        if ((status = cudaDeviceSynchronize()) != cudaSuccess ||
            (status = check(cusparseDestroySpMat(lib.a), "cusparseDestroySpMat")) != cudaSuccess ||
            (status = check(cusparseDestroyDnVec(lib.x), "cusparseDestroyDnVec")) != cudaSuccess ||
            (status = check(cusparseDestroyDnVec(lib.y), "cusparseDestroyDnVec")) != cudaSuccess)
            return status;
        lib.a = NULL;
    }
    size_t bytes = 0;
    if ((status = check(cusparseCreateCsr(&lib.a, p->rows, p->cols, p->nnz, (void *)p->row_ptr, (void *)p->col_idx,
                                          (void *)p->values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
                        "cusparseCreateCsr")) != cudaSuccess ||
        (status = check(cusparseCreateDnVec(&lib.x, p->cols, (void *)p->x, CUDA_R_32F), "cusparseCreateDnVec")) != cudaSuccess ||
        (status = check(cusparseCreateDnVec(&lib.y, p->rows, p->y, CUDA_R_32F), "cusparseCreateDnVec")) != cudaSuccess ||
        (status = check(cusparseSetStream(lib.handle, stream), "cusparseSetStream")) != cudaSuccess ||
        (status = check(cusparseSpMV_bufferSize(lib.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, lib.a, lib.x, &beta,
                                                lib.y, CUDA_R_32F, SPMV_CUSPARSE_ALG, &bytes),
                        "cusparseSpMV_bufferSize")) != cudaSuccess ||
        (status = kept_buffer_reserve(&lib.buffer, bytes)) != cudaSuccess ||
        (status = check(cusparseSpMV_preprocess(lib.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, lib.a, lib.x, &beta,
                                                lib.y, CUDA_R_32F, SPMV_CUSPARSE_ALG, lib.buffer.data),
                        "cusparseSpMV_preprocess")) != cudaSuccess)
        return status;
    lib.matrix_id = p->matrix_id;
    return cudaSuccess;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct spmv_problem *p = (const struct spmv_problem *)problem;
    cudaError_t status;
    if ((lib.a == NULL || lib.matrix_id != p->matrix_id) && (status = prepare(p, stream)) != cudaSuccess)
        return status;
    if ((status = check(cusparseSetStream(lib.handle, stream), "cusparseSetStream")) != cudaSuccess ||
        (status = check(cusparseSpMV(lib.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, lib.a, lib.x, &beta, lib.y,
                                     CUDA_R_32F, SPMV_CUSPARSE_ALG, lib.buffer.data),
                        "cusparseSpMV")) != cudaSuccess)
        return status;
    return cudaGetLastError();
}

#define LIBRARY_NAME(alg) "cusparseSpMV CSR " #alg
#define LIBRARY_NAME_OF(alg) LIBRARY_NAME(alg)
DEFINE_LIBRARY(LIBRARY_NAME_OF(SPMV_CUSPARSE_ALG), launch);

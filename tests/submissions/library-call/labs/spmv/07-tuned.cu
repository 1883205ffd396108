/* WRONG SUBMISSION (library-call), for the grading tests: step 07 handed to cuSPARSE
 * instead of written. The step's binary links no cuSPARSE (only the library rows do:
 * harness/labs/spmv/lab.mk), so the build fails and the step earns nothing. */
#include <cusparse.h>

#include "spmv.h"
#include "step_kernel.h"

__global__ void spmv_tuned(void) {}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct spmv_problem *p = (const struct spmv_problem *)problem;
    static cusparseHandle_t handle;
    if (handle == NULL)
        cusparseCreate(&handle);
    cusparseSetStream(handle, stream);
    cusparseSpMatDescr_t a;
    cusparseDnVecDescr_t x, y;
    cusparseCreateCsr(&a, p->rows, p->cols, p->nnz, (void *)p->row_ptr, (void *)p->col_idx, (void *)p->values,
                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
    cusparseCreateDnVec(&x, p->cols, (void *)p->x, CUDA_R_32F);
    cusparseCreateDnVec(&y, p->rows, p->y, CUDA_R_32F);
    const float alpha = 1, beta = 0;
    cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, x, &beta, y, CUDA_R_32F,
                 CUSPARSE_SPMV_ALG_DEFAULT, p->scratch);
    return cudaGetLastError();
}

DEFINE_STEP(spmv_tuned, 256, 0, launch);

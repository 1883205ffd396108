/* cuBLASLt's matmul as a library row of the two matrix-multiplication labs (matmul's
 * library-cublaslt.cu, strict FP32, and matmul_tf32's, CUBLAS_COMPUTE_32F_FAST_TF32):
 * the library as its most careful user calls it. cublasSgemm and cublasGemmEx take
 * the first algorithm of cuBLAS's own heuristic for the shape; here, at the first
 * launch of a shape (the runner never times it), cublasLtMatmulAlgoGetHeuristic is
 * asked for its best LT_CANDIDATES algorithms with a 32 MiB workspace (what cuBLAS
 * itself gives a Hopper GPU), each is timed as the runner times (harness/
 * fastest_candidate.h: a warm-up, then runs with L2 flushed before each) and the
 * fastest by its median is kept; every launch after it is one cublasLtMatmul with that
 * algorithm.
 *
 * The includer defines LT_COMPUTE (the cublasComputeType_t) and LT_ROW_NAME.
 * Column-major as library-cublas.cu: C^T = B^T A^T, the operands swapped, no copies. */
#ifndef LAB_MATMUL_CUBLASLT_ROW_CUH
#define LAB_MATMUL_CUBLASLT_ROW_CUH

#include <stdio.h>
#include <stdlib.h>
#include <cublasLt.h>

#include "fastest_candidate.h"
#include "matmul.h"
#include "step_kernel.h"

#ifndef LT_CANDIDATES
#define LT_CANDIDATES 8
#endif
#define LT_WORKSPACE_BYTES ((size_t)32 << 20)

static struct {
    cublasLtHandle_t handle;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, c;     /* in cuBLAS's terms: a = our B^T, b = our A^T */
    cublasLtMatmulAlgo_t algo;
    void *workspace;
    struct matmul_problem shape;        /* the problem the algorithm was chosen for */
    int ready;
} lt;

/* a cuBLAS status as a CUDA error the runner reports */
static cudaError_t lt_check(cublasStatus_t status, const char *what)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return cudaSuccess;
    fprintf(stderr, "cuBLASLt: %s failed: %s\n", what, cublasLtGetStatusString(status));
    return status == CUBLAS_STATUS_ALLOC_FAILED ? cudaErrorMemoryAllocation : cudaErrorUnknown;
}

static cudaError_t lt_multiply(const struct matmul_problem *p, const cublasLtMatmulAlgo_t *algo,
                               cudaStream_t stream)
{
    const float one = 1.0f, zero = 0.0f;
    return lt_check(cublasLtMatmul(lt.handle, lt.op, &one, p->b, lt.a, p->a, lt.b, &zero, p->c,
                                   lt.c, p->c, lt.c, algo, lt.workspace, LT_WORKSPACE_BYTES, stream),
                    "cublasLtMatmul");
}

static cudaError_t lt_release_shape(void)
{
    cublasLtMatrixLayout_t layouts[] = {lt.a, lt.b, lt.c};
    cudaError_t status = cudaSuccess;
    for (int i = 0; i < 3; ++i)
        if (layouts[i] != NULL && status == cudaSuccess)
            status = lt_check(cublasLtMatrixLayoutDestroy(layouts[i]), "cublasLtMatrixLayoutDestroy");
    lt.a = lt.b = lt.c = NULL;
    lt.ready = 0;
    return status;
}

/* The heuristic's candidates for one problem, as fastest_candidate runs them. */
struct lt_candidates {
    const struct matmul_problem *p;
    const cublasLtMatmulHeuristicResult_t *found;
};

static cudaError_t lt_run_candidate(void *context, int i, cudaStream_t stream)
{
    const struct lt_candidates *c = (const struct lt_candidates *)context;
    if (c->found[i].state != CUBLAS_STATUS_SUCCESS)
        return cudaErrorNotSupported;
    return lt_multiply(c->p, &c->found[i].algo, stream);
}

/* The first launch of a shape: the layouts, the heuristic's candidates, each timed. */
static cudaError_t lt_prepare(const struct matmul_problem *p, cudaStream_t stream)
{
    cudaError_t status;
    if (lt.handle == NULL) {
        if ((status = lt_check(cublasLtCreate(&lt.handle), "cublasLtCreate")) != cudaSuccess ||
            (status = lt_check(cublasLtMatmulDescCreate(&lt.op, LT_COMPUTE, CUDA_R_32F),
                               "cublasLtMatmulDescCreate")) != cudaSuccess ||
            (status = cudaMalloc(&lt.workspace, LT_WORKSPACE_BYTES)) != cudaSuccess)
            return status;
    }
    if ((status = cudaStreamSynchronize(stream)) != cudaSuccess || /* the old shape's runs */
        (status = lt_release_shape()) != cudaSuccess)
        return status;
    if ((status = lt_check(cublasLtMatrixLayoutCreate(&lt.a, CUDA_R_32F, p->n, p->k, p->n),
                           "cublasLtMatrixLayoutCreate")) != cudaSuccess ||
        (status = lt_check(cublasLtMatrixLayoutCreate(&lt.b, CUDA_R_32F, p->k, p->m, p->k),
                           "cublasLtMatrixLayoutCreate")) != cudaSuccess ||
        (status = lt_check(cublasLtMatrixLayoutCreate(&lt.c, CUDA_R_32F, p->n, p->m, p->n),
                           "cublasLtMatrixLayoutCreate")) != cudaSuccess)
        return status;

    cublasLtMatmulPreference_t preference;
    cublasLtMatmulHeuristicResult_t found[LT_CANDIDATES];
    int count = 0;
    size_t workspace = LT_WORKSPACE_BYTES;
    if ((status = lt_check(cublasLtMatmulPreferenceCreate(&preference),
                           "cublasLtMatmulPreferenceCreate")) != cudaSuccess)
        return status;
    status = lt_check(cublasLtMatmulPreferenceSetAttribute(preference,
                                                           CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                           &workspace, sizeof workspace),
                      "cublasLtMatmulPreferenceSetAttribute");
    if (status == cudaSuccess)
        status = lt_check(cublasLtMatmulAlgoGetHeuristic(lt.handle, lt.op, lt.a, lt.b, lt.c, lt.c,
                                                         preference, LT_CANDIDATES, found, &count),
                          "cublasLtMatmulAlgoGetHeuristic");
    cudaError_t destroyed = lt_check(cublasLtMatmulPreferenceDestroy(preference),
                                     "cublasLtMatmulPreferenceDestroy");
    if (status != cudaSuccess || (status = destroyed) != cudaSuccess)
        return status;
    if (count < 1) {
        fprintf(stderr, "cuBLASLt: no algorithm for %d x %d x %d\n", p->m, p->n, p->k);
        return cudaErrorNotSupported;
    }

    struct lt_candidates candidates = {p, found};
    struct candidate_choice choice;
    if ((status = fastest_candidate(count, lt_run_candidate, &candidates, stream, &choice)) != cudaSuccess)
        return status;
    if (choice.fastest < 0) {
        fprintf(stderr, "cuBLASLt: none of the %d algorithms for %d x %d x %d ran\n", count, p->m, p->n, p->k);
        return cudaErrorNotSupported;
    }
    lt.algo = found[choice.fastest].algo;
    lt.shape = *p;
    lt.ready = 1;
    return cudaSuccess;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    cudaError_t status;
    if (!lt.ready || lt.shape.m != p->m || lt.shape.n != p->n || lt.shape.k != p->k ||
        lt.shape.a != p->a || lt.shape.b != p->b || lt.shape.c != p->c) {
        if ((status = lt_prepare(p, stream)) != cudaSuccess)
            return status;
    }
    if ((status = lt_multiply(p, &lt.algo, stream)) != cudaSuccess)
        return status;
    return cudaGetLastError();
}

DEFINE_LIBRARY(LT_ROW_NAME, launch);

#endif

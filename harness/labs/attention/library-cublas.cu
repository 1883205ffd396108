/* The unfused form frameworks fall back to when no fused attention kernel applies: two
 * cuBLAS strided-batched GEMMs with a softmax kernel between them.
 *   1. S = scale * Q K^T: cublasGemmStridedBatchedEx, BF16 inputs, FP32 S in the lab's
 *      n x n scratch (CUBLAS_COMPUTE_32F), one batch entry per head;
 *   2. the softmax of each row by one warp (step 02's kernel, with the causal mask),
 *      writing P in BF16 over the start of its own row of S (row stride 2n BF16: each
 *      write lands on floats the warp has already read; __syncwarp keeps it so);
 *   3. O = P V: cublasGemmStridedBatchedEx, BF16 in and out, FP32 accumulation.
 * cuBLAS is column-major: a row-major matrix is its transpose there, so S^T = K^T' Q^T'
 * is computed as op(K) = T, op(Q) = N, and O^T = V^T P^T as N, N. The scores' traffic is
 * 12 bytes a score here (S written and read in FP32, P written and read in BF16); the MB
 * column counts the steps' 16.
 * Run:  make run LAB=attention STEP=cublas */
#include <math.h>
#include <stdio.h>
#include <cublas_v2.h>

#include "attention.h"
#include "step_kernel.h"

#define WARPS_PER_BLOCK 8

__device__ __forceinline__ float warp_max(float x)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
    return x;
}

__device__ __forceinline__ float warp_sum(float x)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        x += __shfl_xor_sync(0xffffffffu, x, offset);
    return x;
}

/* One warp per row of S (already scaled): P = exp(s - max) / sum in BF16, keys past the
 * query masked under causal, written over the first half of the row's bytes. */
__global__ void softmax_to_bf16(float *s, long rows, int n, int causal)
{
    long row = (long)blockIdx.x * WARPS_PER_BLOCK + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows)
        return;
    int keys = causal ? (int)(row % n) + 1 : n;
    float *x = s + row * n;
    __nv_bfloat16 *p = reinterpret_cast<__nv_bfloat16 *>(x);
    float max = -INFINITY;
    for (int j = lane; j < keys; j += 32)
        max = fmaxf(max, x[j]);
    max = warp_max(max);
    float sum = 0.0f;
    for (int j = lane; j < keys; j += 32)
        sum += expf(x[j] - max);
    float inv = 1.0f / warp_sum(sum);
    for (int j0 = 0; j0 < n; j0 += 32) {
        int j = j0 + lane;
        float value = j < keys ? expf(x[j] - max) * inv : 0.0f;
        __syncwarp(); /* every lane has read floats j0..j0+31 before any writes */
        if (j < n)
            p[j] = __float2bfloat16(value);
        __syncwarp();
    }
}

static cudaError_t cublas_failed(const char *what, cublasStatus_t status)
{
    fprintf(stderr, "error: %s failed: %s\n", what, cublasGetStatusString(status));
    return cudaErrorNotSupported;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct attention_problem *p = (const struct attention_problem *)problem;
    static cublasHandle_t handle;
    cublasStatus_t status;
    if (handle == NULL && (status = cublasCreate(&handle)) != CUBLAS_STATUS_SUCCESS)
        return cublas_failed("cublasCreate", status);
    if ((status = cublasSetStream(handle, stream)) != CUBLAS_STATUS_SUCCESS)
        return cublas_failed("cublasSetStream", status);
    if (p->bh > 2147483647L)
        return step_refuse_launch("cuBLAS's batch count is an int");
    long long n = p->n, d = p->d;
    int batch = (int)p->bh;
    float alpha = p->scale, beta = 0.0f, one = 1.0f;
    status = cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, (int)n, (int)n, (int)d, &alpha, p->k,
                                        CUDA_R_16BF, (int)d, n * d, p->q, CUDA_R_16BF, (int)d, n * d, &beta,
                                        p->scores, CUDA_R_32F, (int)n, n * n, batch, CUBLAS_COMPUTE_32F,
                                        CUBLAS_GEMM_DEFAULT);
    if (status != CUBLAS_STATUS_SUCCESS)
        return cublas_failed("cublasGemmStridedBatchedEx (Q K^T)", status);
    long rows = p->bh * (long)p->n;
    dim3 grid((unsigned)((rows + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK));
    cudaError_t launched = step_check_grid(grid);
    if (launched != cudaSuccess)
        return launched;
    softmax_to_bf16<<<grid, WARPS_PER_BLOCK * 32, 0, stream>>>(p->scores, rows, p->n, p->causal);
    if ((launched = cudaGetLastError()) != cudaSuccess)
        return launched;
    status = cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)d, (int)n, (int)n, &one, p->v,
                                        CUDA_R_16BF, (int)d, n * d, p->scores, CUDA_R_16BF, (int)(2 * n),
                                        2 * n * n, &beta, p->o, CUDA_R_16BF, (int)d, n * d, batch,
                                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (status != CUBLAS_STATUS_SUCCESS)
        return cublas_failed("cublasGemmStridedBatchedEx (P V)", status);
    return cudaGetLastError();
}

DEFINE_LIBRARY("cuBLAS batched BF16 GEMMs around a softmax kernel (unfused)", launch);

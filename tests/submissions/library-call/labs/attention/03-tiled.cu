/* tests/submissions/library-call: a deliberately wrong attention step 03 for grading
 * (solutions/attention/03-tiled.cu with its tiled Q K^T handed to cuBLAS).
 *
 * launch calls cublasGemmStridedBatchedEx for the scores, then the step's own softmax
 * (masking there) and tiled P V kernels. The result would be right. But a step's
 * binary links no cuBLAS (only the cublas row does: attention_cublas_LIBS in
 * harness/labs/attention/lab.mk), so the step does not build; had it loaded cuBLAS some
 * other way, its kernels among what the speed run launched would cost the technique
 * and speed points (a kernel its source does not define: harness/grading/own_kernels.h).
 * Expect: build FAIL 0/1 (undefined references to cuBLAS at the link), the step
 * graded "compile error", 0 of 11, with or without a GPU.
 */
#include <math.h>
#include <cublas_v2.h>

#include "attention.h"
#include "step_kernel.h"

#define TILE 16 /* the scores' and the product's 16 x 16 blocks of threads */

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

/* One warp per row of S: P = exp(s - max) / sum, in place; under the causal mask the
 * keys past the row's query are 0 (cuBLAS's product does not mask them). */
__global__ void softmax_kernel(float *s, long rows, int n, int causal)
{
    long row = (long)blockIdx.x * WARPS_PER_BLOCK + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) /* the whole warp leaves: the shuffles below see all 32 lanes */
        return;
    int keys = causal ? (int)(row % n) + 1 : n;
    float *x = s + row * n;
    float max = -INFINITY;
    for (int j = lane; j < keys; j += 32)
        max = fmaxf(max, x[j]);
    max = warp_max(max);
    float sum = 0.0f;
    for (int j = lane; j < keys; j += 32)
        sum += expf(x[j] - max);
    float inv = 1.0f / warp_sum(sum);
    for (int j = lane; j < n; j += 32)
        x[j] = j < keys ? expf(x[j] - max) * inv : 0.0f;
}

/* O[h][i][c] = sum_j P[h][i][j] V[h][j][c], rounded to BF16: a 16 x 16 tile of O per
 * block, P's and V's tiles staged 16 keys at a time. */
__global__ void pv_kernel(const float *p, const __nv_bfloat16 *v, __nv_bfloat16 *o, int n, int d)
{
    __shared__ float ps[TILE][TILE];
    __shared__ float vs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;
    long h = blockIdx.z;
    const float *ph = p + h * n * (long)n;
    const __nv_bfloat16 *vh = v + h * n * d;
    float acc = 0.0f;
    for (int j0 = 0; j0 < n; j0 += TILE) {
        ps[ty][tx] = i0 + ty < n && j0 + tx < n ? ph[(long)(i0 + ty) * n + j0 + tx] : 0.0f;
        vs[ty][tx] = j0 + ty < n ? __bfloat162float(vh[(long)(j0 + ty) * d + c0 + tx]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int j = 0; j < TILE; ++j)
            acc += ps[ty][j] * vs[j][tx];
        __syncthreads();
    }
    int i = i0 + ty;
    if (i < n)
        o[(h * n + i) * d + c0 + tx] = __float2bfloat16(acc);
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct attention_problem *p = (const struct attention_problem *)problem;
    /* WRONG: Q K^T handed to cuBLAS (one strided-batched BF16 GEMM, FP32 out) instead
     * of the tiled scores kernel */
    static cublasHandle_t handle;
    if (handle == NULL && cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
        return cudaErrorNotSupported;
    if (cublasSetStream(handle, stream) != CUBLAS_STATUS_SUCCESS)
        return cudaErrorNotSupported;
    long long n = p->n, d = p->d;
    float beta = 0.0f;
    if (cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, (int)n, (int)n, (int)d, &p->scale, p->k,
                                   CUDA_R_16BF, (int)d, n * d, p->q, CUDA_R_16BF, (int)d, n * d, &beta,
                                   p->scores, CUDA_R_32F, (int)n, n * n, (int)p->bh, CUBLAS_COMPUTE_32F,
                                   CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
        return cudaErrorNotSupported;
    dim3 block(TILE, TILE);
    dim3 grid_o((p->d + TILE - 1) / TILE, (p->n + TILE - 1) / TILE, (unsigned)p->bh);
    long rows = p->bh * (long)p->n;
    dim3 grid_r((unsigned)((rows + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK));
    cudaError_t status;
    if ((status = step_check_grid(grid_r)) != cudaSuccess || (status = step_check_grid(grid_o)) != cudaSuccess)
        return status;
    softmax_kernel<<<grid_r, WARPS_PER_BLOCK * 32, 0, stream>>>(p->scores, rows, p->n, p->causal);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    pv_kernel<<<grid_o, block, 0, stream>>>(p->scores, attention_bf16(p->v), attention_bf16_out(p->o),
                                            p->n, p->d);
    return cudaGetLastError();
}

DEFINE_STEP(pv_kernel, TILE * TILE, 0, launch);

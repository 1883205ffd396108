/* tests/submissions/unfused-scores: a deliberately wrong attention step 04 for grading
 * (solutions/attention/03-tiled.cu handed in as step 04).
 *
 * Step 03's three kernels (tiled Q K^T, a warp per softmax row, tiled P V) with the
 * n x n scores in device memory: a buffer the step allocates itself, since from step 04
 * on the problem gives it none. The result is right, nothing reads out of bounds or
 * races, the kernels use shared memory: what is wrong is that S leaves the chip, the
 * whole point of step 04.
 * Expect: build, correct (10 of 10), memcheck, racecheck and synccheck PASS; technique
 * FAIL 0/1: "the step launched 3 kernels (scores_kernel, softmax_kernel, pv_kernel);
 * the rubric wants one" (the rubric's one-kernel line for steps 04-08, judged from what
 * the speed run launched); speed well below step 04's. Not full marks.
 */
#include <math.h>

#include "attention.h"
#include "step_kernel.h"

#define TILE 16 /* the scores' and the product's 16 x 16 blocks of threads */

/* S[h][i][j] = scale * sum_c Q[h][i][c] K[h][j][c], or -infinity when masked, a
 * 16 x 16 tile per block, the operands staged 16 columns of d at a time. */
__global__ void scores_kernel(const __nv_bfloat16 *q, const __nv_bfloat16 *k, float *s, int n,
                              int d, int causal, float scale)
{
    __shared__ float qs[TILE][TILE];
    __shared__ float ks[TILE][TILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i0 = blockIdx.y * TILE, j0 = blockIdx.x * TILE;
    long h = blockIdx.z;
    const __nv_bfloat16 *qh = q + h * n * d, *kh = k + h * n * d;
    float dot = 0.0f;
    for (int c0 = 0; c0 < d; c0 += TILE) { /* d is a multiple of 16 */
        qs[ty][tx] = i0 + ty < n ? __bfloat162float(qh[(long)(i0 + ty) * d + c0 + tx]) : 0.0f;
        ks[ty][tx] = j0 + ty < n ? __bfloat162float(kh[(long)(j0 + ty) * d + c0 + tx]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int c = 0; c < TILE; ++c)
            dot += qs[ty][c] * ks[tx][c];
        __syncthreads();
    }
    int i = i0 + ty, j = j0 + tx;
    if (i < n && j < n)
        s[(h * n + i) * n + j] = causal && j > i ? -INFINITY : dot * scale;
}

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

/* One warp per row of S: P = exp(s - max) / sum, in place. */
__global__ void softmax_kernel(float *s, long rows, int n)
{
    long row = (long)blockIdx.x * WARPS_PER_BLOCK + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) /* the whole warp leaves: the shuffles below see all 32 lanes */
        return;
    float *x = s + row * n;
    float max = -INFINITY;
    for (int j = lane; j < n; j += 32)
        max = fmaxf(max, x[j]);
    max = warp_max(max);
    float sum = 0.0f;
    for (int j = lane; j < n; j += 32)
        sum += expf(x[j] - max);
    float inv = 1.0f / warp_sum(sum);
    for (int j = lane; j < n; j += 32)
        x[j] = expf(x[j] - max) * inv;
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

/* WRONG: the scores in device memory from step 04 on. Step 04 gets no scratch for them
 * (its problem's scores pointer is NULL), so the step keeps one of its own, grown as
 * the sizes need. */
static float *scores;
static size_t scores_bytes;

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct attention_problem *p = (const struct attention_problem *)problem;
    size_t need = (size_t)p->bh * (size_t)p->n * (size_t)p->n * sizeof(float);
    if (need > scores_bytes) {
        cudaError_t grown = cudaStreamSynchronize(stream);
        if (grown == cudaSuccess && scores != NULL)
            grown = cudaFree(scores);
        scores = NULL, scores_bytes = 0;
        if (grown == cudaSuccess)
            grown = cudaMalloc(&scores, need);
        if (grown != cudaSuccess)
            return grown;
        scores_bytes = need;
    }
    dim3 block(TILE, TILE);
    dim3 grid_s((p->n + TILE - 1) / TILE, (p->n + TILE - 1) / TILE, (unsigned)p->bh);
    dim3 grid_o((p->d + TILE - 1) / TILE, (p->n + TILE - 1) / TILE, (unsigned)p->bh);
    long rows = p->bh * (long)p->n;
    dim3 grid_r((unsigned)((rows + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK));
    cudaError_t status;
    if ((status = step_check_grid(grid_r)) != cudaSuccess)
        return status;
    if ((status = step_check_grid(grid_s)) != cudaSuccess || (status = step_check_grid(grid_o)) != cudaSuccess)
        return status;
    scores_kernel<<<grid_s, block, 0, stream>>>(attention_bf16(p->q), attention_bf16(p->k), scores,
                                                p->n, p->d, p->causal, p->scale);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    softmax_kernel<<<grid_r, WARPS_PER_BLOCK * 32, 0, stream>>>(scores, rows, p->n);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    pv_kernel<<<grid_o, block, 0, stream>>>(scores, attention_bf16(p->v), attention_bf16_out(p->o),
                                            p->n, p->d);
    return cudaGetLastError();
}

DEFINE_STEP(scores_kernel, TILE * TILE, 0, launch);

/* tests/submissions/max-not-subtracted: a deliberately wrong attention step 02 for
 * grading (a copy of solutions/attention/02-warp-softmax.cu with one mistake).
 *
 * The softmax kernel computes exp(s) / sum exp(s) without subtracting the row's
 * maximum first. On paper that is the same softmax; in FP32, expf overflows to
 * infinity past 88.7, the row's sum becomes infinite, and P = inf * 0 = NaN. The lab's
 * inputs make every eighth query 128 times longer (attention_cpu.h), so those rows'
 * largest scores reach 118-203 at every check size with n > 1 (and 146 at the
 * sanitize size): O is NaN there.
 * Expect: build PASS; correct FAIL 0/4, 2 of 11 check sizes correct (the two of
 * length 1, where the only score is near 0), first failure at 3x17x64; correct is
 * required, so the step earns 0 of 11. The sanitizers find nothing (no memory error,
 * no race) and its technique (SHFL in the softmax kernel, for the sum) stays.
 */
/* Step 02 - a warp per softmax row, with shuffles.
 * Guide: labs/attention/README.md#step-02--warp-softmax
 *
 * What changed from step 01: the softmax kernel. Each row of S now belongs to one warp
 * instead of one thread: the 32 lanes read the row together (lane l reads elements l,
 * l + 32, ...: consecutive addresses, coalesced), each keeps its own maximum and sum,
 * and the warp combines them with __shfl_xor_sync (offsets 16, 8, 4, 2, 1: after the
 * butterfly every lane holds the row's value, so no broadcast is needed). The scores
 * and P V kernels are step 01's.
 * Why: in step 01 the 32 threads of a warp walked 32 different rows, n floats apart:
 *   every load of the warp touched 32 different 32-byte sectors. A warp per row reads
 *   each sector whole. The reduction is the reduce lab's step 09, with xor instead of
 *   down so that all lanes end with the result.
 * Expect: the softmax kernel becomes a small part of the time; the scores and P V
 *   kernels, which read their operands from device memory once per product term, are
 *   what is left.
 * Run:  make run LAB=attention STEP=02
 */
#include <math.h>

#include "attention.h"
#include "step_kernel.h"

#define TILE 16 /* the scores' and the product's 16 x 16 blocks of threads */

/* S[h][i][j] = scale * sum_c Q[h][i][c] K[h][j][c], or -infinity when masked. */
__global__ void scores_kernel(const __nv_bfloat16 *q, const __nv_bfloat16 *k, float *s, int n,
                              int d, int causal, float scale)
{
    int j = blockIdx.x * TILE + threadIdx.x, i = blockIdx.y * TILE + threadIdx.y;
    long h = blockIdx.z;
    if (i >= n || j >= n)
        return;
    const __nv_bfloat16 *qi = q + (h * n + i) * d, *kj = k + (h * n + j) * d;
    float dot = 0.0f;
    for (int c = 0; c < d; ++c)
        dot += __bfloat162float(qi[c]) * __bfloat162float(kj[c]);
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

/* One warp per row of S: P = exp(s) / sum, in place. WRONG: the row's maximum is not
 * subtracted (exp(s) / sum exp(s) is the same softmax on paper, and warp_max is left
 * unused). */
__global__ void softmax_kernel(float *s, long rows, int n)
{
    long row = (long)blockIdx.x * WARPS_PER_BLOCK + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) /* the whole warp leaves: the shuffles below see all 32 lanes */
        return;
    float *x = s + row * n;
    float sum = 0.0f;
    for (int j = lane; j < n; j += 32)
        sum += expf(x[j]);
    float inv = 1.0f / warp_sum(sum);
    for (int j = lane; j < n; j += 32)
        x[j] = expf(x[j]) * inv;
}

/* O[h][i][c] = sum_j P[h][i][j] V[h][j][c], rounded to BF16. */
__global__ void pv_kernel(const float *p, const __nv_bfloat16 *v, __nv_bfloat16 *o, int n, int d)
{
    int c = blockIdx.x * TILE + threadIdx.x, i = blockIdx.y * TILE + threadIdx.y;
    long h = blockIdx.z;
    if (i >= n || c >= d)
        return;
    const float *pi = p + (h * n + i) * n;
    const __nv_bfloat16 *vh = v + h * n * d;
    float acc = 0.0f;
    for (int j = 0; j < n; ++j)
        acc += pi[j] * __bfloat162float(vh[(long)j * d + c]);
    o[(h * n + i) * d + c] = __float2bfloat16(acc);
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct attention_problem *p = (const struct attention_problem *)problem;
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
    scores_kernel<<<grid_s, block, 0, stream>>>(attention_bf16(p->q), attention_bf16(p->k), p->scores,
                                                p->n, p->d, p->causal, p->scale);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    softmax_kernel<<<grid_r, WARPS_PER_BLOCK * 32, 0, stream>>>(p->scores, rows, p->n);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    pv_kernel<<<grid_o, block, 0, stream>>>(p->scores, attention_bf16(p->v), attention_bf16_out(p->o),
                                            p->n, p->d);
    return cudaGetLastError();
}

DEFINE_STEP(softmax_kernel, WARPS_PER_BLOCK * 32, 0, launch);

/* Step 03 - Q K^T and P V as tiled products in shared memory.   *** YOUR TURN ***
 * Guide: labs/attention/README.md#step-03--tiled
 *
 * What changed from step 02: the scores and P V kernels are the matmul lab's tiled
 * product (its steps 02-03). A block of 16 x 16 threads computes a 16 x 16 tile of S:
 * it walks the head dimension 16 at a time, each thread loading one element of Q's 16
 * rows and one of K's 16 rows into shared memory, a barrier, 16 multiply-adds from
 * shared memory, a barrier. P V is the same with P's 16 x 16 tiles and V's. K's tile is
 * stored with one float of padding per row (17), because the threads of a warp read a
 * column of it. The softmax is step 02's.
 * Why: in step 02 each thread read its d (or n) product terms from device memory,
 *   and the 16 threads that share a row of Q (or a column of V) read them 16 times.
 *   Staged tiles are read once per block from device memory and 16 times from shared
 *   memory.
 * Expect: the products speed up as in the matmul lab; the scores still make the
 *   round trip through device memory (the MB column is unchanged), which now bounds
 *   the step from below.
 * Run:  make run LAB=attention STEP=03
 *
 * This file is step 02's solution with this step's kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include <math.h>

#include "attention.h"
#include "step_kernel.h"

#define TILE 16 /* the scores' and the product's 16 x 16 blocks of threads */

/* S[h][i][j] = scale * sum_c Q[h][i][c] K[h][j][c], or -infinity when masked. */
/* TODO (step 03). Make scores_kernel and pv_kernel tiled products (the matmul lab's step 02):
 *   1. scores: __shared__ float qs[16][16], ks[16][17]; for c0 = 0, 16, ... < d each
 *      thread loads Q[i0 + ty][c0 + tx] and K[j0 + ty][c0 + tx] (0 past n), a barrier,
 *      16 multiply-adds qs[ty][c] * ks[tx][c], a barrier; the mask and the store as now
 *      (only for i, j < n: every thread must reach the barriers);
 *   2. pv: the same over the keys, j0 = 0, 16, ... < n: ps[ty][tx] = P[i0 + ty][j0 + tx],
 *      vs[ty][tx] = V[j0 + ty][c0 + tx] (0 past n), acc += ps[ty][j] * vs[j][tx]. */
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

STEP_TODO("Q K^T and P V as tiled products: 16 x 16 tiles of the operands staged in shared memory");
DEFINE_STEP(softmax_kernel, WARPS_PER_BLOCK * 32, 0, launch);

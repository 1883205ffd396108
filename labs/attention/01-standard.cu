/* Step 01 - standard attention: three kernels, S and P in device memory.   *** YOUR TURN ***
 * Guide: labs/attention/README.md#step-01--standard
 *
 * What changed: this is the start, attention as its definition writes it:
 *   1. scores:  S = Q K^T * scale, one thread per element of the n x n matrix of each
 *      head (a dot product of d terms read from device memory); a key past the query
 *      under the causal mask gets -infinity;
 *   2. softmax: one thread per row of S: its maximum, then the sum of exp(s - max),
 *      then P = exp(s - max) / sum written over S;
 *   3. pv:      O = P V, one thread per element of O (a sum of n terms), rounded to
 *      BF16.
 *   Subtracting the row's maximum changes nothing mathematically and everything in
 *   FP32: the inputs give some rows scores past 88, where expf overflows.
 * Why: it is the reference point every later step is measured from, and it makes the
 *   cost of standard attention plain: bh x n x n floats written, read, written and read
 *   again (16 bytes per score), against 8 bytes per element of Q, K, V and O.
 * Expect: memory-bound and far from the tensor cores. The moved_mb column counts the
 *   scores' traffic; compare the GB/s column with the copy bandwidth. One thread per
 *   row is the softmax's weak point: its reads of a row are not coalesced (each thread
 *   of a warp walks a different row).
 * Run:  make run LAB=attention STEP=01
 *
 * This file is step 01's solution: it runs and passes as it is. Run it and note its
 * time and its MB column: every later step is measured against it.
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

/* One thread per row of S: P = exp(s - max) / sum, in place. */
__global__ void softmax_kernel(float *s, long rows, int n)
{
    long row = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    float *x = s + row * n;
    float max = -INFINITY;
    for (int j = 0; j < n; ++j)
        max = fmaxf(max, x[j]);
    float sum = 0.0f;
    for (int j = 0; j < n; ++j)
        sum += expf(x[j] - max);
    float inv = 1.0f / sum;
    for (int j = 0; j < n; ++j)
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
    dim3 grid_r((unsigned)((rows + 255) / 256));
    cudaError_t status;
    if ((status = step_check_grid(grid_s)) != cudaSuccess || (status = step_check_grid(grid_o)) != cudaSuccess)
        return status;
    scores_kernel<<<grid_s, block, 0, stream>>>(attention_bf16(p->q), attention_bf16(p->k), p->scores,
                                                p->n, p->d, p->causal, p->scale);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    softmax_kernel<<<grid_r, 256, 0, stream>>>(p->scores, rows, p->n);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    pv_kernel<<<grid_o, block, 0, stream>>>(p->scores, attention_bf16(p->v), attention_bf16_out(p->o),
                                            p->n, p->d);
    return cudaGetLastError();
}

DEFINE_STEP(scores_kernel, TILE * TILE, 0, launch);

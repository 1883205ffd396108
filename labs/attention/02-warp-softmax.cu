/* Step 02 - a warp per softmax row, with shuffles.   *** YOUR TURN ***
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
 *
 * This file is step 01's solution with this step's kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include <math.h>

#include "attention.h"
#include "step_kernel.h"

#define TILE 16 /* the scores' and the product's 16 x 16 blocks of threads */

/* S[h][i][j] = scale * sum_c Q[h][i][c] K[h][j][c], or -infinity when masked. */
/* TODO (step 02). Give each row of S to one warp instead of one thread:
 *   1. launch softmax_kernel with 8 warps per block and one row per warp
 *      (row = blockIdx.x * 8 + threadIdx.x / 32; a warp whose row is past the end returns
 *      as a whole, so the shuffles below always see all 32 lanes);
 *   2. lane l reads elements l, l + 32, ... of the row: its own maximum, then its own
 *      sum of expf(x - max), then the writes of P;
 *   3. combine the lanes' maxima and sums with __shfl_xor_sync(0xffffffff, x, offset)
 *      for offset 16, 8, 4, 2, 1 (xor: every lane ends with the row's value). */
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

STEP_TODO("a warp per softmax row: max and sum with __shfl_xor_sync, the row read coalesced");
DEFINE_STEP(scores_kernel, TILE * TILE, 0, launch);

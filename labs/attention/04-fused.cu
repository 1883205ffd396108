/* Step 04 - fused: FlashAttention-1's forward pass on CUDA cores; S never leaves the chip.   *** YOUR TURN ***
 * Guide: labs/attention/README.md#step-04--fused
 *
 * What changed from step 03: one kernel instead of three, and no scores in device
 * memory. A block of 128 threads owns 64 query rows of one head (its tile of Q, staged
 * in shared memory once) and streams the head's keys and values through shared memory
 * 32 at a time. For each tile of K and V:
 *   1. every thread computes 16 scores of the 64 x 32 tile S_ij into shared memory
 *      (lane = key, the block's four warps take every fourth row);
 *   2. one thread per row takes the tile's maximum, the new running maximum
 *      m' = max(m, max_j s_j), the probabilities p_j = exp(s_j - m') (written over
 *      S_ij) and the running sum l' = exp(m - m') l + sum_j p_j;
 *   3. every thread updates its 2 rows x d/4 columns of O, kept normalized as the
 *      paper's Algorithm 1 keeps it:  O = (l exp(m - m') O + P_ij V_j) / l'.
 * A barrier separates each phase from the next, and the tile's end from the next
 * tile's loads. K's and V's rows are padded to d + 2 BF16 (an odd number of words), so
 * the 32 lanes reading 32 different keys' rows hit 32 different banks.
 * Why: standard attention moves 16 bytes per score through device memory and keeps the
 *   N x N matrix alive. The online softmax (Milakov and Gimelshein 2018) needs only a
 *   running maximum and sum per row: when the maximum grows, what was summed so far is
 *   multiplied by exp(m - m'). FlashAttention (Dao et al. 2022) tiles K and V so the
 *   scores of one tile live only in shared memory: device traffic is Q, K, V read and O
 *   written, K and V once per block of 64 queries.
 * Expect: the moved_mb column drops by the n x n terms, and the time with it: the
 *   step is now bound by its shared-memory loads and its FP32 multiply-adds, with a
 *   third of the block idle in phase 2. The causal mask costs as much as no mask (every
 *   tile is computed, the masked scores set to -infinity), so causal rows report half
 *   the GFLOP/s.
 * Run:  make run LAB=attention STEP=04
 *
 * This file is step 03's solution with this step's kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include <math.h>

#include "attention.h"
#include "step_kernel.h"

#define TILE 16 /* the scores' and the product's 16 x 16 blocks of threads */

/* S[h][i][j] = scale * sum_c Q[h][i][c] K[h][j][c], or -infinity when masked, a
 * 16 x 16 tile per block, the operands staged 16 columns of d at a time. */
/* TODO (step 04). Replace the three kernels by one (FlashAttention-1's forward pass):
 *   1. a block of 128 threads per 64 query rows of one head (grid: n / 64 rounded up,
 *      bh); its Q rows staged in shared memory once;
 *   2. for each tile of 32 keys: stage K's and V's rows in shared memory (pad each row
 *      by one word so the lanes reading 32 different rows hit different banks);
 *      compute the 64 x 32 scores into shared memory (-infinity where masked), barrier;
 *   3. one thread per row: the tile's maximum, m' = max(m, tile max), p = expf(s - m')
 *      written over the scores, l' = expf(m - m') l + sum p, barrier;
 *   4. every thread updates its share of O: O = O * (expf(m - m') l / l') + (P V) / l',
 *      barrier before the next tile's loads;
 *   5. after the last tile write O as BF16. From this step on p->scores is NULL
 *      (lab.def's ATTENTION_SCORES lines give the N x N scratch to steps 01-03 only). */
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

STEP_TODO("one fused kernel: K/V tiles streamed through shared memory, a running max and sum per row, O rescaled every tile; no scores in device memory");
DEFINE_STEP(scores_kernel, TILE * TILE, 0, launch);

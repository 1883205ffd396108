/* tests/submissions/rescale-forgotten: a deliberately wrong attention step 05 for
 * grading (a copy of solutions/attention/05-flash2.cu with one mistake).
 *
 * The online softmax forgets to rescale the accumulated output when the running
 * maximum grows: the row's sum l is multiplied by alpha = exp(m_old - m_new), the
 * accumulator acc is not. Within the first tile of keys (32 here) nothing is lost, as
 * alpha only matters from the second tile on; past it, every row whose maximum grows
 * in a later tile weighs its earlier keys by exp(m_new - m_old) too much.
 * Expect: build PASS; correct FAIL 0/4, 3 of 11 check sizes correct (n = 1, 1 and 17:
 * one tile), first failure at 2x77x1064 (d = 64, causal); correct is required, so
 * the step earns 0 of 11. The sanitizers find nothing.
 */
/* Step 05 - FlashAttention-2's partitioning: each warp owns its query rows.
 * Guide: labs/attention/README.md#step-05--flash2
 *
 * What changed from step 04: how the work is split, and when O is normalized.
 *   - Each of the block's four warps owns 16 of its 64 query rows, and computes the
 *     whole 16 x 32 tile of scores of those rows (lane = key) in registers. Nothing
 *     another warp computes is needed for a row's softmax: the tile's row maximum is a
 *     butterfly of __shfl_xor_sync within the warp, and no barrier separates the
 *     scores, the softmax and P V (step 04 had two, and a phase in which half the
 *     block waited for one thread per row).
 *   - The running sum is not reduced every tile: each lane keeps the sum of its own
 *     probabilities (rescaled with the row), and the warp adds the 32 partial sums once,
 *     at the end.
 *   - O is kept unnormalized: O = exp(m - m') O + P V, and divided by the row's sum once,
 *     after the last tile (step 04 divided every element of O by l' every tile).
 *   P goes from a lane's registers to the other lanes through a small region of shared
 *   memory that only its warp uses (__syncwarp, not __syncthreads). Each lane then
 *   updates 16 rows x d/32 columns of O.
 * Why: FlashAttention-2 (Dao 2023): splitting the queries, not the keys, across warps
 *   removes the communication between warps inside a tile, and deferring the
 *   normalization removes the non-matmul work the first version repeated every tile.
 *   The block's barriers are left only around the loads of K and V.
 * Expect: faster than step 04 at every size; still on CUDA cores, so far below the
 *   tensor cores' peak, which is what the next step is for.
 * Run:  make run LAB=attention STEP=05
 */
#include <math.h>

#include "attention.h"
#include "step_kernel.h"

#define THREADS 128
#define WARPS (THREADS / 32)
#define ROWS 16          /* query rows per warp */
#define BR (WARPS * ROWS) /* query rows per block */
#define BC 32            /* keys per tile: one per lane */

/* Copies rows [row0, row0 + rows) of a head's n x D matrix into shared memory (row
 * stride D + 2 BF16, i.e. D / 2 + 1 words), zeros past n. 16-byte loads, 4-byte stores
 * (a padded row is only 4-byte aligned). */
template <int D>
__device__ __forceinline__ void load_rows(unsigned *dst, const __nv_bfloat16 *src, int row0, int rows,
                                          int n)
{
    const int chunks = D / 8; /* 16-byte chunks per row */
    for (int at = threadIdx.x; at < rows * chunks; at += THREADS) {
        int r = at / chunks, c = at % chunks;
        uint4 x = make_uint4(0, 0, 0, 0);
        if (row0 + r < n)
            x = *reinterpret_cast<const uint4 *>(src + (long)(row0 + r) * D + c * 8);
        unsigned *to = dst + r * (D / 2 + 1) + c * 4;
        to[0] = x.x, to[1] = x.y, to[2] = x.z, to[3] = x.w;
    }
}

__device__ __forceinline__ float2 bf2(unsigned word)
{
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&word));
}

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

template <int D>
__device__ __forceinline__ void flash2_forward(const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                                               const __nv_bfloat16 *v, __nv_bfloat16 *o, int n,
                                               int causal, float scale)
{
    const int W = D / 2 + 1; /* words per padded row */
    const int COLS = D / 64; /* column pairs per lane: 2 * lane + 64 * x (+1) */
    __shared__ unsigned qs[BR * W], ks[BC * W], vs[BC * W];
    __shared__ float ps[WARPS][ROWS][BC + 1];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int i0 = blockIdx.x * BR, r0 = warp * ROWS; /* the warp's rows: i0 + r0 ... */
    long head = (long)blockIdx.y * n * D;
    q += head, k += head, v += head, o += head;

    load_rows<D>(qs, q, i0, BR, n);
    float m[ROWS], l[ROWS], acc[ROWS][2 * COLS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        m[r] = -INFINITY, l[r] = 0.0f;
#pragma unroll
        for (int x = 0; x < 2 * COLS; ++x)
            acc[r][x] = 0.0f;
    }

    for (int j0 = 0; j0 < n; j0 += BC) {
        load_rows<D>(ks, k, j0, BC, n);
        load_rows<D>(vs, v, j0, BC, n);
        __syncthreads();
        float s[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r)
            s[r] = 0.0f;
        for (int c = 0; c < D / 2; ++c) {
            float2 kk = bf2(ks[lane * W + c]);
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                float2 qq = bf2(qs[(r0 + r) * W + c]);
                s[r] += qq.x * kk.x + qq.y * kk.y;
            }
        }
        int j = j0 + lane;
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            float x = j < n && !(causal && j > i0 + r0 + r) ? s[r] * scale : -INFINITY;
            float m_new = fmaxf(m[r], warp_max(x)); /* finite: key 0 is never masked */
            float alpha = expf(m[r] - m_new);       /* 0 on the first tile (m = -inf) */
            float p = expf(x - m_new);              /* 0 for a masked key */
            l[r] = l[r] * alpha + p;                /* this lane's share of the sum */
            m[r] = m_new;
            /* WRONG: acc[r] is not multiplied by alpha: what earlier tiles added to O
             * stays scaled by exp(-m_old) while the sum l is rescaled to exp(-m_new) */
            ps[warp][r][lane] = p;
        }
        __syncwarp();
        for (int jj = 0; jj < BC; ++jj) {
            float2 vv[COLS];
#pragma unroll
            for (int x = 0; x < COLS; ++x)
                vv[x] = bf2(vs[jj * W + lane + 32 * x]);
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                float p = ps[warp][r][jj];
#pragma unroll
                for (int x = 0; x < COLS; ++x) {
                    acc[r][2 * x] += p * vv[x].x;
                    acc[r][2 * x + 1] += p * vv[x].y;
                }
            }
        }
        __syncthreads(); /* before the next tile overwrites ks and vs (and ps) */
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        float inv = 1.0f / warp_sum(l[r]);
        int i = i0 + r0 + r;
        if (i < n)
#pragma unroll
            for (int x = 0; x < COLS; ++x)
                reinterpret_cast<__nv_bfloat162 *>(o + (long)i * D)[lane + 32 * x] =
                    __floats2bfloat162_rn(acc[r][2 * x] * inv, acc[r][2 * x + 1] * inv);
    }
}

/* One kernel per head dimension (the report names the d = 128 one). */
__global__ void __launch_bounds__(THREADS)
flash2_d64(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v, __nv_bfloat16 *o,
           int n, int causal, float scale)
{
    flash2_forward<64>(q, k, v, o, n, causal, scale);
}

__global__ void __launch_bounds__(THREADS)
flash2_d128(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v, __nv_bfloat16 *o,
            int n, int causal, float scale)
{
    flash2_forward<128>(q, k, v, o, n, causal, scale);
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct attention_problem *p = (const struct attention_problem *)problem;
    dim3 grid((p->n + BR - 1) / BR, (unsigned)p->bh);
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    if (p->d == 64)
        flash2_d64<<<grid, THREADS, 0, stream>>>(attention_bf16(p->q), attention_bf16(p->k),
                                                 attention_bf16(p->v), attention_bf16_out(p->o), p->n,
                                                 p->causal, p->scale);
    else
        flash2_d128<<<grid, THREADS, 0, stream>>>(attention_bf16(p->q), attention_bf16(p->k),
                                                  attention_bf16(p->v), attention_bf16_out(p->o), p->n,
                                                  p->causal, p->scale);
    return cudaGetLastError();
}

DEFINE_STEP(flash2_d128, THREADS, 0, launch);

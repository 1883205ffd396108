/* Step 04 - fused: FlashAttention-1's forward pass on CUDA cores; S never leaves the chip.
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
 */
#include <math.h>

#include "attention.h"
#include "step_kernel.h"

#define THREADS 128
#define BR 64 /* query rows per block */
#define BC 32 /* keys per tile */

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

template <int D>
__device__ __forceinline__ void fused_forward(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v,
                __nv_bfloat16 *o, int n, int causal, float scale)
{
    const int W = D / 2 + 1; /* words per padded row */
    __shared__ unsigned qs[BR * W], ks[BC * W], vs[BC * W];
    __shared__ float ss[BR][BC + 1];
    __shared__ float row_old[BR], row_new[BR]; /* phase 2's factors for phase 3 */
    int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    int i0 = blockIdx.x * BR;
    long head = (long)blockIdx.y * n * D;
    q += head, k += head, v += head, o += head;

    load_rows<D>(qs, q, i0, BR, n);
    float m = -INFINITY, l = 0.0f; /* row tid's running max and sum (threads 0-63) */
    /* phase 3's share of O: rows orow and orow + 32, columns 2 * cq + 8 * x (+1) */
    int orow = tid / 4, cq = tid % 4;
    float acc[2][D / 4];
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
        for (int x = 0; x < D / 4; ++x)
            acc[r][x] = 0.0f;

    for (int j0 = 0; j0 < n; j0 += BC) {
        load_rows<D>(ks, k, j0, BC, n);
        load_rows<D>(vs, v, j0, BC, n);
        __syncthreads();
        /* 1. scores: lane = key, rows warp, warp + 4, ... */
        float dot[BR / 4];
#pragma unroll
        for (int x = 0; x < BR / 4; ++x)
            dot[x] = 0.0f;
        for (int c = 0; c < D / 2; ++c) {
            float2 kk = bf2(ks[lane * W + c]);
#pragma unroll
            for (int x = 0; x < BR / 4; ++x) {
                float2 qq = bf2(qs[(warp + 4 * x) * W + c]);
                dot[x] += qq.x * kk.x + qq.y * kk.y;
            }
        }
        int j = j0 + lane;
#pragma unroll
        for (int x = 0; x < BR / 4; ++x) {
            int r = warp + 4 * x;
            ss[r][lane] = j < n && !(causal && j > i0 + r) ? dot[x] * scale : -INFINITY;
        }
        __syncthreads();
        /* 2. one thread per row: the tile's max, the probabilities, the new sum */
        if (tid < BR) {
            float tile_max = -INFINITY;
            for (int jj = 0; jj < BC; ++jj)
                tile_max = fmaxf(tile_max, ss[tid][jj]);
            float m_new = fmaxf(m, tile_max);
            float sum = 0.0f;
            for (int jj = 0; jj < BC; ++jj) {
                float s = ss[tid][jj];
                float p = s == -INFINITY ? 0.0f : expf(s - m_new);
                ss[tid][jj] = p;
                sum += p;
            }
            float alpha = m == -INFINITY ? 0.0f : expf(m - m_new);
            float l_new = alpha * l + sum;
            row_old[tid] = alpha * l / l_new; /* what the normalized O is multiplied by */
            row_new[tid] = 1.0f / l_new;      /* what this tile's P V is multiplied by */
            m = m_new, l = l_new;
        }
        __syncthreads();
        /* 3. O = O * (l e^(m - m') / l') + (P V) / l' */
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            int row = orow + 32 * r;
            float keep = row_old[row];
#pragma unroll
            for (int x = 0; x < D / 4; ++x)
                acc[r][x] *= keep;
        }
        for (int jj = 0; jj < BC; ++jj) {
            float p0 = ss[orow][jj] * row_new[orow], p1 = ss[orow + 32][jj] * row_new[orow + 32];
#pragma unroll
            for (int x = 0; x < D / 8; ++x) {
                float2 vv = bf2(vs[jj * W + cq + 4 * x]);
                acc[0][2 * x] += p0 * vv.x, acc[0][2 * x + 1] += p0 * vv.y;
                acc[1][2 * x] += p1 * vv.x, acc[1][2 * x + 1] += p1 * vv.y;
            }
        }
        __syncthreads(); /* before the next tile overwrites ks, vs and ss */
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        int i = i0 + orow + 32 * r;
        if (i < n)
#pragma unroll
            for (int x = 0; x < D / 8; ++x)
                reinterpret_cast<__nv_bfloat162 *>(o + (long)i * D)[cq + 4 * x] =
                    __floats2bfloat162_rn(acc[r][2 * x], acc[r][2 * x + 1]);
    }
}

/* One kernel per head dimension (the report names the d = 128 one). */
__global__ void __launch_bounds__(THREADS)
fused_d64(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v, __nv_bfloat16 *o,
          int n, int causal, float scale)
{
    fused_forward<64>(q, k, v, o, n, causal, scale);
}

__global__ void __launch_bounds__(THREADS)
fused_d128(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v, __nv_bfloat16 *o,
           int n, int causal, float scale)
{
    fused_forward<128>(q, k, v, o, n, causal, scale);
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct attention_problem *p = (const struct attention_problem *)problem;
    dim3 grid((p->n + BR - 1) / BR, (unsigned)p->bh);
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    if (p->d == 64)
        fused_d64<<<grid, THREADS, 0, stream>>>(attention_bf16(p->q), attention_bf16(p->k),
                                                attention_bf16(p->v), attention_bf16_out(p->o), p->n,
                                                p->causal, p->scale);
    else
        fused_d128<<<grid, THREADS, 0, stream>>>(attention_bf16(p->q), attention_bf16(p->k),
                                                 attention_bf16(p->v), attention_bf16_out(p->o), p->n,
                                                 p->causal, p->scale);
    return cudaGetLastError();
}

DEFINE_STEP(fused_d128, THREADS, 0, launch);

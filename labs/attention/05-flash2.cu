/* Step 05 - FlashAttention-2's partitioning: each warp owns its query rows.   *** YOUR TURN ***
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
 *
 * This file is step 04's solution with this step's kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
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

/* TODO (step 05). Split the queries, not the keys, across the warps, and normalize once:
 *   1. warp w owns rows 16 w .. 16 w + 15 of the block's 64; lane = key: each lane
 *      computes its key's score for the warp's 16 rows (in registers, not shared memory);
 *   2. per row: m' = max(m, warp maximum of the scores) with __shfl_xor_sync, alpha =
 *      expf(m - m'), p = expf(s - m'); each lane keeps its own partial sum l = l alpha +
 *      p, and O (16 rows x d / 32 columns per lane) is multiplied by alpha, unnormalized;
 *   3. P to the warp's own region of shared memory, __syncwarp(), O += P V;
 *   4. after the last tile: l = the warp's sum of the partial sums, O / l, stored.
 *   No __syncthreads() but around the loads of K and V. */
template <int D>
__device__ __forceinline__ void flash2_forward(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v,
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

STEP_TODO("FlashAttention-2's partitioning: a warp owns 16 query rows and whole rows of S, softmax by shuffles, one division at the end");
DEFINE_STEP(flash2_d128, THREADS, 0, launch);

/* Step 09 - warp tiling: each warp owns a 64x32 piece of the block's tile.   *** YOUR TURN ***
 * Guide: labs/matmul/README.md#step-09--warp-tiles
 *
 * What changed from 08: only which elements of C a thread owns. The 8 warps of a
 * block split its 128x128 tile into 2 x 4 warp tiles of 64x32. Inside a warp, lane
 * (tm = lane / 4, tn = lane % 4) owns four 4x4 blocks of C: rows tm*4.. and 32 +
 * tm*4.. of the warp tile, times columns tn*4.. and 16 + tn*4... Each thread still
 * holds 8x8 accumulators and still reads 2 float4 of A and 2 float4 of B per k.
 * Why: shared memory serves a warp's 16-byte loads 8 threads (128 bytes) at a time;
 * threads that need the same 16 bytes share one read. In step 08 a warp's B loads
 * touch 16 different float4 spread over 512 bytes with a stride of 32 bytes, so each
 * group of 8 threads hits every bank twice: 2-way conflicts, 8 shared-memory cycles
 * per load instruction. Here a warp's A load covers 8 float4 = 128 contiguous bytes
 * and its B load 4 float4 = 64 bytes: one cycle each, no conflict. Each warp also
 * works on a compact 64x32 region, so its loads of A and B overlap less with other
 * warps' and more with its own (better L1 locality for the outer loop).
 * Expect: 8320 B, 2 blocks per SM, as step 08 (registers: `make report`). In ncu the shared
 *   loads of the inner loop show no bank conflicts and fewer wavefronts per
 *   instruction. On the H100 a small gain.
 *   Measured: the table of recorded runs in labs/matmul/README.md (make
 *   guide-tables, from data/results/<gpu>/matmul.csv); registers: make report.
 * Run:  make run LAB=matmul STEP=09
 *
 * This file is step 08's solution with the new kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include <stdint.h>

#include "matmul.h"
#include "step_kernel.h"

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define THREADS ((BM / TM) * (BN / TN)) /* 256 */
#define A_PAD 4

/* TODO (step 09). Warp tiling: change which elements of C a thread owns.
 *  1. #define WM 64, WN 32 (a warp's tile). Replace trow/tcol by
 *       warp = tid / 32, lane = tid % 32, wr = warp / (BN / WN), wc = warp % (BN / WN),
 *       tm = lane / 4, tn = lane % 4,
 *       a_off = wr * WM + tm * 4, b_off = wc * WN + tn * 4.
 *  2. Inner loop: a_frag[0..3] from a_tile[kk][a_off], a_frag[4..7] from
 *     a_tile[kk][a_off + WM/2]; b_frag[0..3] from b_tile[kk][b_off], b_frag[4..7] from
 *     b_tile[kk][b_off + WN/2] (float4 each, as now).
 *  3. Epilogue: acc[i][j] belongs to row block_row + a_off + (i/4)*(WM/2) + i%4 and
 *     column block_col + b_off + (j/4)*(WN/2) + j%4 (a float4 store still covers
 *     j .. j+3).
 * Work out, for one warp, the addresses of its A and B float4 loads before and after:
 * how many different 16-byte words, how many banks, how many cycles? */

/* The body of both kernels. VEC: k and n are multiples of 4 and the pointers are
 * 16-byte aligned (checked by the launch), so a float4 that starts inside a row
 * ends inside it, and every float4 address is a multiple of 16 bytes. */
template <bool VEC>
__device__ __forceinline__ void matmul_body(const float *a, const float *b, float *c, int m,
                                            int n, int k)
{
    __shared__ __align__(16) float a_tile[BK][BM + A_PAD];
    __shared__ __align__(16) float b_tile[BK][BN];

    int tid = threadIdx.x;
    int trow = tid / (BN / TN), tcol = tid % (BN / TN);
    int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;

    /* This thread's float4 of each tile: A row a_r, k offset a_k (0 or 4);
     * B row b_k, columns b_c.. b_c + 3. */
    int a_r = tid / (BK / 4), a_k = (tid % (BK / 4)) * 4;
    int b_k = tid / (BN / 4), b_c = (tid % (BN / 4)) * 4;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    for (int t = 0; t < k; t += BK) {
        float4 av, bv;
        int gr = block_row + a_r, gk = t + a_k;
        int hk = t + b_k, hc = block_col + b_c;
        if (VEC) {
            av = (gr < m && gk < k) ? *(const float4 *)&a[(size_t)gr * k + gk]
                                    : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            bv = (hk < k && hc < n) ? *(const float4 *)&b[(size_t)hk * n + hc]
                                    : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        } else {
            const float *ap = a + (size_t)gr * k + gk; /* only read where in bounds */
            const float *bp = b + (size_t)hk * n + hc;
            bool ar = gr < m, bk = hk < k;
            av.x = (ar && gk < k) ? ap[0] : 0.0f;
            av.y = (ar && gk + 1 < k) ? ap[1] : 0.0f;
            av.z = (ar && gk + 2 < k) ? ap[2] : 0.0f;
            av.w = (ar && gk + 3 < k) ? ap[3] : 0.0f;
            bv.x = (bk && hc < n) ? bp[0] : 0.0f;
            bv.y = (bk && hc + 1 < n) ? bp[1] : 0.0f;
            bv.z = (bk && hc + 2 < n) ? bp[2] : 0.0f;
            bv.w = (bk && hc + 3 < n) ? bp[3] : 0.0f;
        }
        a_tile[a_k + 0][a_r] = av.x;
        a_tile[a_k + 1][a_r] = av.y;
        a_tile[a_k + 2][a_r] = av.z;
        a_tile[a_k + 3][a_r] = av.w;
        *(float4 *)&b_tile[b_k][b_c] = bv;
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a_frag[TM], b_frag[TN];
            *(float4 *)&a_frag[0] = *(const float4 *)&a_tile[kk][trow * TM];
            *(float4 *)&a_frag[4] = *(const float4 *)&a_tile[kk][trow * TM + 4];
            *(float4 *)&b_frag[0] = *(const float4 *)&b_tile[kk][tcol * TN];
            *(float4 *)&b_frag[4] = *(const float4 *)&b_tile[kk][tcol * TN + 4];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a_frag[i] * b_frag[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        int row = block_row + trow * TM + i;
        if (row >= m)
            continue;
        float *crow = c + (size_t)row * n;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            int col = block_col + tcol * TN + j;
            if (VEC) {
                if (col < n) /* n % 4 == 0: the whole float4 is inside the row */
                    *(float4 *)&crow[col] =
                        make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
            } else {
#pragma unroll
                for (int q = 0; q < 4; ++q)
                    if (col + q < n)
                        crow[col + q] = acc[i][j + q];
            }
        }
    }
}

__global__ void matmul_warp_tiles(const float *a, const float *b, float *c, int m, int n, int k)
{
    matmul_body<true>(a, b, c, m, n, k);
}

/* The same kernel with scalar loads, for sizes or pointers the fast path cannot take. */
__global__ void matmul_warp_tiles_scalar(const float *a, const float *b, float *c, int m, int n,
                                           int k)
{
    matmul_body<false>(a, b, c, m, n, k);
}

static bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    dim3 grid((unsigned)((p->n + BN - 1L) / BN), (unsigned)((p->m + BM - 1L) / BM));
    cudaError_t fits = step_check_grid(grid); /* refuse, rather than fail, a grid too large */
    if (fits != cudaSuccess)
        return fits;
    bool vec = p->k % 4 == 0 && p->n % 4 == 0 && aligned16(p->a) && aligned16(p->b) &&
               aligned16(p->c);
    if (vec)
        matmul_warp_tiles<<<grid, THREADS, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    else
        matmul_warp_tiles_scalar<<<grid, THREADS, 0, stream>>>(p->a, p->b, p->c, p->m, p->n,
                                                                 p->k);
    return cudaGetLastError();
}

STEP_TODO("give each warp a 64x32 tile and each lane four 4x4 blocks so the shared loads are conflict-free");
DEFINE_STEP(matmul_warp_tiles, THREADS, 0, launch);

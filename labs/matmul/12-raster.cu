/* Step 12 - block rasterization: blocks visit C in groups of rows, for L2 reuse.   *** YOUR TURN ***
 * Guide: labs/matmul/README.md#step-12--raster
 *
 * What changed from 11: the grid is 1-D, and each block computes which tile of C it
 * owns from its number. Instead of row by row (blockIdx.x along a row of tiles, as
 * in every earlier step), the tiles are numbered column by column inside bands of
 * GROUP (8) rows of tiles: blocks 0..7 take the first column of tiles of band 0,
 * blocks 8..15 the second column, and so on, then band 1.
 * Why: blocks that run at the same time share their inputs through the 50 MB L2.
 * Row by row, the 132 resident blocks at 4096^3 (1 per SM) cover about 4 rows of
 * 32 tiles: they read 4 row-panels of A but all 32 column-panels of B (2 MB each,
 * 64 MB), more than L2 holds, so B streams from HBM again in every wave. In bands
 * of 8 rows the same 132 blocks cover 8 x 17 tiles and touch 8 panels of A and
 * about 17 of B (50 MB), and consecutive waves reuse most of them. The DRAM traffic falls; the L2 hit rate
 * (ncu "Memory Workload Analysis") rises.
 * Expect: the same shared memory and blocks per SM as step 11 (1 block per SM;
 *   registers: `make report`). On the H100 at 4096^3 no gain: step 11's speed,
 *   within noise (GROUP = 4, 8 and 16 measured alike in step 13's sweep as well). With 128x128
 *   tiles each byte fetched is used 32 times per block, and the row-by-row order's
 *   extra traffic is served by the 50 MB L2 well enough. Measure instead of assuming:
 *   compare ncu's L2 hit rate and DRAM bytes of steps 11 and 12, and try 8192^3.
 *   Measured: the table of recorded runs in labs/matmul/README.md (make
 *   guide-tables, from data/results/<gpu>/matmul.csv); registers: make report.
 * Run:  make run LAB=matmul STEP=12
 *
 * This file is step 11's solution with the new kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include <stdint.h>

#include "matmul.h"
#include "step_kernel.h"

#define BM 128
#define BN 128
#ifndef BK
#define BK 8
#endif
#ifndef STAGES
#define STAGES 3
#endif
#define TM 8
#define TN 8
#define THREADS ((BM / TM) * (BN / TN)) /* 256 */
#define A_PAD 4
#define WM 64
#define WN 32
#if BK % 8 != 0 || STAGES < 2
#error "BK must be a multiple of 8 and STAGES at least 2"
#endif

#define A_STAGE (BK * (BM + A_PAD)) /* floats of one A buffer, transposed: [BK][BM + A_PAD] */
#define B_STAGE (BK * BN)           /* floats of one B buffer: [BK][BN] */
#define SMEM_BYTES (STAGES * (A_STAGE + B_STAGE) * sizeof(float))

/* TODO (step 12). Block rasterization:
 *  1. #define GROUP 8. The launch makes a 1-D grid of tiles_m * tiles_n blocks
 *     (refuse more than 2^31 - 1 with cudaErrorInvalidConfiguration).
 *  2. In the kernel, replace block_row/block_col by:
 *       tiles_n = (n + BN-1)/BN, tiles_m = (m + BM-1)/BM, per_band = GROUP * tiles_n,
 *       band = blockIdx.x / per_band, in_band = blockIdx.x % per_band,
 *       band_rows = min(GROUP, tiles_m - band * GROUP),
 *       tile_row = band * GROUP + in_band % band_rows, tile_col = in_band / band_rows,
 *       block_row = tile_row * BM, block_col = tile_col * BN.
 * Draw the order of the first 20 blocks for a 16 x 16 grid of tiles, before and after. */

/* cp.async of 4 or 16 bytes from global to shared memory; when `in` is false the
 * source size is 0 and the destination is filled with zeros (src must still be a
 * valid address: the callers pass the matrix's base pointer). The "memory" clobber
 * tells the compiler that the instruction writes memory it cannot see, so it keeps
 * shared-memory reads and writes in program order around it. */
__device__ __forceinline__ void cp_async4(float *dst, const float *src, bool in)
{
#if __CUDA_ARCH__ >= 800
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src),
                 "r"(in ? 4 : 0)
                 : "memory");
#else
    *dst = in ? *src : 0.0f;
#endif
}

__device__ __forceinline__ void cp_async16(float *dst, const float *src, bool in)
{
#if __CUDA_ARCH__ >= 800
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src),
                 "r"(in ? 16 : 0)
                 : "memory");
#else
    *(float4 *)dst = in ? *(const float4 *)src : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#endif
}

__device__ __forceinline__ void cp_async_commit(void)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* Wait until at most `pending` of this thread's committed groups are still in flight. */
template <int pending>
__device__ __forceinline__ void cp_async_wait(void)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
#endif
}

/* Start the copies of the slice that begins at k = t into one stage's buffers. */
template <bool VEC>
__device__ __forceinline__ void copy_slice(const float *a, const float *b, int m, int n, int k,
                                           int t, int block_row, int block_col, float *as,
                                           float *bs)
{
    int tid = threadIdx.x;
    /* A: BM x BK values, 4-byte copies. A warp takes 4 rows x 8 consecutive k. */
#pragma unroll
    for (int j = 0; j < BM * BK / THREADS; ++j) {
        int e = tid + j * THREADS;
        int kk = (e / (8 * BM)) * 8 + e % 8, r = (e / 8) % BM;
        int gr = block_row + r, gk = t + kk;
        bool in = gr < m && gk < k;
        cp_async4(&as[kk * (BM + A_PAD) + r], in ? &a[(size_t)gr * k + gk] : a, in);
    }
    /* B: BK x BN values, in float4 pieces: row kk, columns cq.. cq + 3. */
#pragma unroll
    for (int j = 0; j < BK * BN / 4 / THREADS; ++j) {
        int e = tid + j * THREADS;
        int kk = e / (BN / 4), cq = (e % (BN / 4)) * 4;
        int hk = t + kk, hc = block_col + cq;
        float *dst = &bs[kk * BN + cq];
        if (VEC) { /* n % 4 == 0: the float4 is all inside the row or all outside */
            bool in = hk < k && hc < n;
            cp_async16(dst, in ? &b[(size_t)hk * n + hc] : b, in);
        } else {
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                bool in = hk < k && hc + q < n;
                cp_async4(dst + q, in ? &b[(size_t)hk * n + hc + q] : b, in);
            }
        }
    }
}

template <bool VEC>
__device__ __forceinline__ void matmul_body(const float *a, const float *b, float *c, int m,
                                            int n, int k)
{
    extern __shared__ float4 smem4[]; /* float4: 16-byte aligned */
    float *smem = (float *)smem4;
    float *a_stages = smem;                    /* STAGES x [BK][BM + A_PAD] */
    float *b_stages = smem + STAGES * A_STAGE; /* STAGES x [BK][BN] */

    int tid = threadIdx.x;
    int warp = tid / 32, lane = tid % 32;
    int wr = warp / (BN / WN), wc = warp % (BN / WN);
    int tm = lane / 4, tn = lane % 4;
    int a_off = wr * WM + tm * 4;
    int b_off = wc * WN + tn * 4;
    int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    int slices = (k + BK - 1) / BK;
    /* Prologue: start slices 0 .. STAGES-2, one commit group each (empty groups
     * past the end keep the counting simple). */
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < slices)
            copy_slice<VEC>(a, b, m, n, k, s * BK, block_row, block_col, a_stages + s * A_STAGE,
                            b_stages + s * B_STAGE);
        cp_async_commit();
    }

    for (int s = 0; s < slices; ++s) {
        /* Slice s has landed once at most STAGES-2 younger groups are pending. */
        cp_async_wait<STAGES - 2>();
        __syncthreads(); /* everyone's copies visible; everyone done with slice s-1 */

        /* Refill the buffer slice s-1 used with slice s + STAGES - 1. */
        int next = s + STAGES - 1;
        if (next < slices)
            copy_slice<VEC>(a, b, m, n, k, next * BK, block_row, block_col,
                            a_stages + (next % STAGES) * A_STAGE,
                            b_stages + (next % STAGES) * B_STAGE);
        cp_async_commit();

        const float *as = a_stages + (s % STAGES) * A_STAGE;
        const float *bs = b_stages + (s % STAGES) * B_STAGE;
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a_frag[TM], b_frag[TN];
            *(float4 *)&a_frag[0] = *(const float4 *)&as[kk * (BM + A_PAD) + a_off];
            *(float4 *)&a_frag[4] = *(const float4 *)&as[kk * (BM + A_PAD) + a_off + WM / 2];
            *(float4 *)&b_frag[0] = *(const float4 *)&bs[kk * BN + b_off];
            *(float4 *)&b_frag[4] = *(const float4 *)&bs[kk * BN + b_off + WN / 2];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a_frag[i] * b_frag[j];
        }
    }
    cp_async_wait<0>(); /* no copy may outlive the block (the last groups are empty) */

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        /* acc[i][j] is row a_off + (i / 4) * 32 + i % 4, column b_off + (j / 4) * 16 + j % 4 */
        int row = block_row + a_off + (i / 4) * (WM / 2) + i % 4;
        if (row >= m)
            continue;
        float *crow = c + (size_t)row * n;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            int col = block_col + b_off + (j / 4) * (WN / 2);
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

__global__ void matmul_raster(const float *a, const float *b, float *c, int m, int n, int k)
{
    matmul_body<true>(a, b, c, m, n, k);
}

/* The same kernel with scalar loads, for sizes or pointers the fast path cannot take. */
__global__ void matmul_raster_scalar(const float *a, const float *b, float *c, int m, int n,
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
    /* more than 48 KB of dynamic shared memory needs an opt-in per kernel */
    if (SMEM_BYTES > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(matmul_raster,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)SMEM_BYTES);
        if (e == cudaSuccess)
            e = cudaFuncSetAttribute(matmul_raster_scalar,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)SMEM_BYTES);
        if (e != cudaSuccess)
            return e;
    }
    if (vec)
        matmul_raster<<<grid, THREADS, SMEM_BYTES, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    else
        matmul_raster_scalar<<<grid, THREADS, SMEM_BYTES, stream>>>(p->a, p->b, p->c, p->m, p->n,
                                                                 p->k);
    return cudaGetLastError();
}

STEP_TODO("launch a 1-D grid and map block numbers to tiles in bands of GROUP rows of tiles");
DEFINE_STEP(matmul_raster, THREADS, SMEM_BYTES, launch);

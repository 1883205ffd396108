/* Step 13 - tuned: launch bounds, a larger thread tile, and the depth and stages
 * chosen by measurement on the H100.
 *
 * What changed from 12, each change kept because it measured faster at 4096^3:
 *  - Each thread computes 8x16 elements of C instead of 8x8 (TM = 8, TN = 16: two by
 *    four 4x4 blocks), a block 128x256 (warp tile 64x64, 8 warps). Per k a thread now
 *    does 128 FFMAs for 6 float4 shared loads instead of 64 for 4.
 *  - __launch_bounds__(256, MIN_BLOCKS = 1): 128 accumulators need about 215 registers,
 *    so one block (8 warps) per SM; the bound tells the compiler it may use up to 255
 *    without spilling, and that it must not go beyond.
 *  - BK = 16 and STAGES = 4 (99 KB of dynamic shared memory, opted in at launch): half
 *    as many barriers per k as BK = 8, and deeper prefetch.
 *  - The copy addresses are worked out once per thread (struct copy_plan: base
 *    pointers, which rows are inside the matrix, shared-memory offsets); per slice
 *    only t is added. At 255 registers the compiler had been recomputing them for
 *    every slice; with the plan the kernel needs 215 and runs measurably faster.
 * Why: after step 12 the kernel was issue-bound: ncu showed a good share of its
 * instructions were not FFMAs and the FMA pipe often idle (GUIDE.md, step 13, has
 * the profile's figures and where they come from). Every change here cuts
 * instructions per FFMA or stalls per FFMA. All shapes are build variables (-DBK=8,
 * -DSTAGES=3, -DBN=128, -DTN=8 -DMIN_BLOCKS=2, -DGROUP=16 ...), so the sweep can be
 * repeated on another GPU; GUIDE.md (step 13) has the H100 sweep.
 * Expect: 215 registers, 0 local memory, 99328 B of dynamic shared memory, 1 block of
 *   256 threads per SM. On the H100, close to cuBLAS from 2048^3 to 8192^3; at 1024^3
 *   only 32 blocks exist for 132 SMs, and it falls far behind. Sizes with n or k not
 *   a multiple of 4 take the scalar fallback, slower (try 4097^3).
 *   Measured on the H100: GUIDE.md's matmul table (make guide-tables, from
 *   data/results/<gpu>/matmul.csv), and GUIDE.md's step 13, which compares it
 *   with cuBLAS at six sizes in one named run.
 * Run:  make run LAB=matmul STEP=13
 */
#include <stdint.h>

#include "matmul.h"
#include "step_kernel.h"

#ifndef BM
#define BM 128 /* rows of C per block */
#endif
#ifndef BN
#define BN 256 /* columns of C per block */
#endif
#ifndef BK
#define BK 16
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef TM
#define TM 8 /* rows of C per thread: TM / 4 blocks of 4 */
#endif
#ifndef TN
#define TN 16 /* columns of C per thread: TN / 4 blocks of 4 */
#endif
#ifndef LM
#define LM 8 /* lanes of a warp along m; 32 / LM along n */
#endif
#define LN (32 / LM)
#define WM (TM * LM) /* rows of C per warp */
#define WN (TN * LN) /* columns of C per warp */
#define THREADS ((BM / WM) * (BN / WN) * 32)
#define A_PAD 4
#if STAGES < 3
/* Two stages gave wrong results on the 16-byte path in the H100 tests (the 3- and
 * 4-stage builds pass every check and compute-sanitizer); not understood yet, so the
 * ring keeps at least 3 buffers. */
#error "STAGES must be at least 3"
#endif
#if BM % WM != 0 || BN % WN != 0 || TM % 4 != 0 || TN % 4 != 0
#error "the warp tile must divide the block tile, the thread tile be made of 4x4 blocks"
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1 /* blocks per SM the register budget must allow */
#endif
#ifndef GROUP
#define GROUP 8 /* rows of tiles per band */
#endif
#if BK % 8 != 0 || STAGES < 2
#error "BK must be a multiple of 8 and STAGES at least 2"
#endif

#define A_STAGE (BK * (BM + A_PAD)) /* floats of one A buffer, transposed: [BK][BM + A_PAD] */
#define B_STAGE (BK * BN)           /* floats of one B buffer: [BK][BN] */
#define SMEM_BYTES (STAGES * (A_STAGE + B_STAGE) * sizeof(float))

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

#define A_RS (THREADS / 8)        /* rows of A between one thread's copies */
#define B_RS (THREADS / (BN / 4)) /* rows of B between one thread's copies */
#if BM % A_RS != 0 || THREADS % (BN / 4) != 0 || BK % B_RS != 0
#error "the copy layout needs BM % (THREADS/8) == 0 and THREADS % (BN/4) == 0"
#endif

/* What one thread copies, fixed for the whole block: A rows r0 + q * A_RS (q <
 * BM / A_RS) at k offsets k0 + 8 h (h < BK / 8); B rows kb0 + q * B_RS at columns
 * cb0 .. cb0 + 3. The pointers are to the first slice and move by BK along k. */
struct copy_plan {
    const float *a_src;    /* A[block_row + r0][k0] */
    const float *b_src;    /* B[kb0][block_col + cb0] */
    size_t a_step;         /* A_RS rows of A, in floats */
    size_t b_step;         /* B_RS rows of B, in floats */
    size_t b_row;          /* one row of B: n */
    unsigned a_rows_in;    /* bit q: row r0 + q * A_RS is inside A */
    int k0, kb0, cols_in;  /* cols_in: how many of the 4 B columns are inside B */
    int a_dst, b_dst;      /* offsets in a stage's A and B buffers */
};

/* Start the copies of the slice that begins at k = t into one stage's buffers. */
template <bool VEC>
__device__ __forceinline__ void copy_slice(const copy_plan &p, const float *a, const float *b,
                                           int k, int t, float *as, float *bs)
{
#pragma unroll
    for (int h = 0; h < BK / 8; ++h) {
        bool k_in = t + p.k0 + 8 * h < k;
#pragma unroll
        for (int q = 0; q < BM / A_RS; ++q) {
            bool in = k_in && ((p.a_rows_in >> q) & 1u);
            cp_async4(&as[p.a_dst + 8 * h * (BM + A_PAD) + q * A_RS],
                      in ? p.a_src + q * p.a_step + t + 8 * h : a, in);
        }
    }
#pragma unroll
    for (int q = 0; q < BK / B_RS; ++q) {
        bool row_in = t + p.kb0 + q * B_RS < k;
        const float *src = p.b_src + (size_t)t * p.b_row + q * p.b_step;
        float *dst = &bs[p.b_dst + q * B_RS * BN];
        if (VEC) { /* n % 4 == 0: the float4 is all inside the row or all outside */
            bool in = row_in && p.cols_in == 4;
            cp_async16(dst, in ? src : b, in);
        } else {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                bool in = row_in && e < p.cols_in;
                cp_async4(dst + e, in ? src + e : b, in);
            }
        }
    }
}

/* This thread's TM values of A and TN of B for row kk of a slice. */
__device__ __forceinline__ void load_frags(const float *as, const float *bs, int kk, int a_off,
                                           int b_off, float *a_frag, float *b_frag)
{
    /* block q of 4 values sits 4 * LM (A) or 4 * LN (B) columns after block q-1 */
#pragma unroll
    for (int q = 0; q < TM / 4; ++q)
        *(float4 *)&a_frag[4 * q] = *(const float4 *)&as[kk * (BM + A_PAD) + a_off + q * 4 * LM];
#pragma unroll
    for (int q = 0; q < TN / 4; ++q)
        *(float4 *)&b_frag[4 * q] = *(const float4 *)&bs[kk * BN + b_off + q * 4 * LN];
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
    int tm = lane / LN, tn = lane % LN;
    int a_off = wr * WM + tm * 4;
    int b_off = wc * WN + tn * 4;
    /* Tile (tile_row, tile_col) of this block: bands of GROUP rows of tiles, numbered
     * column by column inside a band (the last band may be shorter). */
    int tiles_n = (n + BN - 1) / BN, tiles_m = (m + BM - 1) / BM;
    int per_band = GROUP * tiles_n;
    int band = blockIdx.x / per_band, in_band = blockIdx.x % per_band;
    int band_rows = min(GROUP, tiles_m - band * GROUP);
    int tile_row = band * GROUP + in_band % band_rows, tile_col = in_band / band_rows;
    int block_row = tile_row * BM, block_col = tile_col * BN;

    copy_plan plan;
    {
        int r0 = tid / 8, cb0 = (tid % (BN / 4)) * 4;
        plan.k0 = tid % 8;
        plan.kb0 = tid / (BN / 4);
        plan.a_src = a + (size_t)(block_row + r0) * k + plan.k0;
        plan.b_src = b + (size_t)plan.kb0 * n + block_col + cb0;
        plan.a_step = (size_t)A_RS * k;
        plan.b_step = (size_t)B_RS * n;
        plan.b_row = (size_t)n;
        plan.a_rows_in = 0;
#pragma unroll
        for (int q = 0; q < BM / A_RS; ++q)
            if (block_row + r0 + q * A_RS < m)
                plan.a_rows_in |= 1u << q;
        plan.cols_in = max(0, min(4, n - (block_col + cb0)));
        plan.a_dst = plan.k0 * (BM + A_PAD) + r0;
        plan.b_dst = plan.kb0 * BN + cb0;
    }

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
            copy_slice<VEC>(plan, a, b, k, s * BK, a_stages + s * A_STAGE, b_stages + s * B_STAGE);
        cp_async_commit();
    }

    for (int s = 0; s < slices; ++s) {
        /* Slice s has landed once at most STAGES-2 younger groups are pending. */
        cp_async_wait<STAGES - 2>();
        __syncthreads(); /* everyone's copies visible; everyone done with slice s-1 */

        /* Refill the buffer slice s-1 used with slice s + STAGES - 1. */
        int next = s + STAGES - 1;
        if (next < slices)
            copy_slice<VEC>(plan, a, b, k, next * BK, a_stages + (next % STAGES) * A_STAGE,
                            b_stages + (next % STAGES) * B_STAGE);
        cp_async_commit();

        const float *as = a_stages + (s % STAGES) * A_STAGE;
        const float *bs = b_stages + (s % STAGES) * B_STAGE;
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a_frag[TM], b_frag[TN];
            load_frags(as, bs, kk, a_off, b_off, a_frag, b_frag);
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
        /* acc[i][j] is row a_off + (i / 4) * 4 * LM + i % 4, column b_off + (j / 4) * 4 * LN + j % 4 */
        int row = block_row + a_off + (i / 4) * 4 * LM + i % 4;
        if (row >= m)
            continue;
        float *crow = c + (size_t)row * n;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            int col = block_col + b_off + (j / 4) * 4 * LN;
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

__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
matmul_tuned(const float *a, const float *b, float *c, int m, int n, int k)
{
    matmul_body<true>(a, b, c, m, n, k);
}

/* The same kernel with scalar loads, for sizes or pointers the fast path cannot take. */
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
matmul_tuned_scalar(const float *a, const float *b, float *c, int m, int n,
                                           int k)
{
    matmul_body<false>(a, b, c, m, n, k);
}

static bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    /* one block per tile of C, in a 1-D grid: at most 2^31 - 1 blocks */
    long long tiles = ((p->m + BM - 1LL) / BM) * ((p->n + BN - 1LL) / BN);
    if (tiles > 2147483647LL)
        return step_refuse_launch("more tiles of C than a 1-D grid can number (2^31 - 1)");
    dim3 grid((unsigned)tiles);
    bool vec = p->k % 4 == 0 && p->n % 4 == 0 && aligned16(p->a) && aligned16(p->b) &&
               aligned16(p->c);
    /* more than 48 KB of dynamic shared memory needs an opt-in per kernel */
    if (SMEM_BYTES > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(matmul_tuned,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)SMEM_BYTES);
        if (e == cudaSuccess)
            e = cudaFuncSetAttribute(matmul_tuned_scalar,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)SMEM_BYTES);
        if (e != cudaSuccess)
            return e;
    }
    if (vec)
        matmul_tuned<<<grid, THREADS, SMEM_BYTES, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    else
        matmul_tuned_scalar<<<grid, THREADS, SMEM_BYTES, stream>>>(p->a, p->b, p->c, p->m, p->n,
                                                                 p->k);
    return cudaGetLastError();
}

DEFINE_STEP(matmul_tuned, THREADS, SMEM_BYTES, launch);

/* Step 13 - tuned: a larger thread tile, depth and stages chosen by measurement on   *** YOUR TURN ***
 * the H100, and a schedule that keeps every SM busy at any size.
 * Guide: labs/matmul/README.md#step-13--tuned
 *
 * What changed from 12:
 *  - 8x16 elements of C per thread (TM = 8, TN = 16), blocks of 128x256 (8 warps of
 *    32x128): per k, 128 FFMAs for 6 float4 shared loads instead of 64 for 4. The 128
 *    accumulators need over 200 registers: __launch_bounds__(256, MIN_BLOCKS = 1).
 *  - BK = 16 and STAGES = 4 (99 KB of dynamic shared memory, opted in once); the copy
 *    addresses worked out once per tile (struct copy_plan), per slice only t added.
 *  - Stream-K (Osama et al., PPoPP 2023): as many blocks as the GPU runs at once (132
 *    on the H100), the work (tiles x BK-slices) cut into that many equal runs, block b
 *    computing run b tile after tile. Each block of a tile split between runs stores
 *    its share in a workspace and counts itself in (an atomic counter); the last adds
 *    the shares in block order and stores the tile: deterministic, no float atomics.
 *    One block per tile leaves SMs idle when the tiles are not a multiple of 132 (32
 *    tiles at 1024^3; 4097^3's 561 tiles take 5 waves for 4.25 waves of work). The
 *    launch takes the shorter of the two schedules, estimated in slices (waves of
 *    whole tiles; the longest run plus SPLIT_COST): at 2048^3, 128 tiles, one per block.
 *  - Two block shapes, the kernel written once for either (struct shape): when the
 *    large tiles number fewer than half the SMs (1024^3: 32 of them for 132 SMs), tiles
 *    of 64x64 (8x4 per thread, 4 blocks of 128 threads per SM) instead, eight times as
 *    many, with the same schedules; stream-K there on 3 blocks per SM, not all 4 (fewer,
 *    longer runs, fewer shares). And where tiles of 64x128 (8x8 per thread) make one
 *    wave of one tile per SM, 75% of the SMs at least (1024^3: 128 tiles for 132 SMs),
 *    those, one block per tile: no shares to store and add at all.
 *  - A warp's 32 lanes laid out 4 along m and 8 along n (LM = 4), not 8 and 4: other
 *    shared-memory loads per FFMA and other registers, measured faster at every size.
 *  - B read 16 bytes at a time: when n % 4 != 0 a first kernel (matmul_pad_b) copies
 *    it into rows of n rounded up to 4, zero-filled, instead of step 12's four 4-byte
 *    copies per float4 in every block. Except on the small tile (B_UNPADDED): there a
 *    warp's 32 lanes read B on 32 consecutive columns of a row, 4 bytes each
 *    (coalesced), and no padding kernel runs; measured faster at 1023x1025x999. A is
 *    copied 4 bytes at a time anyway (stored transposed); C is stored float4 by float4
 *    when n % 4 == 0.
 *  - On the large tile, a slice's refill copies start after its row 4 of FFMAs
 *    (COPY_AT = 4), not right after the barrier: the copies' address arithmetic and
 *    cp.async instructions then fall among FFMAs instead of between the barrier and the
 *    first FFMA, where the SM's 8 warps, just released together, would all wait on
 *    them (CUTLASS's SIMT loop spreads its copies the same way; the small and fit
 *    tiles, with less work a slice, keep theirs at the barrier: SMALL_COPY_AT = -1).
 *  - -maxrregcount=255 (lab.def) and B's fragments loaded before A's change nothing the
 *    code does, only which registers ptxas gives the FFMAs, and so how many FFMAs wait
 *    for two operands in one register bank (labs/matmul/README.md, step 13). They measured faster.
 * Why: after step 12 the kernel was issue-bound (ncu: many instructions not FFMAs, the
 * FMA pipe often idle; labs/matmul/README.md, step 13): the tile, depth and registers cut
 * instructions or stalls per FFMA. The schedule and the padded B make the speed hold
 * at every size: a large tile is fast per SM, but only if every SM has one.
 * Build variables: -DBK=8, -DSTAGES=3, -DBN=128, -DTN=8 -DMIN_BLOCKS=2, -DGROUP=16,
 * -DSTREAM_K=0 (one block per tile), -DSPLIT_COST=N ..., for repeating the sweep; the
 * small tile's -DSMALL_BM, -DSMALL_BN, -DSMALL_TN, -DSMALL_MIN_BLOCKS, -DSMALL_STREAM_K,
 * -DSMALL_SK_PER_SM=3 (its stream-K blocks per SM; 0: as many as fit) and -DSMALL_TILES=0
 * (never) or 2 (always); -DFIT_TILE=1 (0: no one-wave tile; its shape -DFIT_BM, -DFIT_BN,
 * -DFIT_MIN_PCT), -DLM=4 (8: 8 lanes along m), -DCOPY_AT=4 and -DSMALL_COPY_AT=-1 (the
 * row after which each shape starts its refill; -1: at the barrier), -DB_UNPADDED=1 (0: B padded for the
 * small tile too); harness/labs/matmul/sweep-13.sh times some of them. Variables that
 * measured no faster on the H200 were taken out (data/sweeps/README.md:
 * matmul-13-small-shapes.csv, matmul-13-issue41.csv, matmul-13-copy-at*.csv).
 * Expect: over 200 registers in the main kernel (`make report` says how many), 0 local
 *   memory, 99328 B of dynamic shared memory, 1 block of 256 threads per SM (the small
 *   tile's kernel: 4 blocks per SM). On the H100, close to cuBLAS SGEMM from 1024^3 to
 *   8192^3, multiples of the tile or not; further behind at 1023x1025x999, where every
 *   block stores a share. The workspace (2 shares per block, up to 34 MB) and the padded
 *   B are allocated at the first launch (never timed) and kept. Measured: labs/matmul/README.md's
 *   table, and its step 13 comparing the step with cuBLAS at each size of one
 *   run (make guide-tables, from data/results/).
 * Run:  make run LAB=matmul STEP=13 [RUN_ARGS="--n 4097"]
 *
 * This file is step 12's solution with the new kernel names: it runs and is
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
#ifndef GROUP
#define GROUP 8 /* rows of tiles per band */
#endif
#if BK % 8 != 0 || STAGES < 2
#error "BK must be a multiple of 8 and STAGES at least 2"
#endif

#define A_STAGE (BK * (BM + A_PAD)) /* floats of one A buffer, transposed: [BK][BM + A_PAD] */
#define B_STAGE (BK * BN)           /* floats of one B buffer: [BK][BN] */
#define SMEM_BYTES (STAGES * (A_STAGE + B_STAGE) * sizeof(float))

/* TODO (step 13). Tune, then schedule (see labs/matmul/README.md, step 13):
 *  1. __launch_bounds__(THREADS, MIN_BLOCKS) on both kernels (MIN_BLOCKS 1).
 *  2. Generalize the thread tile: TM x TN made of 4x4 blocks, LM lanes along m and
 *     LN = 32 / LM along n, WM = TM * LM, WN = TN * LN, THREADS from BM, BN, WM, WN;
 *     fragments: TM/4 float4 of A at a_off + q*4*LM, TN/4 float4 of B at b_off + q*4*LN;
 *     epilogue rows a_off + (i/4)*4*LM + i%4, columns b_off + (j/4)*4*LN + j%4.
 *     Then choose BM 128, BN 256, TM 8, TN 16 (128 accumulators per thread).
 *  3. Hoist the copy addresses: compute once per tile a plan (A row r0 = tid/8, k0 =
 *     tid%8, rows r0 + q*THREADS/8; B row kb0 = tid/(BN/4), columns cb0 ..+3; base
 *     pointers, row masks, shared offsets) and per slice only add t.
 *  4. BK 16, STAGES 4 (the measured best; make sure STAGES * stage bytes is opted in).
 *  5. Stream-K: launch SMs x blocks-per-SM blocks (cudaOccupancy...); give block b the
 *     iterations (tile, slice) [b * I / G, (b + 1) * I / G) of the I = tiles x slices;
 *     a whole tile goes to C, a share of a split tile to a workspace slot, counted in
 *     with an atomic counter per tile (fence.acq_rel.gpu around it); the last block
 *     adds the shares in block order and stores the tile, then resets the counter.
 *     Keep one block per tile where its waves are not longer (2048^3).
 *  6. n % 4 != 0: copy B once into rows of n rounded up to 4 (a small kernel) and
 *     keep the 16-byte path; store C float by float when n % 4 != 0.
 *  7. Compare -maxrregcount=255 and the order of the fragment loads, in the SASS
 *     (FFMAs with two operands in one register bank) and in time.
 *  8. Small problems: write the kernel once for a block shape (a template on BM, BN,
 *     TM, TN, MIN_BLOCKS) and launch 64x64 tiles (8x4 per thread, 128 threads, 4 blocks
 *     per SM) when the large tiles number fewer than half the SMs (1024^3).
 * Time each change separately at 1024^3, 4096^3 and 4097^3; keep what is faster. */

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
    /* Tile (tile_row, tile_col) of this block: bands of GROUP rows of tiles, numbered
     * column by column inside a band (the last band may be shorter). */
    int tiles_n = (n + BN - 1) / BN, tiles_m = (m + BM - 1) / BM;
    int per_band = GROUP * tiles_n;
    int band = blockIdx.x / per_band, in_band = blockIdx.x % per_band;
    int band_rows = min(GROUP, tiles_m - band * GROUP);
    int tile_row = band * GROUP + in_band % band_rows, tile_col = in_band / band_rows;
    int block_row = tile_row * BM, block_col = tile_col * BN;

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

__global__ void matmul_tuned(const float *a, const float *b, float *c, int m, int n, int k)
{
    matmul_body<true>(a, b, c, m, n, k);
}

/* The same kernel with scalar loads, for sizes or pointers the fast path cannot take. */
__global__ void matmul_tuned_scalar(const float *a, const float *b, float *c, int m, int n,
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

STEP_TODO("__launch_bounds__, 8x16 results per thread (128x256 tiles), BK 16, 4 stages, hoisted copy addresses, refill copies after row 4 of a slice, stream-K, padded B, 64x64 tiles for small problems");
DEFINE_STEP(matmul_tuned, THREADS, SMEM_BYTES, launch);

/* Step 13 - tuned: a larger thread tile, depth and stages chosen by measurement on
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
 */
#include <limits.h>
#include <stdint.h>

#include "matmul.h"
#include "step_kernel.h"
/* Beside the step in harness/labs/matmul/ (the handout leaves both out): */
#include "tuned_shapes.cuh" /* the block shapes: their build variables, struct shape */
#include "stream_k.cuh"     /* the schedule: stream_k, tile_origin, arrive, plan_schedule */

/* 1: when n % 4 != 0 and the small tile is used, no matmul_pad_b: the small tile's
 * scalar-C kernel copies B 4 bytes at a time straight from b, a warp's 32 lanes on 32
 * consecutive columns of one row (coalesced, no bank conflicts; not 4 consecutive
 * columns per lane, as the PAD_B=0 timed in data/sweeps/README.md did). 0: B padded
 * first, as for the other kernels. */
#ifndef B_UNPADDED
#define B_UNPADDED 1
#endif

/* cp.async of 4 or 16 bytes, global to shared; when `in` is false the source size is 0
 * and the destination is zero-filled (src must still be valid: the matrix's base). The
 * "memory" clobber keeps shared-memory accesses in program order around it. */
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

/* What one thread copies for one tile: A rows r0 + q * a_rs (q < bm / a_rs) at k
 * offsets k0 + 8 h (h < BK / 8); B rows kb0 + q * b_rs at columns cb0 .. cb0 + 3 (B
 * read 4 bytes at a time, VEC_B false: rows kb0 + q * threads / bn, column cb0). The
 * pointers are to the first slice and move by BK along k. */
struct copy_plan {
    const float *a_src;    /* A[block_row + r0][k0] */
    const float *b_src;    /* B[kb0][block_col + cb0] */
    size_t a_step;         /* a_rs rows of A, in floats */
    size_t b_step;         /* b_rs rows of B, in floats */
    size_t b_row;          /* one row of B: ldb */
    unsigned a_rows_in;    /* bit q: row r0 + q * a_rs is inside A */
    int k0, kb0;
    bool b_cols_in;        /* the 4 B columns (VEC_B false: the one) are inside B's rows */
    int a_dst, b_dst;      /* offsets in a stage's A and B buffers */
};

template <class S, bool VEC_B>
__device__ __forceinline__ copy_plan make_plan(const float *a, const float *b, int ldb, int m,
                                               int k, int block_row, int block_col)
{
    int tid = threadIdx.x;
    int r0 = tid / 8, cb0 = VEC_B ? (tid % (S::bn / 4)) * 4 : tid % S::bn;
    copy_plan p;
    p.k0 = tid % 8;
    p.kb0 = VEC_B ? tid / (S::bn / 4) : tid / S::bn;
    p.a_src = a + (size_t)(block_row + r0) * k + p.k0;
    p.b_src = b + (size_t)p.kb0 * ldb + block_col + cb0;
    p.a_step = (size_t)S::a_rs * k;
    p.b_step = (size_t)(VEC_B ? S::b_rs : S::threads / S::bn) * ldb;
    p.b_row = (size_t)ldb;
    p.a_rows_in = 0;
#pragma unroll
    for (int q = 0; q < S::bm / S::a_rs; ++q)
        if (block_row + r0 + q * S::a_rs < m)
            p.a_rows_in |= 1u << q;
    /* VEC_B: ldb % 4 == 0, all 4 columns in, or none; else ldb == n, the one column */
    p.b_cols_in = block_col + cb0 < ldb;
    p.a_dst = p.k0 * (S::bm + A_PAD) + r0;
    p.b_dst = p.kb0 * S::bn + cb0;
    return p;
}

/* Start the copies of the slice that begins at k = t into one stage's buffers. */
template <class S, bool VEC_B>
__device__ __forceinline__ void copy_slice(const copy_plan &p, const float *a, const float *b,
                                           int k, int t, float *as, float *bs)
{
#pragma unroll
    for (int h = 0; h < BK / 8; ++h) {
        bool k_in = t + p.k0 + 8 * h < k;
#pragma unroll
        for (int q = 0; q < S::bm / S::a_rs; ++q) {
            bool in = k_in && ((p.a_rows_in >> q) & 1u);
            cp_async4(&as[p.a_dst + 8 * h * (S::bm + A_PAD) + q * S::a_rs],
                      in ? p.a_src + q * p.a_step + t + 8 * h : a, in);
        }
    }
    if constexpr (!VEC_B) { /* B_UNPADDED: rows of B that need not start on 16 bytes */
        constexpr int rs = S::threads / S::bn; /* a warp: 32 consecutive columns of a row */
        static_assert(S::threads % S::bn == 0 && BK % rs == 0,
                      "B read 4 bytes at a time needs threads % bn == 0 and BK % (threads / bn) == 0");
#pragma unroll
        for (int q = 0; q < BK / rs; ++q) {
            bool in = p.b_cols_in && t + p.kb0 + q * rs < k;
            const float *src = p.b_src + (size_t)t * p.b_row + q * p.b_step;
            cp_async4(&bs[p.b_dst + q * rs * S::bn], in ? src : b, in);
        }
    } else {
#pragma unroll
        for (int q = 0; q < BK / S::b_rs; ++q) {
            bool k_in = t + p.kb0 + q * S::b_rs < k;
            const float *src = p.b_src + (size_t)t * p.b_row + q * p.b_step;
            bool in = p.b_cols_in && k_in;
            cp_async16(&bs[p.b_dst + q * S::b_rs * S::bn], in ? src : b, in);
        }
    }
}

/* This thread's tm values of A and tn of B for row kk of a slice. */
template <class S>
__device__ __forceinline__ void load_frags(const float *as, const float *bs, int kk, int a_off,
                                           int b_off, float *a_frag, float *b_frag)
{
    /* block q of 4 values sits 4 * LM (A) or 4 * LN (B) columns after block q-1. B's are
     * loaded first: the order changes how ptxas allocates registers, and this one
     * measured faster (labs/matmul/README.md, step 13). */
#pragma unroll
    for (int q = 0; q < S::tn / 4; ++q)
        *(float4 *)&b_frag[4 * q] = *(const float4 *)&bs[kk * S::bn + b_off + q * 4 * LN];
#pragma unroll
    for (int q = 0; q < S::tm / 4; ++q)
        *(float4 *)&a_frag[4 * q] = *(const float4 *)&as[kk * (S::bm + A_PAD) + a_off + q * 4 * LM];
}

/* Columns col .. col + 3 of a row of C: one float4 when n % 4 == 0 (VEC_C: then the
 * four are all inside the row or all outside), else each one inside the row. */
template <bool VEC_C>
__device__ __forceinline__ void store_c4(float *crow, int col, int n, float4 v)
{
    if (VEC_C) {
        if (col < n)
            *(float4 *)&crow[col] = v;
        return;
    }
    const float x[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int q = 0; q < 4; ++q)
        if (col + q < n)
            crow[col + q] = x[q];
}

/* The last block of a split tile sums it into C, in block order (so the result does
 * not depend on which block came last): thread t takes float4 t + r * threads, so a
 * warp reads 512 contiguous bytes, with sum_quads loads in flight per thread. */
template <class S, bool VEC_C>
__device__ __forceinline__ void add_shares(const float *partials, const stream_k &sk, int tile,
                                           int lead, int last, float *c, int m, int n,
                                           int block_row, int block_col)
{
#pragma unroll 1
    for (int e0 = threadIdx.x; e0 < S::tile_floats / 4; e0 += S::sum_quads * S::threads) {
        float4 sum[S::sum_quads];
#pragma unroll
        for (int r = 0; r < S::sum_quads; ++r)
            sum[r] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int q = lead; q <= last; ++q) {
            const float4 *share = (const float4 *)(partials + ((size_t)q * 2 + sk_slot(sk, q, tile)) *
                                                                  S::tile_floats);
#pragma unroll
            for (int r = 0; r < S::sum_quads; ++r) {
                float4 v = __ldcg(&share[e0 + r * S::threads]); /* from L2: other SMs wrote it */
                sum[r].x += v.x;
                sum[r].y += v.y;
                sum[r].z += v.z;
                sum[r].w += v.w;
            }
        }
#pragma unroll
        for (int r = 0; r < S::sum_quads; ++r) {
            int e = e0 + r * S::threads;
            int row = block_row + e / (S::bn / 4);
            if (row < m)
                store_c4<VEC_C>(c + (size_t)row * n, block_col + (e % (S::bn / 4)) * 4, n, sum[r]);
        }
    }
}

template <class S, bool VEC_C, bool VEC_B>
__device__ __forceinline__ void matmul_body(const float *a, const float *b, int ldb, float *c,
                                            int m, int n, int k, stream_k sk, float *partials,
                                            int *counters)
{
    __shared__ int arrived; /* how many of a split tile's blocks were done before this one */
    extern __shared__ float4 smem4[]; /* float4: 16-byte aligned */
    float *smem = (float *)smem4;
    float *a_stages = smem;                       /* STAGES x [BK][bm + A_PAD] */
    float *b_stages = smem + STAGES * S::a_stage; /* STAGES x [BK][bn] */

    int tid = threadIdx.x;
    int warp = tid / 32, lane = tid % 32;
    int wr = warp / (S::bn / S::wn), wc = warp % (S::bn / S::wn);
    int lane_m = lane / LN, lane_n = lane % LN;
    int a_off = wr * S::wm + lane_m * 4;
    int b_off = wc * S::wn + lane_n * 4;

    long long it = sk_begin(sk, blockIdx.x), end = sk_begin(sk, blockIdx.x + 1);
    int first_tile = (int)(it / sk.slices);
    while (it < end) { /* one tile, or the part of it this block's run covers */
        int tile = (int)(it / sk.slices);
        int s0 = (int)(it - (long long)tile * sk.slices);
        int count = (int)min((long long)(sk.slices - s0), end - it); /* slices s0 .. s0 + count - 1 */
        int block_row, block_col;
        tile_origin<S>(tile, m, n, block_row, block_col);
        copy_plan plan = make_plan<S, VEC_B>(a, b, ldb, m, k, block_row, block_col);

        float acc[S::tm][S::tn];
#pragma unroll
        for (int i = 0; i < S::tm; ++i)
#pragma unroll
            for (int j = 0; j < S::tn; ++j)
                acc[i][j] = 0.0f;

        /* Prologue: start slices 0 .. STAGES-2 of the segment, one commit group each
         * (empty groups past the end keep the counting simple). */
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < count)
                copy_slice<S, VEC_B>(plan, a, b, k, (s0 + s) * BK, a_stages + s * S::a_stage,
                                     b_stages + s * S::b_stage);
            cp_async_commit();
        }

        for (int s = 0; s < count; ++s) {
            /* Slice s has landed once at most STAGES-2 younger groups are pending. */
            cp_async_wait<STAGES - 2>();
            __syncthreads(); /* everyone's copies visible; everyone done with slice s-1 */

            /* Refill the buffer slice s-1 used with slice s + STAGES - 1: right after the
             * barrier, or after row S::copy_at of this slice's FFMAs (the large tile: its
             * address arithmetic then falls among FFMAs, not between the barrier and the
             * first of them, where all 8 warps of the SM would wait on it at once). */
            const int next = s + STAGES - 1;
            auto refill = [&]() {
                if (next < count)
                    copy_slice<S, VEC_B>(plan, a, b, k, (s0 + next) * BK,
                                         a_stages + (next % STAGES) * S::a_stage,
                                         b_stages + (next % STAGES) * S::b_stage);
                cp_async_commit();
            };
            if (S::copy_at < 0)
                refill();

            const float *as = a_stages + (s % STAGES) * S::a_stage;
            const float *bs = b_stages + (s % STAGES) * S::b_stage;
#pragma unroll
            for (int kk = 0; kk < BK; ++kk) {
                float a_frag[S::tm], b_frag[S::tn];
                load_frags<S>(as, bs, kk, a_off, b_off, a_frag, b_frag);
#pragma unroll
                for (int i = 0; i < S::tm; ++i)
#pragma unroll
                    for (int j = 0; j < S::tn; ++j)
                        acc[i][j] += a_frag[i] * b_frag[j];
                if (kk == S::copy_at)
                    refill();
            }
        }
        cp_async_wait<0>(); /* no copy may outlive the segment (the last groups are empty) */

        /* acc[i][j] is row a_off + (i / 4) * 4 * LM + i % 4, column b_off + (j / 4) * 4 * LN
         * + j % 4 of the tile */
        if (count < sk.slices) {
            /* A share of a split tile: to the workspace. The last of the tile's blocks
             * to get here adds all the shares, in block order, and stores the tile. */
            int lead = sk_owner(sk, (long long)tile * sk.slices);
            int last = sk_owner(sk, (long long)(tile + 1) * sk.slices - 1);
            float *mine =
                partials + ((size_t)blockIdx.x * 2 + (tile == first_tile ? 0 : 1)) * S::tile_floats;
#pragma unroll
            for (int i = 0; i < S::tm; ++i) {
                int row = a_off + (i / 4) * 4 * LM + i % 4;
#pragma unroll
                for (int j = 0; j < S::tn; j += 4)
                    *(float4 *)&mine[row * S::bn + b_off + (j / 4) * 4 * LN] =
                        make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
            }
            __syncthreads(); /* the whole share stored, as far as this block can see */
            if (tid == 0)
                arrived = arrive(&counters[lead], last - lead);
            __syncthreads();
            if (arrived == last - lead) { /* the last: every share is in */
                add_shares<S, VEC_C>(partials, sk, tile, lead, last, c, m, n, block_row, block_col);
                if (tid == 0)
                    counters[lead] = 0; /* ready for the next launch */
            }
        } else { /* the whole tile: straight to C */
#pragma unroll
            for (int i = 0; i < S::tm; ++i) {
                int row = block_row + a_off + (i / 4) * 4 * LM + i % 4;
                if (row >= m)
                    continue;
                float *crow = c + (size_t)row * n;
#pragma unroll
                for (int j = 0; j < S::tn; j += 4)
                    store_c4<VEC_C>(crow, block_col + b_off + (j / 4) * 4 * LN, n,
                                    make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]));
            }
        }
        it += count;
        __syncthreads(); /* every warp done with the stages before the next prologue */
    }
}

/* The step's main kernel (the one the harness reports): the large tile, C stored float4
 * by float4. Its siblings differ in the shape or in storing C one float at a time, for
 * n % 4 != 0 (rows of C that do not start on 16 bytes) or a C pointer not 16-byte
 * aligned (B_UNPADDED: the small one's also reads B 4 bytes at a time, unpadded). */
#define MATMUL_KERNEL(name, S, VEC_C, VEC_B)                                               \
    __global__ void __launch_bounds__(S::threads, S::min_blocks)                           \
    name(const float *a, const float *b, int ldb, float *c, int m, int n, int k, stream_k sk, \
         float *partials, int *counters)                                                   \
    {                                                                                      \
        matmul_body<S, VEC_C, VEC_B>(a, b, ldb, c, m, n, k, sk, partials, counters);        \
    }
MATMUL_KERNEL(matmul_tuned, large, true, true)
MATMUL_KERNEL(matmul_tuned_scalar_c, large, false, true)
MATMUL_KERNEL(matmul_tuned_small, small, true, true)
MATMUL_KERNEL(matmul_tuned_small_scalar_c, small, false, !B_UNPADDED)
#if FIT_TILE
MATMUL_KERNEL(matmul_tuned_fit, fit, true, true)
#endif
typedef void (*matmul_kernel)(const float *, const float *, int, float *, int, int, int, stream_k,
                              float *, int *);

/* B (k x n) copied into rows of ldb floats (n rounded up to 4), zero-filled, so that
 * every row starts on 16 bytes: one float4 of the copy per thread and turn. */
__global__ void matmul_pad_b(const float *b, float *padded, int k, int n, int ldb)
{
    size_t quads_per_row = (size_t)ldb / 4, quads = (size_t)k * quads_per_row;
    for (size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x; q < quads;
         q += (size_t)gridDim.x * blockDim.x) {
        const float *src = b + q / quads_per_row * n;
        int col = (int)(q % quads_per_row) * 4;
        float v[4];
        for (int e = 0; e < 4; ++e)
            v[e] = col + e < n ? src[col + e] : 0.0f;
        ((float4 *)padded)[q] = make_float4(v[0], v[1], v[2], v[3]);
    }
}

/* What launch() keeps from call to call: set up once per device; buffers that grow
 * when a problem needs more (the runner never times a size's first launch). */
struct buffer {
    void *at;
    size_t bytes;
};
static struct {
    int device, sms;                    /* set up for (-1: none yet); its SMs */
    int concurrent_large, concurrent_small; /* blocks at once of each shape: SMs x per SM */
    struct buffer partials, counters, padded_b; /* shares (2 per block), their counts, B */
    int concurrent_fit;                 /* FIT_TILE=1 */
} kept = {-1, 0, 0, 0, {NULL, 0}, {NULL, 0}, {NULL, 0}, 0};

static bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

/* One shape's two kernels: more than 48 KB of dynamic shared memory needs an opt-in per
 * kernel; *concurrent = the blocks of that shape the GPU runs at once. */
template <class S>
static cudaError_t set_up_shape(matmul_kernel vec, matmul_kernel scalar, int *concurrent)
{
    cudaError_t e = cudaSuccess;
    const void *kernels[] = {(const void *)vec, (const void *)scalar};
    for (int i = 0; i < 2 && S::smem_bytes > 48 * 1024; ++i)
        if ((e = cudaFuncSetAttribute(kernels[i], cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      S::smem_bytes)) != cudaSuccess)
            return e;
    int per_sm = 0;
    if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, vec, S::threads,
                                                           S::smem_bytes)) != cudaSuccess)
        return e;
    if (per_sm < 1)
        return step_refuse_launch("a block of this build does not fit on one SM of this GPU");
    *concurrent = kept.sms * per_sm;
    return cudaSuccess;
}

static cudaError_t set_up(void)
{
    int device;
    cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess || device == kept.device)
        return e;
    /* the padding kernel asks for the main kernel's L1/shared split: no reconfiguring */
    if ((e = cudaFuncSetAttribute(matmul_pad_b, cudaFuncAttributePreferredSharedMemoryCarveout,
                                  cudaSharedmemCarveoutMaxShared)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&kept.sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess ||
        (e = set_up_shape<large>(matmul_tuned, matmul_tuned_scalar_c, &kept.concurrent_large)) !=
            cudaSuccess ||
        (e = set_up_shape<small>(matmul_tuned_small, matmul_tuned_small_scalar_c,
                                 &kept.concurrent_small)) != cudaSuccess)
        return e;
#if FIT_TILE
    if ((e = set_up_shape<fit>(matmul_tuned_fit, matmul_tuned_fit, &kept.concurrent_fit)) != cudaSuccess)
        return e;
#endif
    kept.device = device;
    return cudaSuccess;
}

/* Makes buf hold at least `bytes`, zero-filled (in stream order) when it is new. */
static cudaError_t grow(struct buffer *buf, size_t bytes, const char *what, cudaStream_t stream)
{
    if (bytes <= buf->bytes)
        return cudaSuccess;
    cudaError_t e;
    if (buf->at != NULL) { /* earlier launches may still be using it */
        if ((e = cudaDeviceSynchronize()) != cudaSuccess || (e = cudaFree(buf->at)) != cudaSuccess)
            return e;
        buf->at = NULL;
        buf->bytes = 0;
    }
    if (cudaMalloc(&buf->at, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        buf->at = NULL;
        char why[200];
        snprintf(why, sizeof why, "no device memory left for %s (%zu MB)", what, bytes >> 20);
        return step_refuse_launch(why);
    }
    if ((e = cudaMemsetAsync(buf->at, 0, bytes, stream)) != cudaSuccess)
        return e;
    buf->bytes = bytes;
    return cudaSuccess;
}

/* The product with one shape and schedule, B already 16 bytes a row (or, B_UNPADDED,
 * read 4 bytes at a time by the small tile's scalar kernel). */
template <class S>
static cudaError_t launch_shape(const struct matmul_problem *p, const float *b, int ldb,
                                const struct schedule *s, bool vec_ok, matmul_kernel vec,
                                matmul_kernel scalar, cudaStream_t stream)
{
    long long tiles = tiles_of<S>(p), blocks = s->blocks;
    stream_k sk = s->sk;
    bool split = false; /* does a run start inside a tile? */
    for (int q = 1; blocks != tiles && q < blocks && !split; ++q)
        split = sk_begin(sk, q) % sk.slices != 0;
    cudaError_t e;
    if (split && ((e = grow(&kept.partials, (size_t)blocks * 2 * S::tile_floats * sizeof(float),
                            "the stream-K workspace", stream)) != cudaSuccess ||
                  (e = grow(&kept.counters, (size_t)blocks * sizeof(int),
                            "the stream-K counters", stream)) != cudaSuccess))
        return e;
    float *partials = (float *)kept.partials.at;
    int *counters = (int *)kept.counters.at;
    matmul_kernel kernel = vec_ok ? vec : scalar;
    kernel<<<(unsigned)blocks, S::threads, S::smem_bytes, stream>>>(p->a, b, ldb, p->c, p->m, p->n,
                                                                    p->k, sk, partials, counters);
    return cudaGetLastError();
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    if (tiles_of<small>(p) > INT_MAX || tiles_of<large>(p) > INT_MAX)
        return step_refuse_launch("more tiles of C than an int can number (2^31 - 1)");
    if (p->n > INT_MAX - 3)
        return step_refuse_launch("n is too large to round up to a multiple of 4");
    cudaError_t e = set_up();
    if (e != cudaSuccess)
        return e;

    /* Fewer large tiles than half the SMs: most SMs would get a small part of a tile
     * each, and the shares would cost as much as the work (1024^3: 32 tiles for 132
     * SMs). Eight times as many small tiles go round with fewer, smaller shares. */
    bool use_small = SMALL_TILES == 2 || (SMALL_TILES == 1 && 2 * tiles_of<large>(p) < kept.sms);

    /* B, 16 bytes at a time: straight from p->b when its rows start on 16 bytes */
    const float *b = p->b;
    int ldb = p->n;
    bool vec_ok = p->n % 4 == 0 && aligned16(p->c); /* C, 16 bytes at a time */
    /* B_UNPADDED: the small tile's scalar-C kernel (vec_ok is false) reads B 4 bytes at
     * a time, from p->b */
    bool b_by_float = B_UNPADDED && use_small && p->n % 4 != 0;
    if (!b_by_float && (p->n % 4 != 0 || !aligned16(p->b))) {
        ldb = (p->n + 3) / 4 * 4;
        if ((e = grow(&kept.padded_b, (size_t)p->k * ldb * sizeof(float),
                      "the padded copy of B", stream)) != cudaSuccess)
            return e;
        b = (const float *)kept.padded_b.at;
        matmul_pad_b<<<kept.sms * 4, 256, 0, stream>>>(p->b, (float *)kept.padded_b.at, p->k,
                                                       p->n, ldb);
        if ((e = cudaGetLastError()) != cudaSuccess)
            return e;
    }

#if FIT_TILE
    long long fit_tiles = tiles_of<fit>(p);
    if (use_small && SMALL_TILES == 1 && vec_ok && fit_tiles <= kept.sms &&
        100 * fit_tiles >= (long long)FIT_MIN_PCT * kept.sms) {
        struct schedule plan = plan_schedule<fit>(p, kept.sms, kept.concurrent_fit, 0, false);
        return launch_shape<fit>(p, b, ldb, &plan, true, matmul_tuned_fit, matmul_tuned_fit, stream);
    }
#endif
    if (use_small) {
        struct schedule plan = plan_schedule<small>(p, kept.sms, kept.concurrent_small,
                                                    SMALL_SK_PER_SM, STREAM_K && SMALL_STREAM_K);
        return launch_shape<small>(p, b, ldb, &plan, vec_ok, matmul_tuned_small,
                                   matmul_tuned_small_scalar_c, stream);
    }
    struct schedule plan = plan_schedule<large>(p, kept.sms, kept.concurrent_large, 0, STREAM_K);
    return launch_shape<large>(p, b, ldb, &plan, vec_ok, matmul_tuned, matmul_tuned_scalar_c,
                               stream);
}

DEFINE_STEP(matmul_tuned, large::threads, large::smem_bytes, launch);

/* Step 13 - tuned: launch bounds, a larger thread tile, the depth and stages chosen by
 * measurement on the H100, and a schedule that keeps every SM busy at any size.
 *
 * What changed from 12:
 *  - Each thread computes 8x16 elements of C instead of 8x8 (TM = 8, TN = 16: two by
 *    four 4x4 blocks), a block 128x256 (warp tile 64x64, 8 warps). Per k a thread now
 *    does 128 FFMAs for 6 float4 shared loads instead of 64 for 4.
 *  - __launch_bounds__(256, MIN_BLOCKS = 1): 128 accumulators need over 200 registers,
 *    so one block (8 warps) per SM; the bound tells the compiler it may use up to 255
 *    without spilling, and that it must not go beyond.
 *  - BK = 16 and STAGES = 4 (99 KB of dynamic shared memory, opted in once): half as
 *    many barriers per k as BK = 8, and deeper prefetch.
 *  - The copy addresses are worked out once per tile (struct copy_plan: base pointers,
 *    which rows are inside the matrix, shared-memory offsets); per slice only t is
 *    added. Recomputed every slice, they had cost registers and time.
 *  - Stream-K scheduling (Osama et al., PPoPP 2023): the grid is exactly the blocks
 *    the GPU runs at once (SMs x blocks per SM: 132 on the H100), not one block per
 *    tile. The work, tiles x BK-slices, is cut into that many equal runs of slices;
 *    block b computes run b, tile after tile. A tile whose slices are split between
 *    blocks is summed by a second kernel (matmul_fixup), in block order, from each
 *    block's partial tile in a workspace: deterministic, no float atomics. One tile
 *    per block (-DSTREAM_K=0, steps 01-12's way) leaves SMs idle whenever the tiles
 *    are not a multiple of 132: 32 tiles at 1024^3 fill a quarter of the GPU, and
 *    4097^3's 561 tiles need 5 waves for 4.25 waves of work.
 *  - B is always read 16 bytes at a time. When n is not a multiple of 4 (or B not
 *    16-byte aligned) its rows do not start on 16 bytes, so a first kernel
 *    (matmul_pad_b) copies B once into rows of n rounded up to 4, zero-filled: one
 *    pass over B, against step 12's four 4-byte copies per float4 in every block.
 *    A is copied 4 bytes at a time anyway (it is stored transposed), so k may be
 *    anything; C is stored as float4 when n % 4 == 0, else one float at a time.
 * Why: after step 12 the kernel was issue-bound: ncu showed a good share of its
 * instructions were not FFMAs and the FMA pipe often idle (GUIDE.md, step 13, has
 * the profile's figures and where they come from); the first four changes cut
 * instructions or stalls per FFMA. The last two make the speed hold at every size,
 * as a library's does: a large tile is fast per SM, but only if every SM has one.
 * All shapes are build variables (-DBK=8, -DSTAGES=3, -DBN=128, -DTN=8 -DMIN_BLOCKS=2,
 * -DGROUP=16, -DSTREAM_K=0 ...), so the sweep can be repeated on another GPU;
 * GUIDE.md (step 13) has the H100 sweep.
 * Expect: over 200 registers (the main kernel), 0 local memory, 99328 B of dynamic
 *   shared memory, 1 block of 256 threads per SM. On the H100, within about 10% of
 *   cuBLAS SGEMM at every size from 1024^3 to 8192^3, multiples of the tile or not.
 *   The workspace (2 partial tiles per block, 34 MB on the H100) and the padded copy
 *   of B are allocated on the first launch, which the runner never times, and kept.
 *   Measured on the H100: GUIDE.md's matmul table (make guide-tables, from
 *   data/results/<gpu>/matmul.csv), and GUIDE.md's step 13, which compares it
 *   with cuBLAS at each size of one named run.
 * Run:  make run LAB=matmul STEP=13
 *       make run LAB=matmul STEP=13 RUN_ARGS="--n 4097"
 */
#include <limits.h>
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
#ifndef STREAM_K
#define STREAM_K 1 /* 0: one block per tile, as in steps 01-12 */
#endif
#if BK % 8 != 0
#error "BK must be a multiple of 8"
#endif

#define A_STAGE (BK * (BM + A_PAD)) /* floats of one A buffer, transposed: [BK][BM + A_PAD] */
#define B_STAGE (BK * BN)           /* floats of one B buffer: [BK][BN] */
#define SMEM_BYTES (STAGES * (A_STAGE + B_STAGE) * sizeof(float))
#define TILE_FLOATS (BM * BN)       /* one partial tile in the workspace, row-major */
#define FIXUP_THREADS 256
#define FIXUP_CHUNKS 8              /* blocks of matmul_fixup per split tile */

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

/* What one thread copies for one tile: A rows r0 + q * A_RS (q < BM / A_RS) at k
 * offsets k0 + 8 h (h < BK / 8); B rows kb0 + q * B_RS at columns cb0 .. cb0 + 3. The
 * pointers are to the first slice and move by BK along k. */
struct copy_plan {
    const float *a_src;    /* A[block_row + r0][k0] */
    const float *b_src;    /* B[kb0][block_col + cb0] */
    size_t a_step;         /* A_RS rows of A, in floats */
    size_t b_step;         /* B_RS rows of B, in floats */
    size_t b_row;          /* one row of B: ldb */
    unsigned a_rows_in;    /* bit q: row r0 + q * A_RS is inside A */
    int k0, kb0;
    bool b_cols_in;        /* the 4 B columns are inside B's (padded) rows */
    int a_dst, b_dst;      /* offsets in a stage's A and B buffers */
};

__device__ __forceinline__ copy_plan make_plan(const float *a, const float *b, int ldb, int m,
                                               int k, int block_row, int block_col)
{
    int tid = threadIdx.x;
    int r0 = tid / 8, cb0 = (tid % (BN / 4)) * 4;
    copy_plan p;
    p.k0 = tid % 8;
    p.kb0 = tid / (BN / 4);
    p.a_src = a + (size_t)(block_row + r0) * k + p.k0;
    p.b_src = b + (size_t)p.kb0 * ldb + block_col + cb0;
    p.a_step = (size_t)A_RS * k;
    p.b_step = (size_t)B_RS * ldb;
    p.b_row = (size_t)ldb;
    p.a_rows_in = 0;
#pragma unroll
    for (int q = 0; q < BM / A_RS; ++q)
        if (block_row + r0 + q * A_RS < m)
            p.a_rows_in |= 1u << q;
    p.b_cols_in = block_col + cb0 < ldb; /* ldb % 4 == 0: all 4 columns, or none */
    p.a_dst = p.k0 * (BM + A_PAD) + r0;
    p.b_dst = p.kb0 * BN + cb0;
    return p;
}

/* Start the copies of the slice that begins at k = t into one stage's buffers. */
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
        bool in = p.b_cols_in && t + p.kb0 + q * B_RS < k;
        const float *src = p.b_src + (size_t)t * p.b_row + q * p.b_step;
        cp_async16(&bs[p.b_dst + q * B_RS * BN], in ? src : b, in);
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

/* The stream-K schedule. The work is iterations: one iteration is one BK-slice of one
 * tile, tile t's slices are iterations t * slices .. t * slices + slices - 1. Block b
 * of `blocks` takes the run [sk_begin(b), sk_begin(b + 1)): `per` iterations each,
 * the first `extra` blocks one more. Where a run starts or ends inside a tile, that
 * tile is split; the block leaves its share there as a partial tile in the
 * workspace: slot 0 of the block for the first tile of its run, slot 1 for the last. */
struct stream_k {
    long long per; /* iterations of every block (at least 1) */
    int extra;     /* the first `extra` blocks take one more */
    int slices;    /* BK-slices of one tile: ceil(k / BK) */
};

__host__ __device__ __forceinline__ long long sk_begin(const stream_k &s, int b)
{
    return b * s.per + (b < s.extra ? b : s.extra);
}

/* The block whose run holds iteration it. */
__host__ __device__ __forceinline__ int sk_owner(const stream_k &s, long long it)
{
    long long longer = (long long)s.extra * (s.per + 1); /* iterations of the longer runs */
    return it < longer ? (int)(it / (s.per + 1)) : s.extra + (int)((it - longer) / s.per);
}

/* The workspace slot in which block b left its share of tile t. */
__host__ __device__ __forceinline__ int sk_slot(const stream_k &s, int b, int t)
{
    return sk_begin(s, b) / s.slices == t ? 0 : 1;
}

/* Tile number -> its first row and column of C: bands of GROUP rows of tiles,
 * numbered column by column inside a band (the last band may be shorter), as in 12. */
__device__ __forceinline__ void tile_origin(int tile, int m, int n, int &row, int &col)
{
    int tiles_n = (n + BN - 1) / BN, tiles_m = (m + BM - 1) / BM;
    int per_band = GROUP * tiles_n;
    int band = tile / per_band, in_band = tile % per_band;
    int band_rows = min(GROUP, tiles_m - band * GROUP);
    row = (band * GROUP + in_band % band_rows) * BM;
    col = (in_band / band_rows) * BN;
}

template <bool VEC_C>
__device__ __forceinline__ void matmul_body(const float *a, const float *b, int ldb, float *c,
                                            int m, int n, int k, stream_k sk, float *partials)
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

    long long it = sk_begin(sk, blockIdx.x), end = sk_begin(sk, blockIdx.x + 1);
    int first_tile = (int)(it / sk.slices);
    while (it < end) { /* one tile, or the part of it this block's run covers */
        int tile = (int)(it / sk.slices);
        int s0 = (int)(it - (long long)tile * sk.slices);
        int count = (int)min((long long)(sk.slices - s0), end - it); /* slices s0 .. s0 + count - 1 */
        int block_row, block_col;
        tile_origin(tile, m, n, block_row, block_col);
        copy_plan plan = make_plan(a, b, ldb, m, k, block_row, block_col);

        float acc[TM][TN];
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j)
                acc[i][j] = 0.0f;

        /* Prologue: start slices 0 .. STAGES-2 of the segment, one commit group each
         * (empty groups past the end keep the counting simple). */
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < count)
                copy_slice(plan, a, b, k, (s0 + s) * BK, a_stages + s * A_STAGE,
                           b_stages + s * B_STAGE);
            cp_async_commit();
        }

        for (int s = 0; s < count; ++s) {
            /* Slice s has landed once at most STAGES-2 younger groups are pending. */
            cp_async_wait<STAGES - 2>();
            __syncthreads(); /* everyone's copies visible; everyone done with slice s-1 */

            /* Refill the buffer slice s-1 used with slice s + STAGES - 1. */
            int next = s + STAGES - 1;
            if (next < count)
                copy_slice(plan, a, b, k, (s0 + next) * BK, a_stages + (next % STAGES) * A_STAGE,
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
        cp_async_wait<0>(); /* no copy may outlive the segment (the last groups are empty) */

        /* acc[i][j] is row a_off + (i / 4) * 4 * LM + i % 4, column b_off + (j / 4) * 4 * LN
         * + j % 4 of the tile */
        if (count == sk.slices) { /* the whole tile: straight to C */
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                int row = block_row + a_off + (i / 4) * 4 * LM + i % 4;
                if (row >= m)
                    continue;
                float *crow = c + (size_t)row * n;
#pragma unroll
                for (int j = 0; j < TN; j += 4) {
                    int col = block_col + b_off + (j / 4) * 4 * LN;
                    if (VEC_C) {
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
        } else { /* a share of a split tile: the whole tile-sized partial to the workspace */
            float *part = partials + ((size_t)blockIdx.x * 2 + (tile == first_tile ? 0 : 1)) * TILE_FLOATS;
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                int row = a_off + (i / 4) * 4 * LM + i % 4;
#pragma unroll
                for (int j = 0; j < TN; j += 4)
                    *(float4 *)&part[row * BN + b_off + (j / 4) * 4 * LN] =
                        make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
            }
        }
        it += count;
        __syncthreads(); /* every warp done with the stages before the next prologue */
    }
}

__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
matmul_tuned(const float *a, const float *b, int ldb, float *c, int m, int n, int k, stream_k sk,
             float *partials)
{
    matmul_body<true>(a, b, ldb, c, m, n, k, sk, partials);
}

/* The same kernel storing C one float at a time, for n % 4 != 0 (rows of C that do
 * not start on 16 bytes) or a C pointer not 16-byte aligned. */
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
matmul_tuned_scalar_c(const float *a, const float *b, int ldb, float *c, int m, int n, int k,
                      stream_k sk, float *partials)
{
    matmul_body<false>(a, b, ldb, c, m, n, k, sk, partials);
}

/* Each split tile is summed once: by the first boundary between runs that falls
 * inside it (boundary j is where block j + 1's run starts), in FIXUP_CHUNKS blocks of
 * FIXUP_THREADS threads, each thread float4 by float4. The shares are added in block
 * order, so the result does not depend on which block finished first. */
__global__ void __launch_bounds__(FIXUP_THREADS)
matmul_fixup(const float *partials, float *c, int m, int n, stream_k sk, bool vec_c)
{
    int b = blockIdx.x + 1;
    long long start = sk_begin(sk, b);
    int tile = (int)(start / sk.slices);
    if (start % sk.slices == 0 || sk_owner(sk, (long long)tile * sk.slices) != b - 1)
        return; /* no tile split here, or an earlier boundary in the same tile sums it */
    int first = b - 1, last = sk_owner(sk, (long long)(tile + 1) * sk.slices - 1);
    int block_row, block_col;
    tile_origin(tile, m, n, block_row, block_col);
    for (int e = blockIdx.y * FIXUP_THREADS + threadIdx.x; e < TILE_FLOATS / 4;
         e += FIXUP_CHUNKS * FIXUP_THREADS) {
        float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int q = first; q <= last; ++q) {
            const float4 *part =
                (const float4 *)(partials + ((size_t)q * 2 + sk_slot(sk, q, tile)) * TILE_FLOATS);
            float4 v = part[e];
            sum.x += v.x;
            sum.y += v.y;
            sum.z += v.z;
            sum.w += v.w;
        }
        int row = block_row + e / (BN / 4), col = block_col + (e % (BN / 4)) * 4;
        if (row >= m || col >= n)
            continue;
        float *dst = c + (size_t)row * n + col;
        if (vec_c) { /* n % 4 == 0: the whole float4 is inside the row */
            *(float4 *)dst = sum;
        } else {
            dst[0] = sum.x;
            if (col + 1 < n)
                dst[1] = sum.y;
            if (col + 2 < n)
                dst[2] = sum.z;
            if (col + 3 < n)
                dst[3] = sum.w;
        }
    }
}

/* B (k x n) copied into rows of ldb floats (n rounded up to 4), zero-filled, so that
 * every row starts on 16 bytes. One float4 of the copy per thread and turn. */
__global__ void matmul_pad_b(const float *b, float *padded, int k, int n, int ldb)
{
    size_t quads_per_row = (size_t)ldb / 4, quads = (size_t)k * quads_per_row;
    for (size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x; q < quads;
         q += (size_t)gridDim.x * blockDim.x) {
        size_t row = q / quads_per_row;
        int col = (int)(q % quads_per_row) * 4;
        const float *src = b + row * n;
        ((float4 *)padded)[q] = make_float4(col < n ? src[col] : 0.0f, col + 1 < n ? src[col + 1] : 0.0f,
                                            col + 2 < n ? src[col + 2] : 0.0f,
                                            col + 3 < n ? src[col + 3] : 0.0f);
    }
}

/* What launch() keeps from one call to the next: set up once per device, the buffers
 * grow when a larger problem needs more (the runner never times a size's first
 * launch, so allocating there costs no timed run). One launch at a time. */
static struct {
    int device;     /* the device set up for, -1: none yet */
    int concurrent; /* blocks the GPU runs at once: SMs x blocks per SM */
    float *partials;
    size_t partials_floats;
    float *padded_b;
    size_t padded_floats;
} kept = {-1, 0, NULL, 0, NULL, 0};

static bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

static cudaError_t set_up(void)
{
    int device, sms = 0, per_sm = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess || device == kept.device)
        return e;
    /* more than 48 KB of dynamic shared memory needs an opt-in per kernel */
    if (SMEM_BYTES > 48 * 1024) {
        e = cudaFuncSetAttribute(matmul_tuned, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)SMEM_BYTES);
        if (e == cudaSuccess)
            e = cudaFuncSetAttribute(matmul_tuned_scalar_c,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES);
        if (e != cudaSuccess)
            return e;
    }
    if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess ||
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, matmul_tuned, THREADS,
                                                           SMEM_BYTES)) != cudaSuccess)
        return e;
    if (per_sm < 1)
        return step_refuse_launch("a block of this build does not fit on one SM of this GPU");
    kept.concurrent = sms * per_sm;
    kept.device = device;
    return cudaSuccess;
}

/* Makes *buf hold at least `need` floats. */
static cudaError_t grow(float **buf, size_t *have, size_t need, const char *what)
{
    if (need <= *have)
        return cudaSuccess;
    cudaError_t e;
    if (*buf != NULL) { /* earlier launches may still be using it */
        if ((e = cudaDeviceSynchronize()) != cudaSuccess || (e = cudaFree(*buf)) != cudaSuccess)
            return e;
        *buf = NULL;
        *have = 0;
    }
    if (cudaMalloc((void **)buf, need * sizeof(float)) != cudaSuccess) {
        (void)cudaGetLastError();
        *buf = NULL;
        char why[200];
        snprintf(why, sizeof why, "no device memory left for %s (%zu MB)", what,
                 need * sizeof(float) >> 20);
        return step_refuse_launch(why);
    }
    *have = need;
    return cudaSuccess;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    long long tiles = ((p->m + BM - 1LL) / BM) * ((p->n + BN - 1LL) / BN);
    if (tiles > INT_MAX)
        return step_refuse_launch("more tiles of C than an int can number (2^31 - 1)");
    if (p->n > INT_MAX - 3)
        return step_refuse_launch("n is too large to round up to a multiple of 4");
    cudaError_t e = set_up();
    if (e != cudaSuccess)
        return e;

    /* The schedule: as many blocks as run at once, each with an equal run of slices
     * (STREAM_K=0: one block per tile, each run a whole tile). */
    int slices = (p->k + BK - 1) / BK;
    long long iterations = tiles * slices;
    long long blocks = STREAM_K ? (iterations < kept.concurrent ? iterations : kept.concurrent) : tiles;
    stream_k sk = {iterations / blocks, (int)(iterations % blocks), slices};
    bool split = false; /* does a run start inside a tile? */
    for (int b = 1; STREAM_K && b < blocks && !split; ++b)
        split = sk_begin(sk, b) % slices != 0;
    if (split && (e = grow(&kept.partials, &kept.partials_floats,
                           (size_t)blocks * 2 * TILE_FLOATS, "the stream-K workspace")) != cudaSuccess)
        return e;

    /* B, 16 bytes at a time: straight from p->b when its rows start on 16 bytes */
    const float *b = p->b;
    int ldb = p->n;
    if (p->n % 4 != 0 || !aligned16(p->b)) {
        ldb = (p->n + 3) / 4 * 4;
        if ((e = grow(&kept.padded_b, &kept.padded_floats, (size_t)p->k * ldb,
                      "the padded copy of B")) != cudaSuccess)
            return e;
        matmul_pad_b<<<kept.concurrent * 4, 256, 0, stream>>>(p->b, kept.padded_b, p->k, p->n, ldb);
        if ((e = cudaGetLastError()) != cudaSuccess)
            return e;
        b = kept.padded_b;
    }

    bool vec_c = p->n % 4 == 0 && aligned16(p->c);
    dim3 grid((unsigned)blocks);
    if (vec_c)
        matmul_tuned<<<grid, THREADS, SMEM_BYTES, stream>>>(p->a, b, ldb, p->c, p->m, p->n, p->k,
                                                            sk, kept.partials);
    else
        matmul_tuned_scalar_c<<<grid, THREADS, SMEM_BYTES, stream>>>(p->a, b, ldb, p->c, p->m, p->n,
                                                                     p->k, sk, kept.partials);
    if ((e = cudaGetLastError()) != cudaSuccess || !split)
        return e;
    matmul_fixup<<<dim3((unsigned)blocks - 1, FIXUP_CHUNKS), FIXUP_THREADS, 0, stream>>>(
        kept.partials, p->c, p->m, p->n, sk, vec_c);
    return cudaGetLastError();
}

DEFINE_STEP(matmul_tuned, THREADS, SMEM_BYTES, launch);

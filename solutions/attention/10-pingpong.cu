/* Step 10 - pingpong: TMA loads by a producer warpgroup, two consumers taking turns at wgmma (sm_90a).
 * Guide: labs/attention/README.md#step-10--pingpong
 *
 * What changed from step 09: who loads, how, and when each warpgroup may multiply.
 * A block is now three warpgroups (384 threads) with different jobs, as in
 * FlashAttention-3 (Shah et al. 2024, section 3.1) and the TF32 lab's step 07.
 *   Warpgroup 0 is the producer. One of its threads issues every load with TMA
 * (cp.async.bulk.tensor.3d): Q's tile once, then each K and V tile into a ring of two
 * stages. The tensor maps (made on the host with cuTensorMapEncodeTiled, kept while the
 * buffers and the size stay the same) see Q, K and V as [bh][n][d], so a box that runs
 * past a head's last row is zero-filled by the hardware, as step 09's copies zero-filled
 * it; the maps' 128-byte swizzle writes the very layout step 09's descriptors read
 * (chunk c of row r at c ^ (r % 8), slabs of 64 columns on 1024 bytes), so the products
 * are unchanged. The producer gives its registers away (setmaxnreg.dec to 24) and the
 * consumers take them (setmaxnreg.inc to 240), FA3's split for two consumers.
 *   K and V have rings of their own, each stage guarded by two mbarriers: `full` (the
 * tile has landed: TMA completes it with the bytes announced by expect_tx) and `empty`
 * (both consumers are done reading it: one arrival from each). A K stage is released as
 * soon as its S = Q K^T is done, a V stage only after its O += P V, so the producer
 * refills K a step before V and each load has about two iterations to land. No
 * __syncthreads after the roles part; the copies need no fence.proxy.async, since TMA
 * writes through the async proxy that wgmma reads.
 *   Warpgroups 1 and 2 are the consumers, each owning 64 query rows as in step 09, and
 * they ping-pong: two named barriers (bar.sync / bar.arrive, ids 1 and 2, 256 threads)
 * hand a turn back and forth, and a consumer issues its products only on its turn:
 * O += P V for the previous tile and S = Q K^T for this one, one batch, after which it
 * gives the turn to the other and waits for its own batch. So one warpgroup's softmax
 * (exp2, the maxima, the conversion of P) runs while the other's products use the
 * tensor cores, which would otherwise idle during it. Issuing P V of tile j - 1 with
 * Q K^T of tile j is the order FA3 gives its GEMMs; the running maximum and rescale
 * follow: O is rescaled after tile j - 1's P V has landed, by tile j's alpha. A last
 * turn adds the last tile's P V. Each consumer takes as many turns as the other (the
 * causal mask's fully masked tile of the first warpgroup still takes its turn, with
 * P = 0 and no Q K^T), so every bar.sync meets its arrivals.
 *   Causal, tails and length 1 as in step 09: keys past the block's last query are never
 * loaded, only tiles across a warpgroup's diagonal or the end are masked.
 * Why: in step 09 the warps that multiply also copied, and every product waited for the
 *   softmax before it: the tensor cores idled through both. FlashAttention-3 reaches up
 *   to 740 TFLOP/s forward in FP16 on the H100 SXM5 (75% of its peak, its paper's
 *   figure) with exactly these moves: TMA, warp specialization, ping-pong scheduling
 *   (and the softmax overlapped with the next products within a warpgroup, its
 *   intra-warpgroup pipelining, which this step leaves out).
 * Six choices make the turns pay, each a build variable below, each chosen from a
 *   recorded sweep (the chapter's generated tables): a softmax with no per-score branch
 *   and a block per SM taking tiles in turn (-DLEAN_SOFTMAX=2 -DPERSISTENT=1, below: the
 *   first of them the largest gain of the step, as a per-score mask test had made the
 *   softmax, not the products, the longest part of a turn); 160 keys a tile (-DBC=160:
 *   S = Q K^T is one m64n160k16 per k16 step, so a turn's batch is 2.5 times as long as
 *   at 64 and the hand-over is paid less often, and the instruction reads Q's 2 KB from
 *   shared memory once for 160 keys, not 128; FA3 takes 176 at d = 128 without the
 *   mask, which spills here); O through shared memory and out by TMA (-DO_BY_TMA=1: the
 *   consumers write their tile of O into a stage of its own and one thread stores it,
 *   so a block's next tile starts without waiting on 64 scattered 4-byte stores a
 *   thread); P V as one product of
 *   the head's width (-DWIDE_PV=1: one m64n<d>k16 per k16 step); and code in which
 *   ptxas keeps a batch's wgmma in flight (-DWGMMA_ASYNC=1: the warpgroup's index
 *   broadcast by __shfl_sync, so ptxas knows it is the same across the warp, as
 *   CUTLASS's canonical_warp_group_idx does, and S's first k16 step overwriting the
 *   accumulator instead of adding to zeros written before). Without the last, nvcc 13's
 *   ptxas serializes the products (its -v lines, C7520: "wgmma.mma_async instructions
 *   are serialized"; a WARPGROUP.DEPBAR after every HGMMA): each waits for the one
 *   before, the idling the turns are there to hide.
 * Expect: one block per SM, as many blocks as SMs (384 threads; registers reported at
 *   the launch bound, 168, since the split is made at run time). In the SASS: UTMALDG.3D
 *   and UTMASTG.3D (the TMA loads and O's stores), SYNCS (the mbarriers), USETMAXREG,
 *   BAR.SYNC and BAR.ARV (the turns), HGMMA.64x160x16.F32.BF16 (S) and HGMMA.64x128x16
 *   or 64x64x16 (P V at d = 128 or 64), no LDGSTS, and no C7520 warning in the build.
 *   Ahead of step 09 at d = 128, close to cuDNN (the chapter's tables say how close).
 * Build variables, each a -D flag (the CSV's flags column records those set; make run
 *   LAB=attention STEP=10 ATT_BC=64 ... sets them, lab.mk): -DBC=160 keys per tile (64:
 *   the tile of step 09, S as m64n64k16; 128, 144, 176 or 192: S as m64n<BC>k16, the
 *   last two spilling and fitting only with O_BY_TMA=0), -DO_BY_TMA=1 (0: each thread
 *   stores its O straight to global memory), -DSTAGES=2 (3 fits at BC = 128 without O_BY_TMA, in 225 KB), -DWIDE_PV=1 (0:
 *   one m64n64k16 per 64 columns), -DPINGPONG=1 (0: no turns, both consumers issue when
 *   ready), -DWGMMA_ASYNC=1 (0: the role test on threadIdx.x / 128 and zeros written
 *   before the first product, which ptxas serializes), -DINTRA_WG_OVERLAP=0 (1: FA3's
 *   intra-warpgroup pipelining, S of this tile a batch of its own before the last
 *   tile's P V, waited for with wait_group 1, so this tile's softmax runs under that
 *   P V; a second P in registers), and the setmaxnreg split -DPRODUCER_REGISTERS=24
 *   -DCONSUMER_REGISTERS=240 (40 and 232 at BC = 64; 232 spills at BC >= 128),
 *   -DLEAN_SOFTMAX=2 (FlashAttention-3's softmax: the mask's test compiled only into
 *   the edge tiles' copy, so an interior tile's has no per-element branch; maxima kept
 *   in score units and the scale folded into exp2's argument, one FFMA and one
 *   ex2.approx.ftz a score; and O's rescale skipped by a warp whose rows all kept their
 *   maxima; 1: without that skip; 0: a mask test, a branch, per score, and exp2f's
 *   care for results below 2^-126), -DPERSISTENT=1 (a block per SM taking the query
 *   tiles in turn, the rings' phases running on across them and Q reloaded once both
 *   consumers have issued their last S; the causal mask's tiles longest first over all
 *   heads; 0: a block per query tile).
 *   harness/labs/attention/sweep-pingpong.sh times a grid of them beside cuDNN.
 * Headers: this file keeps the roles, the rings, the turns and the loop; the rest is in
 *   headers, with what other steps share: harness/hopper_tma.cuh (the mbarriers, TMA's
 *   loads and stores, the tensor maps' encoder), harness/named_barrier.cuh (the turns'
 *   bar.sync and bar.arrive), harness/shared_address.cuh (a pointer's shared-memory
 *   address), and beside attention.h swizzled_tiles.cuh (step 09's descriptor of the
 *   swizzled tiles and the layout's sizes), wgmma_bf16.cuh (the products),
 *   online_softmax.cuh (step 09's softmax, tile_maxima, rescale and tile_probabilities;
 *   its end, quad_sums and O_BY_TMA=0's o_store_direct; LEAN_SOFTMAX's lean_softmax and
 *   rescale_if_moved) and head_maps.cuh (the host's tensor maps of Q, K, V and O, kept
 *   from launch to launch).
 * Run:  make run LAB=attention STEP=10
 */
#include <math.h>
#include <stdint.h>

#include "attention.h"
#include "head_maps.cuh"
#include "hopper_tma.cuh"
#include "named_barrier.cuh"
#include "online_softmax.cuh"
#include "shared_address.cuh"
#include "swizzled_tiles.cuh"
#include "wgmma_bf16.cuh"
#include "step_kernel.h"

/* The build variables (the header's "Build variables"); each default is the fastest build
 * of the recorded sweep (labs/attention/README.md, step 10). */
#ifndef BC
#define BC 160 /* keys per tile: 64, 128, 144, 160, 176 or 192 (S = Q K^T of a k16 step is one m64n<BC>k16) */
#endif
#ifndef STAGES
#define STAGES 2 /* K tiles (and V tiles) in flight */
#endif
#ifndef WIDE_PV
#define WIDE_PV 1 /* 1: O += P V as one m64n<D>k16 per k16 step, not one m64n64k16 per slab */
#endif
#ifndef PINGPONG
#define PINGPONG 1 /* 0: no turns, both consumers issue whenever they are ready */
#endif
#ifndef WGMMA_ASYNC
#define WGMMA_ASYNC 1 /* 1: code in which ptxas keeps a batch's wgmma in flight (the header says how) */
#endif
#ifndef INTRA_WG_OVERLAP
#define INTRA_WG_OVERLAP 0 /* 1: a tile's softmax under the same warpgroup's P V of the last */
#endif
#ifndef LEAN_SOFTMAX
#define LEAN_SOFTMAX 2 /* 1: the mask's test only on edge tiles, exp2 as one FFMA and ex2.approx; 2: and O's rescale skipped when no row of the warp has a new maximum */
#endif
#ifndef PERSISTENT
#define PERSISTENT 1 /* 1: one block per SM, each taking query tiles in turn (Q reloaded when both consumers are done with it) */
#endif
#ifndef O_BY_TMA
#define O_BY_TMA 1 /* 1: O written to shared memory, then stored by TMA (the consumer moves on) */
#endif
#if BC != 64 && BC != 128 && BC != 144 && BC != 160 && BC != 176 && BC != 192
#error "BC (keys per tile) must be 64, 128, 144, 160, 176 or 192: the S product is one wgmma m64n<BC>k16"
#endif
#if STAGES < 2
#error "STAGES must be 2 or more: a K (and a V) tile loads while the last is read"
#endif

#define CONSUMERS 2
#define THREADS (128 * (CONSUMERS + 1)) /* a producer warpgroup and the consumers */
#define BR (64 * CONSUMERS)             /* query rows per block: 64 per consumer */
/* (ROW_BYTES, a slab's row, and SWIZZLE_ATOM, the swizzle's 1024 bytes: swizzled_tiles.cuh) */
/* 40 x 128 + 232 x 256 = 168 x 384: the block's share. At BC = 128 the consumers hold
 * S (64 registers), O (64 at D = 128) and P (32) at once and spill at 232 with nvcc 13:
 * there the split is FlashAttention-3's for two consumers, 24 and 240. */
#ifndef PRODUCER_REGISTERS
#define PRODUCER_REGISTERS (BC >= 128 ? 24 : 40)
#endif
#ifndef CONSUMER_REGISTERS
#define CONSUMER_REGISTERS (BC >= 128 ? 240 : 232)
#endif
#if PRODUCER_REGISTERS * 128 + CONSUMER_REGISTERS * 256 > 168 * 384 || PRODUCER_REGISTERS % 8 || CONSUMER_REGISTERS % 8
#error "setmaxnreg's split must fit the block's 168 x 384 registers, in multiples of 8"
#endif
#define TURN_THREADS (128 * CONSUMERS) /* the named barriers: one warpgroup syncs, one arrives */

/* nvcc -arch=sm_90a also embeds PTX; compiled for anything but sm_90a's features
 * wgmma does not exist, and the kernel's body is left out (the runner refuses any GPU
 * but compute capability 9.0 before the launch: lab.def's needs). */
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define ATTENTION_NO_WGMMA 1
#endif

/* WIDE_PV's V operand spans D / 64 slabs across N: there smem_descriptor's leading
 * offset (swizzled_tiles.cuh) is the step from one slab to the next (CUTLASS's canonical
 * MN-major 128-byte layout, ((8 chunks, slabs), (8 rows, atoms)) : ((16 B, leading),
 * (128 B, stride))). */
#define MN_MAJOR_SLAB_STEP (BC * ROW_BYTES)

/* The consumers' turns at the tensor cores: named barrier 1 + c is consumer c's. Its 128
 * threads wait there (bar.sync) for the other consumer's 128 to arrive (bar.arrive, which
 * does not wait). Named barrier 3 + c is consumer c's own 128 threads meeting (O_BY_TMA). */
__device__ __forceinline__ void turn_wait(int consumer)
{
#if PINGPONG
    named_barrier_sync<TURN_THREADS>(1 + consumer);
#endif
}

__device__ __forceinline__ void turn_give(int consumer)
{
#if PINGPONG
    named_barrier_arrive<TURN_THREADS>(1 + (consumer ^ 1));
#endif
}

/* S = Q K^T of one tile: D / 16 steps of k16, 4 per slab, 32 bytes apart; q_rows is the
 * warpgroup's 64 rows of Q's tile (A), ks the stage's K tile (B, BC keys). */
template <int D>
__device__ __forceinline__ void issue_scores(float (&sc)[BC / 2], uint32_t q_rows, uint32_t ks)
{
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
        uint32_t in_slab = (kk % 4) * 32;
        uint64_t a = smem_descriptor(q_rows + (kk / 4) * BR * ROW_BYTES + in_slab, K_MAJOR_LEADING);
        uint64_t b = smem_descriptor(ks + (kk / 4) * BC * ROW_BYTES + in_slab, K_MAJOR_LEADING);
        wgmma_k16_ss(sc, a, b, WGMMA_ASYNC ? kk > 0 : 1);
    }
}

/* O += P V of one tile: per piece of PV_N columns (a slab, or all D with WIDE_PV), BC / 16
 * steps of k16 (16 keys: 2048 bytes); vs is the stage's V tile. */
template <int D, int PV_N>
__device__ __forceinline__ void issue_pv(float (&acc)[D / PV_N][PV_N / 2], const unsigned (&pa)[BC / 16][4],
                                         uint32_t vs, uint32_t v_leading)
{
#pragma unroll
    for (int x = 0; x < D / PV_N; ++x)
#pragma unroll
        for (int kb = 0; kb < BC / 16; ++kb)
            wgmma_k16_rs(acc[x], pa[kb],
                         smem_descriptor(vs + x * (PV_N / 64) * BC * ROW_BYTES + kb * 16 * ROW_BYTES, v_leading));
}

/* Work item w (a head's tile of BR query rows) as its head and tile. One block an item
 * (PERSISTENT 0): the grid's x the tile, y the head, the causal mask's tiles longest
 * first. PERSISTENT: items in turn across the blocks, causal ones longest first over
 * every head, so the blocks' shares come out about even. */
__device__ __forceinline__ void work_item(int w, int row_tiles, int heads, int causal, int &head, int &tile_i)
{
#if PERSISTENT
    if (causal)
        head = w % heads, tile_i = row_tiles - 1 - w / heads;
    else
        head = w / row_tiles, tile_i = w % row_tiles;
#else
    (void)heads;
    head = w / row_tiles, tile_i = w % row_tiles;
    if (causal)
        tile_i = row_tiles - 1 - tile_i;
#endif
}

template <int D>
__device__ __forceinline__ void pingpong_forward(const CUtensorMap *q_map, const CUtensorMap *k_map,
                                                 const CUtensorMap *v_map, const CUtensorMap *o_map, __nv_bfloat16 *o, int n,
                                                 int causal, float scale, int heads)
{
#ifdef ATTENTION_NO_WGMMA
    __trap();
#else
    const int SLABS = D / 64;
    const uint32_t TILE_BYTES = SLABS * BC * ROW_BYTES; /* one tile of K (or V) */
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ __align__(8) uint64_t q_full, q_empty, k_full[STAGES], k_empty[STAGES], v_full[STAGES],
        v_empty[STAGES];
    /* Q's tile, then the K stages, then the V stages, each slab on 1024 bytes (TMA's
     * 128-byte swizzle is a function of the address, so it is step 09's layout only there) */
    unsigned char *q_tile = smem + (SWIZZLE_ATOM - shared_address(smem) % SWIZZLE_ATOM) % SWIZZLE_ATOM;
    unsigned char *k_stages = q_tile + SLABS * BR * ROW_BYTES;
    unsigned char *v_stages = k_stages + STAGES * TILE_BYTES;
#if O_BY_TMA
    unsigned char *o_stage = v_stages + STAGES * TILE_BYTES; /* O_BY_TMA: O's tile on its way out */
#endif
#if WGMMA_ASYNC /* the role as a value ptxas knows is the same across the warp (CUTLASS's way) */
    const int warpgroup = __shfl_sync(0xffffffffu, (int)threadIdx.x / 128, 0);
#else
    const int warpgroup = threadIdx.x / 128;
#endif
    const int row_tiles = (n + BR - 1) / BR;
#if PERSISTENT /* items blockIdx.x, + gridDim.x, ... */
    const int first_work = (int)blockIdx.x, works = row_tiles * heads, work_step = (int)gridDim.x;
#else /* the one item of the block */
    const int first_work = (int)blockIdx.y * row_tiles + (int)blockIdx.x, works = first_work + 1, work_step = 1;
#endif

    if (threadIdx.x == 0) {
        mbarrier_init(&q_full, 1); /* the producer's arrival, then TMA's bytes */
        mbarrier_init(&q_empty, CONSUMERS); /* PERSISTENT: both consumers are done with Q */
        for (int s = 0; s < STAGES; ++s) {
            mbarrier_init(&k_full[s], 1);
            mbarrier_init(&v_full[s], 1);
            mbarrier_init(&k_empty[s], CONSUMERS); /* one arrival per consumer */
            mbarrier_init(&v_empty[s], CONSUMERS);
        }
        mbarrier_init_fence();
    }
    __syncthreads(); /* the last barrier of the whole block: the roles part here */

    if (warpgroup == 0) { /* the producer: every warp gives registers back, one thread loads */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(PRODUCER_REGISTERS));
        if (threadIdx.x == 0) {
            int loaded = 0; /* K (and V) tiles loaded for the items before: the rings go on */
            for (int w = first_work, item = 0; w < works; w += work_step, ++item) {
                int head, tile_i;
                work_item(w, row_tiles, heads, causal, head, tile_i);
                const int end = causal ? min(n, tile_i * BR + BR) : n; /* the keys any row of the item sees */
                const int tiles = (end + BC - 1) / BC;
                if (item > 0) /* both consumers' last S of the item before has read Q */
                    mbarrier_wait(&q_empty, (item - 1) % 2);
                mbarrier_expect_bytes(&q_full, SLABS * BR * ROW_BYTES);
                for (int x = 0; x < SLABS; ++x)
                    tma_load_3d(q_tile + x * BR * ROW_BYTES, q_map, x * 64, tile_i * BR, head, &q_full);
                for (int j = 0; j < tiles; ++j) {
                    int s = (loaded + j) % STAGES, round = (loaded + j) / STAGES;
                    if (round > 0) /* both consumers have released this stage's last K tile */
                        mbarrier_wait(&k_empty[s], (round - 1) % 2);
                    mbarrier_expect_bytes(&k_full[s], TILE_BYTES);
                    for (int x = 0; x < SLABS; ++x)
                        tma_load_3d(k_stages + s * TILE_BYTES + x * BC * ROW_BYTES, k_map, x * 64, j * BC, head,
                                    &k_full[s]);
                    if (round > 0) /* ... and its last V tile, which they finish a turn later */
                        mbarrier_wait(&v_empty[s], (round - 1) % 2);
                    mbarrier_expect_bytes(&v_full[s], TILE_BYTES);
                    for (int x = 0; x < SLABS; ++x)
                        tma_load_3d(v_stages + s * TILE_BYTES + x * BC * ROW_BYTES, v_map, x * 64, j * BC, head,
                                    &v_full[s]);
                }
                loaded += tiles;
            }
        }
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(CONSUMER_REGISTERS));
    const int consumer = warpgroup - 1;
    const bool leader = threadIdx.x % 128 == 0; /* arrives on the empty barriers for its warpgroup */
    int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    int g = lane / 4, t = lane % 4; /* the accumulator's row group and pair */
    const float scale_log2 = scale * 1.4426950408889634f; /* exp(x) = exp2(x log2 e) */
    const uint32_t q_rows = shared_address(q_tile) + consumer * 64 * ROW_BYTES; /* this warpgroup's A */
    int consumed = 0; /* K (and V) tiles of the items before, as the producer counts them */
    for (int w = first_work, item = 0; w < works; w += work_step, ++item) {
        int head, tile_i;
        work_item(w, row_tiles, heads, causal, head, tile_i);
        const int end = causal ? min(n, tile_i * BR + BR) : n; /* the keys any row of the item sees */
        const int tiles = (end + BC - 1) / BC;
        int w0 = tile_i * BR + consumer * 64;              /* the warpgroup's first query row */
        int row_a = w0 + warp * 16 + g, row_b = row_a + 8; /* the two query rows this thread holds */

        /* O: 64 x D, PV_N columns a product: register 4c + i of piece x is column
         * x PV_N + 8c + 2t + i % 2 (a 64 x 64 accumulator per slab unless WIDE_PV) */
        constexpr int PV_N = WIDE_PV ? D : 64;
        constexpr uint32_t V_LEADING = PV_N > 64 ? MN_MAJOR_SLAB_STEP : MN_MAJOR_LEADING;
        float acc[D / PV_N][PV_N / 2];
#pragma unroll
        for (int x = 0; x < D / PV_N; ++x)
#pragma unroll
            for (int i = 0; i < PV_N / 2; ++i)
                acc[x][i] = 0.0f;
        float m_a = -INFINITY, m_b = -INFINITY, l_a = 0.0f, l_b = 0.0f; /* per thread: partial sums */
        unsigned pa[BC / 16][4]; /* P of the previous tile, BF16 A fragments: keys 16 kb .. 16 kb + 15 */
#pragma unroll
        for (int kb = 0; kb < BC / 16; ++kb)
            pa[kb][0] = pa[kb][1] = pa[kb][2] = pa[kb][3] = 0u;

        if (consumer == 1)
            turn_give(consumer); /* consumer 0 takes the first turn */
        mbarrier_wait(&q_full, item % 2);
        /* Turn j issues O += P V of tile j - 1 and S = Q K^T of tile j; turn `tiles` only the
         * last P V. Both consumers take tiles + 1 turns, so the arrivals match the waits:
         * consumer 1's first give and its gives after turns 0 .. tiles - 1 are consumer 0's
         * tiles + 1 waits; consumer 0 gives after every turn, consumer 1's tiles + 1 waits. */
        for (int j = 0;; ++j) {
            const bool last_turn = j == tiles;
            const int kv = consumed + j; /* tile j's place in the rings, counted over the items */
            const int s = kv % STAGES, prev = (kv + STAGES - 1) % STAGES; /* tile j's stage, tile j - 1's */
            const int j0 = j * BC;
            /* else every row of this warpgroup comes before the tile (causal): P = 0, no S */
            const bool scores = !last_turn && !(causal && j0 > w0 + 63);
            if (!last_turn)
                mbarrier_wait(&k_full[s], (kv / STAGES) % 2);
            if (j > 0)
                mbarrier_wait(&v_full[prev], ((kv - 1) / STAGES) % 2);
            float sc[BC / 2]; /* S: register 4 nb + e is key j0 + 8 nb + 2t + e % 2 of row a (e < 2) or b */
#if !WGMMA_ASYNC /* (WGMMA_ASYNC: S's first k16 step overwrites instead) */
#pragma unroll
            for (int i = 0; i < BC / 2; ++i)
                sc[i] = 0.0f;
#endif

            turn_wait(consumer); /* the tensor cores are this warpgroup's to feed */
            wgmma_fence();       /* the threads wrote O (rescaled), P and S's zeros */
#if INTRA_WG_OVERLAP
            /* S first, a batch of its own, so that waiting for it leaves P V running */
            if (scores)
                issue_scores<D>(sc, q_rows, shared_address(k_stages + s * TILE_BYTES));
            wgmma_commit();
            if (j > 0)
                issue_pv<D, PV_N>(acc, pa, shared_address(v_stages + prev * TILE_BYTES), V_LEADING);
            wgmma_commit();
#else
            if (j > 0)
                issue_pv<D, PV_N>(acc, pa, shared_address(v_stages + prev * TILE_BYTES), V_LEADING);
            if (scores)
                issue_scores<D>(sc, q_rows, shared_address(k_stages + s * TILE_BYTES));
            wgmma_commit();
#endif
            if (consumer == 0 || !last_turn)
                turn_give(consumer); /* issued: the other warpgroup's turn, while this one waits */
            float alpha_a, alpha_b;
#if INTRA_WG_OVERLAP
            wgmma_wait_all_but_last(); /* S has landed; P V of tile j - 1 may still run */
            registers_keep(sc);
            if (leader && !last_turn) /* this warpgroup's S has read K's stage s */
                mbarrier_arrive(&k_empty[s]);
#if PERSISTENT
            if (leader && j == tiles - 1) /* ... and Q, for the last time in this item */
                mbarrier_arrive(&q_empty);
#endif
            unsigned pn[BC / 16][4]; /* this tile's P, for the next turn: pa is still being read */
            if (scores) { /* under P V: pa and O untouched until the wait below */
                const tile_scores v = {j0, n, causal, row_a, row_b, t, j0 + BC > n || (causal && j0 + BC - 1 > w0),
                                       scale_log2};
#if LEAN_SOFTMAX
                lean_softmax(sc, v, pn, m_a, m_b, l_a, l_b, alpha_a, alpha_b);
#else
                tile_maxima<false>(sc, v, m_a, m_b, l_a, l_b, alpha_a, alpha_b);
                tile_probabilities<false>(sc, v, pn, m_a, m_b, l_a, l_b);
#endif
            }
            wgmma_wait_all();
#pragma unroll
            for (int x = 0; x < D / PV_N; ++x)
                registers_keep(acc[x]);
            registers_keep(pa);
            if (leader && j > 0) /* ... and its P V V's stage prev */
                mbarrier_arrive(&v_empty[prev]);
            if (last_turn)
                break;
            if (scores) {
                rescale_if_moved<LEAN_SOFTMAX >= 2>(acc, alpha_a, alpha_b); /* O holds tile j - 1's P V now: to the new maximum */
#pragma unroll
                for (int kb = 0; kb < BC / 16; ++kb)
#pragma unroll
                    for (int r = 0; r < 4; ++r)
                        pa[kb][r] = pn[kb][r];
            }
#else
            wgmma_wait_all();
#pragma unroll
            for (int x = 0; x < D / PV_N; ++x)
                registers_keep(acc[x]);
            registers_keep(sc);
            registers_keep(pa);
            if (leader) { /* this warpgroup's products have read K's stage s and V's stage prev */
                if (!last_turn)
                    mbarrier_arrive(&k_empty[s]);
                if (j > 0)
                    mbarrier_arrive(&v_empty[prev]);
#if PERSISTENT
                if (j == tiles - 1) /* ... and Q, for the last time in this item */
                    mbarrier_arrive(&q_empty);
#endif
            }
            if (last_turn)
                break;
            if (scores) {
                const tile_scores v = {j0, n, causal, row_a, row_b, t, j0 + BC > n || (causal && j0 + BC - 1 > w0),
                                       scale_log2};
#if LEAN_SOFTMAX /* P V is done: pa may be overwritten */
                lean_softmax(sc, v, pa, m_a, m_b, l_a, l_b, alpha_a, alpha_b);
                rescale_if_moved<LEAN_SOFTMAX >= 2>(acc, alpha_a, alpha_b); /* O holds tile j - 1's P V now: to the new maximum */
#else
                tile_maxima<true>(sc, v, m_a, m_b, l_a, l_b, alpha_a, alpha_b);
                rescale(acc, alpha_a, alpha_b); /* O holds tile j - 1's P V now: to the new maximum */
                tile_probabilities<true>(sc, v, pa, m_a, m_b, l_a, l_b); /* P V is done: pa may be overwritten */
#endif
            }
#endif
            if (!scores) {
#pragma unroll
                for (int kb = 0; kb < BC / 16; ++kb)
                    pa[kb][0] = pa[kb][1] = pa[kb][2] = pa[kb][3] = 0u;
            }
        }
        quad_sums(l_a, l_b); /* the rows' sums: the quad's four partial sums */
        float inv_a = 1.0f / l_a, inv_b = 1.0f / l_b;
#if O_BY_TMA
        /* O's 64 rows into the warpgroup's part of the stage, in the maps' swizzled slabs
         * (chunk c of row r at c ^ (r % 8): a warp's 32 writes of a column group fall in
         * 32 banks), then one thread stores each slab with TMA, which leaves out rows
         * past n; the stage is written again only once the last item's stores have read it. */
        if (leader)
            tma_store_wait_read();
        named_barrier_sync<128>(3 + consumer); /* the stage is free: the leader has waited, for all */
        unsigned char *o_rows = o_stage + consumer * 64 * ROW_BYTES;
        const int local_a = warp * 16 + g; /* row b is 8 on: the same row % 8 */
#pragma unroll
        for (int x = 0; x < D / PV_N; ++x)
#pragma unroll
            for (int c8 = 0; c8 < PV_N / 8; ++c8) {
                int c = x * PV_N + c8 * 8, slab = c / 64, chunk = (c % 64) / 8;
                unsigned char *at = o_rows + slab * BR * ROW_BYTES + local_a * ROW_BYTES +
                                    ((chunk ^ (local_a % 8)) * 16) + 4 * t;
                *reinterpret_cast<unsigned *>(at) = pack_bf16(acc[x][4 * c8] * inv_a, acc[x][4 * c8 + 1] * inv_a);
                *reinterpret_cast<unsigned *>(at + 8 * ROW_BYTES) =
                    pack_bf16(acc[x][4 * c8 + 2] * inv_b, acc[x][4 * c8 + 3] * inv_b);
            }
        fence_proxy_async();
        named_barrier_sync<128>(3 + consumer);
        if (leader) {
            for (int x = 0; x < SLABS; ++x)
                tma_store_3d(o_map, x * 64, w0, head, o_rows + x * BR * ROW_BYTES);
            tma_store_commit();
        }
#else /* each thread's pairs straight to global memory */
        o_store_direct<D, PV_N>(acc, inv_a, inv_b, o + (long)head * n * D, n, row_a, row_b, t);
#endif
        consumed += tiles;
    }
#if O_BY_TMA
    if (leader) /* the block's shared memory stays until the stores have read it */
        tma_store_wait_read();
#endif
#endif
}

/* One kernel per head dimension (the report names the d = 128 one). The tensor maps are
 * kernel parameters (__grid_constant__: TMA reads them where they are). */
__global__ void __launch_bounds__(THREADS, 1)
pingpong_d64(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
             const __grid_constant__ CUtensorMap v_map, const __grid_constant__ CUtensorMap o_map, __nv_bfloat16 *o,
             int n, int causal, float scale, int heads)
{
    pingpong_forward<64>(&q_map, &k_map, &v_map, &o_map, o, n, causal, scale, heads);
}

__global__ void __launch_bounds__(THREADS, 1)
pingpong_d128(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
              const __grid_constant__ CUtensorMap v_map, const __grid_constant__ CUtensorMap o_map, __nv_bfloat16 *o,
              int n, int causal, float scale, int heads)
{
    pingpong_forward<128>(&q_map, &k_map, &v_map, &o_map, o, n, causal, scale, heads);
}

/* Q's tile of BR rows, the stages of K's and V's tiles of BC rows, O_BY_TMA's tile of O,
 * D * 2 bytes a row, and up to 1023 bytes to put the first on 1024. */
#define SMEM_BYTES(D) (((BR * (1 + O_BY_TMA) + 2 * STAGES * BC) * (D) * 2) + SWIZZLE_ATOM)
/* an SM's most for one block (227 KB, sm_90) with the barriers' static bytes */
static_assert(SMEM_BYTES(128) + 8 * (2 + 4 * STAGES) <= 227 * 1024,
              "BC and STAGES ask for more shared memory than a block of sm_90 may have");

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct attention_problem *p = (const struct attention_problem *)problem;
#if PERSISTENT /* a block per SM (one fits), or one per item when there are fewer */
    static int sms;
    cudaError_t status = cudaSuccess;
    if (sms == 0) {
        int device;
        status = cudaGetDevice(&device);
        if (status == cudaSuccess)
            status = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        if (status != cudaSuccess)
            return status;
    }
    long items = (long)((p->n + BR - 1) / BR) * p->bh;
    dim3 grid((unsigned)(items < sms ? items : sms));
#else
    dim3 grid((p->n + BR - 1) / BR, (unsigned)p->bh);
    cudaError_t status = cudaSuccess;
#endif
    if ((status = step_check_grid(grid)) != cudaSuccess)
        return status;
    static struct head_maps maps; /* Q's boxes of BR rows, K's and V's of BC, O's of a consumer's 64 */
    if ((status = head_maps_for(&maps, p, BR, BC, 64)) != cudaSuccess)
        return status;
    /* Both head dims' kernels opt in, whichever launches: the runner reports the d128
     * kernel's occupancy (the one DEFINE_STEP names), and that needs its opt-in too. */
    status = cudaFuncSetAttribute(pingpong_d64, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES(64));
    if (status == cudaSuccess)
        status = cudaFuncSetAttribute(pingpong_d128, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      SMEM_BYTES(128));
    if (status != cudaSuccess)
        return status;
    if (p->d == 64)
        pingpong_d64<<<grid, THREADS, SMEM_BYTES(64), stream>>>(maps.q, maps.k, maps.v, maps.o, attention_bf16_out(p->o),
                                                               p->n, p->causal, p->scale, (int)p->bh);
    else
        pingpong_d128<<<grid, THREADS, SMEM_BYTES(128), stream>>>(maps.q, maps.k, maps.v, maps.o,
                                                                 attention_bf16_out(p->o), p->n, p->causal,
                                                                 p->scale, (int)p->bh);
    return cudaGetLastError();
}

DEFINE_STEP(pingpong_d128, THREADS, SMEM_BYTES(128), launch);

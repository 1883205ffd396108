/* The schedule of the FP32 lab's step 13: which block computes which tiles' slices.
 *
 * Stream-K (Osama et al., PPoPP 2023), as solutions/matmul/13-tuned.cu uses it: the
 * work, tiles x BK-slices, cut into as many equal runs as the GPU runs blocks at
 * once, block b computing run b tile after tile. Here: the runs (struct stream_k, on
 * both sides), where a tile lies in C (tile_origin, step 12's bands), the count of a
 * split tile's shares (arrive), and the launch's choice between stream-K and one
 * block per tile (plan_schedule, on the host). What a block does with its share is
 * the step's kernel. Kept apart from the step so that the step reads as its kernel;
 * the handout leaves it out with the solutions. CUDA C++, included by that step only. */
#ifndef LAB_MATMUL_STREAM_K_CUH
#define LAB_MATMUL_STREAM_K_CUH

#include "matmul.h"
#include "tuned_shapes.cuh" /* BK: a tile's slices */

/* The schedule's build variables. */
#ifndef SMALL_STREAM_K
#define SMALL_STREAM_K 1 /* 0: the small tile one block per tile */
#endif
#ifndef STREAM_K
#define STREAM_K 1 /* 0: one block per tile, as in steps 01-12 */
#endif
/* What the shares of split tiles cost, in slices of main-loop time (stored, counted,
 * read back): a rough figure from the H100, deciding only close cases. */
#ifndef SPLIT_COST
#define SPLIT_COST 8
#endif
/* Blocks per SM of the small tile's stream-K launch (0: as many as fit, 4; the large
 * tile's: as many as fit). */
#ifndef SMALL_SK_PER_SM
#define SMALL_SK_PER_SM 3
#endif
#ifndef GROUP
#define GROUP 8 /* rows of tiles per band (tile_origin) */
#endif

/* The stream-K schedule. Iteration t * slices + s is slice s of tile t; block b takes
 * the run [sk_begin(b), sk_begin(b + 1)): `per` iterations, the first `extra` blocks
 * one more. Its share of a split tile goes to its workspace slot 0 for the first tile
 * of its run, slot 1 for the last. */
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
template <class S>
__device__ __forceinline__ void tile_origin(int tile, int m, int n, int &row, int &col)
{
    int tiles_n = (n + S::bn - 1) / S::bn, tiles_m = (m + S::bm - 1) / S::bm;
    int per_band = GROUP * tiles_n;
    int band = tile / per_band, in_band = tile % per_band;
    int band_rows = min(GROUP, tiles_m - band * GROUP);
    row = (band * GROUP + in_band % band_rows) * S::bm;
    col = (in_band / band_rows) * S::bn;
}

/* One thread counts the block's share of a split tile in and returns how many were in
 * before (`last`: this block is the last). The fence before the count releases the
 * share the whole block stored before its barrier; the one after it, in the last
 * block, acquires the others' shares. Not __threadfence() in every thread: that is a
 * sequentially consistent fence (MEMBAR.SC.GPU), 256 of them per share. */
__device__ __forceinline__ int arrive(int *counter, int last)
{
    asm volatile("fence.acq_rel.gpu;\n" ::: "memory");
    int before = atomicAdd(counter, 1);
    if (before == last)
        asm volatile("fence.acq_rel.gpu;\n" ::: "memory");
    return before;
}

template <class S>
static long long tiles_of(const struct matmul_problem *p)
{
    return ((p->m + S::bm - 1LL) / S::bm) * ((p->n + S::bn - 1LL) / S::bn);
}

/* One shape's schedule for a problem: the blocks and their runs. */
struct schedule {
    long long blocks;
    stream_k sk;
};

/* The schedule with the shorter estimate, in slices of the busiest block (every block
 * as fast as if it had its SM alone): one block per tile, waves of whole tiles; or
 * stream-K, sk_per_sm blocks on every one of the `sms` SMs (0: as many as fit),
 * equal runs, plus SPLIT_COST for the split tiles' shares. */
template <class S>
static struct schedule plan_schedule(const struct matmul_problem *p, long long sms,
                                     long long concurrent, int sk_per_sm, bool stream_k_allowed)
{
    long long tiles = tiles_of<S>(p);
    int slices = (p->k + BK - 1) / BK;
    long long iterations = tiles * slices;
    long long per_sm = concurrent / sms;
    long long sk_blocks = sms * (sk_per_sm > 0 && sk_per_sm < per_sm ? sk_per_sm : per_sm);
    long long whole_time = (tiles + concurrent - 1) / concurrent * slices;
    long long split_time = (iterations + sk_blocks - 1) / sk_blocks + SPLIT_COST;
    struct schedule s;
    bool split = stream_k_allowed && split_time < whole_time;
    s.blocks = split ? (iterations < sk_blocks ? iterations : sk_blocks) : tiles;
    s.sk = {iterations / s.blocks, (int)(iterations % s.blocks), slices};
    return s;
}

#endif

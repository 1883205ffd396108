/* What the sort steps share and none of them is about: lane masks, a block-wide
 * exclusive scan of one value per thread and the ping-pong of the passes (steps 01-04
 * add the scan of their per-tile digit counts, count_scan.cuh).
 * Each step file holds its own lesson (how one pass partitions a tile); this header
 * is the plumbing around it, as three_phase.cuh is the scan lab's. */
#ifndef LAB_SORT_COMMON_CUH
#define LAB_SORT_COMMON_CUH

#include "sort.h"
#include "step_kernel.h"

#define FULL_MASK 0xffffffffu

/* the lanes below this one, as a bit mask */
__device__ __forceinline__ unsigned lanemask_lt(void)
{
    unsigned mask;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
    return mask;
}

__device__ __forceinline__ unsigned warp_inclusive_scan(unsigned v, unsigned lane)
{
#pragma unroll
    for (unsigned offset = 1; offset < 32; offset *= 2) {
        unsigned left = __shfl_up_sync(FULL_MASK, v, offset);
        if (lane >= offset)
            v += left;
    }
    return v;
}

/* The exclusive prefix of v over the block's threads in order, and in *total the sum
 * of all of them. Every thread of the block calls it; work holds BLOCK_THREADS / 32 + 1
 * words of shared memory, free again when it returns (it ends with a barrier). */
template <int BLOCK_THREADS>
__device__ __forceinline__ unsigned block_exclusive_scan(unsigned v, unsigned *total,
                                                         unsigned *work)
{
    constexpr int BLOCK_WARPS = BLOCK_THREADS / 32;
    static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_WARPS <= 32, "whole warps, at most 32");
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned inclusive = warp_inclusive_scan(v, lane);
    if (lane == 31)
        work[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        unsigned w = lane < BLOCK_WARPS ? work[lane] : 0;
        unsigned scanned = warp_inclusive_scan(w, lane);
        if (lane < BLOCK_WARPS)
            work[lane] = scanned - w;
        if (lane == BLOCK_WARPS - 1)
            work[BLOCK_WARPS] = scanned;
    }
    __syncthreads();
    unsigned result = work[warp] + inclusive - v;
    *total = work[BLOCK_WARPS];
    __syncthreads();
    return result;
}

/* ---- The ping-pong: pass `pass` of `passes` reads the input (pass 0) or what the
 * pass before wrote, and writes keys_out or keys_alt so that the last pass writes
 * keys_out (and the same for the values). */
struct pass_buffers {
    const unsigned *keys_from;
    unsigned *keys_to;
    const unsigned *values_from;
    unsigned *values_to;
};

static inline struct pass_buffers pass_buffers_of(const struct sort_problem *p, int pass, int passes)
{
    struct pass_buffers b;
    int to_out = (passes - 1 - pass) % 2 == 0;
    b.keys_to = to_out ? p->keys_out : p->keys_alt;
    b.values_to = to_out ? p->values_out : p->values_alt;
    b.keys_from = pass == 0 ? p->keys_in : (to_out ? p->keys_alt : p->keys_out);
    b.values_from = pass == 0 ? p->values_in : (to_out ? p->values_alt : p->values_out);
    return b;
}

/* The tiles of `tile` keys that cover n, refused past one grid. */
static inline cudaError_t tiles_of(long n, long tile, unsigned *tiles)
{
    long count = (n + tile - 1) / tile;
    dim3 grid((unsigned)(count < 2147483647L ? count : 0)); /* 0: refused */
    *tiles = grid.x;
    return step_check_grid(grid);
}

#endif

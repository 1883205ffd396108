/* What the sort steps share and none of them is about: lane masks, a block-wide
 * exclusive scan of one value per thread, the scan of the per-tile digit counts that
 * steps 01-04 need between their two kernels, and the ping-pong of the passes.
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
 * of all of them. Every thread of the block calls it; work holds THREADS / 32 + 1
 * words of shared memory, free again when it returns (it ends with a barrier). */
template <int THREADS>
__device__ __forceinline__ unsigned block_exclusive_scan(unsigned v, unsigned *total,
                                                         unsigned *work)
{
    constexpr int WARPS = THREADS / 32;
    static_assert(THREADS % 32 == 0 && WARPS <= 32, "whole warps, at most 32");
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned inclusive = warp_inclusive_scan(v, lane);
    if (lane == 31)
        work[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        unsigned w = lane < WARPS ? work[lane] : 0;
        unsigned scanned = warp_inclusive_scan(w, lane);
        if (lane < WARPS)
            work[lane] = scanned - w;
        if (lane == WARPS - 1)
            work[WARPS] = scanned;
    }
    __syncthreads();
    unsigned result = work[warp] + inclusive - v;
    *total = work[WARPS];
    __syncthreads();
    return result;
}

/* ---- The exclusive scan, in place, of m unsigned counts (steps 01-04): the scan
 * lab's reduce-then-scan over chunks of 4096. The counts add up to at most n <
 * 2^31, so no sum overflows. */
#define COUNT_SCAN_THREADS 256
#define COUNT_SCAN_CHUNK 4096
#define COUNT_SCAN_SPINE_THREADS 1024

__global__ void count_chunk_sums(const unsigned *counts, long m, unsigned *sums)
{
    __shared__ unsigned work[COUNT_SCAN_THREADS / 32 + 1];
    long begin = (long)blockIdx.x * COUNT_SCAN_CHUNK;
    unsigned sum = 0;
    for (long i = begin + threadIdx.x; i < begin + COUNT_SCAN_CHUNK && i < m; i += COUNT_SCAN_THREADS)
        sum += counts[i];
    unsigned total;
    block_exclusive_scan<COUNT_SCAN_THREADS>(sum, &total, work);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = total;
}

/* one block: the chunk sums, each thread a contiguous run of them */
__global__ void count_spine_scan(unsigned *sums, long chunks)
{
    __shared__ unsigned work[COUNT_SCAN_SPINE_THREADS / 32 + 1];
    long per = (chunks + COUNT_SCAN_SPINE_THREADS - 1) / COUNT_SCAN_SPINE_THREADS;
    long begin = threadIdx.x * per, end = begin + per < chunks ? begin + per : chunks;
    unsigned sum = 0;
    for (long i = begin; i < end; ++i)
        sum += sums[i];
    unsigned total;
    unsigned before = block_exclusive_scan<COUNT_SCAN_SPINE_THREADS>(sum, &total, work);
    for (long i = begin; i < end; ++i) {
        unsigned c = sums[i];
        sums[i] = before;
        before += c;
    }
}

__global__ void count_chunk_scan(unsigned *counts, long m, const unsigned *sums)
{
    __shared__ unsigned work[COUNT_SCAN_THREADS / 32 + 1];
    long begin = (long)blockIdx.x * COUNT_SCAN_CHUNK;
    unsigned offset = sums[blockIdx.x];
    for (long row = begin; row < begin + COUNT_SCAN_CHUNK && row < m; row += COUNT_SCAN_THREADS) {
        long i = row + threadIdx.x;
        unsigned c = i < m ? counts[i] : 0;
        unsigned total;
        unsigned before = block_exclusive_scan<COUNT_SCAN_THREADS>(c, &total, work);
        if (i < m)
            counts[i] = offset + before;
        offset += total;
    }
}

/* Room the scan needs after the m counts, in words. */
static inline long count_scan_extra_words(long m)
{
    return (m + COUNT_SCAN_CHUNK - 1) / COUNT_SCAN_CHUNK;
}

static inline cudaError_t scan_counts(unsigned *counts, long m, cudaStream_t stream)
{
    long chunks = count_scan_extra_words(m);
    if (chunks > (long)COUNT_SCAN_SPINE_THREADS * 64)
        return step_refuse_launch("too many digit counts for the one-block spine scan");
    unsigned *sums = counts + m;
    count_chunk_sums<<<(unsigned)chunks, COUNT_SCAN_THREADS, 0, stream>>>(counts, m, sums);
    cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess)
        return status;
    count_spine_scan<<<1, COUNT_SCAN_SPINE_THREADS, 0, stream>>>(sums, chunks);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    count_chunk_scan<<<(unsigned)chunks, COUNT_SCAN_THREADS, 0, stream>>>(counts, m, sums);
    return cudaGetLastError();
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

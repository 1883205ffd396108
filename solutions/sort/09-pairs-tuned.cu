/* Step 09 - tuned pairs: 08's one-sweep passes carrying a 32-bit value with every key.
 * Guide: labs/sort/README.md#step-09--pairs-tuned
 *
 * What changed from 08: the values, moved as 07 moves them, on 08's tuned passes.
 *   Each value is read right after its key is ranked (the loads are in flight while
 *   the tile counts, publishes and scatters its keys), put in the shared tile at its
 *   key's place once the keys are out, and written to the same output index as the
 *   key (kept in registers from the keys' write-out). The values take ITEMS more
 *   registers a thread: the shape is worth a sweep of its own (SORT_THREADS,
 *   SORT_ITEMS, SORT_MIN_BLOCKS; CUB's pairs tile on sm_90 is 384 x 23).
 * Why: 07 carried the values on 06's passes; the keys-only tuning of 08 applies to
 *   pairs unchanged, and a value needs no digit and no rank of its own.
 * Expect: about half 08's keys per second (twice the bytes a pass), near CUB's
 *   SortPairs as 08 is near SortKeys.
 * Run:  make run LAB=sort STEP=09
 */
#include "sort_common.cuh"
#include "lookback.cuh"

#include <stdint.h>

#ifndef THREADS
#define THREADS 384
#endif
#ifndef ITEMS
#define ITEMS 18
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 2
#endif
#ifndef LOOKBACK_WINDOW
#define LOOKBACK_WINDOW 4
#endif
#ifndef BALLOT_MATCH
#define BALLOT_MATCH 1
#endif
#define WARPS (THREADS / 32)
#define TILE (ITEMS * THREADS)
#define WARP_KEYS (32 * ITEMS)
#define BITS 8
#define RADIX (1 << BITS)
#define PASSES (32 / BITS)
#define BUCKETS (RADIX + 1) /* bucket RADIX: the last tile's missing keys */
static_assert(THREADS >= RADIX && THREADS % 32 == 0, "a thread per digit value, whole warps");
#define HISTOGRAM_THREADS 256
#define HISTOGRAM_UNROLL 4 /* 16-byte loads in flight per thread */

/* Every digit of every key into histograms[pass][digit] (cleared by the launch):
 * four keys per 16-byte load, HISTOGRAM_UNROLL loads in flight per thread. */
__global__ void __launch_bounds__(HISTOGRAM_THREADS)
upfront_histogram(const unsigned *keys, long n, bool aligned, unsigned *histograms)
{
    __shared__ unsigned local[PASSES][RADIX];
    for (unsigned i = threadIdx.x; i < PASSES * RADIX; i += HISTOGRAM_THREADS)
        (&local[0][0])[i] = 0;
    __syncthreads();
    long quads = aligned ? n / 4 : 0, stride = (long)gridDim.x * HISTOGRAM_THREADS;
    const uint4 *keys4 = reinterpret_cast<const uint4 *>(keys);
    for (long i = (long)blockIdx.x * HISTOGRAM_THREADS + threadIdx.x; i < quads;
         i += stride * HISTOGRAM_UNROLL) {
        uint4 q[HISTOGRAM_UNROLL];
#pragma unroll
        for (int u = 0; u < HISTOGRAM_UNROLL; ++u)
            q[u] = i + u * stride < quads ? __ldcs(keys4 + i + u * stride) : make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int u = 0; u < HISTOGRAM_UNROLL; ++u) {
            if (i + u * stride >= quads)
                break;
            unsigned k[4] = {q[u].x, q[u].y, q[u].z, q[u].w};
#pragma unroll
            for (int c = 0; c < 4; ++c)
#pragma unroll
                for (int p = 0; p < PASSES; ++p)
                    atomicAdd(&local[p][(k[c] >> (p * BITS)) & (RADIX - 1)], 1u);
        }
    }
    for (long i = 4 * quads + (long)blockIdx.x * HISTOGRAM_THREADS + threadIdx.x; i < n; i += stride) {
        unsigned key = keys[i];
#pragma unroll
        for (int p = 0; p < PASSES; ++p)
            atomicAdd(&local[p][(key >> (p * BITS)) & (RADIX - 1)], 1u);
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < PASSES * RADIX; i += HISTOGRAM_THREADS)
        if ((&local[0][0])[i] != 0)
            atomicAdd(&histograms[i], (&local[0][0])[i]);
}

/* block p: histograms[p][*] to where each digit starts (an exclusive scan) */
__global__ void scan_histograms(unsigned *histograms)
{
    __shared__ unsigned work[RADIX / 32 + 1];
    unsigned *h = histograms + blockIdx.x * RADIX, total;
    h[threadIdx.x] = block_exclusive_scan<RADIX>(h[threadIdx.x], &total, work);
}

/* The lanes whose digit equals this lane's: one ballot per bit of the digit, each
 * keeping the lanes that agree on it, instead of __match_any_sync, which the H100
 * runs as a slower loop (BALLOT_MATCH=0 to compare). A whole tile has 8-bit digits;
 * the last, partial tile has a ninth bit (digit RADIX: no key). */
template <int DIGIT_BITS>
__device__ __forceinline__ unsigned peers_of(unsigned digit)
{
#if BALLOT_MATCH
    unsigned peers = FULL_MASK;
#pragma unroll
    for (int b = 0; b < DIGIT_BITS; ++b) {
        unsigned ones = __ballot_sync(FULL_MASK, (digit >> b) & 1);
        peers &= (digit >> b) & 1 ? ones : ~ones;
    }
    return peers;
#else
    return __match_any_sync(FULL_MASK, digit);
#endif
}

/* One pass over one tile (FULL: all TILE keys there), the status words of type Word. */
template <bool FULL, typename Word>
__device__ __forceinline__ void onesweep_tile(const unsigned *from, unsigned *to,
                                              const unsigned *values_from, unsigned *values_to,
                                              long n, int shift,
                                              const unsigned *digit_start, Word *status,
                                              long tile_index, unsigned *tile,
                                              unsigned (*warp_count)[BUCKETS], unsigned *delta,
                                              unsigned *work)
{
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    long begin = tile_index * TILE;
    unsigned valid = FULL ? TILE : (unsigned)(n - begin);
    unsigned key[ITEMS], rank[ITEMS];
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = warp * WARP_KEYS + r * 32 + lane;
        key[r] = FULL || j < valid ? __ldcs(from + begin + j) : 0;
    }
    /* rank: a key's place among the keys of its digit in its warp, in input order */
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = warp * WARP_KEYS + r * 32 + lane;
        unsigned digit = FULL || j < valid ? (key[r] >> shift) & (RADIX - 1) : RADIX;
        unsigned peers = peers_of<FULL ? BITS : BITS + 1>(digit);
        unsigned before = warp_count[warp][digit];
        __syncwarp();
        if (lane == __ffs(peers) - 1)
            warp_count[warp][digit] = before + __popc(peers);
        __syncwarp();
        rank[r] = before + __popc(peers & lanemask_lt());
    }
    /* the values, read now: their loads are in flight while the keys are placed */
    unsigned value[ITEMS];
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = warp * WARP_KEYS + r * 32 + lane;
        value[r] = FULL || j < valid ? __ldcs(values_from + begin + j) : 0;
    }
    __syncthreads();
    /* thread d < RADIX: the tile's count of digit d, the warps' offsets within it,
     * published at once so that later tiles' look-backs find it early */
    unsigned count = 0;
    if (t < RADIX) {
#pragma unroll
        for (int w = 0; w < WARPS; ++w) {
            unsigned c = warp_count[w][t];
            warp_count[w][t] = count;
            count += c;
        }
        lookback_publish(&status[tile_index * RADIX + t],
                         tile_index == 0 ? LOOKBACK_PREFIX : LOOKBACK_AGGREGATE, count);
    }
    unsigned total, start = block_exclusive_scan<THREADS>(count, &total, work);
    if (t < RADIX)
        warp_count[WARPS][t] = start; /* a row past the warps' counts: where digit t starts */
    __syncthreads();
    /* the tile sorted by digit in shared memory (before the look-back: time for the
     * tiles before this one to publish their prefixes) */
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = warp * WARP_KEYS + r * 32 + lane;
        if (FULL || j < valid) {
            unsigned digit = (key[r] >> shift) & (RADIX - 1);
            rank[r] += warp_count[WARPS][digit] + warp_count[warp][digit]; /* its place in the tile */
            tile[rank[r]] = key[r];
        }
    }
    if (t < RADIX) {
        unsigned exclusive = 0;
        if (tile_index > 0) {
            exclusive = lookback_thread<LOOKBACK_WINDOW, unsigned>(status + t, RADIX, tile_index);
            lookback_publish(&status[tile_index * RADIX + t], LOOKBACK_PREFIX, exclusive + count);
        }
        delta[t] = digit_start[t] + exclusive - start; /* key j of digit t goes to j + delta */
    }
    __syncthreads();
    unsigned destination[ITEMS]; /* of the key, and of the value, at place j */
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = r * THREADS + t;
        if (FULL || j < valid) {
            unsigned k = tile[j];
            destination[r] = delta[(k >> shift) & (RADIX - 1)] + j;
            to[destination[r]] = k;
        }
    }
    __syncthreads(); /* the keys are out of the shared tile: it takes the values */
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = warp * WARP_KEYS + r * 32 + lane;
        if (FULL || j < valid)
            tile[rank[r]] = value[r];
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = r * THREADS + t;
        if (FULL || j < valid)
            values_to[destination[r]] = tile[j];
    }
}

template <typename Word>
__device__ __forceinline__ void onesweep_pass(const unsigned *from, unsigned *to,
                                              const unsigned *values_from, unsigned *values_to,
                                              long n, int shift,
                                              const unsigned *digit_start, Word *status,
                                              unsigned *ticket)
{
    /* warp_count: each warp's count of each digit, then its offsets; row WARPS holds
     * the digits' starts in the tile */
    __shared__ unsigned tile[TILE];
    __shared__ unsigned warp_count[WARPS + 1][BUCKETS];
    __shared__ unsigned delta[RADIX];
    __shared__ unsigned work[THREADS / 32 + 1];
    __shared__ unsigned tile_s;
    if (threadIdx.x == 0)
        tile_s = atomicAdd(ticket, 1u);
    for (unsigned i = threadIdx.x; i < WARPS * BUCKETS; i += THREADS)
        (&warp_count[0][0])[i] = 0;
    __syncthreads();
    long tile_index = tile_s;
    if ((tile_index + 1) * TILE <= n)
        onesweep_tile<true>(from, to, values_from, values_to, n, shift, digit_start, status,
                                  tile_index, tile, warp_count,
                            delta, work);
    else
        onesweep_tile<false>(from, to, values_from, values_to, n, shift, digit_start, status,
                                  tile_index, tile, warp_count,
                             delta, work);
}

__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
onesweep_pairs_tuned_pass(const unsigned *from, unsigned *to, const unsigned *values_from,
                          unsigned *values_to, long n, int shift, const unsigned *digit_start,
                          unsigned *status, unsigned *ticket)
{
    onesweep_pass<unsigned>(from, to, values_from, values_to, n, shift, digit_start, status, ticket);
}

__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
onesweep_pairs_tuned_pass_wide(const unsigned *from, unsigned *to, const unsigned *values_from,
                               unsigned *values_to, long n, int shift, const unsigned *digit_start,
                               unsigned long long *status, unsigned *ticket)
{
    onesweep_pass<unsigned long long>(from, to, values_from, values_to, n, shift, digit_start,
                                      status, ticket);
}

static void pass_kernel(const struct pass_buffers &b, long n, int shift,
                        const unsigned *digit_start, unsigned *status, unsigned *ticket,
                        unsigned tiles, cudaStream_t stream)
{
    onesweep_pairs_tuned_pass<<<tiles, THREADS, 0, stream>>>(b.keys_from, b.keys_to, b.values_from,
                                                             b.values_to, n, shift, digit_start,
                                                             status, ticket);
}

static void pass_kernel(const struct pass_buffers &b, long n, int shift,
                        const unsigned *digit_start, unsigned long long *status, unsigned *ticket,
                        unsigned tiles, cudaStream_t stream)
{
    onesweep_pairs_tuned_pass_wide<<<tiles, THREADS, 0, stream>>>(b.keys_from, b.keys_to,
                                                                  b.values_from, b.values_to, n,
                                                                  shift, digit_start, status, ticket);
}

/* The scratch: the histograms and the pass counters, then the status words. */
#define STATUS_OFFSET 8192

template <typename Word>
static cudaError_t sort_passes(const struct sort_problem *p, unsigned tiles, cudaStream_t stream)
{
    size_t status_words = (size_t)tiles * RADIX;
    size_t clear = STATUS_OFFSET + PASSES * status_words * sizeof(Word);
    if (clear > p->scratch_bytes)
        return step_refuse_launch("the scratch buffer is too small for the tile status words");
    unsigned *histograms = (unsigned *)p->scratch;   /* [PASSES][RADIX] */
    unsigned *tickets = histograms + PASSES * RADIX; /* [PASSES] */
    Word *words = (Word *)((char *)p->scratch + STATUS_OFFSET);
    cudaError_t status = cudaMemsetAsync(p->scratch, 0, clear, stream);
    if (status != cudaSuccess)
        return status;
    long per_block = (long)HISTOGRAM_THREADS * 4 * HISTOGRAM_UNROLL;
    long wanted = (p->n + per_block - 1) / per_block;
    unsigned blocks = wanted < 1024 ? (unsigned)wanted : 1024;
    bool aligned = (uintptr_t)p->keys_in % sizeof(uint4) == 0;
    upfront_histogram<<<blocks, HISTOGRAM_THREADS, 0, stream>>>(p->keys_in, p->n, aligned, histograms);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    scan_histograms<<<PASSES, RADIX, 0, stream>>>(histograms);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    for (int pass = 0; pass < PASSES && status == cudaSuccess; ++pass) {
        struct pass_buffers b = pass_buffers_of(p, pass, PASSES);
        pass_kernel(b, p->n, pass * BITS, histograms + pass * RADIX,
                    words + pass * status_words, tickets + pass, tiles, stream);
        status = cudaGetLastError();
    }
    return status;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct sort_problem *p = (const struct sort_problem *)problem;
    if (p->values_in == NULL)
        return step_refuse_launch("this step sorts pairs: the problem has no values");
    unsigned tiles;
    cudaError_t status = tiles_of(p->n, TILE, &tiles);
    if (status != cudaSuccess)
        return status;
    return p->n < (1L << 30) ? sort_passes<unsigned>(p, tiles, stream)
                             : sort_passes<unsigned long long>(p, tiles, stream);
}

DEFINE_STEP(onesweep_pairs_tuned_pass, THREADS, 0, launch);

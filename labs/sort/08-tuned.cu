/* Step 08 - onesweep, tuned: keys alone again, the tile shape and the loads chosen by   *** YOUR TURN ***
 * Guide: labs/sort/README.md#step-08--tuned
 * measurement.
 *
 * What changed from 06 (07's values dropped again: this is the keys-only target):
 *   - the keys are read with __ldcs (ld.global.cs: streamed, evict first): each is
 *     read once per pass, so caching it only evicts the status words and histograms
 *     that the look-back rereads;
 *   - __launch_bounds__(THREADS, MIN_BLOCKS) caps the registers so MIN_BLOCKS
 *     blocks fit on an SM, and ITEMS keys per thread (the tile is 256 x ITEMS):
 *     both chosen by a sweep on the H100 (make run LAB=sort STEP=08 SORT_ITEMS=20
 *     SORT_MIN_BLOCKS=3 tries another shape; the CSV's flags column records it);
 *   - the warp's peers come from nine ballots, one per bit of the digit, instead of
 *     __match_any_sync (CUB does the same), and the digits are recomputed from the
 *     keys instead of kept in 16 registers;
 *   - the look-back reads LOOKBACK_WINDOW predecessors at once instead of one round
 *     trip to the L2 per tile;
 *   - the status word of a tile packs the flag into the top 2 bits and the count
 *     into 30, when n < 2^30 (one 32-bit word, half the bytes to clear and read);
 *     larger arrays keep 06's 64-bit words.
 * Why: 06 is no longer limited by its memory traffic alone: the ranking (match_any,
 *   shared-memory counters) and the waits of the look-back take time that more
 *   tiles in flight and longer tiles hide.
 * Expect: the fastest step of the lab, still short of CUB's SortKeys. CUB publishes each
 *   tile's digit counts before it ranks the keys (a histogram of the tile first), so
 *   the look-back of later tiles rarely waits; here the counts come out of the
 *   ranking: the likeliest part of the gap, not measured here (labs/sort/README.md,
 *   question 5).
 * Run:  make run LAB=sort STEP=08
 *
 * This file is step 07's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). solutions/sort/08-tuned.cu has a complete version.
 */
#include "sort_common.cuh"
#include "lookback.cuh"

#define THREADS 256
#define WARPS (THREADS / 32)
#define ITEMS 16
#define TILE (ITEMS * THREADS)
#define WARP_KEYS (32 * ITEMS)
#define BITS 8
#define RADIX (1 << BITS)
#define PASSES (32 / BITS)
#define BUCKETS (RADIX + 1) /* bucket RADIX: the last tile's missing keys */
static_assert(THREADS == RADIX, "one thread per digit value");

/* The tiles' status words (a flag and a count in one 64-bit word per digit value)
 * and the look-back over them: harness/lookback.cuh, the scan lab's, here walked
 * by one thread per digit, one tile at a time. */

/* every digit of every key, into histograms[pass][digit] (cleared by the launch) */
__global__ void upfront_histogram(const unsigned *keys, long n, unsigned *histograms)
{
    __shared__ unsigned local[PASSES][RADIX];
    for (int p = 0; p < PASSES; ++p)
        local[p][threadIdx.x] = 0;
    __syncthreads();
    for (long i = (long)blockIdx.x * THREADS + threadIdx.x; i < n; i += (long)gridDim.x * THREADS) {
        unsigned key = keys[i];
#pragma unroll
        for (int p = 0; p < PASSES; ++p)
            atomicAdd(&local[p][(key >> (p * BITS)) & (RADIX - 1)], 1u);
    }
    __syncthreads();
    for (int p = 0; p < PASSES; ++p)
        atomicAdd(&histograms[p * RADIX + threadIdx.x], local[p][threadIdx.x]);
}

/* block p: histograms[p][*] to where each digit starts (an exclusive scan) */
__global__ void scan_histograms(unsigned *histograms)
{
    __shared__ unsigned work[THREADS / 32 + 1];
    unsigned *h = histograms + blockIdx.x * RADIX, total;
    h[threadIdx.x] = block_exclusive_scan<THREADS>(h[threadIdx.x], &total, work);
}

__global__ void onesweep_tuned_pass(const unsigned *from, unsigned *to, const unsigned *values_from,
                                    unsigned *values_to, long n, int shift,
                                    const unsigned *digit_start, unsigned long long *status,
                                    unsigned *ticket)
{
    __shared__ unsigned tile[TILE];
    __shared__ unsigned warp_count[WARPS][BUCKETS];
    __shared__ unsigned start[BUCKETS], offset[RADIX];
    __shared__ unsigned work[THREADS / 32 + 1];
    __shared__ unsigned tile_s;
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    if (t == 0)
        tile_s = atomicAdd(ticket, 1u);
    for (unsigned i = t; i < WARPS * BUCKETS; i += THREADS)
        (&warp_count[0][0])[i] = 0;
    __syncthreads();
    long tile_index = tile_s, begin = tile_index * TILE;
    unsigned valid = n - begin < TILE ? (unsigned)(n - begin) : TILE;
    unsigned key[ITEMS], digit[ITEMS], rank[ITEMS];
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = warp * WARP_KEYS + r * 32 + lane;
        key[r] = j < valid ? from[begin + j] : 0;
        digit[r] = j < valid ? (key[r] >> shift) & (RADIX - 1) : RADIX;
        unsigned peers = __match_any_sync(FULL_MASK, digit[r]);
        unsigned before = warp_count[warp][digit[r]];
        __syncwarp();
        if (lane == __ffs(peers) - 1)
            warp_count[warp][digit[r]] = before + __popc(peers);
        __syncwarp();
        rank[r] = before + __popc(peers & lanemask_lt());
    }
    __syncthreads();
    unsigned count = 0;
    for (int w = 0; w < WARPS; ++w) {
        unsigned c = warp_count[w][t];
        warp_count[w][t] = count;
        count += c;
    }
    /* thread t = digit t: the tile's offset for it, by look-back */
    unsigned long long *mine = status + tile_index * RADIX + t;
    unsigned exclusive = 0;
    if (tile_index == 0) {
        lookback_publish(mine, LOOKBACK_PREFIX, count);
    } else {
        lookback_publish(mine, LOOKBACK_AGGREGATE, count);
        exclusive = lookback_thread<1, unsigned>(status + t, RADIX, tile_index);
        lookback_publish(mine, LOOKBACK_PREFIX, exclusive + count);
    }
    offset[t] = digit_start[t] + exclusive;
    unsigned total;
    start[t] = block_exclusive_scan<THREADS>(count, &total, work);
    __syncthreads();
    unsigned place[ITEMS]; /* each key's place in the sorted tile, for its value */
#pragma unroll
    for (int r = 0; r < ITEMS; ++r)
        if (digit[r] < RADIX) {
            place[r] = start[digit[r]] + warp_count[warp][digit[r]] + rank[r];
            tile[place[r]] = key[r];
        }
    __syncthreads();
    unsigned destination[ITEMS];
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = r * THREADS + t;
        if (j < valid) {
            unsigned k = tile[j], d = (k >> shift) & (RADIX - 1);
            destination[r] = offset[d] + (j - start[d]);
            to[destination[r]] = k;
        }
    }
    __syncthreads(); /* the keys are out of the shared tile: it takes the values */
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = warp * WARP_KEYS + r * 32 + lane;
        if (j < valid)
            tile[place[r]] = values_from[begin + j];
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = r * THREADS + t;
        if (j < valid)
            values_to[destination[r]] = tile[j];
    }
}

/* The scratch: the histograms and the pass counters, then the status words. */
#define STATUS_OFFSET 8192

/* TODO (step 08). Keys alone again, tuned:
 *  1. Drop the values (lab.def's SORT_STEP line for 08 says keys).
 *  2. Read the keys with __ldcs (streamed: each is read once a pass).
 *  3. __launch_bounds__(THREADS, MIN_BLOCKS), with ITEMS and MIN_BLOCKS overridable
 *     by -D (lab.mk: SORT_ITEMS, SORT_MIN_BLOCKS); sweep them.
 *  4. When n < 2^30, 32-bit status words: the flag in the top 2 bits, the count in
 *     30 (a template over the word type, one kernel per width).
 *  5. The peers from nine ballots, one per bit of the digit, instead of
 *     __match_any_sync; the digits recomputed from the keys instead of kept.
 *  6. The look-back reads LOOKBACK_WINDOW predecessors at once, then adds them
 *     nearest first up to the first PREFIX.
 */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct sort_problem *p = (const struct sort_problem *)problem;
    if (p->values_in == NULL)
        return step_refuse_launch("this step sorts pairs: the problem has no values");
    unsigned tiles;
    cudaError_t status = tiles_of(p->n, TILE, &tiles);
    if (status != cudaSuccess)
        return status;
    size_t status_words = (size_t)tiles * RADIX;
    size_t clear = STATUS_OFFSET + PASSES * status_words * sizeof(unsigned long long);
    if (clear > p->scratch_bytes)
        return step_refuse_launch("the scratch buffer is too small for the tile status words");
    unsigned *histograms = (unsigned *)p->scratch;   /* [PASSES][RADIX] */
    unsigned *tickets = histograms + PASSES * RADIX; /* [PASSES] */
    unsigned long long *words = (unsigned long long *)((char *)p->scratch + STATUS_OFFSET);
    if ((status = cudaMemsetAsync(p->scratch, 0, clear, stream)) != cudaSuccess)
        return status;
    unsigned blocks = tiles < 1024 ? tiles : 1024;
    upfront_histogram<<<blocks, THREADS, 0, stream>>>(p->keys_in, p->n, histograms);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    scan_histograms<<<PASSES, THREADS, 0, stream>>>(histograms);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    for (int pass = 0; pass < PASSES && status == cudaSuccess; ++pass) {
        struct pass_buffers b = pass_buffers_of(p, pass, PASSES);
        onesweep_tuned_pass<<<tiles, THREADS, 0, stream>>>(
            b.keys_from, b.keys_to, b.values_from, b.values_to, p->n, pass * BITS,
            histograms + pass * RADIX, words + pass * status_words, tickets + pass);
        status = cudaGetLastError();
    }
    return status;
}

STEP_TODO("keys alone: streaming loads, launch bounds and a tile shape chosen by a sweep, 32-bit status words below 2^30 keys");
DEFINE_STEP(onesweep_tuned_pass, THREADS, 0, launch);

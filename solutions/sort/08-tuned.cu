/* Step 08 - onesweep, tuned: keys alone again, the tile shape and the loads chosen by
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
 */
#include "sort_common.cuh"

#define THREADS 256
#define WARPS (THREADS / 32)
#ifndef ITEMS
#define ITEMS 12
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 5
#endif
#ifndef LOOKBACK_WINDOW
#define LOOKBACK_WINDOW 4
#endif
#ifndef BALLOT_MATCH
#define BALLOT_MATCH 1
#endif
#define TILE (ITEMS * THREADS)
#define WARP_KEYS (32 * ITEMS)
#define BITS 8
#define RADIX (1 << BITS)
#define PASSES (32 / BITS)
#define BUCKETS (RADIX + 1) /* bucket RADIX: the last tile's missing keys */
static_assert(THREADS == RADIX, "one thread per digit value");

/* A tile's status for one digit, one word: the flag in its top 2 bits and the
 * count below, so a reader never sees a flag without its count. Word is unsigned
 * long long (counts up to 2^62) or, when n < 2^30, unsigned (counts up to 2^30). */
#define STATUS_EMPTY 0u     /* nothing published yet (the launch clears every word) */
#define STATUS_AGGREGATE 1u /* the tile's own count */
#define STATUS_PREFIX 2u    /* the count of the tile and every tile before it */

template <typename Word>
__device__ __forceinline__ unsigned flag_of(Word word)
{
    return (unsigned)(word >> (8 * sizeof(Word) - 2));
}

template <typename Word>
__device__ __forceinline__ void publish(Word *status, unsigned flag, unsigned count)
{
    *(volatile Word *)status = (Word)flag << (8 * sizeof(Word) - 2) | count;
}

/* Run by thread d of tile `tile` > 0: the keys of digit d in every tile before it.
 * LOOKBACK_WINDOW predecessors are read at once (independent loads in flight, not one
 * round trip each), then added nearest first up to the first PREFIX; a word still
 * EMPTY is read again until it is not. A word read as AGGREGATE that has become PREFIX
 * since is still right: the walk just goes on past it. */
template <typename Word>
__device__ unsigned look_back(const Word *status, long tile, unsigned d)
{
    const Word count_mask = ((Word)1 << (8 * sizeof(Word) - 2)) - 1;
    const Word before_first = (Word)STATUS_PREFIX << (8 * sizeof(Word) - 2); /* a prefix of 0 */
    unsigned exclusive = 0;
    for (long q = tile - 1;; q -= LOOKBACK_WINDOW) {
        Word word[LOOKBACK_WINDOW];
#pragma unroll
        for (int k = 0; k < LOOKBACK_WINDOW; ++k)
            word[k] = q - k >= 0 ? *(const volatile Word *)&status[(q - k) * RADIX + d] : before_first;
#pragma unroll
        for (int k = 0; k < LOOKBACK_WINDOW; ++k) {
            while (flag_of(word[k]) == STATUS_EMPTY)
                word[k] = *(const volatile Word *)&status[(q - k) * RADIX + d];
            exclusive += (unsigned)(word[k] & count_mask);
            if (flag_of(word[k]) == STATUS_PREFIX)
                return exclusive;
        }
    }
}

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

/* The lanes whose digit equals this lane's (digit < 512: 256 is a missing key): nine
 * ballots, one per bit, each keeping the lanes that agree on it, instead of
 * __match_any_sync, which the H100 runs as a slower loop (BALLOT_MATCH=0 to compare). */
__device__ __forceinline__ unsigned peers_of(unsigned digit)
{
#if BALLOT_MATCH
    unsigned peers = FULL_MASK;
#pragma unroll
    for (int b = 0; b <= BITS; ++b) {
        unsigned ones = __ballot_sync(FULL_MASK, (digit >> b) & 1);
        peers &= (digit >> b) & 1 ? ones : ~ones;
    }
    return peers;
#else
    return __match_any_sync(FULL_MASK, digit);
#endif
}

/* One pass over one tile, the status words of type Word (two kernels below). */
template <typename Word>
__device__ __forceinline__ void onesweep_tile(const unsigned *from, unsigned *to, long n, int shift,
                                              const unsigned *digit_start, Word *status,
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
    /* the digits are recomputed from the keys where needed: fewer live registers */
    unsigned key[ITEMS], rank[ITEMS];
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = warp * WARP_KEYS + r * 32 + lane;
        key[r] = j < valid ? __ldcs(from + begin + j) : 0;
        unsigned digit = j < valid ? (key[r] >> shift) & (RADIX - 1) : RADIX;
        unsigned peers = peers_of(digit);
        unsigned before = warp_count[warp][digit];
        __syncwarp();
        if (lane == __ffs(peers) - 1)
            warp_count[warp][digit] = before + __popc(peers);
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
    Word *mine = status + tile_index * RADIX + t;
    unsigned exclusive = 0;
    if (tile_index == 0) {
        publish(mine, STATUS_PREFIX, count);
    } else {
        publish(mine, STATUS_AGGREGATE, count);
        exclusive = look_back(status, tile_index, t);
        publish(mine, STATUS_PREFIX, exclusive + count);
    }
    offset[t] = digit_start[t] + exclusive;
    unsigned total;
    start[t] = block_exclusive_scan<THREADS>(count, &total, work);
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; ++r)
        if (warp * WARP_KEYS + r * 32 + lane < valid) {
            unsigned digit = (key[r] >> shift) & (RADIX - 1);
            tile[start[digit] + warp_count[warp][digit] + rank[r]] = key[r];
        }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = r * THREADS + t;
        if (j < valid) {
            unsigned k = tile[j], d = (k >> shift) & (RADIX - 1);
            to[offset[d] + (j - start[d])] = k;
        }
    }
}

__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
onesweep_tuned_pass(const unsigned *from, unsigned *to, long n, int shift,
                    const unsigned *digit_start, unsigned *status, unsigned *ticket)
{
    onesweep_tile<unsigned>(from, to, n, shift, digit_start, status, ticket);
}

__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
onesweep_tuned_pass_wide(const unsigned *from, unsigned *to, long n, int shift,
                         const unsigned *digit_start, unsigned long long *status, unsigned *ticket)
{
    onesweep_tile<unsigned long long>(from, to, n, shift, digit_start, status, ticket);
}

static void pass_kernel(const unsigned *from, unsigned *to, long n, int shift,
                        const unsigned *digit_start, unsigned *status, unsigned *ticket,
                        unsigned tiles, cudaStream_t stream)
{
    onesweep_tuned_pass<<<tiles, THREADS, 0, stream>>>(from, to, n, shift, digit_start, status, ticket);
}

static void pass_kernel(const unsigned *from, unsigned *to, long n, int shift,
                        const unsigned *digit_start, unsigned long long *status, unsigned *ticket,
                        unsigned tiles, cudaStream_t stream)
{
    onesweep_tuned_pass_wide<<<tiles, THREADS, 0, stream>>>(from, to, n, shift, digit_start,
                                                            status, ticket);
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
    unsigned blocks = tiles < 1024 ? tiles : 1024;
    upfront_histogram<<<blocks, THREADS, 0, stream>>>(p->keys_in, p->n, histograms);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    scan_histograms<<<PASSES, THREADS, 0, stream>>>(histograms);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    for (int pass = 0; pass < PASSES && status == cudaSuccess; ++pass) {
        struct pass_buffers b = pass_buffers_of(p, pass, PASSES);
        pass_kernel(b.keys_from, b.keys_to, p->n, pass * BITS, histograms + pass * RADIX,
                    words + pass * status_words, tickets + pass, tiles, stream);
        status = cudaGetLastError();
    }
    return status;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct sort_problem *p = (const struct sort_problem *)problem;
    unsigned tiles;
    cudaError_t status = tiles_of(p->n, TILE, &tiles);
    if (status != cudaSuccess)
        return status;
    return p->n < (1L << 30) ? sort_passes<unsigned>(p, tiles, stream)
                             : sort_passes<unsigned long long>(p, tiles, stream);
}

DEFINE_STEP(onesweep_tuned_pass, THREADS, 0, launch);

/* Step 09 - tuned pairs: 08's one-sweep passes carrying a 32-bit value with every key.   *** YOUR TURN ***
 * Guide: labs/sort/README.md#step-09--pairs-tuned
 *
 * What changed from 08: the values, moved as CUB's SortPairs moves them, on 08's tuned
 *   passes. Once a tile's keys are out, each thread reads the digits of its places
 *   back from the shared tile, then reads its values (plain loads), puts each in the
 *   shared tile at its key's place and writes it to the same output index as the key
 *   (-DVALUES_LATE=1, CUB's GatherScatterValues: no value is live in a register while
 *   the tile ranks and looks back; 0 reads them right after ranking, in flight
 *   meanwhile). The tile is CUB's for 32-bit keys and values with an int count on
 *   sm_90, 384 x 23 (-DITEMS=23), at 80 registers for two blocks an SM
 *   (-DMIN_BLOCKS=2), as CUB's kernel: ptxas spills a few words to fit (make report's
 *   local column), and that costs less than a smaller tile. Keys and values are read
 *   by plain loads (-DSTREAMING_LOADS=0, CUB's LoadDirectWarpStriped; 1 streams them
 *   past the caches). 08's choices from CUB come with its passes, as build variables
 *   of the same names and defaults: the warps' digit counts before ranking
 *   (-DEARLY_COUNTS=1, which needs no row of tile starts: what lets 23 keys fit in
 *   48 KB), each ballot in CUB's PTX (-DBALLOT_PTX=1), a thread's keys read through
 *   one pointer (-DKEY_POINTER=1), the digit by a volatile bfe (-DDIGIT_ASM=1); each
 *   =0 gives earlier code. Each default was chosen by a recorded sweep
 *   (data/sweeps/NVIDIA-H200/sort-09-pairs-2p*.csv, the chapter's step 09). Other build
 *   variables: -DTHREADS=384, -DLOOKBACK_WINDOW=4, -DBALLOT_MATCH=1.
 * Why: 07 carried the values on 06's passes; the keys-only tuning of 08 applies to
 *   pairs unchanged, and a value needs no digit and no rank of its own: the ballots in
 *   PTX and the key pointer cut the instructions a key as they do in 08.
 * Expect: about half 08's keys per second (twice the bytes a pass), near CUB's
 *   SortPairs as 08 is near SortKeys (the chapter's generated tables set it beside
 *   CUB's SortPairs).
 * Run:  make run LAB=sort STEP=09
 *
 * This file is step 08's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
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
#ifndef EARLY_COUNTS
#define EARLY_COUNTS 0 /* 1: count the tile's digits before ranking (CUB's order) */
#endif
#ifndef STREAMING_LOADS
#define STREAMING_LOADS 1 /* 0: plain loads of the keys (CUB's) */
#endif
#ifndef DIGIT_ASM
#define DIGIT_ASM 0 /* 1: digits extracted by a volatile bfe, never kept across loops */
#endif
#ifndef STATUS_PER_PASS
#define STATUS_PER_PASS 0 /* 1: one pass's status words, cleared before each pass (CUB's) */
#endif
#ifndef BALLOT_PTX
#define BALLOT_PTX 0 /* 1: each digit bit's ballot in CUB's PTX (with BALLOT_MATCH=1) */
#endif
#ifndef KEY_POINTER
#define KEY_POINTER 0 /* 1: a thread's keys read through one pointer (CUB's) */
#endif
#define WARPS (THREADS / 32)
#define TILE (ITEMS * THREADS)
#define WARP_KEYS (32 * ITEMS)
#define BITS 8
#define RADIX (1 << BITS)
#define PASSES (32 / BITS)
#define BUCKETS (RADIX + 1) /* bucket RADIX: the last tile's missing keys */
static_assert(THREADS >= RADIX && THREADS % 32 == 0, "a thread per digit value, whole warps");
#ifndef HISTOGRAM_THREADS
#define HISTOGRAM_THREADS 256
#endif
#ifndef HISTOGRAM_UNROLL
#define HISTOGRAM_UNROLL 4 /* 16-byte loads in flight per thread */
#endif
#ifndef HISTOGRAM_BLOCKS
#define HISTOGRAM_BLOCKS 1024 /* at most; fewer when the keys are fewer */
#endif
static_assert(HISTOGRAM_THREADS % 32 == 0 && HISTOGRAM_THREADS <= 1024, "whole warps, one block");

/* A key of this pass: streamed (evict first: each is read once a pass and should not
 * push out the status words and histograms the look-back rereads), or a plain load. */
__device__ __forceinline__ unsigned load_key(const unsigned *at)
{
#if STREAMING_LOADS
    return __ldcs(at);
#else
    return *at;
#endif
}

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

/* The digit of key at this pass. DIGIT_ASM=1 extracts it with a volatile bfe, which
 * the compiler cannot share between loops: each loop recomputes it from the key
 * instead of keeping ITEMS digits live in registers beside the keys. */
__device__ __forceinline__ unsigned digit_of(unsigned key, int shift)
{
#if DIGIT_ASM
    unsigned digit;
    asm volatile("bfe.u32 %0, %1, %2, 8;" : "=r"(digit) : "r"(key), "r"(shift));
    return digit;
#else
    return (key >> shift) & (RADIX - 1);
#endif
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
#if BALLOT_MATCH && BALLOT_PTX
    /* CUB's form (cub/util_ptx.cuh:461-468): the bit's predicate votes, and the lanes
     * whose bit is 0 invert the ballot under that same predicate. The compiler then
     * tests the bits with one R2P for seven of them, where the C form below tests each
     * bit twice (once to vote, once to choose) and selects. */
    unsigned peers = FULL_MASK;
#pragma unroll
    for (int b = 0; b < DIGIT_BITS; ++b) {
        unsigned agree;
        asm("{\n\t.reg .pred p;\n\t"
            "and.b32 %0, %1, %2;\n\t"
            "setp.ne.u32 p, %0, 0;\n\t"
            "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
            "@!p not.b32 %0, %0;\n\t}"
            : "=r"(agree)
            : "r"(digit), "r"(1u << b));
        peers &= agree;
    }
    return peers;
#elif BALLOT_MATCH
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

/* EARLY_COUNTS=1: CUB's order of a tile's ranking (BlockRadixRankMatchEarlyCounts).
 * Each warp first counts its keys' digits, a shared atomic per key; thread d < RADIX
 * adds up the warps' counts of digit d and publishes the tile's count at once, before
 * any key is ranked (the tiles after this one wait less); the block's scan of the
 * counts then turns each warp's count into where its keys of that digit start in the
 * tile, so ranking a key gives its place in the tile and it goes there at once: no
 * ranks held in registers. It costs an atomic per key and a barrier. */
template <bool FULL, typename Word>
__device__ __forceinline__ void early_counts_rank(const unsigned (&key)[ITEMS], int shift, Word *status,
                                                  long tile_index, unsigned valid, unsigned *tile,
                                                  unsigned (*warp_count)[BUCKETS], unsigned *work,
                                                  unsigned *count, unsigned *start)
{
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = warp * WARP_KEYS + r * 32 + lane;
        atomicAdd(&warp_count[warp][FULL || j < valid ? digit_of(key[r], shift) : RADIX], 1u);
    }
    __syncthreads();
    *count = 0;
    if (t < RADIX) {
#pragma unroll
        for (int w = 0; w < WARPS; ++w) {
            unsigned c = warp_count[w][t];
            warp_count[w][t] = *count;
            *count += c;
        }
        lookback_publish(&status[tile_index * RADIX + t],
                         tile_index == 0 ? LOOKBACK_PREFIX : LOOKBACK_AGGREGATE, *count);
    }
    unsigned total;
    *start = block_exclusive_scan<THREADS>(*count, &total, work);
    if (t < RADIX) {
#pragma unroll
        for (int w = 0; w < WARPS; ++w)
            warp_count[w][t] += *start; /* where warp w's keys of digit t start in the tile */
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = warp * WARP_KEYS + r * 32 + lane;
        bool present = FULL || j < valid;
        unsigned digit = present ? digit_of(key[r], shift) : RADIX;
        unsigned peers = peers_of<FULL ? BITS : BITS + 1>(digit);
        unsigned before = warp_count[warp][digit];
        __syncwarp();
        if (lane == __ffs(peers) - 1)
            warp_count[warp][digit] = before + __popc(peers);
        __syncwarp();
        if (present)
            tile[before + __popc(peers & lanemask_lt())] = key[r];
    }
}

/* One pass over one tile (FULL: all TILE keys there), the status words of type Word. */
template <bool FULL, typename Word>
__device__ __forceinline__ void onesweep_tile(const unsigned *from, unsigned *to, long n, int shift,
                                              const unsigned *digit_start, Word *status,
                                              long tile_index, unsigned *tile,
                                              unsigned (*warp_count)[BUCKETS], unsigned *delta,
                                              unsigned *work)
{
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    long begin = tile_index * TILE;
    unsigned valid = FULL ? TILE : (unsigned)(n - begin);
    unsigned key[ITEMS];
#if KEY_POINTER
    /* one 64-bit address per thread, its keys at constant offsets from it (CUB's
     * LoadDirectWarpStriped, cub/block/block_load.cuh:479): one instruction per key */
    const unsigned *mine = from + begin + (warp * WARP_KEYS + lane);
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = warp * WARP_KEYS + r * 32 + lane;
        key[r] = FULL || j < valid ? load_key(mine + r * 32) : 0;
    }
#else
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = warp * WARP_KEYS + r * 32 + lane;
        key[r] = FULL || j < valid ? load_key(from + begin + j) : 0;
    }
#endif
#if EARLY_COUNTS
    unsigned count, start;
    early_counts_rank<FULL>(key, shift, status, tile_index, valid, tile, warp_count, work, &count,
                            &start);
#else
    /* rank: a key's place among the keys of its digit in its warp, in input order */
    unsigned rank[ITEMS];
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = warp * WARP_KEYS + r * 32 + lane;
        unsigned digit = FULL || j < valid ? digit_of(key[r], shift) : RADIX;
        unsigned peers = peers_of<FULL ? BITS : BITS + 1>(digit);
        unsigned before = warp_count[warp][digit];
        __syncwarp();
        if (lane == __ffs(peers) - 1)
            warp_count[warp][digit] = before + __popc(peers);
        __syncwarp();
        rank[r] = before + __popc(peers & lanemask_lt());
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
            unsigned digit = digit_of(key[r], shift);
            tile[warp_count[WARPS][digit] + warp_count[warp][digit] + rank[r]] = key[r];
        }
    }
#endif
    if (t < RADIX) {
        unsigned exclusive = 0;
        if (tile_index > 0) {
            exclusive = lookback_thread<LOOKBACK_WINDOW, unsigned>(status + t, RADIX, tile_index);
            lookback_publish(&status[tile_index * RADIX + t], LOOKBACK_PREFIX, exclusive + count);
        }
        delta[t] = digit_start[t] + exclusive - start; /* key j of digit t goes to j + delta */
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = r * THREADS + t;
        if (FULL || j < valid) {
            unsigned k = tile[j];
            to[delta[digit_of(k, shift)] + j] = k;
        }
    }
}

template <typename Word>
__device__ __forceinline__ void onesweep_pass(const unsigned *from, unsigned *to, long n, int shift,
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
        onesweep_tile<true>(from, to, n, shift, digit_start, status, tile_index, tile, warp_count,
                            delta, work);
    else
        onesweep_tile<false>(from, to, n, shift, digit_start, status, tile_index, tile, warp_count,
                             delta, work);
}

__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
onesweep_pairs_tuned_pass(const unsigned *from, unsigned *to, long n, int shift,
                    const unsigned *digit_start, unsigned *status, unsigned *ticket)
{
    onesweep_pass<unsigned>(from, to, n, shift, digit_start, status, ticket);
}

__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
onesweep_pairs_tuned_pass_wide(const unsigned *from, unsigned *to, long n, int shift,
                         const unsigned *digit_start, unsigned long long *status, unsigned *ticket)
{
    onesweep_pass<unsigned long long>(from, to, n, shift, digit_start, status, ticket);
}

static void pass_kernel(const unsigned *from, unsigned *to, long n, int shift,
                        const unsigned *digit_start, unsigned *status, unsigned *ticket,
                        unsigned tiles, cudaStream_t stream)
{
    onesweep_pairs_tuned_pass<<<tiles, THREADS, 0, stream>>>(from, to, n, shift, digit_start, status, ticket);
}

static void pass_kernel(const unsigned *from, unsigned *to, long n, int shift,
                        const unsigned *digit_start, unsigned long long *status, unsigned *ticket,
                        unsigned tiles, cudaStream_t stream)
{
    onesweep_pairs_tuned_pass_wide<<<tiles, THREADS, 0, stream>>>(from, to, n, shift, digit_start,
                                                            status, ticket);
}

/* The scratch: the histograms and the pass counters, then the status words. */
#define STATUS_OFFSET 8192

template <typename Word>
static cudaError_t sort_passes(const struct sort_problem *p, unsigned tiles, cudaStream_t stream)
{
    size_t status_words = (size_t)tiles * RADIX;
    /* STATUS_PER_PASS: one pass's words, reused (and cleared again) by every pass */
    size_t word_sets = STATUS_PER_PASS ? 1 : PASSES;
    size_t clear = STATUS_OFFSET + word_sets * status_words * sizeof(Word);
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
    unsigned blocks = wanted < HISTOGRAM_BLOCKS ? (unsigned)wanted : HISTOGRAM_BLOCKS;
    bool aligned = (uintptr_t)p->keys_in % sizeof(uint4) == 0;
    upfront_histogram<<<blocks, HISTOGRAM_THREADS, 0, stream>>>(p->keys_in, p->n, aligned, histograms);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    scan_histograms<<<PASSES, RADIX, 0, stream>>>(histograms);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    for (int pass = 0; pass < PASSES && status == cudaSuccess; ++pass) {
        struct pass_buffers b = pass_buffers_of(p, pass, PASSES);
        Word *pass_words = words + (STATUS_PER_PASS ? 0 : pass * status_words);
        if (STATUS_PER_PASS && pass > 0 &&
            (status = cudaMemsetAsync(pass_words, 0, status_words * sizeof(Word), stream)) != cudaSuccess)
            break;
        pass_kernel(b.keys_from, b.keys_to, p->n, pass * BITS, histograms + pass * RADIX, pass_words,
                    tickets + pass, tiles, stream);
        status = cudaGetLastError();
    }
    return status;
}

/* TODO (step 09). Pairs on 08's passes, as 07 carries them on 06's:
 *  1. lab.def's VARIANT line for 09 says pairs: refuse a problem without values.
 *  2. Read each value right after its key is ranked (values_from, same index; with
 *     KEY_POINTER, through one pointer as the keys are).
 *  3. Keep each key's place in the shared tile (with EARLY_COUNTS, the place its
 *     ranking gives it; without, its rank plus its digit's start and its warp's
 *     offset) and each output index of the keys' write-out.
 *  4. Once the keys are out (a barrier), put the values in the tile at their keys'
 *     places and write them, after another barrier, to the same output indices.
 *  5. Measure THREADS, ITEMS and MIN_BLOCKS again: the values take registers.
 */
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

STEP_TODO("carry the values through 08's passes: read after the ranking, placed in the shared tile at their keys' places, written to their keys' output indices");
DEFINE_STEP(onesweep_pairs_tuned_pass, THREADS, 0, launch);

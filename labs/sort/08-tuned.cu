/* Step 08 - onesweep, tuned: keys alone again, with the tile shape, the ranking and the   *** YOUR TURN ***
 * Guide: labs/sort/README.md#step-08--tuned
 * order of a tile's work that CUB's onesweep uses.
 *
 * What changed from 06 (07's values dropped again: this is the keys-only target):
 *   - tiles of THREADS x ITEMS keys, 384 x 19 by default (CUB's onesweep tile for
 *     32-bit keys on sm_90 with a 64-bit count): 7296 keys, so a pass has about 0.56
 *     times 06's tiles and status words to clear, publish and look back over.
 *     Threads 256 and up rank and write keys but own no digit;
 *     __launch_bounds__(THREADS, MIN_BLOCKS), three blocks of 384 by default, budgets
 *     the registers (make report says what spills);
 *   - a thread's keys read through one pointer at constant offsets (CUB's
 *     LoadDirectWarpStriped: one instruction a key, no 64-bit index sum), with __ldcs
 *     (streamed, evict first: each is read once a pass and should not push out the
 *     status words and histograms the look-back rereads);
 *   - CUB's order of ranking: each warp first counts its keys' digits with shared
 *     atomics, the tile's counts are published (AGGREGATE) and scanned before any key
 *     is ranked, and a key's rank is then its place in the tile: it goes there at once,
 *     no ranks kept in registers;
 *   - a warp's peers from eight ballots, one per bit of the digit (nine in the last,
 *     partial tile, where digit 256 marks a missing key), instead of
 *     __match_any_sync (BALLOT_MATCH=0 to compare), each written in PTX as CUB writes
 *     it: the bit's predicate votes and inverts the ballot where the bit is 0 (the C
 *     form tests each bit twice and selects: about a third more instructions to rank);
 *   - each digit extracted from its key by a volatile bfe, which the compiler cannot
 *     keep live between loops (with a plain shift nvcc 13 keeps every key's digit in
 *     registers and spills);
 *   - only then the look-back, which reads LOOKBACK_WINDOW predecessors at once: the
 *     tiles before it have had the scatter's time to publish their prefixes;
 *   - status words of 32 bits when n < 2^30 (the flag in the top 2 bits, the count in
 *     30: half the bytes to clear and read); the look-back is harness/lookback.cuh,
 *     06's, with a window;
 *   - the write-out adds one shared offset per digit (where the digit starts in the
 *     output minus where it starts in the tile) to each key's place in the tile;
 *   - the upfront histogram reads 16-byte vectors of four keys, four loads in flight
 *     per thread.
 * Build variables, each a -D flag with today's value as its default (the CSV's flags
 *   column records those set): -DTHREADS=384, -DITEMS=19, -DMIN_BLOCKS=3 (make run
 *   LAB=sort STEP=08 SORT_THREADS=256 SORT_ITEMS=16 SORT_MIN_BLOCKS=4 sets these three,
 *   lab.mk), -DLOOKBACK_WINDOW=4, -DBALLOT_MATCH=1, and the ones that compare with what
 *   CUB's onesweep does (labs/sort/README.md, "What CUB does on sm_90"):
 *   -DBALLOT_PTX=1 (the ballots in PTX; 0: in C), -DKEY_POINTER=1 (the keys through
 *   one pointer; 0: an index sum a key), -DEARLY_COUNTS=1 (counts before ranking; 0:
 *   each key ranked first, its rank kept in a register, the counts published after),
 *   -DDIGIT_ASM=1 (the volatile bfe; 0: a shift and a mask), -DSTREAMING_LOADS=1 (0:
 *   plain loads of the keys, as CUB's), -DSTATUS_PER_PASS=0 (1: one pass's status
 *   words, cleared before each pass, as CUB's, instead of all four passes' at once),
 *   -DHISTOGRAM_THREADS, -DHISTOGRAM_UNROLL and -DHISTOGRAM_BLOCKS for the upfront
 *   histogram. The five CUB choices above became the defaults together (before, each
 *   was 0 and ITEMS 18: -DBALLOT_PTX=0 -DKEY_POINTER=0 -DEARLY_COUNTS=0 -DDIGIT_ASM=0
 *   -DITEMS=18 builds that step again); harness/labs/sort/sweep-onesweep.sh times a
 *   grid of them beside CUB.
 * Why: 06 is not limited by its memory traffic alone: its ranking, the waits of its
 *   look-back and its barriers take time that longer tiles, fewer status words and a
 *   look-back that starts later (and so waits less) hide; and the SM issues every
 *   instruction of a key's ranking and load, so CUB's shorter forms of both count.
 * Expect: the fastest keys-only step of the lab, with CUB's tile, ranking order,
 *   ballots and loads: level with CUB's SortKeys with a 64-bit count (the chapter's
 *   generated sweep tables, "What CUB does on sm_90", show each build beside it; Adinets
 *   and Merrill report onesweep at 29.4 Gkeys/s for 256M uniform keys on an A100, 1.5x
 *   CUB's radix sort of 2022).
 * Run:  make run LAB=sort STEP=08
 *
 * This file is step 07's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
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

/* TODO (step 08). Keys alone again, tuned (the chapter's step 08 says why):
 *  1. Drop the values (lab.def has no VARIANT line for 08: keys).
 *  2. THREADS, ITEMS, MIN_BLOCKS and LOOKBACK_WINDOW overridable by -D (lab.mk:
 *     SORT_THREADS, SORT_ITEMS, SORT_MIN_BLOCKS), THREADS >= 256: threads past the
 *     256th rank and write keys but own no digit; __launch_bounds__(THREADS,
 *     MIN_BLOCKS). Start from 384 x 18, then sweep.
 *  3. Read the keys with __ldcs (streamed: each is read once a pass).
 *  4. The peers from one ballot per bit of the digit instead of __match_any_sync:
 *     eight in a whole tile, nine in the last, partial one (a template over FULL
 *     also drops the bounds checks of whole tiles).
 *  5. Publish the counts as soon as the ranking ends; scan them and scatter the keys
 *     into shared memory; only then look back (lookback_thread with a window of
 *     LOOKBACK_WINDOW predecessors).
 *  6. When n < 2^30, 32-bit status words (a template over the word type, one kernel
 *     per width); one shared offset per digit for the write-out.
 *  7. The upfront histogram: 16-byte loads of four keys, several in flight.
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

STEP_TODO("keys alone, tuned: a larger tile, ballots for the peers, counts published before the scatter and the look-back after it, 32-bit status words below 2^30 keys");
DEFINE_STEP(onesweep_tuned_pass, THREADS, 0, launch);

/* Step 05 - one upfront histogram of all four digits, and blocks that own a run of   *** YOUR TURN ***
 * Guide: labs/sort/README.md#step-05--upfront-histogram
 * tiles (Merrill and Grimshaw, "High Performance and Scalable Radix Sorting", Parallel
 * Processing Letters 2011).
 *
 * What changed from 04:
 *   - before the passes, one kernel reads every key once and counts all four of its
 *     digits (four 256-bin histograms in shared memory, added into global ones), and
 *     a small kernel scans each: where digit d of pass p starts in the output, for
 *     all four passes, from one read of the keys;
 *   - a pass launches one block per SM slot, not one per tile: block b owns a
 *     contiguous run of tiles. Its count kernel counts the whole run (256 numbers per
 *     block, not per tile), a one-block "spine" adds them up per digit from the upfront
 *     histogram's start, and the scatter kernel walks its tiles in order with 04's
 *     ranking and write-out, keeping each digit's running offset in shared memory
 *     from one tile to the next.
 * Why: 04 wrote and scanned 256 counts per tile of 4096 keys (1/16 of the keys, read
 *   and written three times by the scan); now they are 256 per block, a few hundred
 *   blocks: the scan between the kernels all but disappears. The upfront histogram
 *   is what the next step builds on: the start of every digit, known before a pass.
 * Expect: no faster than 04 on the H100, and slower at large sizes: a pass still reads
 *   the keys twice and writes them once (3n), and each block now runs its tiles one
 *   after another with barriers in between, with too few blocks per SM (registers) to
 *   hide them. The lesson is the upfront histogram, which the next step needs.
 * Run:  make run LAB=sort STEP=05
 *
 * This file is step 04's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "count_scan.cuh"

#define THREADS 256
#define WARPS (THREADS / 32)
#define ITEMS 16
#define TILE (ITEMS * THREADS)
#define WARP_KEYS (32 * ITEMS)
#define BITS 8
#define RADIX (1 << BITS)
#define BUCKETS (RADIX + 1) /* bucket RADIX: the last tile's missing keys */
static_assert(THREADS == RADIX, "one thread per digit value");

__global__ void count_digits(const unsigned *keys, long n, int shift, unsigned *counts, unsigned tiles)
{
    __shared__ unsigned histogram[RADIX];
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    histogram[t] = 0;
    __syncthreads();
    long begin = (long)blockIdx.x * TILE + warp * WARP_KEYS;
#pragma unroll 4
    for (int r = 0; r < ITEMS; ++r) {
        long i = begin + r * 32 + lane;
        unsigned digit = i < n ? (keys[i] >> shift) & (RADIX - 1) : RADIX;
        unsigned peers = __match_any_sync(FULL_MASK, digit);
        if (digit < RADIX && lane == __ffs(peers) - 1)
            atomicAdd(&histogram[digit], __popc(peers));
    }
    __syncthreads();
    counts[(long)t * tiles + blockIdx.x] = histogram[t];
}

__global__ void run_scatter(const unsigned *from, unsigned *to, long n, int shift,
                                   const unsigned *offsets, unsigned tiles)
{
    __shared__ unsigned tile[TILE];
    __shared__ unsigned warp_count[WARPS][BUCKETS];
    __shared__ unsigned start[BUCKETS], offset[RADIX];
    __shared__ unsigned work[THREADS / 32 + 1];
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    long begin = (long)blockIdx.x * TILE;
    unsigned valid = n - begin < TILE ? (unsigned)(n - begin) : TILE;
    for (unsigned i = t; i < WARPS * BUCKETS; i += THREADS)
        (&warp_count[0][0])[i] = 0;
    offset[t] = offsets[(long)t * tiles + blockIdx.x];
    __syncthreads();
    /* rank every key within its warp's keys of the same digit, in input order */
    unsigned key[ITEMS], digit[ITEMS], rank[ITEMS];
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = warp * WARP_KEYS + r * 32 + lane;
        key[r] = j < valid ? from[begin + j] : 0;
        digit[r] = j < valid ? (key[r] >> shift) & (RADIX - 1) : RADIX;
        unsigned peers = __match_any_sync(FULL_MASK, digit[r]);
        unsigned before = warp_count[warp][digit[r]];
        __syncwarp(); /* every peer has read the count before the lowest one adds to it */
        if (lane == __ffs(peers) - 1)
            warp_count[warp][digit[r]] = before + __popc(peers);
        __syncwarp();
        rank[r] = before + __popc(peers & lanemask_lt());
    }
    __syncthreads();
    /* per digit (thread t = digit t): where each warp's keys of it start, relative to
     * the digit's first key in the tile; then where each digit starts in the tile */
    unsigned count = 0;
    for (int w = 0; w < WARPS; ++w) {
        unsigned c = warp_count[w][t];
        warp_count[w][t] = count;
        count += c;
    }
    unsigned total;
    unsigned first = block_exclusive_scan<THREADS>(count, &total, work);
    start[t] = first;
    __syncthreads();
    /* the tile sorted by digit, in shared memory */
#pragma unroll
    for (int r = 0; r < ITEMS; ++r)
        if (digit[r] < RADIX)
            tile[start[digit[r]] + warp_count[warp][digit[r]] + rank[r]] = key[r];
    __syncthreads();
    /* runs of equal digits out to consecutive addresses */
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = r * THREADS + t;
        if (j < valid) {
            unsigned k = tile[j], d = (k >> shift) & (RADIX - 1);
            to[offset[d] + (j - start[d])] = k;
        }
    }
}

/* TODO (step 05). One upfront histogram, and blocks that own a run of tiles:
 *  1. upfront_histogram: a grid-stride loop over all keys, four 256-bin histograms in
 *     shared memory, added (atomicAdd) into histograms[pass][digit], which the launch
 *     clears; then one block per pass scans its histogram (exclusive).
 *  2. Launch as many blocks as fit on the GPU at once (SMs x
 *     cudaOccupancyMaxActiveBlocksPerMultiprocessor), at most one per tile; block b
 *     owns tiles [tiles * b / blocks, tiles * (b + 1) / blocks).
 *  3. The count kernel counts the block's whole run: counts[b * 256 + d].
 *  4. A one-block spine: thread d adds the counts up over the blocks, starting from
 *     the pass's digit start.
 *  5. The scatter runs 04's tile code in a loop over its run; offset[d] starts at the
 *     spine's value and grows by the tile's count of d after each tile (after a
 *     barrier: the write-out reads it).
 */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct sort_problem *p = (const struct sort_problem *)problem;
    unsigned tiles;
    cudaError_t status = tiles_of(p->n, TILE, &tiles);
    if (status != cudaSuccess)
        return status;
    long m = (long)RADIX * tiles;
    if ((size_t)(m + count_scan_extra_words(m)) * sizeof(unsigned) > p->scratch_bytes)
        return step_refuse_launch("the scratch buffer is too small for the tiles' counts");
    unsigned *counts = (unsigned *)p->scratch;
    const int passes = 32 / BITS;
    for (int pass = 0; pass < passes && status == cudaSuccess; ++pass) {
        struct pass_buffers b = pass_buffers_of(p, pass, passes);
        count_digits<<<tiles, THREADS, 0, stream>>>(b.keys_from, p->n, pass * BITS, counts, tiles);
        if ((status = cudaGetLastError()) != cudaSuccess)
            break;
        if ((status = scan_counts(counts, m, stream)) != cudaSuccess)
            break;
        run_scatter<<<tiles, THREADS, 0, stream>>>(b.keys_from, b.keys_to, p->n,
                                                          pass * BITS, counts, tiles);
        status = cudaGetLastError();
    }
    return status;
}

DEFINE_STEP(run_scatter, THREADS, 0, launch);

STEP_TODO("count all four digits in one upfront pass; launch one wave of blocks, each owning a run of tiles, so the counts to scan are per block");

/* Step 06 - onesweep: one kernel per pass, the tiles' offsets by decoupled look-back   *** YOUR TURN ***
 * Guide: labs/sort/README.md#step-06--onesweep
 * (Adinets and Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for
 * GPUs", 2022; the look-back is the scan lab's step 06, Merrill and Garland 2016).
 *
 * What changed from 05: no count kernel and no spine. A pass is one launch; each
 *   block takes the next tile number from a counter (atomicAdd), ranks its 4096 keys
 *   as 04 does, and then, thread d for digit d:
 *     1. publishes the tile's count of digit d in a status word: flag AGGREGATE and
 *        the count in one 64-bit store (tile 0 publishes PREFIX at once);
 *     2. looks back: reads the status of tile t - 1, t - 2, ... for digit d, waits
 *        while one is still EMPTY, adds the counts up to the nearest tile flagged
 *        PREFIX (whose count is already that of every tile before it, inclusive);
 *     3. publishes PREFIX and its own count plus what it found;
 *     4. the tile's keys of digit d go to digit_start[d] (the upfront histogram's,
 *        kept from 05) plus what it found.
 *   Then 04's local sort and write-out. The status words of all four passes and the
 *   counters are cleared by one cudaMemsetAsync in the launch. Publishing and the
 *   look-back are harness/lookback.cuh, the scan lab's (its steps 06-08): one
 *   thread per digit walks it here, one tile at a time.
 * Why: 05 read the keys twice a pass, once to count and once to move them, because
 *   a tile cannot know its offsets before every tile before it is counted. The
 *   look-back learns them while the tiles run: 2n moved a pass, the least a pass
 *   can move, instead of 3n. The tile numbers come from the counter, not
 *   blockIdx.x, so a tile only ever waits for tiles that started before it.
 * Expect: the biggest jump of the lab on large arrays. The status words (2 KB a tile,
 *   n / 2 bytes a pass) and their clearing are the price.
 * Run:  make run LAB=sort STEP=06
 *
 * This file is step 05's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "sort_common.cuh"

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

/* The tiles [first, last) of block b among `blocks` covering `tiles`. */
__device__ __forceinline__ void run_of(unsigned tiles, unsigned b, unsigned blocks,
                                       unsigned *first, unsigned *last)
{
    *first = (unsigned)((unsigned long long)tiles * b / blocks);
    *last = (unsigned)((unsigned long long)tiles * (b + 1) / blocks);
}

__global__ void count_run(const unsigned *keys, long n, int shift, unsigned *counts, unsigned tiles)
{
    __shared__ unsigned histogram[RADIX];
    unsigned t = threadIdx.x, lane = t % 32;
    histogram[t] = 0;
    __syncthreads();
    unsigned first, last;
    run_of(tiles, blockIdx.x, gridDim.x, &first, &last);
    long end = (long)last * TILE < n ? (long)last * TILE : n;
    for (long row = (long)first * TILE + (t / 32) * 32; row < end; row += THREADS) {
        long i = row + lane;
        unsigned digit = i < end ? (keys[i] >> shift) & (RADIX - 1) : RADIX;
        unsigned peers = __match_any_sync(FULL_MASK, digit);
        if (digit < RADIX && lane == __ffs(peers) - 1)
            atomicAdd(&histogram[digit], __popc(peers));
    }
    __syncthreads();
    counts[(long)blockIdx.x * RADIX + t] = histogram[t]; /* block-major: the spine reads rows */
}

/* one block, thread d: counts[b][d] to where block b's keys of digit d start */
__global__ void spine(unsigned *counts, unsigned blocks, const unsigned *digit_start)
{
    unsigned d = threadIdx.x, running = digit_start[d];
    for (unsigned b = 0; b < blocks; ++b) {
        unsigned c = counts[(long)b * RADIX + d];
        counts[(long)b * RADIX + d] = running;
        running += c;
    }
}

/* Two blocks per SM at least (__launch_bounds__): the run loop keeps 04's ranking
 * registers and more live, and one block per SM left nothing to hide its barriers. */
__global__ void __launch_bounds__(THREADS, 2) onesweep_pass(const unsigned *from, unsigned *to, long n, int shift,
                            const unsigned *counts, unsigned tiles)
{
    __shared__ unsigned tile[TILE];
    __shared__ unsigned warp_count[WARPS][BUCKETS];
    __shared__ unsigned start[BUCKETS], offset[RADIX];
    __shared__ unsigned work[THREADS / 32 + 1];
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    offset[t] = counts[(long)blockIdx.x * RADIX + t];
    unsigned first, last;
    run_of(tiles, blockIdx.x, gridDim.x, &first, &last);
    for (unsigned tile_index = first; tile_index < last; ++tile_index) {
        long begin = (long)tile_index * TILE;
        unsigned valid = n - begin < TILE ? (unsigned)(n - begin) : TILE;
        for (unsigned i = t; i < WARPS * BUCKETS; i += THREADS)
            (&warp_count[0][0])[i] = 0;
        __syncthreads();
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
        unsigned total;
        start[t] = block_exclusive_scan<THREADS>(count, &total, work);
        __syncthreads();
#pragma unroll
        for (int r = 0; r < ITEMS; ++r)
            if (digit[r] < RADIX)
                tile[start[digit[r]] + warp_count[warp][digit[r]] + rank[r]] = key[r];
        __syncthreads();
#pragma unroll
        for (int r = 0; r < ITEMS; ++r) {
            unsigned j = r * THREADS + t;
            if (j < valid) {
                unsigned k = tile[j], d = (k >> shift) & (RADIX - 1);
                to[offset[d] + (j - start[d])] = k;
            }
        }
        __syncthreads(); /* every write-out has read offset and start */
        offset[t] += count;
    }
}

/* Blocks a pass launches: as many as fit on the GPU at once (one wave), at most one
 * per tile. */
static cudaError_t blocks_for(unsigned tiles, unsigned *blocks)
{
    static int slots;
    if (slots == 0) {
        int device, sms, per_sm;
        cudaError_t status = cudaGetDevice(&device);
        if (status == cudaSuccess)
            status = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        if (status == cudaSuccess)
            status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, onesweep_pass, THREADS, 0);
        if (status != cudaSuccess)
            return status;
        slots = sms * (per_sm > 0 ? per_sm : 1);
    }
    *blocks = tiles < (unsigned)slots ? tiles : (unsigned)slots;
    return cudaSuccess;
}

/* TODO (step 06). One kernel per pass: offsets by decoupled look-back.
 *  1. The launch clears (cudaMemsetAsync) the histograms, a ticket counter per pass
 *     and, per pass, a 64-bit status word per digit of every tile; keeps 05's upfront
 *     histogram; then launches one kernel per pass over all the tiles.
 *  2. Thread 0 takes the tile number: atomicAdd(ticket, 1), not blockIdx.x.
 *  3. After the ranking, thread d publishes (AGGREGATE, the tile's count of d) in one
 *     64-bit word: lookback_publish of harness/lookback.cuh (#include "lookback.cuh";
 *     the scan lab's step 06 uses it too); tile 0 publishes PREFIX.
 *  4. Look back over tiles t - 1, t - 2, ... (lookback_thread, one tile at a time,
 *     over the words of digit d: a stride of RADIX words): it waits while a word is
 *     EMPTY, adds the counts and stops at the first PREFIX; then publish (PREFIX,
 *     what was found + count). Read the header: that loop is the lesson.
 *  5. offset[d] = the pass's digit start + what was found; then 04's local sort and
 *     write-out. No count kernel, no spine.
 */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct sort_problem *p = (const struct sort_problem *)problem;
    unsigned tiles, blocks;
    cudaError_t status = tiles_of(p->n, TILE, &tiles);
    if (status == cudaSuccess)
        status = blocks_for(tiles, &blocks);
    if (status != cudaSuccess)
        return status;
    unsigned *histograms = (unsigned *)p->scratch; /* [PASSES][RADIX] */
    unsigned *counts = histograms + PASSES * RADIX; /* [blocks][RADIX] */
    if ((size_t)(PASSES + blocks) * RADIX * sizeof(unsigned) > p->scratch_bytes)
        return step_refuse_launch("the scratch buffer is too small for the digit counts");
    if ((status = cudaMemsetAsync(histograms, 0, PASSES * RADIX * sizeof(unsigned), stream)) != cudaSuccess)
        return status;
    upfront_histogram<<<blocks, THREADS, 0, stream>>>(p->keys_in, p->n, histograms);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    scan_histograms<<<PASSES, THREADS, 0, stream>>>(histograms);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    for (int pass = 0; pass < PASSES && status == cudaSuccess; ++pass) {
        struct pass_buffers b = pass_buffers_of(p, pass, PASSES);
        count_run<<<blocks, THREADS, 0, stream>>>(b.keys_from, p->n, pass * BITS, counts, tiles);
        if ((status = cudaGetLastError()) != cudaSuccess)
            break;
        spine<<<1, RADIX, 0, stream>>>(counts, blocks, histograms + pass * RADIX);
        if ((status = cudaGetLastError()) != cudaSuccess)
            break;
        onesweep_pass<<<blocks, THREADS, 0, stream>>>(b.keys_from, b.keys_to, p->n, pass * BITS,
                                                    counts, tiles);
        status = cudaGetLastError();
    }
    return status;
}

DEFINE_STEP(onesweep_pass, THREADS, 0, launch);

STEP_TODO("one kernel per pass: tile numbers from a counter, each tile publishes its digit counts and looks back over its predecessors' status words");

/* Step 05 - one upfront histogram of all four digits, and blocks that own a run of
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
__global__ void __launch_bounds__(THREADS, 2) run_scatter(const unsigned *from, unsigned *to, long n, int shift,
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
            status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, run_scatter, THREADS, 0);
        if (status != cudaSuccess)
            return status;
        slots = sms * (per_sm > 0 ? per_sm : 1);
    }
    *blocks = tiles < (unsigned)slots ? tiles : (unsigned)slots;
    return cudaSuccess;
}

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
        run_scatter<<<blocks, THREADS, 0, stream>>>(b.keys_from, b.keys_to, p->n, pass * BITS,
                                                    counts, tiles);
        status = cudaGetLastError();
    }
    return status;
}

DEFINE_STEP(run_scatter, THREADS, 0, launch);

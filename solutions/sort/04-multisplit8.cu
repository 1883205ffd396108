/* Step 04 - 8-bit digits ranked by warp-level multisplit (__match_any_sync).
 * Guide: labs/sort/README.md#step-04--multisplit8
 *
 * What changed from 03: digits of 8 bits, 256 values, so 4 passes instead of 8.
 *   Tiles of 4096 keys: 256 threads, each warp a run of 512 keys as 16 rows of 32.
 *   03's four 1-bit splits per digit would become eight, so the rank comes another
 *   way: __match_any_sync(mask, digit) gives each lane the lanes of its warp whose
 *   key has the same digit (its peers); the lowest peer reads the warp's running
 *   count of that digit and adds the peers' number, and a key's rank in its warp is
 *   that count plus its peers below it. The warps' counts, scanned per digit, and a
 *   block scan of the tile's 256 digit totals place every key in the tile, sorted
 *   by digit, in shared memory; then the coalesced write-out of 03. The count
 *   kernel uses the same peers: one shared-memory atomicAdd per distinct digit of a
 *   row of 32 keys instead of one per key.
 * Why: half the passes, so half the memory traffic of 03 (still 3n a pass). Shared
 *   atomics on 256 bins collide when a warp's keys share a digit, which low-entropy
 *   keys do all the time: 32 atomics on one address serialize, one per peer group
 *   does not (Ashkiani et al., "GPU Multisplit", PPoPP 2016).
 * Expect: faster than 03. The counts to scan are 256 per tile of 4096 (1/16 of the
 *   keys), a visible cost in the global scan.
 * Run:  make run LAB=sort STEP=04
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

__global__ void multisplit_scatter(const unsigned *from, unsigned *to, long n, int shift,
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
        multisplit_scatter<<<tiles, THREADS, 0, stream>>>(b.keys_from, b.keys_to, p->n,
                                                          pass * BITS, counts, tiles);
        status = cudaGetLastError();
    }
    return status;
}

DEFINE_STEP(multisplit_scatter, THREADS, 0, launch);

/* Step 04 - 8-bit digits ranked by warp-level multisplit (__match_any_sync).   *** YOUR TURN ***
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
 *
 * This file is step 03's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "count_scan.cuh"

#define THREADS 256
#define ITEMS 4
#define TILE (ITEMS * THREADS)
#define BITS 4
#define RADIX (1 << BITS)

__global__ void count_digits(const unsigned *keys, long n, int shift, unsigned *counts, unsigned tiles)
{
    __shared__ unsigned histogram[RADIX];
    if (threadIdx.x < RADIX)
        histogram[threadIdx.x] = 0;
    __syncthreads();
    long begin = (long)blockIdx.x * TILE;
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        long i = begin + r * THREADS + threadIdx.x;
        if (i < n)
            atomicAdd(&histogram[(keys[i] >> shift) & (RADIX - 1)], 1u);
    }
    __syncthreads();
    if (threadIdx.x < RADIX)
        counts[(long)threadIdx.x * tiles + blockIdx.x] = histogram[threadIdx.x];
}

__global__ void multisplit_scatter(const unsigned *from, unsigned *to, long n, int shift,
                                   const unsigned *offsets, unsigned tiles)
{
    __shared__ unsigned tile[TILE];
    __shared__ unsigned histogram[RADIX], start[RADIX], offset[RADIX];
    __shared__ unsigned work[THREADS / 32 + 1];
    unsigned t = threadIdx.x;
    long begin = (long)blockIdx.x * TILE;
    unsigned valid = n - begin < TILE ? (unsigned)(n - begin) : TILE;
    if (t < RADIX) {
        histogram[t] = 0;
        offset[t] = offsets[(long)t * tiles + blockIdx.x];
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) { /* coalesced rows in, the tile in input order */
        unsigned j = r * THREADS + t;
        unsigned key = j < valid ? from[begin + j] : 0xFFFFFFFFu;
        if (j < valid)
            atomicAdd(&histogram[(key >> shift) & (RADIX - 1)], 1u);
        tile[j] = key;
    }
    __syncthreads();
    if (t == 0) {
        unsigned sum = 0;
        for (int d = 0; d < RADIX; ++d) {
            start[d] = sum;
            sum += histogram[d];
        }
    }
    /* four splits of the tile, bit by bit; thread t holds positions 4t .. 4t + 3 */
    for (int bit = shift; bit < shift + BITS; ++bit) {
        unsigned key[ITEMS], ones = 0;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            key[k] = tile[ITEMS * t + k];
            ones += (key[k] >> bit) & 1;
        }
        unsigned ones_total;
        /* its barriers also keep every read above before any write below */
        unsigned ones_before = block_exclusive_scan<THREADS>(ones, &ones_total, work);
        unsigned zeros_total = TILE - ones_total;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            unsigned position = ITEMS * t + k, one = (key[k] >> bit) & 1;
            tile[one ? zeros_total + ones_before : position - ones_before] = key[k];
            ones_before += one;
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        unsigned j = r * THREADS + t;
        if (j < valid) {
            unsigned key = tile[j], d = (key >> shift) & (RADIX - 1);
            to[offset[d] + (j - start[d])] = key;
        }
    }
}

/* TODO (step 04). 8-bit digits ranked with __match_any_sync:
 *  1. RADIX 256 and 4 passes; tiles of 4096 keys, 16 per thread: warp w owns keys
 *     w * 512 .. w * 512 + 511 of the tile, as 16 rows of 32 (coalesced).
 *  2. The count kernel: peers = __match_any_sync(FULL_MASK, digit) (a missing key's
 *     digit is 256); the lowest peer (__ffs(peers) - 1) adds __popc(peers) with one
 *     shared-memory atomicAdd.
 *  3. The scatter ranks every row with the same peers against a counter per warp and
 *     digit, warp_count[warp][digit]: every peer reads it, __syncwarp(), the lowest
 *     peer adds __popc(peers), __syncwarp(); the rank is what was read plus
 *     __popc(peers & lanemask_lt()).
 *  4. Thread d scans warp_count[*][d] over the warps; a block_exclusive_scan of the
 *     digit totals gives start[d]; every key goes to the shared tile at start[d] plus
 *     its warp's start plus its rank; then 03's write-out.
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
        multisplit_scatter<<<tiles, THREADS, 0, stream>>>(b.keys_from, b.keys_to, p->n,
                                                          pass * BITS, counts, tiles);
        status = cudaGetLastError();
    }
    return status;
}

DEFINE_STEP(multisplit_scatter, THREADS, 0, launch);

STEP_TODO("8-bit digits, 4 passes: rank the keys of a warp with __match_any_sync and per-warp digit counters instead of 1-bit splits");

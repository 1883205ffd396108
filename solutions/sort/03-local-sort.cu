/* Step 03 - each tile sorted by its digit in shared memory before the scatter
 * Guide: labs/sort/README.md#step-03--local-sort
 * (Satish, Harris and Garland, "Designing Efficient Sorting Algorithms for Manycore
 * GPUs", IPDPS 2009).
 *
 * What changed from 02: the scatter kernel first sorts its tile of 1024 keys by the
 *   pass's 4-bit digit in shared memory: four 1-bit splits, the appendix's
 *   partition_by_bit, each thread holding 4 consecutive keys of the tile. Then the
 *   tile's keys of digit d are a run, starting at start[d] (a 16-value scan of the
 *   tile's histogram), and thread j of the block writes the key at position j of the
 *   sorted tile to offset[d][t] + (j - start[d]). The counts and the global scan are
 *   02's. The last tile's missing keys are all-ones sentinels, which a stable split
 *   leaves after every real key.
 * Why: in 02 a warp's 32 writes land in up to 16 places, each a partial 32-byte
 *   sector. After the local sort, consecutive threads write consecutive addresses
 *   within a digit's run: a tile of 1024 keys has 16 runs of 64 keys on average, and
 *   the writes coalesce. The ranks come from 4 block scans instead of 16 ballots.
 * Expect: faster than 02 on uniform keys; on low-entropy keys (few distinct digits)
 *   02's writes were already in few places, so the gain is smaller.
 * Run:  make run LAB=sort STEP=03
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

__global__ void local_sort_scatter(const unsigned *from, unsigned *to, long n, int shift,
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
        local_sort_scatter<<<tiles, THREADS, 0, stream>>>(b.keys_from, b.keys_to, p->n,
                                                          pass * BITS, counts, tiles);
        status = cudaGetLastError();
    }
    return status;
}

DEFINE_STEP(local_sort_scatter, THREADS, 0, launch);

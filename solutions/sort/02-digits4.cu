/* Step 02 - 4-bit digits: 8 passes instead of 32.
 * Guide: labs/sort/README.md#step-02--digits4
 *
 * What changed from 01: a pass partitions the keys by a digit of 4 bits, 16 values,
 *   instead of 1 bit. Tiles grow to 1024 keys (256 threads, 4 rows of 256).
 *     1. count_digits: each tile counts its 16 digit values in shared memory
 *        (atomicAdd) and writes them digit-major: counts[d * tiles + t];
 *     2. one global scan of all 16 x tiles counts: the keys of digit d from tile t
 *        start after every key of a smaller digit, and after the keys of digit d in
 *        the tiles before t (the same scan as 01, over 16 columns instead of 2);
 *     3. digit_scatter: each key's rank among the keys of its digit before it in the
 *        tile, from one warp ballot per digit value (a warp's keys of digit d are
 *        the bits of __ballot_sync(d == mine)), the warps' counts scanned per digit
 *        in shared memory; the key goes to offset[d][t] + rank.
 * Why: a pass costs the same memory traffic whatever the digit's width (3n: the
 *   count reads the keys, the scatter reads and writes them), and 4-bit digits need
 *   8 passes, not 32. The price: 16 counts per tile to scan instead of 2, and a rank
 *   among 16 values instead of 2.
 * Expect: several times faster than 01. The scatter's writes are now poor: a warp's
 *   32 keys land in up to 16 places.
 * Run:  make run LAB=sort STEP=02
 */
#include "count_scan.cuh"

#define THREADS 256
#define WARPS (THREADS / 32)
#define ROWS 4
#define TILE (ROWS * THREADS)
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
    for (int r = 0; r < ROWS; ++r) {
        long i = begin + r * THREADS + threadIdx.x;
        if (i < n)
            atomicAdd(&histogram[(keys[i] >> shift) & (RADIX - 1)], 1u);
    }
    __syncthreads();
    if (threadIdx.x < RADIX)
        counts[(long)threadIdx.x * tiles + blockIdx.x] = histogram[threadIdx.x];
}

__global__ void digit_scatter(const unsigned *from, unsigned *to, long n, int shift,
                              const unsigned *offsets, unsigned tiles)
{
    /* the keys of digit d in (row r, warp w), then, scanned, where they start */
    __shared__ unsigned start[ROWS][WARPS][RADIX];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    long begin = (long)blockIdx.x * TILE;
    unsigned key[ROWS], digit[ROWS], rank[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        long i = begin + r * THREADS + threadIdx.x;
        key[r] = i < n ? from[i] : 0;
        digit[r] = i < n ? (key[r] >> shift) & (RADIX - 1) : RADIX; /* RADIX: no key */
        rank[r] = 0;
#pragma unroll
        for (unsigned d = 0; d < RADIX; ++d) {
            unsigned same = __ballot_sync(FULL_MASK, digit[r] == d);
            if (digit[r] == d)
                rank[r] = __popc(same & lanemask_lt());
            if (lane == 0)
                start[r][warp][d] = __popc(same);
        }
    }
    __syncthreads();
    /* one thread per digit: its counts in tile order (row, then warp), scanned from
     * the digit's global offset for this tile */
    if (threadIdx.x < RADIX) {
        unsigned d = threadIdx.x, running = offsets[(long)d * tiles + blockIdx.x];
        for (int r = 0; r < ROWS; ++r)
            for (int w = 0; w < WARPS; ++w) {
                unsigned c = start[r][w][d];
                start[r][w][d] = running;
                running += c;
            }
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
        if (digit[r] < RADIX)
            to[start[r][warp][digit[r]] + rank[r]] = key[r];
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
        digit_scatter<<<tiles, THREADS, 0, stream>>>(b.keys_from, b.keys_to, p->n, pass * BITS,
                                                     counts, tiles);
        status = cudaGetLastError();
    }
    return status;
}

DEFINE_STEP(digit_scatter, THREADS, 0, launch);

/* Step 02 - 4-bit digits: 8 passes instead of 32.   *** YOUR TURN ***
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
 *
 * This file is step 01's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "count_scan.cuh"

#define THREADS 256
#define TILE THREADS

__global__ void count_ones(const unsigned *keys, long n, int bit, unsigned *counts, unsigned tiles)
{
    long begin = (long)blockIdx.x * TILE, i = begin + threadIdx.x;
    int one = i < n ? (keys[i] >> bit) & 1 : 0;
    unsigned ones = __syncthreads_count(one);
    if (threadIdx.x == 0) {
        unsigned valid = n - begin < TILE ? (unsigned)(n - begin) : TILE;
        counts[blockIdx.x] = valid - ones;
        counts[tiles + blockIdx.x] = ones;
    }
}

__global__ void digit_scatter(const unsigned *from, unsigned *to, long n, int bit,
                              const unsigned *offsets, unsigned tiles)
{
    __shared__ unsigned work[THREADS / 32 + 1];
    long i = (long)blockIdx.x * TILE + threadIdx.x;
    unsigned key = i < n ? from[i] : 0;
    unsigned one = i < n ? (key >> bit) & 1 : 0;
    unsigned ones_total;
    /* T_before: the 1s before this key in the tile (the valid keys are a prefix) */
    unsigned ones_before = block_exclusive_scan<THREADS>(one, &ones_total, work);
    if (i < n) {
        unsigned to_index = one ? offsets[tiles + blockIdx.x] + ones_before
                                : offsets[blockIdx.x] + (threadIdx.x - ones_before);
        to[to_index] = key;
    }
}

/* TODO (step 02). Digits of 4 bits instead of 1 bit: 8 passes instead of 32.
 *  1. Tiles of 1024 keys: 256 threads, 4 rows of 256 (ROWS), each key in a register.
 *  2. A count kernel: a 16-bin histogram per tile in shared memory (atomicAdd),
 *     written digit-major, counts[d * tiles + t]; scan_counts over 16 x tiles counts.
 *  3. The scatter: for every row and every digit value d, __ballot_sync(FULL_MASK,
 *     digit == d) is the warp's keys of digit d; a key's rank in its warp is
 *     __popc(ballot & lanemask_lt()), and the warp's count __popc(ballot) goes to
 *     shared memory at [row][warp][d].
 *  4. One thread per digit turns its counts, in tile order (row, then warp), into
 *     starts from offsets[d * tiles + t]; every key goes to its start plus its rank.
 *  5. The pass loop: 32 / 4 passes, the digit at shift 4 x pass.
 */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct sort_problem *p = (const struct sort_problem *)problem;
    unsigned tiles;
    cudaError_t status = tiles_of(p->n, TILE, &tiles);
    if (status != cudaSuccess)
        return status;
    long m = 2L * tiles;
    if ((size_t)(m + count_scan_extra_words(m)) * sizeof(unsigned) > p->scratch_bytes)
        return step_refuse_launch("the scratch buffer is too small for the tiles' counts");
    unsigned *counts = (unsigned *)p->scratch;
    for (int bit = 0; bit < 32 && status == cudaSuccess; ++bit) {
        struct pass_buffers b = pass_buffers_of(p, bit, 32);
        count_ones<<<tiles, THREADS, 0, stream>>>(b.keys_from, p->n, bit, counts, tiles);
        if ((status = cudaGetLastError()) != cudaSuccess)
            break;
        if ((status = scan_counts(counts, m, stream)) != cudaSuccess)
            break;
        digit_scatter<<<tiles, THREADS, 0, stream>>>(b.keys_from, b.keys_to, p->n, bit, counts, tiles);
        status = cudaGetLastError();
    }
    return status;
}

DEFINE_STEP(digit_scatter, THREADS, 0, launch);

STEP_TODO("4-bit digits, 8 passes: per-tile histograms of 16 values, one global scan, a scatter ranked by one ballot per digit value");

/* tests/submissions/unstable-scatter: a deliberately wrong sort step 02 for grading.
 *
 * Ranks each key among its tile's keys of the same digit with a shared-memory
 * atomicAdd per key: every key gets its own slot, so no key is lost, but the slots
 * follow the order the atomics land in, not the input order. The pass is not stable,
 * and an LSD sort needs every pass stable: the order the earlier passes left among
 * keys of equal digit is lost.
 * Expect: "correct" lost at every check size with more than one key per digit in a
 * tile (the check says "not sorted"); memcheck and racecheck clean.
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
    }
    /* the rank from a shared counter per digit: every key gets a distinct slot, but in
     * whatever order the atomics land, not in input order */
    __shared__ unsigned taken[RADIX];
    if (threadIdx.x < RADIX)
        taken[threadIdx.x] = 0;
    for (int r = 0; r < ROWS; ++r)
        for (int w = 0; w < WARPS; ++w)
            if (threadIdx.x < RADIX)
                start[r][w][threadIdx.x] = 0;
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
        if (digit[r] < RADIX)
            rank[r] = atomicAdd(&taken[digit[r]], 1u);
    if (threadIdx.x < RADIX)
        start[0][0][threadIdx.x] = taken[threadIdx.x];
    __syncthreads();
    /* one thread per digit: its counts in tile order (row, then warp), scanned from
     * the digit's global offset for this tile */
    if (threadIdx.x < RADIX) {
        unsigned d = threadIdx.x, running = offsets[(long)d * tiles + blockIdx.x];
        for (int r = 0; r < ROWS; ++r)
            for (int w = 0; w < WARPS; ++w)
                start[r][w][d] = running;
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

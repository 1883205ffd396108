/* Step 07 - key-value pairs: onesweep carrying a 32-bit value with every key.
 * Guide: labs/sort/README.md#step-07--pairs
 *
 * What changed from 06: the step sorts pairs (lab.def's VARIANT line says so, and
 *   the harness checks that every value is its key's input index and that equal
 *   keys keep their input order). The keys are ranked, looked back and written out
 *   exactly as in 06; the values are read only after that, each from the same place
 *   as its key, put in shared memory at its key's place in the sorted tile, and
 *   written to the same output index as the key beside it (kept in registers from
 *   the keys' write-out).
 * Why: a value needs no digit and no rank, only its key's destination. Reading the
 *   values late keeps 16 registers free while the keys are ranked, and the shared
 *   tile, free again once the keys are out, holds the values (Adinets and Merrill
 *   2022 do the same). A pass moves 4n words instead of 2n.
 * Expect: a little under half 06's keys per second: twice the bytes per pass; the
 *   GB/s per pass column, which counts the values, near 06's.
 * Run:  make run LAB=sort STEP=07
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

__global__ void onesweep_pairs_pass(const unsigned *from, unsigned *to, const unsigned *values_from,
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
        onesweep_pairs_pass<<<tiles, THREADS, 0, stream>>>(
            b.keys_from, b.keys_to, b.values_from, b.values_to, p->n, pass * BITS,
            histograms + pass * RADIX, words + pass * status_words, tickets + pass);
        status = cudaGetLastError();
    }
    return status;
}

DEFINE_STEP(onesweep_pairs_pass, THREADS, 0, launch);

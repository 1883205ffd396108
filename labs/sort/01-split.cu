/* Step 01 - Nickolls and Kirk's split (figures B.8.10 and B.8.11) on a long array.
 * Guide: labs/sort/README.md#step-01--split
 *
 * What changed: this is the start. The appendix sorts the keys of one block by 32
 *   calls of partition_by_bit: each thread counts the 1 bits before its key with a
 *   scan (T_before), and a key whose bit is 0 goes to i - T_before, one whose bit is
 *   1 to F_total + T_before. A long array keeps that split but spreads it over
 *   kernels and double-buffers the keys (the appendix's last paragraph). A pass
 *   over bit b is three launches:
 *     1. count_ones: each tile of 256 keys (one per thread) counts its 0s and 1s
 *        (__syncthreads_count), written digit-major: all tiles' 0s, then their 1s;
 *     2. a scan of those counts (sort_common.cuh): the 0s of tile t go after the 0s
 *        of every tile before it, the 1s after every 0 and the 1s before tile t;
 *     3. split_scatter: the appendix's partition, with the tile's offsets added.
 *   32 passes ping-pong between keys_out and keys_alt, ending in keys_out.
 * Why: a split is stable (keys with the same bit keep their order), so after the
 *   pass over bit b the keys are sorted by bits 0..b: least significant digit first.
 * Expect: slow. Every pass reads the keys twice and writes them once (3n), and
 *   there are 32 passes: about 96 times the bytes of one copy of the keys. The
 *   writes of a tile land in two runs, so they are fairly coalesced.
 * Run:  make run LAB=sort STEP=01
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

__global__ void split_scatter(const unsigned *from, unsigned *to, long n, int bit,
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
        split_scatter<<<tiles, THREADS, 0, stream>>>(b.keys_from, b.keys_to, p->n, bit, counts, tiles);
        status = cudaGetLastError();
    }
    return status;
}

DEFINE_STEP(split_scatter, THREADS, 0, launch);

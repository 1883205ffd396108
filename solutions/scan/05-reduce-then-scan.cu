/* Step 05 - reduce, then scan: three phases that move 3n floats, not 4n.
 * Guide: labs/scan/README.md#step-05--reduce-then-scan
 *
 * What changed from 04: the structure, not the tile scan. Phase 1 now only sums
 *   each tile (reads n floats, writes n / 4096 sums); phase 2 scans those sums in
 *   one block of 1024 threads, a chunk of 1024 at a time with a running carry;
 *   phase 3 reads the input again and scans each tile with 04's warp shuffles,
 *   adding the scanned sum of the tiles before it as it writes. Tiles grow from
 *   512 to 4096 elements (16 rows of 256 per block, 16 registers of elements per
 *   thread), so the sums are few and phase 2 is short; the first warp now scans the
 *   tile's 128 segment totals, four per lane. three_phase.cuh is no longer used.
 * Why: steps 01-04 write every element twice (phase 1's local scan, phase 3's
 *   fix-up) and read it twice: 4n floats. A tile's sum does not need its scan, so
 *   phase 1 can skip the write, and phase 3 can start from the right offset instead
 *   of fixing the output up afterwards: 2n reads + n writes. The rate this allows
 *   is two thirds of the copy bandwidth (Merrill and Garland call it
 *   reduce-then-scan; it was the fastest way before single-pass scans).
 * Expect: about 4/3 the speed of 04. ncu shows two kernels that stream at the copy
 *   bandwidth and one (phase 2) that is tiny but serial: at small n it is a large
 *   share of the time.
 * Run:  make run LAB=scan STEP=05
 */
#include "scan.h"
#include "step_kernel.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#define ROWS 16
#define TILE (ROWS * THREADS)
#define SEGMENTS (ROWS * WARPS)
#define PER_LANE (SEGMENTS / 32) /* segment totals per lane of the first warp */
#define SUM_THREADS 1024         /* phase 2: one block */
static_assert(SEGMENTS % 32 == 0, "the first warp scans the segment totals, PER_LANE each");

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_inclusive_scan(float v, unsigned lane)
{
    for (unsigned offset = 1; offset < 32; offset *= 2) {
        float left = __shfl_up_sync(FULL_MASK, v, offset);
        if (lane >= offset)
            v = left + v;
    }
    return v;
}

/* The sum of v over the warp, in lane 0. */
__device__ __forceinline__ float warp_sum(float v)
{
    for (unsigned offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

/* Run by the first warp: scans the SEGMENTS totals of s in place, PER_LANE
 * consecutive ones per lane (a serial scan in registers, then the lanes' totals). */
__device__ __forceinline__ void scan_segment_sums(float *s, unsigned lane)
{
    float local[PER_LANE];
    local[0] = s[lane * PER_LANE];
#pragma unroll
    for (int k = 1; k < PER_LANE; ++k)
        local[k] = local[k - 1] + s[lane * PER_LANE + k];
    float inclusive = warp_inclusive_scan(local[PER_LANE - 1], lane);
    float before = __shfl_up_sync(FULL_MASK, inclusive, 1);
#pragma unroll
    for (int k = 0; k < PER_LANE; ++k)
        s[lane * PER_LANE + k] = lane > 0 ? before + local[k] : local[k];
}

/* Phase 1: the sum of each tile. */
__global__ void reduce_tiles(const float *in, float *sums, long n)
{
    __shared__ float warp_sums[WARPS];
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    long base = (long)blockIdx.x * TILE;
    float v = 0.0f;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        long g = base + r * THREADS + t;
        if (g < n)
            v += in[g];
    }
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float s = warp_sum(lane < WARPS ? warp_sums[lane] : 0.0f);
        if (lane == 0)
            sums[blockIdx.x] = s;
    }
}

/* Phase 2: one block scans the tiles' sums in place, SUM_THREADS at a time. */
__global__ void scan_tile_sums(float *sums, long tiles)
{
    __shared__ float warp_totals[SUM_THREADS / 32];
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    float carry = 0.0f; /* the sum of every chunk before this one */
    for (long chunk = 0; chunk < tiles; chunk += SUM_THREADS) {
        long g = chunk + t;
        float v = warp_inclusive_scan(g < tiles ? sums[g] : 0.0f, lane);
        if (lane == 31)
            warp_totals[warp] = v;
        __syncthreads();
        if (warp == 0)
            warp_totals[lane] = warp_inclusive_scan(warp_totals[lane], lane);
        __syncthreads();
        float before = warp > 0 ? warp_totals[warp - 1] : 0.0f;
        if (g < tiles)
            sums[g] = carry + (before + v);
        carry = carry + warp_totals[SUM_THREADS / 32 - 1];
        __syncthreads(); /* every read of warp_totals before the next chunk writes them */
    }
}

/* Phase 3: each tile scanned from the sum of the tiles before it. */
__global__ void scan_tiles_from_offsets(const float *in, float *out, const float *sums, long n)
{
    __shared__ float segment_sums[SEGMENTS];
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    long base = (long)blockIdx.x * TILE;
    float v[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        long g = base + r * THREADS + t;
        v[r] = warp_inclusive_scan(g < n ? in[g] : 0.0f, lane);
        if (lane == 31)
            segment_sums[r * WARPS + warp] = v[r];
    }
    __syncthreads();
    if (warp == 0)
        scan_segment_sums(segment_sums, lane);
    __syncthreads();
    float tile_offset = blockIdx.x > 0 ? sums[blockIdx.x - 1] : 0.0f;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        long g = base + r * THREADS + t;
        unsigned segment = r * WARPS + warp;
        float before = segment > 0 ? segment_sums[segment - 1] : 0.0f;
        if (g < n)
            out[g] = tile_offset + (before + v[r]);
    }
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct scan_problem *p = (const struct scan_problem *)problem;
    long tiles = (p->n + TILE - 1) / TILE;
    if ((size_t)tiles > p->scratch_bytes / sizeof(float))
        return step_refuse_launch("the scratch buffer is too small for the tile sums");
    dim3 grid((unsigned)(tiles < 2147483647L ? tiles : 0)); /* 0: refused below */
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    float *sums = (float *)p->scratch;
    reduce_tiles<<<grid, THREADS, 0, stream>>>(p->in, sums, p->n);
    scan_tile_sums<<<1, SUM_THREADS, 0, stream>>>(sums, tiles);
    scan_tiles_from_offsets<<<grid, THREADS, 0, stream>>>(p->in, p->out, sums, p->n);
    return cudaGetLastError();
}

DEFINE_STEP(scan_tiles_from_offsets, THREADS, 0, launch);

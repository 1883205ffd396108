/* Step 05 - reduce, then scan: three phases that move 3n floats, not 4n.   *** YOUR TURN ***
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
 *
 * This file is step 04's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "scan.h"
#include "step_kernel.h"
#include "three_phase.cuh"

#define THREADS 256
#define WARPS (THREADS / 32)
#define ROWS 2
#define TILE (ROWS * THREADS)
#define SEGMENTS (ROWS * WARPS) /* 32-element runs of a tile, each scanned by one warp */
static_assert(SEGMENTS <= 32, "one warp scans the segments' totals, one per lane");

/* Inclusive scan of v across the 32 lanes of a warp: lane i gets v(0) + ... + v(i). */
__device__ __forceinline__ float warp_inclusive_scan(float v, unsigned lane)
{
    for (unsigned offset = 1; offset < 32; offset *= 2) {
        float left = __shfl_up_sync(0xffffffffu, v, offset);
        if (lane >= offset)
            v = left + v;
    }
    return v;
}

__global__ void scan_tiles_from_offsets(const float *in, float *out, float *sums, long n)
{
    __shared__ float segment_sums[SEGMENTS]; /* row r, warp w: segment r * WARPS + w */
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
    if (warp == 0) {
        float s = lane < SEGMENTS ? segment_sums[lane] : 0.0f;
        s = warp_inclusive_scan(s, lane);
        if (lane < SEGMENTS)
            segment_sums[lane] = s;
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        long g = base + r * THREADS + t;
        unsigned segment = r * WARPS + warp;
        float before = segment > 0 ? segment_sums[segment - 1] : 0.0f;
        if (g < n)
            out[g] = v[r] + before;
    }
    if (sums != NULL && t == 0)
        sums[blockIdx.x] = segment_sums[SEGMENTS - 1];
}

/* TODO (step 05). Stop using three_phase_launch; write three kernels and launch them in turn:
 *  1. reduce_tiles: each block sums its tile of TILE = 16 x 256 elements (each
 *     thread 16, then __shfl_down_sync within the warp, then the 8 warp sums) into
 *     sums[blockIdx.x]. It writes no element.
 *  2. scan_tile_sums<<<1, 1024>>>: scans sums[] in place, 1024 at a time, carrying
 *     the running total from chunk to chunk (barriers between the phases of a chunk,
 *     and before the next chunk reuses the shared totals).
 *  3. this kernel with ROWS = 16: the tile scan of step 04 (the first warp now scans
 *     128 segment totals, 4 per lane), plus sums[blockIdx.x - 1] for tiles after the
 *     first. Traffic: 3n floats instead of 4n.
 */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return three_phase_launch(scan_tiles_from_offsets, THREADS, TILE,
                              (const struct scan_problem *)problem, stream);
}

STEP_TODO("replace the three phases with reduce-then-scan over tiles of 4096: sum each tile, scan the sums in one block, scan each tile from its offset");
DEFINE_STEP(scan_tiles_from_offsets, THREADS, 0, launch);

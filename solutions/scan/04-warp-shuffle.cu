/* Step 04 - warp-shuffle scans.
 * Guide: labs/scan/README.md#step-04--warp-shuffle
 *
 * What changed from 03: the tree in shared memory goes. Each thread holds one
 *   element of each of the tile's two rows of 256 in a register; each warp scans
 *   its 32 elements of a row with five __shfl_up_sync rounds (Hillis-Steele again,
 *   but between registers: no shared memory, no barrier inside a warp). The last
 *   lane writes the warp's total to shared memory, one barrier, the first warp scans
 *   those 16 totals the same way, a second barrier, and every element adds the
 *   totals of the warps before its own. Same 512-element tiles, same three phases.
 * Why: a shuffle moves a register between the 32 lanes of a warp in one
 *   instruction; the warp's lanes run together, so the log2 32 rounds need no
 *   __syncthreads. Two barriers per tile instead of step 03's twenty, and a fifth of
 *   the shared-memory accesses.
 * Expect: 64 bytes of shared memory. SHFL instructions in the SASS (the rubric
 *   checks them). The tile scan is no longer the limit: the three phases' 4n floats
 *   are, so the step sits near 03, under half the copy bandwidth. Step 05 attacks
 *   the traffic.
 * Run:  make run LAB=scan STEP=04
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

__global__ void scan_warp_shuffle(const float *in, float *out, float *sums, long n)
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

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return three_phase_launch(scan_warp_shuffle, THREADS, TILE,
                              (const struct scan_problem *)problem, stream);
}

DEFINE_STEP(scan_warp_shuffle, THREADS, 0, launch);

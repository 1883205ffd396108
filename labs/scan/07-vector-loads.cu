/* Step 07 - vector loads and stores.   *** YOUR TURN ***
 * Guide: labs/scan/README.md#step-07--vector-loads
 *
 * What changed from 06: each thread loads a float4, four consecutive elements, per
 *   row: a row of 256 threads covers 1024 elements, and 4 rows make the same tile of
 *   4096. The thread scans its four in registers (three adds), the warp scans the
 *   threads' totals with shuffles, and each element adds the total of the lanes
 *   before its own. A warp's segment is now 128 elements, so the tile's 32 segment
 *   totals take one lane each. A tile that runs past n, or arrays not 16-byte
 *   aligned, take the same path with scalar, bounds-checked loads and stores.
 * Why: one 16-byte load instruction brings in what four 4-byte ones did: a quarter
 *   of the load and store instructions and a quarter of the shuffles per element,
 *   and more bytes in flight per instruction, which is what a memory-bound kernel
 *   needs to keep DRAM busy.
 * Expect: LDG.E.128 and STG.E.128 in the SASS; fewer registers of elements (16
 *   floats as 4 float4) but less work per element. Close to CUB.
 * Run:  make run LAB=scan STEP=07
 *
 * This file is step 06's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "scan.h"
#include "step_kernel.h"
#include "lookback.cuh"

#define THREADS 256
#define WARPS (THREADS / 32)
#define ROWS 16
#define TILE (ROWS * THREADS)
#define SEGMENTS (ROWS * WARPS)
#define PER_LANE (SEGMENTS / 32) /* segment totals per lane of the first warp */
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


/* The tiles' status words and the warp's look-back over them: harness/lookback.cuh
 * (a flag and the tile's float sum in one 64-bit word; the sort lab's one-sweep
 * passes use the same code). */

__global__ void scan_vector_loads(const float *in, float *out, unsigned long long *status,
                                        unsigned *ticket, long n)
{
    __shared__ float segment_sums[SEGMENTS];
    __shared__ long tile_s;
    __shared__ float exclusive_s;
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    if (t == 0)
        tile_s = atomicAdd(ticket, 1u);
    __syncthreads();
    long tile = tile_s, base = tile * TILE;
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
        scan_segment_sums(segment_sums, lane);
        __syncwarp(); /* lane 31 wrote the last total that every lane now reads */
        float aggregate = segment_sums[SEGMENTS - 1];
        float exclusive = 0.0f;
        if (tile == 0) {
            if (lane == 0)
                lookback_publish(&status[0], LOOKBACK_PREFIX, aggregate);
        } else {
            if (lane == 0)
                lookback_publish(&status[tile], LOOKBACK_AGGREGATE, aggregate);
            exclusive = lookback_warp<float>(status, tile, lane);
            if (lane == 0)
                lookback_publish(&status[tile], LOOKBACK_PREFIX, exclusive + aggregate);
        }
        if (lane == 0)
            exclusive_s = exclusive;
    }
    __syncthreads();
    float tile_offset = exclusive_s;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        long g = base + r * THREADS + t;
        unsigned segment = r * WARPS + warp;
        float before = segment > 0 ? segment_sums[segment - 1] : 0.0f;
        if (g < n)
            out[g] = tile_offset + (before + v[r]);
    }
}

/* The scratch: the ticket counter, then one status word per tile. */
#define STATUS_OFFSET 256

/* TODO (step 07). ROWS becomes 4 rows of float4 (the tile stays 4096 elements):
 *  1. Row r of thread t is elements base + 4 (r THREADS + t) .. + 3: one float4 load
 *     when the whole tile is inside n and both arrays are 16-byte aligned (pass a
 *     flag from the launch), else four bounds-checked scalar loads.
 *  2. Scan the four in registers (y += x, z += y, w += z), warp-scan the w's, and take
 *     the lane's exclusive offset with __shfl_up_sync(inclusive, 1).
 *  3. Segments are now 128 elements: 32 per tile, one per lane of the first warp.
 *  4. Store as you loaded: one float4, or scalars with bounds.
 */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct scan_problem *p = (const struct scan_problem *)problem;
    long tiles = (p->n + TILE - 1) / TILE;
    size_t flag_bytes = STATUS_OFFSET + (size_t)tiles * sizeof(unsigned long long);
    if (flag_bytes > p->scratch_bytes)
        return step_refuse_launch("the scratch buffer is too small for the tile flags");
    dim3 grid((unsigned)(tiles < 2147483647L ? tiles : 0)); /* 0: refused below */
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    /* every flag EMPTY and the ticket 0, in the timed launch */
    if ((status = cudaMemsetAsync(p->scratch, 0, flag_bytes, stream)) != cudaSuccess)
        return status;
    unsigned *ticket = (unsigned *)p->scratch;
    unsigned long long *flags = (unsigned long long *)((char *)p->scratch + STATUS_OFFSET);
    scan_vector_loads<<<grid, THREADS, 0, stream>>>(p->in, p->out, flags, ticket, p->n);
    return cudaGetLastError();
}

STEP_TODO("load and store float4: four consecutive elements per thread per row, scanned in registers, with a scalar path for a tile that runs past n");
DEFINE_STEP(scan_vector_loads, THREADS, 0, launch);

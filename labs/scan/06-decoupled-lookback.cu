/* Step 06 - one pass: a chained scan with decoupled look-back (Merrill and   *** YOUR TURN ***
 * Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", NVIDIA
 * technical report NVR-2016-002).
 * Guide: labs/scan/README.md#step-06--decoupled-lookback
 *
 * What changed from 05: one kernel instead of three. Each block takes the next
 *   tile number from a counter (atomicAdd), scans its 4096 elements as 05's phase 3
 *   does, and publishes the tile's sum in a status word: flag AGGREGATE and the sum,
 *   in one 64-bit store. Then its first warp looks back: lane k reads the status of
 *   tile (t - 1 - k), waits while any of the 32 is still EMPTY, and adds the values
 *   up to the nearest tile flagged PREFIX (whose value is the inclusive prefix of
 *   everything before it); if none of the 32 is, it adds all 32 aggregates and
 *   looks 32 tiles further back. The block then publishes its own PREFIX and writes
 *   its elements, offset by what the look-back found. The flags (one word per tile,
 *   and the counter) are cleared by a cudaMemsetAsync in the launch. The status word
 *   and the warp's look-back are harness/lookback.cuh (lookback_publish,
 *   lookback_warp), which the sort lab's one-sweep passes share.
 * Why: reduce-then-scan reads the input twice because a tile cannot know its offset
 *   until every tile before it is summed. Chaining tiles would serialize them; the
 *   look-back does not wait for the previous tile's prefix when an aggregate
 *   further back will do, so tiles in flight overlap. 2n floats move: the copy's
 *   own traffic. The tile numbers come from a counter, not blockIdx.x, so a tile
 *   only ever waits for tiles that started before it: no deadlock whatever order
 *   the hardware schedules blocks in.
 * Expect: the biggest jump of the lab, toward the copy bandwidth; 16 registers of
 *   elements per thread. Not deterministic in general: where the look-back stops
 *   depends on timing, so the offset of a tile is summed in a different order from
 *   run to run (exact on this lab's inputs; labs/scan/README.md, "Determinism").
 * Run:  make run LAB=scan STEP=06
 *
 * This file is step 05's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
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
__global__ void scan_decoupled_lookback(const float *in, float *out, const float *sums, long n)
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

/* TODO (step 06). Keep 05's tile scan; drop phases 1 and 2:
 *  1. The launch clears the ticket counter and one 64-bit status word per tile in the
 *     scratch (cudaMemsetAsync), then launches one kernel over all tiles.
 *  2. Thread 0 takes the tile number: atomicAdd(ticket, 1) (not blockIdx.x: a tile
 *     must only wait on tiles that already started).
 *  3. After the tile scan, the first warp publishes (flag AGGREGATE, tile sum) in one
 *     volatile 64-bit store; tile 0 publishes PREFIX at once. The status word and the
 *     look-back are in harness/lookback.cuh (#include "lookback.cuh"; the sort lab
 *     shares it): lookback_publish, lookback_warp. Read it: it is this step's lesson.
 *  4. Look back (lookback_warp): lane k reads tile t-1-k's word (volatile), spins
 *     while any is EMPTY (__any_sync), finds the nearest PREFIX (__ballot_sync,
 *     __ffs), sums the values up to it (__shfl_down_sync), and moves 32 tiles back if
 *     there was none.
 *  5. Publish (PREFIX, exclusive + aggregate); every thread adds exclusive as it writes.
 */
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
    scan_decoupled_lookback<<<grid, THREADS, 0, stream>>>(p->in, p->out, sums, p->n);
    return cudaGetLastError();
}

STEP_TODO("make it one pass: tile numbers from an atomic counter, each tile publishes its sum and then its inclusive prefix, and looks back over its predecessors' flags");
DEFINE_STEP(scan_decoupled_lookback, THREADS, 0, launch);

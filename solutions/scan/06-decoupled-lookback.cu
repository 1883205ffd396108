/* Step 06 - one pass: a chained scan with decoupled look-back (Merrill and
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

__global__ void scan_decoupled_lookback(const float *in, float *out, unsigned long long *status,
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
    scan_decoupled_lookback<<<grid, THREADS, 0, stream>>>(p->in, p->out, flags, ticket, p->n);
    return cudaGetLastError();
}

DEFINE_STEP(scan_decoupled_lookback, THREADS, 0, launch);

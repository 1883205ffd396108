/* Step 07 - vector loads and stores.
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
 */
#include "scan.h"
#include "step_kernel.h"
#include "lookback.cuh"

#include <stdint.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define ROWS 4                    /* rows of float4: 4 x 256 x 4 = 4096 elements */
#define TILE (ROWS * THREADS * 4)
#define SEGMENTS (ROWS * WARPS)   /* 128 elements each */
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

/* Row r of this thread: elements base + 4 (r THREADS + t) .. + 3, 0 past n. */
__device__ __forceinline__ float4 load_row(const float *in, long base, int r, unsigned t, long n,
                                           bool vector)
{
    long g = base + 4 * ((long)r * THREADS + t);
    if (vector)
        return reinterpret_cast<const float4 *>(in + base)[r * THREADS + t];
    float4 q;
    q.x = g < n ? in[g] : 0.0f;
    q.y = g + 1 < n ? in[g + 1] : 0.0f;
    q.z = g + 2 < n ? in[g + 2] : 0.0f;
    q.w = g + 3 < n ? in[g + 3] : 0.0f;
    return q;
}

__device__ __forceinline__ void store_row(float *out, long base, int r, unsigned t, long n,
                                          bool vector, float4 q)
{
    long g = base + 4 * ((long)r * THREADS + t);
    if (vector) {
        reinterpret_cast<float4 *>(out + base)[r * THREADS + t] = q;
        return;
    }
    if (g < n)
        out[g] = q.x;
    if (g + 1 < n)
        out[g + 1] = q.y;
    if (g + 2 < n)
        out[g + 2] = q.z;
    if (g + 3 < n)
        out[g + 3] = q.w;
}

__global__ void scan_vector_loads(const float *in, float *out, unsigned long long *status,
                                  unsigned *ticket, long n, bool aligned)
{
    __shared__ float segment_sums[SEGMENTS];
    __shared__ long tile_s;
    __shared__ float exclusive_s;
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    if (t == 0)
        tile_s = atomicAdd(ticket, 1u);
    __syncthreads();
    long tile = tile_s, base = tile * TILE;
    bool vector = aligned && base + TILE <= n; /* a whole tile of aligned float4 */
    float4 q[ROWS];
    float lane_before[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        q[r] = load_row(in, base, r, t, n, vector);
        q[r].y = q[r].x + q[r].y;
        q[r].z = q[r].y + q[r].z;
        q[r].w = q[r].z + q[r].w;
        float inclusive = warp_inclusive_scan(q[r].w, lane);
        float before = __shfl_up_sync(FULL_MASK, inclusive, 1);
        lane_before[r] = lane > 0 ? before : 0.0f;
        if (lane == 31)
            segment_sums[r * WARPS + warp] = inclusive;
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
        unsigned segment = r * WARPS + warp;
        float before = segment > 0 ? segment_sums[segment - 1] : 0.0f;
        float4 o;
        o.x = tile_offset + (before + (lane_before[r] + q[r].x));
        o.y = tile_offset + (before + (lane_before[r] + q[r].y));
        o.z = tile_offset + (before + (lane_before[r] + q[r].z));
        o.w = tile_offset + (before + (lane_before[r] + q[r].w));
        store_row(out, base, r, t, n, vector, o);
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
    bool aligned = ((uintptr_t)p->in | (uintptr_t)p->out) % sizeof(float4) == 0;
    scan_vector_loads<<<grid, THREADS, 0, stream>>>(p->in, p->out, flags, ticket, p->n, aligned);
    return cudaGetLastError();
}

DEFINE_STEP(scan_vector_loads, THREADS, 0, launch);

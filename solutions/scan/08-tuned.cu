/* Step 08 - tuned.
 * Guide: labs/scan/README.md#step-08--tuned
 *
 * What changed from 07: choices of shape and caching, not new ideas:
 *   - longer tiles: ITEMS = 8 rows of float4 per thread (32 elements, a tile of 8192)
 *     instead of 07's 4, and __launch_bounds__(THREADS, MIN_BLOCKS) with five blocks
 *     of 256 threads a SM (at most 51 registers a thread, and a few bytes spill, make
 *     report says how many: the sweep found that cheaper than shorter tiles); a thread issues all its
 *     loads before its first add, so an SM keeps 1280 x 128 bytes of loads in flight,
 *     and a pass has a third of the tiles (and of the look-backs) of a 3072 tile;
 *   - loads with __ldcs and stores with __stcs (cache-streaming: the lines are marked
 *     evict-first, so 2n floats that are touched once do not push the status words
 *     and the next tiles out of L2);
 *   - the first warp scans ITEMS x WARPS segment totals, ceil(segments / 32) a lane
 *     (lanes past the last hold zeros), so any tile shape works.
 *   The look-back is harness/lookback.cuh, as in 06 and 07. ITEMS, THREADS and
 *   MIN_BLOCKS are build variables (make run LAB=scan STEP=08 ITEMS=3 THREADS=256
 *   MIN_BLOCKS=8: 12 elements a thread and every thread the SM holds) for the
 *   student's own sweep; TILE_ORDER=0 takes tile numbers from
 *   blockIdx.x instead of the counter (CUB's choice: it relies on blocks starting in
 *   order, which CUDA does not promise). For the sweep against CUB's sm_90 tuning
 *   (128 threads of 24 items, plain loads and stores, a sleep in the look-back's
 *   spin): STREAMING_LOADS=0 and STREAMING_STORES=0 (plain ld/st), and
 *   lookback.cuh's LOOKBACK_SPIN_NS and LOOKBACK_FIRST_NS, which 08 sets to CUB's 688
 *   and 1140 ns: the look-back sleeps between reads of a tile not yet published
 *   instead of polling it, the one choice of CUB's that took 08 past it on the H200.
 * Why: a memory-bound kernel is done when DRAM is busy all the time; what is left
 *   is keeping enough bytes in flight per SM and losing no time between tiles. More,
 *   smaller tiles in flight hide a tile's look-back behind the others' loads.
 * Expect: at or near CUB's rate at 2^24 and 2^28 elements; ncu's DRAM throughput
 *   close to the copy's.
 * Run:  make run LAB=scan STEP=08    (ITEMS=4 MIN_BLOCKS=1 for 07's tile shape)
 */
#include "scan.h"
#include "step_kernel.h"
/* CUB's sm_90 waits in the look-back (lookback.cuh): measured on the H200, they took 08
 * past CUB's scan at 2^24 and 2^28 (data/sweeps/NVIDIA-H200/scan-08-lookback-2p*.csv); 0 and
 * 0 give the spin without them */
#ifndef LOOKBACK_SPIN_NS
#define LOOKBACK_SPIN_NS 688
#endif
#ifndef LOOKBACK_FIRST_NS
#define LOOKBACK_FIRST_NS 1140
#endif
#include "lookback.cuh"

#include <stdint.h>

#ifndef THREADS
#define THREADS 256
#endif
#ifndef ITEMS
#define ITEMS 8
#endif
#ifndef MIN_BLOCKS /* resident blocks per SM __launch_bounds__ asks registers for */
#define MIN_BLOCKS 5
#endif
#ifndef TILE_ORDER /* 1: the ticket counter (06's); 0: blockIdx.x */
#define TILE_ORDER 1
#endif
/* How a whole tile's float4 rows are read and written (the ragged last tile always
 * goes word by word): STREAMING_LOADS 1 __ldcs (ld.global.cs), 0 a plain load (CUB's
 * LOAD_DEFAULT); STREAMING_STORES 1 __stcs (st.global.cs), 0 a plain store. */
#ifndef STREAMING_LOADS
#define STREAMING_LOADS 1
#endif
#ifndef STREAMING_STORES
#define STREAMING_STORES 1
#endif
#define WARPS (THREADS / 32)
#define ROWS ITEMS                /* rows of float4 per thread */
#define TILE (ROWS * THREADS * 4)
#define SEGMENTS (ROWS * WARPS)   /* 128 elements each */
#define PER_LANE ((SEGMENTS + 31) / 32) /* segment totals per lane of the first warp */

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_inclusive_scan(float v, unsigned lane)
{
#pragma unroll
    for (unsigned offset = 1; offset < 32; offset *= 2) {
        float left = __shfl_up_sync(FULL_MASK, v, offset);
        if (lane >= offset)
            v = left + v;
    }
    return v;
}

/* Run by the first warp: scans the SEGMENTS totals of s in place, PER_LANE
 * consecutive ones per lane (a serial scan in registers, then the lanes' totals);
 * lanes past the last segment hold zeros. */
__device__ __forceinline__ void scan_segment_sums(float *s, unsigned lane)
{
    float local[PER_LANE];
#pragma unroll
    for (int k = 0; k < PER_LANE; ++k) {
        unsigned i = lane * PER_LANE + k;
        float v = i < SEGMENTS ? s[i] : 0.0f;
        local[k] = k > 0 ? local[k - 1] + v : v;
    }
    float inclusive = warp_inclusive_scan(local[PER_LANE - 1], lane);
    float before = __shfl_up_sync(FULL_MASK, inclusive, 1);
#pragma unroll
    for (int k = 0; k < PER_LANE; ++k) {
        unsigned i = lane * PER_LANE + k;
        if (i < SEGMENTS)
            s[i] = lane > 0 ? before + local[k] : local[k];
    }
}

/* One whole row's float4, read as STREAMING_LOADS says. */
__device__ __forceinline__ float4 load_float4(const float4 *p)
{
#if STREAMING_LOADS
    return __ldcs(p);
#else
    return *p;
#endif
}

/* Row r of this thread: elements base + 4 (r THREADS + t) .. + 3, 0 past n. */
__device__ __forceinline__ float4 load_row(const float *in, long base, int r, unsigned t, long n,
                                           bool vector)
{
    long g = base + 4 * ((long)r * THREADS + t);
    if (vector)
        return load_float4(reinterpret_cast<const float4 *>(in + base) + r * THREADS + t);
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
#if STREAMING_STORES
        __stcs(reinterpret_cast<float4 *>(out + base) + r * THREADS + t, q);
#else
        reinterpret_cast<float4 *>(out + base)[r * THREADS + t] = q;
#endif
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

__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
scan_tuned(const float *in, float *out, unsigned long long *status, unsigned *ticket, long n,
           bool aligned)
{
    __shared__ float segment_sums[SEGMENTS];
    __shared__ long tile_s;
    __shared__ float exclusive_s;
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
#if TILE_ORDER
    if (t == 0)
        tile_s = atomicAdd(ticket, 1u);
    __syncthreads();
    long tile = tile_s;
#else
    long tile = blockIdx.x;
#endif
    long base = tile * TILE;
    bool vector = aligned && base + TILE <= n; /* a whole tile of aligned float4 */
    float4 q[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
        q[r] = load_row(in, base, r, t, n, vector);
    float lane_before[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
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
    scan_tuned<<<grid, THREADS, 0, stream>>>(p->in, p->out, flags, ticket, p->n, aligned);
    return cudaGetLastError();
}

DEFINE_STEP(scan_tuned, THREADS, 0, launch);

/* Step 04 - warp-shuffle scans.   *** YOUR TURN ***
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
 *
 * This file is step 03's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "scan.h"
#include "step_kernel.h"
#include "three_phase.cuh"

#define THREADS 256
#define TILE (2 * THREADS)
/* one padding word after every 32 (the number of banks) */
#define LOG_BANKS 5
#define PAD(i) ((i) + ((i) >> LOG_BANKS))

__global__ void scan_warp_shuffle(const float *in, float *out, float *sums, long n)
{
    __shared__ float x[PAD(TILE)];
    unsigned t = threadIdx.x;
    long base = (long)blockIdx.x * TILE;
    /* two coalesced loads per thread; the thread keeps its inputs for the end */
    float a = base + t < n ? in[base + t] : 0.0f;
    float b = base + t + THREADS < n ? in[base + t + THREADS] : 0.0f;
    x[PAD(t)] = a;
    x[PAD(t + THREADS)] = b;
    /* up-sweep: after level d, x[2^(d+1) (k + 1) - 1] holds the sum of its 2^(d+1) inputs */
    unsigned offset = 1;
    for (unsigned active = TILE / 2; active > 0; active /= 2) {
        __syncthreads();
        if (t < active) {
            unsigned left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
            x[PAD(right)] += x[PAD(left)];
        }
        offset *= 2;
    }
    __syncthreads();
    float total = x[PAD(TILE - 1)];
    __syncthreads(); /* everyone has read the total before thread 0 clears it */
    if (t == 0)
        x[PAD(TILE - 1)] = 0.0f;
    /* down-sweep: each node passes its prefix to its left child, prefix + left sum
     * to its right child */
    for (unsigned active = 1; active < TILE; active *= 2) {
        offset /= 2;
        __syncthreads();
        if (t < active) {
            unsigned left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
            float left_sum = x[PAD(left)];
            x[PAD(left)] = x[PAD(right)];
            x[PAD(right)] += left_sum;
        }
    }
    __syncthreads();
    /* exclusive prefix + own input = inclusive */
    if (base + t < n)
        out[base + t] = x[PAD(t)] + a;
    if (base + t + THREADS < n)
        out[base + t + THREADS] = x[PAD(t + THREADS)] + b;
    if (sums != NULL && t == 0)
        sums[blockIdx.x] = total;
}

/* TODO (step 04). Replace the tree with shuffles (keep TILE = 512, ROWS = 2 rows of THREADS):
 *  1. A device function warp_inclusive_scan(v, lane): for offset 1, 2, 4, 8, 16,
 *     left = __shfl_up_sync(0xffffffff, v, offset); if (lane >= offset) v = left + v.
 *  2. For each row r: v[r] = warp scan of element base + r THREADS + t; lane 31
 *     writes the warp's total to segment_sums[r WARPS + warp] (shared, 16 floats).
 *  3. __syncthreads(); warp 0 scans the 16 totals with the same function; barrier.
 *  4. out = v[r] + segment_sums[segment - 1] (0 for segment 0); sums[] gets the
 *     last total.
 */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return three_phase_launch(scan_warp_shuffle, THREADS, TILE,
                              (const struct scan_problem *)problem, stream);
}

STEP_TODO("scan each warp's 32 elements with __shfl_up_sync, with only the warps' totals in shared memory");
DEFINE_STEP(scan_warp_shuffle, THREADS, 0, launch);

/* Step 02 - work-efficient scan: up-sweep and down-sweep (Blelloch 1990).
 * Guide: labs/scan/README.md#step-02--blelloch
 *
 * What changed from 01: each block of 256 threads scans 512 elements, two per
 *   thread, with a balanced tree: the up-sweep sums pairs, then pairs of pairs, up
 *   to the tile's total (log2 512 = 9 levels); the down-sweep walks back down,
 *   handing each left child its parent's prefix and each right child that prefix
 *   plus the left child's sum, which leaves the exclusive scan in place. Adding each
 *   thread's own inputs makes it inclusive. The three phases stay as they were.
 * Why: Hillis-Steele does n log2 n additions, the tree 2n: work-efficient, as the
 *   serial loop is. Each thread also handles two elements, so a block covers twice
 *   the tile and the sums of phase 2 are half as many.
 * Expect: 2 KB of shared memory. The tree's strided indices (2^d (2t + 1) - 1) put
 *   many threads of a warp on the same shared-memory bank at the deep levels: look
 *   at l1tex shared bank conflicts in ncu. Faster than 01, still bound by the 4n
 *   floats the three phases move.
 * Run:  make run LAB=scan STEP=02
 */
#include "scan.h"
#include "step_kernel.h"
#include "three_phase.cuh"

#define THREADS 256
#define TILE (2 * THREADS)

__global__ void scan_blelloch(const float *in, float *out, float *sums, long n)
{
    __shared__ float x[TILE];
    unsigned t = threadIdx.x;
    long base = (long)blockIdx.x * TILE;
    /* two coalesced loads per thread; the thread keeps its inputs for the end */
    float a = base + t < n ? in[base + t] : 0.0f;
    float b = base + t + THREADS < n ? in[base + t + THREADS] : 0.0f;
    x[t] = a;
    x[t + THREADS] = b;
    /* up-sweep: after level d, x[2^(d+1) (k + 1) - 1] holds the sum of its 2^(d+1) inputs */
    unsigned offset = 1;
    for (unsigned active = TILE / 2; active > 0; active /= 2) {
        __syncthreads();
        if (t < active) {
            unsigned left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
            x[right] += x[left];
        }
        offset *= 2;
    }
    __syncthreads();
    float total = x[TILE - 1];
    __syncthreads(); /* everyone has read the total before thread 0 clears it */
    if (t == 0)
        x[TILE - 1] = 0.0f;
    /* down-sweep: each node passes its prefix to its left child, prefix + left sum
     * to its right child */
    for (unsigned active = 1; active < TILE; active *= 2) {
        offset /= 2;
        __syncthreads();
        if (t < active) {
            unsigned left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
            float left_sum = x[left];
            x[left] = x[right];
            x[right] += left_sum;
        }
    }
    __syncthreads();
    /* exclusive prefix + own input = inclusive */
    if (base + t < n)
        out[base + t] = x[t] + a;
    if (base + t + THREADS < n)
        out[base + t + THREADS] = x[t + THREADS] + b;
    if (sums != NULL && t == 0)
        sums[blockIdx.x] = total;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return three_phase_launch(scan_blelloch, THREADS, TILE, (const struct scan_problem *)problem,
                              stream);
}

DEFINE_STEP(scan_blelloch, THREADS, 0, launch);

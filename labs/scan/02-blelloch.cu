/* Step 02 - work-efficient scan: up-sweep and down-sweep (Blelloch 1990).   *** YOUR TURN ***
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
 *
 * This file is step 01's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "scan.h"
#include "step_kernel.h"
#include "three_phase.cuh"

#define THREADS 256
#define TILE THREADS /* one element per thread */

__global__ void scan_blelloch(const float *in, float *out, float *sums, long n)
{
    __shared__ float x[TILE];
    unsigned i = threadIdx.x;
    long g = (long)blockIdx.x * TILE + i;
    x[i] = g < n ? in[g] : 0.0f; /* past the end: 0, which changes no sum */
    __syncthreads();
    for (unsigned offset = 1; offset < TILE; offset *= 2) {
        float t = 0.0f;
        if (i >= offset)
            t = x[i - offset];
        __syncthreads(); /* every read of this round before any write */
        if (i >= offset)
            x[i] = t + x[i];
        __syncthreads(); /* every write before the next round's reads */
    }
    if (g < n)
        out[g] = x[i];
    if (sums != NULL && i == TILE - 1)
        sums[blockIdx.x] = x[i];
}

/* TODO (step 02). Scan TILE = 2 x THREADS elements per block with a balanced tree:
 *  1. Each thread loads elements base + t and base + t + THREADS (0 past n) into
 *     registers a and b and into x[] (__shared__ float x[TILE]).
 *  2. Up-sweep: offset = 1; for active = TILE/2 down to 1 (halving): barrier, then
 *     threads t < active add x[offset (2t+1) - 1] into x[offset (2t+2) - 1]; double offset.
 *  3. Keep the tile's total x[TILE-1] (for sums[]), barrier, thread 0 sets it to 0.
 *  4. Down-sweep: for active = 1 up to TILE/2 (doubling): halve offset, barrier,
 *     threads t < active swap-and-add: left gets right's value, right gets
 *     right + left's old value. x[] now holds the exclusive scan.
 *  5. out = x[i] + own input (a or b): inclusive. Write the total to sums[blockIdx.x].
 * Change TILE to 2 * THREADS; three_phase_launch takes care of the rest.
 */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return three_phase_launch(scan_blelloch, THREADS, TILE,
                              (const struct scan_problem *)problem, stream);
}

STEP_TODO("replace the Hillis-Steele rounds with Blelloch's up-sweep and down-sweep over 512 elements per block of 256 threads");
DEFINE_STEP(scan_blelloch, THREADS, 0, launch);

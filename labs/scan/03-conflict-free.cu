/* Step 03 - bank-conflict-free shared-memory indices.   *** YOUR TURN ***
 * Guide: labs/scan/README.md#step-03--conflict-free
 *
 * What changed from 02: every shared-memory index i becomes PAD(i) = i + i / 32:
 *   one unused word after every 32, so the tile takes 512 + 16 words.
 * Why: shared memory has 32 banks of 4-byte words; word i is in bank i % 32. The
 *   tree's indices are offset * (2t + 1) - 1: at offset 32 every thread of a warp
 *   asks for a word 64 apart, all in one bank, and the 32 requests are served one
 *   after the other (a 32-way conflict). With the padding, word i moves i / 32
 *   places, so words 32 apart land on different banks (Harris, Sengupta and Owens,
 *   GPU Gems 3, chapter 39).
 * Expect: 2112 bytes of shared memory; ncu's shared-memory bank conflicts fall to
 *   near zero. The kernel gets faster, the step only a little: its time is mostly
 *   the three phases' 4n floats of DRAM traffic, which padding does not change.
 * Run:  make run LAB=scan STEP=03
 *
 * This file is step 02's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "scan.h"
#include "step_kernel.h"
#include "three_phase.cuh"

#define THREADS 256
#define TILE (2 * THREADS)

__global__ void scan_conflict_free(const float *in, float *out, float *sums, long n)
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

/* TODO (step 03). Define LOG_BANKS 5 and PAD(i) ((i) + ((i) >> LOG_BANKS)), size the tile array
 * x[PAD(TILE)], and write x[PAD(i)] wherever the kernel wrote x[i]. Nothing else
 * changes. Compare ncu's shared-memory bank conflicts before and after.
 */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return three_phase_launch(scan_conflict_free, THREADS, TILE, (const struct scan_problem *)problem,
                              stream);
}

STEP_TODO("pad every shared-memory index, PAD(i) = i + i / 32, so the tree's strided accesses hit distinct banks");
DEFINE_STEP(scan_conflict_free, THREADS, 0, launch);

/* Step 01 - Hillis-Steele scan in shared memory (Nickolls and Kirk's figure B.8.7).
 * Guide: labs/scan/README.md#step-01--hillis-steele
 *
 * What: each block of 256 threads scans a tile of 256 elements, one per thread:
 *   log2(256) = 8 rounds, in round r every thread i >= 2^r adds the value 2^r
 *   places to its left (read, barrier, write, barrier: figure B.8.7 as it is). The
 *   tiles are joined by the three-phase structure of harness/labs/scan/three_phase.cuh
 *   (scan the tiles, scan their sums the same way, add them back), so any n works.
 * Why: it is the textbook's parallel scan: n log n additions instead of the serial
 *   loop's n, but every round is parallel. It is the baseline for the block scans
 *   of steps 02-04, which keep the same three phases.
 * Expect: 1 KB of shared memory, few registers, 8 blocks of 256 threads per SM
 *   (threads). 16 barriers per tile and 4n floats of traffic (three_phase.cuh): well
 *   under half the copy bandwidth, yet many times the CPU row.
 * Run:  make run LAB=scan STEP=01    (RUN_ARGS="--n 1000" for an awkward size)
 */
#include "scan.h"
#include "step_kernel.h"
#include "three_phase.cuh"

#define THREADS 256
#define TILE THREADS /* one element per thread */

__global__ void scan_hillis_steele(const float *in, float *out, float *sums, long n)
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

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return three_phase_launch(scan_hillis_steele, THREADS, TILE,
                              (const struct scan_problem *)problem, stream);
}

DEFINE_STEP(scan_hillis_steele, THREADS, 0, launch);

/* Step 15 - several threads per body for small n.   *** YOUR TURN ***
 * Guide: labs/nbody/README.md#step-15--threads-per-body
 *
 * What changed from 14: PARTS threads (a power of two up to 32, chosen at launch so that the grid
 * fills the GPU about twice) share one body: each takes every PARTS-th body of a
 * tile, and the partial sums are added with warp shuffles.
 * Why: with one thread per body, 4096 bodies are 16 blocks: 16 of 132 SMs busy.
 * Appendix B.8 (8800 GTX): 90 -> 190 GFLOP/s at n = 1024 with 4 threads per body.
 * Expect: a large gain over step 13 at n = 1024 to 16384, shrinking as n grows and
 *   the GPU fills by itself (labs/nbody/README.md, "The small-n experiment", has the H100 runs).
 *   PARTS reaches 1 only above about 540000 bodies (8 at 131072).
 *   Default size 4096.
 * Run:  make run LAB=nbody STEP=15    (default 4096 bodies; RUN_ARGS="--n 1000" for an awkward size)
 *
 * This file is step 14's solution: it runs and passes as it is. Make the change
 * marked TODO; labs/nbody/README.md has the rest.
 */
#include "nbody.h"
#include "step_kernel.h"

#ifndef THREADS
#define THREADS 256 /* threads per block, and bodies per shared-memory tile */
#endif
#ifndef BODIES
#define BODIES 4    /* bodies per thread */
#endif
#ifndef UNROLL
#define UNROLL 16   /* of the loop over a tile */
#endif
constexpr int unroll_factor = UNROLL;

/* Everything that stays the same for a whole run, in constant memory: every thread
 * of a warp reads the same word, which the constant cache broadcasts. */
__constant__ struct nbody_problem c;

/* Copies the parameters into constant memory, ordered on the stream before the
 * kernels that read them. */
static cudaError_t set_parameters(const struct nbody_problem *p, cudaStream_t stream)
{
    return cudaMemcpyToSymbolAsync(c, p, sizeof *p, 0, cudaMemcpyHostToDevice, stream);
}

__global__ void __launch_bounds__(THREADS) force_blocked(void)
{
    __shared__ float4 tile[THREADS];
    const int n = c.n;
    const float epssq = c.epssq;
    /* this thread's bodies: THREADS apart, so each load of them is coalesced */
    const long first = (long)blockIdx.x * (THREADS * BODIES) + threadIdx.x;
    float px[BODIES], py[BODIES], pz[BODIES], ax[BODIES], ay[BODIES], az[BODIES];
    #pragma unroll
    for (int b = 0; b < BODIES; ++b) {
        long i = first + (long)b * THREADS;
        float4 me = i < n ? c.posm[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        px[b] = me.x, py[b] = me.y, pz[b] = me.z;
        ax[b] = ay[b] = az[b] = 0.0f;
    }
    for (int j1 = 0; j1 < n; j1 += THREADS) {
        int idx = j1 + threadIdx.x;
        tile[threadIdx.x] = idx < n ? c.posm[idx] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        #pragma unroll unroll_factor
        for (int j2 = 0; j2 < THREADS; ++j2) {
            float4 q = tile[j2]; /* loaded once, used for BODIES interactions */
            #pragma unroll
            for (int b = 0; b < BODIES; ++b) { /* TODO (step 15): let PARTS threads share a body: body i = blockIdx.x * (THREADS / PARTS) +
     * threadIdx.x / PARTS, j2 from part = threadIdx.x % PARTS in steps of PARTS, then
     * add the partial sums with __shfl_xor_sync(mask, v, offset, PARTS). */
                float dx = q.x - px[b];
                float dy = q.y - py[b];
                float dz = q.z - pz[b];
                float dsq = dx * dx + (dy * dy + (dz * dz + epssq));
                float dinv = rsqrtf(dsq);
                float scale = q.w * dinv * dinv * dinv;
                ax[b] += dx * scale;
                ay[b] += dy * scale;
                az[b] += dz * scale;
            }
        }
        __syncthreads();
    }
    #pragma unroll
    for (int b = 0; b < BODIES; ++b) {
        long i = first + (long)b * THREADS;
        if (i < n) {
            c.accx[i] = ax[b];
            c.accy[i] = ay[b];
            c.accz[i] = az[b];
        }
    }
}

static cudaError_t forces(const struct nbody_problem *p, cudaStream_t stream)
{
    unsigned blocks;
    cudaError_t status = nbody_blocks(p->n, THREADS * BODIES, &blocks);
    if (status == cudaSuccess)
        status = set_parameters(p, stream);
    if (status != cudaSuccess)
        return status;
    force_blocked<<<blocks, THREADS, 0, stream>>>();
    return cudaGetLastError();
}

/* v += a kick, x += v drift, one thread per body; positions live in posm */
__global__ void advance_float4(float kick, float drift)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < c.n) {
        float vx = c.velx[i] + c.accx[i] * kick;
        float vy = c.vely[i] + c.accy[i] * kick;
        float vz = c.velz[i] + c.accz[i] * kick;
        c.velx[i] = vx, c.vely[i] = vy, c.velz[i] = vz;
        float4 p = c.posm[i];
        p.x += vx * drift, p.y += vy * drift, p.z += vz * drift;
        c.posm[i] = p;
    }
}

static cudaError_t advance(const struct nbody_problem *p, float kick, float drift, cudaStream_t stream)
{
    unsigned blocks;
    cudaError_t status = nbody_blocks(p->n, 256, &blocks);
    if (status == cudaSuccess)
        status = set_parameters(p, stream);
    if (status != cudaSuccess)
        return status;
    advance_float4<<<blocks, 256, 0, stream>>>(kick, drift);
    return cudaGetLastError();
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return nbody_leapfrog((const struct nbody_problem *)problem, stream, forces, advance);
}

STEP_TODO("several threads per body for small n (partial sums added with shuffles)");
DEFINE_STEP(force_blocked, THREADS, 0, launch);

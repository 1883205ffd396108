/* Step 02 - one thread per body.   *** YOUR TURN ***
 * Guide: labs/nbody/README.md#step-02--thread-per-body
 *
 * What changed from 01: the outer loop over i becomes the grid: thread i computes body i's
 * acceleration, 256 threads per block, (n + 255) / 256 blocks; the advance kernel
 * likewise. Threads past the last body do nothing.
 * Why: the n force computations are independent, and the GPU needs tens of
 * thousands of threads to fill its SMs (an H100 holds 2048 per SM, 270336 in all).
 * Expect: few registers, 8 blocks per SM (limited by threads). Burtscher: 7781x, 6495x,
 *   12150x over one thread. Compare at the same size: --n 2048.
 * Run:  make run LAB=nbody STEP=02    (default 131072 bodies; RUN_ARGS="--n 1000" for an awkward size)
 *
 * This file is step 01's solution: it runs and passes as it is. Make the change
 * marked TODO; labs/nbody/README.md has the rest.
 */
#include "nbody.h"
#include "step_kernel.h"

/* Burtscher's force loop as the CPU runs it, unchanged, in one GPU thread. */
__global__ void force_one_thread(int n, float epssq, struct nbody_body *body)
{
    for (int i = 0; i < n; ++i) {
        float px = body[i].posx, py = body[i].posy, pz = body[i].posz;
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < n; ++j) {
            if (i != j) {
                float dx = body[j].posx - px;
                float dy = body[j].posy - py;
                float dz = body[j].posz - pz;
                float dsq = dx * dx + dy * dy + dz * dz;
                float dinv = 1.0f / sqrtf(dsq + epssq); /* TODO (step 02): replace the loop over i by one thread per body: i = blockIdx.x * blockDim.x +
     * threadIdx.x, do the work only if (i < n); launch (n + 255) / 256 blocks of 256
     * threads for both kernels (nbody_blocks computes the count and refuses too many). */
                float scale = body[j].mass * dinv * dinv * dinv;
                ax += dx * scale;
                ay += dy * scale;
                az += dz * scale;
            }
        }
        body[i].accx = ax;
        body[i].accy = ay;
        body[i].accz = az;
    }
}

static cudaError_t forces(const struct nbody_problem *p, cudaStream_t stream)
{
    force_one_thread<<<1, 1, 0, stream>>>(p->n, p->epssq, p->body);
    return cudaGetLastError();
}

/* v += a kick, x += v drift for every body, by the one thread */
__global__ void advance_one_thread(int n, float kick, float drift, struct nbody_body *body)
{
    for (int i = 0; i < n; ++i) {
        body[i].velx += body[i].accx * kick;
        body[i].vely += body[i].accy * kick;
        body[i].velz += body[i].accz * kick;
        body[i].posx += body[i].velx * drift;
        body[i].posy += body[i].vely * drift;
        body[i].posz += body[i].velz * drift;
    }
}

static cudaError_t advance(const struct nbody_problem *p, float kick, float drift, cudaStream_t stream)
{
    advance_one_thread<<<1, 1, 0, stream>>>(p->n, kick, drift, p->body);
    return cudaGetLastError();
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return nbody_leapfrog((const struct nbody_problem *)problem, stream, forces, advance);
}

STEP_TODO("one thread per body, 256 per block, for the force and the advance kernels");
DEFINE_STEP(force_one_thread, 1, 0, launch);

/* Step 03 - structure of arrays.   *** YOUR TURN ***
 * Guide: labs/nbody/README.md#step-03--soa
 *
 * What changed from 02: the bodies are no longer an array of struct Body (40 bytes each) but ten
 * float arrays: mass[], posx[], ... accz[]. Kernels take the arrays they need.
 * Why: a warp reading body[j].posx touches 32 words 40 bytes apart: ten times the
 * memory traffic it needs. With scalar arrays, a warp's loads of posx[i] are one
 * coalesced 128-byte transaction. In the inner loop every thread reads the same
 * body j, so there the layout hardly matters.
 * Expect: the same registers and blocks. Burtscher: 0.83 / 0.96 / 0.82 (slower!): with all
 *   threads reading the same j, the struct's fields share a cache line and AoS was
 *   better for the loads that dominate.
 * Run:  make run LAB=nbody STEP=03    (default 131072 bodies; RUN_ARGS="--n 1000" for an awkward size)
 *
 * This file is step 02's solution: it runs and passes as it is. Make the change
 * marked TODO; labs/nbody/README.md has the rest.
 */
#include "nbody.h"
#include "step_kernel.h"

#define THREADS 256

/* One thread per body: the outer loop of step 01 becomes the grid. */
__global__ void force_aos(int n, float epssq, struct nbody_body *body)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float px = body[i].posx, py = body[i].posy, pz = body[i].posz;
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < n; ++j) {
            if (i != j) {
                float dx = body[j].posx - px; /* TODO (step 03): move from body[] to the scalar arrays p->mass, p->posx, ... p->accz: change both
     * kernels' parameters and every body[k].field into field[k]. */
                float dy = body[j].posy - py;
                float dz = body[j].posz - pz;
                float dsq = dx * dx + dy * dy + dz * dz;
                float dinv = 1.0f / sqrtf(dsq + epssq);
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
    unsigned blocks;
    cudaError_t status = nbody_blocks(p->n, THREADS, &blocks);
    if (status != cudaSuccess)
        return status;
    force_aos<<<blocks, THREADS, 0, stream>>>(p->n, p->epssq, p->body);
    return cudaGetLastError();
}

/* v += a kick, x += v drift, one thread per body */
__global__ void advance_aos(int n, float kick, float drift, struct nbody_body *body)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
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
    unsigned blocks;
    cudaError_t status = nbody_blocks(p->n, THREADS, &blocks);
    if (status != cudaSuccess)
        return status;
    advance_aos<<<blocks, THREADS, 0, stream>>>(p->n, kick, drift, p->body);
    return cudaGetLastError();
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return nbody_leapfrog((const struct nbody_problem *)problem, stream, forces, advance);
}

STEP_TODO("structure of arrays: mass[k], posx[k], ... instead of body[k].mass, ...");
DEFINE_STEP(force_aos, THREADS, 0, launch);

/* Step 02 - one thread per body.
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
                float dx = body[j].posx - px;
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

DEFINE_STEP(force_aos, THREADS, 0, launch);

/* Step 03 - structure of arrays.
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
 */
#include "nbody.h"
#include "step_kernel.h"

#define THREADS 256

/* Structure of arrays: neighbouring threads read neighbouring words. */
__global__ void force_soa(int n, float epssq, const float *mass, const float *posx,
                          const float *posy, const float *posz, float *accx, float *accy,
                          float *accz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float px = posx[i], py = posy[i], pz = posz[i];
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < n; ++j) {
            if (i != j) {
                float dx = posx[j] - px;
                float dy = posy[j] - py;
                float dz = posz[j] - pz;
                float dsq = dx * dx + dy * dy + dz * dz;
                float dinv = 1.0f / sqrtf(dsq + epssq);
                float scale = mass[j] * dinv * dinv * dinv;
                ax += dx * scale;
                ay += dy * scale;
                az += dz * scale;
            }
        }
        accx[i] = ax;
        accy[i] = ay;
        accz[i] = az;
    }
}

static cudaError_t forces(const struct nbody_problem *p, cudaStream_t stream)
{
    unsigned blocks;
    cudaError_t status = nbody_blocks(p->n, THREADS, &blocks);
    if (status != cudaSuccess)
        return status;
    force_soa<<<blocks, THREADS, 0, stream>>>(p->n, p->epssq, p->mass, p->posx, p->posy, p->posz, p->accx,
                                              p->accy, p->accz);
    return cudaGetLastError();
}

/* v += a kick, x += v drift, one thread per body */
__global__ void advance_soa(int n, float kick, float drift, float *posx, float *posy, float *posz,
                            float *velx, float *vely, float *velz, const float *accx,
                            const float *accy, const float *accz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        velx[i] += accx[i] * kick;
        vely[i] += accy[i] * kick;
        velz[i] += accz[i] * kick;
        posx[i] += velx[i] * drift;
        posy[i] += vely[i] * drift;
        posz[i] += velz[i] * drift;
    }
}

static cudaError_t advance(const struct nbody_problem *p, float kick, float drift, cudaStream_t stream)
{
    unsigned blocks;
    cudaError_t status = nbody_blocks(p->n, THREADS, &blocks);
    if (status != cudaSuccess)
        return status;
    advance_soa<<<blocks, THREADS, 0, stream>>>(p->n, kick, drift, p->posx, p->posy, p->posz,
                                                p->velx, p->vely, p->velz, p->accx, p->accy, p->accz);
    return cudaGetLastError();
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return nbody_leapfrog((const struct nbody_problem *)problem, stream, forces, advance);
}

DEFINE_STEP(force_soa, THREADS, 0, launch);

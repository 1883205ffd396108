/* Step 01 - one GPU thread.   *** YOUR TURN ***
 * Guide: labs/nbody/README.md#step-01--one-thread
 *
 * What changed: nothing yet: this is the serial C code (Burtscher's force loop over an array of
 * struct Body) moved to the GPU as it is, and run by a single thread.
 * Why: the starting point of the sequence. One thread uses one lane of one of the
 * H100's 132 SMs: the slowest way to run this code, slower than the CPU.
 * Expect: 1 thread, 1 block per SM used of 132. Burtscher measured 1/72 (CC 1.3), 1/37
 *   (CC 2.0) and 1/68 (CC 3.0) of one CPU core. Default size 2048 bodies: at 131072
 *   this step would run for minutes.
 * Run:  make run LAB=nbody STEP=01    (default 2048 bodies; RUN_ARGS="--n 1000" for an awkward size)
 *
 * This file is step 01's solution: it runs and passes as it is. Make the change
 * marked TODO; labs/nbody/README.md has the rest.
 */
#include "nbody.h"
#include "step_kernel.h"

/* TODO (step 01): nothing to change: run it and note its time; every later step is measured against it. */
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

STEP_TODO("none: the baseline; read it and run it");
DEFINE_STEP(force_one_thread, 1, 0, launch);

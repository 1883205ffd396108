/* What every N-body step receives. The step computes, for every body i,
 *     a_i = sum over j of m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2)   (G = 1)
 * and, when steps > 0, integrates: leapfrog, kick-drift-kick, with step dt.
 * Units and softening: physics.h.
 *
 * The same bodies are held in every layout a step may want; a step uses one:
 *  - array of structures (steps 01-02): body[i], Burtscher's struct Body;
 *  - structure of arrays (steps 03-12): mass[i], posx[i], ... accx[i];
 *  - packed (steps 13-15): posm[i] = (x, y, z, mass) as one float4, velocities and
 *    accelerations in the arrays above.
 * The step table says which layout each step writes (STEP_PARAMS in lab.def). */
#ifndef LAB_NBODY_H
#define LAB_NBODY_H

#include <cuda_runtime_api.h> /* cudaError_t, cudaStream_t, float4 */

#ifdef __cplusplus
extern "C" {
#endif

struct nbody_body { /* Burtscher's struct Body */
    float mass, posx, posy, posz;
    float velx, vely, velz;
    float accx, accy, accz;
};

struct nbody_problem {
    int n;       /* bodies, from 1 */
    float epssq; /* softening squared */
    float dt;    /* leapfrog time step */
    int steps;   /* 0: accelerations only (what is timed); > 0: that many leapfrog steps */
    struct nbody_body *body;
    float *mass, *posx, *posy, *posz, *velx, *vely, *velz, *accx, *accy, *accz;
    float4 *posm;
};

/* One launch of a force kernel or an advance kernel (v += a kick; x += v drift). */
typedef cudaError_t (*nbody_forces_fn)(const struct nbody_problem *p, cudaStream_t stream);
typedef cudaError_t (*nbody_advance_fn)(const struct nbody_problem *p, float kick, float drift,
                                        cudaStream_t stream);

/* What every step's launch function does with its two kernels: the accelerations,
 * then p->steps leapfrog steps. Kick-drift-kick, with the closing half kick of one
 * step merged with the opening half kick of the next:
 *   a = a(x); v += a dt/2, x += v dt; [a = a(x); v += a dt, x += v dt] ...; a = a(x); v += a dt/2 */
static inline cudaError_t nbody_leapfrog(const struct nbody_problem *p, cudaStream_t stream,
                                         nbody_forces_fn forces, nbody_advance_fn advance)
{
    cudaError_t status = forces(p, stream);
    for (int step = 0; status == cudaSuccess && step < p->steps; ++step) {
        status = advance(p, step == 0 ? 0.5f * p->dt : p->dt, p->dt, stream);
        if (status == cudaSuccess)
            status = forces(p, stream);
    }
    if (status == cudaSuccess && p->steps > 0)
        status = advance(p, 0.5f * p->dt, 0.0f, stream);
    return status;
}

/* Blocks for n items at per_block items per block, refused beyond the grid's x limit. */
static inline cudaError_t nbody_blocks(long n, long per_block, unsigned *blocks)
{
    long count = (n + per_block - 1) / per_block;
    if (count < 1)
        count = 1;
    if (count > 2147483647L)
        return cudaErrorInvalidConfiguration;
    *blocks = (unsigned)count;
    return cudaSuccess;
}

#ifdef __cplusplus
}
#endif
#endif

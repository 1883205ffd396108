/* The N-body lab's CPU rows (cpu_forces.h): the serial force loop step 01 starts
 * from, the same loop with OpenMP, and the leapfrog around them. */
#include "cpu_forces.h"

#include <math.h>
#include <omp.h>

/* Burtscher's inner loop for body i, as step 01 runs it in one GPU thread:
 * float throughout, IEEE 1.0f / sqrtf, the self term skipped by the test. */
static inline void accelerate(int i, int n, float epssq, struct nbody_body *body)
{
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

void nbody_cpu_forces_serial(int n, float epssq, struct nbody_body *body)
{
    for (int i = 0; i < n; ++i)
        accelerate(i, n, epssq, body);
}

/* Every body costs the same n - 1 interactions, so equal static shares balance. A
 * thread writes only its own bodies' accelerations and reads only positions and
 * masses, which nobody writes during the loop. */
void nbody_cpu_forces_openmp(int n, float epssq, struct nbody_body *body)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i)
        accelerate(i, n, epssq, body);
}

int nbody_cpu_openmp_threads(void)
{
    return omp_get_max_threads();
}

/* v += a kick, x += v drift for every body: the steps' advance kernel on the CPU. */
static void advance(int n, float kick, float drift, struct nbody_body *body)
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

void nbody_cpu_leapfrog(int n, float epssq, float dt, int steps, struct nbody_body *body,
                        nbody_cpu_forces_fn forces)
{
    /* the same sequence as nbody_leapfrog (nbody.h): the closing half kick of one
     * step merged with the opening half kick of the next */
    forces(n, epssq, body);
    for (int step = 0; step < steps; ++step) {
        advance(n, step == 0 ? 0.5f * dt : dt, dt, body);
        forces(n, epssq, body);
    }
    if (steps > 0)
        advance(n, 0.5f * dt, 0.0f, body);
}

/* The CPU rows of the N-body lab: the serial C code the lab starts from, and the
 * same loop over all CPU cores with OpenMP. Pure C11 on the host, no CUDA call:
 * the unit tests (tests/test_nbody_cpu.c) run exactly the code the rows time.
 *
 * The loop is Burtscher's force loop over an array of struct Body, the code step 01
 * moves to the GPU unchanged: for every body i, the softened pull of every other
 * body j, in single precision with the IEEE 1.0f / sqrtf (tolerance factor 8, as
 * steps 01-04). The OpenMP version is that loop with one pragma: each body's
 * acceleration depends on the positions alone, so the bodies split among the
 * threads with no synchronisation, and every thread adds the same terms in the same
 * order as the serial loop does: both give the same bits.
 *
 * cpu_forces.c is compiled with -fopenmp and every binary that links it with
 * -lgomp (harness/labs/nbody/lab.mk); libgomp ships with gcc. */
#ifndef LAB_NBODY_CPU_FORCES_H
#define LAB_NBODY_CPU_FORCES_H

#include "nbody.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Computes body[i].acc{x,y,z} for every i < n from the positions and masses. */
typedef void (*nbody_cpu_forces_fn)(int n, float epssq, struct nbody_body *body);

/* The serial loop, on the calling thread. */
void nbody_cpu_forces_serial(int n, float epssq, struct nbody_body *body);
/* The same loop, its bodies shared among OpenMP's threads (OMP_NUM_THREADS, by
 * default one per CPU the process may run on). */
void nbody_cpu_forces_openmp(int n, float epssq, struct nbody_body *body);
/* How many threads nbody_cpu_forces_openmp will use: omp_get_max_threads(). */
int nbody_cpu_openmp_threads(void);

/* What a step's launch does, on the CPU: the accelerations, then `steps` leapfrog
 * steps of dt (kick-drift-kick, in the order of nbody_leapfrog in nbody.h), each
 * advance in float as the steps' advance kernels do it. */
void nbody_cpu_leapfrog(int n, float epssq, float dt, int steps, struct nbody_body *body,
                        nbody_cpu_forces_fn forces);

#ifdef __cplusplus
}
#endif
#endif

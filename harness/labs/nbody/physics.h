/* The N-body lab's CPU side: bodies, initial conditions, the double-precision
 * reference for accelerations, energy and momentum, a leapfrog integrator, the
 * tolerance and the size rules. Pure C11, no CUDA: unit-tested without a GPU.
 *
 * Units (N-body or Henon units): G = 1, total mass M = 1, and the Plummer cluster is
 * scaled so that its virial radius is 1 and its total energy is -1/4 (Plummer scale
 * radius a = 3 pi / 16). The crossing time is then 2 sqrt(2), about 2.83 time units.
 *
 * Gravity is softened (Plummer softening): body j pulls body i with
 *     a_i += m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2)
 * and the pair's potential energy is -m_i m_j / sqrt(|x_j - x_i|^2 + eps^2).
 * eps keeps close encounters finite, and it makes the self term (j = i) exactly
 * zero instead of 0/0, which is what lets the kernels drop `if (i != j)`.
 * The lab uses eps = 0.05 (eps^2 = 0.0025), as Burtscher's codes do. */
#ifndef LAB_NBODY_PHYSICS_H
#define LAB_NBODY_PHYSICS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NBODY_EPS 0.05
#define NBODY_EPSSQ 0.0025f
#define NBODY_DEFAULT_N 131072   /* the size of the speed target (Burtscher: 100k) */
#define NBODY_MAX_N 2147483647L  /* an int; device memory decides long before */
#define NBODY_FLOPS_PER_INTERACTION 20.0 /* the seeds' count (REFERENCES.md) */

/* The physics check: this many bodies (a Plummer cluster with the run's seed; 1000
 * is a multiple of no block size or tile), this many leapfrog steps of NBODY_DT,
 * and the bounds the drifts must stay within. */
#define NBODY_PHYSICS_N 1000
/* ...and for a step so slow that its default is a few thousand bodies (one GPU
 * thread: 100 steps of 1000 bodies would take 12 s there), 257 bodies: the CPU
 * leapfrog drifts 9e-6 in energy on 256, still a tenth of the bound. */
#define NBODY_PHYSICS_N_SLOW 257
#define NBODY_SLOW_DEFAULT_N 8192
#define NBODY_PHYSICS_STEPS 100
#define NBODY_DT 0.0078125f       /* 1/128: exact in float; 100 steps = 0.78 time units */
#define NBODY_ENERGY_BOUND 1e-4   /* |E(t) - E(0)| / |E(0)| */
#define NBODY_MOMENTUM_BOUND 1e-4 /* |P(t) - P(0)| / sum m|v| */

/* Bodies in single precision, structure of arrays (the layout the kernels use). */
struct nbody_system {
    long n;
    float *mass, *x, *y, *z, *vx, *vy, *vz;
};

/* Allocates (zeroed) and frees; nbody_alloc returns 0 when out of memory. */
int nbody_alloc(struct nbody_system *s, long n);
void nbody_free(struct nbody_system *s);
int nbody_copy(struct nbody_system *to, const struct nbody_system *from);

/* A Plummer star cluster of n equal-mass bodies (Aarseth, Henon & Wielen 1974),
 * in the units above, moved to its centre-of-mass frame. The same seed gives the
 * same cluster on every machine. Bodies are cut at 38.7 scale radii (0.1% of the
 * mass drawn again), as the usual generators do. */
void nbody_plummer(struct nbody_system *s, uint64_t seed);
/* n equal-mass bodies uniform in the cube [-1, 1)^3 with velocities uniform in
 * [-0.1, 0.1)^3: quick tests. */
void nbody_uniform_cube(struct nbody_system *s, uint64_t seed);

/* The acceleration of body i from all others, in double, from the float inputs.
 * magnitude[c] gets sum over j of |m_j d_c| / (d^2 + eps^2)^(3/2), the size of the
 * terms of component c, from which the tolerance is scaled. */
void nbody_reference_accel(const struct nbody_system *s, double epssq, long i, double acc[3],
                           double magnitude[3]);
/* The same for count bodies (body[k] for k < count) into acc[3 k + c] and
 * magnitude[3 k + c], on every CPU core (OpenMP): checking a sample of 1024 bodies
 * against 131072 is 1.3e8 interactions in double, over a second on one core. Each
 * body's sum is the serial function's, so the result does not depend on the cores. */
void nbody_reference_accels(const struct nbody_system *s, double epssq, const uint64_t *body,
                            size_t count, double *acc, double *magnitude);

struct nbody_totals {
    double kinetic, potential, energy;
    double momentum[3];
    double momentum_scale; /* sum of m |v|: what momentum drift is measured against */
    double centre[3];      /* centre of mass */
};
/* Energy (kinetic + softened potential), momentum and centre of mass, in double.
 * O(n^2): meant for the physics check's small system. */
void nbody_totals(const struct nbody_system *s, double epssq, struct nbody_totals *t);

/* Drifts between two states, as the physics check reports them:
 * energy: |E1 - E0| / |E0| (0 when both are 0);
 * momentum: |P1 - P0| / (sum m|v| at the start), 0 when nothing moves. */
double nbody_energy_drift(const struct nbody_totals *t0, const struct nbody_totals *t1);
double nbody_momentum_drift(const struct nbody_totals *t0, const struct nbody_totals *t1);

/* Leapfrog, kick-drift-kick, `steps` steps of dt, on the CPU in double arithmetic
 * (stored back as float after every step, as the GPU does). The same sequence the
 * kernels run: accelerations at the start, then per step
 *   v += a dt/2;  x += v dt;  a = a(x);  v += a dt/2. */
int nbody_leapfrog_cpu(struct nbody_system *s, double epssq, double dt, int steps);

/* Tolerance for one acceleration component: factor * sqrt(n) * u * magnitude, with
 * u = 2^-24. sqrt(n): rounding errors of an n-term float sum grow like sqrt(n)
 * (as in matmul); factor bounds the relative error of one interaction in units of u:
 * 8 with IEEE 1/sqrtf, 16 with rsqrtf (2 ulp, cubed), 32 with -use_fast_math. The
 * step table states each step's factor. */
double nbody_tolerance(long n, double factor, double magnitude);

/* Size rules: a missing n is the step's default (default_n, or NBODY_DEFAULT_N when
 * 0); n from 1 to NBODY_MAX_N; m and k must be 0 or 1 (N-body has one dimension). */
enum nbody_size_status { NBODY_SIZE_OK = 0, NBODY_SIZE_BAD };
enum nbody_size_status nbody_resolve_n(long *n, long m, long k, long default_n, char *why,
                                       size_t why_len);
double nbody_interactions(long n); /* n^2: every thread visits every body, itself too */
double nbody_flops(long n);        /* 20 per interaction */
/* Device bytes for n bodies in every layout the steps use (AoS, SoA, float4), plus
 * the physics check's system. */
size_t nbody_bytes(long n);

#ifdef __cplusplus
}
#endif
#endif

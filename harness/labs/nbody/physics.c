/* The N-body lab's CPU side (physics.h). */
#include "physics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

#define PI 3.14159265358979323846

static float **fields(struct nbody_system *s, float **out)
{
    out[0] = s->mass, out[1] = s->x, out[2] = s->y, out[3] = s->z;
    out[4] = s->vx, out[5] = s->vy, out[6] = s->vz;
    return out;
}

int nbody_alloc(struct nbody_system *s, long n)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    size_t count = n > 0 ? (size_t)n : 1;
    float **slot[] = {&s->mass, &s->x, &s->y, &s->z, &s->vx, &s->vy, &s->vz};
    for (size_t f = 0; f < 7; ++f)
        if ((*slot[f] = calloc(count, sizeof(float))) == NULL) {
            nbody_free(s);
            return 0;
        }
    return 1;
}

void nbody_free(struct nbody_system *s)
{
    float *f[7];
    fields(s, f);
    for (size_t i = 0; i < 7; ++i)
        free(f[i]);
    memset(s, 0, sizeof *s);
}

int nbody_copy(struct nbody_system *to, const struct nbody_system *from)
{
    if (!nbody_alloc(to, from->n))
        return 0;
    float *dst[7], *src[7];
    fields(to, dst);
    fields((struct nbody_system *)from, src);
    for (size_t f = 0; f < 7; ++f)
        memcpy(dst[f], src[f], (size_t)from->n * sizeof(float));
    return 1;
}

/* Uniform double in [0, 1) with 53 random bits. */
static double uniform01(struct rng *rng)
{
    return (double)(rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}

/* A random direction, uniform on the sphere, times r. */
static void on_sphere(struct rng *rng, double r, double out[3])
{
    double z = 2.0 * uniform01(rng) - 1.0;
    double phi = 2.0 * PI * uniform01(rng);
    double rho = sqrt(fmax(0.0, 1.0 - z * z));
    out[0] = r * rho * cos(phi);
    out[1] = r * rho * sin(phi);
    out[2] = r * z;
}

/* Moves positions and velocities to the centre-of-mass frame (in double). */
static void to_centre_of_mass(struct nbody_system *s)
{
    double mass = 0, c[6] = {0};
    const float *v[6] = {s->x, s->y, s->z, s->vx, s->vy, s->vz};
    for (long i = 0; i < s->n; ++i) {
        mass += s->mass[i];
        for (int d = 0; d < 6; ++d)
            c[d] += (double)s->mass[i] * v[d][i];
    }
    if (mass <= 0)
        return;
    float *w[6] = {s->x, s->y, s->z, s->vx, s->vy, s->vz};
    for (int d = 0; d < 6; ++d)
        for (long i = 0; i < s->n; ++i)
            w[d][i] = (float)(w[d][i] - c[d] / mass);
}

void nbody_plummer(struct nbody_system *s, uint64_t seed)
{
    struct rng rng;
    rng_init(&rng, seed, 7);
    const double a = 3.0 * PI / 16.0; /* scale radius: virial radius 1, E = -1/4 */
    const double m = 1.0 / (double)(s->n > 0 ? s->n : 1);
    for (long i = 0; i < s->n; ++i) {
        /* radius from the cumulative mass M(r)/M = X: r = a / sqrt(X^(-2/3) - 1) */
        double x;
        do
            x = uniform01(&rng);
        while (x <= 0.0 || x > 0.999);
        double r = a / sqrt(pow(x, -2.0 / 3.0) - 1.0);
        /* speed as a fraction q of the escape speed, q^2 (1 - q^2)^(7/2) by rejection */
        double q, g;
        do {
            q = uniform01(&rng);
            g = 0.1 * uniform01(&rng);
        } while (g > q * q * pow(1.0 - q * q, 3.5));
        double v = q * sqrt(2.0) * pow(1.0 + r * r / (a * a), -0.25) / sqrt(a);
        double p[3], u[3];
        on_sphere(&rng, r, p);
        on_sphere(&rng, v, u);
        s->mass[i] = (float)m;
        s->x[i] = (float)p[0], s->y[i] = (float)p[1], s->z[i] = (float)p[2];
        s->vx[i] = (float)u[0], s->vy[i] = (float)u[1], s->vz[i] = (float)u[2];
    }
    to_centre_of_mass(s);
}

void nbody_uniform_cube(struct nbody_system *s, uint64_t seed)
{
    struct rng rng;
    rng_init(&rng, seed, 8);
    const float m = 1.0f / (float)(s->n > 0 ? s->n : 1);
    for (long i = 0; i < s->n; ++i) {
        s->mass[i] = m;
        s->x[i] = rng_uniform(&rng, -1.0f, 1.0f);
        s->y[i] = rng_uniform(&rng, -1.0f, 1.0f);
        s->z[i] = rng_uniform(&rng, -1.0f, 1.0f);
        s->vx[i] = rng_uniform(&rng, -0.1f, 0.1f);
        s->vy[i] = rng_uniform(&rng, -0.1f, 0.1f);
        s->vz[i] = rng_uniform(&rng, -0.1f, 0.1f);
    }
}

void nbody_reference_accel(const struct nbody_system *s, double epssq, long i, double acc[3],
                           double magnitude[3])
{
    double a[3] = {0, 0, 0}, mag[3] = {0, 0, 0};
    const double xi = s->x[i], yi = s->y[i], zi = s->z[i];
    for (long j = 0; j < s->n; ++j) {
        if (j == i)
            continue; /* its term is exactly 0 with eps > 0; 0/0 without */
        double d[3] = {s->x[j] - xi, s->y[j] - yi, s->z[j] - zi};
        double dsq = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + epssq;
        double scale = (double)s->mass[j] / (dsq * sqrt(dsq));
        for (int c = 0; c < 3; ++c) {
            a[c] += d[c] * scale;
            mag[c] += fabs(d[c] * scale);
        }
    }
    for (int c = 0; c < 3; ++c) {
        acc[c] = a[c];
        if (magnitude != NULL)
            magnitude[c] = mag[c];
    }
}

void nbody_reference_accels(const struct nbody_system *s, double epssq, const uint64_t *body,
                            size_t count, double *acc, double *magnitude)
{
    #pragma omp parallel for schedule(dynamic, 16)
    for (long k = 0; k < (long)count; ++k)
        nbody_reference_accel(s, epssq, (long)body[k], &acc[3 * k],
                              magnitude != NULL ? &magnitude[3 * k] : NULL);
}

void nbody_totals(const struct nbody_system *s, double epssq, struct nbody_totals *t)
{
    memset(t, 0, sizeof *t);
    double mass = 0;
    for (long i = 0; i < s->n; ++i) {
        double m = s->mass[i], v[3] = {s->vx[i], s->vy[i], s->vz[i]};
        double v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        t->kinetic += 0.5 * m * v2;
        t->momentum_scale += m * sqrt(v2);
        for (int c = 0; c < 3; ++c)
            t->momentum[c] += m * v[c];
        t->centre[0] += m * s->x[i], t->centre[1] += m * s->y[i], t->centre[2] += m * s->z[i];
        mass += m;
        double w = 0; /* pairs (i, j > i), summed per i first: less rounding */
        for (long j = i + 1; j < s->n; ++j) {
            double dx = (double)s->x[j] - s->x[i], dy = (double)s->y[j] - s->y[i],
                   dz = (double)s->z[j] - s->z[i];
            w += (double)s->mass[j] / sqrt(dx * dx + dy * dy + dz * dz + epssq);
        }
        t->potential -= m * w;
    }
    if (mass > 0)
        for (int c = 0; c < 3; ++c)
            t->centre[c] /= mass;
    t->energy = t->kinetic + t->potential;
}

double nbody_energy_drift(const struct nbody_totals *t0, const struct nbody_totals *t1)
{
    double change = fabs(t1->energy - t0->energy);
    if (t0->energy == 0.0)
        return change == 0.0 ? 0.0 : INFINITY;
    return change / fabs(t0->energy);
}

double nbody_momentum_drift(const struct nbody_totals *t0, const struct nbody_totals *t1)
{
    double d[3];
    for (int c = 0; c < 3; ++c)
        d[c] = t1->momentum[c] - t0->momentum[c];
    double change = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double scale = fmax(t0->momentum_scale, t1->momentum_scale);
    if (scale == 0.0)
        return change == 0.0 ? 0.0 : INFINITY;
    return change / scale;
}

int nbody_leapfrog_cpu(struct nbody_system *s, double epssq, double dt, int steps)
{
    long n = s->n;
    double *acc = malloc((size_t)(n > 0 ? n : 1) * 3 * sizeof *acc);
    if (acc == NULL)
        return 0;
    for (long i = 0; i < n; ++i)
        nbody_reference_accel(s, epssq, i, &acc[3 * i], NULL);
    float *pos[3] = {s->x, s->y, s->z}, *vel[3] = {s->vx, s->vy, s->vz};
    for (int step = 0; step < steps; ++step) {
        for (long i = 0; i < n; ++i)
            for (int c = 0; c < 3; ++c) {
                vel[c][i] = (float)(vel[c][i] + acc[3 * i + c] * (0.5 * dt));
                pos[c][i] = (float)(pos[c][i] + vel[c][i] * dt);
            }
        for (long i = 0; i < n; ++i)
            nbody_reference_accel(s, epssq, i, &acc[3 * i], NULL);
        for (long i = 0; i < n; ++i)
            for (int c = 0; c < 3; ++c)
                vel[c][i] = (float)(vel[c][i] + acc[3 * i + c] * (0.5 * dt));
    }
    free(acc);
    return 1;
}

double nbody_tolerance(long n, double factor, double magnitude)
{
    return factor * sqrt((double)(n > 1 ? n : 1)) * (1.0 / 16777216.0) * magnitude;
}

enum nbody_size_status nbody_resolve_n(long *n, long m, long k, long default_n, char *why,
                                       size_t why_len)
{
    if ((m != 0 && m != 1) || (k != 0 && k != 1)) {
        snprintf(why, why_len, "N-body has one size, the number of bodies: use --n alone");
        return NBODY_SIZE_BAD;
    }
    if (*n == 0)
        *n = default_n > 0 ? default_n : NBODY_DEFAULT_N;
    if (*n < 1 || *n > NBODY_MAX_N) {
        snprintf(why, why_len, "the number of bodies must be from 1 to %ld, not %ld", NBODY_MAX_N,
                 *n);
        return NBODY_SIZE_BAD;
    }
    return NBODY_SIZE_OK;
}

double nbody_interactions(long n)
{
    return (double)n * (double)n;
}

double nbody_flops(long n)
{
    return NBODY_FLOPS_PER_INTERACTION * nbody_interactions(n);
}

size_t nbody_bytes(long n)
{
    /* AoS: 10 floats; SoA: 10 arrays; float4 positions + mass: 4 floats */
    size_t per_body = (10 + 10 + 4) * sizeof(float);
    return (size_t)n * per_body + (size_t)NBODY_PHYSICS_N * per_body;
}

/* The N-body initial conditions: the Plummer cluster's moments and virial ratio,
 * its centre-of-mass frame, reproducibility; the uniform cube's bounds. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "physics.h"

#define N 4096
#define SEED 20080220

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

START_TEST(plummer_energy_and_virial_ratio)
{
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, N));
    nbody_plummer(&s, SEED);
    struct nbody_totals t;
    nbody_totals(&s, 0.0, &t); /* unsoftened: the model's own energy */
    /* Henon units: E = -1/4, T = 1/4, W = -1/2; sampling noise is about 1/sqrt(N) */
    ck_assert_double_eq_tol(t.energy, -0.25, 0.01);
    ck_assert_double_eq_tol(t.kinetic, 0.25, 0.01);
    ck_assert_double_eq_tol(t.potential, -0.5, 0.02);
    ck_assert_double_eq_tol(t.kinetic / -t.potential, 0.5, 0.03);
    nbody_free(&s);
}
END_TEST

START_TEST(plummer_half_mass_radius_and_masses)
{
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, N));
    nbody_plummer(&s, SEED);
    double *r = malloc(N * sizeof *r), mass = 0;
    for (long i = 0; i < N; ++i) {
        r[i] = sqrt((double)s.x[i] * s.x[i] + (double)s.y[i] * s.y[i] + (double)s.z[i] * s.z[i]);
        ck_assert_float_eq(s.mass[i], 1.0f / N);
        mass += s.mass[i];
    }
    ck_assert_double_eq_tol(mass, 1.0, 1e-6);
    qsort(r, N, sizeof *r, by_value);
    /* Plummer: r_half = a / sqrt(2^(2/3) - 1), a = 3 pi / 16 */
    double a = 3.0 * 3.14159265358979323846 / 16.0, want = a / sqrt(pow(2.0, 2.0 / 3.0) - 1.0);
    ck_assert_double_eq_tol(r[N / 2], want, 0.03 * want);
    /* a tenth of the mass inside a / sqrt(10^(2/3) - 1), 90% inside a / sqrt((10/9)^(2/3) - 1) */
    ck_assert_double_eq_tol(r[N / 10], a / sqrt(pow(10.0, 2.0 / 3.0) - 1.0), 0.05 * a);
    ck_assert_double_eq_tol(r[9 * N / 10], a / sqrt(pow(10.0 / 9.0, 2.0 / 3.0) - 1.0), 0.3 * a);
    ck_assert_double_le(r[N - 1], 38.8 * a); /* the cut */
    free(r);
    nbody_free(&s);
}
END_TEST

START_TEST(plummer_in_centre_of_mass_frame)
{
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, N));
    nbody_plummer(&s, SEED);
    struct nbody_totals t;
    nbody_totals(&s, NBODY_EPSSQ, &t);
    for (int c = 0; c < 3; ++c) {
        ck_assert_double_le(fabs(t.centre[c]), 1e-6);
        ck_assert_double_le(fabs(t.momentum[c]), 1e-6 * t.momentum_scale);
    }
    nbody_free(&s);
}
END_TEST

START_TEST(plummer_is_reproducible)
{
    struct nbody_system a, b, c;
    ck_assert(nbody_alloc(&a, 100) && nbody_alloc(&b, 100) && nbody_alloc(&c, 100));
    nbody_plummer(&a, 1);
    nbody_plummer(&b, 1);
    nbody_plummer(&c, 2);
    ck_assert_int_eq(memcmp(a.x, b.x, 100 * sizeof(float)), 0);
    ck_assert_int_eq(memcmp(a.vz, b.vz, 100 * sizeof(float)), 0);
    ck_assert_int_ne(memcmp(a.x, c.x, 100 * sizeof(float)), 0);
    nbody_free(&a);
    nbody_free(&b);
    nbody_free(&c);
}
END_TEST

START_TEST(tiny_clusters)
{
    /* one body sits still at the origin; two are each other's mirror image */
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, 1));
    nbody_plummer(&s, SEED);
    ck_assert_float_eq(s.mass[0], 1.0f);
    ck_assert_float_eq(s.x[0], 0.0f);
    ck_assert_float_eq(s.vy[0], 0.0f);
    nbody_free(&s);
    ck_assert(nbody_alloc(&s, 2));
    nbody_plummer(&s, SEED);
    ck_assert_float_eq_tol(s.x[0], -s.x[1], 1e-6f);
    ck_assert_float_eq_tol(s.vz[0], -s.vz[1], 1e-6f);
    nbody_free(&s);
}
END_TEST

START_TEST(uniform_cube_bounds)
{
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, 1000));
    nbody_uniform_cube(&s, SEED);
    double mean = 0;
    for (long i = 0; i < 1000; ++i) {
        ck_assert(s.x[i] >= -1.0f && s.x[i] < 1.0f && s.z[i] >= -1.0f && s.z[i] < 1.0f);
        ck_assert(s.vy[i] >= -0.1f && s.vy[i] < 0.1f);
        mean += s.y[i];
    }
    ck_assert_double_le(fabs(mean / 1000), 0.1); /* about 0.58 / sqrt(1000) = 0.018 */
    nbody_free(&s);
}
END_TEST

Suite *nbody_plummer_suite(void)
{
    Suite *s = suite_create("nbody_plummer");
    TCase *tc = tcase_create("plummer");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, plummer_energy_and_virial_ratio);
    tcase_add_test(tc, plummer_half_mass_radius_and_masses);
    tcase_add_test(tc, plummer_in_centre_of_mass_frame);
    tcase_add_test(tc, plummer_is_reproducible);
    tcase_add_test(tc, tiny_clusters);
    tcase_add_test(tc, uniform_cube_bounds);
    suite_add_tcase(s, tc);
    return s;
}

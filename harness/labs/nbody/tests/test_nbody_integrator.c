/* The N-body bookkeeping: energy, momentum and centre of mass by hand, the drift
 * measures, and the leapfrog integrator (energy kept, momentum kept, time
 * reversible, second order). */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "physics.h"

START_TEST(totals_by_hand)
{
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, 2));
    s.mass[0] = 1, s.vx[0] = 1;                              /* at the origin */
    s.mass[1] = 2, s.x[1] = 3, s.y[1] = 4, s.vy[1] = -1; /* 5 away */
    struct nbody_totals t;
    nbody_totals(&s, 0.0025, &t);
    ck_assert_double_eq_tol(t.kinetic, 0.5 * 1 * 1 + 0.5 * 2 * 1, 1e-15);
    ck_assert_double_eq_tol(t.potential, -2.0 / sqrt(25.0025), 1e-15);
    ck_assert_double_eq_tol(t.energy, 1.5 - 2.0 / sqrt(25.0025), 1e-15);
    ck_assert_double_eq(t.momentum[0], 1.0);
    ck_assert_double_eq(t.momentum[1], -2.0);
    ck_assert_double_eq(t.momentum_scale, 3.0);
    ck_assert_double_eq_tol(t.centre[0], 2.0, 1e-15);
    ck_assert_double_eq_tol(t.centre[1], 8.0 / 3.0, 1e-15);
    nbody_free(&s);
}
END_TEST

START_TEST(drift_measures)
{
    struct nbody_totals a = {0}, b = {0};
    a.energy = -0.25, b.energy = -0.2500025;
    ck_assert_double_eq_tol(nbody_energy_drift(&a, &b), 1e-5, 1e-12);
    a.momentum_scale = 0.5, b.momentum_scale = 0.5;
    b.momentum[0] = 3e-6, b.momentum[1] = 4e-6;
    ck_assert_double_eq_tol(nbody_momentum_drift(&a, &b), 1e-5, 1e-12);
    struct nbody_totals zero = {0};
    ck_assert_double_eq(nbody_energy_drift(&zero, &zero), 0.0); /* one body at rest */
    ck_assert_double_eq(nbody_momentum_drift(&zero, &zero), 0.0);
    ck_assert(isinf(nbody_energy_drift(&zero, &b)));
}
END_TEST

/* Two equal masses on a circular orbit about their centre of mass. */
static void binary(struct nbody_system *s, double epssq)
{
    ck_assert(nbody_alloc(s, 2));
    /* separation 1: each needs v^2 / 0.5 = m / (1 + eps^2)^(3/2) */
    double m = 0.5, v = sqrt(0.5 * m / pow(1.0 + epssq, 1.5));
    s->mass[0] = s->mass[1] = (float)m;
    s->x[0] = -0.5f, s->x[1] = 0.5f;
    s->vy[0] = (float)-v, s->vy[1] = (float)v;
}

START_TEST(circular_binary_keeps_energy_and_momentum)
{
    struct nbody_system s;
    binary(&s, NBODY_EPSSQ);
    struct nbody_totals t0, t1;
    nbody_totals(&s, NBODY_EPSSQ, &t0);
    ck_assert(nbody_leapfrog_cpu(&s, NBODY_EPSSQ, 0.01, 1000)); /* about 2.3 orbits */
    nbody_totals(&s, NBODY_EPSSQ, &t1);
    ck_assert_double_lt(nbody_energy_drift(&t0, &t1), 1e-4);
    ck_assert_double_lt(nbody_momentum_drift(&t0, &t1), 1e-6);
    double r = hypot(s.x[1] - s.x[0], s.y[1] - s.y[0]);
    ck_assert_double_eq_tol(r, 1.0, 1e-3); /* still circular */
    nbody_free(&s);
}
END_TEST

START_TEST(leapfrog_is_second_order)
{
    /* The binary without softening turns at exactly 1 radian per time unit; halving
     * dt divides the position error after one time unit by about 4. */
    double err[2];
    for (int k = 0; k < 2; ++k) {
        struct nbody_system s;
        binary(&s, 0.0);
        double dt = 0.05 / (1 << k);
        ck_assert(nbody_leapfrog_cpu(&s, 0.0, dt, (int)(1.0 / dt + 0.5)));
        err[k] = hypot(s.x[1] - 0.5 * cos(1.0), s.y[1] - 0.5 * sin(1.0));
        nbody_free(&s);
    }
    ck_assert_double_gt(err[0] / err[1], 3.5);
    ck_assert_double_lt(err[0] / err[1], 4.5);
}
END_TEST

START_TEST(leapfrog_is_time_reversible)
{
    struct nbody_system s, start;
    ck_assert(nbody_alloc(&s, 50));
    nbody_plummer(&s, 9);
    ck_assert(nbody_copy(&start, &s));
    ck_assert(nbody_leapfrog_cpu(&s, NBODY_EPSSQ, NBODY_DT, 40));
    for (long i = 0; i < s.n; ++i)
        s.vx[i] = -s.vx[i], s.vy[i] = -s.vy[i], s.vz[i] = -s.vz[i];
    ck_assert(nbody_leapfrog_cpu(&s, NBODY_EPSSQ, NBODY_DT, 40));
    for (long i = 0; i < s.n; ++i) {
        ck_assert_float_eq_tol(s.x[i], start.x[i], 1e-4f);
        ck_assert_float_eq_tol(s.z[i], start.z[i], 1e-4f);
        ck_assert_float_eq_tol(-s.vy[i], start.vy[i], 1e-4f);
    }
    nbody_free(&s);
    nbody_free(&start);
}
END_TEST

START_TEST(physics_check_system_is_within_its_bounds)
{
    /* The bounds the GPU check applies, met by the double-precision integrator with
     * room to spare for float arithmetic. A kick of dt instead of dt/2 at the start
     * (a typical bug) is outside them. */
    struct nbody_system s, wrong;
    ck_assert(nbody_alloc(&s, NBODY_PHYSICS_N));
    nbody_plummer(&s, 20080220);
    ck_assert(nbody_copy(&wrong, &s));
    struct nbody_totals t0, t1;
    nbody_totals(&s, NBODY_EPSSQ, &t0);
    ck_assert(nbody_leapfrog_cpu(&s, NBODY_EPSSQ, NBODY_DT, NBODY_PHYSICS_STEPS / 4));
    nbody_totals(&s, NBODY_EPSSQ, &t1);
    ck_assert_double_lt(nbody_energy_drift(&t0, &t1), NBODY_ENERGY_BOUND / 10);
    ck_assert_double_lt(nbody_momentum_drift(&t0, &t1), NBODY_MOMENTUM_BOUND / 10);

    /* the wrong start: an extra half kick, then the same leapfrog */
    for (long i = 0; i < wrong.n; ++i) {
        double a[3];
        nbody_reference_accel(&wrong, NBODY_EPSSQ, i, a, NULL);
        wrong.vx[i] += (float)(a[0] * 0.5 * NBODY_DT);
        wrong.vy[i] += (float)(a[1] * 0.5 * NBODY_DT);
        wrong.vz[i] += (float)(a[2] * 0.5 * NBODY_DT);
    }
    nbody_totals(&wrong, NBODY_EPSSQ, &t1);
    ck_assert_double_gt(nbody_energy_drift(&t0, &t1), NBODY_ENERGY_BOUND);
    nbody_free(&s);
    nbody_free(&wrong);
}
END_TEST

Suite *nbody_integrator_suite(void)
{
    Suite *s = suite_create("nbody_integrator");
    TCase *tc = tcase_create("integrator");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, totals_by_hand);
    tcase_add_test(tc, drift_measures);
    tcase_add_test(tc, circular_binary_keeps_energy_and_momentum);
    tcase_add_test(tc, leapfrog_is_second_order);
    tcase_add_test(tc, leapfrog_is_time_reversible);
    tcase_add_test(tc, physics_check_system_is_within_its_bounds);
    suite_add_tcase(s, tc);
    return s;
}

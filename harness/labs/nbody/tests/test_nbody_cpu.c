/* The CPU rows' code (cpu_forces.c), exactly as the rows run it, with no GPU: the
 * serial loop and the OpenMP loop against the double-precision reference on
 * hand-checked two- and three-body cases and a Plummer cluster, the OpenMP loop
 * giving the serial loop's bits whatever the number of threads, their leapfrog
 * passing the physics check the runner applies, and the rows' line of the step table
 * (step 01's size, its tolerance and layout). */
#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_forces.h"
#include "physics.h"

/* The bodies of s as the rows see them: Burtscher's struct Body. */
static struct nbody_body *bodies_of(const struct nbody_system *s)
{
    struct nbody_body *b = calloc((size_t)(s->n > 0 ? s->n : 1), sizeof *b);
    ck_assert_ptr_nonnull(b);
    for (long i = 0; i < s->n; ++i) {
        b[i].mass = s->mass[i];
        b[i].posx = s->x[i], b[i].posy = s->y[i], b[i].posz = s->z[i];
        b[i].velx = s->vx[i], b[i].vely = s->vy[i], b[i].velz = s->vz[i];
        /* NaN, as the runner poisons them: a body the loop skips is caught */
        b[i].accx = b[i].accy = b[i].accz = NAN;
    }
    return b;
}

static void place(struct nbody_system *s, long i, float m, float x, float y, float z)
{
    s->mass[i] = m, s->x[i] = x, s->y[i] = y, s->z[i] = z;
}

static const nbody_cpu_forces_fn loops[] = {nbody_cpu_forces_serial, nbody_cpu_forces_openmp};
static const char *const loop_names[] = {"serial", "openmp"};

/* Every body of s within factor-8 tolerance (steps 01-04's) of the reference;
 * returns the largest error as a share of the tolerance. */
static double worst_against_reference(const struct nbody_system *s, float epssq,
                                      const struct nbody_body *b, const char *which)
{
    double worst = 0;
    for (long i = 0; i < s->n; ++i) {
        double want[3], mag[3];
        nbody_reference_accel(s, epssq, i, want, mag);
        const float got[3] = {b[i].accx, b[i].accy, b[i].accz};
        for (int c = 0; c < 3; ++c) {
            double tol = nbody_tolerance(s->n, 8, mag[c]), err = fabs(got[c] - want[c]);
            ck_assert_msg(err <= tol, "%s: body %ld component %d: %g, want %g (tolerance %g)",
                          which, i, c, got[c], want[c], tol);
            if (tol > 0)
                worst = fmax(worst, err / tol);
        }
    }
    return worst;
}

START_TEST(two_bodies_by_hand)
{
    /* m = 1 at the origin, m = 2 at (3, 4, 0): distance 5, softened r^2 + eps^2 = 25.0025 */
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, 2));
    place(&s, 0, 1, 0, 0, 0);
    place(&s, 1, 2, 3, 4, 0);
    struct nbody_body *b = bodies_of(&s);
    loops[_i](2, NBODY_EPSSQ, b);
    double r3 = pow(25.0025, 1.5);
    ck_assert_double_eq_tol(b[0].accx, 2.0 * 3 / r3, 1e-6 * 2.0 * 3 / r3);
    ck_assert_double_eq_tol(b[0].accy, 2.0 * 4 / r3, 1e-6 * 2.0 * 4 / r3);
    ck_assert_float_eq(b[0].accz, 0.0f);
    ck_assert_double_eq_tol(b[1].accx, -3.0 / r3, 1e-6 * 3.0 / r3);
    ck_assert_double_eq_tol(b[1].accy, -4.0 / r3, 1e-6 * 4.0 / r3);
    worst_against_reference(&s, NBODY_EPSSQ, b, loop_names[_i]);
    free(b);
    nbody_free(&s);
}
END_TEST

START_TEST(three_bodies_by_hand)
{
    /* m = 1 at (0,0,0), m = 2 at (1,0,0), m = 3 at (0,2,0), no softening:
     * body 0 feels 2 (1,0,0) / 1 + 3 (0,2,0) / 8 = (2, 0.75, 0) */
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, 3));
    place(&s, 0, 1, 0, 0, 0);
    place(&s, 1, 2, 1, 0, 0);
    place(&s, 2, 3, 0, 2, 0);
    struct nbody_body *b = bodies_of(&s);
    loops[_i](3, 0.0f, b);
    ck_assert_float_eq_tol(b[0].accx, 2.0f, 1e-6f);
    ck_assert_float_eq_tol(b[0].accy, 0.75f, 1e-6f);
    ck_assert_float_eq(b[0].accz, 0.0f);
    /* Newton's third law: the forces sum to zero */
    ck_assert_double_le(fabs(1.0 * b[0].accx + 2.0 * b[1].accx + 3.0 * b[2].accx), 1e-5);
    ck_assert_double_le(fabs(1.0 * b[0].accy + 2.0 * b[1].accy + 3.0 * b[2].accy), 1e-5);
    worst_against_reference(&s, 0.0f, b, loop_names[_i]);
    free(b);
    nbody_free(&s);
}
END_TEST

START_TEST(one_body_feels_nothing)
{
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, 1));
    place(&s, 0, 1, 0.5f, 0.5f, 0.5f);
    struct nbody_body *b = bodies_of(&s);
    loops[_i](1, NBODY_EPSSQ, b);
    /* exactly 0, not NaN: the one body was written, and its self term skipped */
    ck_assert_float_eq(b[0].accx, 0.0f);
    ck_assert_float_eq(b[0].accy, 0.0f);
    ck_assert_float_eq(b[0].accz, 0.0f);
    free(b);
    nbody_free(&s);
}
END_TEST

/* 1000 bodies (a multiple of nothing) of the lab's Plummer cluster: every body of
 * both loops inside the tolerance of steps 01-04 with room to spare, as a float
 * kernel should be (test_nbody_reference.c holds the bound to the same quarter). */
START_TEST(plummer_cluster_within_tolerance)
{
    const long n = 1000;
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, n));
    nbody_plummer(&s, 20080220);
    struct nbody_body *b = bodies_of(&s);
    loops[_i]((int)n, NBODY_EPSSQ, b);
    ck_assert_double_lt(worst_against_reference(&s, NBODY_EPSSQ, b, loop_names[_i]), 0.25);
    free(b);
    nbody_free(&s);
}
END_TEST

/* Each body's sum is computed by one thread in the serial loop's order, so the
 * OpenMP loop gives the serial loop's bits with any number of threads, more threads
 * than bodies and a count that divides nothing included. */
START_TEST(openmp_gives_the_serial_bits_with_any_threads)
{
    const long n = 517;
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, n));
    nbody_plummer(&s, 7);
    struct nbody_body *serial = bodies_of(&s);
    nbody_cpu_forces_serial((int)n, NBODY_EPSSQ, serial);
    const int threads[] = {1, 2, 3, 4, 7, 16, 600};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; ++t) {
        omp_set_num_threads(threads[t]);
        ck_assert_int_eq(nbody_cpu_openmp_threads(), threads[t]);
        struct nbody_body *parallel = bodies_of(&s);
        nbody_cpu_forces_openmp((int)n, NBODY_EPSSQ, parallel);
        ck_assert_msg(memcmp(serial, parallel, (size_t)n * sizeof *serial) == 0,
                      "%d threads: not the serial loop's bits", threads[t]);
        free(parallel);
    }
    free(serial);
    nbody_free(&s);
}
END_TEST

/* The rows' leapfrog (what the physics check runs): the physics check's cluster
 * and steps, drifts within its bounds for both loops; and the same sequence of kicks
 * and drifts as the double-precision leapfrog, which it follows to float accuracy. */
START_TEST(leapfrog_passes_the_physics_check)
{
    struct nbody_system s, end, reference;
    ck_assert(nbody_alloc(&s, NBODY_PHYSICS_N_SLOW));
    nbody_plummer(&s, 20080220);
    struct nbody_body *b = bodies_of(&s);
    nbody_cpu_leapfrog((int)s.n, NBODY_EPSSQ, NBODY_DT, NBODY_PHYSICS_STEPS, b, loops[_i]);
    ck_assert(nbody_copy(&end, &s));
    for (long i = 0; i < s.n; ++i) {
        end.x[i] = b[i].posx, end.y[i] = b[i].posy, end.z[i] = b[i].posz;
        end.vx[i] = b[i].velx, end.vy[i] = b[i].vely, end.vz[i] = b[i].velz;
    }
    struct nbody_totals t0, t1;
    nbody_totals(&s, NBODY_EPSSQ, &t0);
    nbody_totals(&end, NBODY_EPSSQ, &t1);
    ck_assert_double_lt(nbody_energy_drift(&t0, &t1), NBODY_ENERGY_BOUND);
    ck_assert_double_lt(nbody_momentum_drift(&t0, &t1), NBODY_MOMENTUM_BOUND);
    /* 10 steps against the double-precision integrator, body by body */
    ck_assert(nbody_copy(&reference, &s));
    ck_assert(nbody_leapfrog_cpu(&reference, NBODY_EPSSQ, NBODY_DT, 10));
    free(b);
    b = bodies_of(&s);
    nbody_cpu_leapfrog((int)s.n, NBODY_EPSSQ, NBODY_DT, 10, b, loops[_i]);
    for (long i = 0; i < s.n; ++i) {
        ck_assert_double_eq_tol(b[i].posx, reference.x[i], 1e-5);
        ck_assert_double_eq_tol(b[i].vely, reference.vy[i], 1e-5);
    }
    free(b);
    nbody_free(&s);
    nbody_free(&end);
    nbody_free(&reference);
}
END_TEST

/* The rows' line of the step table's STEP_PARAMS: step 01's default size, so that
 * step 01 and the CPU compare at the same size; steps 01-04's tolerance (IEEE
 * 1.0f / sqrtf); and the layout step 01 writes (struct Body). */
struct params {
    const char *id;
    long n;
    double factor;
    const char *layout;
};
#define STEP(...)
#define CHECK_SIZE(m, n, k)
#define ROW(...)
#define STEP_PARAMS(id, n, factor, layout) {id, n, factor, layout},
static const struct params params[] = {
#include "lab.def"
};
#undef STEP_PARAMS
#undef ROW
#undef CHECK_SIZE
#undef STEP

static const struct params *params_of(const char *id)
{
    for (size_t i = 0; i < sizeof params / sizeof params[0]; ++i)
        if (strcmp(params[i].id, id) == 0)
            return &params[i];
    return NULL;
}

START_TEST(rows_run_at_step_01s_size_tolerance_and_layout)
{
    const struct params *first = params_of("01");
    ck_assert_ptr_nonnull(first);
    const char *rows[] = {"cpu-serial", "cpu-openmp"};
    for (size_t r = 0; r < 2; ++r) {
        const struct params *row = params_of(rows[r]);
        ck_assert_msg(row != NULL, "no STEP_PARAMS line for %s", rows[r]);
        ck_assert_int_eq(row->n, first->n);
        ck_assert_double_eq(row->factor, 8);
        ck_assert_str_eq(row->layout, "aos");
    }
}
END_TEST

Suite *nbody_cpu_suite(void)
{
    Suite *s = suite_create("nbody_cpu");
    TCase *tc = tcase_create("cpu rows");
    tcase_set_timeout(tc, 60);
    /* each loop test runs for the serial loop (0) and the OpenMP loop (1) */
    tcase_add_loop_test(tc, two_bodies_by_hand, 0, 2);
    tcase_add_loop_test(tc, three_bodies_by_hand, 0, 2);
    tcase_add_loop_test(tc, one_body_feels_nothing, 0, 2);
    tcase_add_loop_test(tc, plummer_cluster_within_tolerance, 0, 2);
    tcase_add_test(tc, openmp_gives_the_serial_bits_with_any_threads);
    tcase_add_loop_test(tc, leapfrog_passes_the_physics_check, 0, 2);
    tcase_add_test(tc, rows_run_at_step_01s_size_tolerance_and_layout);
    suite_add_tcase(s, tc);
    return s;
}

/* The N-body CPU reference on hand-checked two- and three-body cases, the
 * tolerance (what a float kernel passes, what a skipped tile fails), and the size
 * rules. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "physics.h"

static void place(struct nbody_system *s, long i, float m, float x, float y, float z)
{
    s->mass[i] = m, s->x[i] = x, s->y[i] = y, s->z[i] = z;
}

START_TEST(two_bodies_by_hand)
{
    /* m = 1 at the origin, m = 2 at (3, 4, 0): distance 5 */
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, 2));
    place(&s, 0, 1, 0, 0, 0);
    place(&s, 1, 2, 3, 4, 0);
    double a[3], mag[3];
    nbody_reference_accel(&s, 0.0, 0, a, mag);
    ck_assert_double_eq_tol(a[0], 2.0 * 3 / 125, 1e-15); /* m d / r^3 */
    ck_assert_double_eq_tol(a[1], 2.0 * 4 / 125, 1e-15);
    ck_assert_double_eq(a[2], 0.0);
    ck_assert_double_eq_tol(mag[0], 2.0 * 3 / 125, 1e-15);
    nbody_reference_accel(&s, 0.0, 1, a, NULL);
    ck_assert_double_eq_tol(a[0], -3.0 / 125, 1e-15);
    ck_assert_double_eq_tol(a[1], -4.0 / 125, 1e-15);
    /* softened: r^2 + eps^2 = 25.0025 */
    nbody_reference_accel(&s, 0.0025, 0, a, NULL);
    ck_assert_double_eq_tol(a[0], 6.0 / pow(25.0025, 1.5), 1e-15);
    nbody_free(&s);
}
END_TEST

START_TEST(three_bodies_by_hand)
{
    /* m = 1 at (0,0,0), m = 2 at (1,0,0), m = 3 at (0,2,0), no softening */
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, 3));
    place(&s, 0, 1, 0, 0, 0);
    place(&s, 1, 2, 1, 0, 0);
    place(&s, 2, 3, 0, 2, 0);
    double a[3][3], mag[3];
    nbody_reference_accel(&s, 0.0, 0, a[0], mag);
    ck_assert_double_eq_tol(a[0][0], 2.0, 1e-15);  /* 2 (1,0,0) / 1 */
    ck_assert_double_eq_tol(a[0][1], 0.75, 1e-15); /* 3 (0,2,0) / 8 */
    ck_assert_double_eq_tol(mag[1], 0.75, 1e-15);
    nbody_reference_accel(&s, 0.0, 1, a[1], mag);
    double r3 = pow(5.0, 1.5); /* body 1 to body 2: (-1, 2, 0) */
    ck_assert_double_eq_tol(a[1][0], -1.0 - 3.0 / r3, 1e-14);
    ck_assert_double_eq_tol(a[1][1], 6.0 / r3, 1e-14);
    ck_assert_double_eq_tol(mag[0], 1.0 + 3.0 / r3, 1e-14);
    nbody_reference_accel(&s, 0.0, 2, a[2], NULL);
    ck_assert_double_eq_tol(a[2][0], 2.0 / r3, 1e-14);
    ck_assert_double_eq_tol(a[2][1], -2.0 / 8.0 - 4.0 / r3, 1e-14);
    /* Newton's third law: the forces sum to zero */
    for (int c = 0; c < 3; ++c)
        ck_assert_double_le(fabs(1 * a[0][c] + 2 * a[1][c] + 3 * a[2][c]), 1e-14);
    nbody_free(&s);
}
END_TEST

START_TEST(one_body_feels_nothing)
{
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, 1));
    place(&s, 0, 1, 0.5f, 0.5f, 0.5f);
    double a[3], mag[3];
    nbody_reference_accel(&s, NBODY_EPSSQ, 0, a, mag);
    ck_assert_double_eq(a[0], 0.0);
    ck_assert_double_eq(mag[2], 0.0);
    ck_assert_double_eq(nbody_tolerance(1, 8, mag[2]), 0.0); /* so 0 must be exact */
    nbody_free(&s);
}
END_TEST

/* The float arithmetic of a kernel, optionally skipping bodies [skip_from, skip_to). */
static void float_accel(const struct nbody_system *s, long i, long skip_from, long skip_to,
                        float out[3])
{
    float ax = 0, ay = 0, az = 0;
    for (long j = 0; j < s->n; ++j) {
        if (j >= skip_from && j < skip_to)
            continue;
        float dx = s->x[j] - s->x[i], dy = s->y[j] - s->y[i], dz = s->z[j] - s->z[i];
        float dsq = dx * dx + (dy * dy + (dz * dz + NBODY_EPSSQ));
        float dinv = 1.0f / sqrtf(dsq);
        float scale = s->mass[j] * dinv * dinv * dinv;
        ax += dx * scale, ay += dy * scale, az += dz * scale;
    }
    out[0] = ax, out[1] = ay, out[2] = az;
}

START_TEST(float_kernel_passes_a_skipped_tile_fails)
{
    const long n = 2000;
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, n));
    nbody_plummer(&s, 3);
    double worst = 0;
    long caught = 0, bodies = 200;
    for (long i = 0; i < bodies; ++i) {
        double want[3], mag[3];
        float got[3], skipped[3];
        nbody_reference_accel(&s, NBODY_EPSSQ, i, want, mag);
        float_accel(&s, i, -1, -1, got);
        float_accel(&s, i, 1024, 1024 + 32, skipped); /* one 32-body tile missing */
        int off = 0;
        for (int c = 0; c < 3; ++c) {
            double tol = nbody_tolerance(n, 8, mag[c]);
            worst = fmax(worst, fabs(got[c] - want[c]) / tol);
            off |= fabs(skipped[c] - want[c]) > tol;
        }
        caught += off;
    }
    ck_assert_double_lt(worst, 0.25); /* a correct kernel is far inside */
    ck_assert_int_ge(caught, bodies * 95 / 100);
    nbody_free(&s);
}
END_TEST

START_TEST(many_bodies_on_all_cores_equal_one_at_a_time)
{
    /* the check's parallel reference gives each body exactly the serial sum */
    struct nbody_system s;
    ck_assert(nbody_alloc(&s, 3000));
    nbody_plummer(&s, 7);
    uint64_t body[200];
    for (int k = 0; k < 200; ++k)
        body[k] = (uint64_t)((k * 7919) % 3000);
    double acc[600], mag[600];
    nbody_reference_accels(&s, 0.0025, body, 200, acc, mag);
    for (int k = 0; k < 200; ++k) {
        double want[3], want_mag[3];
        nbody_reference_accel(&s, 0.0025, (long)body[k], want, want_mag);
        for (int c = 0; c < 3; ++c) {
            ck_assert_msg(acc[3 * k + c] == want[c], "body %d component %d", (int)body[k], c);
            ck_assert(mag[3 * k + c] == want_mag[c]);
        }
    }
    nbody_free(&s);
}
END_TEST

START_TEST(tolerance_scales)
{
    ck_assert_double_eq(nbody_tolerance(1, 8, 1.0), 8.0 / 16777216.0);
    ck_assert_double_eq_tol(nbody_tolerance(10000, 16, 2.0), 16 * 100 * 2.0 / 16777216.0, 1e-18);
    ck_assert_double_gt(nbody_tolerance(100, 32, 1.0), nbody_tolerance(100, 16, 1.0));
}
END_TEST

START_TEST(size_rules)
{
    char why[256];
    long n = 0;
    ck_assert_int_eq(nbody_resolve_n(&n, 0, 0, 0, why, sizeof why), NBODY_SIZE_OK);
    ck_assert_int_eq(n, NBODY_DEFAULT_N);
    n = 0;
    ck_assert_int_eq(nbody_resolve_n(&n, 0, 0, 2048, why, sizeof why), NBODY_SIZE_OK);
    ck_assert_int_eq(n, 2048);
    n = 1000;
    ck_assert_int_eq(nbody_resolve_n(&n, 1, 1, 2048, why, sizeof why), NBODY_SIZE_OK);
    ck_assert_int_eq(n, 1000);
    n = -3;
    ck_assert_int_eq(nbody_resolve_n(&n, 0, 0, 0, why, sizeof why), NBODY_SIZE_BAD);
    ck_assert_ptr_nonnull(strstr(why, "from 1"));
    n = 10;
    ck_assert_int_eq(nbody_resolve_n(&n, 5, 0, 0, why, sizeof why), NBODY_SIZE_BAD);
    ck_assert_ptr_nonnull(strstr(why, "--n alone"));
    ck_assert_double_eq(nbody_flops(1000), 20.0 * 1000 * 1000);
    ck_assert_double_eq(nbody_interactions(131072), 131072.0 * 131072.0);
    ck_assert_uint_eq(nbody_bytes(10), (size_t)(10 + NBODY_PHYSICS_N) * 24 * 4);
}
END_TEST

Suite *nbody_reference_suite(void)
{
    Suite *s = suite_create("nbody_reference");
    TCase *tc = tcase_create("reference");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, two_bodies_by_hand);
    tcase_add_test(tc, three_bodies_by_hand);
    tcase_add_test(tc, one_body_feels_nothing);
    tcase_add_test(tc, float_kernel_passes_a_skipped_tile_fails);
    tcase_add_test(tc, many_bodies_on_all_cores_equal_one_at_a_time);
    tcase_add_test(tc, tolerance_scales);
    tcase_add_test(tc, size_rules);
    suite_add_tcase(s, tc);
    return s;
}

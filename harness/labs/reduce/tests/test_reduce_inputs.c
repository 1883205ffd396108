/* The reduction lab's inputs and its check (inputs.h): the elements are multiples of
 * 1/16 with positive ends, every order of float addition gives the exact sum, and a
 * result that drops an element, adds one twice or loses a tail fails the comparison
 * at every check size where that can happen. Also why the lab needs such inputs:
 * with positive real-valued inputs, float rounding at 2^24 elements is already larger
 * than an element. No GPU: pure C. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab_registry.h"
#include "cpu_sum.h"
#include "inputs.h"
#include "rng.h"
#include "verify.h"

/* Check sizes whose elements the tests materialize (the others are summed streaming) */
#define MATERIALIZED_MAX ((size_t)1 << 25)

static const struct step_table *reduce_table(void)
{
    const struct step_table *t = step_table_find("reduce");
    ck_assert_ptr_nonnull(t);
    return t;
}

static size_t check_size_n(size_t i)
{
    const struct check_size *c = &reduce_table()->check_sizes[i];
    char why[256];
    size_t n = reduce_count(c->m, c->n, c->k, why, sizeof why);
    ck_assert_msg(n > 0, "check size %zu: %s", i + 1, why);
    return n;
}

/* passes the lab's comparison (problem.c: verify_element with REDUCE_TOLERANCE) */
static int passes(double got, double want)
{
    struct verify_report r;
    verify_report_init(&r);
    verify_element(&r, 0, 0, got, want, REDUCE_TOLERANCE);
    return verify_passed(&r);
}

START_TEST(elements_are_sixteenths_with_positive_ends)
{
    size_t n = 3 * REDUCE_EDGE + 5;
    int negative = 0;
    for (size_t i = 0; i < n; ++i) {
        int k = reduce_sixteenths(RNG_DEFAULT_SEED, i, n);
        ck_assert_int_ne(k, 0);
        ck_assert_int_le(abs(k), 16);
        ck_assert(reduce_value(RNG_DEFAULT_SEED, i, n) == (float)k / 16.0f);
        if (i < REDUCE_EDGE || i >= n - REDUCE_EDGE)
            ck_assert_int_gt(k, 0);
        negative += k < 0;
    }
    /* the middle has random signs: about half of its REDUCE_EDGE + 5 are negative */
    ck_assert_int_gt(negative, (int)(REDUCE_EDGE / 2 - 2000));
    ck_assert_int_lt(negative, (int)(REDUCE_EDGE / 2 + 2000));
    /* the same element, whatever else was made, and another seed gives another */
    ck_assert_int_eq(reduce_sixteenths(7, 100000, n), reduce_sixteenths(7, 100000, n));
    int differ = 0;
    for (size_t i = 0; i < 64; ++i)
        differ += reduce_sixteenths(7, REDUCE_EDGE + i, n) !=
                  reduce_sixteenths(8, REDUCE_EDGE + i, n);
    ck_assert_int_gt(differ, 0);
}
END_TEST

/* A float sum in three orders (serial, pairwise tree, 4096 strided partial sums then
 * serial, as a grid-stride kernel adds) equals the exact sum at every materialized
 * check size, and so do the CPU rows' loops. */
START_TEST(every_order_gives_the_exact_sum)
{
    size_t n = check_size_n((size_t)_i);
    if (n > MATERIALIZED_MAX)
        return; /* summed streaming by the next test */
    float *x = malloc(n * sizeof *x);
    float *tree = malloc(n * sizeof *tree);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(tree);
    double want = (double)reduce_fill(RNG_DEFAULT_SEED, x, n) / 16.0;
    ck_assert(reduce_exact_sum(RNG_DEFAULT_SEED, n) * (1.0 / 16.0) == want);
    ck_assert(reduce_cpu_serial(x, n) == (float)want);
    ck_assert(reduce_cpu_openmp(x, n) == (float)want);
    ck_assert((double)(float)want == want);
    memcpy(tree, x, n * sizeof *x);
    for (size_t width = 1; width < n; width *= 2)
        for (size_t i = 0; i + width < n; i += 2 * width)
            tree[i] += tree[i + width];
    ck_assert(tree[0] == (float)want);
    float strided[4096] = {0}, total = 0.0f;
    for (size_t i = 0; i < n; ++i)
        strided[i % 4096] += x[i];
    for (size_t t = 0; t < 4096; ++t)
        total += strided[t];
    ck_assert(total == (float)want);
    free(x);
    free(tree);
}
END_TEST

/* The comparison passes the exact sum and fails one element dropped or added twice
 * (first, middle, last) and a lost tail of every length a block or vector width can
 * leave (n mod 2, 4, ..., 65536), at every check size. */
START_TEST(lost_or_doubled_elements_fail_at_every_check_size)
{
    size_t n = check_size_n((size_t)_i);
    uint64_t seed = RNG_DEFAULT_SEED;
    double want = (double)reduce_exact_sum(seed, n) / 16.0;
    ck_assert_msg(fabs(want) < 1048576.0, "partial sums must stay below 2^20: %g", want);
    ck_assert(passes((float)want, want));
    size_t picks[] = {0, n / 2, n - 1};
    for (size_t p = 0; p < 3; ++p) {
        double x = reduce_value(seed, picks[p], n);
        if (n > 1) /* with one element, dropping it leaves nothing to return */
            ck_assert_msg(!passes((float)(want - x), want), "n %zu: dropping %zu passed", n,
                          picks[p]);
        ck_assert_msg(!passes((float)(want + x), want), "n %zu: doubling %zu passed", n, picks[p]);
    }
    for (size_t width = 2; width <= REDUCE_EDGE; width *= 2) {
        size_t tail = n % width;
        if (tail == 0 || tail == n)
            continue;
        double lost = 0.0;
        for (size_t i = n - tail; i < n; ++i)
            lost += reduce_value(seed, i, n);
        ck_assert_msg(lost >= 1.0 / 16.0, "n %zu: a tail of %zu sums to %g", n, tail, lost);
        ck_assert_msg(!passes((float)(want - lost), want), "n %zu: losing %zu passed", n, tail);
    }
}
END_TEST

/* Why the inputs are not simply positive reals: at 2^24 + 43 floats in [0.5, 1), the
 * serial float sum is off by more than any element (so one lost element could hide in
 * the rounding), and two orders of the same floats disagree. */
START_TEST(real_inputs_round_past_an_element)
{
    size_t n = ((size_t)1 << 24) + 43;
    float *x = malloc(n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    double abs_sum;
    double exact = reduce_fill_real(RNG_DEFAULT_SEED, x, n, &abs_sum);
    float serial = reduce_cpu_serial(x, n);
    ck_assert_msg(fabs(serial - exact) > 1.0, "serial float sum off by only %g", serial - exact);
    float strided[4096] = {0}, total = 0.0f;
    for (size_t i = 0; i < n; ++i)
        strided[i % 4096] += x[i];
    for (size_t t = 0; t < 4096; ++t)
        total += strided[t];
    ck_assert(total != serial);
    /* the determinism check's bound, 2 sqrt(n) u sum|x|, holds the strided order; the
     * serial chain is far outside it here: from 2^23 on its sum's ulp is 1, and every
     * x in (0.5, 1) rounds up to a whole 1 (depth n: the worst order there is) */
    double bound = verify_tolerance((long)n, UNIT_ROUNDOFF_FP32, abs_sum);
    ck_assert_double_le(fabs(total - exact), bound);
    ck_assert_double_gt(fabs(serial - exact), bound);
    free(x);
}
END_TEST

START_TEST(sizes_are_m_times_n_from_one)
{
    char why[256] = "";
    ck_assert_uint_eq(reduce_count(1, 1, 1, why, sizeof why), 1);
    ck_assert_uint_eq(reduce_count(2, 1073741833, 1, why, sizeof why), 2147483666u);
    ck_assert_uint_eq(reduce_count(1, 0, 1, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "m, n >= 1"));
    ck_assert_uint_eq(reduce_count(1, 5, 2, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "k = 1"));
    ck_assert_uint_eq(reduce_count(1L << 20, 1L << 20, 1, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "at most 2^36"));
    /* the largest check size passes 2^31, as it says */
    const struct step_table *t = reduce_table();
    ck_assert_uint_gt(check_size_n(t->check_size_count - 1), (size_t)1 << 31);
    ck_assert_uint_eq(check_size_n(0), 1);
}
END_TEST

Suite *reduce_inputs_suite(void)
{
    Suite *s = suite_create("reduce_inputs");
    TCase *tc = tcase_create("reduce inputs and check");
    tcase_set_timeout(tc, 300);
    /* (no ck_assert out here: Check allows them inside a test only) */
    const struct step_table *t = step_table_find("reduce");
    int sizes = t != NULL ? (int)t->check_size_count : 1;
    tcase_add_test(tc, elements_are_sixteenths_with_positive_ends);
    tcase_add_loop_test(tc, every_order_gives_the_exact_sum, 0, sizes);
    tcase_add_loop_test(tc, lost_or_doubled_elements_fail_at_every_check_size, 0, sizes);
    tcase_add_test(tc, real_inputs_round_past_an_element);
    tcase_add_test(tc, sizes_are_m_times_n_from_one);
    suite_add_tcase(s, tc);
    return s;
}

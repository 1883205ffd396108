/* Tolerance, comparison and the choice of elements to check. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"

START_TEST(tolerance_scales_with_length_and_precision)
{
    double t1 = verify_tolerance(1, UNIT_ROUNDOFF_FP32, 1.0);
    double t4 = verify_tolerance(4, UNIT_ROUNDOFF_FP32, 1.0);
    double t4096 = verify_tolerance(4096, UNIT_ROUNDOFF_FP32, 1.0);
    ck_assert_double_eq_tol(t4 / t1, 2.0, 1e-12);      /* sqrt(4) */
    ck_assert_double_eq_tol(t4096 / t1, 64.0, 1e-12);  /* sqrt(4096) */
    ck_assert_double_eq_tol(t1, 2.0 / 16777216.0, 1e-20);
    double tf32 = verify_tolerance(4096, UNIT_ROUNDOFF_TF32, 1.0);
    ck_assert_double_eq_tol(tf32 / t4096, 8192.0, 1e-9); /* 2^-11 / 2^-24 */
    ck_assert_double_eq(verify_tolerance(4096, UNIT_ROUNDOFF_FP32, 0.0), 0.0);
}
END_TEST

START_TEST(exact_and_close_pass_far_fails)
{
    struct verify_report r;
    verify_report_init(&r);
    ck_assert_int_eq(verify_element(&r, 0, 0, 1.0, 1.0, 0.0), 1);
    ck_assert_int_eq(verify_element(&r, 0, 1, 1.0 + 1e-7, 1.0, 1e-6), 1);
    ck_assert_int_eq(verify_element(&r, 2, 3, 1.1, 1.0, 1e-3), 0);
    ck_assert_uint_eq(r.checked, 3);
    ck_assert_uint_eq(r.failed, 1);
    ck_assert_uint_eq(r.reported, 1);
    ck_assert_int_eq(r.first[0].row, 2);
    ck_assert_int_eq(r.first[0].col, 3);
    ck_assert_double_eq_tol(r.max_abs_error, 0.1, 1e-12);
    ck_assert_double_eq_tol(r.max_error_ratio, 100.0, 1e-6);
    ck_assert_int_eq(verify_passed(&r), 0);
}
END_TEST

/* What verify_report_print writes, as a malloc'ed string. */
static char *report_text(const struct verify_report *r, const char *what)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    verify_report_print(out, r, what);
    fclose(out);
    return text;
}

START_TEST(wrong_values_show_error_and_tolerance)
{
    struct verify_report r;
    verify_report_init(&r);
    verify_element(&r, 3, 4, 2.5, 2.0, 0.125);
    char *text = report_text(&r, "x");
    ck_assert_ptr_nonnull(strstr(text, "FAIL x: 1 of 1 checked elements are wrong (0 never written)"));
    ck_assert_ptr_nonnull(strstr(text, "[3, 4] got 2.5, expected 2 (|error| 0.5 > tolerance 0.125)"));
    free(text);
}
END_TEST

START_TEST(nan_and_infinity_fail)
{
    struct verify_report r;
    verify_report_init(&r);
    ck_assert_int_eq(verify_element(&r, 0, 0, NAN, 0.0, 1e30), 0);
    ck_assert_int_eq(verify_element(&r, 0, 1, INFINITY, 0.0, 1e30), 0);
    ck_assert_uint_eq(r.failed, 2);
    ck_assert_uint_eq(r.still_poison, 1);
    ck_assert(isinf(r.max_abs_error));
}
END_TEST

START_TEST(nothing_checked_is_not_a_pass)
{
    struct verify_report r;
    verify_report_init(&r);
    ck_assert_int_eq(verify_passed(&r), 0);
}
END_TEST

START_TEST(report_names_first_ten_and_poison)
{
    struct verify_report r;
    verify_report_init(&r);
    for (int i = 0; i < 25; ++i)
        verify_element(&r, i, i + 1, NAN, 1.0, 1e-6);
    ck_assert_uint_eq(r.failed, 25);
    ck_assert_uint_eq(r.reported, VERIFY_MAX_REPORTED);
    char *text = report_text(&r, "demo 02-shared");
    ck_assert_ptr_nonnull(strstr(text, "FAIL demo 02-shared"));
    ck_assert_ptr_nonnull(strstr(text, "the kernel wrote nothing"));
    ck_assert_ptr_nonnull(strstr(text, "[0, 1] got NaN (never written"));
    ck_assert_ptr_nonnull(strstr(text, "[9, 10]"));
    ck_assert_ptr_null(strstr(text, "[10, 11]"));
    ck_assert_ptr_nonnull(strstr(text, "and 15 more"));
    free(text);
}
END_TEST

START_TEST(small_results_are_checked_whole)
{
    uint64_t *idx = NULL;
    size_t n = verify_sample(3, 5, 100, 16, 50, 1, &idx);
    ck_assert_uint_eq(n, 15);
    for (size_t i = 0; i < n; ++i)
        ck_assert_uint_eq(idx[i], i);
    free(idx);
}
END_TEST

static int contains(const uint64_t *idx, size_t n, uint64_t value)
{
    for (size_t i = 0; i < n; ++i)
        if (idx[i] == value)
            return 1;
    return 0;
}

START_TEST(large_results_sample_corners_edges_and_random)
{
    const long rows = 4096, cols = 3000;
    uint64_t *idx = NULL;
    size_t n = verify_sample(rows, cols, 1000, 1024, 4096, 7, &idx);
    ck_assert_uint_ge(n, 4096);
    ck_assert_uint_le(n, 4 + 4 * 1024 + 4096);
    uint64_t c = (uint64_t)cols, last = (uint64_t)(rows - 1) * c;
    ck_assert(contains(idx, n, 0));
    ck_assert(contains(idx, n, c - 1));
    ck_assert(contains(idx, n, last));
    ck_assert(contains(idx, n, last + c - 1));
    size_t first_row = 0, interior = 0;
    for (size_t i = 0; i < n; ++i) {
        ck_assert_uint_lt(idx[i], (uint64_t)rows * c);
        if (i > 0)
            ck_assert_uint_gt(idx[i], idx[i - 1]); /* sorted, no duplicates */
        long row = (long)(idx[i] / c), col = (long)(idx[i] % c);
        first_row += row == 0;
        interior += row > 0 && row < rows - 1 && col > 0 && col < cols - 1;
    }
    ck_assert_uint_eq(first_row, 1024);  /* an edge is capped at 1024, evenly spread */
    ck_assert_uint_gt(interior, 4000);   /* random elements land inside */
    free(idx);
    /* same seed, same sample; other seed, other sample */
    uint64_t *again = NULL, *other = NULL;
    size_t n2 = verify_sample(rows, cols, 1000, 1024, 4096, 7, &again);
    size_t n3 = verify_sample(rows, cols, 1000, 1024, 4096, 8, &other);
    ck_assert_uint_eq(n2, n);
    ck_assert_uint_ne(n3 == n ? memcmp(again, other, n * sizeof *again) : 1, 0);
    free(again);
    free(other);
}
END_TEST

START_TEST(single_row_and_column)
{
    uint64_t *idx = NULL;
    size_t n = verify_sample(1, 100000, 10, 8, 20, 1, &idx);
    ck_assert_uint_gt(n, 8);
    ck_assert(contains(idx, n, 0));
    ck_assert(contains(idx, n, 99999));
    free(idx);
    n = verify_sample(100000, 1, 10, 8, 20, 1, &idx);
    ck_assert(contains(idx, n, 99999));
    free(idx);
}
END_TEST

Suite *verify_suite(void)
{
    Suite *s = suite_create("verify");
    TCase *tc = tcase_create("compare");
    tcase_add_test(tc, tolerance_scales_with_length_and_precision);
    tcase_add_test(tc, exact_and_close_pass_far_fails);
    tcase_add_test(tc, nan_and_infinity_fail);
    tcase_add_test(tc, nothing_checked_is_not_a_pass);
    tcase_add_test(tc, report_names_first_ten_and_poison);
    tcase_add_test(tc, wrong_values_show_error_and_tolerance);
    suite_add_tcase(s, tc);
    tc = tcase_create("sample");
    tcase_add_test(tc, small_results_are_checked_whole);
    tcase_add_test(tc, large_results_sample_corners_edges_and_random);
    tcase_add_test(tc, single_row_and_column);
    suite_add_tcase(s, tc);
    return s;
}

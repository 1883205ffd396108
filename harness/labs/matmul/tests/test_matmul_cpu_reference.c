/* The CPU reference of the matmul lab against hand-computed cases, and its size
 * rules. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_reference.h"
#include "verify.h"

START_TEST(two_by_two_by_hand)
{
    /* [1 2; 3 4] x [5 6; 7 8] = [19 22; 43 50] */
    const float a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8};
    double abs_sum;
    ck_assert_double_eq(matmul_reference_element(a, b, 2, 2, 0, 0, &abs_sum), 19.0);
    ck_assert_double_eq(abs_sum, 19.0);
    ck_assert_double_eq(matmul_reference_element(a, b, 2, 2, 0, 1, NULL), 22.0);
    ck_assert_double_eq(matmul_reference_element(a, b, 2, 2, 1, 0, NULL), 43.0);
    ck_assert_double_eq(matmul_reference_element(a, b, 2, 2, 1, 1, NULL), 50.0);
}
END_TEST

START_TEST(rectangular_with_signs)
{
    /* A is 2x3, B is 3x1: [1 -2 3; 0 .5 -1] x [2; 4; -1] = [-9; 3] */
    const float a[] = {1, -2, 3, 0, 0.5f, -1}, b[] = {2, 4, -1};
    double abs_sum;
    ck_assert_double_eq(matmul_reference_element(a, b, 1, 3, 0, 0, &abs_sum), -9.0);
    ck_assert_double_eq(abs_sum, 2 + 8 + 3);
    ck_assert_double_eq(matmul_reference_element(a, b, 1, 3, 1, 0, &abs_sum), 3.0);
    ck_assert_double_eq(abs_sum, 0 + 2 + 1);
}
END_TEST

START_TEST(row_equals_elements)
{
    const long m = 5, n = 7, k = 9;
    float *a = malloc(m * k * sizeof *a), *b = malloc(k * n * sizeof *b);
    matmul_generate(a, b, m, n, k, 11);
    double out[7], mag[7];
    for (long row = 0; row < m; ++row) {
        matmul_reference_row(a, b, n, k, row, out, mag);
        for (long col = 0; col < n; ++col) {
            double abs_sum;
            double want = matmul_reference_element(a, b, n, k, row, col, &abs_sum);
            ck_assert_double_eq_tol(out[col], want, 1e-12);
            ck_assert_double_eq_tol(mag[col], abs_sum, 1e-12);
        }
    }
    free(a);
    free(b);
}
END_TEST

START_TEST(float_accumulation_passes_a_missing_term_fails)
{
    /* The tolerance must accept what a correct float kernel computes and reject
     * a result that skipped one 16-wide tile of the k loop. */
    const long m = 4, n = 4, k = 4096;
    float *a = malloc(m * k * sizeof *a), *b = malloc(k * n * sizeof *b);
    matmul_generate(a, b, m, n, k, 5);
    for (long row = 0; row < m; ++row)
        for (long col = 0; col < n; ++col) {
            float sum = 0.0f, skipped = 0.0f;
            for (long i = 0; i < k; ++i) {
                float p = a[row * k + i] * b[i * n + col];
                sum += p;
                if (i < 16)
                    skipped += p;
            }
            double abs_sum;
            double want = matmul_reference_element(a, b, n, k, row, col, &abs_sum);
            double tol = verify_tolerance(k, UNIT_ROUNDOFF_FP32, abs_sum);
            ck_assert_double_le(fabs(sum - want), tol);
            ck_assert_double_gt(fabs((sum - skipped) - want), tol);
        }
    free(a);
    free(b);
}
END_TEST

START_TEST(inputs_are_reproducible_and_varied)
{
    float a1[64], b1[64], a2[64], b2[64], a3[64], b3[64];
    matmul_generate(a1, b1, 8, 8, 8, 1);
    matmul_generate(a2, b2, 8, 8, 8, 1);
    matmul_generate(a3, b3, 8, 8, 8, 2);
    ck_assert_int_eq(memcmp(a1, a2, sizeof a1), 0);
    ck_assert_int_eq(memcmp(b1, b2, sizeof b1), 0);
    ck_assert_int_ne(memcmp(a1, a3, sizeof a1), 0);
    ck_assert_int_ne(memcmp(a1, b1, sizeof a1), 0); /* A and B are different streams */
    int distinct = 0;
    for (int i = 1; i < 64; ++i)
        distinct += a1[i] != a1[0];
    ck_assert_int_gt(distinct, 60);
}
END_TEST

START_TEST(size_rules)
{
    char why[256];
    struct problem_size s = {0, 0, 0, NULL};
    ck_assert_int_eq(matmul_resolve_size(&s, why, sizeof why), LAB_OK);
    ck_assert_int_eq(s.m, 4096);
    ck_assert_int_eq(s.k, 4096);
    s = (struct problem_size){0, 17, 0, NULL};
    ck_assert_int_eq(matmul_resolve_size(&s, why, sizeof why), LAB_OK);
    ck_assert_int_eq(s.m, 17);
    ck_assert_int_eq(s.k, 17);
    /* more than 2^31 elements per matrix is fine: memory decides, on the GPU */
    s = (struct problem_size){60000, 60000, 60000, NULL};
    ck_assert_int_eq(matmul_resolve_size(&s, why, sizeof why), LAB_OK);
    s = (struct problem_size){1, 1, 2147483647L, NULL};
    ck_assert_int_eq(matmul_resolve_size(&s, why, sizeof why), LAB_OK);
    s = (struct problem_size){1, 1, 3000000000L, NULL};
    ck_assert_int_eq(matmul_resolve_size(&s, why, sizeof why), LAB_BAD_SIZE);
    ck_assert_ptr_nonnull(strstr(why, "at most 2147483647"));
    /* the grid's limits are each step's to check at launch, not the lab's */
    s = (struct problem_size){2147483647L, 1, 1, NULL};
    ck_assert_int_eq(matmul_resolve_size(&s, why, sizeof why), LAB_OK);
    s = (struct problem_size){-1, 5, 5, NULL};
    ck_assert_int_eq(matmul_resolve_size(&s, why, sizeof why), LAB_BAD_SIZE);
}
END_TEST

START_TEST(flops_bytes_and_size_text)
{
    struct problem_size s = {1023, 1025, 999, NULL};
    ck_assert_double_eq(matmul_flop_count(&s, NULL), 2.0 * 1023 * 1025 * 999);
    ck_assert_double_eq(matmul_device_bytes(&s), 4.0 * (1023.0 * 999 + 999.0 * 1025 + 1023.0 * 1025));
    /* three matrices of 2^31 - 1 squared floats: more bytes than a size_t counts */
    struct problem_size huge = {2147483647L, 2147483647L, 2147483647L, NULL};
    ck_assert(matmul_device_bytes(&huge) > 5e19);
    char text[64];
    matmul_format_size(&s, text, sizeof text);
    ck_assert_str_eq(text, "1023x1025x999");
    s = (struct problem_size){4096, 4096, 4096, NULL};
    matmul_format_size(&s, text, sizeof text);
    ck_assert_str_eq(text, "4096^3");
}
END_TEST

Suite *matmul_cpu_reference_suite(void)
{
    Suite *s = suite_create("matmul_cpu_reference");
    TCase *tc = tcase_create("reference");
    tcase_add_test(tc, two_by_two_by_hand);
    tcase_add_test(tc, rectangular_with_signs);
    tcase_add_test(tc, row_equals_elements);
    tcase_add_test(tc, float_accumulation_passes_a_missing_term_fails);
    tcase_add_test(tc, inputs_are_reproducible_and_varied);
    tcase_add_test(tc, size_rules);
    tcase_add_test(tc, flops_bytes_and_size_text);
    suite_add_tcase(s, tc);
    return s;
}

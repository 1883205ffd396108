/* The step tables, and that every listed step has its file in both trees. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "steps.h"

START_TEST(matmul_table_order_and_lookup)
{
    const struct lab_steps *t = steps_find_lab("matmul");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_ge(t->count, 2);
    ck_assert_str_eq(t->steps[0].id, "01");
    ck_assert_str_eq(t->steps[0].name, "naive");
    ck_assert_str_eq(t->steps[1].id, "02");
    ck_assert_str_eq(t->steps[1].name, "tiled");
    ck_assert_ptr_eq(steps_find(t, "02"), &t->steps[1]);
    ck_assert_ptr_eq(steps_find(t, "2"), &t->steps[1]);
    ck_assert_ptr_eq(steps_find(t, "tiled"), &t->steps[1]);
    ck_assert_ptr_eq(steps_find(t, "02-tiled"), &t->steps[1]);
    ck_assert_ptr_null(steps_find(t, "99"));
    ck_assert_ptr_null(steps_find(t, "tile"));
    ck_assert_ptr_null(steps_find(t, ""));
    ck_assert_int_eq(steps_index(t, &t->steps[1]), 1);
    ck_assert_ptr_null(steps_find_lab("nosuchlab"));
    ck_assert_ptr_null(steps_find_lab(NULL));
}
END_TEST

START_TEST(ids_are_zero_padded_increasing_and_unique)
{
    for (const struct lab_steps *t = lab_step_tables; t->lab != NULL; ++t) {
        for (size_t i = 0; i < t->count; ++i) {
            ck_assert_uint_eq(strlen(t->steps[i].id), 2);
            ck_assert_ptr_nonnull(t->steps[i].summary);
            ck_assert_uint_gt(strlen(t->steps[i].summary), 10);
            if (i > 0)
                ck_assert_int_gt(strcmp(t->steps[i].id, t->steps[i - 1].id), 0);
            for (size_t j = 0; j < i; ++j)
                ck_assert_str_ne(t->steps[i].name, t->steps[j].name);
        }
    }
}
END_TEST

START_TEST(every_step_has_a_lab_file_and_a_solution)
{
    for (const struct lab_steps *t = lab_step_tables; t->lab != NULL; ++t) {
        for (size_t i = 0; i < t->count; ++i) {
            char stem[128], path[256];
            steps_stem(&t->steps[i], stem, sizeof stem);
            snprintf(path, sizeof path, "labs/%s/%s.cu", t->lab, stem);
            ck_assert_msg(access(path, R_OK) == 0, "%s is missing", path);
            snprintf(path, sizeof path, "solutions/%s/%s.cu", t->lab, stem);
            ck_assert_msg(access(path, R_OK) == 0, "%s is missing", path);
        }
    }
}
END_TEST

Suite *steps_suite(void)
{
    Suite *s = suite_create("steps");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, matmul_table_order_and_lookup);
    tcase_add_test(tc, ids_are_zero_padded_increasing_and_unique);
    tcase_add_test(tc, every_step_has_a_lab_file_and_a_solution);
    suite_add_tcase(s, tc);
    return s;
}

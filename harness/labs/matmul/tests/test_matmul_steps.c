/* The matmul lab's step table: order and the ways a student names a step. */
#include <check.h>
#include <stddef.h>

#include "lab_registry.h"

START_TEST(matmul_table_order_and_lookup)
{
    const struct step_table *t = step_table_find("matmul");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_ge(t->count, 2);
    ck_assert_str_eq(t->steps[0].id, "01");
    ck_assert_str_eq(t->steps[0].name, "naive");
    ck_assert_str_eq(t->steps[1].id, "02");
    ck_assert_str_eq(t->steps[1].name, "tiled");
    ck_assert_ptr_eq(step_table_step(t, "02"), &t->steps[1]);
    ck_assert_ptr_eq(step_table_step(t, "2"), &t->steps[1]);
    ck_assert_ptr_eq(step_table_step(t, "tiled"), &t->steps[1]);
    ck_assert_ptr_eq(step_table_step(t, "02-tiled"), &t->steps[1]);
    ck_assert_ptr_null(step_table_step(t, "99"));
    ck_assert_ptr_null(step_table_step(t, "tile"));
    ck_assert_ptr_null(step_table_step(t, ""));
    ck_assert_int_eq(step_table_index(t, &t->steps[1]), 1);
    ck_assert_ptr_null(step_table_find("nosuchlab"));
    ck_assert_ptr_null(step_table_find(NULL));
}
END_TEST

Suite *matmul_steps_suite(void)
{
    Suite *s = suite_create("matmul_steps");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, matmul_table_order_and_lookup);
    suite_add_tcase(s, tc);
    return s;
}

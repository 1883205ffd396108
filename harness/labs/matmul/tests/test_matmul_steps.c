/* The matmul lab's step table: order and the ways a student names a step. */
#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lab_registry.h"
#include "util.h"

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

/* A build variable a step cannot take (TILE=0 reached the compiler as a division by
 * zero, TILE=64 built and ran) stops make before anything is compiled: exit 2, one line
 * naming the variable and what it may be. */
START_TEST(matmul_build_variables_refused_before_compiling)
{
    const char *cases[][2] = {{"TILE=0", "TILE=0: the tile side of step 02 is a whole number from 1 to 32"},
                              {"TILE=64", "TILE=64:"}, {"TILE=x", "TILE=x:"},
                              {"RESULTS=3", "RESULTS=3: step 05's results per thread is one of 1 2 4"},
                              {"UNROLL=3", "UNROLL=3:"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char command[256];
        snprintf(command, sizeof command, "make --no-print-directory -n '%s' bin/occupancy", cases[i][0]);
        char *argv[] = {"/bin/sh", "-c", command, NULL};
        char out[4096], err[4096];
        int rc = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
        ck_assert_msg(rc == 2, "make %s: exit %d (%s)", cases[i][0], rc, err);
        ck_assert_msg(strstr(err, cases[i][1]) != NULL && count_lines(err) == 1, "make %s: %s",
                      cases[i][0], err);
        ck_assert_str_eq(out, "");
    }
    char *ok[] = {"/bin/sh", "-c",
                  "make --no-print-directory -n TILE=8 RESULTS=2 UNROLL=0 bin/occupancy", NULL};
    char out[4096], err[4096];
    ck_assert_int_eq(run_capture(ok, NULL, out, sizeof out, err, sizeof err), 0);
}
END_TEST

Suite *matmul_steps_suite(void)
{
    Suite *s = suite_create("matmul_steps");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, matmul_table_order_and_lookup);
    tcase_add_test(tc, matmul_build_variables_refused_before_compiling);
    tcase_set_timeout(tc, 120); /* each make -n reads the whole Makefile */
    suite_add_tcase(s, tc);
    return s;
}

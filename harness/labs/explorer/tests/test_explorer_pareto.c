/* The Pareto filter on hand-made point sets. */
#include <check.h>

#include "metrics.h"

START_TEST(a_staircase_and_the_points_under_it)
{
    /* front: (1,5) (2,4) (4,2) (5,1); under it: (1,1) (2,3) (3,2) (4,1) */
    const double e[] = {1, 2, 4, 5, 1, 2, 3, 4};
    const double u[] = {5, 4, 2, 1, 1, 3, 2, 1};
    int front[8];
    ck_assert_int_eq(explorer_pareto(e, u, NULL, 8, front), 4);
    const int expect[] = {1, 1, 1, 1, 0, 0, 0, 0};
    for (int i = 0; i < 8; ++i)
        ck_assert_int_eq(front[i], expect[i]);
}
END_TEST

START_TEST(one_point_best_in_both_is_the_whole_front)
{
    const double e[] = {1, 2, 3, 9}, u[] = {3, 2, 1, 9};
    int front[4];
    ck_assert_int_eq(explorer_pareto(e, u, NULL, 4, front), 1);
    ck_assert_int_eq(front[3], 1);
}
END_TEST

START_TEST(equal_points_both_stay_and_a_tie_on_one_axis_is_dominated)
{
    /* (2,2) twice: neither dominates the other; (2,1) loses to (2,2) on one axis */
    const double e[] = {2, 2, 2}, u[] = {2, 2, 1};
    int front[3];
    ck_assert_int_eq(explorer_pareto(e, u, NULL, 3, front), 2);
    ck_assert_int_eq(front[0], 1);
    ck_assert_int_eq(front[1], 1);
    ck_assert_int_eq(front[2], 0);
}
END_TEST

START_TEST(invalid_points_take_no_part)
{
    /* the dominating point (9,9) is not valid (it did not build): the others are judged alone */
    const double e[] = {9, 1, 2}, u[] = {9, 2, 1};
    const int valid[] = {0, 1, 1};
    int front[3];
    ck_assert_int_eq(explorer_pareto(e, u, valid, 3, front), 2);
    ck_assert_int_eq(front[0], 0);
    ck_assert_int_eq(front[1], 1);
    ck_assert_int_eq(front[2], 1);
    ck_assert_int_eq(explorer_pareto(e, u, valid, 0, front), 0);
}
END_TEST

Suite *explorer_pareto_suite(void)
{
    Suite *s = suite_create("explorer_pareto");
    TCase *tc = tcase_create("pareto");
    tcase_add_test(tc, a_staircase_and_the_points_under_it);
    tcase_add_test(tc, one_point_best_in_both_is_the_whole_front);
    tcase_add_test(tc, equal_points_both_stay_and_a_tie_on_one_axis_is_dominated);
    tcase_add_test(tc, invalid_points_take_no_part);
    suite_add_tcase(s, tc);
    return s;
}

/* The reduce lab's shortcuts graded on a GPU: tests/submissions at reduce step 09 (a
 * memory-bound step) in one bin/lab grade-all, a case of its own that the runner runs
 * beside the other suites' (tests/side_by_side.h): a library call earns no technique or
 * speed points, a step that writes into its inputs and one that sets a persisting L2
 * window lose the step. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "grading_cases.h"
#include "side_by_side.h"
#include "util.h"

static char *reduce_dir, reduce_book[700];
static char reduce_out[1 << 16], reduce_err[1 << 15];
static int reduce_code, reduce_kept;

static void grade_reduce(void)
{
    reduce_dir = grading_case_dir("reduce", "grade-reduce", &reduce_kept);
    if (reduce_dir == NULL)
        return;
    snprintf(reduce_book, sizeof reduce_book, "%s/reduce-09.csv", reduce_dir);
    reduce_code = grading_case_grade_all("tests/submissions", reduce_book, NULL, "reduce", "09", reduce_out,
                                         sizeof reduce_out, reduce_err, sizeof reduce_err);
}

static void remove_reduce(void)
{
    grading_case_dir_remove(reduce_dir, reduce_kept);
    reduce_dir = NULL;
}

static char *reduce_report(const char *student)
{
    ck_assert_ptr_nonnull(reduce_dir);
    return grading_case_report(reduce_book, student, reduce_code, reduce_out, reduce_err);
}

/* cub::DeviceReduce::Sum in launch: CUB's kernels in the step's own SASS and among
 * what its speed run launched; the technique fails naming one, no speed points. */
START_TEST(a_library_call_earns_no_technique_or_speed)
{
    char *r = reduce_report("library-call");
    ck_assert_msg(strstr(r, "reduce/09-warp-shuffle technique FAIL 0/1") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "a kernel its source does not define") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "cub::") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "reduce/09-warp-shuffle speed FAIL 0/2") != NULL, "%s", r);
    free(r);
}
END_TEST

START_TEST(a_step_that_writes_into_its_inputs_loses_the_step)
{
    char *r = reduce_report("writes-inputs");
    ck_assert_msg(strstr(r, "reduce/09-warp-shuffle correct FAIL 0/4") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "after timing") != NULL, "%s", r);
    free(r);
}
END_TEST

START_TEST(a_persisting_l2_window_fails_every_run)
{
    char *r = reduce_report("l2-persisting");
    ck_assert_msg(strstr(r, "reduce/09-warp-shuffle correct FAIL 0/4") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "persisting accesses") != NULL || strstr(r, "access-policy window") != NULL,
                  "%s", r);
    free(r);
}
END_TEST

static const char *const names[] = {
    "a_library_call_earns_no_technique_or_speed",
    "a_step_that_writes_into_its_inputs_loses_the_step",
    "a_persisting_l2_window_fails_every_run",
};

size_t reduce_grading_gpu_case_names(const char **out_names, size_t max)
{
    return UTIL_CASE_NAMES(names, out_names, max);
}

Suite *reduce_grading_gpu_suite(void)
{
    Suite *s = suite_create("reduce_grading_gpu");
    TCase *reduce = side_by_side_tcase(s, "reduce_grading_gpu", "reduce_shortcuts", 60, 0);
    tcase_add_unchecked_fixture(reduce, grade_reduce, remove_reduce);
    tcase_add_test(reduce, a_library_call_earns_no_technique_or_speed);
    tcase_add_test(reduce, a_step_that_writes_into_its_inputs_loses_the_step);
    tcase_add_test(reduce, a_persisting_l2_window_fails_every_run);
    return s;
}

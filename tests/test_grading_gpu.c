/* Grading on a GPU: the solutions tree earns full marks, and each deliberately wrong
 * submission of tests/submissions/ loses the right points with the right reason.
 * The class is graded once (bin/lab grade-all, step 02), in an unchecked fixture;
 * each case reads one student's report. LAB_GRADING_KEEP=dir grades into dir and
 * keeps the gradebooks, reports and JUnit files there (the H100 verification). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csv.h"
#include "util.h"

static char *dir;
static char book[600], sol_book[600];
static char out[1 << 17], err[1 << 16], sol_out[1 << 16], sol_err[1 << 16];
static int code, sol_code, keeping;

static void grade_everything(void)
{
    const char *keep = getenv("LAB_GRADING_KEEP");
    keeping = keep != NULL && keep[0] != '\0';
    dir = keeping ? strdup(keep) : util_temp_dir("grade-gpu");
    if (dir == NULL)
        return;
    if (keeping)
        mkdir(dir, 0777);
    snprintf(book, sizeof book, "%s/class.csv", dir);
    snprintf(sol_book, sizeof sol_book, "%s/solutions.csv", dir);
    char lab[512];
    bin_path("lab", lab, sizeof lab);
    const char *sanitizer = getenv("COMPUTE_SANITIZER");
    char *env[] = {"MAKEFLAGS=", NULL};
    char *sol[] = {lab, "grade", "--submission", "solutions", "--student", "solutions",
                   "--gradebook", sol_book, "--sanitizer", (char *)(sanitizer ? sanitizer : ""),
                   NULL};
    sol_code = run_capture(sol, (const char *const *)env, sol_out, sizeof sol_out, sol_err,
                           sizeof sol_err);
    char *cls[] = {lab, "grade-all", "--submissions", "tests/submissions", "--gradebook", book,
                   "--sanitizer", (char *)(sanitizer ? sanitizer : ""), "matmul", "02", NULL};
    code = run_capture(cls, (const char *const *)env, out, sizeof out, err, sizeof err);
    printf("%s%s", sol_out, out);
}

static void remove_everything(void)
{
    if (dir != NULL && !keeping)
        util_remove_tree(dir);
    free(dir);
    dir = NULL;
}

static char *report_of(const char *reports, const char *student)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/%s.txt", dir, reports, student);
    char *text = util_read_file(path, NULL);
    ck_assert_msg(text != NULL, "no report %s (exit %d)\n%s\n%s", path, code, out, err);
    return text;
}

/* The report line "  matmul/02-tiled <check> <STATE> <got>/<of>" and what follows it
 * up to the next check's line must hold also (when not NULL). */
static void expect(const char *report, const char *line_start, const char *also)
{
    const char *hit = strstr(report, line_start);
    ck_assert_msg(hit != NULL, "no '%s' in\n%s", line_start, report);
    if (also == NULL)
        return;
    const char *end = strstr(hit + 1, "\n  matmul/");
    size_t len = end ? (size_t)(end - hit) : strlen(hit);
    char *part = strndup(hit, len);
    int found = strstr(part, also) != NULL;
    free(part);
    ck_assert_msg(found, "'%s' does not say '%s':\n%s", line_start, also, report);
}

START_TEST(solutions_earn_full_marks)
{
    ck_assert_msg(sol_code == 0, "grading solutions/ exited %d\n%s\n%s", sol_code, sol_out, sol_err);
    struct csv_table t;
    char why[256];
    ck_assert_int_eq(csv_read_file(sol_book, &t, why, sizeof why), 0);
    ck_assert_uint_eq(t.nrows, 1);
    ck_assert_str_eq(csv_get(&t, 0, "total"), csv_get(&t, 0, "max"));
    ck_assert_str_eq(csv_get(&t, 0, "not_run"), "0");
    csv_free(&t);
    char *r = report_of("solutions.reports", "solutions");
    ck_assert_ptr_null(strstr(r, " FAIL "));
    ck_assert_ptr_null(strstr(r, " not-run "));
    free(r);
}
END_TEST

START_TEST(missing_barrier_loses_racecheck)
{
    char *r = report_of("class.reports", "missing-barrier");
    expect(r, "matmul/02-tiled racecheck FAIL 0/1", "Race reported between Write access");
    expect(r, "matmul/02-tiled memcheck PASS", NULL);
    free(r);
}
END_TEST

START_TEST(out_of_bounds_read_loses_memcheck_though_correct)
{
    char *r = report_of("class.reports", "oob-read");
    expect(r, "matmul/02-tiled correct PASS 4/4", "9 of 9");
    expect(r, "matmul/02-tiled memcheck FAIL 0/1", "Invalid __global__ read");
    free(r);
}
END_TEST

START_TEST(off_by_one_at_the_edge_loses_the_step)
{
    char *r = report_of("class.reports", "off-by-one-edge");
    expect(r, "matmul/02-tiled correct FAIL", "5 of 9 check sizes correct; first failure at 1x1x1");
    ck_assert_ptr_nonnull(strstr(r, "matmul/02-tiled: 0 of 11"));
    expect(r, "matmul/02-tiled speed FAIL 0/2", "results are wrong");
    free(r);
}
END_TEST

START_TEST(partial_write_loses_the_step)
{
    char *r = report_of("class.reports", "partial-write");
    expect(r, "matmul/02-tiled correct FAIL", "5 of 9 check sizes correct");
    ck_assert_ptr_nonnull(strstr(r, "matmul/02-tiled: 0 of 11"));
    free(r);
}
END_TEST

START_TEST(writing_nothing_loses_the_step)
{
    char *r = report_of("class.reports", "writes-nothing");
    expect(r, "matmul/02-tiled correct FAIL", "0 of 9 check sizes correct");
    expect(r, "matmul/02-tiled technique FAIL", "uses no shared memory");
    free(r);
}
END_TEST

START_TEST(a_kernel_that_never_finishes_is_killed_and_grading_goes_on)
{
    char *r = report_of("class.reports", "never-finishes");
    expect(r, "matmul/02-tiled correct FAIL", "did not finish within");
    expect(r, "matmul/02-tiled racecheck not-run", "does not finish");
    free(r);
    /* the GPU was usable for the next submission: it ran and passed sizes */
    r = report_of("class.reports", "off-by-one-edge");
    expect(r, "matmul/02-tiled correct FAIL", "5 of 9");
    free(r);
}
END_TEST

START_TEST(compile_error_is_graded_as_such)
{
    char *r = report_of("class.reports", "does-not-compile");
    ck_assert_ptr_nonnull(strstr(r, "(compile error)"));
    expect(r, "matmul/02-tiled build FAIL 0/1", "__syncthread");
    free(r);
}
END_TEST

START_TEST(ignoring_the_technique_loses_its_point)
{
    char *r = report_of("class.reports", "ignores-technique");
    expect(r, "matmul/02-tiled correct PASS 4/4", NULL);
    expect(r, "matmul/02-tiled memcheck PASS", NULL);
    expect(r, "matmul/02-tiled racecheck PASS", NULL);
    expect(r, "matmul/02-tiled technique FAIL 0/1", "uses no shared memory");
    expect(r, "matmul/02-tiled speed", "x the reference solution's speed");
    free(r);
}
END_TEST

START_TEST(todo_step_earns_nothing)
{
    char *r = report_of("class.reports", "still-todo");
    ck_assert_ptr_nonnull(strstr(r, "matmul/02-tiled: 0 of 11 (TODO)"));
    free(r);
}
END_TEST

START_TEST(class_gradebook_has_a_row_per_student)
{
    ck_assert_msg(code == 0, "grade-all exited %d\n%s\n%s", code, out, err);
    struct csv_table t;
    char why[256];
    ck_assert_int_eq(csv_read_file(book, &t, why, sizeof why), 0);
    ck_assert_uint_eq(t.nrows, 9);
    for (size_t row = 0; row < t.nrows; ++row) /* none of them earns full marks */
        ck_assert_msg(strcmp(csv_get(&t, row, "total"), csv_get(&t, row, "max")) != 0, "%s",
                      csv_get(&t, row, "student"));
    csv_free(&t);
}
END_TEST

static const char *const names[] = {
    "solutions_earn_full_marks",
    "missing_barrier_loses_racecheck",
    "out_of_bounds_read_loses_memcheck_though_correct",
    "off_by_one_at_the_edge_loses_the_step",
    "partial_write_loses_the_step",
    "writing_nothing_loses_the_step",
    "a_kernel_that_never_finishes_is_killed_and_grading_goes_on",
    "compile_error_is_graded_as_such",
    "ignoring_the_technique_loses_its_point",
    "todo_step_earns_nothing",
    "class_gradebook_has_a_row_per_student",
};

size_t grading_gpu_case_names(const char **out_names, size_t max)
{
    size_t n = 0;
    for (; n < sizeof names / sizeof names[0] && n < max; ++n)
        out_names[n] = names[n];
    return n;
}

Suite *grading_gpu_suite(void)
{
    Suite *s = suite_create("grading_gpu");
    TCase *tc = tcase_create("class");
    tcase_set_timeout(tc, 60);
    tcase_add_unchecked_fixture(tc, grade_everything, remove_everything);
    tcase_add_test(tc, solutions_earn_full_marks);
    tcase_add_test(tc, missing_barrier_loses_racecheck);
    tcase_add_test(tc, out_of_bounds_read_loses_memcheck_though_correct);
    tcase_add_test(tc, off_by_one_at_the_edge_loses_the_step);
    tcase_add_test(tc, partial_write_loses_the_step);
    tcase_add_test(tc, writing_nothing_loses_the_step);
    tcase_add_test(tc, a_kernel_that_never_finishes_is_killed_and_grading_goes_on);
    tcase_add_test(tc, compile_error_is_graded_as_such);
    tcase_add_test(tc, ignoring_the_technique_loses_its_point);
    tcase_add_test(tc, todo_step_earns_nothing);
    tcase_add_test(tc, class_gradebook_has_a_row_per_student);
    suite_add_tcase(s, tc);
    return s;
}

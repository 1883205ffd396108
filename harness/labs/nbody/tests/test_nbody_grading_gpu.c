/* The N-body lab's grading on a GPU, at step 07, its first shared-memory step (tiles,
 * barriers: racecheck and synccheck have something to look at, and the technique
 * check's shared-memory rule), at the physics check's full 1000 bodies (step 01 has
 * 257): solutions/ graded as one student earns full marks; the step with its tile load
 * unguarded (tests/fixtures/tile-without-guard.sh, made from the solution), graded as
 * a class of one, is correct on every check size and still a memory error, which costs
 * the whole step. Each a case of its own that the runner runs beside the other suites'
 * (tests/side_by_side.h); the solution's alone, as its speed is graded too. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading_cases.h"
#include "side_by_side.h"
#include "util.h"

static char *dir, book[700];
static char out[1 << 16], err[1 << 15];
static int code, kept;

static void grade_solution(void)
{
    dir = grading_case_dir("nbody-solutions", "grade-nbody", &kept);
    if (dir == NULL)
        return;
    snprintf(book, sizeof book, "%s/solutions-nbody-07.csv", dir);
    code = grading_case_grade_solutions(book, "nbody", "07", out, sizeof out, err, sizeof err);
}

START_TEST(solution_earns_full_marks)
{
    ck_assert_ptr_nonnull(dir);
    grading_case_expect_full_marks(book, "nbody", "07", code, out, err);
}
END_TEST

static void grade_tile_without_guard(void)
{
    dir = grading_case_dir("nbody", "grade-nbody", &kept);
    if (dir == NULL)
        return;
    char subs[700], step[800], cmd[2000];
    snprintf(book, sizeof book, "%s/nbody-class.csv", dir);
    snprintf(subs, sizeof subs, "%s/nbody-subs", dir);
    snprintf(step, sizeof step, "%s/tile-without-guard/labs/nbody", subs);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && sh tests/fixtures/tile-without-guard.sh "
             "solutions/nbody/07-shared.cu '%s/07-shared.cu'", step, step);
    char *make_it[] = {"/bin/sh", "-c", cmd, NULL};
    code = run_capture(make_it, NULL, out, sizeof out, err, sizeof err);
    if (code == 0)
        code = grading_case_grade_all(subs, book, NULL, "nbody", "07", out, sizeof out, err, sizeof err);
}

static void remove_graded(void)
{
    grading_case_dir_remove(dir, kept);
    dir = NULL;
}

START_TEST(tile_load_past_n_is_a_memory_error)
{
    ck_assert_ptr_nonnull(dir);
    ck_assert_msg(code == 0, "grade-all exited %d\n%s\n%s", code, out, err);
    char *r = grading_case_report(book, "tile-without-guard", code, out, err);
    ck_assert_msg(strstr(r, "nbody/07-shared correct PASS 0/4") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "nbody/07-shared memcheck FAIL 0/1") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "Invalid __global__ read") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "(a required check failed (memcheck: a memory error)") != NULL, "%s", r);
    free(r);
}
END_TEST

static const char *const names[] = {"solution_earns_full_marks", "tile_load_past_n_is_a_memory_error"};

size_t nbody_grading_gpu_case_names(const char **out_names, size_t max)
{
    return UTIL_CASE_NAMES(names, out_names, max);
}

Suite *nbody_grading_gpu_suite(void)
{
    Suite *s = suite_create("nbody_grading_gpu");
    TCase *tc = side_by_side_tcase(s, "nbody_grading_gpu", "nbody solutions", 60,
                                   SIDE_BY_SIDE_GPU_ALONE); /* full marks: speed too */
    tcase_add_unchecked_fixture(tc, grade_solution, remove_graded);
    tcase_add_test(tc, solution_earns_full_marks);
    tc = side_by_side_tcase(s, "nbody_grading_gpu", "nbody class", 60, 0);
    tcase_add_unchecked_fixture(tc, grade_tile_without_guard, remove_graded);
    tcase_add_test(tc, tile_load_past_n_is_a_memory_error);
    return s;
}

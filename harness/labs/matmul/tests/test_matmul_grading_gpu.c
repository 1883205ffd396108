/* The matmul lab's grading on a GPU: solutions/ at step 02 earns full marks, and each
 * deliberately wrong step 02 of tests/submissions loses the right points with the
 * right reason. In unchecked fixtures, one per test case (each case a job of its own
 * that the runner runs beside the others: tests/side_by_side.h), graded once:
 * solutions/ as one student, then the class (bin/lab grade-all at step 02, in five
 * parts: grade_class); each case reads one student's report. The whole solutions tree
 * of each lab, every step with every check, is graded by tests/verify-on-gpu.sh's part
 * `grading`, one call per lab. LAB_GRADING_KEEP=dir grades into dir and keeps the
 * gradebooks, reports and JUnit files there. Grading's pool of compute-sanitizer runs
 * is tested in tests/test_grading_sanitizer_gpu.c; the other labs' wrong submissions
 * and solutions in each lab's grading suite
 * (harness/labs/<lab>/tests/test_<lab>_grading_gpu.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "csv.h"
#include "grading_cases.h"
#include "side_by_side.h"
#include "util.h"

static char *dir;
static char book[600];
static char out[1 << 17], err[1 << 16];
static int code, keeping;

/* solutions/ at step 02, graded as one student: its gradebook and what grading said */
static char sol_book[600];
static char sol_out[1 << 16], sol_err[1 << 16];
static int sol_code;

static void grade_solutions(void)
{
    dir = grading_case_dir(NULL, "grade-gpu", &keeping);
    if (dir == NULL)
        return;
    snprintf(sol_book, sizeof sol_book, "%s/solutions-matmul-02.csv", dir);
    sol_code = grading_case_grade_solutions(sol_book, "matmul", "02", sol_out, sizeof sol_out, sol_err,
                                            sizeof sol_err);
}

/* The class, tests/submissions at matmul step 02, graded in five parts, each a case
 * (and a bin/lab grade-all) of its own, so that the runner grades them side by side:
 * the students whose step runs and is wrong, in three parts of three (as one part it
 * took 238 s of the H100's 335 s make test, 2026-11-27, the longest case of the run);
 * the step that never finishes with the one graded right after it (the GPU usable
 * again), a part that has the GPU alone (below); and the others: those that do not
 * build or are refused, and every folder without a matmul step 02.
 *
 * Why the never-ending kernel has the GPU alone: the GPU runs one process's work at
 * a time, and a kernel that never ends takes its whole turn every time, so every
 * other process waits that long for each of its kernels. Beside the other GPU jobs
 * it spun for 84 s (its limit, ten times its reference's checks, measured in that
 * crowd: rubric.def), while class part 1 took 71 s there and 11 s alone (H200,
 * 2026-11-30); alone, its reference is measured alone and its limit is short. */
#define RUNNING_PARTS 3
#define NEVER_FINISHES_PART RUNNING_PARTS
#define OTHERS_PART (RUNNING_PARTS + 1)
static const char *const class_running[RUNNING_PARTS + 1][3] = {
    {"missing-barrier", "oob-read", "partial-write"},
    {"ignores-technique", "decoy-kernel", "side-stream"},
    {"cached-results", "leftover-output", "exits-in-launch"},
    {"never-finishes", "off-by-one-edge", NULL}, /* graded in this order, by name */
};
static size_t class_size; /* the folders of this part */

/* The part student is graded in: its part of class_running, or OTHERS_PART. */
static int class_part(const char *student)
{
    for (int p = 0; p <= NEVER_FINISHES_PART; ++p)
        for (size_t i = 0; i < sizeof class_running[p] / sizeof class_running[p][0]; ++i)
            if (class_running[p][i] != NULL && strcmp(student, class_running[p][i]) == 0)
                return p;
    return OTHERS_PART;
}

static void grade_class(int part)
{
    char sub[32];
    if (part < RUNNING_PARTS)
        snprintf(sub, sizeof sub, "class-running-%d", part + 1);
    else if (part == NEVER_FINISHES_PART)
        snprintf(sub, sizeof sub, "class-never-finishes");
    else
        snprintf(sub, sizeof sub, "class-others");
    dir = grading_case_dir(sub, "grade-gpu", &keeping);
    if (dir == NULL)
        return;
    snprintf(book, sizeof book, "%s/class.csv", dir);
    char subs[700];
    snprintf(subs, sizeof subs, "%s/class-submissions", dir);
    mkdir(subs, 0777);
    class_size = 0;
    DIR *all = opendir("tests/submissions");
    for (struct dirent *e; all != NULL && (e = readdir(all)) != NULL;) {
        if (e->d_name[0] == '.' || class_part(e->d_name) != part)
            continue;
        char from[600];
        snprintf(from, sizeof from, "tests/submissions/%s", e->d_name);
        char *cp[] = {"/bin/cp", "-R", from, subs, NULL};
        if (run_capture(cp, NULL, out, sizeof out, err, sizeof err) == 0)
            ++class_size;
    }
    if (all != NULL)
        closedir(all);
    /* the never-ending kernel's part one run at a time: its limit is then ten times
     * its reference's checks alone (rubric.def), where with runs side by side it is
     * scaled by how crowded they were (references.h): 22 s and not 53 s */
    static const char *const one_at_a_time[] = {"--concurrency", "1", NULL};
    code = grading_case_grade_all(subs, book, part == NEVER_FINISHES_PART ? one_at_a_time : NULL,
                                  "matmul", "02", out, sizeof out, err, sizeof err);
}

static void grade_class_running_1(void)
{
    grade_class(0);
}

static void grade_class_running_2(void)
{
    grade_class(1);
}

static void grade_class_running_3(void)
{
    grade_class(2);
}

static void grade_class_never_finishes(void)
{
    grade_class(NEVER_FINISHES_PART);
}

static void grade_class_others(void)
{
    grade_class(OTHERS_PART);
}

static void remove_everything(void)
{
    grading_case_dir_remove(dir, keeping);
    dir = NULL;
}

/* the class's report of student */
static char *report_of(const char *student)
{
    return grading_case_report(book, student, code, out, err);
}

/* solutions/ at step 02, graded as one student: full marks, every check run, none
 * failed. */
START_TEST(solutions_earn_full_marks)
{
    grading_case_expect_full_marks(sol_book, "matmul", "02", sol_code, sol_out, sol_err);
}
END_TEST

START_TEST(missing_barrier_loses_racecheck)
{
    char *r = report_of("missing-barrier");
    grading_case_expect(r, "matmul/02-tiled racecheck FAIL 0/1", "Race reported between Write access");
    grading_case_expect(r, "matmul/02-tiled memcheck PASS", NULL);
    ck_assert_ptr_nonnull(strstr(r, "matmul/02-tiled: 0 of 11 (a required check failed"));
    free(r);
}
END_TEST

START_TEST(out_of_bounds_read_loses_memcheck_though_correct)
{
    char *r = report_of("oob-read");
    /* every size right, but a read past the end of A: memcheck is required, so the
     * step earns nothing (it earned 10 of 11 when a memory error cost one point) */
    grading_case_expect(r, "matmul/02-tiled correct PASS 0/4", "9 of 9");
    grading_case_expect(r, "matmul/02-tiled memcheck FAIL 0/1", "Invalid __global__ read");
    ck_assert_ptr_nonnull(strstr(r, "matmul/02-tiled: 0 of 11 (a required check failed "
                                    "(memcheck: a memory error): no points for the step)"));
    free(r);
}
END_TEST

/* N-body's arrays are allocations of their own: a tile load past n reads outside
 * them, and memcheck says so (carved from one block, the read landed in the next
 * array, stayed correct and earned full marks). */
START_TEST(off_by_one_at_the_edge_loses_the_step)
{
    char *r = report_of("off-by-one-edge");
    grading_case_expect(r, "matmul/02-tiled correct FAIL", "5 of 9 check sizes correct; first failure at 1x1x1");
    ck_assert_ptr_nonnull(strstr(r, "matmul/02-tiled: 0 of 11"));
    grading_case_expect(r, "matmul/02-tiled speed FAIL 0/2", "results are wrong");
    free(r);
}
END_TEST

START_TEST(partial_write_loses_the_step)
{
    char *r = report_of("partial-write");
    grading_case_expect(r, "matmul/02-tiled correct FAIL", "5 of 9 check sizes correct");
    ck_assert_ptr_nonnull(strstr(r, "matmul/02-tiled: 0 of 11"));
    free(r);
}
END_TEST

START_TEST(writing_nothing_loses_the_step)
{
    char *r = report_of("writes-nothing");
    grading_case_expect(r, "matmul/02-tiled correct FAIL", "0 of 9 check sizes correct");
    grading_case_expect(r, "matmul/02-tiled technique FAIL", "uses no shared memory");
    free(r);
}
END_TEST

START_TEST(a_kernel_that_never_finishes_is_killed_and_grading_goes_on)
{
    char *r = report_of("never-finishes");
    grading_case_expect(r, "matmul/02-tiled correct FAIL", "did not finish within");
    grading_case_expect(r, "matmul/02-tiled racecheck not-run", "does not finish");
    free(r);
    /* the GPU was usable for the next submission: it ran and passed sizes */
    r = report_of("off-by-one-edge");
    grading_case_expect(r, "matmul/02-tiled correct FAIL", "5 of 9");
    free(r);
}
END_TEST

START_TEST(compile_error_is_graded_as_such)
{
    char *r = report_of("does-not-compile");
    ck_assert_ptr_nonnull(strstr(r, "(compile error)"));
    grading_case_expect(r, "matmul/02-tiled build FAIL 0/1", "__syncthread");
    free(r);
}
END_TEST

START_TEST(ignoring_the_technique_loses_its_point)
{
    char *r = report_of("ignores-technique");
    grading_case_expect(r, "matmul/02-tiled correct PASS 4/4", NULL);
    grading_case_expect(r, "matmul/02-tiled memcheck PASS", NULL);
    grading_case_expect(r, "matmul/02-tiled racecheck PASS", NULL);
    grading_case_expect(r, "matmul/02-tiled technique FAIL 0/1", "uses no shared memory");
    grading_case_expect(r, "matmul/02-tiled speed", "x the reference solution's speed");
    free(r);
}
END_TEST

/* The shortcuts of matmul step 02 (tests/submissions/<name>/labs/matmul/02-tiled.cu,
 * each file's header says what it expects). */
START_TEST(a_decoy_kernel_fails_the_technique)
{
    char *r = report_of("decoy-kernel");
    grading_case_expect(r, "matmul/02-tiled correct PASS 4/4", "9 of 9");
    grading_case_expect(r, "matmul/02-tiled technique FAIL 0/1",
           "matmul_tiled, the kernel DEFINE_STEP names, never ran: the step's work ran in "
           "matmul_plain");
    free(r);
}
END_TEST

START_TEST(work_on_a_side_stream_fails_every_run)
{
    char *r = report_of("side-stream");
    grading_case_expect(r, "matmul/02-tiled correct FAIL 0/4", "ran on another stream");
    grading_case_expect(r, "matmul/02-tiled speed FAIL 0/2", NULL);
    free(r);
}
END_TEST

/* The outputs are filled with NaN before every launch, the timed ones included, and
 * what the last timed run left is checked: a result cached across calls, or left
 * from an earlier correct run, is not the step's. */
START_TEST(cached_or_leftover_output_is_poisoned)
{
    const char *const who[] = {"cached-results", "leftover-output"};
    for (int i = 0; i < 2; ++i) {
        char *r = report_of(who[i]);
        grading_case_expect(r, "matmul/02-tiled correct FAIL 0/4", "after timing");
        ck_assert_msg(strstr(r, "matmul/02-tiled: 0 of 11") != NULL, "%s", r);
        free(r);
    }
}
END_TEST

START_TEST(exit_from_inside_launch_passes_nothing)
{
    char *r = report_of("exits-in-launch");
    grading_case_expect(r, "matmul/02-tiled correct FAIL 0/4", "0 of 9 check sizes correct");
    ck_assert_msg(strstr(r, "matmul/02-tiled: 0 of 11") != NULL, "%s", r);
    free(r);
}
END_TEST

START_TEST(todo_step_earns_nothing)
{
    char *r = report_of("still-todo");
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
    ck_assert_uint_gt(class_size, 0);
    ck_assert_uint_eq(t.nrows, class_size); /* every folder of this part */
    for (size_t row = 0; row < t.nrows; ++row) { /* none of them earns full marks */
        ck_assert_msg(strcmp(csv_get(&t, row, "total"), csv_get(&t, row, "max")) != 0, "%s",
                      csv_get(&t, row, "student"));
        /* the instructor's solution, #included: refused, nothing run, nothing earned */
        if (strcmp(csv_get(&t, row, "student"), "includes-solution") == 0)
            ck_assert_str_eq(csv_get(&t, row, "total"), "0");
    }
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
    "a_decoy_kernel_fails_the_technique",
    "work_on_a_side_stream_fails_every_run",
    "cached_or_leftover_output_is_poisoned",
    "exit_from_inside_launch_passes_nothing",
    "todo_step_earns_nothing",
    "class_gradebook_has_a_row_per_student (steps that run and are wrong, part 1 of 3)",
    "class_gradebook_has_a_row_per_student (steps that run and are wrong, part 2 of 3)",
    "class_gradebook_has_a_row_per_student (steps that run and are wrong, part 3 of 3)",
    "class_gradebook_has_a_row_per_student (the step that never finishes, and the one after it)",
    "class_gradebook_has_a_row_per_student (the others)",
};

size_t matmul_grading_gpu_case_names(const char **out_names, size_t max)
{
    size_t n = 0;
    for (; n < sizeof names / sizeof names[0] && n < max; ++n)
        out_names[n] = names[n];
    return n;
}

Suite *matmul_grading_gpu_suite(void)
{
    Suite *s = suite_create("matmul_grading_gpu");
    TCase *tc = side_by_side_tcase(s, "matmul_grading_gpu", "solutions", 60,
                                   SIDE_BY_SIDE_GPU_ALONE); /* full marks: speed too */
    tcase_add_unchecked_fixture(tc, grade_solutions, remove_everything);
    tcase_add_test(tc, solutions_earn_full_marks);

    /* the class's parts first, the longest of grading's cases: the runner starts GPU
     * jobs in the order they are made as slots free up (tests/suites.h) */
    tc = side_by_side_tcase(s, "matmul_grading_gpu", "class, steps that run and are wrong, part 1 of 3",
                            60, 0);
    tcase_add_unchecked_fixture(tc, grade_class_running_1, remove_everything);
    tcase_add_test(tc, missing_barrier_loses_racecheck);
    tcase_add_test(tc, out_of_bounds_read_loses_memcheck_though_correct);
    tcase_add_test(tc, partial_write_loses_the_step);
    tcase_add_test(tc, class_gradebook_has_a_row_per_student);
    tc = side_by_side_tcase(s, "matmul_grading_gpu", "class, steps that run and are wrong, part 2 of 3",
                            60, 0);
    tcase_add_unchecked_fixture(tc, grade_class_running_2, remove_everything);
    tcase_add_test(tc, ignoring_the_technique_loses_its_point);
    tcase_add_test(tc, a_decoy_kernel_fails_the_technique);
    tcase_add_test(tc, work_on_a_side_stream_fails_every_run);
    tcase_add_test(tc, class_gradebook_has_a_row_per_student);
    tc = side_by_side_tcase(s, "matmul_grading_gpu", "class, steps that run and are wrong, part 3 of 3",
                            60, 0);
    tcase_add_unchecked_fixture(tc, grade_class_running_3, remove_everything);
    tcase_add_test(tc, cached_or_leftover_output_is_poisoned);
    tcase_add_test(tc, exit_from_inside_launch_passes_nothing);
    tcase_add_test(tc, class_gradebook_has_a_row_per_student);

    tc = side_by_side_tcase(s, "matmul_grading_gpu",
                            "class, the step that never finishes, and the one after it", 60,
                            SIDE_BY_SIDE_GPU_ALONE); /* (class_running says why) */
    tcase_add_unchecked_fixture(tc, grade_class_never_finishes, remove_everything);
    tcase_add_test(tc, a_kernel_that_never_finishes_is_killed_and_grading_goes_on);
    tcase_add_test(tc, off_by_one_at_the_edge_loses_the_step);
    tcase_add_test(tc, class_gradebook_has_a_row_per_student);
    tc = side_by_side_tcase(s, "matmul_grading_gpu", "class, the others", 60, 0);
    tcase_add_unchecked_fixture(tc, grade_class_others, remove_everything);
    tcase_add_test(tc, writing_nothing_loses_the_step);
    tcase_add_test(tc, compile_error_is_graded_as_such);
    tcase_add_test(tc, todo_step_earns_nothing);
    tcase_add_test(tc, class_gradebook_has_a_row_per_student);
    return s;
}

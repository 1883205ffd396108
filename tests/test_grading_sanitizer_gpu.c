/* Grading's pool of compute-sanitizer runs, on a GPU: the three tools run at once, in
 * the pool with the step's check sizes (--concurrency 12: the 9 check sizes of matmul
 * step 02 and its 3 tools all start together), or one after the other
 * (--concurrency 1), for the reference solution and the student alike. A fake
 * compute-sanitizer that sleeps 1 s and writes when each tool starts and ends stands in
 * for the real one, solutions/ graded as a submission (step 02). In the run at once the
 * student's racecheck never ends: it is killed at its own limit while memcheck (a fake
 * error) and synccheck get their own verdicts, and the check sizes beside it theirs.
 * Each run is a case of its own, which the runner runs beside the others
 * (tests/side_by_side.h). */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading_cases.h"
#include "side_by_side.h"
#include "util.h"

static char *fake_dir;
static char fake_times[2][700], fake_book[2][700];
static char fake_out[2][1 << 16], fake_err[2][1 << 15];
static int fake_code[2];

/* tests/fixtures/fake-sanitizer/compute-sanitizer: sleeps 1 s, records when each tool
 * starts and ends in $FAKE_SANITIZER_TIMES, reports a memcheck error for the student,
 * and hangs the student's racecheck with FAKE_SANITIZER_HANG=1. */
#define FAKE_SANITIZER "tests/fixtures/fake-sanitizer/compute-sanitizer"

static void grade_with_fake_sanitizer(int run)
{
    fake_dir = util_temp_dir("grade-fake-sanitizer");
    if (fake_dir == NULL)
        return;
    char sanitizer[4096];
    if (realpath(FAKE_SANITIZER, sanitizer) == NULL)
        return;
    char lab[512];
    bin_path("lab", lab, sizeof lab);
    char times_env[800];
    snprintf(fake_book[run], sizeof fake_book[run], "%s/fake-%d.csv", fake_dir, run);
    snprintf(fake_times[run], sizeof fake_times[run], "%s/times-%d", fake_dir, run);
    snprintf(times_env, sizeof times_env, "FAKE_SANITIZER_TIMES=%s", fake_times[run]);
    /* GRADE_SANDBOX=off: the fake sanitizer talks through FAKE_SANITIZER_* variables and
     * writes its times outside the slot, which the sandbox withholds */
    const char *env[] = {"MAKEFLAGS=", times_env, "GRADE_SANDBOX=off",
                         run == 0 ? "FAKE_SANITIZER_HANG=1" : "FAKE_SANITIZER_HANG=0", NULL};
    char *argv[] = {lab, "grade", "--submission", "solutions", "--student", "fake",
                    "--gradebook", fake_book[run], "--sanitizer", sanitizer, "--concurrency",
                    run == 0 ? "12" : "1", "matmul", "02", NULL};
    fake_code[run] = run_capture(argv, env, fake_out[run], sizeof fake_out[run],
                                 fake_err[run], sizeof fake_err[run]);
    printf("%s", fake_out[run]);
}

/* each run in a case of its own, so that the runner runs them side by side */
static void grade_with_fake_sanitizer_at_once(void)
{
    grade_with_fake_sanitizer(0);
}

static void grade_with_fake_sanitizer_one_after_the_other(void)
{
    grade_with_fake_sanitizer(1);
}

static void remove_fake(void)
{
    if (fake_dir != NULL)
        util_remove_tree(fake_dir);
    free(fake_dir);
    fake_dir = NULL;
}

/* When each tool started and ended for who ("reference" or "student"); 0: never. */
struct span {
    double start, end;
};

static void spans_of(int run, const char *who, struct span spans[3])
{
    static const char *const tools[3] = {"memcheck", "racecheck", "synccheck"};
    memset(spans, 0, 3 * sizeof *spans);
    char *text = util_read_file(fake_times[run], NULL);
    ck_assert_msg(text != NULL, "the fake compute-sanitizer never ran (exit %d)\n%s\n%s",
                  fake_code[run], fake_out[run], fake_err[run]);
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char tool[32], w[32], what[16];
        double t;
        if (sscanf(line, "%31s %31s %15s %lf", tool, w, what, &t) != 4 || strcmp(w, who) != 0)
            continue;
        for (int i = 0; i < 3; ++i)
            if (strcmp(tool, tools[i]) == 0) {
                if (strcmp(what, "start") == 0)
                    spans[i].start = t;
                else
                    spans[i].end = t;
            }
    }
    free(text);
    for (int i = 0; i < 3; ++i)
        ck_assert_msg(spans[i].start > 0, "%s: %s never ran", who, tools[i]);
}

/* All three started before the first of them ended. */
static void assert_at_once(const struct span spans[3], const char *who)
{
    double first_end = 0;
    for (int i = 0; i < 3; ++i)
        if (spans[i].end > 0 && (first_end == 0 || spans[i].end < first_end))
            first_end = spans[i].end;
    ck_assert(first_end > 0);
    for (int i = 0; i < 3; ++i)
        ck_assert_msg(spans[i].start < first_end, "%s: tool %d started after another had ended",
                      who, i);
}

START_TEST(sanitizer_tools_run_at_once_and_a_hang_is_killed_alone)
{
    char *r = grading_case_report(fake_book[0], "fake", fake_code[0], fake_out[0], fake_err[0]);
    struct span ref[3], student[3];
    spans_of(0, "reference", ref);
    spans_of(0, "student", student);
    assert_at_once(ref, "reference");
    assert_at_once(student, "student");
    ck_assert_msg(student[1].end == 0, "the student's racecheck ended: it was meant to hang");
    ck_assert_ptr_nonnull(strstr(fake_out[0], "up to 12 check-size and compute-sanitizer runs "
                                              "at once, of all the steps of a submission"));
    /* the fake memcheck error is required: the step's checks earn nothing */
    grading_case_expect(r, "matmul/02-tiled correct PASS 0/4", "9 of 9");
    grading_case_expect(r, "matmul/02-tiled memcheck FAIL 0/1", "Invalid __global__ read of size 4 bytes (fake)");
    grading_case_expect(r, "matmul/02-tiled racecheck FAIL 0/1", "did not finish under racecheck within");
    grading_case_expect(r, "matmul/02-tiled synccheck PASS 0/1", "no synccheck errors at 33x47x161");
    grading_case_expect(r, "matmul/02-tiled speed", "x the reference solution's speed");
    free(r);
}
END_TEST

START_TEST(sanitizer_tools_one_after_the_other_with_concurrency_1)
{
    char *r = grading_case_report(fake_book[1], "fake", fake_code[1], fake_out[1], fake_err[1]);
    static const char *const whos[2] = {"reference", "student"};
    for (int w = 0; w < 2; ++w) {
        struct span spans[3];
        spans_of(1, whos[w], spans);
        for (int i = 1; i < 3; ++i)
            ck_assert_msg(spans[i - 1].end > 0 && spans[i].start >= spans[i - 1].end,
                          "%s: tool %d started before tool %d had ended", whos[w], i, i - 1);
    }
    grading_case_expect(r, "matmul/02-tiled correct PASS 0/4", "9 of 9");
    grading_case_expect(r, "matmul/02-tiled memcheck FAIL 0/1", "Invalid __global__ read of size 4 bytes (fake)");
    grading_case_expect(r, "matmul/02-tiled racecheck PASS 0/1", "no racecheck errors at 33x47x161");
    grading_case_expect(r, "matmul/02-tiled synccheck PASS 0/1", "no synccheck errors");
    ck_assert_ptr_nonnull(strstr(fake_out[1], "up to 1 check-size and compute-sanitizer runs"));
    free(r);
}
END_TEST

static const char *const names[] = {
    "sanitizer_tools_run_at_once_and_a_hang_is_killed_alone",
    "sanitizer_tools_one_after_the_other_with_concurrency_1",
};

size_t grading_sanitizer_gpu_case_names(const char **out_names, size_t max)
{
    return UTIL_CASE_NAMES(names, out_names, max);
}

Suite *grading_sanitizer_gpu_suite(void)
{
    Suite *s = suite_create("grading_sanitizer_gpu");
    TCase *fake = side_by_side_tcase(s, "grading_sanitizer_gpu", "sanitizer_at_once", 60, 0);
    tcase_add_unchecked_fixture(fake, grade_with_fake_sanitizer_at_once, remove_fake);
    tcase_add_test(fake, sanitizer_tools_run_at_once_and_a_hang_is_killed_alone);
    fake = side_by_side_tcase(s, "grading_sanitizer_gpu", "sanitizer_one_after_the_other", 60, 0);
    tcase_add_unchecked_fixture(fake, grade_with_fake_sanitizer_one_after_the_other, remove_fake);
    tcase_add_test(fake, sanitizer_tools_one_after_the_other_with_concurrency_1);
    return s;
}

/* The TF32 lab's wrong steps graded on a GPU: tests/submissions at steps 03, 04, 06 and
 * 05 of matmul_tf32, one bin/lab grade-all per step (the reference solution of that
 * step measured once), each step a case of its own that the runner runs beside the
 * others (tests/side_by_side.h; one case grading the four steps in turn took 218 s of
 * the H100's make test). A wrong fragment layout, a pipeline that reads a stage before
 * its copy lands and a missing mbarrier wait lose the step; a step 03 without mma.sync
 * is correct and loses its technique point on its SASS; a step 05 whose wgmma wait is
 * too weak is found in its SASS. Steps 05 and 06 need sm_90a: on another GPU their
 * references cannot run either, and the cases check only that the wrong step earned
 * nothing. LAB_GRADING_KEEP=dir keeps the gradebooks and reports in dir/tf32. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading_cases.h"
#include "side_by_side.h"
#include "util.h"

#define TF32_STEPS 4
static const char *const tf32_step[TF32_STEPS] = {"03", "04", "06", "05"};
static char *tf32_dir, tf32_book[TF32_STEPS][700];
static char tf32_out[TF32_STEPS][1 << 16], tf32_err[TF32_STEPS][1 << 15];
static int tf32_code[TF32_STEPS], tf32_hopper, tf32_kept;

/* Grades step index i (the case's fixture). */
static void grade_tf32(int i)
{
    tf32_dir = grading_case_dir("tf32", "grade-tf32", &tf32_kept);
    if (tf32_dir == NULL)
        return;
    /* the Hopper steps run (exit 0) on a GPU of compute capability 9.0 alone: asked in
     * their cases only (each case is a job, a process, of its own) */
    int hopper_step = strcmp(tf32_step[i], "05") == 0 || strcmp(tf32_step[i], "06") == 0;
    char probe[512];
    char *hopper[] = {(char *)bin_path("solutions/matmul_tf32/06-tma", probe, sizeof probe),
                      "--m", "17", "--n", "17", "--k", "17", "--repeats", "1", "--warmup", "0",
                      "--min-time", "0", "--no-csv", NULL};
    static char probe_out[1 << 14], probe_err[1 << 14];
    tf32_hopper = hopper_step &&
                  run_capture(hopper, NULL, probe_out, sizeof probe_out, probe_err, sizeof probe_err) == 0;
    snprintf(tf32_book[i], sizeof tf32_book[i], "%s/tf32-%s.csv", tf32_dir, tf32_step[i]);
    tf32_code[i] = grading_case_grade_all("tests/submissions", tf32_book[i], NULL, "matmul_tf32", tf32_step[i],
                                          tf32_out[i], sizeof tf32_out[i], tf32_err[i], sizeof tf32_err[i]);
}

static void grade_tf32_03(void) { grade_tf32(0); }
static void grade_tf32_04(void) { grade_tf32(1); }
static void grade_tf32_06(void) { grade_tf32(2); }
static void grade_tf32_05(void) { grade_tf32(3); }

static void remove_tf32(void)
{
    grading_case_dir_remove(tf32_dir, tf32_kept);
    tf32_dir = NULL;
}

/* The report of student at TF32 step index i. */
static char *tf32_report(int i, const char *student)
{
    ck_assert_ptr_nonnull(tf32_dir);
    return grading_case_report(tf32_book[i], student, tf32_code[i], tf32_out[i], tf32_err[i]);
}

START_TEST(tf32_wrong_fragment_layout_loses_the_step)
{
    char *r = tf32_report(0, "partial-write");
    grading_case_expect(r, "matmul_tf32/03-mma-sync correct FAIL 0/4", "0 of 9 check sizes correct");
    ck_assert_ptr_nonnull(strstr(r, "matmul_tf32/03-mma-sync: 0 of 11 (a required check failed "
                                    "(correct)"));
    /* its HMMA are there: the technique line is not what it loses */
    grading_case_expect(r, "matmul_tf32/03-mma-sync technique PASS", "in its SASS: ");
    free(r);
}
END_TEST

START_TEST(tf32_step_without_mma_sync_loses_its_technique_point)
{
    char *r = tf32_report(0, "ignores-technique");
    grading_case_expect(r, "matmul_tf32/03-mma-sync correct PASS 4/4", "9 of 9");
    grading_case_expect(r, "matmul_tf32/03-mma-sync technique FAIL 0/1",
           "kernel matmul_mma_sync has no HMMA instruction in its SASS");
    grading_case_expect(r, "matmul_tf32/03-mma-sync speed", "x the reference solution's speed");
    free(r);
}
END_TEST

START_TEST(tf32_stage_read_before_its_copy_lands_loses_the_step)
{
    char *r = tf32_report(1, "off-by-one-edge");
    grading_case_expect(r, "matmul_tf32/04-cp-async correct FAIL 0/4", "check sizes correct; first failure");
    ck_assert_ptr_nonnull(strstr(r, "matmul_tf32/04-cp-async: 0 of 11"));
    /* racecheck sees the cp.async write against the fragment reads, whatever the timing */
    grading_case_expect(r, "matmul_tf32/04-cp-async racecheck FAIL 0/1",
           "Race reported between Write access at cp_async");
    free(r);
}
END_TEST

START_TEST(tf32_missing_mbarrier_wait_loses_the_step)
{
    char *r = tf32_report(2, "missing-barrier");
    ck_assert_msg(strstr(r, "matmul_tf32/06-tma: 0 of 11") != NULL, "%s", r);
    if (tf32_hopper)
        grading_case_expect(r, "matmul_tf32/06-tma correct FAIL 0/4", "check sizes correct; first failure");
    free(r);
}
END_TEST

/* Step 05 with wgmma_wait<1> in its k loop: correct at every check size, clean under
 * every sanitizer at the sanitize size (k = 161: the pipeline wraps, but none of them
 * sees wgmma's reads through the async proxy, and the refill lands after the read);
 * the rubric's no-sass WARPGROUP.DEPBAR.LE:0x1 line finds the weak wait in its SASS. */
START_TEST(tf32_weak_wgmma_wait_is_found_in_the_sass)
{
    char *r = tf32_report(3, "weak-wgmma-wait");
    if (tf32_hopper) {
        grading_case_expect(r, "matmul_tf32/05-wgmma racecheck", "at 33x47x161");
        grading_case_expect(r, "matmul_tf32/05-wgmma technique FAIL 0/1",
               "kernel matmul_wgmma has 1 WARPGROUP.DEPBAR.LE:0x1 instruction in its SASS");
    }
    ck_assert_msg(strstr(r, "matmul_tf32/05-wgmma: 11 of 11") == NULL, "%s", r);
    free(r);
}
END_TEST

static const char *const names[] = {
    "tf32_wrong_fragment_layout_loses_the_step",
    "tf32_step_without_mma_sync_loses_its_technique_point",
    "tf32_stage_read_before_its_copy_lands_loses_the_step",
    "tf32_missing_mbarrier_wait_loses_the_step",
    "tf32_weak_wgmma_wait_is_found_in_the_sass",
};

size_t matmul_tf32_grading_gpu_case_names(const char **out_names, size_t max)
{
    return UTIL_CASE_NAMES(names, out_names, max);
}

Suite *matmul_tf32_grading_gpu_suite(void)
{
    static const char *const suite = "matmul_tf32_grading_gpu";
    Suite *s = suite_create(suite);
    TCase *tf32 = side_by_side_tcase(s, suite, "tf32 step 03", 60, 0);
    tcase_add_unchecked_fixture(tf32, grade_tf32_03, remove_tf32);
    tcase_add_test(tf32, tf32_wrong_fragment_layout_loses_the_step);
    tcase_add_test(tf32, tf32_step_without_mma_sync_loses_its_technique_point);
    tf32 = side_by_side_tcase(s, suite, "tf32 step 04", 60, 0);
    tcase_add_unchecked_fixture(tf32, grade_tf32_04, remove_tf32);
    tcase_add_test(tf32, tf32_stage_read_before_its_copy_lands_loses_the_step);
    tf32 = side_by_side_tcase(s, suite, "tf32 step 06", 60, 0);
    tcase_add_unchecked_fixture(tf32, grade_tf32_06, remove_tf32);
    tcase_add_test(tf32, tf32_missing_mbarrier_wait_loses_the_step);
    tf32 = side_by_side_tcase(s, suite, "tf32 step 05", 60, 0);
    tcase_add_unchecked_fixture(tf32, grade_tf32_05, remove_tf32);
    tcase_add_test(tf32, tf32_weak_wgmma_wait_is_found_in_the_sass);
    return s;
}

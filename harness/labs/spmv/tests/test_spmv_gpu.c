/* The spmv lab's own GPU cases (every step at every check matrix is tests/test_gpu.c's):
 * every step and row on the committed Matrix Market file (a symmetric file, mirrored,
 * with an empty row and values that are not exact), step 05 states its conversion on
 * a line of its own, nnz past 2^31 is refused in one line with exit 2, step 07 is
 * right with its long rows in one launch and in two, and the wrong
 * spmv steps of tests/submissions lose what they should when graded (the last row
 * lost, an empty row left unwritten, a race in the shared cache of x; the library
 * call, which does not build, is graded without a GPU in test_spmv.c). Runs only
 * when a GPU is visible; otherwise each case is listed as SKIPPED by name. This
 * process makes no CUDA call: the steps run as children. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab_registry.h"
#include "util.h"

static char out[1 << 16], err[1 << 16];
#define TINY "harness/labs/spmv/tests/data/tiny.mtx"

/* binary i: the steps' stems, then the rows */
static size_t binaries(void)
{
    const struct step_table *t = step_table_find("spmv");
    return t->count + t->row_count;
}

static void binary_of(size_t i, char *name, size_t len)
{
    const struct step_table *t = step_table_find("spmv");
    if (i < t->count)
        step_stem(&t->steps[i], name, len);
    else
        snprintf(name, len, "%s", t->rows[i - t->count].name);
}

static int run_spmv(const char *name, char *const args[])
{
    char rel[256], path[512];
    snprintf(rel, sizeof rel, "solutions/spmv/%s", name);
    bin_path(rel, path, sizeof path);
    char *argv[16] = {path, "--no-csv", "--repeats", "1", "--min-time", "0", "--warmup", "0"};
    size_t n = 8;
    for (size_t i = 0; args[i] != NULL && n < 15; ++i)
        argv[n++] = args[i];
    argv[n] = NULL;
    return run_capture(argv, NULL, out, sizeof out, err, sizeof err);
}

START_TEST(each_binary_passes_on_the_tiny_file)
{
    char name[128];
    binary_of((size_t)_i, name, sizeof name);
    char *args[] = {"--matrix", TINY, NULL};
    int code = run_spmv(name, args);
    ck_assert_msg(code == 0, "%s: exit %d\n%s%s", name, code, out, err);
    ck_assert_msg(strstr(out, "PASS") != NULL, "%s\n%s", name, out);
}
END_TEST

START_TEST(sell_states_its_conversion)
{
    char *args[] = {"--matrix", "banded", "--n", "100003", "--k", "40", NULL};
    int code = run_spmv("05-sliced-ell", args);
    ck_assert_msg(code == 0, "exit %d\n%s%s", code, out, err);
    ck_assert_msg(strstr(err, "conversion CSR -> SELL-32-256") != NULL && strstr(err, "pays back after") != NULL,
                  "%s", err);
}
END_TEST

START_TEST(nnz_past_2_31_is_refused)
{
    char *args[] = {"--matrix", "random", "--n", "40000000", "--k", "64", NULL};
    int code = run_spmv("07-tuned", args);
    ck_assert_msg(code == 2, "exit %d\n%s%s", code, out, err);
    ck_assert_msg(strstr(err, "nnz must stay below 2^31") != NULL, "%s", err);
}
END_TEST

/* Step 07's long rows on both of its paths, which the check sizes are too small for:
 * powerlaw at its default 2M rows (56M nonzeros, past ONE_LAUNCH_NNZ) puts a long row's
 * other parts in a second launch; 32768 rows of mean 64 keep them in the one launch, in
 * parts of the rounds the step chooses from the GPU's warps (2 on 132 SMs). Its cut
 * line on stderr says which: "(R rounds; N more for long rows)", N the second launch's. */
static char *const tuned_long_rows[][7] = {
    {"--matrix", "powerlaw", NULL},
    {"--matrix", "powerlaw", "--n", "32768", "--k", "64", NULL},
};
#define TUNED_LONG_ROWS (sizeof tuned_long_rows / sizeof tuned_long_rows[0])

START_TEST(tuned_long_rows_pass_on_both_paths)
{
    int code = run_spmv("07-tuned", tuned_long_rows[_i]);
    ck_assert_msg(code == 0, "exit %d\n%s%s", code, out, err);
    ck_assert_msg(strstr(out, "PASS") != NULL, "%s", out);
    const char *cut = strstr(err, "a long row's of ");
    int rounds = 0;
    long more = -1;
    ck_assert_msg(cut != NULL && sscanf(cut, "a long row's of %*d (%d rounds; %ld more", &rounds, &more) == 2,
                  "no cut line on stderr:\n%s", err);
    if (_i == 0) /* two launches: one round, the long rows' other parts in the second */
        ck_assert_msg(rounds == 1 && more > 0, "rounds %d, %ld more\n%s", rounds, more, err);
    else /* one launch: no second */
        ck_assert_msg(rounds >= 1 && more == 0, "rounds %d, %ld more\n%s", rounds, more, err);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The wrong submissions, each graded at its own step by bin/lab grade, the three at
 * once (each a child of the fixture, its output in a log beside its gradebook). */
struct wrong {
    const char *student, *step, *expect, *why;
};
static const struct wrong wrongs[] = {
    {"off-by-one-edge", "01", "spmv/01-thread-per-row correct FAIL 0/4", "the last row lost"},
    {"missing-barrier", "02", "spmv/02-shared-cache racecheck FAIL 0/1", "a race in the shared cache of x"},
    {"partial-write", "03", "spmv/03-warp-per-row correct FAIL 0/4", "an empty row left unwritten"},
};
#define WRONGS (sizeof wrongs / sizeof wrongs[0])
static char *grade_dir;
static int grade_status[WRONGS];

static void grade_wrongs(void)
{
    grade_dir = util_temp_dir("spmv-wrong");
    if (grade_dir == NULL)
        return;
    const char *students[WRONGS], *steps[WRONGS];
    for (size_t i = 0; i < WRONGS; ++i) {
        students[i] = wrongs[i].student;
        steps[i] = wrongs[i].step;
    }
    util_grade_wrongs_at_once("spmv", students, steps, WRONGS, grade_dir, grade_status);
}

static void remove_wrongs(void)
{
    if (grade_dir != NULL)
        util_remove_tree(grade_dir);
    free(grade_dir);
    grade_dir = NULL;
}

START_TEST(wrong_submission_loses_its_step)
{
    const struct wrong *w = &wrongs[_i];
    ck_assert_ptr_nonnull(grade_dir);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.reports/%s.txt", grade_dir, w->student, w->student);
    char *report = util_read_file(path, NULL);
    if (report == NULL) {
        snprintf(path, sizeof path, "%s/%s.log", grade_dir, w->student);
        char *log = util_read_file(path, NULL);
        ck_abort_msg("%s (%s): no report (exit %d)\n%s", w->student, w->why, grade_status[_i], log ? log : "");
    }
    ck_assert_msg(strstr(report, w->expect) != NULL, "%s (%s): no '%s' in\n%s", w->student, w->why, w->expect,
                  report);
    /* a required check failed, or a sanitizer's: never full marks */
    ck_assert_msg(strstr(report, "total: 11 of 11") == NULL, "%s", report);
    free(report);
}
END_TEST

static char case_name_store[32][192];

size_t spmv_gpu_case_names(const char **names, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < binaries() && n < max && n < 30; ++i) {
        char name[64];
        binary_of(i, name, sizeof name);
        snprintf(case_name_store[n], sizeof case_name_store[n], "solutions/spmv/%s --matrix tiny.mtx", name);
        names[n] = case_name_store[n];
        ++n;
    }
    if (n < max)
        names[n++] = "solutions/spmv/05-sliced-ell: the conversion on a line of its own";
    if (n < max)
        names[n++] = "solutions/spmv/07-tuned at 2.6e9 nonzeros: refused, exit 2";
    if (n < max)
        names[n++] = "solutions/spmv/07-tuned on powerlaw at 2M rows: long rows in a second launch";
    if (n < max)
        names[n++] = "solutions/spmv/07-tuned on powerlaw at 32768 rows of mean 64: long rows in the one launch";
    for (size_t i = 0; i < WRONGS && n < max && n < 30; ++i) {
        snprintf(case_name_store[n], sizeof case_name_store[n], "grading tests/submissions/%s (%s)",
                 wrongs[i].student, wrongs[i].why);
        names[n] = case_name_store[n];
        ++n;
    }
    return n;
}

Suite *spmv_gpu_suite(void)
{
    Suite *s = suite_create("spmv_gpu");
    TCase *tc = tcase_create("spmv on the GPU");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, each_binary_passes_on_the_tiny_file, 0, (int)binaries());
    tcase_add_test(tc, sell_states_its_conversion);
    tcase_add_test(tc, nnz_past_2_31_is_refused);
    tcase_add_loop_test(tc, tuned_long_rows_pass_on_both_paths, 0, (int)TUNED_LONG_ROWS);
    suite_add_tcase(s, tc);
    TCase *wrong = tcase_create("spmv's wrong submissions graded");
    tcase_set_timeout(wrong, 60);
    tcase_add_unchecked_fixture(wrong, grade_wrongs, remove_wrongs);
    tcase_add_loop_test(wrong, wrong_submission_loses_its_step, 0, (int)WRONGS);
    suite_add_tcase(s, wrong);
    return s;
}

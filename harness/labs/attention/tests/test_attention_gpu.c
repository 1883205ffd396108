/* The attention lab's own GPU cases (every step at every check size is
 * tests/test_gpu.c's): --mask causal is k + 1000 and recorded as such, with half the
 * FLOPs; the steps that keep the scores in device memory count their bytes and are
 * refused in one line (exit 2) where the n x n scores cannot fit, while the fused steps
 * run there; and the wrong attention steps of tests/submissions lose what they should
 * when graded (the maximum not subtracted, a rescale forgotten, the causal mask off by
 * one, the last partial tile of keys lost: the step; the scores in device memory from
 * step 04 on: the technique point; the library call, which does not build, is graded
 * without a GPU in test_attention.c); and the cudnn row keeps the fastest engine it
 * timed and names it. Runs only when a GPU is visible; otherwise each
 * case is listed as SKIPPED by name. This process makes no CUDA call: the steps run as
 * children. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

static char out[1 << 16], err[1 << 16];

static int run_attention(const char *stem, char *const args[], const char *csv)
{
    char rel[256], path[512];
    snprintf(rel, sizeof rel, "solutions/attention/%s", stem);
    bin_path(rel, path, sizeof path);
    char *argv[32] = {path};
    int n = 1;
    for (; args[n - 1] != NULL; ++n)
        argv[n] = args[n - 1];
    char *tail[] = {"--repeats", "1", "--min-time", "0", "--warmup", "0"};
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; ++i)
        argv[n++] = tail[i];
    if (csv != NULL) {
        argv[n++] = "--csv";
        argv[n++] = (char *)csv;
    } else {
        argv[n++] = "--no-csv";
    }
    argv[n] = NULL;
    return run_capture(argv, NULL, out, sizeof out, err, sizeof err);
}

static char *last_field(const char *csv, const char *column)
{
    char why[512];
    char *value = util_csv_last_field(csv, column, why, sizeof why);
    ck_assert_msg(value != NULL, "%s", why);
    return value;
}

/* --mask causal and --k 1128 are one size: k 1128 and mask "causal" in the CSV, and half
 * the FLOPs of the same size without the mask (the gflops column times the time). */
START_TEST(mask_causal_is_k_plus_1000)
{
    if (util_case_skipped_for("solutions/attention/06-mma")) /* ARCH=sm_75 */
        return;
    char *dir = util_temp_dir("attention-mask");
    ck_assert_ptr_nonnull(dir);
    char csv[600];
    snprintf(csv, sizeof csv, "%s/runs.csv", dir);
    char *causal[] = {"--m", "2", "--n", "1000", "--k", "128", "--mask", "causal", NULL};
    int code = run_attention("06-mma", causal, csv);
    ck_assert_msg(code == 0, "exit %d\n%s%s", code, out, err);
    char *k = last_field(csv, "k"), *mask = last_field(csv, "mask");
    char *gflops = last_field(csv, "gflops"), *ms = last_field(csv, "median_ms");
    ck_assert_str_eq(k, "1128");
    ck_assert_str_eq(mask, "causal");
    double flops = strtod(gflops, NULL) * 1e9 * strtod(ms, NULL) / 1e3;
    double want = 2.0 * 2 * 1000.0 * 1000 * 128;
    ck_assert_msg(flops > 0.99 * want && flops < 1.01 * want, "%g FLOPs, want %g", flops, want);
    free(k), free(mask), free(gflops), free(ms);
    char *none[] = {"--m", "2", "--n", "1000", "--k", "128", NULL};
    code = run_attention("06-mma", none, csv);
    ck_assert_msg(code == 0, "exit %d\n%s%s", code, out, err);
    mask = last_field(csv, "mask");
    ck_assert_str_eq(mask, "none");
    free(mask);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

/* The unfused step's MB counts the scores (16 bytes each); the fused step's does not. */
START_TEST(unfused_steps_count_the_scores)
{
    char *dir = util_temp_dir("attention-bytes");
    ck_assert_ptr_nonnull(dir);
    char csv[600];
    snprintf(csv, sizeof csv, "%s/runs.csv", dir);
    char *size[] = {"--m", "2", "--n", "1000", "--k", "64", NULL};
    const char *stems[] = {"03-tiled", "04-fused"};
    double want[] = {(8.0 * 2 * 1000 * 64 + 16.0 * 2 * 1000 * 1000) / 1e6, 8.0 * 2 * 1000 * 64 / 1e6};
    for (int s = 0; s < 2; ++s) {
        int code = run_attention(stems[s], size, csv);
        ck_assert_msg(code == 0, "%s: exit %d\n%s%s", stems[s], code, out, err);
        char *mb = last_field(csv, "moved_mb");
        double got = strtod(mb, NULL);
        ck_assert_msg(got > 0.999 * want[s] && got < 1.001 * want[s], "%s: %g MB, want %g", stems[s], got,
                      want[s]);
        free(mb);
    }
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

/* 64 heads of 32768, d = 64: the scores would take 275 GB. Step 01 is refused in one
 * line before anything runs; step 06, which never writes them, runs and passes. */
START_TEST(scores_that_cannot_fit_are_refused_only_where_needed)
{
    char *size[] = {"--m", "64", "--n", "32768", "--k", "64", "--untimed", NULL};
    int code = run_attention("01-standard", size, NULL);
    ck_assert_msg(code == 2, "01-standard: exit %d\n%s%s", code, out, err);
    ck_assert_msg(strstr(err, "of device memory") != NULL, "%s", err);
    if (util_case_skipped_for("solutions/attention/06-mma")) /* ARCH=sm_75 */
        return;
    code = run_attention("06-mma", size, NULL);
    ck_assert_msg(code == 0, "06-mma: exit %d\n%s%s", code, out, err);
}
END_TEST

/* The cudnn row is cuDNN at its best: at a size's first launch it times every engine
 * configuration the heuristics offer that runs and keeps the fastest, and its note
 * says which and of how many (at least one, or the size would have been refused); the
 * kept plan passes, causal and not. */
START_TEST(cudnn_keeps_the_fastest_engine_it_timed)
{
    if (util_case_skipped_for("solutions/attention/cudnn")) /* no cuDNN here, or ARCH=sm_75 */
        return;
    char *causal[] = {"--m", "2", "--n", "1000", "--k", "128", "--mask", "causal", NULL};
    char *none[] = {"--m", "2", "--n", "1000", "--k", "128", NULL};
    char **sizes[] = {none, causal};
    for (int s = 0; s < 2; ++s) {
        int code = run_attention("cudnn", sizes[s], NULL);
        ck_assert_msg(code == 0, "cudnn%s: exit %d\n%s%s", s ? " causal" : "", code, out, err);
        const char *note = strstr(err, "cudnn: note: ");
        const char *engine = note != NULL ? strstr(note, ", engine ") : NULL;
        long index = -2, timed = 0;
        int parsed = engine != NULL && sscanf(engine, ", engine %ld (fastest of %ld timed) of heuristics mode ",
                                               &index, &timed) == 2;
        ck_assert_msg(parsed && index >= 0 && timed >= 1, "cudnn%s: no 'engine N (fastest of M timed)' note in\n%s",
                      s ? " causal" : "", err);
    }
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The wrong submissions, each graded at its own step by bin/lab grade, all at once
 * (each a child of the fixture, its output in a log beside its gradebook). Each is a
 * solution step with one mistake that no sanitizer sees: four that only the numbers
 * show, right at the check sizes where the mistake changes nothing (each file's header
 * says why), and step 03's three kernels handed in as step 04, right but not fused,
 * which the rubric's one-kernel line finds in what its speed run launched. */
struct wrong {
    const char *student, *step, *stem;
    const char *says; /* in the report: the correct line's count, or the technique's reason */
    int correct;      /* 1: right numbers, the technique lost (else correct fails: nothing) */
    const char *why;
};
static const struct wrong wrongs[] = {
    {"max-not-subtracted", "02", "02-warp-softmax",
     "2 of 11 check sizes correct; first failure at 3x17x64", 0,
     "the row's maximum not subtracted: expf overflows on the spiked queries"},
    {"rescale-forgotten", "05", "05-flash2",
     "3 of 11 check sizes correct; first failure at 2x77x1064", 0,
     "O not rescaled when the running maximum grows"},
    {"off-by-one-edge", "08", "08-causal",
     "5 of 11 check sizes correct; first failure at 2x1x1128", 0,
     "the causal mask off by one: query i does not see key i"},
    {"lost-tail", "07", "07-cp-async",
     "0 of 11 check sizes correct; first failure at 1x1x64", 0,
     "the keys of the last, partial tile lost"},
    {"unfused-scores", "04", "04-fused",
     "the step launched 3 kernels (scores_kernel, softmax_kernel, pv_kernel); the rubric wants one", 1,
     "step 03's three kernels as step 04: the scores in device memory"},
};
#define WRONGS (sizeof wrongs / sizeof wrongs[0])
static char *grade_dir;
static int grade_status[WRONGS];

static void grade_wrongs(void)
{
    grade_dir = util_temp_dir("attention-wrong");
    if (grade_dir == NULL)
        return;
    const char *students[WRONGS], *steps[WRONGS];
    for (size_t i = 0; i < WRONGS; ++i) {
        students[i] = wrongs[i].student;
        steps[i] = wrongs[i].step;
    }
    util_grade_wrongs_at_once("attention", students, steps, WRONGS, grade_dir, grade_status);
}

static void remove_wrongs(void)
{
    if (grade_dir != NULL)
        util_remove_tree(grade_dir);
    free(grade_dir);
    grade_dir = NULL;
}

/* The report's line "  attention/<stem> <check> ..." holds want. */
static void expect_line(const char *report, const struct wrong *w, const char *check, const char *want)
{
    char start[128];
    snprintf(start, sizeof start, "  attention/%s %s ", w->stem, check);
    const char *line = strstr(report, start);
    ck_assert_msg(line != NULL, "%s (%s): no '%s' in\n%s", w->student, w->why, start, report);
    const char *end = strchr(line + 1, '\n');
    size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
    char *text = strndup(line, len);
    int found = text != NULL && strstr(text, want) != NULL;
    free(text);
    ck_assert_msg(found, "%s (%s): '%s' does not say '%s':\n%s", w->student, w->why, start, want, report);
}

START_TEST(wrong_submission_loses_its_step)
{
    const struct wrong *w = &wrongs[_i];
    char rel[256];
    snprintf(rel, sizeof rel, "solutions/attention/%s", w->stem);
    if (util_case_skipped_for(rel)) /* not gradable here: ARCH=sm_75 and steps 06-08 */
        return;
    ck_assert_ptr_nonnull(grade_dir);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.reports/%s.txt", grade_dir, w->student, w->student);
    char *report = util_read_file(path, NULL);
    if (report == NULL) {
        snprintf(path, sizeof path, "%s/%s.log", grade_dir, w->student);
        char *log = util_read_file(path, NULL);
        ck_abort_msg("%s (%s): no report (exit %d)\n%s", w->student, w->why, grade_status[_i], log ? log : "");
    }
    expect_line(report, w, "build", "PASS");
    ck_assert_msg(strstr(report, w->says) != NULL, "%s (%s): no '%s' in\n%s", w->student, w->why, w->says,
                  report);
    char total[128];
    if (w->correct) { /* right, but not the step's technique: its point lost, never full marks */
        expect_line(report, w, "correct", "PASS 4/4");
        expect_line(report, w, "technique", "FAIL 0/1");
        snprintf(total, sizeof total, "attention/%s: 11 of 11", w->stem);
        ck_assert_msg(strstr(report, total) == NULL, "%s (%s):\n%s", w->student, w->why, report);
    } else { /* wrong where the header says, and correct is required: nothing */
        expect_line(report, w, "correct", "FAIL 0/4");
        snprintf(total, sizeof total, "attention/%s: 0 of 11 (a required check failed (correct)", w->stem);
        ck_assert_msg(strstr(report, total) != NULL, "%s (%s): no '%s' in\n%s", w->student, w->why, total,
                      report);
    }
    /* a mistake in the numbers alone: no tool sees it (where compute-sanitizer runs) */
    if (strstr(report, "compute-sanitizer was not found") == NULL) {
        expect_line(report, w, "memcheck", "PASS");
        expect_line(report, w, "racecheck", "PASS");
    }
    free(report);
}
END_TEST

static const char *const cases[] = {
    "solutions/attention/06-mma --mask causal: k 1128, mask causal, half the FLOPs",
    "solutions/attention/03-tiled and 04-fused: the MB column counts the scores only where written",
    "solutions/attention 64x32768x64: 01-standard refused (exit 2), 06-mma passes",
    "solutions/attention/cudnn: the fastest of the engines it timed kept and named, causal and not",
};
#define CASES (sizeof cases / sizeof cases[0])
static char case_name_store[WRONGS][192];

size_t attention_gpu_case_names(const char **names, size_t max)
{
    size_t n = util_case_names(cases, CASES, names, max);
    for (size_t i = 0; i < WRONGS && n < max; ++i) {
        snprintf(case_name_store[i], sizeof case_name_store[i], "grading tests/submissions/%s at step %s (%s)",
                 wrongs[i].student, wrongs[i].step, wrongs[i].why);
        names[n++] = case_name_store[i];
    }
    return n;
}

Suite *attention_gpu_suite(void)
{
    Suite *s = suite_create("attention_gpu");
    TCase *tc = tcase_create("attention on the GPU");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, mask_causal_is_k_plus_1000);
    tcase_add_test(tc, unfused_steps_count_the_scores);
    tcase_add_test(tc, scores_that_cannot_fit_are_refused_only_where_needed);
    tcase_add_test(tc, cudnn_keeps_the_fastest_engine_it_timed);
    suite_add_tcase(s, tc);
    TCase *wrong = tcase_create("attention's wrong submissions graded");
    tcase_set_timeout(wrong, 60);
    tcase_add_unchecked_fixture(wrong, grade_wrongs, remove_wrongs);
    tcase_add_loop_test(wrong, wrong_submission_loses_its_step, 0, (int)WRONGS);
    suite_add_tcase(s, wrong);
    return s;
}

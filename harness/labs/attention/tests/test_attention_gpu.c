/* The attention lab's own GPU cases (every step at every check size is
 * tests/test_gpu.c's): --mask causal is k + 1000 and recorded as such, with half the
 * FLOPs; the steps that keep the scores in device memory count their bytes and are
 * refused in one line (exit 2) where the n x n scores cannot fit, while the fused steps
 * run there. Runs only when a GPU is visible; otherwise each case is listed as SKIPPED
 * by name. This process makes no CUDA call: the steps run as children. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    code = run_attention("06-mma", size, NULL);
    ck_assert_msg(code == 0, "06-mma: exit %d\n%s%s", code, out, err);
}
END_TEST

static const char *const cases[] = {
    "solutions/attention/06-mma --mask causal: k 1128, mask causal, half the FLOPs",
    "solutions/attention/03-tiled and 04-fused: the MB column counts the scores only where written",
    "solutions/attention 64x32768x64: 01-standard refused (exit 2), 06-mma passes",
};

size_t attention_gpu_case_names(const char **names, size_t max)
{
    return util_case_names(cases, sizeof cases / sizeof cases[0], names, max);
}

Suite *attention_gpu_suite(void)
{
    Suite *s = suite_create("attention_gpu");
    TCase *tc = tcase_create("attention on the GPU");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, mask_causal_is_k_plus_1000);
    tcase_add_test(tc, unfused_steps_count_the_scores);
    tcase_add_test(tc, scores_that_cannot_fit_are_refused_only_where_needed);
    suite_add_tcase(s, tc);
    return s;
}

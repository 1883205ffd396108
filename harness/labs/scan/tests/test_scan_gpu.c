/* The scan lab's own GPU cases: every solution step past 2^31 elements (or a
 * one-line refusal where the GPU cannot hold them), and the rows beside the steps
 * (the CUB call and the CPU loop) checked like a step. Every step at every check
 * size is tests/test_gpu.c's. Runs only when a GPU is visible; otherwise each case
 * is listed as SKIPPED by name. This process makes no CUDA call. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "lab_registry.h"
#include "side_by_side.h"
#include "util.h"

static char out[1 << 16], err[1 << 16];

/* 3 x 715827887 = 2^31 + 13 elements (the command line takes each number up to
 * 2^31 - 1; scan reads --m M --n N as M x N elements): 17.2 GB of input and
 * output, indices past int and past unsigned int's half. */
static const struct check_size huge = {3, 715827887, 1};
/* What one such run holds on the device: the input and output, the steps' scratch
 * (a few MB) and the process's context, rounded up. */
#define HUGE_GPU_GB 18.0

static int run_sized(const char *rel, const struct check_size *size)
{
    char path[512];
    bin_path(rel, path, sizeof path);
    return run_step_at(path, size, NULL, out, sizeof out, err, sizeof err);
}

START_TEST(solution_step_past_2_31_elements)
{
    const struct step_table *lab = step_table_find("scan");
    char stem[128], rel[256];
    snprintf(rel, sizeof rel, "solutions/scan/%s", step_stem(&lab->steps[_i], stem, sizeof stem));
    /* checked once, not timed: copying 8.6 GB back and checking it a second time after
     * timing would prove nothing more */
    char path[512];
    int code = run_step_untimed(bin_path(rel, path, sizeof path), &huge, out, sizeof out, err,
                                sizeof err);
    if (code == 2) { /* a GPU too small: a clear refusal, one line */
        ck_assert_msg(strstr(err, "GB of device memory") != NULL, "%s: exit 2\n%s", rel, err);
        ck_assert_int_eq(count_lines(err), 1);
        return;
    }
    ck_assert_msg(code == 0, "%s at 2^31 + 13: exit %d\n%s%s", rel, code, out, err);
    ck_assert_ptr_nonnull(strstr(out, "2147483661"));
}
END_TEST

static const struct check_size row_sizes[] = {{1, 1, 1}, {1, 33, 1}, {1, 1000003, 1}};

START_TEST(cub_row_is_correct)
{
    const struct check_size *size = &row_sizes[_i];
    int code = run_sized("solutions/scan/cub", size);
    ck_assert_msg(code == 0, "cub at %ld: exit %d\n%s%s", size->n, code, out, err);
    ck_assert_ptr_nonnull(strstr(out, "PASS"));
}
END_TEST

START_TEST(cub_row_past_2_31_elements)
{
    char path[512];
    int code = run_step_untimed(bin_path("solutions/scan/cub", path, sizeof path), &huge, out,
                                sizeof out, err, sizeof err);
    ck_assert_msg(code == 0 || (code == 2 && strstr(err, "GB of device memory") != NULL),
                  "cub at 2^31 + 13: exit %d\n%s%s", code, out, err);
}
END_TEST

START_TEST(cpu_row_is_correct)
{
    const struct check_size *size = &row_sizes[_i];
    int code = run_sized("solutions/scan/cpu-serial", size);
    ck_assert_msg(code == 0, "cpu-serial at %ld: exit %d\n%s%s", size->n, code, out, err);
    ck_assert_ptr_nonnull(strstr(out, "PASS"));
}
END_TEST

static char case_name_store[32][96];
static const char *const extra_names[] = {
    "solutions/scan/cub 1", "solutions/scan/cub 33", "solutions/scan/cub 1000003",
    "solutions/scan/cub 2147483661 (over 2^31 elements)",
    "solutions/scan/cpu-serial 1", "solutions/scan/cpu-serial 33",
    "solutions/scan/cpu-serial 1000003",
};

size_t scan_gpu_case_names(const char **names, size_t max)
{
    size_t n = 0;
    const struct step_table *scan = step_table_find("scan");
    for (size_t i = 0; i < scan->count && n < max && n < 32; ++i) {
        snprintf(case_name_store[n], sizeof case_name_store[n],
                 "solutions/scan/%s-%s 2147483661 (over 2^31 elements)", scan->steps[i].id,
                 scan->steps[i].name);
        names[n] = case_name_store[n];
        ++n;
    }
    for (size_t i = 0; i < sizeof extra_names / sizeof extra_names[0] && n < max; ++i)
        names[n++] = extra_names[i];
    return n;
}

/* One case per step past 2^31 (about 15 s each alone, timed: 17 GB generated, copied
 * and checked), each a job of its own that the runner runs side by side with
 * the others as the GPU's memory allows (tests/side_by_side.h); the rows at small
 * sizes in one case, so CK_RUN_CASE can run them alone. */
static char huge_case_names[32][96];

Suite *scan_gpu_suite(void)
{
    Suite *s = suite_create("scan_gpu");
    const struct step_table *scan = step_table_find("scan");
    for (size_t i = 0; i < scan->count && i < 32; ++i) {
        snprintf(huge_case_names[i], sizeof huge_case_names[i], "scan past 2^31 elements: %s-%s",
                 scan->steps[i].id, scan->steps[i].name);
        TCase *tc = side_by_side_tcase(s, "scan_gpu", huge_case_names[i], 600, HUGE_GPU_GB);
        tcase_add_loop_test(tc, solution_step_past_2_31_elements, (int)i, (int)i + 1);
    }
    TCase *cub = side_by_side_tcase(s, "scan_gpu", "scan past 2^31 elements: cub", 600, HUGE_GPU_GB);
    tcase_add_test(cub, cub_row_past_2_31_elements);
    TCase *rows = tcase_create("scan rows");
    tcase_set_timeout(rows, 300);
    tcase_add_loop_test(rows, cub_row_is_correct, 0, (int)(sizeof row_sizes / sizeof row_sizes[0]));
    tcase_add_loop_test(rows, cpu_row_is_correct, 0, (int)(sizeof row_sizes / sizeof row_sizes[0]));
    suite_add_tcase(s, rows);
    return s;
}

/* The scan lab's own GPU cases: every solution step past 2^31 elements (or a
 * one-line refusal where the GPU cannot hold them), and the rows beside the steps
 * (the CUB call and the CPU loop) checked like a step. Every step at every check
 * size is tests/test_gpu.c's. Runs only when a GPU is visible; otherwise each case
 * is listed as SKIPPED by name. This process makes no CUDA call. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "lab_registry.h"
#include "util.h"

static char out[1 << 16], err[1 << 16];

/* 3 x 715827887 = 2^31 + 13 elements (the command line takes each number up to
 * 2^31 - 1; scan reads --m M --n N as M x N elements): 17.2 GB of input and
 * output, indices past int and past unsigned int's half. */
static const struct check_size huge = {3, 715827887, 1};

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
    int code = run_sized(rel, &huge);
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
    int code = run_sized("solutions/scan/cub", &huge);
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

Suite *scan_gpu_suite(void)
{
    Suite *s = suite_create("scan_gpu");
    /* two cases, so CK_RUN_CASE can run the rows alone: the steps past 2^31 take
     * about 15 s each (17 GB generated, copied and checked) */
    TCase *huge_case = tcase_create("scan past 2^31 elements");
    tcase_set_timeout(huge_case, 600);
    tcase_add_loop_test(huge_case, solution_step_past_2_31_elements, 0,
                        (int)step_table_find("scan")->count);
    tcase_add_test(huge_case, cub_row_past_2_31_elements);
    TCase *rows = tcase_create("scan rows");
    tcase_set_timeout(rows, 300);
    tcase_add_loop_test(rows, cub_row_is_correct, 0, (int)(sizeof row_sizes / sizeof row_sizes[0]));
    tcase_add_loop_test(rows, cpu_row_is_correct, 0, (int)(sizeof row_sizes / sizeof row_sizes[0]));
    suite_add_tcase(s, rows);
    suite_add_tcase(s, huge_case);
    return s;
}

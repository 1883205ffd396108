/* The sort lab's own GPU cases: every solution step refuses 2^31 keys or more with
 * one line, and the rows beside the steps (the CUB calls and the CPU sorts) are
 * checked like a step on every kind of key. Every step at every check size is
 * tests/test_gpu.c's. Runs only when a GPU is visible; otherwise each case is listed
 * as SKIPPED by name. This process makes no CUDA call. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "lab_registry.h"
#include "side_by_side.h"
#include "util.h"

static char out[1 << 16], err[1 << 16];

/* 2 x 1100000000 keys: past 2^31 - 1, which the steps' int indices cannot reach */
static const struct check_size huge = {2, 1100000000, 1};

static int run_sized(const char *rel, const struct check_size *size)
{
    char path[512];
    bin_path(rel, path, sizeof path);
    return run_step_at(path, size, NULL, out, sizeof out, err, sizeof err);
}

START_TEST(solution_step_refuses_2_31_keys)
{
    const struct step_table *lab = step_table_find("sort");
    char stem[128], rel[256];
    snprintf(rel, sizeof rel, "solutions/sort/%s", step_stem(&lab->steps[_i], stem, sizeof stem));
    int code = run_sized(rel, &huge);
    ck_assert_msg(code == 2, "%s past 2^31 keys: exit %d\n%s%s", rel, code, out, err);
    ck_assert_ptr_nonnull(strstr(err, "at most 2^31 - 1 keys"));
    ck_assert_int_eq(count_lines(err), 1);
}
END_TEST

/* every kind of key at a size of no tile's multiple */
static const struct check_size row_sizes[] = {
    {1, 1, 1}, {1, 100003, 1}, {1, 100003, 3}, {1, 100003, 9}, {1, 100003, 10}, {1, 100003, 11},
};
#define ROW_SIZES (sizeof row_sizes / sizeof row_sizes[0])
static const char *const rows[] = {"cub-keys", "cub-keys-i64", "cub-pairs", "cub-pairs-i64",
                                   "cpu-qsort", "cpu-radix", "cpu-openmp"};
#define ROWS (sizeof rows / sizeof rows[0])

/* _i: the row times ROW_SIZES plus the size */
START_TEST(row_is_correct)
{
    const char *row = rows[_i / ROW_SIZES];
    const struct check_size *size = &row_sizes[_i % ROW_SIZES];
    char rel[128];
    snprintf(rel, sizeof rel, "solutions/sort/%s", row);
    int code = run_sized(rel, size);
    ck_assert_msg(code == 0, "%s at %ld keys, k %ld: exit %d\n%s%s", rel, size->n, size->k, code,
                  out, err);
    ck_assert_ptr_nonnull(strstr(out, "PASS"));
}
END_TEST

static char case_name_store[64][96];
static char row_case_names[ROWS][48];

size_t sort_gpu_case_names(const char **names, size_t max)
{
    size_t n = 0;
    const struct step_table *sort = step_table_find("sort");
    for (size_t i = 0; i < sort->count && n < max && n < 64; ++i, ++n) {
        snprintf(case_name_store[n], sizeof case_name_store[n],
                 "solutions/sort/%s-%s 2200000000 (refused: past 2^31 - 1 keys)",
                 sort->steps[i].id, sort->steps[i].name);
        names[n] = case_name_store[n];
    }
    for (size_t i = 0; i < ROWS * ROW_SIZES && n < max && n < 64; ++i, ++n) {
        snprintf(case_name_store[n], sizeof case_name_store[n], "solutions/sort/%s %ld k=%ld",
                 rows[i / ROW_SIZES], row_sizes[i % ROW_SIZES].n, row_sizes[i % ROW_SIZES].k);
        names[n] = case_name_store[n];
    }
    return n;
}

Suite *sort_gpu_suite(void)
{
    Suite *s = suite_create("sort_gpu");
    TCase *refusals = tcase_create("sort past 2^31 keys");
    tcase_set_timeout(refusals, 120);
    tcase_add_loop_test(refusals, solution_step_refuses_2_31_keys, 0,
                        (int)step_table_find("sort")->count);
    suite_add_tcase(s, refusals);
    /* each row a job of its own beside the others (side_by_side.h): one after the
     * other, the 42 processes were the longest job of make test on the H200 (183 s) */
    for (size_t r = 0; r < ROWS; ++r) {
        snprintf(row_case_names[r], sizeof row_case_names[r], "sort row %s", rows[r]);
        TCase *tc = side_by_side_tcase(s, "sort_gpu", row_case_names[r], 300, 0);
        tcase_add_loop_test(tc, row_is_correct, (int)(r * ROW_SIZES), (int)((r + 1) * ROW_SIZES));
    }
    return s;
}

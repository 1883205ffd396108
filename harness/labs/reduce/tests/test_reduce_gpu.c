/* The reduction lab's own GPU cases: the determinism check holds each step to what
 * lab.def's STEP_PARAMS line promises ("fixed": the same bits in every run, recorded
 * as distinct_sums 1; "atomic": within the bound, any number of distinct sums);
 * --quick leaves the check's columns empty; a size larger than the GPU's memory is
 * refused in one line with exit 2. Every step at every check size is
 * tests/test_gpu.c's. Runs only when a GPU is visible; otherwise each case is listed
 * as SKIPPED by name. This process makes no CUDA call: the steps run as children. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "lab_registry.h"
#include "util.h"

static char out[1 << 16], err[1 << 16];

/* The STEP_PARAMS lines of lab.def, by id or row name. */
struct promise {
    const char *id, *order;
};
#define STEP(...)
#define CHECK_SIZE(m, n, k)
#define ROW(...)
#define STEP_PARAMS(id, order) {id, order},
static const struct promise promises[] = {
#include "lab.def"
};
#undef STEP_PARAMS
#undef ROW
#undef CHECK_SIZE
#undef STEP
#define PROMISES (sizeof promises / sizeof promises[0])

/* The binary of promise i: a step's stem or a row's name. */
static void binary_of(size_t i, char *name, size_t len)
{
    const struct step_table *t = step_table_find("reduce");
    const struct step_info *step = step_table_step(t, promises[i].id);
    if (step != NULL && step_table_row(t, promises[i].id) == NULL)
        step_stem(step, name, len);
    else
        snprintf(name, len, "%s", promises[i].id);
}

static int run_reduce(const char *name, const char *n, int quick, const char *csv)
{
    char rel[256], path[512];
    snprintf(rel, sizeof rel, "solutions/reduce/%s", name);
    bin_path(rel, path, sizeof path);
    char *argv[] = {path, "--n", (char *)n, "--repeats", "1", "--min-time", "0", "--warmup", "0",
                    "--csv", (char *)csv, quick ? "--quick" : NULL, NULL};
    return run_capture(argv, NULL, out, sizeof out, err, sizeof err);
}

/* The field of csv's last row in column; a copy the caller frees. */
static char *last_field(const char *csv, const char *column)
{
    char why[512];
    char *value = util_csv_last_field(csv, column, why, sizeof why);
    ck_assert_msg(value != NULL, "%s", why);
    return value;
}

START_TEST(each_step_keeps_its_promise)
{
    char name[128], csv[600];
    binary_of((size_t)_i, name, sizeof name);
    char *dir = util_temp_dir("reduce-determinism");
    ck_assert_ptr_nonnull(dir);
    snprintf(csv, sizeof csv, "%s/runs.csv", dir);
    int code = run_reduce(name, "1000003", 0, csv);
    ck_assert_msg(code == 0, "%s: exit %d\n%s%s", name, code, out, err);
    char *distinct = last_field(csv, "distinct_sums");
    char *rel_err = last_field(csv, "real_rel_err");
    ck_assert_msg(distinct[0] != '\0' && rel_err[0] != '\0', "%s: no determinism columns", name);
    if (strcmp(promises[_i].order, "fixed") == 0)
        ck_assert_msg(strcmp(distinct, "1") == 0, "%s promises one sum, gave %s", name, distinct);
    ck_assert_double_lt(strtod(rel_err, NULL), 1e-3);
    free(distinct), free(rel_err);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

START_TEST(quick_leaves_the_determinism_columns_empty)
{
    char *dir = util_temp_dir("reduce-quick");
    ck_assert_ptr_nonnull(dir);
    char csv[600];
    snprintf(csv, sizeof csv, "%s/quick.csv", dir);
    int code = run_reduce("12-last-block", "4097", 1, csv);
    ck_assert_msg(code == 0, "exit %d\n%s%s", code, out, err);
    char *distinct = last_field(csv, "distinct_sums");
    char *gbps = last_field(csv, "gbps");
    ck_assert_str_eq(distinct, "");
    ck_assert_msg(strtod(gbps, NULL) > 0, "gbps '%s'", gbps);
    free(distinct), free(gbps);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

/* 2^36 floats (256 GiB): more than any GPU holds; refused before anything is made */
START_TEST(too_large_for_the_gpu_is_refused)
{
    char rel[] = "solutions/reduce/13-tuned", path[512];
    bin_path(rel, path, sizeof path);
    /* the host's memory said to be 10 TiB (a fixture in /proc/meminfo's form), so that
     * the device's is what refuses it */
    char fixture[512], env[600];
    snprintf(env, sizeof env, "LAB_MEMINFO=%s",
             fixture_path("meminfo/ten-tib-available", fixture, sizeof fixture));
    const char *extra_env[] = {env, NULL};
    char *argv[] = {path, "--m", "64", "--n", "1073741824", "--no-csv", NULL};
    int code = run_capture(argv, extra_env, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 2, "exit %d\n%s%s", code, out, err);
    ck_assert_msg(strstr(err, "of device memory") != NULL, "%s", err);
}
END_TEST

static char case_name_store[64][192];

size_t reduce_gpu_case_names(const char **names, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < PROMISES && n < max && n < 62; ++i) {
        char name[64];
        binary_of(i, name, sizeof name);
        snprintf(case_name_store[n], sizeof case_name_store[n],
                 "solutions/reduce/%s 1000003: the determinism check keeps the \"%s\" promise",
                 name, promises[i].order);
        names[n] = case_name_store[n];
        ++n;
    }
    if (n < max)
        names[n++] = "solutions/reduce/12-last-block 4097 --quick: no determinism columns";
    if (n < max)
        names[n++] = "solutions/reduce/13-tuned at 2^36 floats: refused, exit 2";
    return n;
}

Suite *reduce_gpu_suite(void)
{
    Suite *s = suite_create("reduce_gpu");
    TCase *tc = tcase_create("reduce on the GPU");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, each_step_keeps_its_promise, 0, (int)PROMISES);
    tcase_add_test(tc, quick_leaves_the_determinism_columns_empty);
    tcase_add_test(tc, too_large_for_the_gpu_is_refused);
    suite_add_tcase(s, tc);
    return s;
}

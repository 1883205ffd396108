/* The spmv lab's own GPU cases (every step at every check matrix is tests/test_gpu.c's):
 * every step and row on the committed Matrix Market file (a symmetric file, mirrored,
 * with an empty row and values that are not exact), step 05 states its conversion on
 * a line of its own, and nnz past 2^31 is refused in one line with exit 2. Runs only
 * when a GPU is visible; otherwise each case is listed as SKIPPED by name. This
 * process makes no CUDA call: the steps run as children. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    suite_add_tcase(s, tc);
    return s;
}

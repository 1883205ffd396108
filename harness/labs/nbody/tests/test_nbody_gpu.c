/* The N-body lab's own GPU cases: --quick (the option grading's compute-sanitizer
 * runs use) leaves out the physics check's judgement and its drift columns, and
 * still passes on every solution step; without it the drifts are measured and
 * recorded; and the runner's --time-limit stops this lab's slowest step (01, one GPU
 * thread). Runs only when a GPU is visible; otherwise each case is listed as
 * SKIPPED by name. This process makes no CUDA call: the steps run as children. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "lab_registry.h"
#include "util.h"

static char out[1 << 16], err[1 << 16];

/* Runs solutions/nbody/<stem> at 255 bodies (grading's sanitize-size), with --quick
 * when quick, recording one row into csv; the exit code. */
static int run_at_255(const char *stem, int quick, const char *csv)
{
    char rel[256], path[512];
    snprintf(rel, sizeof rel, "solutions/nbody/%s", stem);
    bin_path(rel, path, sizeof path);
    char *argv[] = {path, "--n", "255", "--repeats", "1", "--min-time", "0", "--warmup", "0",
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

START_TEST(quick_passes_every_step_without_the_drifts)
{
    const struct step_table *nbody = step_table_find("nbody");
    char stem[128];
    step_stem(&nbody->steps[_i], stem, sizeof stem);
    char *dir = util_temp_dir("nbody-quick");
    ck_assert_ptr_nonnull(dir);
    char csv[600];
    snprintf(csv, sizeof csv, "%s/quick.csv", dir);
    int code = run_at_255(stem, 1, csv);
    ck_assert_msg(code == 0, "%s --quick: exit %d\n%s%s", stem, code, out, err);
    ck_assert_msg(strstr(out, "--quick: correctness at this size only") != NULL, "%s", out);
    char *verdict = last_field(csv, "verdict");
    char *energy = last_field(csv, "energy_drift");
    char *momentum = last_field(csv, "momentum_drift");
    ck_assert_str_eq(verdict, "PASS");
    ck_assert_str_eq(energy, ""); /* the physics check was not judged */
    ck_assert_str_eq(momentum, "");
    free(verdict), free(energy), free(momentum);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

START_TEST(without_quick_the_drifts_are_measured)
{
    char *dir = util_temp_dir("nbody-quick");
    ck_assert_ptr_nonnull(dir);
    char csv[600];
    snprintf(csv, sizeof csv, "%s/full.csv", dir);
    int code = run_at_255("07-shared", 0, csv);
    ck_assert_msg(code == 0, "07-shared: exit %d\n%s%s", code, out, err);
    ck_assert_ptr_null(strstr(out, "--quick"));
    char *energy = last_field(csv, "energy_drift");
    ck_assert_msg(energy[0] != '\0' && strtod(energy, NULL) < 1e-4, "energy_drift '%s'", energy);
    free(energy);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

/* The runner's --time-limit (make run gives every step one), on the slowest step
 * there is: exit 5, one line with its size and limit. */
START_TEST(time_limit_stops_a_step)
{
    char path[512];
    bin_path("solutions/nbody/01-one-thread", path, sizeof path);
    /* one GPU thread over 16384^2 interactions: about 30 s a launch on an H100 */
    char *argv[] = {path, "--n", "16384", "--no-csv", "--time-limit", "1", NULL};
    int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 5, "exit %d\n%s%s", code, out, err);
    ck_assert_msg(strstr(err, "time limit: 01-one-thread at size 16384 ran past 1 s") != NULL, "%s",
                  err);
}
END_TEST

static char case_name_store[64][128];

size_t nbody_gpu_case_names(const char **names, size_t max)
{
    size_t n = 0;
    const struct step_table *nbody = step_table_find("nbody");
    for (size_t i = 0; i < nbody->count && n < max && n < 64; ++i) {
        snprintf(case_name_store[n], sizeof case_name_store[n],
                 "solutions/nbody/%s-%s 255 --quick: passes, no drifts", nbody->steps[i].id,
                 nbody->steps[i].name);
        names[n] = case_name_store[n];
        ++n;
    }
    if (n < max)
        names[n++] = "solutions/nbody/07-shared 255: the drifts are measured and recorded";
    if (n < max)
        names[n++] = "--time-limit stops solutions/nbody/01-one-thread at 16384 bodies: exit 5, one line";
    return n;
}

Suite *nbody_gpu_suite(void)
{
    Suite *s = suite_create("nbody_gpu");
    TCase *tc = tcase_create("nbody on the GPU");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, quick_passes_every_step_without_the_drifts, 0,
                        (int)step_table_find("nbody")->count);
    tcase_add_test(tc, without_quick_the_drifts_are_measured);
    tcase_add_test(tc, time_limit_stops_a_step);
    suite_add_tcase(s, tc);
    return s;
}

/* GPU tests of every lab: every solution step at its lab's check sizes, the
 * student's tree in whatever state, the occupancy model against the runtime, the
 * results CSV and grading. Each lab's own GPU cases are in its tests/ folder. Each test runs binaries as
 * child processes; this process never calls CUDA. Runs only when bin/gpu-probe
 * finds a GPU; otherwise every case below is listed as SKIPPED by name. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab_registry.h"
#include "util.h"

static char out[1 << 16], err[1 << 16];

/* The (step, size) cases: every step of every lab at each of its lab's check
 * sizes (its lab.def), numbered in step-table order. */
static size_t case_count(void)
{
    size_t cases = 0;
    for (const struct step_table *const *it_t = all_step_tables, *t; (t = *it_t) != NULL; ++it_t)
        cases += t->count * t->check_size_count;
    return cases;
}

static void case_at(size_t index, const struct step_table **lab, const struct step_info **step,
                    const struct check_size **size)
{
    for (const struct step_table *const *it_t = all_step_tables, *t; (t = *it_t) != NULL; ++it_t) {
        size_t cases = t->count * t->check_size_count;
        if (index < cases) {
            *lab = t;
            *step = &t->steps[index / t->check_size_count];
            *size = &t->check_sizes[index % t->check_size_count];
            return;
        }
        index -= cases;
    }
}

static char case_name_store[512][96];
static const char *const extra_names[] = {
    "every labs/ step passes or is reported TODO, whatever the student has done",
    "occupancy model agrees with the runtime on every step",
    "results CSV row is written with GPU, driver, nvcc, commit, role, cache; unwritable: exit 4",
};

size_t gpu_case_names(const char **names, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < case_count() && n < max && n < 512; ++i) {
        const struct step_table *lab = NULL;
        const struct step_info *step = NULL;
        const struct check_size *size = NULL;
        case_at(i, &lab, &step, &size);
        snprintf(case_name_store[n], sizeof case_name_store[n], "solutions/%s/%s-%s %ldx%ldx%ld",
                 lab->lab, step->id, step->name, size->m, size->n, size->k);
        names[n] = case_name_store[n];
        ++n;
    }
    for (size_t i = 0; i < sizeof extra_names / sizeof extra_names[0] && n < max; ++i)
        names[n++] = extra_names[i];
    return n;
}

static int run_sized(const char *path, const struct check_size *size, const char *csv)
{
    return run_step_at(path, size, csv, out, sizeof out, err, sizeof err);
}

START_TEST(solution_step_is_correct)
{
    const struct step_table *lab = NULL;
    const struct step_info *step = NULL;
    const struct check_size *size = NULL;
    case_at((size_t)_i, &lab, &step, &size);
    char stem[128], rel[256], path[512];
    snprintf(rel, sizeof rel, "solutions/%s/%s", lab->lab, step_stem(step, stem, sizeof stem));
    bin_path(rel, path, sizeof path);
    int code = run_sized(path, size, NULL);
    ck_assert_msg(code == 0, "%s at %ldx%ldx%ld: exit %d\n%s%s", rel, size->m, size->n, size->k,
                  code, out, err);
    ck_assert_ptr_nonnull(strstr(out, "PASS"));
}
END_TEST

/* The labs tree is whatever state the student left it in: each step either passes,
 * or (still marked STEP_TODO) says TODO, exits 3 and records nothing. A step the
 * student wrote wrongly fails here, as it should. */
START_TEST(labs_steps_pass_or_are_todo)
{
    for (const struct step_table *const *it_t = all_step_tables, *t; (t = *it_t) != NULL; ++it_t) {
        /* one size that is not a multiple of any tile: the fifth check size when the
         * lab has one */
        const struct check_size *size = &t->check_sizes[t->check_size_count > 4 ? 4 : 0];
        for (size_t s = 0; s < t->count; ++s) {
            char stem[128], rel[256], path[512];
            snprintf(rel, sizeof rel, "%s/%s", t->lab, step_stem(&t->steps[s], stem, sizeof stem));
            bin_path(rel, path, sizeof path);
            int code = run_sized(path, size, NULL);
            ck_assert_msg(code == 0 || code == 3, "labs/%s: exit %d\n%s%s", rel, code, out, err);
            if (code == 3) {
                ck_assert_msg(strstr(out, " TODO") != NULL, "labs/%s: %s", rel, out);
                ck_assert_msg(strstr(err, "TODO: ") != NULL, "labs/%s: %s", rel, err);
            } else {
                ck_assert_msg(strstr(out, " PASS") != NULL, "labs/%s: %s", rel, out);
            }
        }
    }
}
END_TEST

START_TEST(occupancy_model_agrees_on_every_step)
{
    for (const struct step_table *const *it_t = all_step_tables, *t; (t = *it_t) != NULL; ++it_t)
        for (size_t s = 0; s < t->count; ++s) {
            /* a size of the lab's own (each lab reads m, n, k its own way: N-body has
             * one body count): its fifth check size, as above */
            const struct check_size *size = &t->check_sizes[t->check_size_count > 4 ? 4 : 0];
            char stem[128], rel[256], path[512];
            snprintf(rel, sizeof rel, "solutions/%s/%s", t->lab,
                     step_stem(&t->steps[s], stem, sizeof stem));
            bin_path(rel, path, sizeof path);
            int code = run_sized(path, size, NULL);
            ck_assert_msg(code == 0, "%s: exit %d\n%s%s", rel, code, out, err);
            ck_assert_msg(strstr(err, "occupancy model predicts") == NULL, "%s: %s", rel, err);
            ck_assert_msg(strstr(out, "(?)") == NULL, "%s: no limiter in %s", rel, out);
        }
    /* and a sweep of synthetic kernels: block sizes, register caps, shared memory */
    char sweep[256];
    char *argv[] = {(char *)bin_path("occupancy-api-check", sweep, sizeof sweep), NULL};
    int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "occupancy-api-check exit %d\n%s%s", code, out, err);
}
END_TEST

START_TEST(results_csv_row)
{
    char *dir = util_temp_dir("gpu");
    ck_assert_ptr_nonnull(dir);
    const struct step_table *t = all_step_tables[0];
    char csv[256], path[256], stem[128], rel[256], expected[256];
    snprintf(csv, sizeof csv, "%s/results.csv", dir);
    snprintf(rel, sizeof rel, "solutions/%s/%s", t->lab, step_stem(&t->steps[0], stem, sizeof stem));
    bin_path(rel, path, sizeof path);
    ck_assert_int_eq(run_sized(path, &t->check_sizes[t->check_size_count > 4 ? 4 : 0], csv), 0);
    FILE *f = fopen(csv, "r");
    ck_assert_ptr_nonnull(f);
    char header[4096], row[4096];
    ck_assert_ptr_nonnull(fgets(header, sizeof header, f));
    ck_assert_ptr_nonnull(fgets(row, sizeof row, f));
    fclose(f);
    ck_assert_ptr_nonnull(strstr(header, "gpu,cc,sms,clock_mhz,driver,runtime,nvcc"));
    ck_assert_ptr_nonnull(strstr(header, ",step,role,source,flags,cache,"));
    snprintf(expected, sizeof expected, ",%s,%s,step,solutions,", t->lab, stem);
    ck_assert_msg(strstr(row, expected) != NULL, "%s lacks %s", row, expected);
    ck_assert_ptr_nonnull(strstr(row, ",flushed,"));
    ck_assert_ptr_nonnull(strstr(row, ",PASS"));
    /* a results file that cannot be written: the step ran and passed, exit 4 */
    ck_assert_int_eq(run_sized(path, &t->check_sizes[0], dir), 4);
    ck_assert_msg(strstr(err, "was not recorded") != NULL, "%s", err);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST


Suite *gpu_suite(void)
{
    Suite *s = suite_create("gpu");
    TCase *tc = tcase_create("solutions");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, solution_step_is_correct, 0, (int)case_count());
    suite_add_tcase(s, tc);
    tc = tcase_create("labs and harness");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, labs_steps_pass_or_are_todo);
    tcase_add_test(tc, occupancy_model_agrees_on_every_step);
    tcase_add_test(tc, results_csv_row);
    suite_add_tcase(s, tc);
    return s;
}

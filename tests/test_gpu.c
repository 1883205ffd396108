/* GPU tests of every lab: the student's tree in whatever state, the rows beside the
 * steps, then (not in the students' copy, which has no solutions/) every solution
 * step at its lab's check sizes, the occupancy model against the runtime and the
 * results CSV. Each lab's own GPU cases are in its tests/ folder. Each test runs
 * binaries as child processes; this process never calls CUDA. Runs only when
 * bin/gpu-probe finds a GPU; otherwise every case below is listed as SKIPPED by name. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab_registry.h"
#include "results.h"
#include "side_by_side.h"
#include "util.h"

static char out[1 << 16], err[1 << 16];

/* The binaries the solution cases run: every step of every lab, then every row
 * beside its steps (lab.def's ROW lines: the library, the CPU code), numbered in
 * step-table order. */
static size_t binary_count(void)
{
    size_t n = 0;
    for (const struct step_table *const *it_t = all_step_tables, *t; (t = *it_t) != NULL; ++it_t)
        n += t->count + t->row_count;
    return n;
}

/* Binary index: its lab and its name (a step's stem or a row's name). */
static void binary_at(size_t index, const struct step_table **lab, char *name, size_t name_len)
{
    for (const struct step_table *const *it_t = all_step_tables, *t; (t = *it_t) != NULL; ++it_t) {
        size_t n = t->count + t->row_count;
        if (index < n) {
            *lab = t;
            if (index < t->count)
                step_stem(&t->steps[index], name, name_len);
            else
                snprintf(name, name_len, "%s", t->rows[index - t->count].name);
            return;
        }
        index -= n;
    }
}

/* every solution step and row of every lab, named for the SKIPPED list */
#define MAX_CASE_NAMES 512
static char case_name_store[MAX_CASE_NAMES][256];
/* The cases of every copy, then those that run the reference solutions, which the
 * students' copy (no solutions/) has not: neither run nor listed there. */
static const char *const labs_names[] = {
    "every labs/ step passes or is reported TODO, whatever the student has done; one "
    "still TODO runs at its default size within make run's time limit",
    "every row beside the steps records its role, a CPU row its threads",
};
static const char *const solution_names[] = {
    "occupancy model agrees with the runtime on a sweep of synthetic kernels",
    "results CSV row is written with GPU, driver, nvcc, commit, role, cache; unwritable: exit 4",
    "step 01 is compared with the CPU baseline row, a later CPU row with the one before it",
    "bin/gpu-probe --results-dir names the folder of the GPU a step records",
    "bin/clocks samples the step's own GPU (CUDA_VISIBLE_DEVICES) while it runs and records a summary",
};

size_t gpu_case_names(const char **names, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof labs_names / sizeof labs_names[0] && n < max; ++i)
        names[n++] = labs_names[i];
    if (students_copy())
        return n;
    for (size_t i = 0; i < sizeof solution_names / sizeof solution_names[0] && n < max; ++i)
        names[n++] = solution_names[i];
    return n;
}

/* Every solution step and row at every check size, the longest part of the GPU
 * tests, dealt into GPU_PARTS cases of the suite gpu_steps, each a job of its own
 * that tests/run_tests.c runs side by side (tests/side_by_side.h); part k takes the
 * binaries from k n / GPU_PARTS on, so that one lab's largest sizes (reduce's 2^31
 * floats, 8.6 GB) run in two or three parts at most, never all at once. Each binary
 * runs its lab's check sizes in one process, as grading's check run does
 * (--check-sizes; once each, untimed): 930 processes, one per size, each timed
 * three times, took over 6 minutes of the H100 beside the other GPU cases
 * (2026-11-27). 16 parts, not 12: with 12, one part held ten of reduce's binaries,
 * each generating and summing 2^31 floats on the host, and ended the H200's make test
 * a minute after it started, the others taking half that (2026-11-30); 16 deal them
 * into parts of at most seven, still three parts at most. In the students' copy the
 * suite is empty. */
#define GPU_PARTS 16
static size_t part_begin(int k)
{
    return binary_count() * (size_t)k / GPU_PARTS;
}

size_t gpu_steps_case_names(const char **names, size_t max)
{
    size_t n = 0;
    if (students_copy())
        return 0;
    for (size_t i = 0; i < binary_count() && n < max && i < MAX_CASE_NAMES; ++i) {
        const struct step_table *lab = NULL;
        char name[128];
        binary_at(i, &lab, name, sizeof name);
        snprintf(case_name_store[i], sizeof case_name_store[i],
                 "solutions/%s/%s at each of its lab's %zu check sizes, its occupancy "
                 "model agreeing with the runtime",
                 lab->lab, name, lab->check_size_count);
        names[n++] = case_name_store[i];
    }
    return n;
}

static int run_sized(const char *path, const struct check_size *size, const char *csv)
{
    return run_step_at(path, size, csv, out, sizeof out, err, sizeof err);
}

/* How many rows of the table in out say PASS (a row's verdict is a word of its own). */
static size_t passed_rows(void)
{
    size_t n = 0;
    for (const char *p = out; (p = strstr(p, " PASS")) != NULL; ++p)
        n += p[5] == ' ' || p[5] == '\n';
    return n;
}

/* A step or row at every check size of its lab, in one process, untimed: each size
 * correct, and at each the occupancy model's blocks per SM the runtime's (the runner
 * says so on stderr when they differ) with a limiter named. */
START_TEST(solution_binary_is_correct_at_every_check_size)
{
    const struct step_table *lab = NULL;
    char name[128], rel[256], path[512], from[] = "1";
    binary_at((size_t)_i, &lab, name, sizeof name);
    snprintf(rel, sizeof rel, "solutions/%s/%s", lab->lab, name);
    bin_path(rel, path, sizeof path);
    char *argv[] = {path, "--check-sizes", from, "--repeats", "1", "--min-time", "0",
                    "--warmup", "0", "--no-csv", NULL};
    int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    char reason[256];
    if (util_step_skipped(code, err, reason, sizeof reason)) {
        util_skip(rel, reason, 1);
        return;
    }
    ck_assert_msg(code == 0, "%s at its check sizes: exit %d (the last row is the size "
                  "that failed)\n%s%s", rel, code, out, err);
    ck_assert_msg(passed_rows() == lab->check_size_count, "%s: %zu of %zu sizes PASS\n%s", rel,
                  passed_rows(), lab->check_size_count, out);
    ck_assert_msg(strstr(err, "occupancy model predicts") == NULL, "%s: %s", rel, err);
    ck_assert_msg(strstr(out, "(?)") == NULL, "%s: no limiter in %s", rel, out);
}
END_TEST

/* The labs tree is whatever state the student left it in: each step either passes,
 * or (still marked STEP_TODO) says TODO, exits 3 and records nothing. A step the
 * student wrote wrongly fails here, as it should. A step still TODO runs as a fresh
 * clone's `make run` runs it, with no size (checked at the lab's fifth check size, not
 * timed), and says TODO well within make run's time limit: N-body's untouched step 02
 * (step 01's one GPU thread at step 02's 131072 bodies) once ran for tens of minutes.
 * A step done runs at the fifth check size (not a multiple of any tile), untimed.
 * One case per lab (_i), each a job of its own: one case for every lab took 228 s
 * of the H100's make test, one step after another. */
START_TEST(labs_steps_pass_or_are_todo)
{
    const struct step_table *t = all_step_tables[_i];
    const struct check_size *size = &t->check_sizes[t->check_size_count > 4 ? 4 : 0];
    for (size_t s = 0; s < t->count; ++s) {
        char stem[128], rel[256], path[512], source[300];
        snprintf(rel, sizeof rel, "%s/%s", t->lab, step_stem(&t->steps[s], stem, sizeof stem));
        snprintf(source, sizeof source, "labs/%s.cu", rel);
        char *text = util_read_file(source, NULL);
        ck_assert_msg(text != NULL, "cannot read %s", source);
        int todo = strstr(text, "\nSTEP_TODO(") != NULL;
        free(text);
        bin_path(rel, path, sizeof path);
        char reason[256];
        if (todo) {
            char *argv[] = {path, "--no-csv", "--time-limit", "60", NULL};
            int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
            if (util_step_skipped(code, err, reason, sizeof reason)) {
                util_skip(rel, reason, 0);
                continue;
            }
            ck_assert_msg(code == 3, "labs/%s, still TODO, at its default size: exit %d\n%s%s",
                          rel, code, out, err);
            ck_assert_msg(strstr(out, " TODO") != NULL, "labs/%s: %s", rel, out);
            ck_assert_msg(strstr(err, "TODO: ") != NULL, "labs/%s: %s", rel, err);
            /* not timed: its rates (the columns after the verdict) are "-", never a
             * rate of an infinite speed; its max err may be anything (the step is not
             * the student's yet) */
            const char *rates = strstr(out, " TODO");
            ck_assert_msg(rates != NULL && strstr(rates, " inf") == NULL &&
                              strstr(rates, " nan") == NULL,
                          "labs/%s, not timed, shows a rate: %s", rel, out);
        } else {
            int code = run_step_untimed(path, size, out, sizeof out, err, sizeof err);
            if (util_step_skipped(code, err, reason, sizeof reason)) {
                util_skip(rel, reason, 0);
                continue;
            }
            ck_assert_msg(code == 0, "labs/%s: exit %d\n%s%s", rel, code, out, err);
            ck_assert_msg(strstr(out, " PASS") != NULL, "labs/%s: %s", rel, out);
        }
    }
}
END_TEST

/* The occupancy model against cudaOccupancyMaxActiveBlocksPerMultiprocessor on a
 * sweep of synthetic kernels (block sizes, register caps, shared memory); on every
 * step at its check sizes, solution_binary_is_correct_at_every_check_size. */
START_TEST(occupancy_model_agrees_on_a_sweep)
{
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


/* The field of csv's first row in column (by its header). */
static void csv_field(const char *csv, const char *column, char *value, size_t len)
{
    value[0] = '\0';
    char *text = util_read_file(csv, NULL);
    ck_assert_ptr_nonnull(text);
    char *row = strchr(text, '\n');
    ck_assert_ptr_nonnull(row);
    *row++ = '\0';
    int at = -1, c = 0;
    for (char *h = text, *next; h != NULL && at < 0; h = next, ++c) {
        next = strchr(h, ',');
        if (next != NULL)
            *next++ = '\0';
        if (strcmp(h, column) == 0)
            at = c;
    }
    ck_assert_msg(at >= 0, "%s has no column %s", csv, column);
    char *f = row;
    for (int i = 0; i < at && f != NULL; ++i) { /* the lab's fields here hold no quoted comma */
        f = strchr(f, ',');
        f = f != NULL ? f + 1 : NULL;
    }
    ck_assert_ptr_nonnull(f);
    snprintf(value, len, "%.*s", (int)strcspn(f, ",\n"), f);
    free(text);
}

/* tests/verify-on-gpu.sh files grading's throughput under the GPU's folder as
 * bin/gpu-probe --results-dir names it: the folder results_gpu_dir gives for the gpu a
 * step records. */
START_TEST(gpu_probe_names_the_results_folder)
{
    char *dir = util_temp_dir("gpu");
    ck_assert_ptr_nonnull(dir);
    const struct step_table *t = all_step_tables[0];
    char csv[256], path[256], stem[128], rel[256];
    snprintf(csv, sizeof csv, "%s/results.csv", dir);
    snprintf(rel, sizeof rel, "solutions/%s/%s", t->lab, step_stem(&t->steps[0], stem, sizeof stem));
    bin_path(rel, path, sizeof path);
    ck_assert_int_eq(run_sized(path, &t->check_sizes[0], csv), 0);
    char gpu[256], want[256], probe[256];
    csv_field(csv, "gpu", gpu, sizeof gpu);
    results_gpu_dir(gpu, want, sizeof want);
    strcat(want, "\n");
    char *argv[] = {(char *)bin_path("gpu-probe", probe, sizeof probe), "--results-dir", NULL};
    ck_assert_int_eq(run_capture(argv, NULL, out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, want);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

/* bin/clocks on a GPU: a solution step timed for a second at its lab's largest check
 * size while NVML is sampled; the summary recorded as a CSV row with busy samples, an
 * SM clock between 0 and the GPU's most, and a power reading. The step runs on the GPU
 * CUDA_VISIBLE_DEVICES gives it (the machine's own list, under Slurm; else 0), and
 * bin/clocks says it samples that one. */
START_TEST(clocks_sample_a_step)
{
    char *dir = util_temp_dir("gpu");
    ck_assert_ptr_nonnull(dir);
    const struct step_table *t = all_step_tables[0];
    const struct check_size *size = &t->check_sizes[t->check_size_count - 1];
    char csv[256], path[256], stem[128], rel[256], tool[256], m[24], n[24], k[24];
    snprintf(csv, sizeof csv, "%s/clocks.csv", dir);
    snprintf(rel, sizeof rel, "solutions/%s/%s", t->lab, step_stem(&t->steps[0], stem, sizeof stem));
    bin_path(rel, path, sizeof path);
    snprintf(m, sizeof m, "%ld", size->m);
    snprintf(n, sizeof n, "%ld", size->n);
    snprintf(k, sizeof k, "%ld", size->k);
    /* --busy 1: any kernel in a sample period counts (a check size's kernels are short) */
    char *argv[] = {(char *)bin_path("clocks", tool, sizeof tool), "--csv", csv, "--interval", "10",
                    "--busy", "1", "--label", stem, "--", path, "--m", m, "--n", n, "--k", k,
                    "--min-time", "1", "--no-csv", "--no-observe", NULL};
    const char *given = getenv("CUDA_VISIBLE_DEVICES");
    char visible[300];
    snprintf(visible, sizeof visible, "CUDA_VISIBLE_DEVICES=%s", given != NULL ? given : "0");
    const char *env[] = {visible, NULL};
    ck_assert_msg(run_capture(argv, env, out, sizeof out, err, sizeof err) == 0, "%s%s", out, err);
    ck_assert_msg(strstr(out, "samples busy (utilization at least 1%): SM clock") != NULL, "%s", out);
    ck_assert_msg(strstr(err, "clocks: sampling GPU ") != NULL &&
                      strstr(err, "the command's by CUDA_VISIBLE_DEVICES=") != NULL,
                  "%s", err);
    char why[600];
    char *busy = util_csv_last_field(csv, "busy_samples", why, sizeof why);
    char *mean = util_csv_last_field(csv, "sm_mhz_mean", why, sizeof why);
    char *most = util_csv_last_field(csv, "sm_mhz_most", why, sizeof why);
    char *power = util_csv_last_field(csv, "power_w_mean", why, sizeof why);
    char *label = util_csv_last_field(csv, "label", why, sizeof why);
    ck_assert_msg(busy && mean && most && power && label, "%s", why);
    ck_assert_int_gt(atoi(busy), 0);
    ck_assert_int_gt(atoi(mean), 0);
    ck_assert_msg(atoi(most) == 0 || atoi(mean) <= atoi(most), "mean %s MHz above the most, %s", mean, most);
    ck_assert_double_gt(atof(power), 0.0);
    ck_assert_str_eq(label, stem);
    free(busy);
    free(mean);
    free(most);
    free(power);
    free(label);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

START_TEST(rows_record_their_role)
{
    for (const struct step_table *const *it_t = all_step_tables, *t; (t = *it_t) != NULL; ++it_t)
        for (size_t r = 0; r < t->row_count; ++r) {
            char *dir = util_temp_dir("gpu");
            ck_assert_ptr_nonnull(dir);
            char csv[256], rel[256], path[512], role[32], threads[32];
            snprintf(csv, sizeof csv, "%s/results.csv", dir);
            /* the labs tree's: a row is built from the lab's own file in both trees */
            snprintf(rel, sizeof rel, "%s/%s", t->lab, t->rows[r].name);
            bin_path(rel, path, sizeof path);
            int code = run_sized(path, &t->check_sizes[t->check_size_count > 4 ? 4 : 0], csv);
            char reason[256];
            if (util_step_skipped(code, err, reason, sizeof reason)) {
                /* a row this GPU cannot run, or whose library is missing here */
                util_remove_tree(dir);
                free(dir);
                util_skip(rel, reason, 0);
                continue;
            }
            role[0] = threads[0] = '\0';
            if (code == 0) {
                csv_field(csv, "role", role, sizeof role);
                csv_field(csv, "threads_per_block", threads, sizeof threads);
            }
            /* removed before anything can fail (a failed assertion ends the test) */
            int removed = util_remove_tree(dir);
            free(dir);
            ck_assert_msg(code == 0, "%s: exit %d\n%s%s", rel, code, out, err);
            ck_assert_int_eq(removed, 0);
            ck_assert_str_eq(role, t->rows[r].role);
            /* a CPU row's threads: at least one; a library's: none of ours */
            if (strcmp(role, "cpu") == 0)
                ck_assert_msg(atoi(threads) >= 1, "%s: threads %s", rel, threads);
            else
                ck_assert_str_eq(threads, "0");
        }
}
END_TEST

/* The word of the table row of step (its first word) in out, counting from its median
 * ms, the first word after the step's name with a decimal point (the size before it
 * may be several words: sort's "4097 uniform"); "" when out has no such row. */
static void table_word_after_median(const char *step, int word, char *value, size_t len)
{
    char start[160];
    snprintf(start, sizeof start, "%s ", step);
    const char *row = strstr(out, start);
    value[0] = '\0';
    if (row == NULL)
        return;
    row += strlen(start);
    for (int w = -1; w < word && *row != '\0' && *row != '\n';) {
        row += strspn(row, " ");
        size_t n = strcspn(row, " \n");
        if (w >= 0 || memchr(row, '.', n) != NULL)
            ++w;
        if (w == word)
            snprintf(value, len, "%.*s", (int)n, row);
        row += n;
    }
}

/* Speedups are measured between rows of the same size recorded before: run the
 * baseline row, step 01 and then the other CPU rows at one size into one CSV, and
 * step 01's "vs prev" is its speedup over the baseline, each later CPU row's "vs
 * prev" its speedup over the CPU row before it and its "vs 01" over step 01. */
START_TEST(first_step_is_compared_with_the_baseline)
{
    for (const struct step_table *const *it_t = all_step_tables, *t; (t = *it_t) != NULL; ++it_t) {
        const struct row_info *baseline = step_table_baseline(t);
        if (baseline == NULL)
            continue;
        /* the binaries in order, and the column each one's row must show a speedup in */
        const char *names[16];
        int column[16], checks = 0;
        char stem[128];
        names[checks] = baseline->name, column[checks++] = -1;
        names[checks] = step_stem(&t->steps[0], stem, sizeof stem), column[checks++] = 1; /* vs prev */
        for (size_t r = 0; r < t->row_count && checks < 15; ++r)
            if (&t->rows[r] != baseline && strcmp(t->rows[r].role, "cpu") == 0)
                names[checks] = t->rows[r].name, column[checks++] = 2; /* vs prev and vs 01 */
        char *dir = util_temp_dir("gpu");
        ck_assert_ptr_nonnull(dir);
        const struct check_size *size = &t->check_sizes[t->check_size_count > 4 ? 4 : 0];
        char csv[256], rel[256], path[512], words[16][2][32] = {{{0}}}, failed[1024] = "";
        snprintf(csv, sizeof csv, "%s/results.csv", dir);
        for (int c = 0; c < checks && failed[0] == '\0'; ++c) {
            snprintf(rel, sizeof rel, "solutions/%s/%s", t->lab, names[c]);
            int code = run_sized(bin_path(rel, path, sizeof path), size, csv);
            if (code != 0)
                snprintf(failed, sizeof failed, "%s: exit %d\n%.300s", rel, code, err);
            else if (column[c] >= 0) {
                /* median, min, "-", max, rate, vs prev, vs 01; a lab whose rate is not
                 * FLOP/s (RATE_LABEL) has no rate column there */
                int rate = t->rate_label == NULL;
                table_word_after_median(names[c], 4 + rate, words[c][0], sizeof words[c][0]);
                table_word_after_median(names[c], 5 + rate, words[c][1], sizeof words[c][1]);
            }
        }
        /* removed before anything can fail (a failed assertion ends the test) */
        int removed = util_remove_tree(dir);
        free(dir);
        ck_assert_msg(failed[0] == '\0', "%s", failed);
        ck_assert_int_eq(removed, 0);
        for (int c = 0; c < checks; ++c) {
            if (column[c] < 0)
                continue;
            const char *vs_prev = words[c][0], *vs_first = words[c][1];
            ck_assert_msg(strlen(vs_prev) > 1 && vs_prev[strlen(vs_prev) - 1] == 'x',
                          "%s: vs prev '%s'", names[c], vs_prev);
            if (column[c] == 2)
                ck_assert_msg(strlen(vs_first) > 1 && vs_first[strlen(vs_first) - 1] == 'x',
                              "%s: vs 01 '%s'", names[c], vs_first);
        }
    }
}
END_TEST

static char part_names[GPU_PARTS][48];

Suite *gpu_steps_suite(void)
{
    Suite *s = suite_create("gpu_steps");
    if (students_copy())
        return s;
    for (int k = 0; k < GPU_PARTS; ++k) {
        snprintf(part_names[k], sizeof part_names[k], "solution steps, part %d of %d", k + 1,
                 GPU_PARTS);
        TCase *tc = side_by_side_tcase(s, "gpu_steps", part_names[k], 300, 0);
        tcase_add_loop_test(tc, solution_binary_is_correct_at_every_check_size, (int)part_begin(k),
                            (int)part_begin(k + 1));
    }
    return s;
}

#define MAX_LABS 32
static char labs_case_names[MAX_LABS][64];

/* Each of the cases that run every step of every lab (a binary started per step) a job
 * of its own, beside the others (tests/side_by_side.h). */
Suite *gpu_suite(void)
{
    Suite *s = suite_create("gpu");
    TCase *tc;
    for (int l = 0; all_step_tables[l] != NULL && l < MAX_LABS; ++l) {
        snprintf(labs_case_names[l], sizeof labs_case_names[l], "labs steps: %s",
                 all_step_tables[l]->lab);
        tc = side_by_side_tcase(s, "gpu", labs_case_names[l], 300, 0);
        tcase_add_loop_test(tc, labs_steps_pass_or_are_todo, l, l + 1);
    }
    tc = side_by_side_tcase(s, "gpu", "rows", 300, 0);
    tcase_add_test(tc, rows_record_their_role);
    if (students_copy())
        return s;
    tc = side_by_side_tcase(s, "gpu", "occupancy model on a sweep", 300, 0);
    tcase_add_test(tc, occupancy_model_agrees_on_a_sweep);
    tc = side_by_side_tcase(s, "gpu", "solutions", 300, 0);
    tcase_add_test(tc, results_csv_row);
    tcase_add_test(tc, first_step_is_compared_with_the_baseline);
    tcase_add_test(tc, gpu_probe_names_the_results_folder);
    tcase_add_test(tc, clocks_sample_a_step);
    return s;
}

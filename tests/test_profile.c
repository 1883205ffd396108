/* make profile's pure part (harness/profile.h): ncu's CSV read from recorded output
 * (tests/fixtures/ncu/: a table as `ncu --csv --page raw --print-units base` writes it,
 * ncu's refusals), the launches of a step added up, the limited-by rule, the profile
 * file written, read back and checked as bin/results-check checks it, and bin/profile's
 * answer where there is no ncu. No GPU, no ncu. Files go to a fresh temporary folder,
 * removed after each test. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/report.h"
#include "profile.h"
#include "results.h"
#include "step_table.h"
#include "util.h"

Suite *profile_suite(void);

extern const struct step_table step_table_demo;

static char *fixture(const char *name)
{
    char path[1024], rel[256];
    snprintf(rel, sizeof rel, "ncu/%s", name);
    char *text = util_read_file(fixture_path(rel, path, sizeof path), NULL);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    return text;
}

static long parse_fixture(const char *name, struct profile_kernel *k, size_t max)
{
    char *text = fixture(name), err[256] = "";
    long n = profile_parse_ncu_csv(text, k, max, err, sizeof err);
    ck_assert_msg(n > 0, "%s: %s", name, err);
    free(text);
    return n;
}

START_TEST(parses_launches_into_kernels)
{
    struct profile_kernel k[8];
    ck_assert_int_eq(parse_fixture("two-kernels.csv", k, 8), 2);
    ck_assert_str_eq(k[0].name, "matmul_tiled");
    ck_assert_uint_eq(k[0].launches, 2);
    ck_assert_str_eq(k[1].name, "_Z8pad_rowsPfi");
    ck_assert_uint_eq(k[1].launches, 1);
    /* counts summed (thousands separators read), percents weighted by duration */
    ck_assert_double_eq_tol(k[0].value[PC_DURATION_NS], 1024000.0 + 1048576.0, 1e-6);
    ck_assert_double_eq_tol(k[0].value[PC_DRAM_BYTES], 2 * 50331648.0, 1e-6);
    ck_assert_double_eq_tol(k[0].value[PC_DRAM_PCT],
                            (10.5 * 1024000 + 12.5 * 1048576) / (1024000.0 + 1048576), 1e-9);
    ck_assert_double_eq_tol(k[0].value[PC_THEORETICAL_PCT], 66.67, 1e-9);
    ck_assert_double_eq_tol(k[0].value[PC_INSTRUCTIONS], 4e6, 1e-6);
    ck_assert_double_eq_tol(k[0].stall[0], 2.5, 1e-9); /* barrier */
    /* "n/a": not measured */
    ck_assert(isnan(k[1].value[PC_FMA_INSTRUCTIONS]));
    ck_assert_double_eq_tol(k[1].value[PC_MEMORY_PCT], 80.0, 1e-9);
}
END_TEST

/* A real table, trimmed to the columns read (scan step 05 on an H100, ncu 2025.3.1):
 * three kernels, one launch each; the tensor pipe was not among its metrics. */
START_TEST(parses_recorded_ncu_table)
{
    struct profile_kernel k[8];
    ck_assert_int_eq(parse_fixture("scan-three-kernels.csv", k, 8), 3);
    ck_assert_str_eq(k[1].name, "scan_tile_sums(float *, long)");
    ck_assert_uint_eq(k[2].launches, 1);
    ck_assert_double_eq_tol(k[0].value[PC_DURATION_NS], 88928.0, 1e-9);
    ck_assert_double_eq_tol(k[2].value[PC_DRAM_BYTES], 515595520.0, 1e-9);
    ck_assert_double_eq_tol(k[2].value[PC_THEORETICAL_PCT], 62.5, 1e-9);
    ck_assert(isnan(k[0].value[PC_TENSOR_PCT]));
    ck_assert_str_eq(profile_limited_by(k[0].value[PC_MEMORY_PCT], k[0].value[PC_SM_PCT]), "memory");
    ck_assert_str_eq(profile_limited_by(k[1].value[PC_MEMORY_PCT], k[1].value[PC_SM_PCT]), "latency");
    struct profile_kernel total;
    profile_step_total(k, 3, &total);
    ck_assert_double_eq_tol(total.value[PC_DURATION_NS], 88928.0 + 16000.0 + 176192.0, 1e-9);
    ck_assert_str_eq(profile_limited_by(total.value[PC_MEMORY_PCT], total.value[PC_SM_PCT]), "memory");
}
END_TEST

START_TEST(units_row_scales_values)
{
    char *text = fixture("two-kernels.csv"), err[256];
    /* the same table in microseconds and kilobytes, as ncu writes it without
     * --print-units base: the values are brought back to ns and bytes */
    char *p;
    while ((p = strstr(text, "\"nsecond\"")) != NULL)
        memcpy(p, "\"usecond\"", 9);
    while ((p = strstr(text, "\"byte\"")) != NULL)
        memcpy(p, "\"Mbyt\"", 6);
    struct profile_kernel k[8];
    ck_assert_int_eq(profile_parse_ncu_csv(text, k, 8, err, sizeof err), 2);
    ck_assert_double_eq_tol(k[0].value[PC_DURATION_NS], (1024000.0 + 1048576.0) * 1e3, 1e-3);
    /* a unit it does not know is taken as it is */
    ck_assert_double_eq_tol(k[0].value[PC_DRAM_BYTES], 2 * 50331648.0, 1e-6);
    free(text);
}
END_TEST

START_TEST(malformed_tables_are_refused_in_one_line)
{
    struct profile_kernel k[4];
    char err[256] = "";
    ck_assert_int_eq(profile_parse_ncu_csv("==PROF== nothing here\n", k, 4, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "no table"));
    char *text = fixture("two-kernels.csv");
    char *p = strstr(text, "\"1,024,000\"");
    ck_assert_ptr_nonnull(p);
    memcpy(p, "\"1,O24,000\"", 11); /* a letter O for a zero */
    ck_assert_int_eq(profile_parse_ncu_csv(text, k, 4, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "gpu__time_duration.sum") != NULL && strstr(err, "line 8") != NULL,
                  "%s", err);
    ck_assert_ptr_null(strchr(err, '\n'));
    free(text);
}
END_TEST

START_TEST(ncu_refusals_are_named)
{
    char why[600];
    char *perm = fixture("nvgpuctrperm.log"), *none = fixture("no-kernels.log"),
         *bad = fixture("bad-metric.log"), *good = fixture("two-kernels.csv");
    ck_assert_int_eq(profile_ncu_problem(perm, why, sizeof why), PROFILE_NO_PERMISSION);
    ck_assert_ptr_nonnull(strstr(why, "ERR_NVGPUCTRPERM"));
    ck_assert_ptr_nonnull(strstr(why, "NVreg_RestrictProfilingToAdminUsers=0"));
    ck_assert_int_eq(profile_ncu_problem(none, why, sizeof why), PROFILE_NOTHING_PROFILED);
    ck_assert_int_eq(profile_ncu_problem(bad, why, sizeof why), PROFILE_NCU_ERROR);
    ck_assert_ptr_nonnull(strstr(why, "Failed to find metric sm__no_such_metric.sum"));
    ck_assert_ptr_null(strchr(why, '\n'));
    ck_assert_int_eq(profile_ncu_problem(good, why, sizeof why), PROFILE_OK);
    free(perm), free(none), free(bad), free(good);
}
END_TEST

START_TEST(limited_by_rule)
{
    ck_assert_str_eq(profile_limited_by(85, 30), "memory");
    ck_assert_str_eq(profile_limited_by(30, 85), "compute");
    ck_assert_str_eq(profile_limited_by(PROFILE_BOUND_PCT - 0.1, PROFILE_BOUND_PCT - 0.1), "latency");
    ck_assert_str_eq(profile_limited_by(PROFILE_BOUND_PCT, 10), "memory");
    ck_assert_str_eq(profile_limited_by(70, 70), "memory");
    ck_assert_str_eq(profile_limited_by(NAN, 90), "");
}
END_TEST

START_TEST(step_total_and_stalls)
{
    struct profile_kernel k[8], total;
    long n = parse_fixture("two-kernels.csv", k, 8);
    profile_step_total(k, (size_t)n, &total);
    ck_assert_uint_eq(total.launches, 3);
    ck_assert_double_eq_tol(total.value[PC_DURATION_NS], 1024000.0 + 1048576.0 + 2000.0, 1e-6);
    double d0 = 1024000.0 + 1048576.0;
    ck_assert_double_eq_tol(total.value[PC_MEMORY_PCT],
                            (k[0].value[PC_MEMORY_PCT] * d0 + 80.0 * 2000.0) / (d0 + 2000.0), 1e-9);
    int s1, s2;
    profile_top_stalls(&k[0], &s1, &s2);
    ck_assert_str_eq(profile_stall_reasons[s1], "barrier"); /* "selected" is no stall */
    ck_assert_str_eq(profile_stall_reasons[s2], "long_scoreboard");
    profile_top_stalls(&k[1], &s1, &s2);
    ck_assert_str_eq(profile_stall_reasons[s1], "long_scoreboard");
}
END_TEST

START_TEST(metrics_argument_names_every_counter)
{
    char buf[8192];
    ck_assert_int_eq(profile_metrics_argument(buf, sizeof buf), 0);
    int commas = 0;
    for (const char *c = buf; *c; ++c)
        commas += *c == ',';
    ck_assert_int_eq(commas, PC_COUNT + PROFILE_STALL_COUNT - 1);
    ck_assert_ptr_nonnull(strstr(buf, "gpu__time_duration.sum"));
    ck_assert_ptr_nonnull(strstr(buf, "stalled_long_scoreboard_per_issue_active.ratio"));
    ck_assert_int_eq(profile_metrics_argument(buf, 100), -1);
}
END_TEST

static void write_profile(const char *path, const char *run, const char *flags,
                          struct profile_kernel *k, size_t n)
{
    struct profile_meta meta = {
        .date = "2026-11-27T20:00:00Z", .run_id = run, .commit = "abc1234", .gpu = "Test GPU",
        .ncu_version = "2025.3.1.0", .clock_control = "base", .lab = "demo", .step = "02-shared",
        .source = "solutions", .flags = flags, .nvcc = "13.0.88", .m = 1000, .n = 1000, .k = 1,
        .median_ms = 1.25,
    };
    char err[256] = "";
    ck_assert_msg(profile_append(path, &meta, k, n, err, sizeof err) == 0, "%s", err);
}

START_TEST(profile_file_round_trip_and_check)
{
    struct profile_kernel k[8], found[8];
    long n = parse_fixture("two-kernels.csv", k, 8);
    char *dir = util_temp_dir("test_profile");
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/profiles/Test-GPU/demo.csv", dir);
    write_profile(path, "r1", "-O3", k, 1);
    write_profile(path, "r2", "-O3", k, (size_t)n);
    write_profile(path, "r3", "-O3 -DTILE=8", k, 1);
    struct csv_table t;
    ck_assert_int_eq(csv_read_file(path, &t, err, sizeof err), 0);
    ck_assert_uint_eq(t.nrows, 4);
    for (size_t r = 0; r < t.nrows; ++r)
        ck_assert_msg(profile_check_row(&t, r, err, sizeof err) == 0, "row %zu: %s", r, err);
    /* the newest profiling of the same build: r2's two kernels */
    long first = -2;
    ck_assert_int_eq(profile_find_step(&t, "02-shared", "solutions", "-O3", "13.0.88", found, 8, &first), 2);
    ck_assert_int_eq(first, 1);
    ck_assert_str_eq(found[1].name, "_Z8pad_rowsPfi");
    ck_assert_double_eq_tol(found[0].value[PC_DRAM_BYTES], k[0].value[PC_DRAM_BYTES], 1.0);
    ck_assert_int_eq(profile_find_step(&t, "02-shared", "labs", NULL, NULL, found, 8, NULL), 0);
    ck_assert_int_eq(profile_find_step(&t, "02-shared", NULL, "-O3 -DTILE=8", NULL, found, 8, NULL), 1);
    ck_assert_str_eq(csv_get(&t, 0, "limited_by"), "memory");
    ck_assert_str_eq(csv_get(&t, 0, "stall_1"), "barrier");
    /* the run table's answer, from the file */
    char limited[16];
    char profiles[600];
    snprintf(profiles, sizeof profiles, "%s/profiles", dir);
    ck_assert_str_eq(profile_limited_by_of_build(profiles, "Test GPU", "demo", "02-shared", "solutions",
                                                 "-O3", "13.0.88", limited, sizeof limited),
                     "memory");
    ck_assert_str_eq(profile_limited_by_of_build(profiles, "Test GPU", "demo", "02-shared", "solutions",
                                                 "-O2", "13.0.88", limited, sizeof limited),
                     "");
    /* unsound rows, each named */
    free(t.rows[0][csv_column(&t, "limited_by")]);
    t.rows[0][csv_column(&t, "limited_by")] = strdup("compute");
    ck_assert_int_eq(profile_check_row(&t, 0, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "limited_by"));
    free(t.rows[1][csv_column(&t, "dram_pct")]);
    t.rows[1][csv_column(&t, "dram_pct")] = strdup("250");
    ck_assert_int_eq(profile_check_row(&t, 1, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "dram_pct"));
    free(t.rows[2][csv_column(&t, "launches")]);
    t.rows[2][csv_column(&t, "launches")] = strdup("0");
    ck_assert_int_eq(profile_check_row(&t, 2, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "launches"));
    csv_free(&t);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

/* bin/results-check judges a profile file row by row, as it judges results files. */
START_TEST(results_check_judges_profile_files)
{
    struct profile_kernel k[8];
    long n = parse_fixture("two-kernels.csv", k, 8);
    char *dir = util_temp_dir("test_profile");
    char path[512], tool[512], out[4096], err[8192];
    snprintf(path, sizeof path, "%s/Test-GPU/demo.csv", dir);
    write_profile(path, "r1", "-O3", k, (size_t)n);
    bin_path("results-check", tool, sizeof tool);
    char *const argv[] = {tool, path, NULL};
    ck_assert_int_eq(run_capture(argv, NULL, out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(err, "");
    /* a launch count made negative */
    char *text = util_read_file(path, NULL);
    char *p = strstr(strchr(text, '\n') + 1, ",matmul_tiled,2,");
    ck_assert_ptr_nonnull(p);
    memcpy(p + strlen(",matmul_tiled,"), "-", 1);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    free(text);
    ck_assert_int_eq(run_capture(argv, NULL, out, sizeof out, err, sizeof err), 1);
    ck_assert_int_eq(count_lines(err), 1);
    ck_assert_msg(strstr(err, "demo.csv:2: launches") != NULL && strstr(err, "row skipped") != NULL,
                  "%s", err);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

/* results-check --out: each step's speed over the first profiled step's, as a ratio of
 * rates where their sizes differ (the work of a size found in the lab's results, any
 * step's row), of times where the size is the same, none where neither is known: N-body's
 * step 01 runs at 2048 bodies, its later steps at 131072, so a ratio of times would put
 * a step 16 times faster per body as thousands of times slower. */
START_TEST(profile_summary_speeds_are_rates_across_sizes)
{
    struct profile_kernel k[8];
    parse_fixture("two-kernels.csv", k, 8);
    char *dir = util_temp_dir("test_profile");
    char profiles[512], results[512], outdir[512], summary[600], tool[512], out[4096], err[8192];
    snprintf(profiles, sizeof profiles, "%s/profiles/Test-GPU/nbody.csv", dir);
    snprintf(results, sizeof results, "%s/results/Test-GPU/nbody.csv", dir);
    snprintf(outdir, sizeof outdir, "%s/out", dir);
    /* steps 01 (2048 bodies, 500 ms), 02 and 03 (131072 bodies, 8 and 4 ms), 04 (65536
     * bodies, no results row at that size) */
    struct { const char *step; long n; double ms; } runs[] = {
        {"01-one-thread", 2048, 500}, {"02-thread-per-body", 131072, 8},
        {"03-soa", 131072, 4}, {"04-constant", 65536, 1}};
    for (size_t i = 0; i < 4; ++i) {
        struct profile_meta meta = {
            .date = "2026-11-27T20:00:00Z", .run_id = "r1", .commit = "abc1234", .gpu = "Test GPU",
            .ncu_version = "2025.3.1.0", .clock_control = "base", .lab = "nbody",
            .step = runs[i].step, .source = "solutions", .flags = "-O3", .nvcc = "13.0.88",
            .m = 1, .n = runs[i].n, .k = 1, .median_ms = runs[i].ms,
        };
        ck_assert_msg(profile_append(profiles, &meta, k, 1, err, sizeof err) == 0, "%s", err);
    }
    /* the work of a size: rate x ms, from any passing row at that size (step 05's here):
     * rows of the real header, every field but the few read left empty */
    struct csv_table real;
    ck_assert_int_eq(csv_read_file("data/results/NVIDIA-H100-80GB-HBM3/nbody.csv", &real, err,
                                   sizeof err), 0);
    char mkdirs[1600];
    snprintf(mkdirs, sizeof mkdirs, "mkdir -p '%s/results/Test-GPU' '%s'", dir, outdir);
    ck_assert_int_eq(system(mkdirs), 0);
    FILE *f = fopen(results, "w");
    ck_assert_ptr_nonnull(f);
    struct { long n; const char *rate, *ms; } rows[] = {{2048, "10", "2"}, {131072, "2", "4000"}};
    for (int r = -1; r < 2; ++r)
        for (size_t c = 0; c < real.ncols; ++c) {
            const char *name = real.header[c], *v = "";
            char n[24];
            snprintf(n, sizeof n, "%ld", r >= 0 ? rows[r].n : 0L);
            if (r < 0)
                v = name;
            else if (strcmp(name, "step") == 0)
                v = "05-rsqrtf";
            else if (strcmp(name, "m") == 0 || strcmp(name, "k") == 0)
                v = "1";
            else if (strcmp(name, "n") == 0)
                v = n;
            else if (strcmp(name, "verdict") == 0)
                v = "PASS";
            else if (strcmp(name, "gflops") == 0)
                v = rows[r].rate;
            else if (strcmp(name, "median_ms") == 0)
                v = rows[r].ms;
            fprintf(f, "%s%s", v, c + 1 < real.ncols ? "," : "\n");
        }
    fclose(f);
    csv_free(&real);
    bin_path("results-check", tool, sizeof tool);
    char *const argv[] = {tool, "--out", outdir, profiles, NULL};
    ck_assert_msg(run_capture(argv, NULL, out, sizeof out, err, sizeof err) == 0, "%s", err);
    snprintf(summary, sizeof summary, "%s/nbody.profile.csv", outdir);
    struct csv_table t;
    ck_assert_int_eq(csv_read_file(summary, &t, err, sizeof err), 0);
    ck_assert_uint_eq(t.nrows, 4);
    /* 01: work 20 in 500 ms; 02: work 8000 in 8 ms, a rate 1000 / 0.04 = 25000 times;
     * 03: twice 02; 04: no work known at its size, nor step 01's size: none */
    ck_assert_double_eq_tol(atof(csv_get(&t, 0, "speed_vs_first")), 1.0, 1e-9);
    ck_assert_double_eq_tol(atof(csv_get(&t, 1, "speed_vs_first")), 25000.0, 1e-6);
    ck_assert_double_eq_tol(atof(csv_get(&t, 2, "speed_vs_first")), 50000.0, 1e-6);
    ck_assert_str_eq(csv_get(&t, 3, "speed_vs_first"), "nan");
    csv_free(&t);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

/* Grading's line: the student's counters beside the reference's, or why the reference
 * has none; the report prints it under the step's checks. */
START_TEST(grading_report_carries_counters)
{
    struct profile_kernel k[8];
    long n = parse_fixture("two-kernels.csv", k, 8);
    char line[1024];
    profile_compare_line(k, (size_t)n, k, 1, "demo", line, sizeof line);
    ck_assert_msg(strncmp(line, "yours: memory ", 14) == 0, "%s", line);
    ck_assert_ptr_nonnull(strstr(line, "; the reference solution: memory "));
    ck_assert_ptr_nonnull(strstr(line, "stalls barrier and long_scoreboard: limited by memory"));
    profile_compare_line(k, (size_t)n, NULL, 0, "demo", line, sizeof line);
    ck_assert_ptr_nonnull(strstr(line, "the reference solution: not profiled on this GPU "
                                       "(make profile LAB=demo SRC=solutions)"));
    struct step_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.stem, sizeof r.stem, "demo/02-shared");
    r.verdict = VERDICT_GRADED;
    snprintf(r.counters, sizeof r.counters, "%s", line);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    grade_write_report(out, "ann", "sub", &r, 1, NULL, 0, NULL);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(text, "  demo/02-shared counters: yours: memory "));
    free(text);
}
END_TEST

/* The run table's column: the rule's answer, "-" where the step was never profiled. */
START_TEST(run_table_shows_limited_by)
{
    struct run_record r;
    memset(&r, 0, sizeof r);
    r.step = "02-shared";
    r.role = "step";
    r.verdict = "PASS";
    r.limited_by = "compute";
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    results_print_header(out, NULL, 0, NULL);
    results_print_row(out, &r, "1000", NAN, NAN);
    r.limited_by = NULL;
    results_print_row(out, &r, "1000", NAN, NAN);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(text, "check limited by"));
    ck_assert_ptr_nonnull(strstr(text, "PASS  compute"));
    ck_assert_ptr_nonnull(strstr(text, "PASS  -"));
    free(text);
}
END_TEST

START_TEST(lab_def_declares_the_profile_size)
{
    ck_assert_int_eq(step_table_demo.has_profile_size, 1);
    ck_assert_int_eq(step_table_demo.profile_size.m, 1000);
    ck_assert_int_eq(step_table_demo.profile_size.n, 1000);
    ck_assert_int_eq(step_table_demo.profile_size.k, 1);
}
END_TEST

/* bin/profile without ncu: one line saying so and what to do, exit 6, before anything
 * else is looked at; with one, a lab it does not know: one line, exit 2. */
START_TEST(no_ncu_is_one_line_and_exit_6)
{
    char tool[512], out[4096], err[4096];
    bin_path("profile", tool, sizeof tool);
    char *const no_ncu[] = {tool, "--lab", "nosuchlab", "--ncu", "", NULL};
    ck_assert_int_eq(run_capture(no_ncu, NULL, out, sizeof out, err, sizeof err), PROFILE_EXIT_UNAVAILABLE);
    ck_assert_str_eq(out, "");
    ck_assert_int_eq(count_lines(err), 1);
    ck_assert_msg(strstr(err, "ncu") != NULL && strstr(err, "NCU=") != NULL, "%s", err);
    char *const no_lab[] = {tool, "--preflight", "--lab", "nosuchlab", "--ncu", "/bin/true", NULL};
    ck_assert_int_eq(run_capture(no_lab, NULL, out, sizeof out, err, sizeof err), 2);
    ck_assert_int_eq(count_lines(err), 1);
    ck_assert_ptr_nonnull(strstr(err, "no lab called nosuchlab"));
}
END_TEST

Suite *profile_suite(void)
{
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, parses_launches_into_kernels);
    tcase_add_test(tc, parses_recorded_ncu_table);
    tcase_add_test(tc, units_row_scales_values);
    tcase_add_test(tc, malformed_tables_are_refused_in_one_line);
    tcase_add_test(tc, ncu_refusals_are_named);
    tcase_add_test(tc, limited_by_rule);
    tcase_add_test(tc, step_total_and_stalls);
    tcase_add_test(tc, metrics_argument_names_every_counter);
    tcase_add_test(tc, profile_file_round_trip_and_check);
    tcase_add_test(tc, results_check_judges_profile_files);
    tcase_add_test(tc, grading_report_carries_counters);
    tcase_add_test(tc, run_table_shows_limited_by);
    tcase_add_test(tc, lab_def_declares_the_profile_size);
    tcase_add_test(tc, no_ncu_is_one_line_and_exit_6);
    tcase_add_test(tc, profile_summary_speeds_are_rates_across_sizes);
    suite_add_tcase(s, tc);
    return s;
}

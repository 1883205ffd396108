/* Tests of the plot data pipeline: results CSVs in, gnuplot data files out
 * (harness/plotdata.c): plots_suite. And one real gnuplot run of plots/steps.gp:
 * plots_render_suite. Every input is CSV text written to a fresh temporary folder. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "csv.h"
#include "plotdata.h"
#include "lab_registry.h"

Suite *plots_suite(void);
Suite *plots_render_suite(void);
size_t plots_render_case_names(const char **names, size_t max);

/* Where plots/steps.gp lives, relative to the folder the tests run in. */
#ifndef PLOTS_DIR
#define PLOTS_DIR "plots"
#endif

#define RESULTS_HEADER                                                                             \
    "date,run_id,commit,gpu,cc,sms,clock_mhz,driver,runtime,nvcc,lab,step,source,flags,m,n,k,"     \
    "seed,repeats,median_ms,min_ms,max_ms,gflops,regs,smem_static,smem_dynamic,local_bytes,"       \
    "threads_per_block,blocks_per_sm,limiter,occupancy_pct,max_err,verdict,notes\n"

static char temp_dir[256];

static void make_temp_dir(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(temp_dir, sizeof temp_dir, "%s/test_plots.XXXXXX",
             base != NULL && *base != '\0' ? base : "/tmp");
    ck_assert_msg(mkdtemp(temp_dir) != NULL, "mkdtemp: %s", strerror(errno));
}

static void remove_temp_dir(void)
{
    /* The tests write a handful of plain files and no folders. */
    DIR *dir = opendir(temp_dir);
    if (dir == NULL)
        return;
    char path[512];
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", temp_dir, entry->d_name);
        unlink(path);
    }
    closedir(dir);
    if (rmdir(temp_dir) != 0)
        fprintf(stderr, "test_plots: could not remove %s: %s\n", temp_dir, strerror(errno));
}

/* path of name inside the temporary folder (a static buffer per call site is
 * enough: callers copy what they keep). */
static const char *temp_path(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", temp_dir, name);
    return buf;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* One results row with the given distinguishing fields; the rest is fixed. */
static void append_row(char *text, size_t len, const char *date, const char *run_id,
                       const char *gpu, const char *step, const char *source,
                       const char *gflops, const char *verdict)
{
    size_t used = strlen(text);
    snprintf(text + used, len - used,
             "%s,%s,abc1234,%s,9.0,132,1980,560.35,12.6,12.6,matmul,%s,%s,,4096,4096,4096,42,"
             "10,2.0,1.9,2.2,%s,32,2048,0,0,256,6,registers,75.0,1e-06,%s,\n",
             date, run_id, gpu, step, source, gflops, verdict);
}

/* Everything a stream received, as a string to free. */
static char *read_stream(FILE *f)
{
    ck_assert_int_eq(fflush(f), 0);
    long size = ftell(f);
    ck_assert(size >= 0);
    rewind(f);
    char *text = calloc((size_t)size + 1, 1);
    ck_assert(text != NULL);
    ck_assert_uint_eq(fread(text, 1, (size_t)size, f), (size_t)size);
    return text;
}

static char *read_file_text(const char *path)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s: %s", path, strerror(errno));
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    char *text = read_stream(f);
    fclose(f);
    return text;
}

/* The data lines of a writer's output: comment lines dropped, so the tests say
 * what a plot sees. */
static char *data_lines(const char *text)
{
    char *out = calloc(strlen(text) + 1, 1);
    ck_assert(out != NULL);
    for (const char *line = text; *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t n = end != NULL ? (size_t)(end - line) + 1 : strlen(line);
        if (line[0] != '#')
            strncat(out, line, n);
        line += n;
    }
    return out;
}

static const struct step_table *matmul(void)
{
    const struct step_table *lab = step_table_find("matmul");
    ck_assert_msg(lab != NULL, "the step table has no matmul lab");
    ck_assert_msg(lab->count >= 2, "these tests need the first two matmul steps");
    return lab;
}

/* Stems of the first two steps, whatever the table names them. */
static void first_stems(char *first, char *second, size_t len)
{
    const struct step_table *lab = matmul();
    step_stem(&lab->steps[0], first, len);
    step_stem(&lab->steps[1], second, len);
}

/* Runs plotdata_main on argv; returns its status and what it printed. */
static int run_plotdata(char **argv, int argc, char **out_text, char **err_text)
{
    FILE *out = tmpfile(), *err = tmpfile();
    ck_assert(out != NULL && err != NULL);
    int rc = plotdata_main(argc, argv, out, err);
    *out_text = read_stream(out);
    *err_text = read_stream(err);
    fclose(out);
    fclose(err);
    return rc;
}

/* One folder per test case, made and removed outside the forked tests, so it
 * goes away even when a test fails. Each test writes the files it reads. */
static void setup(void)
{
    make_temp_dir();
}

static void teardown(void)
{
    remove_temp_dir();
}

/* ---- newest run ------------------------------------------------------------- */

START_TEST(test_newest_run_is_latest_date_not_last_in_file)
{
    char s1[64], s2[64], text[4096] = RESULTS_HEADER;
    first_stems(s1, s2, sizeof s1);
    /* The newer run comes first in the file: order in the file must not decide. */
    append_row(text, sizeof text, "2026-11-22T10:00:00Z", "new", "GPU X", s1, "solutions", "200.5", "PASS");
    append_row(text, sizeof text, "2026-11-22T10:00:01Z", "new", "GPU X", s2, "solutions", "400.25", "PASS");
    append_row(text, sizeof text, "2026-11-20T09:00:00Z", "old", "GPU X", s1, "solutions", "100", "PASS");
    append_row(text, sizeof text, "2026-11-20T09:00:01Z", "old", "GPU X", s2, "solutions", "150", "FAIL");
    struct csv_table table;
    char err[512] = "";
    ck_assert_int_eq(csv_parse(text, &table, err, sizeof err), 0);
    struct plotdata_run run;
    ck_assert_int_eq(plotdata_newest_run(&table, "t.csv", matmul(), NULL, &run, err, sizeof err),
                     PLOTDATA_OK);
    ck_assert_str_eq(run.run_id, "new");
    ck_assert_str_eq(run.gpu, "GPU X");
    ck_assert_str_eq(run.date, "2026-11-22T10:00:01Z");
    ck_assert_str_eq(run.size, "m=n=k=4096");
    ck_assert_uint_eq(run.present, 2);
    ck_assert(fabs(run.steps[0].gflops - 200.5) < 1e-9);
    ck_assert(fabs(run.steps[1].gflops - 400.25) < 1e-9);
    ck_assert_str_eq(run.steps[1].verdict, "PASS");
    plotdata_run_free(&run);
    csv_free(&table);
}
END_TEST

START_TEST(test_newest_run_tie_goes_to_later_row)
{
    char s1[64], s2[64], text[4096] = RESULTS_HEADER;
    first_stems(s1, s2, sizeof s1);
    /* Same second, two runs (two terminals): the one appended later wins. */
    append_row(text, sizeof text, "2026-11-22T10:00:00Z", "first", "GPU X", s1, "labs", "10", "PASS");
    append_row(text, sizeof text, "2026-11-22T10:00:00Z", "second", "GPU X", s1, "labs", "20", "PASS");
    struct csv_table table;
    char err[512] = "";
    ck_assert_int_eq(csv_parse(text, &table, err, sizeof err), 0);
    struct plotdata_run run;
    ck_assert_int_eq(plotdata_newest_run(&table, "t.csv", matmul(), NULL, &run, err, sizeof err),
                     PLOTDATA_OK);
    ck_assert_str_eq(run.run_id, "second");
    ck_assert(fabs(run.steps[0].gflops - 20) < 1e-9);
    plotdata_run_free(&run);
    csv_free(&table);
}
END_TEST

START_TEST(test_source_filter_picks_newest_run_of_that_source)
{
    char s1[64], s2[64], text[4096] = RESULTS_HEADER;
    first_stems(s1, s2, sizeof s1);
    append_row(text, sizeof text, "2026-11-21T08:00:00Z", "sol", "GPU X", s1, "solutions", "300", "PASS");
    append_row(text, sizeof text, "2026-11-22T08:00:00Z", "lab", "GPU X", s1, "labs", "30", "FAIL");
    struct csv_table table;
    char err[512] = "";
    ck_assert_int_eq(csv_parse(text, &table, err, sizeof err), 0);
    struct plotdata_run run;
    ck_assert_int_eq(
        plotdata_newest_run(&table, "t.csv", matmul(), "solutions", &run, err, sizeof err),
        PLOTDATA_OK);
    ck_assert_str_eq(run.run_id, "sol");
    plotdata_run_free(&run);
    ck_assert_int_eq(
        plotdata_newest_run(&table, "t.csv", matmul(), "nonesuch", &run, err, sizeof err),
        PLOTDATA_EMPTY);
    ck_assert_msg(strstr(err, "nonesuch") != NULL, "error should name the source: %s", err);
    plotdata_run_free(&run);
    csv_free(&table);
}
END_TEST

/* ---- steps output ----------------------------------------------------------- */

START_TEST(test_steps_follow_table_order_and_skip_missing)
{
    char s1[64], s2[64], text[4096] = RESULTS_HEADER;
    first_stems(s1, s2, sizeof s1);
    /* Written in reverse, plus a step no table knows and a cuBLAS row. */
    append_row(text, sizeof text, "2026-11-22T10:00:00Z", "r", "GPU X", s2, "solutions", "400", "PASS");
    append_row(text, sizeof text, "2026-11-22T10:00:01Z", "r", "GPU X", "99-from-the-future", "solutions", "9", "PASS");
    append_row(text, sizeof text, "2026-11-22T10:00:02Z", "r", "GPU X", s1, "solutions", "100", "FAIL");
    append_row(text, sizeof text, "2026-11-22T10:00:03Z", "r", "GPU X", "cublas", "solutions", "5000", "PASS");
    struct csv_table table;
    char err[512] = "";
    ck_assert_int_eq(csv_parse(text, &table, err, sizeof err), 0);
    struct plotdata_run run;
    ck_assert_int_eq(plotdata_newest_run(&table, "t.csv", matmul(), NULL, &run, err, sizeof err),
                     PLOTDATA_OK);
    ck_assert(fabs(run.cublas_gflops - 5000) < 1e-9);

    FILE *out = tmpfile();
    ck_assert_int_eq(plotdata_write_steps(out, &run), PLOTDATA_OK);
    char *written = read_stream(out), *lines = data_lines(written);
    char expected[512];
    snprintf(expected, sizeof expected,
             "0 %s 100 2 1.9 2.2 32 6 FAIL\n"
             "1 %s 400 2 1.9 2.2 32 6 PASS\n", s1, s2);
    ck_assert_str_eq(lines, expected);
    free(written);
    free(lines);
    fclose(out);
    plotdata_run_free(&run);
    csv_free(&table);
}
END_TEST

START_TEST(test_steps_missing_first_step_keeps_table_index)
{
    char s1[64], s2[64], text[4096] = RESULTS_HEADER;
    first_stems(s1, s2, sizeof s1);
    /* The newest run ran only the second step; an older run had both. */
    append_row(text, sizeof text, "2026-11-20T10:00:00Z", "old", "GPU X", s1, "labs", "90", "PASS");
    append_row(text, sizeof text, "2026-11-22T10:00:00Z", "new", "GPU X", s2, "labs", "300", "PASS");
    char path[512];
    write_text(temp_path("r.csv", path, sizeof path), text);
    char *argv[] = {"plotdata", "steps", "--lab", "matmul", "--csv", path};
    char *out, *err;
    ck_assert_int_eq(run_plotdata(argv, 6, &out, &err), PLOTDATA_OK);
    char *lines = data_lines(out), expected[256];
    snprintf(expected, sizeof expected, "1 %s 300 2 1.9 2.2 32 6 PASS\n", s2);
    ck_assert_str_eq(lines, expected);
    ck_assert_str_eq(err, "");
    free(lines);
    free(out);
    free(err);
}
END_TEST

START_TEST(test_blank_numbers_become_nan_and_labels_are_quoted)
{
    char s1[64], s2[64], text[4096] = RESULTS_HEADER;
    first_stems(s1, s2, sizeof s1);
    char row[1024];
    /* A row the harness could not time: blank numbers, blank verdict. */
    snprintf(row, sizeof row,
             "2026-11-22T10:00:00Z,r,abc,\"GPU, with comma\",9.0,132,1980,1,1,1,matmul,%s,labs,,"
             "64,64,64,1,1,,,,,,,,,,,,,,,\n", s1);
    strcat(text, row);
    struct csv_table table;
    char err[512] = "";
    ck_assert_int_eq(csv_parse(text, &table, err, sizeof err), 0);
    struct plotdata_run run;
    ck_assert_int_eq(plotdata_newest_run(&table, "t.csv", matmul(), NULL, &run, err, sizeof err),
                     PLOTDATA_OK);
    ck_assert(isnan(run.steps[0].gflops));
    FILE *out = tmpfile();
    plotdata_write_steps(out, &run);
    char *written = read_stream(out), *lines = data_lines(written), expected[256];
    snprintf(expected, sizeof expected, "0 %s NaN NaN NaN NaN NaN NaN \"\"\n", s1);
    ck_assert_str_eq(lines, expected);
    free(written);
    free(lines);
    fclose(out);
    plotdata_run_free(&run);
    csv_free(&table);

    char token[64];
    ck_assert_uint_eq(plotdata_token("NVIDIA H100 80GB HBM3", token, sizeof token), 23);
    ck_assert_str_eq(token, "\"NVIDIA H100 80GB HBM3\"");
    plotdata_token("01-naive", token, sizeof token);
    ck_assert_str_eq(token, "01-naive");
    plotdata_token("say \"hi\"", token, sizeof token);
    ck_assert_str_eq(token, "\"say 'hi'\"");
    plotdata_token("", token, sizeof token);
    ck_assert_str_eq(token, "\"\"");
}
END_TEST

/* ---- compare ---------------------------------------------------------------- */

/* Two results files: "Big GPU" ran both steps (the second with verdict
 * second_verdict and 3000 GFLOP/s), "Small GPU" only the second step (50). Returns
 * what `plotdata compare` wrote for them, without comment lines. */
static char *compare_two_gpus(const char *s1, const char *s2, const char *second_verdict)
{
    char a[4096] = RESULTS_HEADER, b[4096] = RESULTS_HEADER;
    append_row(a, sizeof a, "2026-11-22T10:00:00Z", "a1", "Big GPU", s1, "labs", "1000", "PASS");
    append_row(a, sizeof a, "2026-11-22T10:00:01Z", "a1", "Big GPU", s2, "labs", "3000",
               second_verdict);
    append_row(b, sizeof b, "2026-11-21T10:00:00Z", "b1", "Small GPU", s2, "labs", "50", "PASS");
    char path_a[512], path_b[512];
    write_text(temp_path("a.csv", path_a, sizeof path_a), a);
    write_text(temp_path("b.csv", path_b, sizeof path_b), b);
    char *argv[] = {"plotdata", "compare", "--lab", "matmul", "--csv", path_a, "--csv", path_b};
    char *out, *err;
    ck_assert_int_eq(run_plotdata(argv, 8, &out, &err), PLOTDATA_OK);
    char *lines = data_lines(out);
    free(out);
    free(err);
    return lines;
}

START_TEST(test_compare_fills_missing_steps_with_nan)
{
    char s1[64], s2[64], expected[512];
    first_stems(s1, s2, sizeof s1);
    char *lines = compare_two_gpus(s1, s2, "PASS");
    snprintf(expected, sizeof expected,
             "index stem \"Big GPU\" \"Small GPU\"\n"
             "0 %s 1000 NaN\n"
             "1 %s 3000 50\n", s1, s2);
    ck_assert_str_eq(lines, expected);
    free(lines);
}
END_TEST

START_TEST(test_compare_shows_no_speed_for_a_failed_step)
{
    /* A wrong result must not appear as a fast bar next to another GPU's. */
    char s1[64], s2[64], expected[512];
    first_stems(s1, s2, sizeof s1);
    char *lines = compare_two_gpus(s1, s2, "FAIL");
    snprintf(expected, sizeof expected,
             "index stem \"Big GPU\" \"Small GPU\"\n"
             "0 %s 1000 NaN\n"
             "1 %s NaN 50\n", s1, s2);
    ck_assert_str_eq(lines, expected);
    free(lines);
}
END_TEST

START_TEST(test_compare_takes_newest_row_of_each_step)
{
    char s1[64], s2[64], a[4096] = RESULTS_HEADER;
    first_stems(s1, s2, sizeof s1);
    /* Step 1 was last run long ago; step 2 was rerun today: both are shown. */
    append_row(a, sizeof a, "2026-11-01T10:00:00Z", "old", "GPU", s1, "labs", "10", "PASS");
    append_row(a, sizeof a, "2026-11-01T10:00:01Z", "old", "GPU", s2, "labs", "20", "PASS");
    append_row(a, sizeof a, "2026-11-22T10:00:00Z", "new", "GPU", s2, "labs", "25", "PASS");
    struct csv_table table;
    char err[512] = "";
    ck_assert_int_eq(csv_parse(a, &table, err, sizeof err), 0);
    struct plotdata_run run;
    ck_assert_int_eq(
        plotdata_newest_per_step(&table, "a.csv", matmul(), NULL, &run, err, sizeof err),
        PLOTDATA_OK);
    ck_assert(fabs(run.steps[0].gflops - 10) < 1e-9);
    ck_assert(fabs(run.steps[1].gflops - 25) < 1e-9);
    ck_assert_str_eq(run.run_id, "new");
    plotdata_run_free(&run);
    csv_free(&table);
}
END_TEST

/* ---- reference join --------------------------------------------------------- */

START_TEST(test_history_joins_reference_by_stem)
{
    char s1[64], s2[64], results[4096] = RESULTS_HEADER, reference[2048];
    first_stems(s1, s2, sizeof s1);
    append_row(results, sizeof results, "2026-11-22T10:00:00Z", "r", "Today GPU", s1, "labs", "1500", "PASS");
    snprintf(reference, sizeof reference,
             "series,config,step,gpu,gflops,source\n"
             "Paper A,naive,%s,Old GPU,10.58,paper a\n"
             "Paper A,tiled,%s,Old GPU,46.49,paper a\n"
             "Paper A,unrolled,zz-not-in-the-lab,Old GPU,91.14,paper a\n"
             "Slides B,naive,%s,Old GPU,17.2,slides b\n"
             "Slides B,four per thread,,Old GPU,118.4,no step yet\n", s1, s2, s1);
    char path_r[512], path_ref[512];
    write_text(temp_path("r.csv", path_r, sizeof path_r), results);
    write_text(temp_path("ref.csv", path_ref, sizeof path_ref), reference);
    char *argv[] = {"plotdata", "history", "--lab", "matmul", "--csv", path_r,
                    "--reference", path_ref};
    char *out, *err;
    ck_assert_int_eq(run_plotdata(argv, 8, &out, &err), PLOTDATA_OK);
    char *lines = data_lines(out), expected[1024];
    snprintf(expected, sizeof expected,
             "index stem \"Today GPU\" \"Old GPU (Paper A)\" \"Old GPU (Slides B)\"\n"
             "0 %s 1500 10.58 17.2\n"
             "1 %s NaN 46.49 NaN\n"
             "-1 zz-not-in-the-lab NaN 91.14 NaN\n", s1, s2);
    ck_assert_str_eq(lines, expected);
    free(lines);
    free(out);
    free(err);

    /* Without results: the reference series alone. */
    char *argv_ref[] = {"plotdata", "history", "--lab", "matmul", "--reference", path_ref};
    ck_assert_int_eq(run_plotdata(argv_ref, 6, &out, &err), PLOTDATA_OK);
    lines = data_lines(out);
    ck_assert_msg(strncmp(lines, "index stem \"Old GPU (Paper A)\" \"Old GPU (Slides B)\"\n", 52) == 0,
                  "header: %s", lines);
    free(lines);
    free(out);
    free(err);
}
END_TEST

START_TEST(test_reference_duplicate_step_is_an_error)
{
    struct csv_table table;
    char err[512] = "";
    ck_assert_int_eq(csv_parse("series,step,gflops\nA,01-naive,1\nA,01-naive,2\n", &table, err,
                               sizeof err), 0);
    struct plotdata_reference ref;
    ck_assert_int_eq(plotdata_load_reference(&table, "ref.csv", &ref, err, sizeof err),
                     PLOTDATA_BAD);
    ck_assert_msg(strstr(err, "second row") != NULL, "unexpected message: %s", err);
    csv_free(&table);
}
END_TEST

/* ---- vars (ceilings) -------------------------------------------------------- */

START_TEST(test_vars_pick_ceiling_nearest_in_size)
{
    char s1[64], s2[64], text[4096] = RESULTS_HEADER;
    first_stems(s1, s2, sizeof s1);
    append_row(text, sizeof text, "2026-11-22T10:00:00Z", "r", "GPU X", s1, "labs", "100", "PASS");
    struct csv_table results, ceilings;
    char err[512] = "";
    ck_assert_int_eq(csv_parse(text, &results, err, sizeof err), 0);
    ck_assert_int_eq(csv_parse("gpu,date,quantity,value,unit,n\n"
                               "GPU X,2026-11-22,cublas_sgemm_fp32,50000,GFLOP/s,8192\n"
                               "GPU X,2026-11-22,cublas_sgemm_fp32,49000,GFLOP/s,4096\n"
                               "GPU X,2026-11-22,fp32_fma_peak,65.3,TFLOP/s,\n"
                               "GPU X,2026-11-22,d2d_copy,3030,GB/s,\n"
                               "Other GPU,2026-11-22,fp32_fma_peak,1,TFLOP/s,\n",
                               &ceilings, err, sizeof err), 0);
    struct plotdata_run run;
    ck_assert_int_eq(plotdata_newest_run(&results, "r.csv", matmul(), NULL, &run, err, sizeof err),
                     PLOTDATA_OK);
    const struct csv_table *tables[] = {&ceilings};
    FILE *out = tmpfile();
    ck_assert_int_eq(plotdata_write_vars(out, &run, tables, 1, err, sizeof err), PLOTDATA_OK);
    char *written = read_stream(out);
    ck_assert_msg(strstr(written, "cublas = 49000\n") != NULL, "vars: %s", written);
    ck_assert_msg(strstr(written, "peak = 65300\n") != NULL, "vars: %s", written);
    ck_assert_msg(strstr(written, "gpu_name = 'GPU X'\n") != NULL, "vars: %s", written);
    free(written);
    fclose(out);
    plotdata_run_free(&run);

    /* No ceilings and no cuBLAS row: NaN, which the script leaves undrawn. */
    ck_assert_int_eq(plotdata_newest_run(&results, "r.csv", matmul(), NULL, &run, err, sizeof err),
                     PLOTDATA_OK);
    out = tmpfile();
    ck_assert_int_eq(plotdata_write_vars(out, &run, NULL, 0, err, sizeof err), PLOTDATA_OK);
    written = read_stream(out);
    ck_assert_msg(strstr(written, "cublas = NaN\n") != NULL, "vars: %s", written);
    free(written);
    fclose(out);
    plotdata_run_free(&run);
    csv_free(&results);
    csv_free(&ceilings);
}
END_TEST

/* ---- errors ----------------------------------------------------------------- */

/* Runs plotdata on one CSV text in `mode`; checks the status and that the one
 * error line holds `expect`. */
static void expect_failure(const char *csv_text, int expected_status, const char *expect)
{
    char path[512];
    write_text(temp_path("bad.csv", path, sizeof path), csv_text);
    char *argv[] = {"plotdata", "steps", "--lab", "matmul", "--csv", path};
    char *out, *err;
    int rc = run_plotdata(argv, 6, &out, &err);
    ck_assert_msg(rc == expected_status, "status %d, expected %d; stderr: %s", rc,
                  expected_status, err);
    ck_assert_msg(strstr(err, expect) != NULL, "stderr lacks '%s': %s", expect, err);
    ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "not one line: %s", err);
    ck_assert_str_eq(out, "");
    free(out);
    free(err);
}

START_TEST(test_malformed_files_are_errors)
{
    char s1[64], s2[64], text[4096];
    first_stems(s1, s2, sizeof s1);

    expect_failure("", PLOTDATA_BAD, "no header row");
    expect_failure("date,run_id,gpu\n2026-11-22,r,G\n", PLOTDATA_BAD, "no 'lab' column");
    expect_failure(RESULTS_HEADER "2026-11-22,\"r,unterminated\n", PLOTDATA_BAD, "unterminated");

    snprintf(text, sizeof text, "%s", RESULTS_HEADER);
    append_row(text, sizeof text, "2026-11-22T10:00:00Z", "r", "G", s1, "labs", "fast", "PASS");
    expect_failure(text, PLOTDATA_BAD, "gflops 'fast' is not a number");

    snprintf(text, sizeof text, "%s", RESULTS_HEADER);
    append_row(text, sizeof text, "2026-11-22T10:00:00Z", "", "G", s1, "labs", "1", "PASS");
    expect_failure(text, PLOTDATA_BAD, "empty run_id");

    snprintf(text, sizeof text, "%s", RESULTS_HEADER);
    append_row(text, sizeof text, "22/11/2026", "r", "G", s1, "labs", "1", "PASS");
    expect_failure(text, PLOTDATA_BAD, "not ISO-8601");
}
END_TEST

START_TEST(test_empty_results_are_errors)
{
    expect_failure(RESULTS_HEADER, PLOTDATA_EMPTY, "no rows for lab 'matmul'");
    char text[4096] = RESULTS_HEADER;
    append_row(text, sizeof text, "2026-11-22T10:00:00Z", "r", "G", "cublas", "labs", "1", "PASS");
    expect_failure(text, PLOTDATA_EMPTY, "has no step of the matmul step table");
}
END_TEST

START_TEST(test_usage_errors_exit_2)
{
    char *out, *err;
    char *no_mode[] = {"plotdata"};
    ck_assert_int_eq(run_plotdata(no_mode, 1, &out, &err), PLOTDATA_BAD);
    ck_assert_msg(strstr(err, "no mode") != NULL, "%s", err);
    free(out);
    free(err);

    char *bad_mode[] = {"plotdata", "pie", "--lab", "matmul", "--csv", "x.csv"};
    ck_assert_int_eq(run_plotdata(bad_mode, 6, &out, &err), PLOTDATA_BAD);
    ck_assert_msg(strstr(err, "unknown mode 'pie'") != NULL, "%s", err);
    free(out);
    free(err);

    char *bad_option[] = {"plotdata", "steps", "--colour", "red"};
    ck_assert_int_eq(run_plotdata(bad_option, 4, &out, &err), PLOTDATA_BAD);
    ck_assert_msg(strstr(err, "unknown option '--colour'") != NULL, "%s", err);
    free(out);
    free(err);

    char *no_lab[] = {"plotdata", "steps", "--csv", "x.csv"};
    ck_assert_int_eq(run_plotdata(no_lab, 4, &out, &err), PLOTDATA_BAD);
    ck_assert_msg(strstr(err, "needs --lab") != NULL, "%s", err);
    free(out);
    free(err);

    char *bad_lab[] = {"plotdata", "steps", "--lab", "fft", "--csv", "x.csv"};
    ck_assert_int_eq(run_plotdata(bad_lab, 6, &out, &err), PLOTDATA_BAD);
    ck_assert_msg(strstr(err, "unknown lab 'fft'") != NULL, "%s", err);
    free(out);
    free(err);

    char missing[512];
    temp_path("no-such.csv", missing, sizeof missing);
    char *no_file[] = {"plotdata", "steps", "--lab", "matmul", "--csv", missing};
    ck_assert_int_eq(run_plotdata(no_file, 6, &out, &err), PLOTDATA_BAD);
    ck_assert_msg(strstr(err, "no such file") != NULL, "%s", err);
    free(out);
    free(err);
}
END_TEST

START_TEST(test_failed_run_leaves_no_out_file)
{
    char bad[512], target[512];
    write_text(temp_path("bad.csv", bad, sizeof bad), RESULTS_HEADER);
    temp_path("out.dat", target, sizeof target);
    char *argv[] = {"plotdata", "steps", "--lab", "matmul", "--csv", bad, "--out", target};
    char *out, *err;
    ck_assert_int_eq(run_plotdata(argv, 8, &out, &err), PLOTDATA_EMPTY);
    ck_assert_msg(access(target, F_OK) != 0, "%s exists after a failed run", target);
    free(out);
    free(err);
}
END_TEST

START_TEST(test_columns_mode)
{
    char path[512];
    write_text(temp_path("ref.csv", path, sizeof path),
               "order,step,metric,cc13,note\n"
               "1,one-thread,slowdown_vs_cpu,72.4,\"has, a comma\"\n"
               "2,n-threads,speedup_vs_previous,,x\n");
    char *argv[] = {"plotdata", "columns", "--csv", path, "--column", "step",
                    "--column", "cc13", "--column", "note"};
    char *out, *err;
    ck_assert_int_eq(run_plotdata(argv, 10, &out, &err), PLOTDATA_OK);
    char *lines = data_lines(out);
    ck_assert_str_eq(lines, "step cc13 note\n"
                            "one-thread 72.4 \"has, a comma\"\n"
                            "n-threads NaN x\n");
    free(lines);
    free(out);
    free(err);

    char *missing_column[] = {"plotdata", "columns", "--csv", path, "--column", "cc99"};
    ck_assert_int_eq(run_plotdata(missing_column, 6, &out, &err), PLOTDATA_BAD);
    ck_assert_msg(strstr(err, "no 'cc99' column") != NULL, "%s", err);
    free(out);
    free(err);
}
END_TEST

/* ---- gnuplot ---------------------------------------------------------------- */

/* gnuplot's full path from PATH, or "" when it is not installed. */
static void find_on_path(const char *program, char *found, size_t len)
{
    found[0] = '\0';
    const char *path = getenv("PATH");
    if (path == NULL)
        return;
    char *copy = strdup(path);
    ck_assert(copy != NULL);
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir != NULL;
         dir = strtok_r(NULL, ":", &save)) {
        snprintf(found, len, "%s/%s", *dir != '\0' ? dir : ".", program);
        if (access(found, X_OK) == 0) {
            free(copy);
            return;
        }
    }
    found[0] = '\0';
    free(copy);
}

START_TEST(test_gnuplot_draws_steps_png)
{
    char gnuplot[1024];
    find_on_path("gnuplot", gnuplot, sizeof gnuplot);
    ck_assert_msg(gnuplot[0] != '\0',
                  "gnuplot is missing from PATH: the plots cannot be drawn ('make deps' "
                  "installs gnuplot-nox)");
    const char *script = PLOTS_DIR "/steps.gp";
    ck_assert_msg(access(script, R_OK) == 0,
                  "%s not found: run the tests from the top of the repository", script);

    char s1[64], s2[64], data[512], png[512], data_path[512], log_path[512];
    first_stems(s1, s2, sizeof s1);
    snprintf(data, sizeof data,
             "# index stem gflops median_ms min_ms max_ms regs blocks_per_sm verdict\n"
             "0 %s 1443.6 95.2 94.8 96 32 8 PASS\n"
             "1 %s 3607.3 38.1 37.9 39.5 38 6 FAIL\n", s1, s2);
    write_text(temp_path("steps.dat", data_path, sizeof data_path), data);
    temp_path("steps.png", png, sizeof png);
    temp_path("gnuplot.log", log_path, sizeof log_path);
    char assignments[2048];
    snprintf(assignments, sizeof assignments,
             "datafile='%s'; outfile='%s'; gpu_name='Test GPU'; cublas=50000; "
             "cublas_label='cuBLAS'; peak=65000; peak_label='peak'", data_path, png);

    pid_t child = fork();
    ck_assert(child >= 0);
    if (child == 0) {
        /* gnuplot's complaints go to a log the failure message can quote. */
        if (freopen(log_path, "w", stderr) == NULL)
            _exit(126);
        execl(gnuplot, "gnuplot", "-e", assignments, script, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    ck_assert(waitpid(child, &status, 0) == child);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char *log = read_file_text(log_path);
        ck_abort_msg("gnuplot %s failed (status %d): %s", script, status, log);
    }

    FILE *f = fopen(png, "rb");
    ck_assert_msg(f != NULL, "gnuplot wrote no %s", png);
    unsigned char signature[8] = {0};
    size_t got = fread(signature, 1, sizeof signature, f);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    fclose(f);
    static const unsigned char png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    ck_assert_msg(got == 8 && memcmp(signature, png_signature, 8) == 0,
                  "%s does not start with the PNG signature", png);
    /* An empty 1200x700 canvas compresses to a few kB; bars and text make more. */
    ck_assert_msg(size > 5000, "%s is suspiciously small: %ld bytes", png, size);
}
END_TEST

Suite *plots_suite(void)
{
    Suite *suite = suite_create("plots");

    TCase *selection = tcase_create("selection");
    tcase_add_unchecked_fixture(selection, setup, teardown);
    tcase_add_test(selection, test_newest_run_is_latest_date_not_last_in_file);
    tcase_add_test(selection, test_newest_run_tie_goes_to_later_row);
    tcase_add_test(selection, test_source_filter_picks_newest_run_of_that_source);
    tcase_add_test(selection, test_compare_takes_newest_row_of_each_step);
    suite_add_tcase(suite, selection);

    TCase *output = tcase_create("output");
    tcase_add_unchecked_fixture(output, setup, teardown);
    tcase_add_test(output, test_steps_follow_table_order_and_skip_missing);
    tcase_add_test(output, test_steps_missing_first_step_keeps_table_index);
    tcase_add_test(output, test_blank_numbers_become_nan_and_labels_are_quoted);
    tcase_add_test(output, test_compare_fills_missing_steps_with_nan);
    tcase_add_test(output, test_compare_shows_no_speed_for_a_failed_step);
    tcase_add_test(output, test_history_joins_reference_by_stem);
    tcase_add_test(output, test_vars_pick_ceiling_nearest_in_size);
    tcase_add_test(output, test_columns_mode);
    suite_add_tcase(suite, output);

    TCase *errors = tcase_create("errors");
    tcase_add_unchecked_fixture(errors, setup, teardown);
    tcase_add_test(errors, test_malformed_files_are_errors);
    tcase_add_test(errors, test_empty_results_are_errors);
    tcase_add_test(errors, test_usage_errors_exit_2);
    tcase_add_test(errors, test_failed_run_leaves_no_out_file);
    tcase_add_test(errors, test_reference_duplicate_step_is_an_error);
    suite_add_tcase(suite, errors);

    return suite;
}

/* The figures themselves need gnuplot: a suite of their own, which the runner
 * skips (and lists) where gnuplot is not installed. Run by itself it fails
 * without gnuplot, saying so: a missing gnuplot never reads as a pass. */
static const char *const render_case_names[] = {
    "plots/steps.gp draws a PNG with gnuplot",
};

size_t plots_render_case_names(const char **names, size_t max)
{
    size_t n = 0;
    for (; n < sizeof render_case_names / sizeof render_case_names[0] && n < max; ++n)
        names[n] = render_case_names[n];
    return n;
}

Suite *plots_render_suite(void)
{
    Suite *suite = suite_create("plots_render");
    TCase *gnuplot = tcase_create("gnuplot");
    tcase_add_unchecked_fixture(gnuplot, setup, teardown);
    tcase_set_timeout(gnuplot, 30);
    tcase_add_test(gnuplot, test_gnuplot_draws_steps_png);
    suite_add_tcase(suite, gnuplot);
    return suite;
}

/* bin/results-check, the check `make plots` runs on every results CSV before a
 * figure is drawn (results_check_suite), and the figures themselves drawn by
 * `make plots` from a small results tree whose folder names hold a blank and a
 * quote (plots_render_suite, which needs gnuplot). Every test writes its files
 * into a fresh temporary folder, removed after the test whatever its outcome. */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

Suite *results_check_suite(void);
Suite *plots_render_suite(void);
size_t plots_render_case_names(const char **names, size_t max);

#define HEADER                                                                                     \
    "date,run_id,commit,gpu,cc,sms,clock_mhz,driver,runtime,nvcc,lab,step,role,source,flags,"     \
    "cache,m,n,k,seed,repeats,median_ms,min_ms,max_ms,gflops,regs,smem_static,smem_dynamic,"      \
    "local_bytes,threads_per_block,blocks_per_sm,limiter,occupancy_pct,max_err,verdict"
/* A sound matmul row: date, run, gpu, step, role, rate and verdict vary. */
#define ROW(date, run, gpu, step, role, gflops, verdict)                                           \
    date "," run ",abc1234," gpu ",9.0,132,1980,13.0,13.0,13.0.88,matmul," step "," role          \
         ",solutions,,flushed,4096,4096,4096,42,10,2.0,1.9,2.2," gflops                            \
         ",32,2048,0,0,256,8,threads,100.0,1e-06," verdict "\n"
#define RUN1(verdict2)                                                                             \
    ROW("2026-11-23T04:00:00Z", "r1", "Test GPU", "01-naive", "step", "1443.6", "PASS")           \
    ROW("2026-11-23T04:00:01Z", "r1", "Test GPU", "02-tiled", "step", "3607.3", verdict2)          \
    ROW("2026-11-23T04:00:02Z", "r1", "Test GPU", "cublas", "library", "50000", "PASS")

/* One folder per test case, made and removed by the runner's process (so it goes
 * even when a test fails), and in it one folder per test, made by the test. */
static char base_dir[256], temp_dir[512];

static void setup(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(base_dir, sizeof base_dir, "%s/test_results_check.XXXXXX",
             base != NULL && *base != '\0' ? base : "/tmp");
    if (mkdtemp(base_dir) == NULL)
        fprintf(stderr, "test_results_check: mkdtemp %s: %s\n", base_dir, strerror(errno));
}

static void fresh_dir(void)
{
    snprintf(temp_dir, sizeof temp_dir, "%s/test.XXXXXX", base_dir);
    ck_assert_msg(mkdtemp(temp_dir) != NULL, "mkdtemp: %s", strerror(errno));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void teardown(void)
{
    if (nftw(base_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "test_results_check: could not remove %s\n", base_dir);
}

/* Writes text to temp_dir/relative, making its folders. */
static void write_file(const char *relative, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", temp_dir, relative);
    for (char *p = path + strlen(temp_dir) + 1; *p != '\0'; ++p)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0777);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

static char *read_file(const char *relative)
{
    static char text[65536];
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", temp_dir, relative);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s: %s", path, strerror(errno));
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static char out[65536], err[65536];

/* bin/results-check --out temp/out on the given files (relative to temp_dir). */
static int check(const char *file1, const char *file2)
{
    char tool[512], out_dir[600], path1[1100], path2[1100];
    snprintf(out_dir, sizeof out_dir, "%s/out", temp_dir);
    mkdir(out_dir, 0777);
    snprintf(path1, sizeof path1, "%s/%s", temp_dir, file1);
    snprintf(path2, sizeof path2, "%s/%s", temp_dir, file2 != NULL ? file2 : "");
    char *argv[] = {(char *)bin_path("results-check", tool, sizeof tool), "--out", out_dir, path1,
                    file2 != NULL ? path2 : NULL, NULL};
    return run_capture(argv, NULL, out, sizeof out, err, sizeof err);
}

/* stderr holds exactly this line (the temp folder written as {}). */
static void assert_message(const char *relative, const char *rest)
{
    char line[1024];
    snprintf(line, sizeof line, "%s/%s%s\n", temp_dir, relative, rest);
    ck_assert_msg(strstr(err, line) != NULL, "expected '%s' in:\n%s", line, err);
}

START_TEST(test_sound_file_passes_and_is_written_for_gnuplot)
{
    write_file("results/GPU A/matmul.csv", HEADER "\n" RUN1("PASS"));
    ck_assert_int_eq(check("results/GPU A/matmul.csv", NULL), 0);
    ck_assert_str_eq(err, "");
    const char *rows = read_file("out/matmul.csv");
    ck_assert_int_eq(count_lines(rows), 4);
    ck_assert_ptr_nonnull(strstr(rows, "results_dir,date,run_id"));
    ck_assert_ptr_nonnull(strstr(rows, "\nGPU A,2026-11-23T04:00:02Z,r1,"));
    /* the empty flags field stays empty text; an empty number would be NaN */
    ck_assert_ptr_nonnull(strstr(rows, ",solutions,,flushed,"));
    ck_assert_str_eq(read_file("out/matmul.dirs"), "GPU A\n");
}
END_TEST

START_TEST(test_row_cut_to_12_fields_is_skipped_by_line)
{
    write_file("results/g/matmul.csv",
               HEADER "\n" RUN1("PASS")
                   "2026-11-23T05:00:00Z,r2,abc1234,Test GPU,9.0,132,1980,13.0,13.0,13.0.88,"
                   "matmul,01-naive\n");
    ck_assert_int_eq(check("results/g/matmul.csv", NULL), 1);
    assert_message("results/g/matmul.csv", ":5: 12 fields, the header has 35: row skipped");
    ck_assert_int_eq(count_lines(err), 1);
    ck_assert_int_eq(count_lines(read_file("out/matmul.csv")), 4);
}
END_TEST

START_TEST(test_truncated_file_drops_only_its_cut_last_row)
{
    /* The file ends in the middle of the library row: that row goes, with a line;
     * the steps of the run stay, and no value from elsewhere takes its place. */
    char text[4096];
    snprintf(text, sizeof text, "%s\n%s", HEADER, RUN1("PASS"));
    text[strlen(text) - 40] = '\0';
    write_file("results/g/matmul.csv", text);
    ck_assert_int_eq(check("results/g/matmul.csv", NULL), 1);
    assert_message("results/g/matmul.csv", ":4: 27 fields, the header has 35: row skipped");
    const char *rows = read_file("out/matmul.csv");
    ck_assert_int_eq(count_lines(rows), 3);
    ck_assert_ptr_null(strstr(rows, "library"));
}
END_TEST

START_TEST(test_verdict_maybe_is_skipped)
{
    write_file("results/g/matmul.csv", HEADER "\n" RUN1("MAYBE"));
    ck_assert_int_eq(check("results/g/matmul.csv", NULL), 1);
    assert_message("results/g/matmul.csv",
                   ":3: verdict 'MAYBE' is neither PASS nor FAIL: row skipped");
    ck_assert_ptr_null(strstr(read_file("out/matmul.csv"), "MAYBE"));
}
END_TEST

/* The rows beside the steps keep their role: a cpu row (named without a number) is
 * sound, a role nobody writes is not. */
START_TEST(test_row_roles_are_checked)
{
    write_file("results/g/matmul.csv",
               HEADER "\n" RUN1("PASS")
                   ROW("2026-11-23T04:00:03Z", "r1", "G", "cpu-serial", "cpu", "20", "PASS")
                       ROW("2026-11-23T04:00:04Z", "r1", "G", "cpu-gpu", "gpu", "20", "PASS"));
    ck_assert_int_eq(check("results/g/matmul.csv", NULL), 1);
    assert_message("results/g/matmul.csv",
                   ":6: role 'gpu' is neither step nor a row's (cpu, library): row skipped");
    ck_assert_int_eq(count_lines(err), 1);
    ck_assert_ptr_nonnull(strstr(read_file("out/matmul.csv"), ",cpu-serial,cpu,"));
}
END_TEST

START_TEST(test_negative_rate_is_skipped)
{
    write_file("results/g/matmul.csv",
               HEADER "\n" ROW("2026-11-23T04:00:00Z", "r1", "G", "01-naive", "step", "-5", "PASS")
                   ROW("2026-11-23T04:00:01Z", "r1", "G", "02-tiled", "step", "abc", "PASS")
                       ROW("2026-11-23T04:00:02Z", "r1", "G", "tiled", "step", "5", "PASS"));
    ck_assert_int_eq(check("results/g/matmul.csv", NULL), 1);
    assert_message("results/g/matmul.csv", ":2: gflops -5 is negative: row skipped");
    assert_message("results/g/matmul.csv", ":3: gflops 'abc' is not a number: row skipped");
    assert_message("results/g/matmul.csv",
                   ":4: step 'tiled' does not start with its number (NN-name): row skipped");
    /* no row left: the folder is not listed, so no figure is drawn for it */
    ck_assert_str_eq(read_file("out/matmul.dirs"), "");
}
END_TEST

START_TEST(test_missing_and_empty_files_get_one_line_each)
{
    write_file("results/empty/matmul.csv", "");
    ck_assert_int_eq(check("results/empty/matmul.csv", "results/none/matmul.csv"), 1);
    assert_message("results/empty/matmul.csv", ": empty file: file skipped");
    assert_message("results/none/matmul.csv", ": no such file: file skipped");
    ck_assert_int_eq(count_lines(err), 2);
}
END_TEST

START_TEST(test_old_header_is_named)
{
    write_file("results/g/matmul.csv", "date,run_id,commit,gpu,cc,sms,clock_mhz,driver,runtime,"
                                       "nvcc,lab,step,source,flags\n");
    ck_assert_int_eq(check("results/g/matmul.csv", NULL), 1);
    assert_message("results/g/matmul.csv",
                   ":1: column 13 is 'source', not 'role': not a results CSV with the common "
                   "columns in order: file skipped");
}
END_TEST

START_TEST(test_lab_columns_are_numbers_and_rates_not_negative)
{
    /* nbody's own columns: a negative rate is bad data, a negative drift is not */
    write_file("results/g/nbody.csv",
               HEADER ",interactions_per_s,energy_drift\n"
               "2026-11-23T04:00:00Z,r1,c,G,9.0,1,1,1,1,1,nbody,01-naive,step,labs,,flushed,1,1,1,"
               "1,1,1,1,1,1,1,1,1,1,1,1,x,1,0,PASS,-3,-0.5\n"
               "2026-11-23T04:00:01Z,r1,c,G,9.0,1,1,1,1,1,nbody,02-tiled,step,labs,,flushed,1,1,1,"
               "1,1,1,1,1,1,1,1,1,1,1,1,x,1,0,PASS,3e9,-0.5\n");
    ck_assert_int_eq(check("results/g/nbody.csv", NULL), 1);
    assert_message("results/g/nbody.csv", ":2: interactions_per_s -3 is negative: row skipped");
    ck_assert_int_eq(count_lines(err), 1);
    ck_assert_ptr_nonnull(strstr(read_file("out/nbody.csv"), ",PASS,3e9,-0.5,"));
}
END_TEST

/* A matmul row of run `run`, step `step`, with that cache policy and median time. */
#define TIMED(run, step, cache, median)                                                            \
    "2026-11-23T04:00:00Z," run ",abc1234,G,9.0,132,1980,13.0,13.0,13.0.88,matmul," step         \
    ",step,solutions,," cache ",4096,4096,4096,42,10," median ",1.9,2.2,1000,32,2048,0,0,256,8,"  \
    "threads,100.0,1e-06,PASS\n"

START_TEST(test_vs_previous_compares_only_comparable_rows)
{
    /* The figures draw the speedup of a step from these columns: a flushed-cache
     * 02 is not compared with a warm-cache 01 from another run (the 14.00x bar of
     * N-body's step 15); 03 is, with 02 of its own run, and says which run. */
    write_file("results/g/matmul.csv",
               HEADER "\n" TIMED("warm-run", "01-naive", "warm", "8.0")
                   TIMED("r2", "02-tiled", "flushed", "4.0") TIMED("r2", "03-unrolled", "flushed",
                                                                 "2.0"));
    ck_assert_int_eq(check("results/g/matmul.csv", NULL), 0);
    const char *rows = read_file("out/matmul.csv");
    ck_assert_ptr_nonnull(
        strstr(rows, ",vs_previous_step,vs_previous_run,vs_previous_why,vs_previous\n"));
    ck_assert_ptr_nonnull(strstr(rows, ",PASS,,,,NaN\n")); /* 01: nothing before it */
    ck_assert_ptr_nonnull(
        strstr(rows, ",PASS,,,no 01-naive row at this size with the L2 flushed,NaN\n"));
    ck_assert_ptr_nonnull(strstr(rows, ",PASS,02-tiled,r2,,2\n"));
}
END_TEST

START_TEST(test_quoted_commas_reach_gnuplot_without_commas)
{
    /* gnuplot 5.4 splits "a, b" at the comma: the check writes it as a; b */
    write_file("results/g/matmul.csv",
               HEADER "\n" ROW("2026-11-23T04:00:00Z", "r1", "\"ACME, Inc. \"\"X\"\"\"", "01-naive",
                               "step", "10", "PASS"));
    ck_assert_int_eq(check("results/g/matmul.csv", NULL), 0);
    ck_assert_ptr_nonnull(strstr(read_file("out/matmul.csv"), ",ACME; Inc. 'X',9.0,"));
}
END_TEST

START_TEST(test_peaks_rows_are_checked_by_line)
{
    write_file("results/g/peaks.csv",
               "date,commit,gpu,quantity,value,unit\n"
               "2026-11-23T05:00:00Z,abc,G,fp32_fma,65000,GFLOP/s\n"
               "2026-11-23T05:00:00Z,abc,G,rsqrt,-4,Gop/s\n"
               "2026-11-23T05:00:00Z,abc\n");
    ck_assert_int_eq(check("results/g/peaks.csv", NULL), 1);
    assert_message("results/g/peaks.csv", ":3: value '-4' is not a positive number: row skipped");
    assert_message("results/g/peaks.csv", ":4: 2 fields, the header has 6: row skipped");
    ck_assert_str_eq(read_file("out/peaks.csv"),
                     "results_dir,date,gpu,quantity,value,unit\n"
                     "g,2026-11-23T05:00:00Z,G,fp32_fma,65000,GFLOP/s\n");
}
END_TEST

Suite *results_check_suite(void)
{
    Suite *suite = suite_create("results_check");
    TCase *rows = tcase_create("rows");
    tcase_add_unchecked_fixture(rows, setup, teardown);
    tcase_add_checked_fixture(rows, fresh_dir, NULL);
    tcase_add_test(rows, test_sound_file_passes_and_is_written_for_gnuplot);
    tcase_add_test(rows, test_row_cut_to_12_fields_is_skipped_by_line);
    tcase_add_test(rows, test_truncated_file_drops_only_its_cut_last_row);
    tcase_add_test(rows, test_verdict_maybe_is_skipped);
    tcase_add_test(rows, test_row_roles_are_checked);
    tcase_add_test(rows, test_negative_rate_is_skipped);
    tcase_add_test(rows, test_missing_and_empty_files_get_one_line_each);
    tcase_add_test(rows, test_old_header_is_named);
    tcase_add_test(rows, test_lab_columns_are_numbers_and_rates_not_negative);
    tcase_add_test(rows, test_vs_previous_compares_only_comparable_rows);
    tcase_add_test(rows, test_quoted_commas_reach_gnuplot_without_commas);
    tcase_add_test(rows, test_peaks_rows_are_checked_by_line);
    suite_add_tcase(suite, rows);
    return suite;
}

/* ---- the figures, drawn by make plots (needs gnuplot) ---------------------- */

static int is_png(const char *relative)
{
    char path[1024];
    unsigned char head[8] = {0};
    snprintf(path, sizeof path, "%s/%s", temp_dir, relative);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    size_t got = fread(head, 1, sizeof head, f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    /* an empty canvas compresses to a few kB; bars and text make more */
    return got == 8 && memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0 && size > 5000;
}

START_TEST(test_make_plots_draws_every_figure)
{
    /* Two GPUs, one in a folder with a blank and a quote, one FAIL step and one
     * bad row: every figure is drawn, the bad row is named once. */
    write_file("results/GPU A (it's mine)/matmul.csv", HEADER "\n" RUN1("FAIL"));
    write_file("results/B/matmul.csv",
               HEADER "\n" RUN1("PASS") ROW("2026-11-23T05:00:00Z", "r2", "G", "01-naive", "step",
                                            "1", "MAYBE"));
    char command[2048];
    snprintf(command, sizeof command,
             "exec make --no-print-directory plots PLOT_RESULTS='%s/results' "
             "PLOT_FIGURES='%s/plots' PLOT_WORK='%s/work'",
             temp_dir, temp_dir, temp_dir);
    char *argv[] = {"/bin/sh", "-c", command, NULL};
    const char *env[] = {"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", NULL};
    int code = run_capture(argv, env, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "make plots exited %d:\n%s%s", code, out, err);
    const char *figures[] = {"plots/matmul/8800gtx.png",
                             "plots/matmul/steps-GPU_A__it_s_mine_.png",
                             "plots/matmul/vs-8800gtx-GPU_A__it_s_mine_.png",
                             "plots/matmul/steps-B.png",
                             "plots/matmul/vs-8800gtx-B.png",
                             "plots/matmul/compare.png",
                             "plots/nbody/burtscher-speedups.png"};
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; ++i)
        ck_assert_msg(is_png(figures[i]), "%s was not drawn:\n%s%s", figures[i], out, err);
    /* stdout: one PLOT line per figure (PNG; its SVG is silent) and one line per
     * lab without results (N-body's among them); stderr: the skipped row, then one
     * "not drawn" line per figure whose data this tree lacks, nothing else */
    assert_message("results/B/matmul.csv",
                   ":5: verdict 'MAYBE' is neither PASS nor FAIL: row skipped");
    int plotted = 0, others = 0, labs_without_rows = 0;
    for (const char *line = out; *line != '\0'; line = strchr(line, '\n') + 1) {
        if (strncmp(line, "  PLOT     plots/", 10) == 0 || strncmp(line, "  PLOT ", 7) == 0)
            ++plotted;
        else
            /* a lab with no results in this tree says so in one line (N-body's among them) */
            ck_assert_msg(strncmp(line, "plots: no ", 10) == 0 && strstr(line, " results in ") != NULL &&
                              ++labs_without_rows &&
                              (strncmp(line, "plots: no N-body results", 24) != 0 || ++others == 1),
                          "unexpected line in:\n%s", out);
        if (strchr(line, '\n') == NULL)
            break;
    }
    ck_assert_int_eq(others, 1);
    ck_assert_int_eq(plotted, count_lines(out) - labs_without_rows);
    for (const char *line = err; *line != '\0'; line = strchr(line, '\n') + 1) {
        ck_assert_msg(strstr(line, "row skipped") != NULL ||
                          (strncmp(line, "plots: ", 7) == 0 && strstr(line, " not drawn") <
                                                                    strchr(line, '\n')),
                      "unexpected line in:\n%s", err);
        if (strchr(line, '\n') == NULL)
            break;
    }
}
END_TEST

/* An SVG of at least `min` bytes: slides get vector figures. */
static int is_svg(const char *relative)
{
    char path[1024], head[512] = "";
    snprintf(path, sizeof path, "%s/%s", temp_dir, relative);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    size_t got = fread(head, 1, sizeof head - 1, f);
    head[got] = '\0';
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    return strstr(head, "<svg") != NULL && size > 5000;
}

/* make plots from results_dir (relative to the repository) into temp_dir/plots. */
static int make_plots(const char *results_dir, const char *extra)
{
    char command[2048];
    snprintf(command, sizeof command,
             "exec make --no-print-directory plots PLOT_RESULTS='%s' "
             "PLOT_FIGURES='%s/plots' PLOT_WORK='%s/work' %s",
             results_dir, temp_dir, temp_dir, extra);
    char *argv[] = {"/bin/sh", "-c", command, NULL};
    const char *env[] = {"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", NULL};
    return run_capture(argv, env, out, sizeof out, err, sizeof err);
}

START_TEST(test_every_script_draws_png_and_svg_from_the_fixture)
{
    /* tests/fixtures/plots: two GPUs (one with blanks, parentheses and a quote in
     * its folder), matmul steps, size and tile sweeps, N-body steps, sweep and CPU
     * rows, peaks: every figure of both labs, as PNG and as SVG for slides */
    int code = make_plots("tests/fixtures/plots/results", "GPUS='Test-GPU'");
    ck_assert_msg(code == 0, "make plots exited %d:\n%s%s", code, out, err);
    const char *figures[] = {
        "matmul/8800gtx", "matmul/normalized", "matmul/compare", "nbody/burtscher-speedups",
        "matmul/steps-Test-GPU", "matmul/roofline-Test-GPU", "matmul/speedups-Test-GPU",
        "matmul/sizes-Test-GPU", "matmul/tiles-Test-GPU", "matmul/vs-8800gtx-Test-GPU",
        "matmul/steps-Old_GPU__it_s_slow_", "matmul/roofline-Old_GPU__it_s_slow_",
        "matmul/tiles-Old_GPU__it_s_slow_",
        "nbody/steps-Test-GPU", "nbody/roofline-Test-GPU", "nbody/speedups-Test-GPU",
        "nbody/sizes-Test-GPU", "nbody/vs-cpu-Test-GPU"};
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; ++i) {
        char png[256], svg[256], name[128];
        const char *slash = strchr(figures[i], '/');
        snprintf(name, sizeof name, "%s", slash + 1);
        snprintf(png, sizeof png, "plots/%s.png", figures[i]);
        snprintf(svg, sizeof svg, "plots/%.*s/slides/%s.svg", (int)(slash - figures[i]),
                 figures[i], name);
        ck_assert_msg(is_png(png), "%s was not drawn:\n%s%s", png, out, err);
        ck_assert_msg(is_svg(svg), "%s was not drawn:\n%s%s", svg, out, err);
    }
    ck_assert_str_eq(err, "");
}
END_TEST

START_TEST(test_every_figure_the_guide_shows_is_drawn_from_committed_data)
{
    /* every plots/....png that GUIDE.md links to comes out of make plots run on the
     * committed data/results */
    int code = make_plots("data/results", "");
    ck_assert_msg(code == 0, "make plots exited %d:\n%s%s", code, out, err);
    FILE *f = fopen("GUIDE.md", "r");
    ck_assert_msg(f != NULL, "cannot read GUIDE.md");
    static char guide[1 << 20];
    size_t n = fread(guide, 1, sizeof guide - 1, f);
    guide[n] = '\0';
    fclose(f);
    int links = 0;
    for (const char *p = guide; (p = strstr(p, "](plots/")) != NULL; p += 2) {
        const char *end = strchr(p, ')');
        ck_assert_ptr_nonnull(end);
        char figure[256];
        snprintf(figure, sizeof figure, "%.*s", (int)(end - p - 2), p + 2);
        ck_assert_msg(is_png(figure), "GUIDE.md shows %s, which make plots did not draw:\n%s%s",
                      figure, out, err);
        ++links;
    }
    ck_assert_int_ge(links, 5);
}
END_TEST

START_TEST(test_a_figure_whose_data_is_gone_is_removed)
{
    /* A results file emptied (or removed) after its figures were drawn: make plots
     * removes them, PNG and SVG, says so in one line, and keeps the published ones. */
    write_file("results/G/matmul.csv", HEADER "\n" RUN1("PASS"));
    char results[600];
    snprintf(results, sizeof results, "%s/results", temp_dir);
    int code = make_plots(results, "");
    ck_assert_msg(code == 0, "make plots exited %d:\n%s%s", code, out, err);
    ck_assert_msg(is_png("plots/matmul/steps-G.png"), "not drawn:\n%s%s", out, err);
    ck_assert(is_svg("plots/matmul/slides/steps-G.svg"));
    write_file("results/G/matmul.csv", "");
    code = make_plots(results, "");
    ck_assert_msg(code == 0, "make plots exited %d:\n%s%s", code, out, err);
    char path[1024];
    snprintf(path, sizeof path, "%s/plots/matmul/steps-G.png", temp_dir);
    ck_assert_msg(access(path, F_OK) != 0, "steps-G.png is still there:\n%s%s", out, err);
    snprintf(path, sizeof path, "%s/plots/matmul/slides/steps-G.svg", temp_dir);
    ck_assert_msg(access(path, F_OK) != 0, "slides/steps-G.svg is still there");
    ck_assert(is_png("plots/matmul/8800gtx.png")); /* the papers' numbers need no results */
    char line[1024];
    snprintf(line, sizeof line, "plots: removed from %s/plots/matmul, as no data draws them now: ",
             temp_dir);
    const char *said = strstr(out, line);
    ck_assert_msg(said != NULL, "expected '%s' in:\n%s", line, out);
    snprintf(line, sizeof line, "%.*s", (int)strcspn(said, "\n"), said);
    ck_assert_msg(strstr(line, " steps-G.png") != NULL, "%s", out);
}
END_TEST

START_TEST(test_a_build_variant_is_not_its_step)
{
    /* make run STEP=02 TILE=8 and make sweep-tiles record rows built with -DTILE=N:
     * variants, which the figures of the steps must not take for the step, however
     * new they are (only the tile sweep's figure takes them); a library row built with a
     * -D of its own (the TF32 lab's two cuBLAS modes) is a row, not a variant */
    write_file("v.csv", "step,role,flags\n02-tiled,step,-O3 -arch=sm_90\n"
                        "02-tiled,step,-O3 -arch=sm_90 -DTILE=8\n13-float4,step,-O3 -use_fast_math\n"
                        "cublas-tf32,library,-O3 -DCUBLAS_MODE_TF32=1\n");
    char script[1200];
    snprintf(script, sizeof script,
             "load 'plots/common.gp'; set datafile separator comma; set key autotitle columnhead; "
             "stats '%s/v.csv' using (is_variant(0)) nooutput; "
             "print sprintf('%%d of %%d', STATS_sum, STATS_records)",
             temp_dir);
    char *argv[] = {"/usr/bin/env", "gnuplot", "-e", script, NULL};
    int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "gnuplot exited %d: %s", code, err);
    ck_assert_msg(strstr(err, "1 of 4") != NULL || strstr(out, "1 of 4") != NULL,
                  "is_variant: expected 1 of 4 rows, got: %s%s", out, err);
}
END_TEST

static const char *const render_case_names[] = {
    "make plots draws every figure from a small results tree",
    "every figure script draws a PNG and an SVG from tests/fixtures/plots",
    "every figure GUIDE.md shows is drawn by make plots from the committed data",
    "a row built with -D build variables is a variant, not its step",
    "a figure whose data is gone is removed, said in one line",
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
    tcase_add_checked_fixture(gnuplot, fresh_dir, NULL);
    tcase_set_timeout(gnuplot, 240);
    tcase_add_test(gnuplot, test_make_plots_draws_every_figure);
    tcase_add_test(gnuplot, test_every_script_draws_png_and_svg_from_the_fixture);
    tcase_add_test(gnuplot, test_every_figure_the_guide_shows_is_drawn_from_committed_data);
    tcase_add_test(gnuplot, test_a_build_variant_is_not_its_step);
    tcase_add_test(gnuplot, test_a_figure_whose_data_is_gone_is_removed);
    suite_add_tcase(suite, gnuplot);
    return suite;
}

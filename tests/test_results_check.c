/* bin/results-check, the check `make plots` runs on every results CSV before a
 * figure is drawn, on rows of the demo lab (results_check_suite; its vs_previous
 * columns, which need the lab's step table, are tested in the demo lab's tree:
 * tests/test_demo_lab.c); and what of the figures is this tree's rather than a lab's:
 * every figure the documents show is drawn from the committed results, and a build
 * variant is not its step (plots_render_suite, which needs gnuplot). Every test
 * writes its files into a fresh temporary folder, removed after the test whatever its
 * outcome. */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <glob.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "svg_labels.h"
#include "tools/markdown_files.h"
#include "util.h"

Suite *results_check_suite(void);
Suite *plots_render_suite(void);
size_t plots_render_case_names(const char **names, size_t max);

#define HEADER RESULTS_HEADER
/* A sound row of the demo lab: date, run, gpu, step, role, rate and verdict vary. */
#define ROW(date, run, gpu, step, role, gflops, verdict)                                           \
    DEMO_ROW(date, run, gpu, step, role, "flushed", "4096", "2.0", gflops, verdict)
#define RUN1(verdict2)                                                                             \
    ROW("2026-11-23T04:00:00Z", "r1", "Test GPU", "01-fill", "step", "1443.6", "PASS")            \
    ROW("2026-11-23T04:00:01Z", "r1", "Test GPU", "02-shared", "step", "3607.3", verdict2)         \
    ROW("2026-11-23T04:00:02Z", "r1", "Test GPU", "cpu-fill", "cpu", "50", "PASS")

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
    write_file("results/GPU A/demo.csv", HEADER "\n" RUN1("PASS"));
    ck_assert_int_eq(check("results/GPU A/demo.csv", NULL), 0);
    ck_assert_str_eq(err, "");
    const char *rows = read_file("out/demo.csv");
    ck_assert_int_eq(count_lines(rows), 4);
    ck_assert_ptr_nonnull(strstr(rows, "results_dir,date,run_id"));
    ck_assert_ptr_nonnull(strstr(rows, "\nGPU A,2026-11-23T04:00:02Z,r1,"));
    /* the empty flags field stays empty text; an empty number would be NaN */
    ck_assert_ptr_nonnull(strstr(rows, ",solutions,,flushed,"));
    ck_assert_str_eq(read_file("out/demo.dirs"), "GPU A\n");
}
END_TEST

START_TEST(test_row_cut_to_12_fields_is_skipped_by_line)
{
    write_file("results/g/demo.csv",
               HEADER "\n" RUN1("PASS")
                   "2026-11-23T05:00:00Z,r2,abc1234,Test GPU,9.0,132,1980,13.0,13.0,13.0.88,"
                   "demo,01-fill\n");
    ck_assert_int_eq(check("results/g/demo.csv", NULL), 1);
    assert_message("results/g/demo.csv", ":5: 12 fields, the header has 35: row skipped");
    ck_assert_int_eq(count_lines(err), 1);
    ck_assert_int_eq(count_lines(read_file("out/demo.csv")), 4);
}
END_TEST

START_TEST(test_truncated_file_drops_only_its_cut_last_row)
{
    /* The file ends in the middle of the CPU row: that row goes, with a line; the
     * steps of the run stay, and no value from elsewhere takes its place. */
    char text[4096];
    snprintf(text, sizeof text, "%s\n%s", HEADER, RUN1("PASS"));
    text[strlen(text) - 40] = '\0';
    write_file("results/g/demo.csv", text);
    ck_assert_int_eq(check("results/g/demo.csv", NULL), 1);
    assert_message("results/g/demo.csv", ":4: 27 fields, the header has 35: row skipped");
    const char *rows = read_file("out/demo.csv");
    ck_assert_int_eq(count_lines(rows), 3);
    ck_assert_ptr_null(strstr(rows, ",cpu,"));
}
END_TEST

START_TEST(test_verdict_maybe_is_skipped)
{
    write_file("results/g/demo.csv", HEADER "\n" RUN1("MAYBE"));
    ck_assert_int_eq(check("results/g/demo.csv", NULL), 1);
    assert_message("results/g/demo.csv",
                   ":3: verdict 'MAYBE' is neither PASS nor FAIL: row skipped");
    ck_assert_ptr_null(strstr(read_file("out/demo.csv"), "MAYBE"));
}
END_TEST

/* The rows beside the steps keep their role: a cpu or library row (named without a
 * number) is sound, a role nobody writes is not. */
START_TEST(test_row_roles_are_checked)
{
    write_file("results/g/demo.csv",
               HEADER "\n" RUN1("PASS")
                   ROW("2026-11-23T04:00:03Z", "r1", "G", "vendor", "library", "20", "PASS")
                       ROW("2026-11-23T04:00:04Z", "r1", "G", "cpu-gpu", "gpu", "20", "PASS"));
    ck_assert_int_eq(check("results/g/demo.csv", NULL), 1);
    assert_message("results/g/demo.csv",
                   ":6: role 'gpu' is neither step nor a row's (cpu, library): row skipped");
    ck_assert_int_eq(count_lines(err), 1);
    ck_assert_ptr_nonnull(strstr(read_file("out/demo.csv"), ",cpu-fill,cpu,"));
    ck_assert_ptr_nonnull(strstr(read_file("out/demo.csv"), ",vendor,library,"));
}
END_TEST

START_TEST(test_negative_rate_is_skipped)
{
    write_file("results/g/demo.csv",
               HEADER "\n" ROW("2026-11-23T04:00:00Z", "r1", "G", "01-fill", "step", "-5", "PASS")
                   ROW("2026-11-23T04:00:01Z", "r1", "G", "02-shared", "step", "abc", "PASS")
                       ROW("2026-11-23T04:00:02Z", "r1", "G", "shared", "step", "5", "PASS"));
    ck_assert_int_eq(check("results/g/demo.csv", NULL), 1);
    assert_message("results/g/demo.csv", ":2: gflops -5 is negative: row skipped");
    assert_message("results/g/demo.csv", ":3: gflops 'abc' is not a number: row skipped");
    assert_message("results/g/demo.csv",
                   ":4: step 'shared' does not start with its number (NN-name): row skipped");
    /* no row left: the folder is not listed, so no figure is drawn for it */
    ck_assert_str_eq(read_file("out/demo.dirs"), "");
}
END_TEST

START_TEST(test_missing_and_empty_files_get_one_line_each)
{
    write_file("results/empty/demo.csv", "");
    ck_assert_int_eq(check("results/empty/demo.csv", "results/none/demo.csv"), 1);
    assert_message("results/empty/demo.csv", ": empty file: file skipped");
    assert_message("results/none/demo.csv", ": no such file: file skipped");
    ck_assert_int_eq(count_lines(err), 2);
}
END_TEST

START_TEST(test_old_header_is_named)
{
    write_file("results/g/demo.csv", "date,run_id,commit,gpu,cc,sms,clock_mhz,driver,runtime,"
                                       "nvcc,lab,step,source,flags\n");
    /* a file that cannot be read is not one with no data: exit 3, on which make plots
     * stops before any figure */
    ck_assert_int_eq(check("results/g/demo.csv", NULL), 3);
    assert_message("results/g/demo.csv",
                   ":1: column 13 is 'source', not 'role': not the header of a demo results CSV");
    ck_assert_int_eq(count_lines(err), 1);
}
END_TEST

/* A lab this tree knows: its whole header is judged, every column of it (lab.def's
 * COLUMN and LABEL_COLUMN names after the common ones), not the common ones alone. The
 * fixtures are committed results with one column of the header damaged. */
START_TEST(test_a_header_unlike_its_labs_is_refused_at_any_column)
{
    static const struct {
        const char *file, *line;
    } cases[] = {
        {"label-misspelled/GPU/spmv.csv",
         ":1: column 41 is 'matrx', not 'matrix': not the header of a spmv results CSV"},
        {"verdict-misspelled/GPU/sort.csv",
         ":1: column 35 is 'verdct', not 'verdict': not the header of a sort results CSV"},
        {"extra-column/GPU/sort.csv", ":1: column 38 'note' is not one of lab sort's: not the "
                                      "header of a sort results CSV"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char relative[256], path[1024], tool[512], out_dir[600], line[1400];
        snprintf(relative, sizeof relative, "results-check/%s", cases[i].file);
        fixture_path(relative, path, sizeof path);
        snprintf(out_dir, sizeof out_dir, "%s/out", temp_dir);
        mkdir(out_dir, 0777);
        char *argv[] = {(char *)bin_path("results-check", tool, sizeof tool), "--out", out_dir, path,
                        NULL};
        ck_assert_int_eq(run_capture(argv, NULL, out, sizeof out, err, sizeof err), 3);
        snprintf(line, sizeof line, "%s%s\n", path, cases[i].line);
        ck_assert_str_eq(err, line);
    }
}
END_TEST

START_TEST(test_lab_columns_are_numbers_and_rates_not_negative)
{
    /* a lab's own columns: a negative rate (..._per_s) is bad data, a negative drift
     * is not */
    write_file("results/g/demo.csv",
               HEADER ",elements_per_s,drift\n"
               "2026-11-23T04:00:00Z,r1,c,G,9.0,1,1,1,1,1,demo,01-fill,step,labs,,flushed,1,1,1,"
               "1,1,1,1,1,1,1,1,1,1,1,1,x,1,0,PASS,-3,-0.5\n"
               "2026-11-23T04:00:01Z,r1,c,G,9.0,1,1,1,1,1,demo,02-shared,step,labs,,flushed,1,1,1,"
               "1,1,1,1,1,1,1,1,1,1,1,1,x,1,0,PASS,3e9,-0.5\n");
    ck_assert_int_eq(check("results/g/demo.csv", NULL), 1);
    assert_message("results/g/demo.csv", ":2: elements_per_s -3 is negative: row skipped");
    ck_assert_int_eq(count_lines(err), 1);
    ck_assert_ptr_nonnull(strstr(read_file("out/demo.csv"), ",PASS,3e9,-0.5,"));
}
END_TEST

START_TEST(test_quoted_commas_reach_gnuplot_without_commas)
{
    /* gnuplot 5.4 splits "a, b" at the comma: the check writes it as a; b */
    write_file("results/g/demo.csv",
               HEADER "\n" ROW("2026-11-23T04:00:00Z", "r1", "\"ACME, Inc. \"\"X\"\"\"", "01-fill",
                               "step", "10", "PASS"));
    ck_assert_int_eq(check("results/g/demo.csv", NULL), 0);
    ck_assert_ptr_nonnull(strstr(read_file("out/demo.csv"), ",ACME; Inc. 'X',9.0,"));
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

/* bin/results-check --out temp/out on the fixture tests/fixtures/build-variant (the
 * rows results_row_is_variant is tested on: tests/test_results.c), exit 0. */
static void check_build_variant_fixture(void)
{
    char tool[512], out_dir[600], fixture[1024];
    snprintf(out_dir, sizeof out_dir, "%s/out", temp_dir);
    mkdir(out_dir, 0777);
    fixture_path("build-variant/GPU/demo.csv", fixture, sizeof fixture);
    char *argv[] = {(char *)bin_path("results-check", tool, sizeof tool), "--out", out_dir, fixture,
                    NULL};
    int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "results-check exited %d: %s", code, err);
}

/* Which rows are build variants is written once, by the rule the tables follow, as
 * the plot CSV's last column: a step or CPU row built with a -D word is one (whatever
 * the word's place in the flags), a library row built with a -D of its own is not. */
START_TEST(test_build_variant_column_is_the_tables_rule)
{
    check_build_variant_fixture();
    const char *rows = read_file("out/demo.csv");
    ck_assert_msg(strstr(rows, ",vs_library,build_variant\n") != NULL, "%s", rows);
    const struct {
        const char *row; /* the row's step, role, source and flags, as written */
        char variant;
    } expected[] = {
        {",01-fill,step,solutions,-O3 -arch=sm_90,", '0'},
        {",01-fill,step,solutions,-O3 -arch=sm_90 -DTILE=8,", '1'},
        {",02-shared,step,solutions,-DTILE=16 -O3 -arch=sm_90,", '1'},
        {",vendor-strict,library,solutions,-O3 -arch=sm_90 -DVENDOR_MODE=STRICT,", '0'},
        {",vendor,library,solutions,-O3 -arch=sm_90,", '0'},
        {",cpu-fill,cpu,solutions,-O3 -arch=sm_90 -DTILE=8,", '1'},
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; ++i) {
        const char *row = strstr(rows, expected[i].row);
        ck_assert_msg(row != NULL, "no row %s in:\n%s", expected[i].row, rows);
        size_t end = strcspn(row, "\n");
        ck_assert_msg(end > 2 && row[end - 2] == ',' && row[end - 1] == expected[i].variant,
                      "row %s: build_variant not %c: %.*s", expected[i].row, expected[i].variant,
                      (int)end, row);
    }
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
    tcase_add_test(rows, test_a_header_unlike_its_labs_is_refused_at_any_column);
    tcase_add_test(rows, test_lab_columns_are_numbers_and_rates_not_negative);
    tcase_add_test(rows, test_quoted_commas_reach_gnuplot_without_commas);
    tcase_add_test(rows, test_peaks_rows_are_checked_by_line);
    tcase_add_test(rows, test_build_variant_column_is_the_tables_rule);
    suite_add_tcase(suite, rows);
    return suite;
}

/* ---- the figures (needs gnuplot) ------------------------------------------- */
/* How make plots draws and removes a lab's figures is tested on the demo lab, in its
 * own tree (tests/test_demo_lab.c, demo_lab_plots); each lab's own figure scripts in
 * its suite (harness/labs/<lab>/tests/test_<lab>_plots.c). */

START_TEST(test_every_figure_the_guide_shows_is_drawn_from_committed_data)
{
    /* every plots/....png that a document links to (GUIDE.md, INSTRUCTORS.md, each
     * lab's chapter) comes out of make plots run on the committed data/results */
    int code = util_make_plots(NULL, "plots", "data/results", temp_dir, NULL, out, sizeof out, err,
                               sizeof err);
    ck_assert_msg(code == 0, "make plots exited %d:\n%s%s", code, out, err);
    size_t files = 0;
    char **docs = markdown_files(".", &files);
    ck_assert_ptr_nonnull(docs);
    int links = 0;
    for (size_t i = 0; i < files; ++i) {
        char *text = util_read_file(docs[i], NULL);
        ck_assert_msg(text != NULL, "cannot read %s", docs[i]);
        /* the figure's path from the root: the link, relative to the file's folder,
         * with its leading ../ folded into that folder */
        for (const char *p = text; (p = strstr(p, "](")) != NULL; p += 2) {
            const char *end = strchr(p, ')');
            ck_assert_ptr_nonnull(end);
            char link[1024], dir[1024], figure[2048];
            snprintf(link, sizeof link, "%.*s", (int)(end - p - 2), p + 2);
            size_t n = strlen(link);
            if (n < 4 || strcmp(link + n - 4, ".png") != 0 || strstr(link, "plots/") == NULL)
                continue;
            snprintf(dir, sizeof dir, "%s", docs[i]);
            char *slash = strrchr(dir, '/');
            *(slash != NULL ? slash : dir) = '\0';
            const char *rest = link;
            while (strncmp(rest, "../", 3) == 0) {
                rest += 3;
                slash = strrchr(dir, '/');
                *(slash != NULL ? slash : dir) = '\0';
            }
            snprintf(figure, sizeof figure, "%s/%s%s%s", temp_dir, dir, *dir ? "/" : "", rest);
            ck_assert_msg(util_is_png(figure, 5000), "%s shows %s, which make plots did not draw:\n%s%s",
                          docs[i], figure, out, err);
            ++links;
        }
        free(text);
    }
    markdown_files_free(docs, files);
    ck_assert_int_ge(links, 5);
    /* and in none of them, read from its SVG for slides, does a label print over
     * another (tests/svg_labels.h) */
    char pattern[1200];
    snprintf(pattern, sizeof pattern, "%s/plots/*/slides/*.svg", temp_dir);
    glob_t figures;
    ck_assert_int_eq(glob(pattern, 0, NULL, &figures), 0);
    ck_assert_uint_ge(figures.gl_pathc, 5);
    for (size_t i = 0; i < figures.gl_pathc; ++i) {
        char *svg = util_read_file(figures.gl_pathv[i], NULL), why[512] = "";
        ck_assert_ptr_nonnull(svg);
        int overlap = svg_labels_overlap(svg, why, sizeof why);
        free(svg);
        ck_assert_msg(!overlap, "%s: %s", figures.gl_pathv[i], why);
    }
    globfree(&figures);
}
END_TEST

/* The overlap check can fail: two labels at one place overlap, the same two apart do
 * not, as gnuplot's SVG terminal writes them. */
START_TEST(test_overlapping_labels_are_found_in_svg)
{
    for (int apart = 0; apart <= 1; ++apart) {
        char script[2400], svg_path[1100];
        snprintf(svg_path, sizeof svg_path, "%s/labels-%d.svg", temp_dir, apart);
        snprintf(script, sizeof script,
                 "set terminal svg size 600,400 font 'Sans,11'; set output '%s'; "
                 "set label 1 'cub (library): 2.99 TB/s' at graph 0.1, graph 0.50; "
                 "set label 2 'device copy bandwidth: 2.81 TB/s' at graph 0.1, graph %s; "
                 "plot [0:1] x notitle",
                 svg_path, apart ? "0.70" : "0.51");
        char *argv[] = {"/usr/bin/env", "gnuplot", "-e", script, NULL};
        int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
        ck_assert_msg(code == 0, "gnuplot exited %d: %s", code, err);
        char *svg = util_read_file(svg_path, NULL), why[512] = "";
        ck_assert_ptr_nonnull(svg);
        int overlap = svg_labels_overlap(svg, why, sizeof why);
        free(svg);
        ck_assert_msg(overlap == !apart, "labels %s: overlap %d (%s)", apart ? "apart" : "together",
                      overlap, why);
        if (!apart)
            ck_assert_msg(strstr(why, "cub (library)") != NULL, "%s", why);
    }
}
END_TEST

START_TEST(test_a_build_variant_is_not_its_step)
{
    /* make run STEP=02 TILE=8 and make sweep-tiles record rows built with -DTILE=N:
     * variants, which the figures of the steps must not take for the step, however
     * new they are (only a sweep's figure takes them); a library row built with a -D of
     * its own (a library called in two modes) is a row, not a variant. The figures'
     * is_variant reads bin/results-check's build_variant, the tables' rule: a test of
     * the flags of its own would miss 02-shared, whose -D is its flags' first word. */
    check_build_variant_fixture();
    char script[1200];
    snprintf(script, sizeof script,
             "load 'plots/common.gp'; set datafile separator comma; set key autotitle columnhead; "
             "v = ''; stats '%s/out/demo.csv' using (v = v . sprintf('%%d', is_variant(0)), 0) "
             "nooutput; print 'variants ' . v",
             temp_dir);
    char *argv[] = {"/usr/bin/env", "gnuplot", "-e", script, NULL};
    int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "gnuplot exited %d: %s", code, err);
    ck_assert_msg(strstr(err, "variants 011001") != NULL || strstr(out, "variants 011001") != NULL,
                  "is_variant row by row: expected 011001, got: %s%s", out, err);
}
END_TEST

/* make plots over a results file whose header is not its lab's: it stops before any
 * figure, with the file's one line and exit 2 (make's status for a failed recipe),
 * and the figures already there stay, every one. */
START_TEST(test_make_plots_stops_before_any_figure_on_a_damaged_header)
{
    char results[1024], figure[1200];
    fixture_path("results-check/label-misspelled", results, sizeof results);
    write_file("plots/spmv/gflops-GPU.png", "a committed figure\n");
    write_file("plots/spmv/slides/gflops-GPU.svg", "<svg/>\n");
    int code = util_make_plots(NULL, "plots", results, temp_dir, NULL, out, sizeof out, err,
                               sizeof err);
    ck_assert_msg(code == 2, "make plots exited %d:\n%s%s", code, out, err);
    ck_assert_msg(strstr(err, "spmv.csv:1: column 41 is 'matrx', not 'matrix'") != NULL, "%s", err);
    ck_assert_msg(strstr(out, "PLOT") == NULL && strstr(out, "removed") == NULL, "%s", out);
    snprintf(figure, sizeof figure, "%s/plots/spmv/gflops-GPU.png", temp_dir);
    ck_assert_msg(access(figure, F_OK) == 0, "%s was removed:\n%s%s", figure, out, err);
    snprintf(figure, sizeof figure, "%s/plots/spmv/slides/gflops-GPU.svg", temp_dir);
    ck_assert_msg(access(figure, F_OK) == 0, "%s was removed:\n%s%s", figure, out, err);
}
END_TEST

/* The y of the first SVG text that holds needle (gnuplot writes each text in a group
 * translated to its place); -1 when there is none. */
static double svg_text_y(const char *svg, const char *needle)
{
    const char *at = strstr(svg, needle);
    if (at == NULL)
        return -1;
    const char *group = NULL;
    for (const char *p = svg; (p = strstr(p, "translate(")) != NULL && p < at; ++p)
        group = p;
    double x, y;
    return group != NULL && sscanf(group, "translate(%lf,%lf)", &x, &y) == 2 ? y : -1;
}

/* A figure's title says on what GPU (its name, not its folder's) and from which run
 * (the newest row's date), and its legend sits below the title: spmv's gflops and
 * sort's distributions, drawn from the committed results. And the roofline's points
 * drawn on one another (matmul's) get one label naming them all. */
START_TEST(figure_titles_name_the_gpu_and_the_date)
{
    int code = util_make_plots(NULL, "plots-spmv", "data/results", temp_dir, NULL, out, sizeof out,
                               err, sizeof err);
    ck_assert_msg(code == 0, "make plots-spmv exited %d:\n%s%s", code, out, err);
    code = util_make_plots(NULL, "plots-sort", "data/results", temp_dir, NULL, out, sizeof out, err,
                           sizeof err);
    ck_assert_msg(code == 0, "make plots-sort exited %d:\n%s%s", code, out, err);
    code = util_make_plots(NULL, "plots-matmul", "data/results", temp_dir, NULL, out, sizeof out,
                           err, sizeof err);
    ck_assert_msg(code == 0, "make plots-matmul exited %d:\n%s%s", code, out, err);
    char path[1200];
    snprintf(path, sizeof path, "%s/plots/spmv/slides/gflops-NVIDIA-H100-80GB-HBM3.svg", temp_dir);
    char *svg = util_read_file(path, NULL);
    ck_assert_msg(svg != NULL, "no %s", path);
    ck_assert_msg(strstr(svg, "SpMV on NVIDIA H100 80GB HBM3: GFLOP/s") != NULL &&
                      strstr(svg, "newest row 2026-") != NULL, "%s: its title", path);
    free(svg);
    snprintf(path, sizeof path, "%s/plots/sort/slides/distributions-NVIDIA-H100-80GB-HBM3.svg", temp_dir);
    svg = util_read_file(path, NULL);
    ck_assert_msg(svg != NULL, "no %s", path);
    double title = svg_text_y(svg, "Sort: keys per second"), key = svg_text_y(svg, ">uniform<");
    ck_assert_msg(title >= 0 && key >= 0 && key > title && strstr(svg, "newest row 2026-") != NULL,
                  "%s: the title at y %g, the key at y %g", path, title, key);
    free(svg);
    /* the profile figure: the GPU's name, not its folder's, and the profiling's day */
    code = util_make_plots(NULL, "plots-profiles", "data/results", temp_dir, NULL, out, sizeof out,
                           err, sizeof err);
    ck_assert_msg(code == 0, "make plots-profiles exited %d:\n%s%s", code, out, err);
    snprintf(path, sizeof path, "%s/plots/matmul/slides/profile-NVIDIA-H100-80GB-HBM3.svg", temp_dir);
    svg = util_read_file(path, NULL);
    ck_assert_msg(svg != NULL, "no %s", path);
    ck_assert_msg(strstr(svg, "matmul on NVIDIA H100 80GB HBM3 (solutions)") != NULL &&
                      strstr(svg, "newest profile 2026-") != NULL, "%s: its title", path);
    free(svg);
    snprintf(path, sizeof path, "%s/plots/matmul/slides/roofline-NVIDIA-H100-80GB-HBM3.svg", temp_dir);
    svg = util_read_file(path, NULL);
    ck_assert_msg(svg != NULL, "no %s", path);
    ck_assert_msg(strstr(svg, ">12-raster<") == NULL && strstr(svg, " and 12-raster") != NULL,
                  "%s: 12-raster, drawn on another point, has a label of its own", path);
    free(svg);
}
END_TEST

static const char *const render_case_names[] = {
    "every figure the documents show is drawn by make plots from the committed data, no label over another",
    "two labels of a figure at one place are found overlapping in its SVG",
    "a row built with -D build variables is a variant, not its step",
    "make plots over a damaged results header stops before any figure, exit 2",
    "figure titles name the GPU and the run's date; points on one another share a label",
};

size_t plots_render_case_names(const char **names, size_t max)
{
    return UTIL_CASE_NAMES(render_case_names, names, max);
}

Suite *plots_render_suite(void)
{
    Suite *suite = suite_create("plots_render");
    TCase *gnuplot = tcase_create("gnuplot");
    tcase_add_unchecked_fixture(gnuplot, setup, teardown);
    tcase_add_checked_fixture(gnuplot, fresh_dir, NULL);
    tcase_set_timeout(gnuplot, 240);
    tcase_add_test(gnuplot, test_every_figure_the_guide_shows_is_drawn_from_committed_data);
    tcase_add_test(gnuplot, test_overlapping_labels_are_found_in_svg);
    tcase_add_test(gnuplot, test_a_build_variant_is_not_its_step);
    tcase_add_test(gnuplot, test_make_plots_stops_before_any_figure_on_a_damaged_header);
    tcase_add_test(gnuplot, figure_titles_name_the_gpu_and_the_date);
    suite_add_tcase(suite, gnuplot);
    return suite;
}

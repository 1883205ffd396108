/* Result rows: the CSV columns, the GPU folder name, the speedup lookup and the
 * table row. */
#define _POSIX_C_SOURCE 200809L /* gmtime_r */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lab_registry.h"
#include "results.h"
#include "util.h"
#include "vs_library.h"

static struct run_record sample_record(void)
{
    struct run_record r;
    memset(&r, 0, sizeof r);
    strcpy(r.date, "2026-11-23T04:00:00Z");
    strcpy(r.run_id, "run-1");
    strcpy(r.commit, "abc123");
    strcpy(r.gpu, "NVIDIA H100 80GB HBM3");
    strcpy(r.cc, "9.0");
    r.sms = 132;
    r.clock_mhz = 1980;
    strcpy(r.driver, "13.0");
    strcpy(r.runtime, "13.0");
    strcpy(r.nvcc, "13.0.88");
    r.lab = "demo";
    r.step = "02-shared";
    r.role = "step";
    r.source = "solutions";
    r.flags = "-use_fast_math, -O3";
    r.cache = "flushed";
    r.m = r.n = r.k = 4096;
    r.seed = 20080220;
    r.repeats = 7;
    r.median_ms = 20.0;
    r.min_ms = 19.5;
    r.max_ms = 21.25;
    r.gflops = 6872.04;
    r.regs = 32;
    r.smem_static = 2048;
    r.local_bytes = 0;
    r.threads_per_block = 256;
    r.blocks_per_sm = 8;
    r.limiter = "threads";
    r.occupancy_pct = 100.0;
    r.max_err = 3.2e-5;
    r.verdict = "PASS";
    return r;
}

START_TEST(gpu_folder_names)
{
    char buf[64];
    results_gpu_dir("NVIDIA H100 80GB HBM3", buf, sizeof buf);
    ck_assert_str_eq(buf, "NVIDIA-H100-80GB-HBM3");
    results_gpu_dir("  GeForce GTX/480 (rev. a) ", buf, sizeof buf);
    ck_assert_str_eq(buf, "GeForce-GTX-480-rev.-a");
    results_gpu_dir("///", buf, sizeof buf);
    ck_assert_str_eq(buf, "unknown");
}
END_TEST

/* The date a record writes and a run id's stamp: the same instant, in UTC, each in its
 * form; a buffer too short gets "", never a cut date. */
START_TEST(dates_are_utc_now_in_the_two_forms)
{
    time_t before = time(NULL);
    char date[32], stamp[32], tiny[10] = "untouched";
    results_utc_date(RESULTS_DATE, date, sizeof date);
    results_utc_date(RESULTS_STAMP, stamp, sizeof stamp);
    time_t after = time(NULL);
    int y, mo, d, h, mi, sec;
    char z;
    ck_assert_int_eq((int)strlen(date), 20);
    ck_assert_int_eq(sscanf(date, "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &sec, &z), 7);
    ck_assert_int_eq(z, 'Z');
    struct tm utc;
    gmtime_r(&before, &utc);
    int lo = utc.tm_year + 1900;
    gmtime_r(&after, &utc);
    ck_assert(y >= lo && y <= utc.tm_year + 1900); /* UTC, not a local year's turn */
    ck_assert(mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && sec <= 60);
    ck_assert_int_eq((int)strlen(stamp), 16);
    char from_date[32];
    snprintf(from_date, sizeof from_date, "%04d%02d%02dT%02d%02d%02dZ", y, mo, d, h, mi, sec);
    if (before == after) /* the same second: the two forms of one instant */
        ck_assert_str_eq(stamp, from_date);
    results_utc_date(RESULTS_DATE, tiny, sizeof tiny);
    ck_assert_str_eq(tiny, "");
}
END_TEST

START_TEST(record_round_trips_through_csv)
{
    char *dir = util_temp_dir("results");
    ck_assert_ptr_nonnull(dir);
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/demo.csv", dir);
    struct run_record r = sample_record();
    ck_assert_int_eq(results_append(path, &r, err, sizeof err), 0);
    struct csv_table t;
    ck_assert_int_eq(csv_read_file(path, &t, err, sizeof err), 0);
    ck_assert_uint_eq(t.ncols, results_column_count);
    ck_assert_uint_eq(t.nrows, 1);
    ck_assert_str_eq(csv_get(&t, 0, "gpu"), "NVIDIA H100 80GB HBM3");
    ck_assert_str_eq(csv_get(&t, 0, "flags"), "-use_fast_math, -O3");
    ck_assert_str_eq(csv_get(&t, 0, "nvcc"), "13.0.88");
    ck_assert_str_eq(csv_get(&t, 0, "commit"), "abc123");
    ck_assert_str_eq(csv_get(&t, 0, "date"), "2026-11-23T04:00:00Z");
    ck_assert_str_eq(csv_get(&t, 0, "driver"), "13.0");
    ck_assert_str_eq(csv_get(&t, 0, "median_ms"), "20.000000");
    ck_assert_str_eq(csv_get(&t, 0, "blocks_per_sm"), "8");
    ck_assert_str_eq(csv_get(&t, 0, "limiter"), "threads");
    ck_assert_str_eq(csv_get(&t, 0, "verdict"), "PASS");
    ck_assert_str_eq(csv_get(&t, 0, "seed"), "20080220");
    ck_assert_str_eq(csv_get(&t, 0, "role"), "step");
    ck_assert_str_eq(csv_get(&t, 0, "cache"), "flushed");
    csv_free(&t);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

/* A lab's label column (lab.def's LABEL_COLUMN) is text after its numeric columns,
 * quoted where it must be; a record without one has no such column. */
START_TEST(label_column_follows_the_lab_columns)
{
    static const struct lab_column columns[] = {{"rows", "rows", 1.0, "%.0f"}};
    char *dir = util_temp_dir("results");
    ck_assert_ptr_nonnull(dir);
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/demo.csv", dir);
    struct run_record r = sample_record();
    results_set_lab_columns(&r, columns, 1);
    r.lab_values[0] = 17;
    results_set_label(&r, "shape", "tall, thin");
    ck_assert_int_eq(results_append(path, &r, err, sizeof err), 0);
    struct csv_table t;
    ck_assert_int_eq(csv_read_file(path, &t, err, sizeof err), 0);
    ck_assert_uint_eq(t.ncols, results_column_count + 2);
    ck_assert_int_eq(csv_column(&t, "shape"), (int)results_column_count + 1);
    ck_assert_str_eq(csv_get(&t, 0, "shape"), "tall, thin");
    ck_assert_str_eq(csv_get(&t, 0, "rows"), "17");
    csv_free(&t);
    /* the same file will not take a row without the column: its header differs */
    results_set_label(&r, NULL, "");
    ck_assert_int_ne(results_append(path, &r, err, sizeof err), 0);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

/* A lab's own figures are real columns after the common ones; one that was not
 * measured is an empty field, not a made-up number. */
START_TEST(lab_columns_follow_the_common_ones)
{
    static const struct lab_column columns[] = {
        {"elements_per_s", "Gelem/s", 1e-9, "%.1f"},
        {"drift", "drift", 1.0, "%.1e"},
    };
    char *dir = util_temp_dir("results");
    ck_assert_ptr_nonnull(dir);
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/demo.csv", dir);
    struct run_record r = sample_record();
    r.lab_columns = columns;
    r.lab_column_count = 2;
    r.lab_values[0] = 2.25e12;
    r.lab_values[1] = NAN;
    ck_assert_int_eq(results_append(path, &r, err, sizeof err), 0);
    struct csv_table t;
    ck_assert_int_eq(csv_read_file(path, &t, err, sizeof err), 0);
    ck_assert_uint_eq(t.ncols, results_column_count + 2);
    ck_assert_int_eq(csv_column(&t, "elements_per_s"), (int)results_column_count);
    ck_assert_str_eq(csv_get(&t, 0, "elements_per_s"), "2.25e+12");
    ck_assert_str_eq(csv_get(&t, 0, "drift"), "");
    csv_free(&t);

    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    results_print_header(out, columns, 2, NULL);
    results_print_row(out, &r, "131072", NAN, NAN);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(text, "Gelem/s"));
    ck_assert_ptr_nonnull(strstr(text, "2250.0"));
    free(text);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

START_TEST(speedup_lookup_takes_newest_matching_pass)
{
    const char *text =
        "step,gpu,lab,source,cache,m,n,k,verdict,median_ms\n"
        "01-fill,G,demo,solutions,flushed,64,64,64,PASS,10\n"
        "01-fill,G,demo,solutions,flushed,4096,4096,4096,PASS,80\n"
        "01-fill,G,demo,solutions,flushed,4096,4096,4096,PASS,100\n" /* newer: wins */
        "01-fill,G,demo,solutions,flushed,4096,4096,4096,FAIL,1\n"   /* failed: ignored */
        "01-fill,G,demo,solutions,warm,4096,4096,4096,PASS,3\n"      /* other cache policy */
        "01-fill,other,demo,solutions,flushed,4096,4096,4096,PASS,5\n"
        "01-fill,G,demo,labs,flushed,4096,4096,4096,PASS,7\n";
    struct csv_table t;
    char err[128];
    ck_assert_int_eq(csv_parse(text, &t, err, sizeof err), 0);
    struct run_record like = sample_record();
    strcpy(like.gpu, "G");
    ck_assert_double_eq(results_find_median(&t, &like, "01-fill"), 100.0);
    ck_assert(isnan(results_find_median(&t, &like, "03-unrolled")));
    like.m = 64;
    ck_assert(isnan(results_find_median(&t, &like, "01-fill"))); /* 64x4096x4096 never ran */
    csv_free(&t);
}
END_TEST

/* The rule every "vs previous" follows (the runner, the guide's tables, the speedups
 * figures): a flushed-cache row of step 02 is never compared with a warm-cache row of
 * step 01, however new; nor with a row recorded after it, a failed one, one of the
 * other source or a build variant. */
START_TEST(a_row_is_compared_only_with_a_comparable_row)
{
    const char *text =
        "run_id,step,gpu,lab,source,flags,cache,m,n,k,verdict,median_ms\n"
        "a,01-fill,G,demo,solutions,,flushed,1,131072,1,PASS,9\n"      /* 0 */
        "b,01-fill,G,demo,solutions,,warm,1,4096,1,PASS,0.29\n"        /* 1 */
        "c,02-shared,G,demo,solutions,,flushed,1,4096,1,PASS,0.0206\n" /* 2 */
        "d,01-fill,G,demo,solutions,,flushed,1,2048,1,PASS,0.2\n"      /* 3 */
        "d,01-fill,G,demo,solutions,-O3 -DTILE=8,flushed,1,2048,1,PASS,0.01\n"
        "d,01-fill,G,demo,labs,,flushed,1,2048,1,PASS,0.02\n"
        "d,01-fill,G,demo,solutions,,flushed,1,2048,1,FAIL,0.03\n"
        "e,02-shared,G,demo,solutions,,flushed,1,2048,1,PASS,0.05\n"   /* 7 */
        "e,02-shared,G,demo,solutions,,flushed,1,1024,1,FAIL,0.05\n"   /* 8 */
        "f,01-fill,G,demo,solutions,,flushed,1,4096,1,PASS,0.2\n";     /* 9: after */
    struct csv_table t;
    char err[128];
    ck_assert_int_eq(csv_parse(text, &t, err, sizeof err), 0);
    struct results_previous p;
    results_vs_previous(&t, 2, "01-fill", &p);
    ck_assert(isnan(p.speedup));
    ck_assert_int_eq(p.row, -1);
    ck_assert_str_eq(p.why, "no 01-fill row at this size with the L2 flushed");
    results_vs_previous(&t, 7, "01-fill", &p); /* not the variant, labs/ or FAIL */
    ck_assert_int_eq(p.row, 3);
    ck_assert_double_eq_tol(p.speedup, 4.0, 1e-12);
    ck_assert_str_eq(p.why, "");
    results_vs_previous(&t, 8, "01-fill", &p);
    ck_assert(isnan(p.speedup));
    ck_assert_str_eq(p.why, "this row failed");
    results_vs_previous(&t, 7, NULL, &p); /* nothing to compare with: no reason either */
    ck_assert(isnan(p.speedup));
    ck_assert_str_eq(p.why, "");
    /* the runner's lookup, before its row is recorded: the same rule */
    struct run_record like = sample_record();
    strcpy(like.gpu, "G");
    like.lab = "demo";
    like.cache = "flushed";
    like.m = 1, like.n = 4096, like.k = 1;
    ck_assert_int_eq(results_comparable_row(&t, 9, &like, "01-fill"), -1);
    ck_assert_int_eq(results_comparable_row(&t, t.nrows, &like, "01-fill"), 9);
    like.cache = "warm";
    ck_assert_double_eq(results_find_median(&t, &like, "01-fill"), 0.29);
    csv_free(&t);
}
END_TEST

/* tests/fixtures/build-variant: a step row with no -D word, the same step built with
 * -DTILE=8, a step whose first word is a -D, a library row built with a -D of its own
 * (one source, two library calls, as the TF32 lab's cuBLAS rows), the library row
 * after it, and a CPU row built with -DTILE=8. The one rule says which are variants,
 * and a library row with a -D of its own is compared like any other row. */
START_TEST(a_build_variant_is_a_step_row_with_defines_never_a_library_row)
{
    char path[1024], err[256];
    struct csv_table t;
    ck_assert_int_eq(csv_read_file(fixture_path("build-variant/GPU/demo.csv", path, sizeof path),
                                   &t, err, sizeof err),
                     0);
    ck_assert_int_eq((int)t.nrows, 6);
    const int expected[] = {0, 1, 1, 0, 0, 1};
    for (size_t r = 0; r < t.nrows; ++r)
        ck_assert_msg(results_row_is_variant(&t, r) == expected[r], "row %zu (%s, %s): not %d",
                      r, csv_get(&t, r, "step"), csv_get(&t, r, "flags"), expected[r]);
    struct results_previous p;
    results_vs_previous(&t, 4, "vendor-strict", &p);
    ck_assert_int_eq(p.row, 3);
    ck_assert_double_eq_tol(p.speedup, 4.0, 1e-12);
    results_vs_previous(&t, 2, "01-fill", &p); /* the plain 01-fill, not its -DTILE=8 build */
    ck_assert_int_eq(p.row, 0);
    ck_assert_double_eq_tol(p.speedup, 4.0, 1e-12);
    csv_free(&t);
}
END_TEST

START_TEST(table_row_shows_limiter_and_speedups)
{
    struct run_record r = sample_record();
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    results_print_header(out, NULL, 0, NULL);
    results_print_row(out, &r, "4096^3", 2.5, NAN);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(text, "blocks/SM"));
    ck_assert_ptr_nonnull(strstr(text, "02-shared"));
    ck_assert_ptr_nonnull(strstr(text, "8 (threads)"));
    ck_assert_ptr_nonnull(strstr(text, "2.50x"));
    ck_assert_ptr_nonnull(strstr(text, "6872.0"));
    ck_assert_ptr_nonnull(strstr(text, "PASS"));
    free(text);
}
END_TEST

/* A slow CPU row's rate is not shown as zero: qsort's 0.0048 Gkeys/s read "0.00" in
 * the sort lab's table and its CSV (its pass rate "0"); where the column's format would
 * show a nonzero value with fewer than two significant digits it takes two. A rate of
 * zero, and any value the format shows with two or more, stay as the format writes them. */
START_TEST(a_slow_rows_rate_is_not_shown_as_zero)
{
    static const struct {
        double value;
        const char *format, *shown;
    } cells[] = {
        {0.0048, "%.2f", "0.0048"}, {0.0058, "%.2f", "0.0058"}, /* not "0.01" */
        {0.4, "%.0f", "0.4"},       {3.4, "%.0f", "3.4"},
        {0.0, "%.1f", "0.0"},       {6872.04, "%.1f", "6872.0"},
        {0.06, "%.2f", "0.06"},     {12.4, "%.0f", "12"},
        {0.00481, "%.1e", "4.8e-03"},
    };
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; ++i) {
        char cell[32];
        results_format_number(cells[i].value, cells[i].format, cell, sizeof cell);
        ck_assert_msg(strcmp(cell, cells[i].shown) == 0, "%g in %s: \"%s\", not \"%s\"",
                      cells[i].value, cells[i].format, cell, cells[i].shown);
    }

    static const struct lab_column columns[] = {{"gkeys", "Gkeys/s", 1.0, "%.2f"},
                                                {"pass_gbps", "GB/s/pass", 1.0, "%.0f"}};
    struct run_record r = sample_record();
    results_set_lab_columns(&r, columns, 2);
    r.lab_values[0] = 0.0048;
    r.lab_values[1] = 0.31;
    r.gflops = 0.0048;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    results_print_row(out, &r, "4194304", NAN, NAN);
    fclose(out);
    ck_assert_msg(strstr(text, " 0.0048") != NULL && strstr(text, " 0.31") != NULL &&
                      strstr(text, " 0.00 ") == NULL,
                  "%s", text);
    free(text);

    char *dir = util_temp_dir("slow-rate");
    ck_assert_ptr_nonnull(dir);
    char path[600], err[256];
    snprintf(path, sizeof path, "%s/rows.csv", dir);
    ck_assert_int_eq(results_append(path, &r, err, sizeof err), 0);
    struct csv_table t;
    ck_assert_int_eq(csv_read_file(path, &t, err, sizeof err), 0);
    ck_assert_str_eq(csv_get(&t, 0, "gflops"), "0.0048");
    csv_free(&t);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

/* A lab whose gflops column counts something else (lab.def's RATE_LABEL: sort counts
 * keys, in a Gkeys/s column of its own) has no GFLOP/s column in its run table: a CPU
 * row's "0.0" there said nothing true. The columns after it stay aligned. */
START_TEST(a_lab_whose_rate_is_not_flops_has_no_gflops_column)
{
    static const struct lab_column columns[] = {{"gkeys", "Gkeys/s", 1.0, "%.2f"}};
    struct run_record r = sample_record();
    results_set_lab_columns(&r, columns, 1);
    r.lab_values[0] = 0.06;
    r.rate_label = "Gkeys/s";
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    results_print_header(out, columns, 1, "Gkeys/s");
    results_print_row(out, &r, "4096^3", 2.5, NAN);
    fclose(out);
    ck_assert_msg(strstr(text, "GFLOP/s") == NULL && strstr(text, "6872.0") == NULL, "%s", text);
    ck_assert_msg(strstr(text, "Gkeys/s") != NULL && strstr(text, "0.06") != NULL, "%s", text);
    /* the header's and the row's columns line up: "vs prev" above "2.50x" */
    const char *row = strchr(text, '\n') + 1;
    ck_assert_int_eq((int)(strstr(text, "vs prev") + strlen("vs prev") - text),
                     (int)(strstr(row, "2.50x") + strlen("2.50x") - row));
    free(text);
}
END_TEST

START_TEST(failed_row_shows_no_time)
{
    struct run_record r = sample_record();
    r.repeats = 0;
    r.verdict = "FAIL";
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    results_print_row(out, &r, "4096^3", NAN, NAN);
    fclose(out);
    ck_assert_ptr_null(strstr(text, "20.000"));
    ck_assert_ptr_nonnull(strstr(text, "FAIL"));
    free(text);
}
END_TEST

/* Speedups read in the table: two decimals, and where two decimals show fewer than two
 * significant digits, two (results_format_number's rule), so one GPU thread against a
 * CPU core reads 0.018x, not 0.02x; 0.0996 rounds to 0.10x, as any value does. */
START_TEST(speedups_keep_two_digits)
{
    char buf[32];
    results_format_speedup(2.5, buf, sizeof buf);
    ck_assert_str_eq(buf, "2.50x");
    results_format_speedup(0.42, buf, sizeof buf);
    ck_assert_str_eq(buf, "0.42x");
    results_format_speedup(1.0 / 56.3, buf, sizeof buf);
    ck_assert_str_eq(buf, "0.018x");
    results_format_speedup(0.094, buf, sizeof buf);
    ck_assert_str_eq(buf, "0.094x");
    results_format_speedup(0.0996, buf, sizeof buf);
    ck_assert_str_eq(buf, "0.10x");
    char small[4]; /* cut short, still ended */
    results_format_speedup(0.42, small, sizeof small);
    ck_assert_str_eq(small, "0.4");
    results_format_speedup(61509.0, buf, sizeof buf);
    ck_assert_str_eq(buf, "61509.00x");
    results_format_speedup(NAN, buf, sizeof buf);
    ck_assert_str_eq(buf, "-");
}
END_TEST

/* A CPU row has no kernel: its table row shows the CPU threads it ran on and no
 * registers, shared memory or blocks per SM; a library row shows none of them. */
START_TEST(cpu_row_shows_its_threads_only)
{
    struct run_record r = sample_record();
    r.step = "cpu-fill-reverse";
    r.role = "cpu";
    r.regs = 0, r.smem_static = 0, r.blocks_per_sm = 0, r.limiter = "-";
    r.threads_per_block = 16;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    results_print_row(out, &r, "2048", 12.5, 40.0);
    r.role = "library";
    r.step = "vendor";
    r.threads_per_block = 0;
    results_print_row(out, &r, "2048", NAN, 9.5);
    fclose(out);
    /* the columns: step, size, median, min - max (3 words), rate, vs prev, vs 01, regs,
     * smem, local, threads, blocks/SM, occ%, max err, check */
    char words[2][17][32];
    const char *line = text;
    for (int row = 0; row < 2; ++row, line = strchr(line, '\n') + 1)
        ck_assert_int_eq(sscanf(line, "%31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s "
                                      "%31s %31s %31s %31s %31s %31s",
                                words[row][0], words[row][1], words[row][2], words[row][3],
                                words[row][4], words[row][5], words[row][6], words[row][7],
                                words[row][8], words[row][9], words[row][10], words[row][11],
                                words[row][12], words[row][13], words[row][14], words[row][15],
                                words[row][16]),
                         17);
    const char *cpu[] = {"cpu-fill-reverse", "2048", "20.000", "19.500", "-", "21.250", "6872.0",
                         "12.50x", "40.00x", "-", "-", "-", "16", "-", "-"};
    const char *library[] = {"vendor", "2048", "20.000", "19.500", "-", "21.250", "6872.0",
                             "-", "9.50x", "-", "-", "-", "-", "-", "-"};
    for (int w = 0; w < 15; ++w) {
        ck_assert_str_eq(words[0][w], cpu[w]);
        ck_assert_str_eq(words[1][w], library[w]);
    }
    free(text);
}
END_TEST

/* The timed runs' columns: sorted, the least and greatest, the median (the mean of the
 * middle two for an even count), as the runner and a CPU row run with no GPU record. */
START_TEST(timed_runs_are_summarized_by_their_median)
{
    struct run_record r = sample_record();
    double odd[] = {3.0, 1.0, 2.0, 9.0, 4.0};
    results_set_times(&r, odd, 5);
    ck_assert_int_eq(r.repeats, 5);
    ck_assert_double_eq(r.min_ms, 1.0);
    ck_assert_double_eq(r.max_ms, 9.0);
    ck_assert_double_eq(r.median_ms, 3.0);
    ck_assert_double_eq(odd[4], 9.0); /* sorted in place */
    double even[] = {4.0, 1.0, 2.0, 8.0};
    results_set_times(&r, even, 4);
    ck_assert_int_eq(r.repeats, 4);
    ck_assert_double_eq(r.median_ms, 3.0);
    double one[] = {0.5};
    results_set_times(&r, one, 1);
    ck_assert_double_eq(r.min_ms, 0.5);
    ck_assert_double_eq(r.median_ms, 0.5);
    ck_assert_double_eq(r.max_ms, 0.5);
}
END_TEST

/* The rows of tests/fixtures/vs-library/<lab>.csv against the best library row: row r's
 * library row (-1: none) and its cell. */
static void check_vs_library(const struct csv_table *t, const char *lab, size_t r, long library,
                             const char *cell)
{
    struct vs_library against;
    vs_library_of_row(t, r, step_table_find(lab), &against);
    char got[256];
    vs_library_cell(t, r, step_table_find(lab), got, sizeof got);
    ck_assert_msg(against.row == library && strcmp(got, cell) == 0,
                  "%s row %zu: library row %ld, '%s'; wanted row %ld, '%s' (%s)", lab, r + 2,
                  against.row + 2, got, library + 2, cell, against.why);
}

/* "vs library" (vs_library.h): the fastest library row that passed in the same run, at
 * the same size, cache policy, label (spmv's matrix) and variant (sort's keys or
 * pairs): at one size the int call, at another the 64-bit one, each named; never a
 * faster row of another run, policy, label or variant, nor one that failed. (Row
 * numbers below are the file's lines less two: its header and counting from 0.) */
START_TEST(a_step_is_set_against_the_best_library_row_of_its_size_and_label)
{
    char path[600], err[256];
    struct csv_table t;
    ck_assert_int_eq(csv_read_file(fixture_path("vs-library/sort.csv", path, sizeof path), &t, err,
                                   sizeof err), 0);
    check_vs_library(&t, "sort", 2, 3, "0.80x of cub-keys (20% slower)");
    check_vs_library(&t, "sort", 7, 9, "0.85x of cub-keys-i64 (15% slower)");
    check_vs_library(&t, "sort", 10, 11, "1.25x of cub-pairs (25% faster)");
    check_vs_library(&t, "sort", 8, 9, "0.85x of cub-keys-i64 (15% slower)");
    check_vs_library(&t, "sort", 9, 9, "the target");
    check_vs_library(&t, "sort", 13, -1, "-"); /* no library row at 8192 */
    check_vs_library(&t, "sort", 14, 15, "-"); /* 08 failed at 2048: no speedup */
    struct vs_library against;
    vs_library_of_row(&t, 13, step_table_find("sort"), &against);
    ck_assert_str_eq(against.why, "no library row of this run at this size");
    vs_library_of_row(&t, 14, step_table_find("sort"), &against);
    ck_assert_str_eq(against.why, "this row failed");
    csv_free(&t);
    ck_assert_int_eq(csv_read_file(fixture_path("vs-library/spmv.csv", path, sizeof path), &t, err,
                                   sizeof err), 0);
    check_vs_library(&t, "spmv", 0, 1, "1.20x of cusparse (20% faster)");
    csv_free(&t);
}
END_TEST

/* The words: no arithmetic left to the reader, either way, far or near. */
START_TEST(vs_library_says_how_much_in_words)
{
    const struct {
        double speedup;
        const char *words;
    } cases[] = {
        {0.85, "0.85x of cub (15% slower)"},     {1.28, "1.28x of cub (28% faster)"},
        {0.998, "1.00x of cub (level with it)"}, {0.3125, "0.31x of cub (takes 3.2 times as long)"},
        {2.5, "2.50x of cub (2.5 times as fast)"}, {0.05, "0.05x of cub (takes 20.0 times as long)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char got[128];
        vs_library_words(cases[i].speedup, "cub", got, sizeof got);
        ck_assert_str_eq(got, cases[i].words);
    }
}
END_TEST

/* make run's summary of a run (vs_library_print_run), and bin/lab vs-library's: a
 * sweep's builds of one step each against the faster library row of the run, each
 * named by the -D words of its flags (tests/fixtures/vs-library/sort-sweep.csv: CUB
 * twice, the default build and one with two -D's; a row of another run left out). */
START_TEST(a_sweeps_builds_are_named_by_their_defines_against_the_library)
{
    char path[600], err[256], text[2048];
    struct csv_table t;
    ck_assert_int_eq(csv_read_file(fixture_path("vs-library/sort-sweep.csv", path, sizeof path), &t,
                                   err, sizeof err), 0);
    FILE *out = tmpfile();
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(vs_library_print_run(out, &t, step_table_find("sort"), "sweep"), 2);
    rewind(out);
    size_t len = fread(text, 1, sizeof text - 1, out);
    text[len] = '\0';
    fclose(out);
    csv_free(&t);
    const char *plain = strstr(text, "0.80x of cub-keys-i64 (20% slower)\n");
    const char *built = strstr(text, "1.25x of cub-keys-i64 (25% faster)  -DITEMS=19 -DEARLY_COUNTS=1\n");
    ck_assert_msg(plain != NULL && built != NULL && plain < built, "got:\n%s", text);
    ck_assert_msg(strstr(text, "SORT_CUB_COUNT") == NULL && strstr(text, "-DITEMS=20") == NULL,
                  "a library row or another run's row listed:\n%s", text);
}
END_TEST

Suite *results_suite(void)
{
    Suite *s = suite_create("results");
    TCase *tc = tcase_create("rows");
    tcase_add_test(tc, gpu_folder_names);
    tcase_add_test(tc, dates_are_utc_now_in_the_two_forms);
    tcase_add_test(tc, record_round_trips_through_csv);
    tcase_add_test(tc, lab_columns_follow_the_common_ones);
    tcase_add_test(tc, label_column_follows_the_lab_columns);
    tcase_add_test(tc, speedup_lookup_takes_newest_matching_pass);
    tcase_add_test(tc, a_row_is_compared_only_with_a_comparable_row);
    tcase_add_test(tc, a_build_variant_is_a_step_row_with_defines_never_a_library_row);
    tcase_add_test(tc, speedups_keep_two_digits);
    tcase_add_test(tc, cpu_row_shows_its_threads_only);
    tcase_add_test(tc, table_row_shows_limiter_and_speedups);
    tcase_add_test(tc, failed_row_shows_no_time);
    tcase_add_test(tc, a_lab_whose_rate_is_not_flops_has_no_gflops_column);
    tcase_add_test(tc, a_slow_rows_rate_is_not_shown_as_zero);
    tcase_add_test(tc, timed_runs_are_summarized_by_their_median);
    tcase_add_test(tc, a_step_is_set_against_the_best_library_row_of_its_size_and_label);
    tcase_add_test(tc, vs_library_says_how_much_in_words);
    tcase_add_test(tc, a_sweeps_builds_are_named_by_their_defines_against_the_library);
    suite_add_tcase(s, tc);
    return s;
}

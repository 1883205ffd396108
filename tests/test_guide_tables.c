/* bin/guide-tables: the documents' tables of recorded results (in every Markdown file
 * of the tree that marks one) are generated from the CSV, and make test fails when someone edits one or records new results without
 * regenerating them (this tree's guide and data). How it builds a table is tested on
 * made-up results of the demo lab, in the demo lab's own tree (tests/demo_lab_tree.h),
 * whose bin/guide-tables knows that lab alone: the newest fullest run, the rows beside
 * the steps, "vs previous", the grading runs, measured factors beside published
 * ones, a step against a row size by size, a step's build variants as a grid, and the
 * ceilings, a sweep and the steps against the ceilings (limits_tables.h). */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "demo_lab_tree.h"
#include "util.h"

static char out[1 << 15], err[1 << 14];

START_TEST(guide_tables_match_the_recorded_results)
{
    char tool[256];
    char *argv[] = {(char *)bin_path("guide-tables", tool, sizeof tool), "--check", NULL};
    int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "exit %d: %s", code, err);
}
END_TEST

static char *tree;
static char tree_out[1 << 14];

static void make_tree(void)
{
    char *targets[] = {"bin/guide-tables", NULL};
    tree = demo_lab_make_tree(targets, tree_out, sizeof tree_out);
}

static void remove_tree(void)
{
    demo_lab_remove_tree(&tree);
}

/* A folder of the tree for one test's inputs, with a GPU folder G in it. */
static void fresh_inputs(const char *name, char *dir, size_t len)
{
    ck_assert_msg(tree != NULL, "building the demo lab's tree failed:\n%s", tree_out);
    char gpu[700];
    snprintf(dir, len, "%s/%s", tree, name);
    snprintf(gpu, sizeof gpu, "%s/G", dir);
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    ck_assert_int_eq(mkdir(gpu, 0777), 0);
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    ck_assert_int_ge(fputs(text, f), 0);
    ck_assert_int_eq(fclose(f), 0);
}

/* dir/guide.md := mark_fmt with the absolute path of the fixture file (relative to the
 * tree's root) in place of its %s; that path in fixture (PATH_MAX bytes). */
static void write_guide_naming(const char *dir, const char *mark_fmt, const char *fixture_rel,
                               char *fixture)
{
    ck_assert_msg(realpath(fixture_rel, fixture) != NULL, "no fixture %s", fixture_rel);
    char guide[4600];
    snprintf(guide, sizeof guide, mark_fmt, fixture);
    write_text(dir, "guide.md", guide);
}

/* The tree's bin/guide-tables with args (NULL ended) and then dir/guide.md; the exit
 * code. dir/guide.md read back into *guide when guide is not NULL (the caller frees). */
static int guide_tables(const char *dir, char **guide, const char *arg, ...)
{
    char path[800];
    snprintf(path, sizeof path, "%s/guide.md", dir);
    char *args[16] = {"bin/guide-tables"};
    size_t n = 1;
    va_list list;
    va_start(list, arg);
    for (const char *a = arg; a != NULL && n + 2 < sizeof args / sizeof args[0]; a = va_arg(list, const char *))
        args[n++] = (char *)a;
    va_end(list);
    args[n++] = path;
    args[n] = NULL;
    int code = demo_lab_run(tree, NULL, args, out, sizeof out, err, sizeof err);
    if (guide != NULL) {
        *guide = util_read_file(path, NULL);
        ck_assert_ptr_nonnull(*guide);
    }
    return code;
}

#define HEADER RESULTS_HEADER
/* A demo row of run `run` at 64 x 64 x 64: step or row, role, median ms, GFLOP/s, verdict. */
#define ROW(run, step, role, median, gflops, verdict)                                              \
    DEMO_ROW("2026-11-23T10:00:00Z", run, "G", step, role, "flushed", "64", median, gflops, verdict)

/* The newest run only, in order, with the speedup over the step before; a row of a
 * library beside the steps is named with its role and compared with nothing before it,
 * and each row is set against it, in words, in a "vs library" column (the rule's cases:
 * tests/test_results.c). */
START_TEST(guide_tables_follow_the_csv)
{
    char dir[700];
    fresh_inputs("follow", dir, sizeof dir);
    write_text(dir, "G/demo.csv",
               HEADER "\n" ROW("old", "01-fill", "step", "9.0", "1", "PASS")
                   ROW("new", "01-fill", "step", "4.0", "2", "PASS")
                       ROW("new", "02-shared", "step", "2.0", "4", "PASS")
                           ROW("new", "vendor", "library", "1.0", "8", "PASS"));
    write_text(dir, "guide.md",
               "# Guide\n<!-- results-table demo G -->\nstale text\n<!-- end results-table -->\nend\n");
    ck_assert_int_eq(guide_tables(dir, NULL, "--check", "--results", dir, NULL), 1);
    ck_assert_int_eq(guide_tables(dir, NULL, "--results", dir, NULL), 0);
    char *text;
    ck_assert_int_eq(guide_tables(dir, &text, "--check", "--results", dir, NULL), 0);
    ck_assert_ptr_null(strstr(text, "stale text"));
    ck_assert_ptr_null(strstr(text, "9.000"));
    ck_assert_msg(strstr(text, "| 01-fill | 64³ | 32 | 1024 | 8 (threads) | 4.000 | 2.00 | - | "
                               "0.25x of vendor (takes 4.0 times as long) | PASS |") != NULL &&
                      strstr(text, "| 02-shared | 64³ | 32 | 1024 | 8 (threads) | 2.000 | 4.00 | 2.00x | "
                                   "0.50x of vendor (50% slower) | PASS |") != NULL &&
                      strstr(text, "| vendor (library) | 64³ | - | - | (library) | 1.000 | 8.00 | - | the target "
                                   "| PASS |") != NULL &&
                      strstr(text, "end\n") != NULL,
                  "%s", text);
    free(text);
}
END_TEST

/* LAB "grading": every recorded grading run of the GPU's throughput.csv, oldest first,
 * a run from before the per-phase columns with "-" in them; none recorded: exit 2. */
START_TEST(guide_tables_list_the_grading_runs)
{
    char dir[700], missing[800];
    fresh_inputs("grading", dir, sizeof dir);
    write_text(dir, "G/throughput.csv",
               "date,commit,gpu,lab,steps,submissions,grade_concurrency,total_s,reference_s,"
               "per_submission_s,points,max,build_wait_s,report_s,pool_s,speed_s\n"
               "2026-11-23T13:51:22Z,e98b018,G,demo,2,1,3,142.7,71,71.5,20,20,,,,\n"
               "2026-11-23T19:49:20Z,9851ca0aaaaa,G,demo,2,2,8,82.9,27.7,27.6,38,40,0.0,0.1,15.9,"
               "11.2\n");
    write_text(dir, "guide.md", "<!-- results-table grading G -->\nstale\n<!-- end results-table -->\n");
    char *text;
    ck_assert_int_eq(guide_tables(dir, &text, "--grading", dir, NULL), 0);
    ck_assert_ptr_null(strstr(text, "stale"));
    const char *old = strstr(text, "| e98b018 | demo (2) | 1 | 3 | off | 71.5 s | 71 s | - | - | 20 of 20 |");
    const char *now = strstr(text, "| 9851ca0 | demo (2) | 2 | 8 | off | 27.6 s | 27.7 s | 15.9 s | 11.2 s | 38 of 40 |");
    ck_assert_msg(old != NULL && now != NULL && old < now, "%s", text);
    free(text);
    /* a run graded in the sandbox says so; one from before the column was graded without */
    write_text(dir, "G/throughput.csv",
               "date,commit,gpu,lab,steps,submissions,grade_concurrency,total_s,reference_s,"
               "per_submission_s,points,max,build_wait_s,report_s,pool_s,speed_s,sandbox\n"
               "2026-11-29T01:57:56Z,e58b488,G,demo,2,1,8,53.6,26.8,26.8,20,20,0.0,5.9,9.2,10.9,"
               "bwrap\n");
    write_text(dir, "guide.md", "<!-- results-table grading G -->\nstale\n<!-- end results-table -->\n");
    ck_assert_int_eq(guide_tables(dir, &text, "--grading", dir, NULL), 0);
    ck_assert_msg(strstr(text, "| e58b488 | demo (2) | 1 | 8 | bwrap | 26.8 s |") != NULL, "%s", text);
    free(text);
    snprintf(missing, sizeof missing, "%s/none", dir);
    ck_assert_int_eq(guide_tables(dir, NULL, "--grading", missing, NULL), 2);
    ck_assert_ptr_nonnull(strstr(err, "throughput.csv"));
}
END_TEST

/* A lab's CPU rows and its own rate: each row named with its role and its threads, the
 * second CPU row against the first, step 01 against the first (the baseline) at the
 * same size, and step 02, at another size, against nothing. */
START_TEST(guide_tables_compare_step_01_with_the_cpu)
{
    char dir[700];
    fresh_inputs("cpu", dir, sizeof dir);
    const char *const row = "2026-11-23T10:00:00Z,r,abc,G,9.0,132,1980,13.0,13.0,13.0,demo,%s,%s,"
                            "solutions,,flushed,1,%s,1,1,5,%s,1,1,1,%s,0,0,0,%s,%s,%s,0,0,PASS,%s\n";
    char text[4096], line[512];
    snprintf(text, sizeof text, "%s,gbps\n", HEADER);
    snprintf(line, sizeof line, row, "cpu-fill", "cpu", "2048", "20.0", "0", "1", "0", "-", "0.4");
    strcat(text, line);
    snprintf(line, sizeof line, row, "cpu-fill-reverse", "cpu", "2048", "2.0", "0", "16", "0", "-", "4.1");
    strcat(text, line);
    snprintf(line, sizeof line, row, "01-fill", "step", "2048", "1000.0", "32", "1", "32", "blocks", "0.01");
    strcat(text, line);
    snprintf(line, sizeof line, row, "02-shared", "step", "131072", "30.0", "32", "256", "8", "threads",
             "17.5");
    strcat(text, line);
    write_text(dir, "G/demo.csv", text);
    write_text(dir, "guide.md", "<!-- results-table demo G -->\n<!-- end results-table -->\n");
    char *guide;
    ck_assert_int_eq(guide_tables(dir, &guide, "--results", dir, NULL), 0);
    ck_assert_msg(strstr(guide, "| step | size | regs | smem B | blocks/SM (limiter) | median ms | GFLOP/s | "
                                "GB/s | vs previous | check |") != NULL &&
                      strstr(guide, "| cpu-fill (cpu) | 2048 | - | - | (cpu, 1 thread) | 20.000 | 1.00 | "
                                    "0.4 | - | PASS |") != NULL &&
                      strstr(guide, "| cpu-fill-reverse (cpu) | 2048 | - | - | (cpu, 16 threads) | 2.000 | 1.00 | "
                                    "4.1 | 10.00x | PASS |") != NULL &&
                      strstr(guide, "| 01-fill | 2048 | 32 | 0 | 32 (blocks) | 1000.000 | 1.00 | "
                                    "0.0 | 0.02x | PASS |") != NULL &&
                      strstr(guide, "| 02-shared | 131072 | 32 | 0 | 8 (threads) | 30.000 | 1.00 | "
                                    "17.5 | - | PASS |") != NULL,
                  "%s", guide);
    free(guide);
}
END_TEST

/* <!-- published-speedups-table ... -->: every step of the newest fullest run with a
 * published factor over the step before it (metric speedup_vs_previous, order = the
 * step's number), its measured factor beside the published columns asked for; a step
 * the file has no factor for is left out, a failed step says FAIL, a column the file
 * lacks is refused. */
START_TEST(guide_tables_set_measured_factors_beside_published_ones)
{
    char dir[700];
    fresh_inputs("published", dir, sizeof dir);
    write_text(dir, "G/demo.csv",
               HEADER "\n" ROW("old", "01-fill", "step", "9.0", "1", "PASS")
                   ROW("old", "02-shared", "step", "1.0", "9", "PASS")
                       ROW("new", "01-fill", "step", "4.0", "2", "PASS")
                           ROW("new", "02-shared", "step", "2.0", "4", "PASS")
                               ROW("new", "cpu-fill", "cpu", "8.0", "1", "PASS"));
    write_text(dir, "papers.csv",
               "order,step,metric,old_gpu,new_gpu\n"
               "1,one,slowdown_vs_cpu,70,30\n"
               "2,two,speedup_vs_previous,0.8,1.5\n"
               "2,two,gflops,10,20\n");
    write_text(dir, "guide.md", "<!-- published-speedups-table demo G papers.csv new_gpu old_gpu -->\n"
                                "stale\n<!-- end results-table -->\n");
    char *text;
    ck_assert_int_eq(guide_tables(dir, &text, "--results", dir, "--published", dir, NULL), 0);
    ck_assert_msg(strstr(text, "| step | G, vs previous | published: new_gpu / old_gpu |\n|---|---|---|\n"
                               "| 02-shared | 2.00x | 1.5 / 0.8 |\n\nG, run `new` of 2026-11-23") != NULL &&
                      strstr(text, "01-fill") == NULL && strstr(text, "stale") == NULL &&
                      strstr(text, "the published factors from `") != NULL,
                  "%s", text);
    free(text);
    /* the run's step 02 failed: no factor is measured for it */
    write_text(dir, "G/demo.csv",
               HEADER "\n" ROW("new", "01-fill", "step", "4.0", "2", "PASS")
                   ROW("new", "02-shared", "step", "2.0", "4", "FAIL"));
    ck_assert_int_eq(guide_tables(dir, &text, "--results", dir, "--published", dir, NULL), 0);
    ck_assert_msg(strstr(text, "| 02-shared | FAIL | 1.5 / 0.8 |") != NULL, "%s", text);
    free(text);
    write_text(dir, "guide.md", "<!-- published-speedups-table demo G papers.csv cc99 -->\n"
                                "<!-- end results-table -->\n");
    ck_assert_int_eq(guide_tables(dir, NULL, "--results", dir, "--published", dir, NULL), 2);
    ck_assert_msg(strstr(err, "has no column 'cc99'") != NULL, "%s", err);
}
END_TEST

/* <!-- sizes-table LAB GPU-DIR STEP ROW -->: a step against a row size by size, from
 * the newest run in which both passed at two sizes (the older run is left out), a
 * failed row with no time, a size without the row left out; against ROW "library", the
 * fastest library row that passed at each size, named (a failed one never chosen); a
 * marker without its ROW is refused in one line. */
START_TEST(guide_tables_compare_a_step_with_a_row_by_size)
{
    char dir[700];
    fresh_inputs("sizes", dir, sizeof dir);
    const char *const row = "2026-11-23T10:00:00Z,%s,abc,G,9.0,132,1980,13.0,13.0,13.0,demo,%s,%s,"
                            "solutions,,warm,%s,%s,%s,1,5,%s,1,1,%s,32,2048,0,0,256,8,threads,"
                            "100,0,%s\n";
    const char *const rows[][9] = {
        {"old", "02-shared", "step", "64", "64", "64", "9.0", "1", "PASS"},
        {"old", "vendor", "library", "64", "64", "64", "1.0", "8", "PASS"},
        {"old", "02-shared", "step", "128", "128", "128", "9.0", "1", "PASS"},
        {"old", "vendor", "library", "128", "128", "128", "1.0", "8", "PASS"},
        {"new", "vendor", "library", "64", "64", "64", "1.0", "8", "PASS"},
        {"new", "02-shared", "step", "64", "64", "64", "2.0", "4", "PASS"},
        {"new", "02-shared", "step", "3", "5", "7", "1.0", "2", "PASS"},
        {"new", "vendor", "library", "3", "5", "7", "0.5", "4", "PASS"},
        {"new", "02-shared", "step", "256", "256", "256", "1.0", "2", "FAIL"},
        {"new", "vendor", "library", "256", "256", "256", "0.5", "4", "PASS"},
        {"new", "02-shared", "step", "512", "512", "512", "1.0", "2", "PASS"},
    };
    char text[8192], line[512];
    snprintf(text, sizeof text, "%s\n", HEADER);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        snprintf(line, sizeof line, row, rows[i][0], rows[i][1], rows[i][2], rows[i][3], rows[i][4],
                 rows[i][5], rows[i][6], rows[i][7], rows[i][8]);
        strcat(text, line);
    }
    write_text(dir, "G/demo.csv", text);
    write_text(dir, "guide.md", "<!-- sizes-table demo G 02-shared vendor -->\nstale\n"
                                "<!-- end results-table -->\n");
    char *got;
    ck_assert_int_eq(guide_tables(dir, &got, "--results", dir, NULL), 0);
    const char *first = strstr(got, "| 64³ | 2.000 | 1.000 | 4.00 | 8.00 | 0.50x |");
    const char *second = strstr(got, "| 3x5x7 | 1.000 | 0.500 | 2.00 | 4.00 | 0.50x |");
    ck_assert_msg(first != NULL && second != NULL && first < second, "%s", got);
    ck_assert_msg(strstr(got, "| 256³ | FAIL | 0.500 | - | 4.00 | - |") != NULL, "%s", got);
    ck_assert_msg(strstr(got, "9.000") == NULL && strstr(got, "512") == NULL &&
                      strstr(got, "stale") == NULL && strstr(got, "run `new`") != NULL,
                  "%s", got);
    free(got);
    /* against the library (ROW "library"): its fastest row that passed at each size,
     * named, and the step's speed against it in words (vs_library.h) */
    const char *const more[][9] = {
        {"new", "vendor-64", "library", "64", "64", "64", "0.5", "16", "PASS"},
        {"new", "vendor-64", "library", "3", "5", "7", "0.4", "5", "FAIL"},
        {"new", "vendor-64", "library", "256", "256", "256", "1.0", "2", "PASS"},
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; ++i) {
        snprintf(line, sizeof line, row, more[i][0], more[i][1], more[i][2], more[i][3], more[i][4],
                 more[i][5], more[i][6], more[i][7], more[i][8]);
        strcat(text, line);
    }
    write_text(dir, "G/demo.csv", text);
    write_text(dir, "guide.md", "<!-- sizes-table demo G 02-shared library -->\n"
                                "<!-- end results-table -->\n");
    ck_assert_int_eq(guide_tables(dir, &got, "--results", dir, NULL), 0);
    ck_assert_msg(strstr(got, "| size | 02-shared ms | best library ms | 02-shared GFLOP/s | "
                              "best library GFLOP/s | vs library |") != NULL, "%s", got);
    ck_assert_msg(strstr(got, "| 64³ | 2.000 | 0.500 | 4.00 | 16.0 | 0.25x of vendor-64 (takes 4.0 "
                              "times as long) |") != NULL, "%s", got);
    ck_assert_msg(strstr(got, "| 3x5x7 | 1.000 | 0.500 | 2.00 | 4.00 | 0.50x of vendor (50% slower) |") !=
                      NULL, "%s", got);
    ck_assert_msg(strstr(got, "| 256³ | FAIL | 0.500 | - | 4.00 | - |") != NULL, "%s", got);
    free(got);
    write_text(dir, "guide.md", "<!-- sizes-table demo G 02-shared -->\n<!-- end results-table -->\n");
    ck_assert_int_eq(guide_tables(dir, NULL, "--results", dir, NULL), 2);
    ck_assert_msg(strstr(err, "sizes-table LAB GPU-DIR STEP ROW") != NULL &&
                      strchr(err, '\n') == err + strlen(err) - 1,
                  "%s", err);
}
END_TEST

/* <!-- variants-table LAB GPU-DIR STEP VAR_ROWS VAR_COLS -->: a step's builds with
 * -DA=.. and -DB=.. as a grid, from the newest run in which one passed (not the older
 * run, nor a newer one with a failed build or without -DB), at the size of its last
 * such row: values in numeric order (10 after 2), a failed build FAIL, one the run did
 * not build "-", a row of another size, step or without the flags left out. A
 * variable no run built with, or an unknown step, is refused in one line, the file
 * left as it was; so is a marker short of a word. */
START_TEST(guide_tables_set_out_a_steps_build_variants)
{
    char dir[700];
    fresh_inputs("variants", dir, sizeof dir);
    const char *const row = "2026-11-23T10:00:00Z,%s,abc,G,9.0,132,1980,13.0,13.0,13.0,demo,%s,step,"
                            "solutions,-O3 -arch=sm_90%s,flushed,%s,%s,%s,1,5,1.0,1,1,%s,32,2048,0,0,"
                            "256,8,threads,100,0,%s\n";
    const char *const rows[][6] = {
        /* run, step, -D flags, size, GFLOP/s, verdict */
        {"old", "02-shared", " -DA=1 -DB=0", "64", "77", "PASS"},
        {"old", "02-shared", " -DA=3 -DB=0", "64", "78", "PASS"},
        {"new", "02-shared", " -DA=1 -DB=4", "128", "55", "PASS"},
        {"new", "02-shared", " -DA=1 -DB=0", "64", "11", "PASS"},
        {"new", "02-shared", " -DA=1 -DB=2", "64", "12", "PASS"},
        {"new", "02-shared", " -DA=10 -DB=0", "64", "21", "PASS"},
        {"new", "02-shared", " -DA=10 -DB=2", "64", "22", "FAIL"},
        {"new", "02-shared", " -DA=2 -DB=0", "64", "31", "PASS"},
        {"new", "01-fill", " -DA=1 -DB=6", "64", "56", "PASS"},
        {"new", "02-shared", "", "64", "57", "PASS"},
        {"later", "02-shared", " -DA=1", "64", "58", "PASS"},
        {"failed", "02-shared", " -DA=1 -DB=0", "64", "59", "FAIL"},
    };
    char text[8192], line[512];
    snprintf(text, sizeof text, "%s\n", HEADER);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        snprintf(line, sizeof line, row, rows[i][0], rows[i][1], rows[i][2], rows[i][3], rows[i][3],
                 rows[i][3], rows[i][4], rows[i][5]);
        strcat(text, line);
    }
    write_text(dir, "G/demo.csv", text);
    write_text(dir, "guide.md", "<!-- variants-table demo G 02-shared A B -->\nstale\n"
                                "<!-- end results-table -->\n");
    char *got;
    ck_assert_int_eq(guide_tables(dir, NULL, "--check", "--results", dir, NULL), 1);
    ck_assert_int_eq(guide_tables(dir, &got, "--results", dir, NULL), 0);
    ck_assert_msg(strstr(got, "<!-- variants-table demo G 02-shared A B -->\n"
                              "| A \\ B | 0 | 2 |\n"
                              "|---|---|---|\n"
                              "| 1 | 11.0 | 12.0 |\n"
                              "| 2 | 31.0 | - |\n"
                              "| 10 | 21.0 | FAIL |\n"
                              "\nGFLOP/s of 02-shared at 64³, a row per -DA and a column per -DB: ") != NULL,
                  "%s", got);
    ck_assert_msg(strstr(got, "run `new` of 2026-11-23 (commit abc, L2 flushed before each timed run)") !=
                          NULL &&
                      strstr(got, "; `make guide-tables` regenerates this table.\n"
                                  "<!-- end results-table -->\n") != NULL,
                  "%s", got);
    for (int left_out = 55; left_out <= 59; ++left_out) {
        char rate[16];
        snprintf(rate, sizeof rate, "| %d.0 ", left_out);
        ck_assert_msg(strstr(got, rate) == NULL, "%s in:\n%s", rate, got);
    }
    ck_assert_msg(strstr(got, "| 77") == NULL && strstr(got, "stale") == NULL, "%s", got);
    free(got);
    ck_assert_int_eq(guide_tables(dir, NULL, "--check", "--results", dir, NULL), 0);
    /* no run built with -DC, no step 09-none: one line, exit 2, the file as it was */
    const char *const refused[][2] = {
        {"<!-- variants-table demo G 02-shared A C -->\n<!-- end results-table -->\n",
         "no run in which 02-shared passed built with -DA= and -DC="},
        {"<!-- variants-table demo G 09-none A B -->\n<!-- end results-table -->\n",
         "no run in which 09-none passed built with -DA= and -DB="},
        {"<!-- variants-table demo G 02-shared A -->\n<!-- end results-table -->\n",
         "expected <!-- variants-table LAB GPU-DIR STEP VAR_ROWS VAR_COLS -->"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
        write_text(dir, "guide.md", refused[i][0]);
        ck_assert_int_eq(guide_tables(dir, &got, "--results", dir, NULL), 2);
        ck_assert_msg(strstr(err, refused[i][1]) != NULL && strchr(err, '\n') == err + strlen(err) - 1,
                      "%s", err);
        ck_assert_str_eq(got, refused[i][0]);
        free(got);
    }
}
END_TEST

/* The tables of what bounds a step (limits_tables.h): the measured ceilings; a sweep
 * of a step's build variants, fastest first with the failed build last; and a step
 * against a ceiling beside its profile (what limits it, its DRAM bytes over its time
 * against the copy), "not profiled" where no profile holds it; a bad mark, an unknown
 * step or a GPU without peaks.csv is one line and exit 2, the file as it was. */
START_TEST(guide_tables_set_steps_against_the_ceilings)
{
    char dir[700], sweep[800], guide[2400];
    fresh_inputs("limits", dir, sizeof dir);
    write_text(dir, "G/demo.csv",
               HEADER "\n" ROW("new", "01-fill", "step", "4.0", "2", "PASS")
                   ROW("new", "02-shared", "step", "2.0", "4", "PASS"));
    const char *const peaks_header =
        "date,commit,gpu,cc,sms,clock_mhz,driver,runtime,nvcc,quantity,value,unit,median_ms,"
        "repeats,per_sm_per_clock,method\n";
    char peaks[1024];
    snprintf(peaks, sizeof peaks,
             "%s2026-11-20T10:00:00Z,abc,G,9.0,132,1980,13.0,13.0,13.0,fp32_fma,9,GFLOP/s,1,11,100,old\n"
             "2026-11-23T10:00:00Z,abc,G,9.0,132,1980,13.0,13.0,13.0,dram_copy,4000,GB/s,1,11,10,a copy\n"
             "2026-11-23T10:00:00Z,abc,G,9.0,132,1980,13.0,13.0,13.0,fp32_fma,8,GFLOP/s,1,11,120,FMA chains\n",
             peaks_header);
    write_text(dir, "G/peaks.csv", peaks);
    /* 02-shared's profile: memory 70 %, SM 20 %, 2e9 DRAM bytes over 1 ms unprofiled */
    char profiles[800];
    snprintf(profiles, sizeof profiles, "%s/prof", dir);
    ck_assert_int_eq(mkdir(profiles, 0777), 0);
    snprintf(profiles, sizeof profiles, "%s/prof/G", dir);
    ck_assert_int_eq(mkdir(profiles, 0777), 0);
    write_text(profiles, "demo.csv",
               "date,run_id,commit,gpu,ncu,clock_control,lab,step,source,flags,nvcc,m,n,k,median_ms,"
               "kernel,launches,duration_ns,dram_pct,dram_bytes,l2_hit_pct,l1_pct,shared_pct,"
               "bank_conflicts,sm_pct,memory_pct,fma_pct,tensor_pct,occupancy_pct,theoretical_pct,"
               "instructions,fma_instructions,stall_1,stall_1_ratio,stall_2,stall_2_ratio,limited_by\n"
               "2026-11-23T11:00:00Z,p1,abc,G,2025.3,base,demo,02-shared,solutions,-O3,13.0,1,"
               "4096,1,1.0,fill,1,1500000,60,2000000000,50,30,10,0,20,70,5,0,80,100,1000,100,"
               "long_scoreboard,3.0,wait,1.0,memory\n");
    snprintf(sweep, sizeof sweep, "%s/sweep.csv", dir);
    const char *const row = "2026-11-23T10:00:00Z,%s,abc,G,9.0,132,1980,13.0,13.0,13.0,demo,02-shared,step,"
                            "solutions,-O3 -DA=%s -DB=%s,flushed,64,64,64,1,5,%s,1,1,%s,%s,2048,0,0,"
                            "256,%s,regs,100,0,%s\n";
    const char *const rows[][7] = {/* run, A, B, ms, GFLOP/s, regs, verdict */
                                   {"s1", "1", "2", "3.0", "5", "40", "PASS"},
                                   {"s2", "2", "4", "1.5", "9", "64", "FAIL"},
                                   {"s3", "4", "8", "2.0", "7", "72", "PASS"}};
    char text[4096], line[512];
    snprintf(text, sizeof text, "%s\n", HEADER);
    for (size_t i = 0; i < 3; ++i) {
        snprintf(line, sizeof line, row, rows[i][0], rows[i][1], rows[i][2], rows[i][3], rows[i][4],
                 rows[i][5], i == 2 ? "3" : "4", rows[i][6]);
        strcat(text, line);
    }
    write_text(dir, "sweep.csv", text);
    snprintf(guide, sizeof guide,
             "<!-- peaks-table G -->\n<!-- end results-table -->\n"
             "<!-- sweep-table demo %s A B -->\nstale\n<!-- end results-table -->\n"
             "<!-- limits-table demo G gflops fp32_fma 01 02 -->\n<!-- end results-table -->\n"
             "<!-- limits-table demo G gflops fp32_fma 64x64x64 02 -->\n<!-- end results-table -->\n",
             sweep);
    write_text(dir, "guide.md", guide);
    char *got;
    snprintf(profiles, sizeof profiles, "%s/prof", dir);
    ck_assert_int_eq(guide_tables(dir, NULL, "--check", "--results", dir, "--profiles", profiles, NULL), 1);
    ck_assert_int_eq(guide_tables(dir, &got, "--results", dir, "--profiles", profiles, NULL), 0);
    ck_assert_msg(strstr(got, "| `fp32_fma` | 8 GFLOP/s | 120 | FMA chains | 2026-11-23 |\n"
                              "| `dram_copy` | 4000 GB/s | 10 | a copy | 2026-11-23 |\n\nG (132 SMs at 1980 MHz)") !=
                          NULL &&
                      strstr(got, "old") == NULL,
                  "%s", got);
    ck_assert_msg(strstr(got, "| `A` | `B` | regs | blocks/SM (limiter) | median ms | GFLOP/s |\n"
                              "|---|---|---|---|---|---|\n"
                              "| 4 | 8 | 72 | 3 (regs) | 2.000 | 7.00 |\n"
                              "| 1 | 2 | 40 | 4 (regs) | 3.000 | 5.00 |\n"
                              "| 2 | 4 | 64 | 4 (regs) | FAIL | - |\n\n"
                              "G, 3 builds of 02-shared at 64 x 64 x 64") != NULL &&
                      strstr(got, "stale") == NULL,
                  "%s", got);
    ck_assert_msg(strstr(got, "| 01-fill | 64 x 64 x 64 | 4.000 | 2.00 | 25% | not profiled | - | - | - | - | - |\n"
                              "| 02-shared | 64 x 64 x 64 | 2.000 | 4.00 | 50% | memory | 20 | 70 | 2000 (50%) | "
                              "long_scoreboard | 1 x 4096 x 1 |\n") != NULL,
                  "%s", got);
    free(got);
    ck_assert_int_eq(guide_tables(dir, NULL, "--check", "--results", dir, "--profiles", profiles, NULL), 0);
    const char *const refused[][2] = {
        {"<!-- limits-table demo G gflops fp32_fma 09 -->\n<!-- end results-table -->\n",
         "lab demo has no step 09"},
        {"<!-- limits-table demo G gflops -->\n<!-- end results-table -->\n",
         "expected <!-- limits-table LAB GPU-DIR COLUMN CEILING [MxNxK...] STEP... -->"},
        {"<!-- limits-table demo G gflops fp32_fma 64x64x64 -->\n<!-- end results-table -->\n",
         "expected <!-- limits-table LAB GPU-DIR COLUMN CEILING [MxNxK...] STEP... -->"},
        {"<!-- limits-table demo G gflops fp32_fma 32x32x32 02 -->\n<!-- end results-table -->\n",
         "no passing run of solutions/demo at 32x32x32"},
        {"<!-- peaks-table H -->\n<!-- end results-table -->\n", "/H/peaks.csv"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
        write_text(dir, "guide.md", refused[i][0]);
        ck_assert_int_eq(guide_tables(dir, &got, "--results", dir, NULL), 2);
        ck_assert_msg(strstr(err, refused[i][1]) != NULL && strchr(err, '\n') == err + strlen(err) - 1,
                      "%s", err);
        ck_assert_str_eq(got, refused[i][0]);
        free(got);
    }
}
END_TEST

/* A pairs-table: a step against another at each size where both passed with the named
 * L2 policy, each its own newest row whatever run it is in (a failed, flushed or -D
 * row left out), smallest size first; a size only one of them ran is left out. */
/* A sweep that timed its library beside the builds (tests/fixtures/sweep-table/): the
 * library's rows are no builds; the fastest of them is the bar of a "vs" column, the
 * library's time over each build's; builds at two sizes beside a library are refused,
 * a ratio being of one size. */
START_TEST(guide_tables_set_a_sweep_against_its_library)
{
    char fixture[4096], dir[900];
    snprintf(dir, sizeof dir, "%s/sweep-lib", tree);
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    const char *const mark = "<!-- sweep-table demo %s A -->\n<!-- end results-table -->\n";
    write_guide_naming(dir, mark, "tests/fixtures/sweep-table/with-library.csv", fixture);
    char *got;
    ck_assert_int_eq(guide_tables(dir, &got, NULL), 0);
    ck_assert_msg(strstr(got, "| `A` | regs | blocks/SM (limiter) | median ms | GFLOP/s | vs lib |\n"
                              "|---|---|---|---|---|---|\n"
                              "| 1 | 40 | 4 (regs) | 2.000 | 4.00 | 0.50x |\n"
                              "| 2 | 40 | 4 (regs) | 4.000 | 2.00 | 0.25x |\n\n"
                              "G, 2 builds of 02-shared at 1 x 64 x 1") != NULL &&
                      strstr(got, "the bar is the fastest of its lib rows in the same run (1.000 ms)") != NULL,
                  "%s", got);
    free(got);
    write_guide_naming(dir, mark, "tests/fixtures/sweep-table/library-two-sizes.csv", fixture);
    ck_assert_int_eq(guide_tables(dir, NULL, NULL), 2);
    ck_assert_msg(strstr(err, "a sweep-table is of one size") != NULL, "%s%s", out, err);
}
END_TEST

/* A clocks table (make clocks' rows, tests/fixtures/clocks/clocks.csv): the rows whose
 * label starts with the mark's prefix and whose command holds its words in a row, of
 * the newest commit that recorded any, in the order they ran; a malformed mark, a file
 * that is not bin/clocks' and a mark no row matches each stop the run in one line. */
START_TEST(guide_tables_show_the_clocks_steps_sustained)
{
    char fixture[4096], dir[900], guide[4600];
    snprintf(dir, sizeof dir, "%s/clocks", tree);
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    write_guide_naming(dir, "<!-- clocks-table %s demo/ --n 64 -->\nstale\n<!-- end results-table -->\n",
                       "tests/fixtures/clocks/clocks.csv", fixture);
    char *got;
    ck_assert_int_eq(guide_tables(dir, &got, NULL), 0);
    ck_assert_msg(strstr(got, "|---|---:|---:|---|---:|---:|---:|---|---:|\n"
                              "| demo/02-shared | 1500 | 1510 | 1400 to 1600 | 76% | 640.5 | 700 | power cap | 80 |\n"
                              "| demo/lib | 1600 | 1605 | 1500 to 1700 | 81% | 630.0 | 700 | power cap, thermal (software) | 85 |\n"
                              "\nG, `make clocks`") != NULL,
                  "%s", got);
    ck_assert_msg(strstr(got, "recorded 2026-11-30 (commit new222)") != NULL &&
                      strstr(got, "a sample is busy at a utilization of 90% or more") != NULL &&
                      strstr(got, "stale") == NULL,
                  "%s", got);
    free(got);
    const char *const refused[][2] = {
        {"<!-- clocks-table %s -->", "expected <!-- clocks-table FILE.csv LABEL-PREFIX [WORD...] -->"},
        {"<!-- clocks-table %s nothing/ -->", "no row whose label starts with nothing/"},
        {"<!-- clocks-table %s demo/ --n 65 -->", "no row whose label starts with demo/ and whose command holds"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
        char mark[4400];
        snprintf(mark, sizeof mark, refused[i][0], fixture);
        snprintf(guide, sizeof guide, "%s\n<!-- end results-table -->\n", mark);
        write_text(dir, "guide.md", guide);
        ck_assert_int_eq(guide_tables(dir, NULL, NULL), 2);
        ck_assert_msg(strstr(err, refused[i][1]) != NULL, "case %zu: %s", i, err);
    }
    /* a results CSV is not bin/clocks' */
    write_guide_naming(dir, "<!-- clocks-table %s demo/ -->\n<!-- end results-table -->\n",
                       "tests/fixtures/sweep-table/with-library.csv", fixture);
    ck_assert_int_eq(guide_tables(dir, NULL, NULL), 2);
    ck_assert_msg(strstr(err, "not a file of bin/clocks' rows") != NULL, "%s", err);
}
END_TEST

START_TEST(guide_tables_set_two_steps_side_by_side_across_runs)
{
    char dir[700];
    fresh_inputs("pairs", dir, sizeof dir);
    const char *const row = "2026-11-2%sT10:00:00Z,%s,abc,G,9.0,132,1980,13.0,13.0,13.0,demo,%s,step,"
                            "solutions,-O3%s,%s,1,%s,1,1,5,%s,1,1,%s,32,2048,0,0,256,8,threads,100,0,%s\n";
    const char *const rows[][8] = {
        /* day, run, step, flags, cache, n, ms, GFLOP/s (verdict PASS unless 9th) */
        {"1", "a", "01-fill", "", "warm", "2048", "4.0", "10"},
        {"1", "b", "02-shared", "", "warm", "2048", "2.0", "20"},
        {"2", "c", "01-fill", "", "warm", "1024", "3.0", "5"},
        {"2", "d", "02-shared", "", "warm", "1024", "1.0", "15"},
        {"3", "e", "02-shared", "", "flushed", "1024", "0.5", "30"},
        {"3", "f", "02-shared", " -DX=1", "warm", "1024", "0.25", "60"},
        {"3", "g", "01-fill", "", "warm", "4096", "8.0", "10"},
    };
    char text[8192], line[512];
    snprintf(text, sizeof text, "%s\n", HEADER);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        snprintf(line, sizeof line, row, rows[i][0], rows[i][1], rows[i][2], rows[i][3], rows[i][4], rows[i][5],
                 rows[i][6], rows[i][7], "PASS");
        strcat(text, line);
    }
    snprintf(line, sizeof line, row, "4", "h", "02-shared", "", "warm", "2048", "0.1", "99", "FAIL");
    strcat(text, line);
    write_text(dir, "G/demo.csv", text);
    write_text(dir, "guide.md", "<!-- pairs-table demo G warm 01 02 -->\n<!-- end results-table -->\n");
    char *got;
    ck_assert_int_eq(guide_tables(dir, &got, "--results", dir, NULL), 0);
    ck_assert_msg(strstr(got, "|---|---:|---:|---:|---:|---:|---|\n"
                              "| 1 x 1024 x 1 | 3.0000 | 5.00 | 1.0000 | 15.0 | 3.00x | `c`, `d` |\n"
                              "| 1 x 2048 x 1 | 4.0000 | 10.0 | 2.0000 | 20.0 | 2.00x | `a`, `b` |\n\n"
                              "G, each size's newest passing row of 01-fill and of 02-shared with the L2 "
                              "not flushed before each timed run (not a build variant), recorded 2026-11-21 "
                              "to 2026-11-22") != NULL,
                  "%s", got);
    free(got);
    write_text(dir, "guide.md", "<!-- pairs-table demo G cold 01 02 -->\n<!-- end results-table -->\n");
    ck_assert_int_eq(guide_tables(dir, NULL, "--results", dir, NULL), 2);
    ck_assert_msg(strstr(err, "cache 'cold': warm or flushed") != NULL, "%s", err);
}
END_TEST

/* A table whose run is older than the code of one of its step files is flagged, in
 * one line on stderr naming the file, without changing the exit status; a change to
 * comments alone (a step header) is not flagged, nor is anything where git cannot
 * tell (no repository). Run in a git repository of its own holding the demo lab's
 * solutions. */
START_TEST(guide_tables_flag_a_run_older_than_its_step_files)
{
    char dir[700];
    fresh_inputs("stale", dir, sizeof dir);
    write_text(dir, "G/demo.csv",
               HEADER "\n" ROW("new", "01-fill", "step", "4.0", "2", "PASS")
                   ROW("new", "02-shared", "step", "2.0", "4", "PASS"));
    write_text(dir, "guide.md", "<!-- results-table demo G -->\n<!-- end results-table -->\n");
    char tool[800], command[4096];
    snprintf(tool, sizeof tool, "%s/bin/guide-tables", tree);
    /* no repository: nothing to flag */
    snprintf(command, sizeof command, "cd '%s' && GIT_CEILING_DIRECTORIES='%s' '%s' --results . guide.md",
             dir, tree, tool);
    int code = util_run_shell(command, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0 && strstr(err, "flagged") == NULL, "exit %d: %s", code, err);
    /* the run at the first commit; then a comment changes in 01, code in 02 */
    snprintf(command, sizeof command,
             "cd '%s' && git init -q && git config user.email t@example.org && git config user.name t && "
             "mkdir -p solutions/demo && printf 'int a;\\n' > solutions/demo/01-fill.cu && "
             "printf 'int b;\\n' > solutions/demo/02-shared.cu && git add solutions && "
             "git commit -qm run && run=$(git rev-parse HEAD) && "
             "sed \"s/abc1234/$run/\" G/demo.csv > G/x && mv G/x G/demo.csv && "
             "printf '/* Step 01.\\n * Guide: x\\n */\\nint a;\\n' > solutions/demo/01-fill.cu && "
             "git commit -qam header && '%s' --results . guide.md && echo CLEAN >&2 && "
             "printf 'int b = 2;\\n' > solutions/demo/02-shared.cu && git commit -qam code && "
             "'%s' --results . --check guide.md",
             dir, tool, tool);
    code = util_run_shell(command, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "exit %d: %s", code, err);
    const char *clean = strstr(err, "CLEAN");
    ck_assert_msg(clean != NULL, "%s", err);
    ck_assert_msg(strstr(err, "flagged") > clean, "a comment's change was flagged, or code's was not:\n%s", err);
    ck_assert_msg(strstr(err, "guide.md:1: flagged: run `new`") != NULL &&
                      strstr(err, "older than the code of 1 of its step files, solutions/demo/02-shared.cu;") !=
                          NULL,
                  "%s", err);
}
END_TEST

Suite *guide_tables_suite(void)
{
    Suite *s = suite_create("guide_tables");
    TCase *tc = tcase_create("this tree's guide");
    /* about 2 s alone; at Check's default 4 s it ran out on a GPU machine's make test,
     * sixteen jobs beside it */
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, guide_tables_match_the_recorded_results);
    suite_add_tcase(s, tc);
    tc = tcase_create("the demo lab's tables");
    tcase_set_timeout(tc, 120); /* a copy of the harness, bin/guide-tables built */
    tcase_add_unchecked_fixture(tc, make_tree, remove_tree);
    tcase_add_test(tc, guide_tables_follow_the_csv);
    tcase_add_test(tc, guide_tables_list_the_grading_runs);
    tcase_add_test(tc, guide_tables_compare_step_01_with_the_cpu);
    tcase_add_test(tc, guide_tables_set_measured_factors_beside_published_ones);
    tcase_add_test(tc, guide_tables_compare_a_step_with_a_row_by_size);
    tcase_add_test(tc, guide_tables_set_out_a_steps_build_variants);
    tcase_add_test(tc, guide_tables_flag_a_run_older_than_its_step_files);
    tcase_add_test(tc, guide_tables_set_steps_against_the_ceilings);
    tcase_add_test(tc, guide_tables_set_two_steps_side_by_side_across_runs);
    tcase_add_test(tc, guide_tables_set_a_sweep_against_its_library);
    tcase_add_test(tc, guide_tables_show_the_clocks_steps_sustained);
    suite_add_tcase(s, tc);
    return s;
}

/* make plots, on the demo lab in its own tree (tests/demo_lab_tree.h): a lab's figures
 * come from its own folder (its plots/plots.mk); every results folder gets its figure,
 * whatever its name holds (blanks, parentheses, a quote); a bad row is named once and
 * the rest drawn; a figure whose data is gone is removed and said so. Needs gnuplot:
 * without it each case is listed as SKIPPED. Each lab's own figure scripts are tested
 * in its suite (harness/labs/<lab>/tests/test_<lab>_plots.c). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demo_lab_tree.h"
#include "util.h"

static char *tree;
static char tree_out[1 << 14];

static void make_tree(void)
{
    char *targets[] = {"bin/demo/cpu-fill", "bin/results-check", NULL};
    tree = demo_lab_make_tree(targets, tree_out, sizeof tree_out);
}

static void remove_tree(void)
{
    demo_lab_remove_tree(&tree);
}

static char out[1 << 15], err[1 << 14];

/* TREE/name/relative */
static const char *in_case(const char *name, const char *relative, char *buf, size_t len)
{
    ck_assert_msg(tree != NULL, "building the throwaway lab failed:\n%s", tree_out);
    snprintf(buf, len, "%s/%s/%s", tree, name, relative);
    return buf;
}

/* Makes the folders of path below the tree. */
static void make_parents(char *path)
{
    for (char *p = path + strlen(tree) + 1; *p != '\0'; ++p)
        if (*p == '/') {
            *p = '\0';
            ck_assert_msg(mkdir(path, 0777) == 0 || errno == EEXIST, "mkdir %s", path);
            *p = '/';
        }
}

/* Writes text to TREE/name/relative, making its folders. */
static void write_file(const char *name, const char *relative, const char *text)
{
    char path[2048];
    make_parents((char *)in_case(name, relative, path, sizeof path));
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* make plots in the tree from TREE/name/results into TREE/name/plots; the exit code. */
static int make_plots(const char *name)
{
    char results[2048], into[2048];
    in_case(name, "results", results, sizeof results);
    snprintf(into, sizeof into, "%s/%s", tree, name);
    return util_make_plots(tree, "plots", results, into, NULL, out, sizeof out, err, sizeof err);
}

/* TREE/name/plots/demo/<figure>.png is drawn, and its slides/<figure>.svg. */
static void assert_drawn(const char *name, const char *figure)
{
    char into[2048], missing[256];
    const char *const figures[] = {figure, NULL};
    snprintf(into, sizeof into, "%s/%s", tree, name);
    util_first_not_drawn(into, "demo", figures, missing, sizeof missing);
    ck_assert_msg(missing[0] == '\0', "%s/plots/demo/%s was not drawn, PNG and SVG:\n%s%s", into, figure,
                  out, err);
}

/* The lab's figures come from its own plots.mk: with the CPU row alone there is no
 * step to draw, said in one line; with a step row beside it (the one step 01 would
 * record on a GPU, tests/fixtures/demo-lab-tree/gpu-row.sh) the steps figure is drawn,
 * PNG and SVG. */
START_TEST(make_plots_draws_the_lab_s_figures_from_its_folder)
{
    char csv[2048], png[2048];
    make_parents((char *)in_case("own", "results/cpu-only/demo.csv", csv, sizeof csv));
    char *row[] = {"bin/demo/cpu-fill", "--csv", csv, NULL};
    const char *no_gpu[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    int code = demo_lab_run(tree, no_gpu, row, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "bin/demo/cpu-fill with no GPU exited %d:\n%s%s", code, out, err);
    in_case("own", "plots/demo/steps-cpu-only.png", png, sizeof png);
    code = make_plots("own");
    ck_assert_msg(code == 0, "make plots exited %d:\n%s%s", code, out, err);
    ck_assert_msg(strstr(err, "plots: cpu-only has no demo step rows") != NULL &&
                      strstr(err, "steps-cpu-only.png not drawn") != NULL,
                  "make plots with no step row:\n%s%s", out, err);
    ck_assert_int_eq(access(png, F_OK), -1);
    char *argv[] = {"/bin/sh", "tests/fixtures/demo-lab-tree/gpu-row.sh", csv, NULL};
    ck_assert_int_eq(run_capture(argv, NULL, out, sizeof out, err, sizeof err), 0);
    code = make_plots("own");
    ck_assert_msg(code == 0, "make plots exited %d:\n%s%s", code, out, err);
    ck_assert_msg(strstr(out, "  PLOT     ") != NULL && strstr(out, "/plots/demo/steps-cpu-only.png\n") != NULL,
                  "make plots:\n%s%s", out, err);
    ck_assert_msg(err[0] == '\0', "make plots said:\n%s", err);
    assert_drawn("own", "steps-cpu-only");
}
END_TEST

/* A sound row of the demo lab: date, run, gpu, step, role, rate and verdict vary. */
#define ROW(date, run, gpu, step, role, gflops, verdict)                                           \
    DEMO_ROW(date, run, gpu, step, role, "flushed", "4096", "2.0", gflops, verdict)
#define RUN1(verdict2)                                                                             \
    ROW("2026-11-23T04:00:00Z", "r1", "Test GPU", "01-fill", "step", "1443.6", "PASS")            \
    ROW("2026-11-23T04:00:01Z", "r1", "Test GPU", "02-shared", "step", "3607.3", verdict2)         \
    ROW("2026-11-23T04:00:02Z", "r1", "Test GPU", "cpu-fill", "cpu", "50", "PASS")

/* Two GPUs, one in a folder with blanks, parentheses and a quote, one FAIL step and one
 * bad row: each GPU's figure is drawn, the bad row is named once; stdout holds one PLOT
 * line per figure (PNG; its SVG is silent), stderr the skipped row and nothing else. */
START_TEST(make_plots_draws_every_figure_from_a_small_results_tree)
{
    write_file("two", "results/GPU A (it's mine)/demo.csv", RESULTS_HEADER "\n" RUN1("FAIL"));
    write_file("two", "results/B/demo.csv",
               RESULTS_HEADER "\n" RUN1("PASS") ROW("2026-11-23T05:00:00Z", "r2", "G", "01-fill", "step",
                                                    "1", "MAYBE"));
    int code = make_plots("two");
    ck_assert_msg(code == 0, "make plots exited %d:\n%s%s", code, out, err);
    assert_drawn("two", "steps-GPU_A__it_s_mine_");
    assert_drawn("two", "steps-B");
    char line[2048];
    in_case("two", "results/B/demo.csv:5: verdict 'MAYBE' is neither PASS nor FAIL: row skipped\n", line,
            sizeof line);
    ck_assert_msg(strstr(err, line) != NULL, "expected '%s' in:\n%s", line, err);
    ck_assert_int_eq(count_lines(err), 1);
    int plotted = 0;
    for (const char *at = out; (at = strstr(at, "  PLOT     ")) != NULL; ++at)
        ++plotted;
    ck_assert_msg(plotted == 2 && count_lines(out) == 2, "%s", out);
}
END_TEST

/* A results file emptied (or removed) after its figures were drawn: make plots
 * removes them, PNG and SVG, and says so in one line; and that the lab has no results
 * now, in another. */
START_TEST(a_figure_whose_data_is_gone_is_removed)
{
    write_file("gone", "results/G/demo.csv", RESULTS_HEADER "\n" RUN1("PASS"));
    int code = make_plots("gone");
    ck_assert_msg(code == 0, "make plots exited %d:\n%s%s", code, out, err);
    assert_drawn("gone", "steps-G");
    write_file("gone", "results/G/demo.csv", "");
    code = make_plots("gone");
    ck_assert_msg(code == 0, "make plots exited %d:\n%s%s", code, out, err);
    char path[2048], line[2200];
    ck_assert_msg(access(in_case("gone", "plots/demo/steps-G.png", path, sizeof path), F_OK) != 0,
                  "steps-G.png is still there:\n%s%s", out, err);
    ck_assert_msg(access(in_case("gone", "plots/demo/slides/steps-G.svg", path, sizeof path), F_OK) != 0,
                  "slides/steps-G.svg is still there");
    snprintf(line, sizeof line, "plots: removed from %s, as no data draws them now: ",
             in_case("gone", "plots/demo", path, sizeof path));
    const char *said = strstr(out, line);
    ck_assert_msg(said != NULL, "expected '%s' in:\n%s", line, out);
    snprintf(line, sizeof line, "%.*s", (int)strcspn(said, "\n"), said);
    ck_assert_msg(strstr(line, " steps-G.png") != NULL, "%s", out);
    /* and a lab left without results says so, once */
    const char *none = strstr(out, "plots: no demo results in ");
    ck_assert_msg(none != NULL && strstr(none + 1, "plots: no demo results in ") == NULL, "%s", out);
}
END_TEST

/* A results file that cannot be read (its header line gone) is not a file with no
 * data: make plots stops before any figure (none drawn, none removed), with the file's
 * `file:1: reason` once and exit 2. */
START_TEST(an_unreadable_results_file_keeps_the_figures_and_fails)
{
    write_file("unread", "results/G/demo.csv", RESULTS_HEADER "\n" RUN1("PASS"));
    int code = make_plots("unread");
    ck_assert_msg(code == 0, "make plots exited %d:\n%s%s", code, out, err);
    assert_drawn("unread", "steps-G");
    write_file("unread", "results/G/demo.csv", RUN1("PASS"));
    code = make_plots("unread");
    ck_assert_msg(code == 2, "make plots exited %d on an unreadable file:\n%s%s", code, out, err);
    assert_drawn("unread", "steps-G");
    char line[2048];
    in_case("unread", "results/G/demo.csv:1: column 1 is '2026-11-23T04:00:00Z', not 'date'", line,
            sizeof line);
    const char *first = strstr(err, line);
    ck_assert_msg(first != NULL && strstr(first + 1, line) == NULL, "expected '%s' once in:\n%s",
                  line, err);
    ck_assert_msg(strstr(out, "PLOT") == NULL && strstr(out, "removed from") == NULL, "%s%s", out,
                  err);
}
END_TEST

static const char *const case_names[] = {
    "make plots draws the demo lab's figures from its own folder",
    "make plots draws every figure from a small results tree",
    "a figure whose data is gone is removed, said in one line",
    "an unreadable results file keeps the figures, and make plots fails",
};

size_t demo_lab_plots_case_names(const char **names, size_t max)
{
    return UTIL_CASE_NAMES(case_names, names, max);
}

Suite *demo_lab_plots_suite(void)
{
    Suite *s = suite_create("demo_lab_plots");
    TCase *tc = tcase_create("plots of a lab that is one folder");
    tcase_add_unchecked_fixture(tc, make_tree, remove_tree);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, make_plots_draws_the_lab_s_figures_from_its_folder);
    tcase_add_test(tc, make_plots_draws_every_figure_from_a_small_results_tree);
    tcase_add_test(tc, a_figure_whose_data_is_gone_is_removed);
    tcase_add_test(tc, an_unreadable_results_file_keeps_the_figures_and_fails);
    suite_add_tcase(s, tc);
    return s;
}

/* The matmul lab's figures (its plots/plots.mk and scripts): `make plots-matmul` draws
 * every one of them, PNG and SVG for slides, from a small results tree of two GPUs,
 * one in a folder whose name holds blanks, parentheses and a quote
 * (harness/labs/matmul/tests/fixtures/plots); and the figure of the papers' 8800 GTX
 * numbers with no results at all. Needs gnuplot: without it each case is listed as
 * SKIPPED. How make plots draws and removes a lab's figures: tests/test_demo_lab_plots.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

#define FIXTURE "harness/labs/matmul/tests/fixtures/plots/results"

static char out[1 << 16], err[1 << 16];

START_TEST(every_matmul_figure_is_drawn_from_the_fixture)
{
    char *into = util_temp_dir("matmul-plots");
    ck_assert_ptr_nonnull(into);
    const char *gpus[] = {"GPUS=Test-GPU", NULL};
    int code = util_make_plots(NULL, "plots-matmul", FIXTURE, into, gpus, out, sizeof out, err, sizeof err);
    static const char *const figures[] = {
        "8800gtx", "normalized", "compare", "steps-Test-GPU", "roofline-Test-GPU", "speedups-Test-GPU",
        "sizes-Test-GPU", "tiles-Test-GPU", "vs-8800gtx-Test-GPU", "steps-Old_GPU__it_s_slow_",
        "roofline-Old_GPU__it_s_slow_", "tiles-Old_GPU__it_s_slow_", NULL};
    char missing[256];
    util_first_not_drawn(into, "matmul", figures, missing, sizeof missing);
    util_remove_tree(into); /* before an assertion ends this process */
    free(into);
    ck_assert_msg(code == 0, "make plots-matmul exited %d:\n%s%s", code, out, err);
    ck_assert_msg(missing[0] == '\0', "%s was not drawn, PNG and SVG:\n%s%s", missing, out, err);
    ck_assert_msg(err[0] == '\0', "make plots-matmul said:\n%s", err);
}
END_TEST

/* The papers' numbers (data/published) need no results: with none, that figure alone. */
START_TEST(the_papers_figure_needs_no_results)
{
    char *into = util_temp_dir("matmul-plots");
    ck_assert_ptr_nonnull(into);
    char empty[1024];
    snprintf(empty, sizeof empty, "%s/results", into);
    ck_assert_int_eq(mkdir(empty, 0700), 0);
    int code = util_make_plots(NULL, "plots-matmul", empty, into, NULL, out, sizeof out, err, sizeof err);
    char png[1024], steps[1024];
    snprintf(png, sizeof png, "%s/plots/matmul/8800gtx.png", into);
    snprintf(steps, sizeof steps, "%s/plots/matmul/steps-Test-GPU.png", into);
    int drawn = util_is_png(png, 5000), others = util_is_png(steps, 0);
    util_remove_tree(into);
    free(into);
    ck_assert_msg(code == 0 && drawn && !others, "make plots-matmul exited %d:\n%s%s", code, out, err);
}
END_TEST

static const char *const case_names[] = {
    "every matmul figure is drawn, PNG and SVG, from its fixture's results",
    "the figure of the papers' numbers needs no results",
};

size_t matmul_plots_case_names(const char **names, size_t max)
{
    size_t n = 0;
    for (; n < sizeof case_names / sizeof case_names[0] && n < max; ++n)
        names[n] = case_names[n];
    return n;
}

Suite *matmul_plots_suite(void)
{
    Suite *s = suite_create("matmul_plots");
    TCase *tc = tcase_create("gnuplot");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, every_matmul_figure_is_drawn_from_the_fixture);
    tcase_add_test(tc, the_papers_figure_needs_no_results);
    suite_add_tcase(s, tc);
    return s;
}

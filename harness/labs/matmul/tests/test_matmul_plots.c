/* The matmul lab's figures (its plots/plots.mk and scripts): `make plots-matmul` draws
 * every one of them, PNG and SVG for slides, from a small results tree of two GPUs,
 * one in a folder whose name holds blanks, parentheses and a quote
 * (harness/labs/matmul/tests/fixtures/plots); and the figure of the papers' 8800 GTX
 * numbers with no results at all. Needs gnuplot: without it each case is listed as
 * SKIPPED. How make plots draws and removes a lab's figures: tests/test_demo_lab_plots.c. */
#include <check.h>

#include "util.h"

START_TEST(every_matmul_figure_is_drawn_from_the_fixture)
{
    static const char *const figures[] = {
        "8800gtx", "normalized", "compare", "steps-Test-GPU", "roofline-Test-GPU", "speedups-Test-GPU",
        "sizes-Test-GPU", "tiles-Test-GPU", "vs-8800gtx-Test-GPU", "steps-Old_GPU__it_s_slow_",
        "roofline-Old_GPU__it_s_slow_", "tiles-Old_GPU__it_s_slow_", NULL};
    const char *gpus[] = {"GPUS=Test-GPU", NULL};
    static char why[1 << 17];
    ck_assert_msg(util_lab_figures_drawn("matmul", "harness/labs/matmul/tests/fixtures/plots/results", gpus,
                                         figures, why, sizeof why) == 0,
                  "%s", why);
}
END_TEST

/* The papers' numbers (data/published) need no results. */
START_TEST(the_papers_figure_needs_no_results)
{
    static const char *const figures[] = {"8800gtx", NULL};
    static char why[1 << 17];
    ck_assert_msg(util_lab_figures_drawn("matmul", "harness/labs/matmul/tests/fixtures/plots/none", NULL,
                                         figures, why, sizeof why) == 0,
                  "%s", why);
}
END_TEST

static const char *const case_names[] = {
    "every matmul figure is drawn, PNG and SVG, from its fixture's results",
    "the figure of the papers' numbers needs no results",
};

size_t matmul_plots_case_names(const char **names, size_t max)
{
    return UTIL_CASE_NAMES(case_names, names, max);
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

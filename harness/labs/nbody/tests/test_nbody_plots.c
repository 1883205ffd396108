/* The N-body lab's figures (its plots/plots.mk and scripts): `make plots-nbody` draws
 * every one of them, PNG and SVG for slides, from a small results tree of one GPU
 * with a size sweep and the CPU rows (harness/labs/nbody/tests/fixtures/plots), and
 * Burtscher's published speedups from data/published. Needs gnuplot: without it each
 * case is listed as SKIPPED. How make plots draws and removes a lab's figures:
 * tests/test_demo_lab_plots.c. */
#include <check.h>

#include "util.h"

START_TEST(every_nbody_figure_is_drawn_from_the_fixture)
{
    static const char *const figures[] = {"burtscher-speedups", "steps-Test-GPU", "roofline-Test-GPU",
                                          "speedups-Test-GPU", "sizes-Test-GPU", "vs-cpu-Test-GPU", NULL};
    static char why[1 << 17];
    ck_assert_msg(util_lab_figures_drawn("nbody", "harness/labs/nbody/tests/fixtures/plots/results", NULL,
                                         figures, why, sizeof why) == 0,
                  "%s", why);
}
END_TEST

static const char *const case_names[] = {
    "every N-body figure is drawn, PNG and SVG, from its fixture's results",
};

size_t nbody_plots_case_names(const char **names, size_t max)
{
    return UTIL_CASE_NAMES(case_names, names, max);
}

Suite *nbody_plots_suite(void)
{
    Suite *s = suite_create("nbody_plots");
    TCase *tc = tcase_create("gnuplot");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, every_nbody_figure_is_drawn_from_the_fixture);
    suite_add_tcase(s, tc);
    return s;
}

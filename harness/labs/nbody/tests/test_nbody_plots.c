/* The N-body lab's figures (its plots/plots.mk and scripts): `make plots-nbody` draws
 * every one of them, PNG and SVG for slides, from a small results tree of one GPU
 * with a size sweep and the CPU rows (harness/labs/nbody/tests/fixtures/plots), and
 * Burtscher's published speedups from data/published. Needs gnuplot: without it each
 * case is listed as SKIPPED. How make plots draws and removes a lab's figures:
 * tests/test_demo_lab_plots.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

#define FIXTURE "harness/labs/nbody/tests/fixtures/plots/results"

static char out[1 << 16], err[1 << 16];

START_TEST(every_nbody_figure_is_drawn_from_the_fixture)
{
    char *into = util_temp_dir("nbody-plots");
    ck_assert_ptr_nonnull(into);
    int code = util_make_plots(NULL, "plots-nbody", FIXTURE, into, NULL, out, sizeof out, err, sizeof err);
    static const char *const figures[] = {"burtscher-speedups", "steps-Test-GPU", "roofline-Test-GPU",
                                          "speedups-Test-GPU", "sizes-Test-GPU", "vs-cpu-Test-GPU", NULL};
    char missing[256];
    util_first_not_drawn(into, "nbody", figures, missing, sizeof missing);
    util_remove_tree(into); /* before an assertion ends this process */
    free(into);
    ck_assert_msg(code == 0, "make plots-nbody exited %d:\n%s%s", code, out, err);
    ck_assert_msg(missing[0] == '\0', "%s was not drawn, PNG and SVG:\n%s%s", missing, out, err);
    ck_assert_msg(err[0] == '\0', "make plots-nbody said:\n%s", err);
}
END_TEST

static const char *const case_names[] = {
    "every N-body figure is drawn, PNG and SVG, from its fixture's results",
};

size_t nbody_plots_case_names(const char **names, size_t max)
{
    size_t n = 0;
    for (; n < sizeof case_names / sizeof case_names[0] && n < max; ++n)
        names[n] = case_names[n];
    return n;
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

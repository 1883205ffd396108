/* Grading a lab that is one folder: in the demo lab's own tree (the shared harness and
 * tests/fixtures/demo-lab alone, tests/demo_lab_tree.h), bin/lab grade-all grades two
 * submissions of its step 01-fill, ada's (the solution) and bob's (wrong at n = 1000
 * on the fake GPU), once without a GPU (the real make and nvcc build them) and once on
 * the fake GPU of tests/fixtures/fake-gpu (tests/fixtures/demo-lab-tree/grade.sh).
 * Not in the students' copy, as no grading test is (tests/handout.exclude). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demo_lab_tree.h"
#include "util.h"

static char *tree;
static char setup_out[1 << 14];
static int graded;

static void grade_the_demo_lab(void)
{
    char *targets[] = {"bin/lab", NULL};
    tree = demo_lab_make_tree(targets, setup_out, sizeof setup_out);
    if (tree == NULL)
        return;
    char root[4096], err[4096];
    if (getcwd(root, sizeof root) == NULL)
        return;
    char *argv[] = {"/bin/sh", "tests/fixtures/demo-lab-tree/grade.sh", tree, root, NULL};
    graded = run_capture(argv, demo_lab_plain_make, setup_out, sizeof setup_out, err, sizeof err) == 0;
    if (!graded)
        strncat(setup_out, err, sizeof setup_out - strlen(setup_out) - 1);
}

static void remove_tree(void)
{
    if (tree != NULL)
        util_remove_tree(tree);
    free(tree);
    tree = NULL;
}

/* TREE/<name>-<run><suffix>, read whole (the caller frees it) */
static char *graded_file(const char *name, const char *run, const char *suffix)
{
    ck_assert_msg(graded, "the demo lab's tree could not be graded:\n%s", setup_out);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s-%s%s", tree, name, run, suffix);
    char *text = util_read_file(path, NULL);
    ck_assert_msg(text != NULL, "no %s", path);
    return text;
}

/* The gradebook's row of student, from the student's name to the report's path. */
static void assert_gradebook_row(const char *run, const char *student, const char *gpu_and_points)
{
    char *book = graded_file("book", run, ".csv"), *output = graded_file("grade", run, ".out");
    ck_assert_msg(strncmp(book, "student,submission,date,gpu,demo/01-fill,total,max,not_run,report\n",
                          66) == 0 && count_lines(book) == 3,
                  "gradebook:\n%s\n%s", book, output);
    char start[64];
    snprintf(start, sizeof start, "\n%s,%s,", student, student);
    const char *row = strstr(book, start);
    ck_assert_msg(row != NULL, "no row of %s in:\n%s\n%s", student, book, output);
    row = strchr(row + strlen(start), ','); /* the date */
    ck_assert_msg(strncmp(row + 1, gpu_and_points, strlen(gpu_and_points)) == 0,
                  "%s's row: expected ...,%s..., got:\n%s\n%s", student, gpu_and_points, book, output);
    free(book);
    free(output);
}

/* Without a GPU the submissions are built for real, and builds are all that earn
 * points: the gradebook says 1 of 10 and 5 checks not run; exit 77, as for any lab. */
START_TEST(the_demo_lab_is_graded_without_a_gpu)
{
    char *code = graded_file("grade", "no-gpu", ".code");
    ck_assert_str_eq(code, "77\n");
    free(code);
    assert_gradebook_row("no-gpu", "ada", "none,1,1,10,5,");
    assert_gradebook_row("no-gpu", "bob", "none,1,1,10,5,");
    char *report = graded_file("book", "no-gpu", ".reports/ada.txt");
    ck_assert_msg(strstr(report, "rubric: the default rubric (no harness/labs/demo/rubric.def)") != NULL &&
                      strstr(report, "  demo/01-fill build PASS 1/1") != NULL &&
                      strstr(report, "  demo/01-fill correct not-run 0/4") != NULL,
                  "%s", report);
    free(report);
}
END_TEST

/* On the fake GPU every check runs: ada's step earns full marks, bob's, wrong at the
 * second check size, nothing (correct is required). */
START_TEST(the_demo_lab_is_graded_on_a_fake_gpu)
{
    char *code = graded_file("grade", "fake-gpu", ".code");
    ck_assert_str_eq(code, "0\n");
    free(code);
    assert_gradebook_row("fake-gpu", "ada", "Fake GPU (compute capability 9.0),10,10,10,0,");
    assert_gradebook_row("fake-gpu", "bob", "Fake GPU (compute capability 9.0),0,0,10,0,");
    char *report = graded_file("book", "fake-gpu", ".reports/bob.txt");
    ck_assert_msg(strstr(report, "  demo/01-fill correct FAIL 0/4  1 of 2 check sizes correct; "
                                 "first failure at 1000x1000x1: wrong result") != NULL,
                  "%s", report);
    free(report);
}
END_TEST

Suite *grading_demo_lab_suite(void)
{
    Suite *s = suite_create("grading_demo_lab");
    TCase *tc = tcase_create("grading a lab that is one folder");
    tcase_add_unchecked_fixture(tc, grade_the_demo_lab, remove_tree);
    tcase_set_timeout(tc, 300); /* a copy of the harness, submissions built with nvcc */
    tcase_add_test(tc, the_demo_lab_is_graded_without_a_gpu);
    tcase_add_test(tc, the_demo_lab_is_graded_on_a_fake_gpu);
    suite_add_tcase(s, tc);
    return s;
}

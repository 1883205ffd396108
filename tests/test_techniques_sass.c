/* The rubrics' sass and no-sass technique lines against real machine code: every
 * solution step's binary (bin/solutions/<lab>/<stem>) listed by cuobjdump through
 * harness/sass-listing.sh, the one way the lab runs it, and judged by grading's own
 * technique_judge_sass on the kernel the binary's --report names. Then, on the demo lab
 * built in its own tree with the sass rubric of tests/fixtures/sass/demo-lab: that
 * rubric holds on its built steps; a built binary that lacks an instruction fails; and
 * a grading run (--no-gpu, so no GPU is needed) reads the SASS of each submitted step
 * it builds. Needs cuobjdump ($CUOBJDUMP, which make test passes from the Makefile, or
 * on PATH): without it every case is SKIPPED, by name (tests/run_tests.c). The rules
 * themselves, on a committed listing: tests/test_grading_sass.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demo_lab_tree.h"
#include "grading/judging.h"
#include "lab_registry.h"
#include "side_by_side.h"
#include "util.h"

#define SASS_RUBRIC "tests/fixtures/sass/demo-lab"

static char listing[1 << 23], listing_err[1 << 14];

static const char *cuobjdump(void)
{
    const char *given = getenv("CUOBJDUMP");
    return given != NULL && given[0] != '\0' ? given : "cuobjdump";
}

/* What bin/lab's --cuobjdump is given: $CUOBJDUMP, else nothing, so that it looks on
 * PATH itself (a bare "cuobjdump" would be taken as a path in the tree). */
static const char *cuobjdump_option(void)
{
    const char *given = getenv("CUOBJDUMP");
    return given != NULL ? given : "";
}

/* The SASS of the step binary at path into listing. */
static void list_sass(const char *path)
{
    char *argv[] = {"/bin/sh", "harness/sass-listing.sh", (char *)cuobjdump(), (char *)path, NULL};
    int code = run_capture(argv, NULL, listing, sizeof listing, listing_err, sizeof listing_err);
    ck_assert_msg(code == 0 && strstr(listing, "Function :") != NULL,
                  "sh harness/sass-listing.sh %s %s: exit %d\n%.2000s", cuobjdump(), path, code,
                  listing_err);
}

/* Step id of lab, built in tree (NULL: this one), judged by the rubric text (NULL:
 * the lab's rubric.def in that tree): the technique check's state and why. */
static enum check_state judge(const char *tree, const struct step_table *lab, const char *id,
                              const char *text, char *why, size_t why_len)
{
    struct rubric rubric;
    char from[256], reason[512];
    if (text == NULL)
        ck_assert_msg(rubric_load(&rubric, tree ? tree : ".", lab, from, sizeof from, reason,
                                  sizeof reason) == 0,
                      "%s", reason);
    else {
        rubric_defaults(&rubric, lab);
        ck_assert_msg(rubric_parse(&rubric, text, lab, reason, sizeof reason) == 0, "%s", reason);
    }
    const struct step_info *step = step_table_step(lab, id);
    ck_assert_ptr_nonnull(step);
    char stem[128], rel[256], binary[4400], failed[4096];
    step_stem(step, stem, sizeof stem);
    snprintf(rel, sizeof rel, "solutions/%s/%s", lab->lab, stem);
    if (tree == NULL)
        bin_path(rel, binary, sizeof binary);
    else
        snprintf(binary, sizeof binary, "%s/bin/%s", tree, rel);
    struct report_row row;
    ck_assert_msg(util_report_row_of(binary, stem, &row, failed, sizeof failed) == 0, "%s", failed);
    list_sass(binary);
    struct step_resources res = {1, row.regs, row.smem, row.local, row.spill, ""};
    snprintf(res.kernel, sizeof res.kernel, "%s", row.kernel);
    struct technique_verdict v;
    memset(&v, 0, sizeof v);
    technique_judge_sass(&rubric, step, &res, listing, NULL, &v);
    struct check_result k = {CHECK_NOT_RUN, 0, ""};
    technique_result(&v, &res, 1, &k);
    snprintf(why, why_len, "%s/%s: %s", lab->lab, stem, k.why);
    return k.state;
}

/* _i: the lab's index in all_step_tables; each lab a job of its own (one job for all
 * of them was make test's longest on the H200, 201 s) */
START_TEST(solutions_show_their_sass)
{
    const struct step_table *lab = all_step_tables[_i];
    struct rubric rubric;
    char from[256], why[1024];
    ck_assert_msg(rubric_load(&rubric, ".", lab, from, sizeof from, why, sizeof why) == 0, "%s",
                  why);
    for (size_t s = 0; s < lab->count; ++s) {
        const struct step_info *step = &lab->steps[s];
        if (!rubric_reads_sass(&rubric, step))
            continue;
        enum check_state state = judge(NULL, lab, step->id, NULL, why, sizeof why);
        ck_assert_msg(state == CHECK_PASS, "%s", why);
        ck_assert_msg(strstr(why, "in its SASS: ") != NULL, "%s", why);
    }
}
END_TEST

/* Every lab's rubric reads the SASS of some steps: matmul_tf32 01-08, matmul 08-13,
 * N-body 05 and 13-16, reduce 09-13, scan 04-08, ... */
START_TEST(rubrics_read_the_sass_of_the_steps)
{
    int judged = 0;
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        struct rubric rubric;
        char from[256], why[1024];
        ck_assert_msg(rubric_load(&rubric, ".", *it, from, sizeof from, why, sizeof why) == 0,
                      "%s", why);
        for (size_t s = 0; s < (*it)->count; ++s)
            judged += rubric_reads_sass(&rubric, &(*it)->steps[s]);
    }
    ck_assert_int_ge(judged, 29);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The demo lab, built in its own tree with the sass rubric (made once, for the cases
 * below). */

static char *tree;
static char tree_out[1 << 15]; /* make-tree.sh's output: make's log when it failed */

static void make_sass_tree(void)
{
    char *targets[] = {"bin/lab", "bin/solutions/demo/01-fill", "bin/solutions/demo/02-shared",
                       NULL};
    tree = demo_lab_make_tree_over(SASS_RUBRIC, targets, tree_out, sizeof tree_out);
}

static void remove_sass_tree(void)
{
    demo_lab_remove_tree(&tree);
}

static const char *sass_tree(void)
{
    ck_assert_msg(tree != NULL, "the demo lab's tree could not be made:\n%s", tree_out);
    return tree;
}

/* The committed rubric's lines, each step's judged on the step's built binary. */
START_TEST(the_demo_labs_sass_rubric_holds_on_its_built_steps)
{
    char why[1024];
    enum check_state state = judge(sass_tree(), demo_lab_table, "01", NULL, why, sizeof why);
    ck_assert_msg(state == CHECK_PASS && strstr(why, "in its SASS: no BAR") != NULL, "%s", why);
    state = judge(sass_tree(), demo_lab_table, "02", NULL, why, sizeof why);
    ck_assert_msg(state == CHECK_PASS && strstr(why, "in its SASS: ") != NULL &&
                      strstr(why, " STS, ") != NULL && strstr(why, " LDS, ") != NULL &&
                      strstr(why, " BAR.SYNC") != NULL,
                  "%s", why);
}
END_TEST

START_TEST(a_built_binary_without_the_instruction_fails)
{
    char why[1024];
    /* step 01 writes straight to global memory: no shared load, no barrier */
    ck_assert_int_eq(judge(sass_tree(), demo_lab_table, "01",
                           "technique 01 sass LDS\ntechnique 01 sass BAR.SYNC\n", why, sizeof why),
                     CHECK_FAIL);
    ck_assert_msg(strstr(why, "kernel demo_fill has no LDS instruction in its SASS") != NULL &&
                      strstr(why, "kernel demo_fill has no BAR.SYNC instruction in its SASS") !=
                          NULL,
                  "%s", why);
    /* step 02's barrier is there, and counted */
    ck_assert_int_eq(judge(sass_tree(), demo_lab_table, "02", "technique 02 no-sass BAR\n", why,
                           sizeof why),
                     CHECK_FAIL);
    ck_assert_msg(strstr(why, "kernel demo_fill_shared has 1 BAR instruction in its SASS; the "
                              "rubric wants none") != NULL,
                  "%s", why);
}
END_TEST

/* bin/lab grade-all --no-gpu in the tree, step 02, over four hand-ins: the solution
 * (ada) keeps its technique point on the SASS; missing-barrier, which passes on the
 * resource report alone (its tile is there), loses it for want of BAR.SYNC;
 * ignores-technique (no tile) fails the static line and the sass ones; library-call
 * (tests/fixtures/demo-shortcuts: launch has CUB do the work) fails it on CUB's kernels
 * compiled into its own object, which the provisional report names. */
START_TEST(grading_reads_the_sass_of_each_built_step)
{
    static char out[1 << 16], err[1 << 16];
    char root[4096], copy[13000], path[4200];
    ck_assert_ptr_nonnull(getcwd(root, sizeof root));
    snprintf(copy, sizeof copy,
             "mkdir -p subs/ada/demo && cp solutions/demo/02-shared.cu subs/ada/demo/ && "
             "cp -R '%s/tests/fixtures/demo-submissions/missing-barrier' "
             "'%s/tests/fixtures/demo-submissions/ignores-technique' "
             "'%s/tests/fixtures/demo-shortcuts/library-call' subs/",
             root, root, root);
    char *cp[] = {"/bin/sh", "-c", copy, NULL};
    ck_assert_msg(demo_lab_run(sass_tree(), NULL, cp, out, sizeof out, err, sizeof err) == 0, "%s",
                  err);
    char *argv[] = {"bin/lab", "grade-all", "--no-gpu", "--submissions", "subs", "--gradebook",
                    "class.csv", "--cuobjdump", (char *)cuobjdump_option(), "--jobs", "2",
                    "demo", "02", NULL};
    int code = demo_lab_run(tree, util_plain_make_env, argv, out, sizeof out, err, sizeof err);
    snprintf(path, sizeof path, "%s/class.reports/ada.txt", tree);
    char *ada = util_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/class.reports/missing-barrier.txt", tree);
    char *missing = util_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/class.reports/ignores-technique.txt", tree);
    char *ignores = util_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/class.reports/library-call.txt", tree);
    char *library = util_read_file(path, NULL);
    ck_assert_msg(code == 77 && ada != NULL && missing != NULL && ignores != NULL &&
                      library != NULL,
                  "exit %d\n%s\n%s", code, out, err);
    ck_assert_msg(strstr(library, "demo/02-shared technique FAIL 0/1") != NULL &&
                      strstr(library, "its binary holds cub::") != NULL &&
                      strstr(library, "a kernel its source does not define (a library call): "
                                      "no technique or speed points") != NULL,
                  "%s", library);
    free(library);
    ck_assert_msg(strstr(ada, "demo/02-shared technique PASS 1/1") != NULL &&
                      strstr(ada, "in its SASS: 1 STS, 1 LDS, 1 BAR.SYNC") != NULL,
                  "%s", ada);
    ck_assert_msg(strstr(missing, "demo/02-shared technique FAIL 0/1") != NULL &&
                      strstr(missing, "kernel demo_fill_shared has no BAR.SYNC instruction in "
                                      "its SASS") != NULL &&
                      strstr(missing, "has no STS") == NULL &&
                      strstr(missing, "has no LDS") == NULL,
                  "%s", missing);
    ck_assert_msg(strstr(ignores, "demo/02-shared technique FAIL 0/1") != NULL &&
                      strstr(ignores, "uses no shared memory") != NULL &&
                      strstr(ignores, "kernel demo_fill_shared has no STS instruction in its "
                                      "SASS") != NULL,
                  "%s", ignores);
    free(ada);
    free(missing);
    free(ignores);
}
END_TEST

static const char *const names[] = {
    "rubrics_read_the_sass_of_the_steps",
    "solutions_show_their_sass (a job per lab)",
    "the_demo_labs_sass_rubric_holds_on_its_built_steps",
    "a_built_binary_without_the_instruction_fails",
    "grading_reads_the_sass_of_each_built_step",
};

size_t techniques_sass_case_names(const char **out_names, size_t max)
{
    size_t n = 0;
    for (; n < sizeof names / sizeof names[0] && n < max; ++n)
        out_names[n] = names[n];
    return n;
}

#define MAX_SASS_LABS 32
static char lab_case_names[MAX_SASS_LABS][64];

Suite *techniques_sass_suite(void)
{
    Suite *s = suite_create("techniques_sass");
    TCase *tc = tcase_create("rubrics");
    tcase_add_test(tc, rubrics_read_the_sass_of_the_steps);
    suite_add_tcase(s, tc);
    for (size_t i = 0; all_step_tables[i] != NULL && i < MAX_SASS_LABS; ++i) {
        snprintf(lab_case_names[i], sizeof lab_case_names[i], "solutions of %s",
                 all_step_tables[i]->lab);
        tc = side_by_side_tcase(s, "techniques_sass", lab_case_names[i], 300, 0);
        tcase_add_loop_test(tc, solutions_show_their_sass, (int)i, (int)i + 1);
    }
    TCase *demo = side_by_side_tcase(s, "techniques_sass", "the demo lab", 300, 0);
    tcase_add_unchecked_fixture(demo, make_sass_tree, remove_sass_tree);
    tcase_set_timeout(demo, 300); /* a copy of the harness, submissions built with nvcc */
    tcase_add_test(demo, the_demo_labs_sass_rubric_holds_on_its_built_steps);
    tcase_add_test(demo, a_built_binary_without_the_instruction_fails);
    tcase_add_test(demo, grading_reads_the_sass_of_each_built_step);
    return s;
}

/* The rubrics' sass and no-sass technique lines against real machine code: every
 * solution step's binary (bin/solutions/<lab>/<stem>) listed by cuobjdump through
 * harness/sass-listing.sh, the one way the lab runs it, and judged by grading's own
 * technique_judge_sass on the kernel the binary's --report names; a built binary that
 * lacks an instruction fails; and a grading run (--no-gpu, so no GPU is needed) reads
 * the SASS of each submitted step it builds. Needs cuobjdump ($CUOBJDUMP, which make
 * test passes from the Makefile, or on PATH): without it every case is SKIPPED, by
 * name (tests/run_tests.c). The rules themselves, on a committed listing:
 * tests/test_grading_sass.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/judging.h"
#include "lab_registry.h"
#include "util.h"

static char listing[1 << 23], listing_err[1 << 14];

static const char *cuobjdump(void)
{
    const char *given = getenv("CUOBJDUMP");
    return given != NULL && given[0] != '\0' ? given : "cuobjdump";
}

/* The SASS of bin/solutions/LAB/STEM into listing. */
static void list_sass(const char *lab, const char *stem)
{
    char rel[256], path[512];
    snprintf(rel, sizeof rel, "solutions/%s/%s", lab, stem);
    char *argv[] = {"/bin/sh", "harness/sass-listing.sh", (char *)cuobjdump(),
                    (char *)bin_path(rel, path, sizeof path), NULL};
    int code = run_capture(argv, NULL, listing, sizeof listing, listing_err, sizeof listing_err);
    ck_assert_msg(code == 0 && strstr(listing, "Function :") != NULL,
                  "sh harness/sass-listing.sh %s %s: exit %d\n%.2000s", cuobjdump(), path, code,
                  listing_err);
}

/* Step stem of lab judged by the rubric text (NULL: the lab's rubric.def): the
 * technique check's state and why. */
static enum check_state judge(const struct step_table *lab, const char *id, const char *text,
                              char *why, size_t why_len)
{
    struct rubric rubric;
    char from[256], reason[512];
    if (text == NULL)
        ck_assert_msg(rubric_load(&rubric, ".", lab, from, sizeof from, reason, sizeof reason) == 0,
                      "%s", reason);
    else {
        rubric_defaults(&rubric, lab);
        ck_assert_msg(rubric_parse(&rubric, text, lab, reason, sizeof reason) == 0, "%s", reason);
    }
    const struct step_info *step = step_table_step(lab, id);
    ck_assert_ptr_nonnull(step);
    char stem[128], failed[4096];
    step_stem(step, stem, sizeof stem);
    struct report_row row;
    ck_assert_msg(util_report_row(lab->lab, stem, &row, failed, sizeof failed) == 0, "%s", failed);
    list_sass(lab->lab, stem);
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

START_TEST(solutions_show_their_sass)
{
    int judged = 0;
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        struct rubric rubric;
        char from[256], why[1024];
        ck_assert_msg(rubric_load(&rubric, ".", *it, from, sizeof from, why, sizeof why) == 0,
                      "%s", why);
        for (size_t s = 0; s < (*it)->count; ++s) {
            const struct step_info *step = &(*it)->steps[s];
            if (!rubric_reads_sass(&rubric, step))
                continue;
            enum check_state state = judge(*it, step->id, NULL, why, sizeof why);
            ck_assert_msg(state == CHECK_PASS, "%s", why);
            ck_assert_msg(strstr(why, "in its SASS: ") != NULL, "%s", why);
            ++judged;
        }
    }
    /* matmul_tf32 01-08, matmul 08-13, N-body 05 and 13-16, reduce 09-13, scan 04-08 */
    ck_assert_int_ge(judged, 29);
}
END_TEST

START_TEST(a_built_binary_without_the_instruction_fails)
{
    const struct step_table *tf32 = step_table_find("matmul_tf32");
    ck_assert_ptr_nonnull(tf32);
    char why[1024];
    /* mma.sync is HMMA, not HGMMA */
    ck_assert_int_eq(judge(tf32, "03", "technique 03 sass HGMMA\ntechnique 03 no-sass HMMA\n", why,
                           sizeof why),
                     CHECK_FAIL);
    ck_assert_msg(strstr(why, "kernel matmul_mma_sync has no HGMMA instruction in its SASS") !=
                          NULL &&
                      strstr(why, "HMMA instructions in its SASS; the rubric wants none") != NULL,
                  "%s", why);
    /* step 06's shared loads are in the transpose kernel, not in matmul_tma */
    ck_assert_int_eq(judge(tf32, "06", "technique 06 sass LDS\n", why, sizeof why), CHECK_FAIL);
    ck_assert_msg(strstr(why, "kernel matmul_tma has no LDS instruction in its SASS (another "
                              "kernel of the step, _Z16tf32_transpose_b") != NULL,
                  "%s", why);
}
END_TEST

/* bin/lab grade-all --no-gpu over tests/submissions, TF32 step 03: the step that
 * multiplies with fmaf loses its technique point on the SASS alone; the one with the
 * wrong fragment layout keeps it (its HMMA are there; correct fails on a GPU). */
START_TEST(grading_reads_the_sass_of_each_built_step)
{
    char *dir = util_temp_dir("grade-sass");
    ck_assert_ptr_nonnull(dir);
    char book[600], lab[512], reports[700], path[800];
    static char out[1 << 16], err[1 << 16];
    snprintf(book, sizeof book, "%s/class.csv", dir);
    snprintf(reports, sizeof reports, "%s/class.reports", dir);
    char *argv[] = {(char *)bin_path("lab", lab, sizeof lab), "grade-all", "--no-gpu",
                    "--submissions", "tests/submissions", "--gradebook", book, "--cuobjdump",
                    (char *)cuobjdump(), "--jobs", "2", "matmul_tf32", "03", NULL};
    char *env[] = {"MAKEFLAGS=", NULL};
    int code = run_capture(argv, (const char *const *)env, out, sizeof out, err, sizeof err);
    snprintf(path, sizeof path, "%s/partial-write.txt", reports);
    char *partial = util_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/ignores-technique.txt", reports);
    char *ignores = util_read_file(path, NULL);
    util_remove_tree(dir);
    free(dir);
    ck_assert_msg(code == 77 && partial != NULL && ignores != NULL, "exit %d\n%s\n%s", code, out,
                  err);
    ck_assert_msg(strstr(ignores, "matmul_tf32/03-mma-sync technique FAIL 0/1") != NULL &&
                      strstr(ignores, "kernel matmul_mma_sync has no HMMA instruction in its "
                                      "SASS") != NULL,
                  "%s", ignores);
    ck_assert_msg(strstr(partial, "matmul_tf32/03-mma-sync technique PASS 1/1") != NULL &&
                      strstr(partial, "in its SASS: 64 HMMA") != NULL,
                  "%s", partial);
    free(partial);
    free(ignores);
}
END_TEST

static const char *const names[] = {
    "solutions_show_their_sass",
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

Suite *techniques_sass_suite(void)
{
    Suite *s = suite_create("techniques_sass");
    TCase *tc = tcase_create("solutions");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, solutions_show_their_sass);
    tcase_add_test(tc, a_built_binary_without_the_instruction_fails);
    tcase_add_test(tc, grading_reads_the_sass_of_each_built_step);
    suite_add_tcase(s, tc);
    return s;
}

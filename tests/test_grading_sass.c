/* The rubric's sass and no-sass technique lines, without a GPU and without cuobjdump
 * (part of the grading suite, tests/test_grading.c): how a mnemonic matches an
 * opcode (harness/sass_listing.c), how the lines are parsed (rubric.c) and judged
 * (judging.c) against a committed listing, tests/fixtures/sass/matmul_tf32-06-tma.sass,
 * in which only the step's main kernel counts; and a grading run that cannot find
 * cuobjdump SKIPS those lines by name: the technique check is not run, never
 * passed. The same with real cuobjdump on built binaries: tests/test_techniques_sass.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/judging.h"
#include "grading_tests.h"
#include "lab_registry.h"
#include "sass_listing.h"
#include "util.h"

static const struct step_table *tf32(void)
{
    const struct step_table *t = step_table_find("matmul_tf32");
    ck_assert_ptr_nonnull(t);
    return t;
}

START_TEST(mnemonics_match_by_base_and_modifiers)
{
    ck_assert(sass_opcode_matches("HMMA.1688.F32.TF32", "HMMA"));
    ck_assert(sass_opcode_matches("HMMA", "HMMA"));
    ck_assert(!sass_opcode_matches("HGMMA.64x128x8.F32.TF32", "HMMA"));
    ck_assert(!sass_opcode_matches("HMMA.1688.F32.TF32", "HGMMA"));
    /* the modifiers named, in any order and among others */
    ck_assert(sass_opcode_matches("LDG.E.128", "LDG.128"));
    ck_assert(sass_opcode_matches("LDG.E.EF.128", "LDG.128"));
    ck_assert(sass_opcode_matches("LDG.E.128.CONSTANT", "LDG.E.128"));
    ck_assert(!sass_opcode_matches("LDG.E", "LDG.128"));
    ck_assert(!sass_opcode_matches("LDGSTS.E.BYPASS.128", "LDG.128")); /* another base */
    ck_assert(sass_opcode_matches("MUFU.RSQ", "MUFU.RSQ"));
    ck_assert(!sass_opcode_matches("MUFU.RCP", "MUFU.RSQ"));
    ck_assert(!sass_opcode_matches("SHFL.DOWN", "SHFL.UP"));
    ck_assert(sass_opcode_matches("SHFL.DOWN", "SHFL"));
    /* what a rubric may write */
    ck_assert(sass_mnemonic_valid("HMMA"));
    ck_assert(sass_mnemonic_valid("LDG.E.128"));
    ck_assert(sass_mnemonic_valid("HGMMA.64x256x8"));
    ck_assert(!sass_mnemonic_valid("hmma"));
    ck_assert(!sass_mnemonic_valid("LDG..128"));
    ck_assert(!sass_mnemonic_valid("LDG."));
    ck_assert(!sass_mnemonic_valid(".128"));
    ck_assert(!sass_mnemonic_valid("1HMMA"));
    ck_assert(!sass_mnemonic_valid("HMMA;"));
}
END_TEST

START_TEST(sass_lines_parse_and_name_their_errors)
{
    struct rubric r;
    rubric_defaults(&r, tf32());
    char why[256] = "";
    ck_assert_msg(rubric_parse(&r, "technique 03 sass HMMA\ntechnique 03 no-sass MUFU.RCP\n"
                                   "technique 04 no-spills\n",
                               tf32(), why, sizeof why) == 0,
                  "%s", why);
    ck_assert_int_eq(r.technique_count, 3);
    ck_assert_int_eq(r.techniques[0].kind, TECH_SASS);
    ck_assert_str_eq(r.techniques[0].mnemonic, "HMMA");
    ck_assert_int_eq(r.techniques[1].kind, TECH_NO_SASS);
    ck_assert_str_eq(r.techniques[1].mnemonic, "MUFU.RCP");
    ck_assert_str_eq(r.techniques[2].mnemonic, "");
    ck_assert_int_eq(rubric_reads_sass(&r, step_table_step(tf32(), "03")), 1);
    ck_assert_int_eq(rubric_reads_sass(&r, step_table_step(tf32(), "04")), 0);
    static const char *const bad[][2] = {
        {"technique 03 sass\n", "expected 'technique STEP sass MNEMONIC'"},
        {"technique 03 sass hmma\n", "a SASS opcode in capitals"},
        {"technique 03 no-sass HMMA SHFL\n", "expected 'technique STEP no-sass MNEMONIC'"},
        {"technique 03 sass LDG..128\n", "(HMMA, SHFL, LDG.128, MUFU.RSQ)"},
        {"technique 03 tensor-cores\n", "sass MNEMONIC, no-sass MNEMONIC"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        rubric_defaults(&r, tf32());
        ck_assert_int_eq(rubric_parse(&r, bad[i][0], tf32(), why, sizeof why), -1);
        ck_assert_msg(strstr(why, bad[i][1]) != NULL && strstr(why, "line 1") != NULL,
                      "'%s' -> '%s'", bad[i][0], why);
    }
}
END_TEST

/* The technique check of step 06 under rubric text, its main kernel matmul_tma (as
 * its --report names it) judged against the fixture listing (NULL: no listing). */
static void judge_06(const char *text, const char *listing, const char *kernel,
                     struct check_result *k)
{
    struct rubric r;
    rubric_defaults(&r, tf32());
    char why[256];
    ck_assert_msg(rubric_parse(&r, text, tf32(), why, sizeof why) == 0, "%s", why);
    const struct step_info *s06 = step_table_step(tf32(), "06");
    struct step_resources res = {1, 90, 132128, 0, 0, ""};
    snprintf(res.kernel, sizeof res.kernel, "%s", kernel);
    struct technique_verdict v;
    technique_judge_static(&r, s06, "06-tma", &res, &v);
    technique_judge_sass(&r, s06, &res, listing,
                         "cuobjdump was not found (make deps installs it from PyPI; or "
                         "CUOBJDUMP=path)",
                         &v);
    *k = (struct check_result){CHECK_NOT_RUN, 0, ""};
    ck_assert_int_eq(technique_result(&v, &res, 1, k), 1);
}

START_TEST(sass_lines_are_judged_on_the_main_kernel)
{
    char path[512];
    char *listing = util_read_file(fixture_path("sass/matmul_tf32-06-tma.sass", path, sizeof path),
                                   NULL);
    ck_assert_ptr_nonnull(listing);
    struct check_result k;
    /* present and absent as the lines want: passed, with what was found */
    judge_06("technique 06 sass HGMMA\ntechnique 06 sass UTMALDG\ntechnique 06 no-sass MUFU\n"
             "technique 06 shared-memory\n",
             listing, "matmul_tma", &k);
    ck_assert_int_eq(k.state, CHECK_PASS);
    ck_assert_msg(strstr(k.why, "kernel matmul_tma: 90 registers") != NULL &&
                      strstr(k.why, "in its SASS: 2 HGMMA, 2 UTMALDG, no MUFU)") != NULL,
                  "%s", k.why);
    /* LDS is only in the transpose kernel, MUFU.RCP only in the padding kernel: they do
     * not count for the main kernel, and the reason says where they are */
    judge_06("technique 06 sass LDS\ntechnique 06 sass MUFU.RCP\n", listing, "matmul_tma", &k);
    ck_assert_int_eq(k.state, CHECK_FAIL);
    ck_assert_msg(strstr(k.why, "kernel matmul_tma has no LDS instruction in its SASS (another "
                                "kernel of the step, _Z16tf32_transpose_bPKfPfiii, has 1: it "
                                "does not count)") != NULL &&
                      strstr(k.why, "\nkernel matmul_tma has no MUFU.RCP instruction in its SASS "
                                    "(another kernel of the step, _Z13tf32_pad_rowsPKfPfiii, has "
                                    "2") != NULL,
                  "%s", k.why);
    /* no-sass: the instructions counted */
    judge_06("technique 06 no-sass STG\n", listing, "matmul_tma", &k);
    ck_assert_int_eq(k.state, CHECK_FAIL);
    ck_assert_str_eq(k.why, "kernel matmul_tma has 2 STG instructions in its SASS; the rubric "
                            "wants none");
    /* a kernel the listing does not hold: not judged, not run (never passed) */
    judge_06("technique 06 sass HGMMA\n", listing, "matmul_other", &k);
    ck_assert_int_eq(k.state, CHECK_NOT_RUN);
    ck_assert_str_eq(k.why, "not run (no points): the rubric's sass HGMMA not judged: the "
                            "step's SASS lists no kernel matmul_other");
    /* no listing (no cuobjdump): SKIPPED by name; a static line that fails still fails */
    judge_06("technique 06 sass HGMMA\ntechnique 06 no-sass SHFL\n", NULL, "matmul_tma", &k);
    ck_assert_int_eq(k.state, CHECK_NOT_RUN);
    ck_assert_str_eq(k.why, "not run (no points): the rubric's sass HGMMA, no-sass SHFL not "
                            "judged: cuobjdump was not found (make deps installs it from PyPI; "
                            "or CUOBJDUMP=path)");
    judge_06("technique 06 sass HGMMA\ntechnique 06 max-registers 64\n", NULL, "matmul_tma", &k);
    ck_assert_int_eq(k.state, CHECK_FAIL);
    ck_assert_msg(strstr(k.why, "uses 90 registers; at most 64 wanted\n(the rubric's sass HGMMA "
                                "not judged: cuobjdump was not found") != NULL,
                  "%s", k.why);
    free(listing);
}
END_TEST

/* bin/lab grade-all --no-gpu over tests/submissions, step 03 of the TF32 lab, with a
 * cuobjdump that is not there: partial-write and ignores-technique have the step;
 * its sass line is SKIPPED, by name, in the plan, the report and the technique line. */
START_TEST(grading_without_cuobjdump_skips_the_sass_lines_by_name)
{
    char *dir = util_temp_dir("grade-no-cuobjdump");
    ck_assert_ptr_nonnull(dir);
    char book[600], lab[512], reports[700];
    static char out[1 << 16], err[1 << 16];
    snprintf(book, sizeof book, "%s/class.csv", dir);
    snprintf(reports, sizeof reports, "%s/class.reports", dir);
    char *argv[] = {(char *)bin_path("lab", lab, sizeof lab), "grade-all", "--no-gpu",
                    "--submissions", "tests/submissions", "--gradebook", book, "--cuobjdump",
                    "/nonexistent/cuobjdump", "--jobs", "2", "matmul_tf32", "03", NULL};
    char *env[] = {"MAKEFLAGS=", NULL};
    int code = run_capture(argv, (const char *const *)env, out, sizeof out, err, sizeof err);
    char path[800];
    snprintf(path, sizeof path, "%s/partial-write.txt", reports);
    char *partial = util_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/ignores-technique.txt", reports);
    char *ignores = util_read_file(path, NULL);
    util_remove_tree(dir);
    free(dir);
    ck_assert_msg(code == 77 && partial != NULL && ignores != NULL, "exit %d\n%s\n%s", code, out,
                  err);
    ck_assert_msg(strstr(out, "cuobjdump (the rubric's sass lines): not found: those steps' "
                              "technique check is SKIPPED, no points") != NULL,
                  "%s", out);
    const char *skipped = "not run (no points): the rubric's sass HMMA not judged: cuobjdump "
                          "was not found";
    assert_line(partial, "matmul_tf32/03-mma-sync technique not-run 0/1", skipped);
    assert_line(ignores, "matmul_tf32/03-mma-sync technique not-run 0/1", skipped);
    ck_assert_ptr_nonnull(strstr(partial, "cuobjdump not found: the rubric's sass lines were not "
                                          "judged"));
    free(partial);
    free(ignores);
}
END_TEST

void add_grading_sass_cases(Suite *s)
{
    TCase *rules = tcase_create("sass");
    tcase_add_test(rules, mnemonics_match_by_base_and_modifiers);
    tcase_add_test(rules, sass_lines_parse_and_name_their_errors);
    tcase_add_test(rules, sass_lines_are_judged_on_the_main_kernel);
    suite_add_tcase(s, rules);
    TCase *run = tcase_create("sass_grading");
    tcase_set_timeout(run, 300);
    tcase_add_test(run, grading_without_cuobjdump_skips_the_sass_lines_by_name);
    suite_add_tcase(s, run);
}

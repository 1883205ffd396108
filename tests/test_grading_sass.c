/* The rubric's sass and no-sass technique lines, without a GPU and without cuobjdump
 * (part of the grading suite, tests/test_grading.c): how a mnemonic matches an
 * opcode (harness/sass_listing.c), how the lines are parsed (rubric.c) and judged
 * (judging.c) against a committed listing of the demo lab's two steps,
 * tests/fixtures/sass/demo-01-fill-02-shared.sass, in which only the step's main
 * kernel counts; and a grading run of the demo lab, in its own tree with the sass
 * rubric of tests/fixtures/sass/demo-lab, that cannot find cuobjdump SKIPS those lines
 * by name: the technique check is not run, never passed. The same with real cuobjdump
 * on built binaries: tests/test_techniques_sass.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demo_lab_tree.h"
#include "grading/judging.h"
#include "grading_tests.h"
#include "sass_listing.h"
#include "util.h"

#define SASS_RUBRIC "tests/fixtures/sass/demo-lab"
#define LISTING "sass/demo-01-fill-02-shared.sass"

static const struct step_table *demo(void)
{
    return demo_lab_table;
}

START_TEST(mnemonics_match_by_base_and_modifiers)
{
    /* an operand named after ':' (wgmma.wait_group 1 against 0) */
    struct sass_insn wait1 = {0, -1, "WARPGROUP.DEPBAR.LE", "gsb0, 0x1"},
                     wait0 = {0, -1, "WARPGROUP.DEPBAR.LE", "gsb0, 0x0"};
    ck_assert(sass_insn_matches(&wait1, "WARPGROUP.DEPBAR.LE:0x1"));
    ck_assert(sass_insn_matches(&wait1, "WARPGROUP.DEPBAR.LE:gsb0"));
    ck_assert(!sass_insn_matches(&wait0, "WARPGROUP.DEPBAR.LE:0x1"));
    ck_assert(sass_insn_matches(&wait0, "WARPGROUP.DEPBAR.LE"));
    ck_assert(sass_mnemonic_valid("WARPGROUP.DEPBAR.LE:0x1"));
    ck_assert(!sass_mnemonic_valid("WARPGROUP.DEPBAR.LE:"));
    ck_assert(!sass_mnemonic_valid("WARPGROUP:0x1 x"));
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
    rubric_defaults(&r, demo());
    char why[256] = "";
    ck_assert_msg(rubric_parse(&r, "technique 02 sass BAR.SYNC\ntechnique 02 no-sass MUFU.RCP\n"
                                   "technique 01 no-spills\n",
                               demo(), why, sizeof why) == 0,
                  "%s", why);
    ck_assert_int_eq(r.technique_count, 3);
    ck_assert_int_eq(r.techniques[0].kind, TECH_SASS);
    ck_assert_str_eq(r.techniques[0].mnemonic, "BAR.SYNC");
    ck_assert_int_eq(r.techniques[1].kind, TECH_NO_SASS);
    ck_assert_str_eq(r.techniques[1].mnemonic, "MUFU.RCP");
    ck_assert_str_eq(r.techniques[2].mnemonic, "");
    ck_assert_int_eq(rubric_reads_sass(&r, step_table_step(demo(), "02")), 1);
    ck_assert_int_eq(rubric_reads_sass(&r, step_table_step(demo(), "01")), 0);
    static const char *const bad[][2] = {
        {"technique 02 sass\n", "expected 'technique STEP sass MNEMONIC'"},
        {"technique 02 sass bar.sync\n", "a SASS opcode in capitals"},
        {"technique 02 no-sass BAR LDS\n", "expected 'technique STEP no-sass MNEMONIC'"},
        {"technique 02 sass LDS..128\n", "(HMMA, SHFL, LDG.128, MUFU.RSQ)"},
        {"technique 02 barrier\n", "sass MNEMONIC, no-sass MNEMONIC"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        rubric_defaults(&r, demo());
        ck_assert_int_eq(rubric_parse(&r, bad[i][0], demo(), why, sizeof why), -1);
        ck_assert_msg(strstr(why, bad[i][1]) != NULL && strstr(why, "line 1") != NULL,
                      "'%s' -> '%s'", bad[i][0], why);
    }
}
END_TEST

/* The technique check of step id under rubric r, its main kernel `kernel` with 10
 * registers and shared bytes as its --report would say, judged against listing
 * (NULL: no listing, as when cuobjdump is missing). */
static void judge_rubric(const struct rubric *r, const char *id, const char *listing,
                         const char *kernel, size_t shared, struct check_result *k)
{
    const struct step_info *step = step_table_step(demo(), id);
    ck_assert_ptr_nonnull(step);
    char stem[64];
    step_stem(step, stem, sizeof stem);
    struct step_resources res = {1, 10, shared, 0, 0, ""};
    snprintf(res.kernel, sizeof res.kernel, "%s", kernel);
    struct technique_verdict v;
    technique_judge_static(r, step, stem, &res, &v);
    technique_judge_sass(r, step, &res, listing,
                         "cuobjdump was not found (make deps installs it from PyPI; or "
                         "CUOBJDUMP=path)",
                         &v);
    *k = (struct check_result){CHECK_NOT_RUN, 0, ""};
    ck_assert_int_eq(technique_result(&v, &res, 1, k), 1);
}

/* The same under rubric text. Step 02's kernel demo_fill_shared has its 1024-byte tile,
 * step 01's demo_fill no shared memory. */
static void judge(const char *id, const char *text, const char *listing, const char *kernel,
                  struct check_result *k)
{
    struct rubric r;
    rubric_defaults(&r, demo());
    char why[256];
    ck_assert_msg(rubric_parse(&r, text, demo(), why, sizeof why) == 0, "%s", why);
    judge_rubric(&r, id, listing, kernel, strcmp(id, "02") == 0 ? 1024 : 0, k);
}

START_TEST(sass_lines_are_judged_on_the_main_kernel)
{
    char path[512];
    char *listing = util_read_file(fixture_path(LISTING, path, sizeof path), NULL);
    ck_assert_ptr_nonnull(listing);
    struct check_result k;
    /* present and absent as the lines want: passed, with what was found */
    judge("02", "technique 02 sass STS\ntechnique 02 sass LDS\ntechnique 02 sass BAR.SYNC\n"
                "technique 02 no-sass MUFU\ntechnique 02 shared-memory\n",
          listing, "demo_fill_shared", &k);
    ck_assert_int_eq(k.state, CHECK_PASS);
    ck_assert_msg(strstr(k.why, "kernel demo_fill_shared: 10 registers") != NULL &&
                      strstr(k.why, "in its SASS: 1 STS, 1 LDS, 1 BAR.SYNC, no MUFU)") != NULL,
                  "%s", k.why);
    /* step 01's kernel has no shared memory and no barrier: the ones of step 02's
     * kernel, beside it in the listing, do not count, and the reason says where they are */
    judge("01", "technique 01 sass LDS\ntechnique 01 sass BAR.SYNC\n", listing, "demo_fill", &k);
    ck_assert_int_eq(k.state, CHECK_FAIL);
    ck_assert_msg(strstr(k.why, "kernel demo_fill has no LDS instruction in its SASS (another "
                                "kernel of the step, _Z16demo_fill_sharedPfi, has 1: it does "
                                "not count)") != NULL &&
                      strstr(k.why, "\nkernel demo_fill has no BAR.SYNC instruction in its SASS "
                                    "(another kernel of the step, _Z16demo_fill_sharedPfi, has "
                                    "1") != NULL,
                  "%s", k.why);
    /* no-sass: the main kernel's instructions counted, not demo_fill's 3 LDC */
    judge("02", "technique 02 no-sass STS\ntechnique 02 no-sass LDC\n", listing,
          "demo_fill_shared", &k);
    ck_assert_int_eq(k.state, CHECK_FAIL);
    ck_assert_str_eq(k.why, "kernel demo_fill_shared has 1 STS instruction in its SASS; the "
                            "rubric wants none\nkernel demo_fill_shared has 2 LDC instructions "
                            "in its SASS; the rubric wants none");
    /* a kernel the listing does not hold: not judged, not run (never passed) */
    judge("02", "technique 02 sass BAR.SYNC\n", listing, "demo_other", &k);
    ck_assert_int_eq(k.state, CHECK_NOT_RUN);
    ck_assert_str_eq(k.why, "not run (no points): the rubric's sass BAR.SYNC not judged: the "
                            "step's SASS lists no kernel demo_other");
    /* no listing (no cuobjdump): SKIPPED by name; a static line that fails still fails */
    judge("02", "technique 02 sass BAR.SYNC\ntechnique 02 no-sass SHFL\n", NULL,
          "demo_fill_shared", &k);
    ck_assert_int_eq(k.state, CHECK_NOT_RUN);
    ck_assert_str_eq(k.why, "not run (no points): the rubric's sass BAR.SYNC, no-sass SHFL not "
                            "judged: cuobjdump was not found (make deps installs it from PyPI; "
                            "or CUOBJDUMP=path)");
    judge("02", "technique 02 sass BAR.SYNC\ntechnique 02 max-registers 8\n", NULL,
          "demo_fill_shared", &k);
    ck_assert_int_eq(k.state, CHECK_FAIL);
    ck_assert_msg(strstr(k.why, "uses 10 registers; at most 8 wanted\n(the rubric's sass "
                                "BAR.SYNC not judged: cuobjdump was not found") != NULL,
                  "%s", k.why);
    free(listing);
}
END_TEST

/* The committed sass rubric holds on the committed listing, step by step, and its
 * lines are the ones the grading runs judge (tests/test_techniques_sass.c): a change
 * to either that breaks the other fails here first. */
START_TEST(the_sass_rubric_holds_on_the_listing)
{
    char path[512], from[256], why[256];
    char *listing = util_read_file(fixture_path(LISTING, path, sizeof path), NULL);
    ck_assert_ptr_nonnull(listing);
    struct rubric r;
    ck_assert_msg(rubric_load(&r, SASS_RUBRIC, demo(), from, sizeof from, why, sizeof why) == 0,
                  "%s", why);
    ck_assert_msg(strstr(from, "harness/labs/demo/rubric.def") != NULL, "%s", from);
    struct check_result k;
    judge_rubric(&r, "02", listing, "demo_fill_shared", 1024, &k);
    ck_assert_int_eq(k.state, CHECK_PASS);
    ck_assert_msg(strstr(k.why, "in its SASS: 1 STS, 1 LDS, 1 BAR.SYNC)") != NULL, "%s", k.why);
    judge_rubric(&r, "01", listing, "demo_fill", 0, &k);
    ck_assert_int_eq(k.state, CHECK_PASS);
    ck_assert_msg(strstr(k.why, "in its SASS: no BAR)") != NULL, "%s", k.why);
    /* and its step 02 lines fail on step 01's kernel: they can tell the two apart */
    const struct step_info *s02 = step_table_step(demo(), "02");
    ck_assert_int_eq(rubric_reads_sass(&r, s02), 1);
    judge_rubric(&r, "02", listing, "demo_fill", 1024, &k);
    ck_assert_int_eq(k.state, CHECK_FAIL);
    ck_assert_msg(strstr(k.why, "kernel demo_fill has no BAR.SYNC instruction") != NULL, "%s",
                  k.why);
    free(listing);
}
END_TEST

/* bin/lab grade-all --no-gpu over the demo lab's wrong submissions of step 02, in its
 * own tree with the sass rubric, with a cuobjdump that is not there: missing-barrier
 * builds and has its tile, so only its sass lines are left, SKIPPED by name in the
 * plan, the report and the technique line; ignores-technique has no tile, which fails
 * without cuobjdump, its sass lines named as not judged. */
START_TEST(grading_without_cuobjdump_skips_the_sass_lines_by_name)
{
    static char out[1 << 16], err[1 << 16];
    char *targets[] = {"bin/lab", NULL};
    char *tree = demo_lab_make_tree_over(SASS_RUBRIC, targets, out, sizeof out);
    ck_assert_msg(tree != NULL, "the demo lab's tree could not be made:\n%s", out);
    char root[4096], subs[4200], book[600], path[800];
    ck_assert_ptr_nonnull(getcwd(root, sizeof root));
    snprintf(subs, sizeof subs, "%s/tests/fixtures/demo-submissions", root);
    snprintf(book, sizeof book, "%s/class.csv", tree);
    char *argv[] = {"bin/lab", "grade-all", "--no-gpu", "--submissions", subs, "--gradebook", book,
                    "--cuobjdump", "/nonexistent/cuobjdump", "--jobs", "2", "demo", "02", NULL};
    int code = demo_lab_run(tree, util_plain_make_env, argv, out, sizeof out, err, sizeof err);
    snprintf(path, sizeof path, "%s/class.reports/missing-barrier.txt", tree);
    char *missing = util_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/class.reports/ignores-technique.txt", tree);
    char *ignores = util_read_file(path, NULL);
    demo_lab_remove_tree(&tree);
    ck_assert_msg(code == 77 && missing != NULL && ignores != NULL, "exit %d\n%s\n%s", code, out,
                  err);
    ck_assert_msg(strstr(out, "cuobjdump (the rubric's sass lines): not found: those steps' "
                              "technique check is SKIPPED, no points") != NULL,
                  "%s", out);
    assert_line(missing, "demo/02-shared technique not-run 0/1",
                "not run (no points): the rubric's sass STS, sass LDS, sass BAR.SYNC not judged: "
                "cuobjdump was not found");
    assert_line(ignores, "demo/02-shared technique FAIL 0/1", "uses no shared memory");
    assert_line(ignores, "demo/02-shared technique FAIL 0/1",
                "(the rubric's sass STS, sass LDS, sass BAR.SYNC not judged: cuobjdump was not "
                "found");
    ck_assert_ptr_nonnull(strstr(missing, "cuobjdump not found: the rubric's sass lines were not "
                                          "judged"));
    free(missing);
    free(ignores);
}
END_TEST

void add_grading_sass_cases(Suite *s)
{
    TCase *rules = tcase_create("sass");
    tcase_add_test(rules, mnemonics_match_by_base_and_modifiers);
    tcase_add_test(rules, sass_lines_parse_and_name_their_errors);
    tcase_add_test(rules, sass_lines_are_judged_on_the_main_kernel);
    tcase_add_test(rules, the_sass_rubric_holds_on_the_listing);
    suite_add_tcase(s, rules);
    TCase *run = tcase_create("sass_grading");
    tcase_set_timeout(run, 300); /* a copy of the harness, submissions built with nvcc */
    tcase_add_test(run, grading_without_cuobjdump_skips_the_sass_lines_by_name);
    suite_add_tcase(s, run);
}

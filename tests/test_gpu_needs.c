/* The oldest GPU each step runs on (lab.def's needs, harness/gpu_needs.h): the rule
 * itself, that every step of every lab states what its solution's code needs, and
 * what make builds for each architecture a class may have (make build-plan, which
 * compiles nothing). The skip binaries, the runner's test hook, bin/lab's SKIPPED rows
 * and the report's reasons are run in the demo lab's tree (tests/test_demo_lab.c). */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_needs.h"
#include "lab_registry.h"
#include "util.h"

START_TEST(needs_name_an_architecture)
{
    struct gpu_need need;
    ck_assert_int_eq(gpu_need_parse("sm_80", &need), 0);
    ck_assert(need.major == 8 && need.minor == 0 && !need.exact);
    ck_assert_int_eq(gpu_need_parse("sm_90a", &need), 0);
    ck_assert(need.major == 9 && need.minor == 0 && need.exact);
    ck_assert_int_eq(gpu_need_parse("sm_120", &need), 0);
    ck_assert(need.major == 12 && need.minor == 0);
    ck_assert_int_eq(gpu_need_parse("86", &need), 0);
    ck_assert(need.major == 8 && need.minor == 6);
    const char *bad[] = {"", "sm_", "sm_8", "sm_90b", "sm_90aa", "sm_1000", "sm_075", "Hopper",
                         "sm_80 ", NULL};
    for (const char **b = bad; *b != NULL; ++b)
        ck_assert_msg(gpu_need_parse(*b, &need) == -1, "'%s' taken", *b);
    ck_assert_int_eq(gpu_need_parse(NULL, &need), -1);
}
END_TEST

/* sm_80 runs on every later GPU; sm_90a on compute capability 9.0 alone */
START_TEST(a_need_is_met_by_later_gpus_an_exact_one_by_its_own)
{
    ck_assert_int_eq(gpu_need_met("sm_75", 7, 5), 1);
    ck_assert_int_eq(gpu_need_met("sm_80", 7, 5), 0);
    ck_assert_int_eq(gpu_need_met("sm_80", 8, 0), 1);
    ck_assert_int_eq(gpu_need_met("sm_80", 8, 9), 1);
    ck_assert_int_eq(gpu_need_met("sm_80", 12, 0), 1);
    ck_assert_int_eq(gpu_need_met("sm_86", 8, 0), 0);
    ck_assert_int_eq(gpu_need_met("sm_90a", 9, 0), 1);
    ck_assert_int_eq(gpu_need_met("sm_90a", 8, 9), 0);
    ck_assert_int_eq(gpu_need_met("sm_90a", 10, 0), 0);
    ck_assert_int_eq(gpu_need_met("sm_90a", 12, 0), 0);
    ck_assert_int_eq(gpu_need_met("nonsense", 9, 0), -1);
    ck_assert(gpu_need_applies(7, 5) && gpu_need_applies(12, 1));
    ck_assert(!gpu_need_applies(1, 0) && !gpu_need_applies(7, 0));
}
END_TEST

START_TEST(the_reason_is_one_line_naming_both)
{
    char why[160], who[64];
    ck_assert_str_eq(gpu_need_reason("sm_90a", "this GPU is", 8, 6, why, sizeof why),
                     "needs sm_90a (Hopper); this GPU is sm_86");
    ck_assert_str_eq(gpu_need_reason("sm_80", "this build is for", 7, 5, why, sizeof why),
                     "needs sm_80 (Ampere); this build is for sm_75");
    ck_assert_str_eq(gpu_need_runs_on("sm_90a", who, sizeof who), "an sm_90 GPU (Hopper)");
    ck_assert_str_eq(gpu_need_runs_on("sm_80", who, sizeof who), "an sm_80 GPU (Ampere) or newer");
    ck_assert_str_eq(gpu_generation(8, 9), "Ada");
    ck_assert_str_eq(gpu_generation(7, 5), "Turing");
    ck_assert_str_eq(gpu_need_reason_text("sm_90a", "this build is for", "sm_75 sm_86", why,
                                          sizeof why),
                     "needs sm_90a (Hopper); this build is for sm_75 sm_86");
}
END_TEST

/* The test hook: LAB_TEST_PRETEND_SM=86 or =sm_86; anything else is refused */
START_TEST(the_test_hook_names_an_architecture)
{
    int major = 0, minor = 0;
    unsetenv(GPU_PRETEND_SM_VARIABLE);
    ck_assert_int_eq(gpu_pretend_sm(&major, &minor), 0);
    setenv(GPU_PRETEND_SM_VARIABLE, "86", 1);
    ck_assert_int_eq(gpu_pretend_sm(&major, &minor), 1);
    ck_assert(major == 8 && minor == 6);
    setenv(GPU_PRETEND_SM_VARIABLE, "sm_75", 1);
    ck_assert_int_eq(gpu_pretend_sm(&major, &minor), 1);
    ck_assert(major == 7 && minor == 5);
    setenv(GPU_PRETEND_SM_VARIABLE, "sm_90a", 1); /* a GPU is no arch-specific target */
    ck_assert_int_eq(gpu_pretend_sm(&major, &minor), -1);
    setenv(GPU_PRETEND_SM_VARIABLE, "turing", 1);
    ck_assert_int_eq(gpu_pretend_sm(&major, &minor), -1);
    unsetenv(GPU_PRETEND_SM_VARIABLE);
}
END_TEST

/* make test's side: a GPU case whose binary exits 77 with the reason (the GPU, or a
 * row's library missing where it was built) is listed as SKIPPED with it
 * (tests/run_tests.c reads what util_skip appends); 77 for want of a GPU, or another
 * exit, is not a skip of this kind. */
START_TEST(a_gpu_case_finds_its_step_skipped)
{
    char reason[256];
    ck_assert(util_step_skipped(77, "bin/solutions/matmul_tf32/05-wgmma: needs sm_90a (Hopper); "
                                    "this GPU is sm_86\n", reason, sizeof reason));
    ck_assert_str_eq(reason, "needs sm_90a (Hopper); this GPU is sm_86");
    ck_assert(util_step_skipped(77, "cudnn: needs cuDNN: no cudnn.h and libcudnn.so under /x\n",
                                reason, sizeof reason));
    ck_assert_str_eq(reason, "needs cuDNN: no cudnn.h and libcudnn.so under /x");
    ck_assert(!util_step_skipped(77, "step: no NVIDIA driver or GPU found\n", reason, sizeof reason));
    ck_assert(!util_step_skipped(1, "x: needs sm_90a (Hopper); this GPU is sm_86\n", reason,
                                 sizeof reason));
    char *dir = util_temp_dir("skips");
    ck_assert_ptr_nonnull(dir);
    char path[1024];
    snprintf(path, sizeof path, "%s/skipped-cases", dir);
    const char *before = getenv(UTIL_SKIPS_VARIABLE);
    char *kept = before != NULL ? strdup(before) : NULL;
    setenv(UTIL_SKIPS_VARIABLE, path, 1);
    util_skip("solutions/matmul_tf32/05-wgmma", "needs sm_90a (Hopper); this GPU is sm_86", 1);
    util_skip("matmul_tf32/06-tma", "needs sm_90a (Hopper); this GPU is sm_86", 0);
    if (kept != NULL)
        setenv(UTIL_SKIPS_VARIABLE, kept, 1);
    else
        unsetenv(UTIL_SKIPS_VARIABLE);
    free(kept);
    char *text = util_read_file(path, NULL);
    ck_assert_msg(text != NULL && strcmp(text, "case solutions/matmul_tf32/05-wgmma: needs sm_90a "
                                               "(Hopper); this GPU is sm_86\npart matmul_tf32/"
                                               "06-tma: needs sm_90a (Hopper); this GPU is sm_86\n") == 0,
                  "%s", text ? text : "no file");
    free(text);
    util_remove_tree(dir);
    free(dir);
}
END_TEST

/* What a solution's code asks of the GPU, read from the file itself: wgmma, TMA,
 * setmaxnreg and clusters exist on sm_90a alone; cp.async, mma.sync and WMMA in TF32
 * or BF16 came with sm_80. The least need its code shows, as a gpu_need string. */
static const char *need_shown_by(const char *text)
{
    static const char *const hopper[] = {"wgmma", "cp.async.bulk", "setmaxnreg", "cluster_sync",
                                         "barrier.cluster", NULL};
    static const char *const ampere[] = {"cp.async", "mma.sync", "wmma::", "__pipeline", NULL};
    for (const char *const *w = hopper; *w != NULL; ++w)
        if (strstr(text, *w) != NULL)
            return "sm_90a";
    for (const char *const *w = ampere; *w != NULL; ++w)
        if (strstr(text, *w) != NULL)
            return "sm_80";
    return "sm_75";
}

/* Every step and row of every lab names an architecture, and every step needs at
 * least what its solution's code shows (a step that starts using cp.async without
 * saying sm_80 fails here); the TF32 lab's Hopper steps say exactly sm_90a. */
START_TEST(every_step_says_what_its_code_needs)
{
    struct gpu_need need;
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *t = *it;
        for (size_t r = 0; r < t->row_count; ++r)
            ck_assert_msg(gpu_need_parse(t->rows[r].needs, &need) == 0, "%s %s: needs '%s'",
                          t->lab, t->rows[r].name, t->rows[r].needs);
        for (size_t s = 0; s < t->count; ++s) {
            char stem[128], path[300];
            step_stem(&t->steps[s], stem, sizeof stem);
            const char *needs = t->steps[s].needs;
            ck_assert_msg(gpu_need_parse(needs, &need) == 0, "%s %s: needs '%s'", t->lab, stem,
                          needs);
            if (students_copy())
                continue; /* no solutions/ to read */
            snprintf(path, sizeof path, "solutions/%s/%s.cu", t->lab, stem);
            char *text = util_read_file(path, NULL);
            ck_assert_msg(text != NULL, "cannot read %s", path);
            const char *shown = need_shown_by(text);
            free(text);
            struct gpu_need least;
            gpu_need_parse(shown, &least);
            if (least.exact)
                ck_assert_msg(strcmp(needs, shown) == 0, "%s uses Hopper's own instructions but "
                              "needs '%s' (sm_90a)", path, needs);
            else
                ck_assert_msg(gpu_need_met(shown, need.major, need.minor) == 1,
                              "%s shows a need of %s but its lab.def line says %s", path, shown,
                              needs);
        }
    }
}
END_TEST

/* make build-plan ARCH=X for the architectures a class is likely to have, alone and
 * together (one build for a room of mixed cards): every step and row of every lab is
 * built for those of X that run it (an exact need, sm_90a, as itself), and marked as a
 * skip binary that names its need when none does. make parses the Makefile and compiles
 * nothing. */
static const char *const class_archs[] = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90",
                                          "sm_80 sm_86 sm_89 sm_90", "sm_75 sm_86"};
static char plan[1 << 16], plan_err[1 << 12];

static void check_plan_line(const char *arch, const char *lab, const char *name,
                            const char *needs, int library_row)
{
    char line[300], expected[300];
    snprintf(line, sizeof line, "\n%s %s ", lab, name);
    const char *at = strstr(plan, line);
    ck_assert_msg(at != NULL, "ARCH=%s: no line for %s %s in\n%s", arch, lab, name, plan);
    at += strlen(line);
    /* a library row whose library this machine lacks names the library instead
     * (test_attention.c builds one such) */
    if (library_row && strncmp(at, "skip needs ", 11) == 0 && strncmp(at + 11, "sm_", 3) != 0)
        return;
    /* each architecture of ARCH that runs it, in ARCH's order (an exact need as itself) */
    char words[64], *save = NULL;
    expected[0] = '\0';
    snprintf(words, sizeof words, "%s", arch);
    for (char *w = strtok_r(words, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save)) {
        struct gpu_need x;
        gpu_need_parse(w, &x);
        if (gpu_need_met(needs, x.major, x.minor) == 1)
            snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%s",
                     expected[0] ? " " : "", strchr(needs, 'a') != NULL ? needs : w);
    }
    if (expected[0] == '\0')
        snprintf(expected, sizeof expected, "skip needs %s", needs);
    strncat(expected, "\n", sizeof expected - strlen(expected) - 1);
    ck_assert_msg(strncmp(at, expected, strlen(expected)) == 0, "ARCH=%s: %s %s is '%.40s', not '%s'",
                  arch, lab, name, at, expected);
}

START_TEST(make_builds_or_marks_every_step_for_each_arch)
{
    char command[512];
    snprintf(command, sizeof command, "%sprintf '\\n'; make -s --no-print-directory ARCH='%s' "
             "build-plan", UTIL_FRESH_MAKE, class_archs[_i]);
    int code = util_run_shell(command, plan, sizeof plan, plan_err, sizeof plan_err);
    ck_assert_msg(code == 0, "make build-plan ARCH=%s: exit %d\n%s%s", class_archs[_i], code, plan,
                  plan_err);
    size_t lines = 0;
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *t = *it;
        char stem[128];
        for (size_t s = 0; s < t->count; ++s, ++lines)
            check_plan_line(class_archs[_i], t->lab,
                            step_stem(&t->steps[s], stem, sizeof stem), t->steps[s].needs, 0);
        for (size_t r = 0; r < t->row_count; ++r, ++lines)
            check_plan_line(class_archs[_i], t->lab, t->rows[r].name, t->rows[r].needs,
                            strcmp(t->rows[r].role, "library") == 0);
    }
    ck_assert_int_eq(count_lines(plan), (int)lines + 1); /* and nothing else */
}
END_TEST

/* make run on a GPU with no recorded ceilings measures them once (make peaks-once,
 * which make run calls), saying so; a GPU with them, or none, measures nothing. The
 * GPU and bin/peaks are fakes (tests/fixtures/peaks-once) recording into a temporary
 * results tree. */
START_TEST(an_unseen_gpu_gets_its_ceilings_measured_once)
{
    char *dir = util_temp_dir("peaks-once");
    ck_assert_ptr_nonnull(dir);
    char command[2048], out[4096], err[4096];
    snprintf(command, sizeof command,
             "%sfor gpu in New-GPU New-GPU ''; do FAKE_GPU_DIR=$gpu make -s --no-print-directory "
             "peaks-once GPU_PROBE=tests/fixtures/peaks-once/gpu-probe "
             "PEAKS_CMD=tests/fixtures/peaks-once/peaks RESULTS_ROOT='%s' || exit; done",
             UTIL_FRESH_MAKE, dir);
    int code = util_run_shell(command, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "exit %d\n%s%s", code, out, err);
    /* said once, measured once: the second make run finds its peaks.csv */
    ck_assert_msg(strstr(out, "this GPU has no measured ceilings yet") != NULL, "%s", out);
    ck_assert_msg(strstr(strstr(out, "measuring them once") + 1, "measuring them once") == NULL,
                  "said twice:\n%s", out);
    char path[4200], runs[64] = "";
    snprintf(path, sizeof path, "%s/peaks-runs", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t got = fread(runs, 1, sizeof runs - 1, f);
    fclose(f);
    runs[got] = '\0';
    ck_assert_str_eq(runs, "run\n");
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(command), 0);
    free(dir);
}
END_TEST

/* ARCH naming a lab room's architectures: the explorer, which explores one, takes the
 * first and says so in one line, instead of handing its tool a stray word. */
START_TEST(the_explorer_takes_one_of_several_archs)
{
    if (students_copy()) { /* make explore is the instructors' (refused in the copy) */
        util_skip("gpu_needs: the_explorer_takes_one_of_several_archs",
                  "the explorer is not in the students' copy", 1);
        return;
    }
    char command[512];
    static char out[1 << 16], err[1 << 16];
    snprintf(command, sizeof command,
             "%smake -s --no-print-directory explore-configs ARCH='sm_80 sm_90'",
             UTIL_FRESH_MAKE);
    int code = util_run_shell(command, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "exit %d\n%.1000s", code, err);
    ck_assert_msg(strstr(out, "make explore: ARCH names 2 architectures and the explorer explores "
                              "one: sm_80 (EXPLORER_ARCH= picks another)") != NULL,
                  "%.1000s", out);
    ck_assert_msg(strstr(out, "001-paper") != NULL &&
                      (strstr(out, "valid for sm_80") != NULL || strstr(err, "valid for sm_80") != NULL),
                  "no configuration listed for sm_80:\n%.500s\n%.500s", out, err);
}
END_TEST

Suite *gpu_needs_suite(void)
{
    Suite *s = suite_create("gpu_needs");
    TCase *tc = tcase_create("the rule");
    tcase_add_test(tc, needs_name_an_architecture);
    tcase_add_test(tc, a_need_is_met_by_later_gpus_an_exact_one_by_its_own);
    tcase_add_test(tc, the_reason_is_one_line_naming_both);
    tcase_add_test(tc, the_test_hook_names_an_architecture);
    tcase_add_test(tc, a_gpu_case_finds_its_step_skipped);
    tcase_add_test(tc, every_step_says_what_its_code_needs);
    suite_add_tcase(s, tc);
    tc = tcase_create("make build-plan");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, make_builds_or_marks_every_step_for_each_arch, 0,
                        (int)(sizeof class_archs / sizeof class_archs[0]));
    tcase_add_test(tc, an_unseen_gpu_gets_its_ceilings_measured_once);
    tcase_add_test(tc, the_explorer_takes_one_of_several_archs);
    suite_add_tcase(s, tc);
    return s;
}

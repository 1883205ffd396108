/* bin/occupancy, the occupancy model's command line (the model itself:
 * tests/test_occupancy.c): its tables for the seeds' GPU and the H100, its lists and
 * help, one line and exit 2 for every bad input, and the Makefile's check of ARCH=
 * and WHATIF= with it, before anything is built. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "occupancy.h"
#include "util.h"

static char tool_out[16384], tool_err[4096];

static int run_tool(const char *a1, const char *a2, const char *a3, const char *a4, const char *a5,
                    const char *a6, const char *a7, const char *a8)
{
    char path[512];
    char *argv[] = {(char *)bin_path("occupancy", path, sizeof path),
                    (char *)a1, (char *)a2, (char *)a3, (char *)a4, (char *)a5, (char *)a6,
                    (char *)a7, (char *)a8, NULL};
    tool_out[0] = tool_err[0] = '\0';
    return run_capture(argv, NULL, tool_out, sizeof tool_out, tool_err, sizeof tool_err);
}

static void assert_bad_input(int code)
{
    ck_assert_int_eq(code, 2);
    ck_assert_str_eq(tool_out, "");
    ck_assert_int_eq(count_lines(tool_err), 1);
    ck_assert_ptr_nonnull(strstr(tool_err, "occupancy: "));
}

START_TEST(tool_shows_the_g80_cliff)
{
    ck_assert_int_eq(run_tool("--arch", "g80", "--threads", "256", "--regs", "10", NULL, NULL), 0);
    ck_assert_str_eq(tool_err, "");
    ck_assert_ptr_nonnull(strstr(tool_out, "blocks per SM: 3, limited by threads"));
    ck_assert_ptr_nonnull(strstr(tool_out, "24 of 24 (100.0% occupancy)"));
    ck_assert_ptr_nonnull(strstr(tool_out, "registers: 0 more per thread before losing a block (11 gives 2 blocks)"));

    ck_assert_int_eq(run_tool("--arch", "g80", "--threads", "256", "--regs", "13", "--smem", "2088"), 0);
    ck_assert_ptr_nonnull(strstr(tool_out, "blocks per SM: 2, limited by regs"));
    ck_assert_ptr_nonnull(strstr(tool_out, "shared memory: 6104 more bytes per block"));
}
END_TEST

START_TEST(tool_on_h100)
{
    ck_assert_int_eq(run_tool("--arch=sm_90", "--threads=256", "--regs=32", "--smem=48K", NULL, NULL,
                              NULL, NULL),
                     0);
    ck_assert_ptr_nonnull(strstr(tool_out, "blocks per SM: 4, limited by smem"));
    ck_assert_ptr_nonnull(strstr(tool_out, "49152 + 1024 reserved"));
    ck_assert_int_eq(run_tool("--arch", "h100", "--threads", "1024", "--regs", "64", NULL, NULL), 0);
    ck_assert_ptr_nonnull(strstr(tool_out, "cannot launch"));
}
END_TEST

START_TEST(tool_lists_and_helps)
{
    ck_assert_int_eq(run_tool("--list", NULL, NULL, NULL, NULL, NULL, NULL, NULL), 0);
    ck_assert_ptr_nonnull(strstr(tool_out, "sm_90"));
    ck_assert_ptr_nonnull(strstr(tool_out, "GeForce 8800 GTX"));
    ck_assert_int_ge(count_lines(tool_out), 13);
    ck_assert_int_eq(run_tool("--help", NULL, NULL, NULL, NULL, NULL, NULL, NULL), 0);
    ck_assert_ptr_nonnull(strstr(tool_out, "--threads"));
}
END_TEST

START_TEST(tool_rejects_bad_input)
{
    assert_bad_input(run_tool("--arch", "sm_91", "--threads", "256", "--regs", "10", NULL, NULL));
    assert_bad_input(run_tool("--threads", "abc", "--regs", "10", NULL, NULL, NULL, NULL));
    assert_bad_input(run_tool("--threads", "256x", "--regs", "10", NULL, NULL, NULL, NULL));
    assert_bad_input(run_tool("--threads", "0", "--regs", "10", NULL, NULL, NULL, NULL));
    assert_bad_input(run_tool("--threads", "-256", "--regs", "10", NULL, NULL, NULL, NULL));
    assert_bad_input(run_tool("--threads", "256", "--regs", "0", NULL, NULL, NULL, NULL));
    assert_bad_input(run_tool("--threads", "256", "--regs", "10", "--smem", "-1", NULL, NULL));
    assert_bad_input(run_tool("--threads", "256", NULL, NULL, NULL, NULL, NULL, NULL));
    assert_bad_input(run_tool("--threads", NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    assert_bad_input(run_tool("--frobnicate", NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    /* well-formed but impossible launches */
    assert_bad_input(run_tool("--arch", "sm_90", "--threads", "2048", "--regs", "10", NULL, NULL));
    assert_bad_input(run_tool("--arch", "sm_90", "--threads", "256", "--regs", "300", NULL, NULL));
    ck_assert_ptr_nonnull(strstr(tool_err, "255")); /* the per-thread limit, checked first */
    assert_bad_input(run_tool("--arch", "sm_90", "--threads", "1024", "--regs", "65", NULL, NULL));
    ck_assert_ptr_nonnull(strstr(tool_err, "65536"));
    assert_bad_input(run_tool("--arch", "g80", "--threads", "32", "--regs", "10", "--smem", "17K"));
}
END_TEST

START_TEST(tool_checks_each_option_before_asking_for_the_others)
{
    /* a given option that is wrong is named, not "--regs is required" */
    const char *bad[][2] = {{"0", "--threads"}, {"abc", "--threads"}, {"4096", "--threads"},
                            {"-3", "--threads"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        assert_bad_input(run_tool("--threads", bad[i][0], NULL, NULL, NULL, NULL, NULL, NULL));
        ck_assert_msg(strstr(tool_err, bad[i][1]) != NULL && strstr(tool_err, bad[i][0]) != NULL &&
                          strstr(tool_err, "required") == NULL,
                      "--threads %s: %s", bad[i][0], tool_err);
    }
    assert_bad_input(run_tool("--smem", "1G", NULL, NULL, NULL, NULL, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(tool_err, "--smem 1G: cannot launch: 1073741824 bytes"));
    ck_assert_ptr_nonnull(strstr(tool_err, "232448"));
    assert_bad_input(run_tool("--smem", "lots", "--threads", "256", NULL, NULL, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(tool_err, "--smem must be a whole number of bytes"));
    assert_bad_input(run_tool("--regs", "300", NULL, NULL, NULL, NULL, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(tool_err, "--regs 300: cannot launch: 300 registers per thread exceeds the 255"));
    assert_bad_input(run_tool("--regs", "x1", "--threads", "256", NULL, NULL, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(tool_err, "--regs must be a whole number"));
    assert_bad_input(run_tool("--arch", "g80", "--regs", "125", NULL, NULL, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(tool_err, "124"));
    /* all given and well-formed, one missing: then it is the missing one */
    assert_bad_input(run_tool("--threads", "256", NULL, NULL, NULL, NULL, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(tool_err, "--regs is required"));
    assert_bad_input(run_tool("--regs", "32", "--smem", "2K", NULL, NULL, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(tool_err, "--threads is required"));
    /* M and G are sizes too */
    ck_assert_int_eq(run_tool("--threads", "32", "--regs", "16", "--smem", "0M", NULL, NULL), 0);
}
END_TEST

START_TEST(tool_refuses_a_block_that_cannot_launch)
{
    /* an error with exit 2 and one line, never an answer with "headroom" */
    const char *cases[][4] = {
        {"sm_90", "4096", "10", "4096 threads per block exceeds the 1024"},
        {"sm_90", "1025", "10", "1025 threads per block exceeds the 1024"},
        {"g80", "768", "10", "768 threads per block exceeds the 512"},
        {"sm_90", "256", "256", "256 registers per thread exceeds the 255"},
        /* the thread's limit, not a block of "1 threads x 999 registers" */
        {"g80", "256", "999", "999 registers per thread exceeds the 124 a thread may use on sm_10"},
        {"sm_90", "1024", "65", "more than the 65536 a block may use"},
        {"sm_87", "2048", "32", "2048 threads per block exceeds the 1024 a block may have on sm_87"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        assert_bad_input(run_tool("--arch", cases[i][0], "--threads", cases[i][1], "--regs",
                                  cases[i][2], NULL, NULL));
        ck_assert_msg(strstr(tool_err, "cannot launch") != NULL && strstr(tool_err, cases[i][3]) != NULL,
                      "%s %s x %s: %s", cases[i][0], cases[i][1], cases[i][2], tool_err);
    }
    assert_bad_input(run_tool("--arch", "sm_90", "--threads", "32", "--regs", "16", "--smem", "228K"));
    ck_assert_ptr_nonnull(strstr(tool_err, "cannot launch: 233472 bytes of shared memory per block exceeds the 232448"));
}
END_TEST

START_TEST(tool_checks_an_architecture_name)
{
    ck_assert_int_eq(run_tool("--check-arch", "sm_87", NULL, NULL, NULL, NULL, NULL, NULL), 0);
    ck_assert_str_eq(tool_out, "");
    ck_assert_str_eq(tool_err, "");
    ck_assert_int_eq(run_tool("--check-arch=sm_121a", NULL, NULL, NULL, NULL, NULL, NULL, NULL), 0);
    ck_assert_int_eq(run_tool("--check-arch", "g80", NULL, NULL, NULL, NULL, NULL, NULL), 0);
    assert_bad_input(run_tool("--check-arch", "garbage", NULL, NULL, NULL, NULL, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(tool_err, "unknown architecture 'garbage'"));
    /* the one line names every known architecture */
    for (const struct gpu_arch *a = gpu_archs; a->name != NULL; ++a) {
        char word[16];
        snprintf(word, sizeof word, " %s ", a->name);
        ck_assert_msg(strstr(tool_err, word) != NULL, "'%s' is not named in: %s", a->name, tool_err);
    }
    assert_bad_input(run_tool("--check-arch", "", NULL, NULL, NULL, NULL, NULL, NULL));
    assert_bad_input(run_tool("--check-arch", NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    /* --arch says the same */
    assert_bad_input(run_tool("--arch", "sm_91", "--threads", "32", "--regs", "16", NULL, NULL));
    ck_assert_ptr_nonnull(strstr(tool_err, " sm_90 "));
}
END_TEST

START_TEST(tool_help_documents_every_option_and_exit_code)
{
    ck_assert_int_eq(run_tool("--help", NULL, NULL, NULL, NULL, NULL, NULL, NULL), 0);
    ck_assert_str_eq(tool_err, "");
    const char *needles[] = {"--arch ARCH", "--threads N", "--regs N", "--smem BYTES", "--list",
                             "--check-arch ARCH", "--help", "Exit status", "  0  ", "  2  ",
                             "cannot launch", "48K"};
    for (size_t i = 0; i < sizeof needles / sizeof needles[0]; ++i)
        ck_assert_msg(strstr(tool_out, needles[i]) != NULL, "--help does not mention '%s'", needles[i]);
}
END_TEST

START_TEST(tool_lists_every_architecture_with_an_example_gpu)
{
    ck_assert_int_eq(run_tool("--list", NULL, NULL, NULL, NULL, NULL, NULL, NULL), 0);
    int count = 0;
    for (const struct gpu_arch *a = gpu_archs; a->name != NULL; ++a, ++count) {
        char start[16];
        snprintf(start, sizeof start, "\n%s ", a->name);
        const char *line = strstr(tool_out, start);
        ck_assert_msg(line != NULL, "--list has no line for %s", a->name);
        const char *end = strchr(line + 1, '\n');
        const char *gpu = strstr(line, a->example_gpu);
        ck_assert_msg(gpu != NULL && (end == NULL || gpu < end), "%s's line does not name %s", a->name,
                      a->example_gpu);
    }
    const char *expected[] = {"sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_100",
                              "sm_103", "sm_110", "sm_120", "sm_121", "sm_10", "sm_13", "sm_20", "sm_30"};
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; ++i) {
        char start[16];
        snprintf(start, sizeof start, "\n%s ", expected[i]);
        ck_assert_msg(strstr(tool_out, start) != NULL, "--list has no line for %s", expected[i]);
    }
    ck_assert_int_ge(count_lines(tool_out), count + 1);
}
END_TEST

/* make ARCH=... and make report WHATIF=... stop before building anything when the
 * name (or one of several) is unknown, in one line that names the variable. */
START_TEST(make_checks_arch_and_whatif_first)
{
    if (access("Makefile", R_OK) != 0 || access("harness/tools/occupancy.c", R_OK) != 0)
        ck_abort_msg("run from the repository root (make test does)");
    char out[16384], err[4096];
    const char *cases[][2] = {
        {"make --no-print-directory -n ARCH=garbage", "ARCH=garbage: unknown architecture 'garbage'"},
        {"make --no-print-directory -n report WHATIF=garbage",
         "WHATIF=garbage: unknown architecture 'garbage'"},
        {"ARCH=sm_99 make --no-print-directory -n", "ARCH=sm_99: unknown architecture"},
        /* known to the model but not a target of this nvcc: refused before nvcc fails */
        {"make --no-print-directory -n ARCH=g80", "ARCH=g80: nvcc "},
        /* (the stand-in nvcc of tests/fixtures/toolkit builds sm_75 and later, whatever
         * toolkit is installed: CUDA 12's builds sm_70) */
        {"make --no-print-directory -n ARCH=sm_70 NVCC=tests/fixtures/toolkit/bin/nvcc", "cannot build for sm_70;"},
        /* several architectures (one build for mixed cards): each is checked, the bad one named */
        {"make --no-print-directory -n ARCH='sm_80 sm_70' NVCC=tests/fixtures/toolkit/bin/nvcc",
         "ARCH=sm_80 sm_70: nvcc "},
        {"make --no-print-directory -n ARCH='sm_80 garbage'", "unknown architecture 'garbage'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        int rc = util_run_shell(cases[i][0], out, sizeof out, err, sizeof err);
        ck_assert_msg(rc == 2, "%s: exit %d, stderr: %s", cases[i][0], rc, err);
        ck_assert_msg(strstr(err, cases[i][1]) != NULL, "%s: %s", cases[i][0], err);
        ck_assert_msg(strstr(err, "sm_87") != NULL, "%s does not name the known ones: %s", cases[i][0], err);
        ck_assert_int_eq(count_lines(err), 1);
        ck_assert_str_eq(out, "");
    }
    /* a known one passes the check */
    int rc = util_run_shell("make --no-print-directory -n bin/occupancy ARCH=sm_87 WHATIF=g80", out, sizeof out,
                       err, sizeof err);
    ck_assert_msg(rc == 0, "ARCH=sm_87 WHATIF=g80: exit %d, stderr: %s", rc, err);
}
END_TEST

Suite *occupancy_tool_suite(void)
{
    Suite *s = suite_create("occupancy_tool");
    TCase *tc;
    tc = tcase_create("tool");
    tcase_add_test(tc, tool_shows_the_g80_cliff);
    tcase_add_test(tc, tool_on_h100);
    tcase_add_test(tc, tool_lists_and_helps);
    tcase_add_test(tc, tool_rejects_bad_input);
    tcase_add_test(tc, tool_checks_each_option_before_asking_for_the_others);
    tcase_add_test(tc, tool_refuses_a_block_that_cannot_launch);
    tcase_add_test(tc, tool_checks_an_architecture_name);
    tcase_add_test(tc, tool_help_documents_every_option_and_exit_code);
    tcase_add_test(tc, tool_lists_every_architecture_with_an_example_gpu);
    tcase_add_test(tc, make_checks_arch_and_whatif_first);
    tcase_set_timeout(tc, 30);
    suite_add_tcase(s, tc);
    return s;
}

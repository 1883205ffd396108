/* Which CUDA Toolkit make builds with (harness/toolkit.mk): NVCC=, else CUDA_HOME=,
 * else the nvcc on PATH, else the installers' default place; one line and exit 2 when
 * there is none. A stand-in toolkit (tests/fixtures/toolkit: an nvcc that only states
 * its version and targets) stands for the one chosen; make is asked what it chose
 * (--eval adds a goal that prints it) and builds nothing. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static char out[16384], err[16384];
static char fixture_home[PATH_MAX];

/* make with `environment` before it (env's assignments and -u), asked what it chose */
static int make_chooses(const char *environment, const char *make_args)
{
    char command[4 * PATH_MAX];
    snprintf(command, sizeof command,
             "env %s make --no-print-directory %s "
             "--eval 'chosen-toolkit: ; @echo \"NVCC=$(NVCC) CUDA_HOME=$(CUDA_HOME)\"' chosen-toolkit",
             environment, make_args);
    return util_run_shell(command, out, sizeof out, err, sizeof err);
}

static void setup(void)
{
    char rel[PATH_MAX];
    if (realpath(fixture_path("toolkit", rel, sizeof rel), fixture_home) == NULL)
        ck_abort_msg("no fixture toolkit at %s", rel);
}

static void assert_chose_fixture(const char *what, int rc)
{
    char expected[3 * PATH_MAX];
    snprintf(expected, sizeof expected, "NVCC=%s/bin/nvcc CUDA_HOME=%s\n", fixture_home, fixture_home);
    ck_assert_msg(rc == 0, "%s: exit %d, stderr: %s", what, rc, err);
    ck_assert_msg(strstr(out, expected) != NULL, "%s: expected %s, got %s", what, expected, out);
}

/* The toolkit installed but not on PATH (the first thing many students meet): with
 * CUDA_HOME set, its bin/nvcc; with nothing set, the default place. */
START_TEST(finds_nvcc_off_path)
{
    char environment[2 * PATH_MAX], args[2 * PATH_MAX];
    snprintf(environment, sizeof environment, "-u NVCC CUDA_HOME='%s' PATH=/usr/bin:/bin", fixture_home);
    assert_chose_fixture("CUDA_HOME in the environment", make_chooses(environment, ""));

    snprintf(args, sizeof args, "CUDA_DEFAULT_HOME='%s'", fixture_home);
    assert_chose_fixture("the default place", make_chooses("-u NVCC -u CUDA_HOME PATH=/usr/bin:/bin", args));
}
END_TEST

/* NVCC= names the toolkit around it, whatever CUDA_HOME the environment has; and
 * CUDA_HOME= on the command line names its nvcc, whatever is on PATH. */
START_TEST(nvcc_and_cuda_home_choose_the_toolkit)
{
    char args[2 * PATH_MAX];
    snprintf(args, sizeof args, "NVCC='%s/bin/nvcc'", fixture_home);
    assert_chose_fixture("NVCC=", make_chooses("CUDA_HOME=/usr/local/cuda", args));

    snprintf(args, sizeof args, "CUDA_HOME='%s'", fixture_home);
    assert_chose_fixture("CUDA_HOME=", make_chooses("-u NVCC", args));
}
END_TEST

/* No nvcc anywhere, or one named that is not there: one line that says what to set,
 * exit 2, nothing run. */
START_TEST(no_nvcc_is_one_line)
{
    const char *cases[][3] = {
        {"-u NVCC -u CUDA_HOME PATH=/usr/bin:/bin", "CUDA_DEFAULT_HOME=/nonexistent",
         "nvcc not found (not on PATH, nor in /nonexistent/bin)"},
        {"-u CUDA_HOME", "NVCC=/nonexistent/nvcc", "NVCC=/nonexistent/nvcc: no such program"},
        {"-u NVCC", "CUDA_HOME=/nonexistent", "CUDA_HOME=/nonexistent has no bin/nvcc"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        int rc = make_chooses(cases[i][0], cases[i][1]);
        ck_assert_msg(rc == 2, "%s %s: exit %d, stderr: %s", cases[i][0], cases[i][1], rc, err);
        ck_assert_msg(strstr(err, cases[i][2]) != NULL, "%s: %s", cases[i][1], err);
        ck_assert_msg(strstr(err, "CUDA_HOME=") != NULL && strstr(err, "NVCC=") != NULL &&
                          strstr(err, "PATH") != NULL,
                      "%s does not say how to point to the toolkit: %s", cases[i][1], err);
        ck_assert_int_eq(count_lines(err), 1);
        ck_assert_str_eq(out, "");
    }
}
END_TEST

Suite *toolkit_suite(void)
{
    Suite *s = suite_create("toolkit");
    TCase *tc = tcase_create("choice");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, finds_nvcc_off_path);
    tcase_add_test(tc, nvcc_and_cuda_home_choose_the_toolkit);
    tcase_add_test(tc, no_nvcc_is_one_line);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}

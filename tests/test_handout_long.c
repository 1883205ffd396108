/* The students' first commands in the handout (make handout), built from nothing: a
 * long check that needs no GPU (minutes of CPU: every labs/ step compiled, then the
 * copy's whole make test). `make test` runs it where no GPU is visible or with
 * CI=true, as CI does, and `make test-long` runs it anywhere (tests/suites.h: LONG);
 * on a GPU machine make test lists it as SKIPPED: its minutes of CPU beside the GPU
 * cases took make test on the H100 past five minutes (2026-11-28). This suite is the
 * instructor's: the handout leaves it out. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_registry.h"
#include "util.h"

static char out[1 << 16], err[1 << 16];

/* The failed cases of a Check log (its ":F:" and ":E:" lines), for the message. */
static const char *failed_cases(const char *log)
{
    static char lines[4096];
    lines[0] = '\0';
    for (const char *p = log; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        size_t n = strcspn(p, "\n"), used = strlen(lines);
        if ((memmem(p, n, ":F:", 3) != NULL || memmem(p, n, ":E:", 3) != NULL) &&
            used + n + 2 < sizeof lines)
            snprintf(lines + used, sizeof lines - used, "%.*s\n", (int)n, p);
    }
    return lines[0] != '\0' ? lines : "";
}

/* The lines of text that start with "name " and say PASS. */
static int passed_lines(const char *text, const char *name)
{
    int count = 0;
    size_t len = strlen(name);
    for (const char *p = text; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        size_t n = strcspn(p, "\n");
        if (n > len && strncmp(p, name, len) == 0 && p[len] == ' ' && memmem(p, n, " PASS", 5) != NULL)
            ++count;
    }
    return count;
}

/* The students' first commands, in a handout built from nothing, with the GPU hidden
 * (this is what CI sees): make run (the static report, exit 0), make report, make
 * test (everything passes; the GPU cases are skipped by name, the labs/ one among
 * them, and no case of the solutions is run or listed). */
START_TEST(handout_runs_and_tests_without_a_gpu)
{
    char dest[512];
    char *dir = util_make_handout(dest, sizeof dest, out, sizeof out, err, sizeof err);
    ck_assert_msg(dir != NULL, "make handout failed:\n%s%s", out, err);
    int code = util_shell_with_arg(UTIL_FRESH_MAKE "cd \"$1\" && export CUDA_VISIBLE_DEVICES= && "
                                "make --no-print-directory run >../run.log 2>&1 && "
                                "echo run done && "
                                "make --no-print-directory report >../report.log 2>&1 && "
                                "echo report done && "
                                "CK_VERBOSITY=verbose make --no-print-directory test "
                                ">../test.log 2>&1 && echo test done",
                     dest, out, sizeof out, err, sizeof err);
    char path[600];
    snprintf(path, sizeof path, "%s/run.log", dir);
    char *run = util_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/report.log", dir);
    char *report = util_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/test.log", dir);
    char *test = util_read_file(path, NULL);
    int removed = util_remove_tree(dir);
    free(dir);
    const char *last = test != NULL ? test : report != NULL ? report : run != NULL ? run : "";
    ck_assert_msg(code == 0, "in the handout: exit %d after '%s'; its log ends:\n%s%s", code, out,
                  last + (strlen(last) > 3000 ? strlen(last) - 3000 : 0), failed_cases(last));
    ck_assert_int_eq(removed, 0);
    /* every lab's CPU rows ran on the CPU alone and passed, then one line said why the
     * steps did not */
    int cpu_rows = 0, cpu_rows_passed = 0;
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it)
        for (size_t r = 0; r < (*it)->row_count; ++r)
            if (strcmp((*it)->rows[r].role, "cpu") == 0) {
                ++cpu_rows;
                cpu_rows_passed += passed_lines(run, (*it)->rows[r].name) > 0;
            }
    ck_assert_msg(cpu_rows_passed == cpu_rows, "%d of %d CPU rows passed in make run:\n%s",
                  cpu_rows_passed, cpu_rows, run);
    ck_assert_ptr_nonnull(strstr(run, "No GPU: the steps need one, so none ran"));
    ck_assert_ptr_nonnull(strstr(run, "no NVIDIA driver or GPU found"));
    ck_assert_ptr_nonnull(strstr(report, "Static resource report"));
    const char *summary = strstr(test, "\ntests: ");
    ck_assert_msg(summary != NULL, "%s", test);
    int passed = 0, failed = -1, skipped = 0;
    ck_assert_int_eq(sscanf(summary, "\ntests: %d passed, %d failed, %d skipped", &passed, &failed,
                            &skipped), 3);
    ck_assert_int_eq(failed, 0);
    ck_assert_int_gt(passed, 50);
    ck_assert_msg(strstr(test, "students' copy") != NULL, "%s", test);
    /* the students' copy's own checks ran, and passed */
    ck_assert_ptr_nonnull(strstr(test, ":every_step_has_a_lab_file_and_a_solution:0: Passed"));
    ck_assert_ptr_nonnull(strstr(test, ":static_report_without_gpu:0: Passed"));
    ck_assert_ptr_nonnull(strstr(test, ":a_new_lab_is_one_folder:0: Passed"));
    ck_assert_ptr_nonnull(strstr(test, "  SKIPPED gpu: every labs/ step passes or is reported TODO"));
    ck_assert_msg(strstr(test, "SKIPPED gpu: solutions/") == NULL, "%s", test);
    free(run);
    free(report);
    free(test);
}
END_TEST

static const char *const names[] = {"handout_runs_and_tests_without_a_gpu"};

size_t handout_long_case_names(const char **out_names, size_t max)
{
    return util_case_names(names, sizeof names / sizeof names[0], out_names, max);
}

Suite *handout_long_suite(void)
{
    Suite *s = suite_create("handout_long");
    TCase *tc = tcase_create("students' commands");
    tcase_set_timeout(tc, 1800); /* the handout built from nothing, and its make test */
    tcase_add_test(tc, handout_runs_and_tests_without_a_gpu);
    suite_add_tcase(s, tc);
    return s;
}

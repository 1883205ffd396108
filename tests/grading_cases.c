#include "grading_cases.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csv.h"
#include "util.h"

char *grading_case_dir(const char *sub, const char *prefix, int *kept)
{
    const char *keep = getenv("LAB_GRADING_KEEP");
    *kept = keep != NULL && keep[0] != '\0';
    if (!*kept)
        return util_temp_dir(prefix);
    mkdir(keep, 0777);
    size_t len = strlen(keep) + (sub != NULL ? strlen(sub) : 0) + 2;
    char *dir = malloc(len);
    if (dir != NULL) {
        snprintf(dir, len, "%s%s%s", keep, sub != NULL ? "/" : "", sub != NULL ? sub : "");
        mkdir(dir, 0777);
    }
    return dir;
}

void grading_case_dir_remove(char *dir, int kept)
{
    if (dir != NULL && !kept)
        util_remove_tree(dir);
    free(dir);
}

int grading_case_grade_all(const char *submissions, const char *book, const char *const *options,
                           const char *lab, const char *step, char *out, size_t out_len, char *err,
                           size_t err_len)
{
    char program[512];
    bin_path("lab", program, sizeof program);
    const char *sanitizer = getenv("COMPUTE_SANITIZER"), *cuobjdump = getenv("CUOBJDUMP");
    enum { FIXED = 10, MOST_OPTIONS = 8 };
    char *argv[FIXED + MOST_OPTIONS + 3] = {
        program, "grade-all", "--submissions", (char *)submissions, "--gradebook", (char *)book,
        "--sanitizer", (char *)(sanitizer ? sanitizer : ""), "--cuobjdump", (char *)(cuobjdump ? cuobjdump : "")};
    int a = FIXED;
    for (size_t i = 0; options != NULL && options[i] != NULL; ++i) {
        ck_assert_msg(i < MOST_OPTIONS, "more than %d options for grade-all", MOST_OPTIONS);
        argv[a++] = (char *)options[i];
    }
    argv[a++] = (char *)lab;
    argv[a++] = (char *)step;
    argv[a] = NULL;
    int code = run_capture(argv, util_plain_make_env, out, out_len, err, err_len);
    printf("%s", out);
    return code;
}

int grading_case_grade_solutions(const char *book, const char *lab, const char *step, char *out,
                                 size_t out_len, char *err, size_t err_len)
{
    char program[512];
    bin_path("lab", program, sizeof program);
    const char *sanitizer = getenv("COMPUTE_SANITIZER");
    const char *env[] = {"MAKEFLAGS=", "GRADE_COUNTERS=1", NULL};
    char *argv[] = {program, "grade", "--submission", "solutions", "--student", "solutions",
                    "--gradebook", (char *)book, "--sanitizer", (char *)(sanitizer ? sanitizer : ""),
                    (char *)lab, (char *)step, NULL};
    int code = run_capture(argv, env, out, out_len, err, err_len);
    printf("%s", out);
    return code;
}

void grading_case_expect_full_marks(const char *book, const char *lab, const char *step, int code,
                                    const char *out, const char *err)
{
    ck_assert_msg(code == 0, "grading solutions/ %s %s exited %d\n%s\n%s", lab,
                  step, code, out, err);
    struct csv_table t;
    char why[256];
    ck_assert_int_eq(csv_read_file(book, &t, why, sizeof why), 0);
    ck_assert_uint_eq(t.nrows, 1);
    ck_assert_str_eq(csv_get(&t, 0, "total"), csv_get(&t, 0, "max"));
    ck_assert_str_eq(csv_get(&t, 0, "not_run"), "0");
    csv_free(&t);
    char *r = grading_case_report(book, "solutions", code, out, err);
    ck_assert_ptr_null(strstr(r, " FAIL "));
    ck_assert_ptr_null(strstr(r, " not-run "));
    /* the step graded is the one asked for, with every check of the rubric */
    char line[128];
    snprintf(line, sizeof line, "  %s/%s-", lab, step);
    ck_assert_msg(strstr(r, line) != NULL, "no '%s' in\n%s", line, r);
    ck_assert_ptr_nonnull(strstr(r, " racecheck PASS"));
    ck_assert_ptr_nonnull(strstr(r, " technique PASS"));
    /* GRADE_COUNTERS=1: where ncu is found ($NCU, else on PATH), the step's counters
     * (ncu's, on the student's build) beside the reference solution's, in one line;
     * where it is not, the report says so once */
    char counters[128], probe[64], found[256] = "", quiet[256];
    snprintf(counters, sizeof counters, "%s/%s-", lab, step);
    snprintf(probe, sizeof probe, "%s", getenv("NCU") != NULL && getenv("NCU")[0] != '\0'
                                            ? "test -x \"$NCU\" && echo yes"
                                            : "command -v ncu >/dev/null && echo yes");
    util_run_shell(probe, found, sizeof found, quiet, sizeof quiet);
    const char *line_at = strstr(r, " counters: yours: ");
    /* the driver's default keeps the counters to administrators, and the sandbox runs
     * the student as none: then the line says why (INSTRUCTORS.md, "The sandbox") */
    char restricted[256] = "";
    util_run_shell("grep -q 'RestrictProfilingToAdminUsers: 1' /proc/driver/nvidia/params "
                   "&& echo yes",
                   restricted, sizeof restricted, quiet, sizeof quiet);
    if (strncmp(found, "yes", 3) == 0 && strncmp(restricted, "yes", 3) == 0) {
        ck_assert_msg(strstr(r, " counters: not measured: ncu in the sandbox runs without "
                                "administrator rights") != NULL &&
                          strstr(r, "ERR_NVGPUCTRPERM") != NULL,
                      "profiling restricted to administrators, but the report does not say "
                      "why the counters are missing:\n%s",
                      r);
    } else if (strncmp(found, "yes", 3) == 0) {
        ck_assert_msg(line_at != NULL && strstr(line_at, "; the reference solution") != NULL,
                      "ncu is there, but no counters line beside the reference's:\n%s", r);
        ck_assert_msg(strstr(r, counters) != NULL && strstr(line_at, "limited by ") != NULL,
                      "%s", r);
    } else {
        ck_assert_msg(line_at == NULL && strstr(r, "ncu not found: no hardware counters") != NULL,
                      "without ncu the report says so once:\n%s", r);
    }
    free(r);
}

char *grading_case_report(const char *book, const char *student, int code, const char *out, const char *err)
{
    char path[1024];
    size_t stem = strlen(book) > 4 && strcmp(book + strlen(book) - 4, ".csv") == 0 ? strlen(book) - 4 : strlen(book);
    snprintf(path, sizeof path, "%.*s.reports/%s.txt", (int)stem, book, student);
    char *text = util_read_file(path, NULL);
    ck_assert_msg(text != NULL, "no report %s (exit %d)\n%s\n%s", path, code, out, err);
    return text;
}

void grading_case_expect(const char *report, const char *line_start, const char *also)
{
    const char *hit = strstr(report, line_start);
    ck_assert_msg(hit != NULL, "no '%s' in\n%s", line_start, report);
    if (also == NULL)
        return;
    /* the next check's line of the same lab: "\n  <lab>/" */
    char next[96];
    const char *slash = strchr(line_start, '/');
    snprintf(next, sizeof next, "\n  %.*s", slash != NULL ? (int)(slash - line_start + 1) : 0, line_start);
    const char *end = slash != NULL ? strstr(hit + 1, next) : NULL;
    size_t len = end ? (size_t)(end - hit) : strlen(hit);
    char *part = strndup(hit, len);
    int found = part != NULL && strstr(part, also) != NULL;
    free(part);
    ck_assert_msg(found, "'%s' does not say '%s':\n%s", line_start, also, report);
}

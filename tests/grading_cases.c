#include "grading_cases.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* An instructor's data is never lost: what grading writes, and what it hands back to a
 * script. Cases of the demo lab suite's test case (tests/test_grading_demo_lab.c), in
 * its tree, graded already (grading_tests.h):
 *   - a gradebook, reports folder or JUnit file that cannot be written is refused
 *     before anything is graded (it used to grade the whole class, say "cannot write"
 *     after each student and end with "gradebook: PATH");
 *   - `make grade` of one student twice leaves one row (it left two), and the grader's
 *     exit code reaches a script through make (GRADE_EXIT_FILE; make alone says 2);
 *   - a row that cannot be written midway is kept where the summary says;
 *   - the report says each thing once: the steps not in the submission, a folder of
 *     many ignored files. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv.h"
#include "demo_lab_tree.h"
#include "grading_tests.h"
#include "util.h"

static char out[1 << 15], err[1 << 14];

/* TMP/name written with text (a folder when text is NULL), its folders made */
static void put(const char *tmp, const char *name, const char *text)
{
    char path[1200], cmd[2600];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    snprintf(cmd, sizeof cmd, text == NULL ? "mkdir -p '%s'" : "mkdir -p \"$(dirname '%s')\"",
             path);
    ck_assert_int_eq(system(cmd), 0);
    if (text == NULL)
        return;
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
}

/* The rows of gradebook path (of student alone, when not NULL); -1: none readable. */
static int rows_in(const char *path, const char *student)
{
    struct csv_table t;
    char why[256];
    if (csv_read_file(path, &t, why, sizeof why) != 0)
        return -1;
    int rows = 0;
    for (size_t r = 0; r < t.nrows; ++r)
        rows += student == NULL || strcmp(csv_get(&t, r, "student"), student) == 0;
    csv_free(&t);
    return rows;
}

START_TEST(gradebook_that_cannot_be_written_is_refused_before_grading)
{
    const char *tree = graded_demo_tree();
    char *tmp = util_temp_dir("grade-unwritable");
    ck_assert_ptr_nonnull(tmp);
    char subs[4200], in_proc[64], reports_file[1200], junit_folder[1200];
    snprintf(subs, sizeof subs, "%s/tests/fixtures/demo-submissions", graded_demo_root());
    /* a place no one can write, root included (the tests may run as root) */
    snprintf(in_proc, sizeof in_proc, "/proc/lab-grading-%ld/book.csv", (long)getpid());
    snprintf(reports_file, sizeof reports_file, "%s/a/book.csv", tmp);
    put(tmp, "a/book.reports", "a file where the reports folder goes\n");
    snprintf(junit_folder, sizeof junit_folder, "%s/b/book.csv", tmp);
    put(tmp, "b/book.junit.xml", NULL);
    static const char *const says[] = {"cannot write the gradebook in /proc/lab-grading-",
                                       "cannot write the reports in ",
                                       "cannot write the JUnit file "};
    const char *books[] = {in_proc, reports_file, junit_folder};
    for (size_t i = 0; i < 3; ++i) {
        char *args[] = {"bin/lab", "grade-all", "--no-gpu", "--submissions", subs, "--gradebook",
                        (char *)books[i], "demo", "02", NULL};
        int code = demo_lab_run(tree, util_plain_make_env, args, out, sizeof out, err, sizeof err);
        ck_assert_msg(code == 2 && strstr(err, says[i]) != NULL &&
                          strstr(err, "nothing was graded") != NULL && count_lines(err) == 1,
                      "%s: exit %d\n%s%s", books[i], code, out, err);
        ck_assert_msg(strstr(out, "Grading ") == NULL, "graded before checking:\n%s", out);
        ck_assert_int_ne(access(books[i], F_OK), 0);
    }
    /* through make, as the issue met it: the grader's 2 in GRADE_EXIT_FILE */
    char book_arg[1300], exit_arg[1300], subs_arg[4300], exit_file[1200];
    snprintf(book_arg, sizeof book_arg, "GRADEBOOK=%s", reports_file);
    snprintf(exit_file, sizeof exit_file, "%s/grade.exit", tmp);
    snprintf(exit_arg, sizeof exit_arg, "GRADE_EXIT_FILE=%s", exit_file);
    snprintf(subs_arg, sizeof subs_arg, "SUBMISSIONS=%s", subs);
    put(tmp, "grade.exit", "a code of an earlier run\n");
    char *make[] = {"make", "-s", "--no-print-directory", "grade-all", subs_arg, book_arg,
                    exit_arg, "LAB=demo", "STEP=02", "GRADE_NO_GPU=1", NULL};
    int code = demo_lab_run(tree, util_plain_make_env, make, out, sizeof out, err, sizeof err);
    char *written = util_read_file(exit_file, NULL);
    util_remove_tree(tmp);
    free(tmp);
    ck_assert_msg(code == 2 && strstr(err, "cannot write the reports in ") != NULL,
                  "make exited %d\n%s%s", code, out, err);
    ck_assert_msg(written != NULL && strcmp(written, "2\n") == 0, "GRADE_EXIT_FILE holds %s",
                  written ? written : "nothing");
    free(written);
}
END_TEST

START_TEST(grading_a_student_again_replaces_the_row)
{
    const char *tree = graded_demo_tree();
    char *tmp = util_temp_dir("grade-again");
    ck_assert_ptr_nonnull(tmp);
    char src[4200], name[1200];
    snprintf(src, sizeof src, "%s/tests/fixtures/demo-lab/solutions/demo/01-fill.cu",
             graded_demo_root());
    char *fill = util_read_file(src, NULL);
    ck_assert_ptr_nonnull(fill);
    put(tmp, "ada/labs/demo/01-fill.cu", fill);
    free(fill);
    /* besides her step: a file, a git folder, a folder of 7 build outputs */
    put(tmp, "ada/notes.txt", "mine\n");
    put(tmp, "ada/.git/HEAD", "ref: refs/heads/main\n");
    for (int i = 0; i < 7; ++i) {
        snprintf(name, sizeof name, "ada/build/obj/%d.o", i);
        put(tmp, name, "\n");
    }
    char sub_arg[1300], book_arg[1300], exit_arg[1300], book[1200], exit_file[1200];
    snprintf(sub_arg, sizeof sub_arg, "SUBMISSION=%s/ada", tmp);
    snprintf(book, sizeof book, "%s/book.csv", tmp);
    snprintf(book_arg, sizeof book_arg, "GRADEBOOK=%s", book);
    snprintf(exit_file, sizeof exit_file, "%s/grade.exit", tmp);
    snprintf(exit_arg, sizeof exit_arg, "GRADE_EXIT_FILE=%s", exit_file);
    /* LAB=demo: steps 01 and 02, and she has 01 alone */
    char *make[] = {"make", "-s", "--no-print-directory", "grade", sub_arg, book_arg, exit_arg,
                    "LAB=demo", "GRADE_NO_GPU=1", NULL};
    int codes[2];
    char *exits[2];
    for (int run = 0; run < 2; ++run) {
        codes[run] = demo_lab_run(tree, util_plain_make_env, make, out, sizeof out, err,
                                  sizeof err);
        exits[run] = util_read_file(exit_file, NULL);
    }
    int rows = rows_in(book, NULL);
    snprintf(name, sizeof name, "%s/book.reports/ada.txt", tmp);
    char *report = util_read_file(name, NULL);
    util_remove_tree(tmp);
    free(tmp);
    for (int run = 0; run < 2; ++run) {
        ck_assert_msg(codes[run] == 2, "make exited %d\n%s%s", codes[run], out, err);
        ck_assert_msg(exits[run] != NULL && strcmp(exits[run], "77\n") == 0,
                      "run %d: GRADE_EXIT_FILE holds %s\n%s%s", run + 1,
                      exits[run] ? exits[run] : "nothing", out, err);
        free(exits[run]);
    }
    ck_assert_msg(rows == 1, "%d rows after grading ada twice\n%s", rows, out);
    ck_assert_msg(strstr(out, "(replaces ada's row of ") != NULL, "%s", out);
    /* demo/02-shared is not in her submission: one summary line, no line of its own */
    ck_assert_msg(strstr(out, "\n  missing: 1 step file not in the submission (0 points): "
                              "demo/02-shared\n") != NULL &&
                      strstr(out, "missing: demo/02-shared.cu") == NULL,
                  "%s", out);
    ck_assert_ptr_nonnull(report);
    ck_assert_msg(strstr(report, "\nmissing: 1 step file not in the submission (0 points): "
                                 "demo/02-shared\n") != NULL &&
                      strstr(report, "demo/02-shared build") == NULL &&
                      strstr(report, "\nignored (not graded: only the step files are taken): "
                                     "8 files\n  .git/ (a git folder)\n  build/ (7 files)\n"
                                     "  notes.txt\n") != NULL,
                  "%s", report);
    free(report);
}
END_TEST

/* The gradebook stops being writable while grading (its reports folder becomes a file
 * once the checks have passed, as a disk that fills or goes read-only): the row and
 * report are kept in the run's own gradebook under build/grade/, which the summary
 * names with the grade-merge command that takes them in; exit 4, never "gradebook:
 * PATH". Then that command does. */
START_TEST(row_that_cannot_be_written_is_kept_where_the_summary_says)
{
    const char *tree = graded_demo_tree();
    char *tmp = util_temp_dir("grade-midway");
    ck_assert_ptr_nonnull(tmp);
    char book[1200], reports[1200], wrapper[1300], path_env[8192], break_env[1300];
    snprintf(book, sizeof book, "%s/book.csv", tmp);
    snprintf(reports, sizeof reports, "%s/book.reports", tmp);
    /* make as grading calls it, but its first call turns the reports folder into a
     * file (tests/fixtures/grading-records/make-breaks-reports.sh) */
    char fixture[600];
    char *breaking_make = util_read_file(
        fixture_path("grading-records/make-breaks-reports.sh", fixture, sizeof fixture), NULL);
    ck_assert_ptr_nonnull(breaking_make);
    put(tmp, "bin/make", breaking_make);
    free(breaking_make);
    snprintf(wrapper, sizeof wrapper, "%s/bin/make", tmp);
    ck_assert_int_eq(chmod(wrapper, 0755), 0);
    snprintf(path_env, sizeof path_env, "PATH=%s/bin:%s", tmp, getenv("PATH"));
    snprintf(break_env, sizeof break_env, "BREAK=%s", reports);
    const char *env[16];
    size_t e = 0;
    for (; util_plain_make_env[e] != NULL && e < 12; ++e)
        env[e] = util_plain_make_env[e];
    env[e++] = path_env;
    env[e++] = break_env;
    env[e] = NULL;
    /* ada of the demo lab's fixture (tests/fixtures/demo-lab-tree/grade.sh) */
    char *args[] = {"bin/lab", "grade", "--no-gpu", "--submission", "subs/ada", "--student",
                    "ada", "--gradebook", book, "demo", "01", NULL};
    int code = demo_lab_run(tree, env, args, out, sizeof out, err, sizeof err);
    static const char kept_in[] = "NOT in the gradebook: row and report kept in ";
    const char *kept = strstr(out, kept_in);
    char unsaved[1024] = "", unsaved_book[1200] = "", in_tree_book[2300];
    if (kept != NULL)
        sscanf(kept + strlen(kept_in), "%1023s", unsaved_book);
    size_t n = strlen(unsaved_book); /* the part: less "/gradebook.csv" */
    snprintf(unsaved, sizeof unsaved, "%.*s", (int)(n > 14 ? n - 14 : 0), unsaved_book);
    snprintf(in_tree_book, sizeof in_tree_book, "%s/%s", tree, unsaved_book);
    int kept_rows = rows_in(in_tree_book, "ada");
    int book_exists = access(book, F_OK) == 0;
    /* the disk is back: the command the summary gave takes the row in */
    unlink(reports);
    char *merge[] = {"bin/lab", "grade-merge", "--gradebook", book, "--part", unsaved,
                     "demo", "01", NULL};
    char merge_out[4096], merge_err[4096];
    int merged = demo_lab_run(tree, util_plain_make_env, merge, merge_out, sizeof merge_out,
                              merge_err, sizeof merge_err);
    int rows = rows_in(book, "ada");
    char ada_report[1300], rescued[1300];
    snprintf(ada_report, sizeof ada_report, "%s/ada.txt", reports);
    int report_merged = access(ada_report, F_OK) == 0;
    util_remove_tree(tmp);
    free(tmp);
    if (unsaved[0] != '\0') {
        snprintf(rescued, sizeof rescued, "%s/%s", tree, unsaved);
        util_remove_tree(rescued);
    }
    ck_assert_msg(code == 4, "exit %d\n%s%s", code, out, err);
    ck_assert_msg(kept != NULL && strncmp(unsaved_book, "build/grade/", 12) == 0 &&
                      strstr(unsaved_book, "-unsaved/gradebook.csv") != NULL,
                  "%s%s", out, err);
    ck_assert_msg(strstr(err, "cannot write ") != NULL && strstr(err, "ada.txt") != NULL, "%s",
                  err);
    ck_assert_msg(strstr(out, "NOT SAVED: 1 of them could not be written to ") != NULL &&
                      strstr(out, "bin/lab grade-merge --gradebook ") != NULL &&
                      strstr(out, "; gradebook: ") == NULL,
                  "%s", out);
    ck_assert_msg(kept_rows == 1, "%s holds no row of ada", unsaved_book);
    ck_assert(!book_exists);
    ck_assert_msg(merged == 0 && rows == 1 && report_merged, "grade-merge exited %d, %d rows\n%s%s",
                  merged, rows, merge_out, merge_err);
}
END_TEST

void add_grading_records_cases(TCase *tc)
{
    tcase_add_test(tc, gradebook_that_cannot_be_written_is_refused_before_grading);
    tcase_add_test(tc, grading_a_student_again_replaces_the_row);
    tcase_add_test(tc, row_that_cannot_be_written_is_kept_where_the_summary_says);
}

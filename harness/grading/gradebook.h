/* The gradebook: one row per student (student, submission, date, gpu, a column of
 * points per graded step, total, max, not_run, report), a reports folder and a JUnit
 * file beside it; its default path per selection; what a row says (a grade, "not
 * graded", graded without a GPU); its columns checked before grading; the folders of
 * a class of submissions. Shared by grade-all and the merge of a class graded in
 * parts (split_merge.c). */
#ifndef LAB_GRADING_GRADEBOOK_H
#define LAB_GRADING_GRADEBOOK_H

#include <stddef.h>

#include "csv.h"
#include "step_table.h"

/* A row for a submission that could not be graded holds "not graded (why)" in its
 * total and nothing in its points: never a zero that looks like a grade. */
#define GRADE_NOT_GRADED "not graded"
/* 1 when the row holds a grade (not a "not graded" row). */
int grade_row_graded(const struct csv_table *t, size_t row);
/* 1 when the row holds a grade given without a GPU (its gpu column "none"): correct,
 * the sanitizers and speed did not run, so a grading run with a GPU grades it again. */
int grade_row_without_gpu(const struct csv_table *t, size_t row);
/* 1 when the gradebook holds a grade of submission that a run (with a GPU or not)
 * leaves as it is: any grade, but one given without a GPU when with_gpu. */
int grade_submission_done(const struct csv_table *t, const char *submission, int with_gpu);
/* For csv_update_rows, with a struct grade_replace: the rows a new row of the
 * submission replaces: its "not graded" rows, and with_gpu, its rows without a GPU
 * (with_gpu 0: a "not graded (reason)" row gives way to a grade, nothing else); and,
 * student given (`make grade`, one submission), every row of that student, so
 * grading a student again leaves one row, the latest. */
struct grade_replace {
    const char *submission;
    int with_gpu;
    const char *student; /* NULL: grade-all, whose rows are the submissions' */
};
int grade_drop_replaced(const struct csv_table *t, size_t row, void *replace);
/* Where grading writes when no gradebook is given: grades/ (git-ignored), one file per
 * selection, so grading another selection never meets a gradebook of other columns:
 * grades/gradebook.csv, grades/gradebook-<lab>.csv, grades/gradebook-<lab>-<step>.csv. */
#define GRADE_DEFAULT_DIR "grades"
void grade_default_gradebook(const struct step_table *lab, const struct step_info *step,
                             char *buf, size_t len);
/* Before anything is graded: 0 when gradebook does not exist yet or has the columns of
 * this selection (grade_columns); else -1 with why saying what differs (the columns
 * it lacks and those it has besides) and what to do. */
int grade_check_gradebook(const char *gradebook, const struct step_table *lab,
                          const struct step_info *step, char *why, size_t why_len);
/* Before anything is graded: 0 when the gradebook, its reports folder and its JUnit
 * file can be written (the folders made, a file created and removed in each, and
 * neither file a folder); else -1 with why naming the place and the system's reason.
 * (Checking only at the end lost a whole class's grades to a read-only folder.) */
int grade_check_writable(const char *gradebook, char *why, size_t why_len);
/* The same for one file that grading appends to (THROUGHPUT=): its folder. */
int grade_check_file_writable(const char *path, const char *what, char *why, size_t why_len);
/* The gradebook's columns for the selection (NULL: every lab, every step): student,
 * submission, date, gpu, one per step, total, max, not_run, report; as many as the
 * step tables have steps. 0, or -1 (out of memory); grade_columns_free frees them. */
struct gradebook_columns {
    const char **cols;
    char (*names)[128];
    size_t count;
};
int grade_columns(const struct step_table *lab, const struct step_info *step,
                  struct gradebook_columns *out);
void grade_columns_free(struct gradebook_columns *c);
/* The submission folders of dir (not starting with '.'), sorted by name; the caller
 * frees each name and the array. 0, or -1 (errno) when dir cannot be read. */
int grade_list_submissions(const char *dir, char ***names, size_t *count);
/* file.csv -> file.reports, file.junit.xml; the JUnit file from the reports folder. */
void grade_reports_dir(const char *gradebook, char *buf, size_t len);
void grade_junit_path(const char *gradebook, char *buf, size_t len);
/* 0, or -1 (errno) when it could not be written. */
int grade_write_junit(const char *gradebook);

#endif

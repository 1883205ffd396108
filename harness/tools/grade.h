/* bin/lab grade and grade-all (harness/tools/grade.c). */
#ifndef LAB_GRADE_H
#define LAB_GRADE_H

#include <stddef.h>

#include "step_table.h"

struct grade_request {
    const struct step_table *lab;  /* NULL: every lab */
    const struct step_info *step;  /* NULL: every step */
    const char *student;           /* NULL: the submission folder's name */
    const char *submission;        /* one submission (NULL: "."), or ... */
    const char *submissions;       /* ... a folder of them (grade-all) */
    const char *gradebook;
    const char *sanitizer;         /* compute-sanitizer's path; NULL or "": look on PATH */
    int jobs;                      /* compilations at once */
    int no_gpu;                    /* grade as if there were no GPU: builds and static checks */
    int concurrency;               /* a step's check sizes, or its compute-sanitizer runs, at
                                      once on the GPU (speed runs always alone); 0: default */
};

/* The default of grade_request.concurrency (GRADE_CONCURRENCY); 1 runs everything one
 * after the other. */
#define GRADE_DEFAULT_CONCURRENCY 3
#define GRADE_MAX_CONCURRENCY 32

/* Grades, writes the gradebook, reports and JUnit file; returns the exit code. */
int grade_main(const struct grade_request *request);

/* The gradebook, shared by grade-all and the merge of a class graded in parts
 * (grade_parts.c: a Slurm array job, harness/slurm/). */
struct csv_table;
/* A row for a submission that could not be graded holds "not graded (why)" in its
 * total and nothing in its points: never a zero that looks like a grade. */
#define GRADE_NOT_GRADED "not graded"
/* 1 when the row holds a grade (not a "not graded" row). */
int grade_row_graded(const struct csv_table *t, size_t row);
/* For csv_update_rows: the "not graded" rows of the submission named by ctx. */
int grade_drop_not_graded(const struct csv_table *t, size_t row, void *submission);
/* The gradebook's columns for the selection (NULL: every lab, every step): student,
 * submission, date, gpu, one per step, total, max, not_run, report. Returns the count. */
size_t grade_columns(const struct step_table *lab, const struct step_info *step,
                     const char **cols, char names[][128], size_t max_steps);
/* The submission folders of dir (not starting with '.'), sorted by name; the caller
 * frees each name and the array. 0, or -1 (errno) when dir cannot be read. */
int grade_list_submissions(const char *dir, char ***names, size_t *count);
/* file.csv -> file.reports, file.junit.xml; the JUnit file from the reports folder. */
void grade_reports_dir(const char *gradebook, char *buf, size_t len);
void grade_junit_path(const char *gradebook, char *buf, size_t len);
void grade_write_junit(const char *gradebook);

/* bin/lab grade-split: the submissions of dir not yet graded in the gradebook, in
 * folders of at most batch, out/task-<i>/subs/<name> (links to the submissions).
 * Prints the number of folders. bin/lab grade-merge: merges each part's gradebook
 * (part/gradebook.csv, its reports) into the gradebook, a submission graded there
 * already is left as it is; with reason, every submission of a part still without
 * a grade gets a "not graded (reason)" row. */
int grade_split(const struct grade_request *request, int batch, const char *out);
int grade_merge(const struct grade_request *request, char *const *parts, int part_count,
                const char *reason);

#endif
